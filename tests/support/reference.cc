#include "support/reference.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace reference {
namespace {

// Keys' cubic with a = -0.5, as PyTorch's antialiased bicubic filter.
double KeysHalf(double x) {
  const double a = -0.5;
  x = std::abs(x);
  if (x <= 1) return (a + 2) * x * x * x - (a + 3) * x * x + 1;
  if (x < 2) return a * x * x * x - 5 * a * x * x + 8 * a * x - 4 * a;
  return 0;
}

double Triangle(double x) { return std::max(0.0, 1.0 - std::abs(x)); }

// ATen's cubic_convolution1 (|x| <= 1) and cubic_convolution2 (1 < |x| < 2), a = -0.75.
constexpr double kBicubicA = -0.75;
double Convolution1(double x) { return ((kBicubicA + 2) * x - (kBicubicA + 3)) * x * x + 1; }
double Convolution2(double x) {
  return ((kBicubicA * x - 5 * kBicubicA) * x + 8 * kBicubicA) * x - 4 * kBicubicA;
}

// The input indices that are taps of each output row.
std::vector<std::vector<int64_t>> TapsByRow(const Matrix& m) {
  std::vector<std::vector<int64_t>> taps(m.rows);
  for (int64_t r = 0; r < m.rows; ++r) {
    for (int64_t col = 0; col < m.cols; ++col) {
      if (m.tap(r, col)) taps[r].push_back(col);
    }
  }
  return taps;
}

// Adds weight w at input i to output row o (a tap already there gains the weight).
void AddTap(AxisTaps* taps, int64_t o, int64_t i, double w) {
  for (auto& [index, weight] : (*taps)[o]) {
    if (index == i) {
      weight += w;
      return;
    }
  }
  (*taps)[o].push_back({i, w});
}

// Contract 1.1: two taps, the source coordinate clamped at 0 unless aligned; sizes that agree
// copy, whatever the ratio (PyTorch's shortcut).
void FillBilinear(AxisTaps* taps, int64_t in, bool align_corners, double s) {
  const int64_t out = static_cast<int64_t>(taps->size());
  for (int64_t o = 0; o < out; ++o) {
    if (in == out) {
      AddTap(taps, o, o, 1.0);
      continue;
    }
    const double src = align_corners ? o * s : std::max(0.0, (o + 0.5) * s - 0.5);
    const int64_t i0 = std::min<int64_t>(int64_t(std::floor(src)), in - 1);
    const int64_t i1 = i0 < in - 1 ? i0 + 1 : i0;
    const double l1 = std::clamp(src - double(i0), 0.0, 1.0);
    AddTap(taps, o, i0, 1.0 - l1);
    AddTap(taps, o, i1, l1);
  }
}

// Contract 1.2 (and its triangle-filter twin): ATen's antialiased weights, the filter widened by
// the ratio when downscaling, each row normalised to sum 1.
void FillAntialiased(AxisTaps* taps, int64_t in, double s, double (*filter)(double),
                     double half_width) {
  const double support = s >= 1 ? half_width * s : half_width;
  const double invscale = s >= 1 ? 1 / s : 1.0;
  for (int64_t o = 0; o < static_cast<int64_t>(taps->size()); ++o) {
    const double center = s * (o + 0.5);
    const int64_t imin = std::max<int64_t>(int64_t(center - support + 0.5), 0);
    const int64_t imax = std::min<int64_t>(int64_t(center + support + 0.5), in);
    double total = 0;
    for (int64_t i = imin; i < imax; ++i) total += filter((i - center + 0.5) * invscale);
    for (int64_t i = imin; i < imax; ++i) {
      const double w = filter((i - center + 0.5) * invscale);
      AddTap(taps, o, i, total != 0 ? w / total : w);
    }
  }
}

// ATen's upsample_bicubic2d: four taps around floor(real), the source coordinate not clamped,
// indices clamped to the image (taps on one index add up), every tap kept.
void FillBicubic(AxisTaps* taps, int64_t in, bool align_corners, double s) {
  for (int64_t o = 0; o < static_cast<int64_t>(taps->size()); ++o) {
    const double real = align_corners ? s * o : s * (o + 0.5) - 0.5;
    const int64_t i0 = std::min<int64_t>(int64_t(std::floor(real)), in - 1);
    const double t = std::clamp(real - double(i0), 0.0, 1.0);
    const double w[4] = {Convolution2(t + 1), Convolution1(t), Convolution1(1 - t),
                         Convolution2(2 - t)};
    for (int k = 0; k < 4; ++k) AddTap(taps, o, std::clamp<int64_t>(i0 - 1 + k, 0, in - 1), w[k]);
  }
}

}  // namespace

