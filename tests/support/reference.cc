#include "support/reference.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace reference {
namespace {

double Cubic(double x) {
  const double a = -0.5;
  x = std::abs(x);
  if (x <= 1) return (a + 2) * x * x * x - (a + 3) * x * x + 1;
  if (x < 2) return a * x * x * x - 5 * a * x * x + 8 * a * x - 4 * a;
  return 0;
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

}  // namespace

std::string Case::Name() const {
  std::ostringstream name;
  name << (op == Op::kBilinear ? "bilinear" : "bicubic_aa") << " N" << n << " C" << c << " " << in_h
       << "x" << in_w << "->" << out_h << "x" << out_w << (align_corners ? " align" : "")
       << " scales " << scales_h << "," << scales_w;
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

double Ratio(Op op, int64_t in, int64_t out, bool align_corners, double scale) {
  if (align_corners) return out > 1 ? double(in - 1) / double(out - 1) : 0.0;
  if (op == Op::kBilinear) {
    // Contract 1.3: the device trusts scales only when consistent with outputSize.
    const bool consistent = scale > 0 && double(out) == std::floor(double(in) * scale);
    return consistent && 1.0 / scale >= 0.01 ? 1.0 / scale : double(in) / double(out);
  }
  return scale > 0 ? 1.0 / scale : double(in) / double(out);
}

Matrix AxisMatrix(Op op, int64_t in, int64_t out, bool align_corners, double scale) {
  return AxisMatrixForRatio(op, in, out, align_corners, Ratio(op, in, out, align_corners, scale));
}

Matrix AxisMatrixForRatio(Op op, int64_t in, int64_t out, bool align_corners, double s) {
  Matrix m;
  m.rows = out;
  m.cols = in;
  m.weight.assign(out * in, 0.0);
  m.is_tap.assign(out * in, false);
  for (int64_t o = 0; o < out; ++o) {
    if (op == Op::kBilinear) {
      if (in == out) {  // PyTorch copies when the sizes agree, whatever the ratio
        m.weight[o * in + o] = 1.0;
        m.is_tap[o * in + o] = true;
        continue;
      }
      const double src = align_corners ? o * s : std::max(0.0, (o + 0.5) * s - 0.5);
      const int64_t i0 = std::min<int64_t>(int64_t(std::floor(src)), in - 1);
      const int64_t i1 = i0 < in - 1 ? i0 + 1 : i0;
      const double l1 = std::clamp(src - double(i0), 0.0, 1.0);
      m.weight[o * in + i0] += 1.0 - l1;
      m.weight[o * in + i1] += l1;
      m.is_tap[o * in + i0] = m.is_tap[o * in + i1] = true;
    } else {
      const double support = s >= 1 ? 2 * s : 2.0;
      const double invscale = s >= 1 ? 1 / s : 1.0;
      const double center = s * (o + 0.5);
      const int64_t imin = std::max<int64_t>(int64_t(center - support + 0.5), 0);
      const int64_t imax = std::min<int64_t>(int64_t(center + support + 0.5), in);
      double total = 0;
      for (int64_t i = imin; i < imax; ++i) total += Cubic((i - center + 0.5) * invscale);
      for (int64_t i = imin; i < imax; ++i) {
        const double w = Cubic((i - center + 0.5) * invscale);
        m.weight[o * in + i] = total != 0 ? w / total : w;
        m.is_tap[o * in + i] = true;
      }
    }
  }
  return m;
}

void Backward(const Case& c, const std::vector<double>& grad, std::vector<double>* result,
              std::vector<double>* magnitude) {
  BackwardWith(c, AxisMatrix(c.op, c.in_h, c.out_h, c.align_corners, c.scales_h),
               AxisMatrix(c.op, c.in_w, c.out_w, c.align_corners, c.scales_w), grad, result,
               magnitude);
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
  const Matrix ah = AxisMatrix(c.op, c.in_h, c.out_h, c.align_corners, c.scales_h);
  const Matrix aw = AxisMatrix(c.op, c.in_w, c.out_w, c.align_corners, c.scales_w);
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
  ForwardWith(c, AxisMatrix(c.op, c.in_h, c.out_h, c.align_corners, c.scales_h),
              AxisMatrix(c.op, c.in_w, c.out_w, c.align_corners, c.scales_w), x, y, magnitude);
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
