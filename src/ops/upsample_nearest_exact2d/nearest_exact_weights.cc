#include "ops/upsample_nearest_exact2d/nearest_exact_weights.h"

#include "ops/upsample_nearest2d/nearest_weights.h"

namespace aclnn_upsample {

ForwardAxis BuildNearestExactAxis(const AxisSpec& axis) {
  ForwardAxis forward;
  forward.in_size = axis.in_size;
  forward.out_size = axis.out_size;
  const float ratio = NearestRatio(axis);
  const int64_t last = axis.in_size - 1;
  const double one = 1.0;
  for (int64_t o = 0; o < axis.out_size; ++o) {
    // ATen: floorf((o + 0.5) * ratio): the product is a double (o + 0.5 is one), rounded to
    // float by floorf's parameter before the floor.
    const double position = (static_cast<double>(o) + 0.5) * static_cast<double>(ratio);
    forward.AddRow(NearestIndexAtMost(static_cast<float>(position), last), &one, 1);
  }
  return forward;
}

}  // namespace aclnn_upsample
