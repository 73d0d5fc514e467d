#include "ops/upsample_bicubic2d_aa/bicubic_aa_weights.h"

#include <cmath>

#include "ops/common/antialias_weights.h"

namespace aclnn_upsample {
namespace {

// Keys' cubic convolution kernel with a = -0.5 (Catmull-Rom), as PIL and PyTorch use.
double CubicKernel(double d) {
  constexpr double a = -0.5;
  d = std::fabs(d);
  if (d <= 1.0) return ((a + 2.0) * d - (a + 3.0)) * d * d + 1.0;
  if (d < 2.0) return ((a * d - 5.0 * a) * d + 8.0 * a) * d - 4.0 * a;
  return 0.0;
}

}  // namespace

ForwardAxis BuildBicubicAAAxis(const AxisSpec& axis) {
  return BuildAntialiasAxis(axis, AntialiasFilter{CubicKernel, /*half_width=*/2.0});
}

}  // namespace aclnn_upsample
