// The kernels' tuning (kernels::KernelTuning) changed for one scope of a test, so that a test
// runs the choice it checks on any CPU and the tests after it find the CPU's own again.
#ifndef ACLNN_UPSAMPLE_TESTS_SUPPORT_SCOPED_TUNING_H_
#define ACLNN_UPSAMPLE_TESTS_SUPPORT_SCOPED_TUNING_H_

#include "kernels/kernels.h"

namespace aclnn_upsample {

// The CPU's tuning (kernels::DefaultTuningForCpu) as `change(tuning)` leaves it, in force until
// the end of the scope; the CPU's own after.
class ScopedTuning {
 public:
  template <class Change>
  explicit ScopedTuning(Change change) {
    kernels::KernelTuning tuning = kernels::DefaultTuningForCpu();
    change(tuning);
    kernels::OverrideTuning(tuning);
  }
  ~ScopedTuning() { kernels::OverrideTuning(kernels::DefaultTuningForCpu()); }
  ScopedTuning(const ScopedTuning&) = delete;
  ScopedTuning& operator=(const ScopedTuning&) = delete;
};

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_TESTS_SUPPORT_SCOPED_TUNING_H_