// ATen's nearest_idx and nearest_neighbor_exact_compute_source_index, in their float32
// arithmetic: one tap of weight 1.
int64_t NearestSourceIndex(Op op, int64_t o, int64_t in, int64_t out, float scale) {
  float position;
  if (op == Op::kNearest) {
    if (out == in) return o;
    if (out == 2 * in) return o >> 1;
    position = std::floor(static_cast<float>(o) * scale);
  } else {
    // (o + 0.5) * scale is a double product; floorf's parameter rounds it to float.
    position =
        std::floor(static_cast<float>((static_cast<double>(o) + 0.5) * static_cast<double>(scale)));
  }
  // Compared as floats first: a huge ratio makes the position too large for int64.
  return position >= static_cast<float>(in - 1) ? in - 1 : static_cast<int64_t>(position);
}

const char* ModeName(Op op) {
  switch (op) {
    case Op::kBilinear:
      return "bilinear";
    case Op::kBicubicAA:
      return "bicubic_aa";
    case Op::kBilinearAA:
      return "bilinear_aa";
    case Op::kBicubic:
      return "bicubic";
    case Op::kNearest:
      return "nearest";
    case Op::kNearestExact:
      return "nearest_exact";
  }
  return "?";
}

bool OpFromMode(const std::string& mode, Op* op) {
  for (Op candidate : {Op::kBilinear, Op::kBicubicAA, Op::kBilinearAA, Op::kBicubic, Op::kNearest,
                       Op::kNearestExact}) {
    if (mode == ModeName(candidate)) {
      *op = candidate;
      return true;
    }
  }
  return false;
}

bool IsNearest(Op op) { return op == Op::kNearest || op == Op::kNearestExact; }

std::string Case::Name() const {
  std::ostringstream name;
  name << ModeName(op) << " N" << n << " C" << c << " " << in_h << "x" << in_w << "->" << out_h
       << "x" << out_w << (align_corners ? " align" : "") << " scales " << scales_h << ","
       << scales_w
       << (scale_rule == ScaleRule::kAsGiven          ? " (as given)"
           : scale_rule == ScaleRule::kConsistentSize ? " (if consistent)"
                                                      : "");
  return name.str();
}

Case MakeResizeCase(Op op, int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w, bool align,
                    double scales_h, double scales_w, int64_t n, int64_t c) {
  Case made;
  made.op = op;
  made.n = n;
  made.c = c;
  made.in_h = in_h;
  made.in_w = in_w;
  made.out_h = out_h;
  made.out_w = out_w;
  made.align_corners = align;
  made.scales_h = scales_h;
  made.scales_w = scales_w;
  return made;
}

double UsedScale(const Case& c, int64_t in, int64_t out, double scale) {
  const bool consistent_rule = c.scale_rule == ScaleRule::kConsistentSize ||
                               (c.scale_rule == ScaleRule::kOfMode && c.op == Op::kBilinear);
  if (!consistent_rule) return scale;
  // Contract 1.3: the device trusts scales only when consistent with outputSize.
  const bool consistent = scale > 0 && double(out) == std::floor(double(in) * scale);
  return consistent && 1.0 / scale >= 0.01 ? scale : 0.0;
}

double Ratio(Op op, int64_t in, int64_t out, bool align_corners, double scale) {
  if (IsNearest(op)) {
    // compute_scales_value<float>: the inverse in double, then rounded; or float division.
    return scale > 0 ? static_cast<float>(1.0 / scale)
                     : static_cast<float>(in) / static_cast<float>(out);
  }
  if (align_corners) return out > 1 ? double(in - 1) / double(out - 1) : 0.0;
  return scale > 0 ? 1.0 / scale : double(in) / double(out);
}

Matrix AxisMatrix(Op op, int64_t in, int64_t out, bool align_corners, double scale) {
  return AxisMatrixForRatio(op, in, out, align_corners, Ratio(op, in, out, align_corners, scale));
}

Matrix CaseAxisMatrix(const Case& c, bool on_h) {
  const int64_t in = on_h ? c.in_h : c.in_w, out = on_h ? c.out_h : c.out_w;
  return AxisMatrix(c.op, in, out, c.align_corners,
                    UsedScale(c, in, out, on_h ? c.scales_h : c.scales_w));
}

AxisTaps TapsForRatio(Op op, int64_t in, int64_t out, bool align_corners, double s) {
  AxisTaps taps(out);
  switch (op) {
    case Op::kBilinear:
      FillBilinear(&taps, in, align_corners, s);
      break;
    case Op::kBicubicAA:
      FillAntialiased(&taps, in, s, KeysHalf, 2.0);
      break;
    case Op::kBilinearAA:
      FillAntialiased(&taps, in, s, Triangle, 1.0);
      break;
    case Op::kBicubic:
      FillBicubic(&taps, in, align_corners, s);
      break;
    case Op::kNearest:
    case Op::kNearestExact:
      for (int64_t o = 0; o < out; ++o) {
        AddTap(&taps, o, NearestSourceIndex(op, o, in, out, static_cast<float>(s)), 1.0);
      }
      break;
  }
  return taps;
}

