// A float64 reference of the bicubic AA backward that stores only each row's taps, written from
// the contract's formula 1.2 (and sharing no code with the library's weight builder), for shapes
// whose dense matrices tests/support/reference.h cannot hold: a 2^20-wide axis is 2^39 entries
// dense, a few million as taps.
#ifndef ACLNN_UPSAMPLE_TESTS_RELIABILITY_SPARSE_REFERENCE_H_
#define ACLNN_UPSAMPLE_TESTS_RELIABILITY_SPARSE_REFERENCE_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace reliability {

// Row o of the forward matrix A: A[o, first + j] = weights[j].
struct SparseRow {
  int64_t first = 0;
  std::vector<double> weights;
};

// Contract 1.2, term by term: W(d) with a = -0.5, support widened when downsampling, taps outside
// the image dropped, each row divided by its sum.
inline std::vector<SparseRow> BicubicAARows(int64_t in, int64_t out, bool align_corners,
                                            double scale) {
  double s;
  if (align_corners) {
    s = out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
  } else {
    s = scale > 0 ? 1.0 / scale : static_cast<double>(in) / static_cast<double>(out);
  }
  const double a = -0.5;
  auto cubic = [a](double d) {
    const double x = std::fabs(d);
    if (x <= 1) return (a + 2) * x * x * x - (a + 3) * x * x + 1;
    if (x < 2) return a * x * x * x - 5 * a * x * x + 8 * a * x - 4 * a;
    return 0.0;
  };
  const double support = s >= 1 ? 2 * s : 2.0;
  const double invscale = s >= 1 ? 1 / s : 1.0;
  std::vector<SparseRow> rows(out);
  for (int64_t o = 0; o < out; ++o) {
    const double center = s * (static_cast<double>(o) + 0.5);
    const int64_t imin = std::max<int64_t>(static_cast<int64_t>(center - support + 0.5), 0);
    const int64_t imax = std::min<int64_t>(static_cast<int64_t>(center + support + 0.5), in);
    SparseRow& row = rows[o];
    row.first = imin;
    double total = 0;
    for (int64_t i = imin; i < imax; ++i) {
      row.weights.push_back(cubic((static_cast<double>(i) - center + 0.5) * invscale));
      total += row.weights.back();
    }
    for (double& w : row.weights) w /= total;
  }
  return rows;
}

// gradIn = A_H^T * gradOut * A_W for one (H_out x W_out) plane in row-major order, with
// m = sum |A_H * A_W * gradOut| per element (the contract's error scale).
inline void SparseBackward(const std::vector<SparseRow>& rows_h,
                           const std::vector<SparseRow>& rows_w, int64_t in_h, int64_t in_w,
                           const std::vector<double>& grad, std::vector<double>* result,
                           std::vector<double>* magnitude) {
  const int64_t out_w = static_cast<int64_t>(rows_w.size());
  result->assign(in_h * in_w, 0.0);
  magnitude->assign(in_h * in_w, 0.0);
  for (size_t o = 0; o < rows_h.size(); ++o) {
    for (size_t jh = 0; jh < rows_h[o].weights.size(); ++jh) {
      const int64_t h = rows_h[o].first + static_cast<int64_t>(jh);
      for (int64_t p = 0; p < out_w; ++p) {
        const double g = rows_h[o].weights[jh] * grad[o * out_w + p];
        for (size_t jw = 0; jw < rows_w[p].weights.size(); ++jw) {
          const int64_t i = h * in_w + rows_w[p].first + static_cast<int64_t>(jw);
          const double term = g * rows_w[p].weights[jw];
          (*result)[i] += term;
          (*magnitude)[i] += std::fabs(term);
        }
      }
    }
  }
}

}  // namespace reliability

#endif  // ACLNN_UPSAMPLE_TESTS_RELIABILITY_SPARSE_REFERENCE_H_
