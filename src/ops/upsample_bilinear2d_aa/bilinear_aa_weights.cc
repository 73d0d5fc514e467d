#include "ops/upsample_bilinear2d_aa/bilinear_aa_weights.h"

#include <cmath>

#include "ops/common/antialias_weights.h"

namespace aclnn_upsample {
namespace {

// The triangle (tent) filter of linear interpolation.
double TriangleKernel(double d) {
  d = std::fabs(d);
  return d < 1.0 ? 1.0 - d : 0.0;
}

}  // namespace

ForwardAxis BuildBilinearAAAxis(const AxisSpec& axis) {
  return BuildAntialiasAxis(axis, AntialiasFilter{TriangleKernel, /*half_width=*/1.0});
}

}  // namespace aclnn_upsample
