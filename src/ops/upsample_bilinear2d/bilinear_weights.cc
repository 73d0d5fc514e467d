#include "ops/upsample_bilinear2d/bilinear_weights.h"

#include <algorithm>
#include <cmath>

#include "ops/common/axis_ratio.h"

namespace aclnn_upsample {

ForwardAxis BuildBilinearAxis(const AxisSpec& axis) {
  ForwardAxis forward;
  forward.in_size = axis.in_size;
  forward.out_size = axis.out_size;
  const double ratio = SourceRatio(axis);
  const int64_t last = axis.in_size - 1;
  for (int64_t o = 0; o < axis.out_size; ++o) {
    if (axis.in_size == axis.out_size) {
      const double one = 1.0;
      forward.AddRow(o, &one, 1);
      continue;
    }
    const double src = axis.align_corners
                           ? static_cast<double>(o) * ratio
                           : std::max(0.0, (static_cast<double>(o) + 0.5) * ratio - 0.5);
    const int64_t i0 = FloorIndexAtMost(src, last);
    const double l1 = std::clamp(src - static_cast<double>(i0), 0.0, 1.0);
    const double taps[2] = {1.0 - l1, l1};
    // On the last input both taps land on one index; keep both (summed by Transpose) so that
    // the tap structure stays that of the formula.
    if (i0 < last) {
      forward.AddRow(i0, taps, 2);
    } else {
      const double merged = taps[0] + taps[1];
      forward.AddRow(i0, &merged, 1);
    }
  }
  return forward;
}

}  // namespace aclnn_upsample
