#include "ops/upsample_nearest_exact2d/nearest_exact_weights.h"

#include "ops/upsample_nearest2d/nearest_weights.h"

namespace aclnn_upsample {

ForwardAxis BuildNearestExactAxis(const AxisSpec& axis) {
  return BuildSelectionAxis(axis, [](int64_t o, float ratio, int64_t last) {
    // ATen: floorf((o + 0.5) * ratio): the product is a double (o + 0.5 is one), rounded to
    // float by floorf's parameter before the floor.
    const double position = (static_cast<double>(o) + 0.5) * static_cast<double>(ratio);
    return NearestIndexAtMost(static_cast<float>(position), last);
  });
}

}  // namespace aclnn_upsample
