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
  ForwardAxis forward;
  forward.in_size = axis.in_size;
  forward.out_size = axis.out_size;
  const float ratio = NearestRatio(axis);
  const int64_t last = axis.in_size - 1;
  const double one = 1.0;
  for (int64_t o = 0; o < axis.out_size; ++o) {
    int64_t source;
    if (axis.out_size == axis.in_size) {
      source = o;
    } else if (axis.out_size == 2 * axis.in_size) {
      source = o >> 1;
    } else {
      // float * float, as ATen's int64 * float: no double intermediate.
      source = NearestIndexAtMost(static_cast<float>(o) * ratio, last);
    }
    forward.AddRow(source, &one, 1);
  }
  return forward;
}

}  // namespace aclnn_upsample
