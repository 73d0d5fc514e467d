// Random banded 1-D matrices shaped like the operators' (monotone runs of 1..5 taps), in the
// engine's backward form and blocked form, for the internal kernel and engine tests.
#ifndef ACLNN_UPSAMPLE_TESTS_SUPPORT_RANDOM_AXIS_H_
#define ACLNN_UPSAMPLE_TESTS_SUPPORT_RANDOM_AXIS_H_

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "engine/axis_weights.h"
#include "engine/gather_view.h"
#include "kernels/kernels.h"

namespace aclnn_upsample {

// A random banded matrix in backward (gather) form, with its blocked layout for this target.
struct RandomAxis {
  AxisRuns exact;
  BlockedAxis blocked;
  kernels::GatherAxis View(bool use_blocks) const {
    return MakeGatherAxis(exact, nullptr, use_blocks ? &blocked : nullptr);
  }
};

inline RandomAxis MakeRandomAxis(int64_t in_size, int64_t out_size, uint32_t seed) {
  std::mt19937 rng(seed);
  ForwardAxis forward;
  forward.in_size = in_size;
  forward.out_size = out_size;
  for (int64_t o = 0; o < out_size; ++o) {
    // Monotone windows like the operators' (first input grows with o), 1..5 taps.
    const int64_t center = o * in_size / out_size;
    const int64_t count = std::min<int64_t>(1 + rng() % 5, in_size);
    const int64_t first = std::clamp<int64_t>(center - count / 2, 0, in_size - count);
    std::vector<double> taps(count);
    for (double& t : taps) t = std::normal_distribution<double>()(rng);
    forward.AddRow(first, taps.data(), count);
  }
  RandomAxis axis;
  axis.exact = Transpose(forward);
  axis.blocked = BlockAxis(axis.exact, static_cast<int32_t>(kernels::FloatLanes()), 1 << 20);
  return axis;
}

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_TESTS_SUPPORT_RANDOM_AXIS_H_
