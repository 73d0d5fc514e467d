#include "ops/common/antialias_weights.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "ops/common/axis_ratio.h"

namespace aclnn_upsample {
namespace {

// The reference's int() truncation followed by clamping to [0, limit], done in double first so
// that ratios far beyond int64 (downsampling has no limit) stay defined.
int64_t TruncateToRange(double value, int64_t limit) {
  if (!(value > 0.0)) return 0;
  if (value >= static_cast<double>(limit)) return limit;
  return static_cast<int64_t>(value);
}

}  // namespace

ForwardAxis BuildAntialiasAxis(const AxisSpec& axis, const AntialiasFilter& filter) {
  ForwardAxis forward;
  forward.in_size = axis.in_size;
  forward.out_size = axis.out_size;
  const double ratio = SourceRatio(axis);
  const double half = filter.half_width;
  // Downsampling widens the filter by the ratio so that every input contributes (antialiasing).
  const double support = ratio >= 1.0 ? half * ratio : half;
  const double inv_scale = ratio >= 1.0 ? 1.0 / ratio : 1.0;
  std::vector<double> taps;
  // A scale near the smallest doubles has a finite ratio (up to about 1.8e308) but a support
  // half * ratio, and centres ratio * (o + 0.5), that overflow to Inf: every row would get the
  // whole axis as its window (a NaN would then reach inputs no finite filter touches, and phase
  // 1 would grow as out * in) and rows past the first would lose their taps. There the window
  // bounds are taken as ratio * (o + 0.5 -/+ half) and the tap distances as (i + 0.5) / ratio -
  // (o + 0.5), equal in exact arithmetic, without the overflowing terms; finite supports keep
  // the reference's expressions bit for bit.
  const bool support_overflows = !std::isfinite(support);
  for (int64_t o = 0; o < axis.out_size; ++o) {
    const double center = ratio * (static_cast<double>(o) + 0.5);
    const double lower =
        support_overflows ? ratio * (static_cast<double>(o) + 0.5 - half) : center - support;
    const double upper =
        support_overflows ? ratio * (static_cast<double>(o) + 0.5 + half) : center + support;
    // Truncation toward zero, as the reference's int conversion, before clamping.
    const int64_t imin = TruncateToRange(lower + 0.5, axis.in_size);
    const int64_t imax = TruncateToRange(upper + 0.5, axis.in_size);
    const int64_t count = std::max<int64_t>(imax - imin, 0);
    taps.assign(count, 0.0);
    double total = 0.0;
    for (int64_t j = 0; j < count; ++j) {
      const double i = static_cast<double>(imin + j);
      taps[j] =
          filter.weight(support_overflows ? (i + 0.5) * inv_scale - (static_cast<double>(o) + 0.5)
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
