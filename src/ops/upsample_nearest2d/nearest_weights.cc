#include "ops/upsample_nearest2d/nearest_weights.h"

#include <algorithm>
#include <cmath>

namespace aclnn_upsample {

float NearestRatio(const AxisSpec& axis) {
  return axis.scale > 0.0 ? static_cast<float>(1.0 / axis.scale)
                          : static_cast<float>(axis.in_size) / static_cast<float>(axis.out_size);
}

int64_t NearestIndexAtMost(float position, int64_t last) {
  if (!(position > 0.0f)) return 0;
  if (position >= 9.0e18f) return last;  // past int64, where the conversion is undefined
  return std::min(static_cast<int64_t>(std::floor(position)), last);
}

ForwardAxis BuildNearestAxis(const AxisSpec& axis) {
  return BuildSelectionAxis(axis, [&axis](int64_t o, float ratio, int64_t last) -> int64_t {
    if (axis.out_size == axis.in_size) return o;
    if (axis.out_size == 2 * axis.in_size) return o >> 1;
    // float * float, as ATen's int64 * float: no double intermediate.
    return NearestIndexAtMost(static_cast<float>(o) * ratio, last);
  });
}

}  // namespace aclnn_upsample
