// Run-time target selection: Highway picks the best target the CPU supports on first use;
// ACLNN_UPSAMPLE_SIMD=portable restricts it to the portable scalar target, to measure or
// cross-check the fallback that every build carries.
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "hwy/cache_control.h"
#include "hwy/targets.h"
#include "kernels/kernels.h"

namespace aclnn_upsample {
namespace kernels {

void ApplySimdOverrideOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* choice = std::getenv("ACLNN_UPSAMPLE_SIMD");
    if (choice != nullptr && std::strcmp(choice, "portable") == 0) {
      hwy::SetSupportedTargetsForTest(HWY_SCALAR);
    }
  });
}

void FlushStreamedStores() { hwy::FlushStream(); }

}  // namespace kernels
}  // namespace aclnn_upsample
