#include "ops/upsample_bicubic2d_aa/bicubic_aa_weights.h"

#include <algorithm>
#include <cmath>
#include <vector>

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

// The reference's int() truncation followed by clamping to [0, limit], done in double first so
// that ratios far beyond int64 (downsampling has no limit) stay defined.
int64_t TruncateToRange(double value, int64_t limit) {
  if (!(value > 0.0)) return 0;
  if (value >= static_cast<double>(limit)) return limit;
  return static_cast<int64_t>(value);
}

}  // namespace

double BicubicAAAxisRatio(const AxisSpec& axis) {
  const double in = static_cast<double>(axis.in_size);
  const double out = static_cast<double>(axis.out_size);
  if (axis.align_corners) return axis.out_size > 1 ? (in - 1.0) / (out - 1.0) : 0.0;
  return axis.scale > 0.0 ? 1.0 / axis.scale : in / out;
}

ForwardAxis BuildBicubicAAAxis(const AxisSpec& axis) {
  ForwardAxis forward;
  forward.in_size = axis.in_size;
  forward.out_size = axis.out_size;
  const double ratio = BicubicAAAxisRatio(axis);
  // Downsampling widens the filter by the ratio so that every input contributes (antialiasing).
  const double support = ratio >= 1.0 ? 2.0 * ratio : 2.0;
  const double inv_scale = ratio >= 1.0 ? 1.0 / ratio : 1.0;
  std::vector<double> taps;
  // A scale near the smallest doubles has a finite ratio (up to about 1.8e308) but a support
  // 2 * ratio, and centres ratio * (o + 0.5), that overflow to Inf: every row would get the
  // whole axis as its window (a NaN would then reach inputs no finite filter touches, and phase
  // 1 would grow as out * in) and rows past the first would lose their taps. There the window
  // bounds are taken as ratio * (o + 0.5 -/+ 2) and the tap distances as (i + 0.5) / ratio -
  // (o + 0.5), equal in exact arithmetic, without the overflowing terms; finite supports keep
  // the reference's expressions bit for bit.
  const bool support_overflows = !std::isfinite(support);
  for (int64_t o = 0; o < axis.out_size; ++o) {
    const double center = ratio * (static_cast<double>(o) + 0.5);
    const double lower =
        support_overflows ? ratio * (static_cast<double>(o) - 1.5) : center - support;
    const double upper =
        support_overflows ? ratio * (static_cast<double>(o) + 2.5) : center + support;
    // Truncation toward zero, as the reference's int conversion, before clamping.
    const int64_t imin = TruncateToRange(lower + 0.5, axis.in_size);
    const int64_t imax = TruncateToRange(upper + 0.5, axis.in_size);
    const int64_t count = std::max<int64_t>(imax - imin, 0);
    taps.assign(count, 0.0);
    double total = 0.0;
    for (int64_t j = 0; j < count; ++j) {
      const double i = static_cast<double>(imin + j);
      taps[j] =
          CubicKernel(support_overflows ? (i + 0.5) * inv_scale - (static_cast<double>(o) + 0.5)
                                        : (i - center + 0.5) * inv_scale);
      total += taps[j];
    }
    if (total != 0.0) {
      for (double& w : taps) w /= total;
    }
    forward.AddRow(imin, taps.data(), count);
  }
  return forward;
}

}  // namespace aclnn_upsample