AxisTaps Taps(Op op, int64_t in, int64_t out, bool align_corners, double scale) {
  return TapsForRatio(op, in, out, align_corners, Ratio(op, in, out, align_corners, scale));
}

Matrix AxisMatrixForRatio(Op op, int64_t in, int64_t out, bool align_corners, double s) {
  Matrix m;
  m.rows = out;
  m.cols = in;
  m.weight.assign(out * in, 0.0);
  m.is_tap.assign(out * in, false);
  const AxisTaps taps = TapsForRatio(op, in, out, align_corners, s);
  for (int64_t o = 0; o < out; ++o) {
    for (const auto& [i, w] : taps[o]) {
      m.weight[o * in + i] = w;
      m.is_tap[o * in + i] = true;
    }
  }
  return m;
}

void Backward(const Case& c, const std::vector<double>& grad, std::vector<double>* result,
              std::vector<double>* magnitude) {
  BackwardWith(c, CaseAxisMatrix(c, true), CaseAxisMatrix(c, false), grad, result, magnitude);
}
void BackwardWith(const Case& c, const Matrix& ah, const Matrix& aw,
                  const std::vector<double>& grad, std::vector<double>* result,
                  std::vector<double>* magnitude) {
  result->assign(c.result_elements(), 0.0);
  magnitude->assign(c.result_elements(), 0.0);
  for (int64_t p = 0; p < c.n * c.c; ++p) {
    const double* g = grad.data() + p * c.out_h * c.out_w;
    double* r = result->data() + p * c.in_h * c.in_w;
    double* m = magnitude->data() + p * c.in_h * c.in_w;
    for (int64_t oh = 0; oh < c.out_h; ++oh) {
      for (int64_t ih = 0; ih < c.in_h; ++ih) {
        if (!ah.tap(oh, ih)) continue;
        for (int64_t ow = 0; ow < c.out_w; ++ow) {
          for (int64_t iw = 0; iw < c.in_w; ++iw) {
            if (!aw.tap(ow, iw)) continue;
            const double term = ah.at(oh, ih) * aw.at(ow, iw) * g[oh * c.out_w + ow];
            r[ih * c.in_w + iw] += term;
            m[ih * c.in_w + iw] += std::abs(term);
          }
        }
      }
    }
  }
}

std::vector<double> Forward(const Case& c, const std::vector<double>& x) {
  const Matrix ah = CaseAxisMatrix(c, true), aw = CaseAxisMatrix(c, false);
  std::vector<double> y(c.grad_elements(), 0.0);
  for (int64_t p = 0; p < c.n * c.c; ++p) {
    const double* xp = x.data() + p * c.in_h * c.in_w;
    double* yp = y.data() + p * c.out_h * c.out_w;
    for (int64_t oh = 0; oh < c.out_h; ++oh) {
      for (int64_t ow = 0; ow < c.out_w; ++ow) {
        double sum = 0;
        for (int64_t ih = 0; ih < c.in_h; ++ih) {
          for (int64_t iw = 0; iw < c.in_w; ++iw) {
            sum += ah.at(oh, ih) * aw.at(ow, iw) * xp[ih * c.in_w + iw];
          }
        }
        yp[oh * c.out_w + ow] = sum;
      }
    }
  }
  return y;
}

void Forward(const Case& c, const std::vector<double>& x, std::vector<double>* y,
             std::vector<double>* magnitude) {
  ForwardWith(c, CaseAxisMatrix(c, true), CaseAxisMatrix(c, false), x, y, magnitude);
}

void ForwardWith(const Case& c, const Matrix& ah, const Matrix& aw, const std::vector<double>& x,
                 std::vector<double>* y, std::vector<double>* magnitude) {
  // Each output row's taps once, so that a plane costs out * taps^2, not out * in.
  const std::vector<std::vector<int64_t>> taps_h = TapsByRow(ah), taps_w = TapsByRow(aw);
  y->assign(c.grad_elements(), 0.0);
  magnitude->assign(c.grad_elements(), 0.0);
  for (int64_t p = 0; p < c.n * c.c; ++p) {
    const double* xp = x.data() + p * c.in_h * c.in_w;
    for (int64_t oh = 0; oh < c.out_h; ++oh) {
      for (int64_t ow = 0; ow < c.out_w; ++ow) {
        double sum = 0, abs_sum = 0;
        for (int64_t ih : taps_h[oh]) {
          for (int64_t iw : taps_w[ow]) {
            const double term = ah.at(oh, ih) * aw.at(ow, iw) * xp[ih * c.in_w + iw];
            sum += term;
            abs_sum += std::abs(term);
          }
        }
        const int64_t o = (p * c.out_h + oh) * c.out_w + ow;
        (*y)[o] = sum;
        (*magnitude)[o] = abs_sum;
      }
    }
  }
}

}  // namespace reference
