#include "ops/upsample_bicubic2d/bicubic_weights.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "ops/common/axis_ratio.h"

namespace aclnn_upsample {
namespace {

constexpr double kCubicA = -0.75;  // PyTorch's and OpenCV's bicubic; the AA mode uses -0.5

// Keys' cubic for |x| <= 1 and for 1 < |x| < 2.
double CubicNear(double x) { return ((kCubicA + 2.0) * x - (kCubicA + 3.0)) * x * x + 1.0; }
double CubicFar(double x) {
  return ((kCubicA * x - 5.0 * kCubicA) * x + 8.0 * kCubicA) * x - 4.0 * kCubicA;
}

// The weights of the inputs at i0 - 1 .. i0 + 2 for a fraction t = real - i0 in [0, 1].
std::array<double, 4> CubicWeights(double t) {
  return {CubicFar(t + 1.0), CubicNear(t), CubicNear(1.0 - t), CubicFar(2.0 - t)};
}

}  // namespace

ForwardAxis BuildBicubicAxis(const AxisSpec& axis) {
  ForwardAxis forward;
  forward.in_size = axis.in_size;
  forward.out_size = axis.out_size;
  const double ratio = SourceRatio(axis);
  const int64_t last = axis.in_size - 1;
  for (int64_t o = 0; o < axis.out_size; ++o) {
    const double real = axis.align_corners ? ratio * static_cast<double>(o)
                                           : ratio * (static_cast<double>(o) + 0.5) - 0.5;
    const int64_t i0 = FloorIndexAtMost(real, last);  // >= -1: real >= -0.5
    const double t = std::clamp(real - static_cast<double>(i0), 0.0, 1.0);
    const std::array<double, 4> weights = CubicWeights(t);
    const auto clamped = [last](int64_t i) { return std::clamp<int64_t>(i, 0, last); };
    const int64_t first = clamped(i0 - 1);
    std::array<double, 4> taps = {0.0, 0.0, 0.0, 0.0};
    for (int64_t k = 0; k < 4; ++k) taps[clamped(i0 - 1 + k) - first] += weights[k];
    forward.AddRow(first, taps.data(), clamped(i0 + 2) - first + 1);
  }
  return forward;
}

}  // namespace aclnn_upsample
