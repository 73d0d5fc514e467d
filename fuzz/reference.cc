#include "fuzz/reference.h"

#include <algorithm>
#include <cmath>

namespace fuzz_ref {
namespace {

// The contract's cubic kernel W(d), a = -0.5, written term by term as in 1.2.
double Cubic(double d) {
  const double a = -0.5;
  const double x = std::fabs(d);
  if (x <= 1.0) return (a + 2.0) * x * x * x - (a + 3.0) * x * x + 1.0;
  if (x < 2.0) return a * x * x * x - 5.0 * a * x * x + 8.0 * a * x - 4.0 * a;
  return 0.0;
}

// The bilinear antialiasing filter: the triangle max(0, 1 - |d|).
double Triangle(double d) { return std::max(0.0, 1.0 - std::fabs(d)); }

bool IsAntialiased(Kind kind) { return kind == Kind::kBicubicAA || kind == Kind::kBilinearAA; }
bool IsNearest(Kind kind) { return kind == Kind::kNearest || kind == Kind::kNearestExact; }

// An antialiased mode's filter and its half-width at ratio 1 (PyTorch's interp_size / 2).
double Filter(Kind kind, double d) { return kind == Kind::kBicubicAA ? Cubic(d) : Triangle(d); }
double HalfWidth(Kind kind) { return kind == Kind::kBicubicAA ? 2.0 : 1.0; }

// int(x) of the formula (truncation toward zero), then clamped to [0, limit]. Clamping first
// keeps the conversion defined for the huge centres that tiny scales produce; the result is
// the same, since the formula clamps to [0, in] right after.
int64_t TruncClamped(double x, int64_t limit) {
  if (!(x < static_cast<double>(limit))) return limit;  // also NaN (callers exclude it)
  if (x <= 0.0) return 0;
  return static_cast<int64_t>(x);
}

// floor(x), at most `last`; positions past int64's range (a tiny used scale) are past the end.
int64_t FloorAtMost(double x, int64_t last) {
  if (!(x < static_cast<double>(last))) return last;
  return static_cast<int64_t>(std::floor(x));
}

struct AntialiasedRow {
  int64_t imin = 0;
  int64_t count = 0;
};

// Formula 1.2's window, with support = half_width * s when downsampling.
struct AntialiasedAxis {
  double s, support, invscale;
  explicit AntialiasedAxis(const AxisParams& axis)
      : s(Ratio(axis)),
        support(s >= 1.0 ? HalfWidth(axis.kind) * s : HalfWidth(axis.kind)),
        invscale(s >= 1.0 ? 1.0 / s : 1.0) {}
  double Center(int64_t o) const { return s * (static_cast<double>(o) + 0.5); }
  AntialiasedRow Row(int64_t o, int64_t in) const {
    const double center = Center(o);
    AntialiasedRow row;
    row.imin = TruncClamped(center - support + 0.5, in);
    const int64_t imax = TruncClamped(center + support + 0.5, in);
    row.count = std::max<int64_t>(imax - row.imin, 0);
    return row;
  }
  // The unnormalised tap of input imin + j.
  double Tap(Kind kind, int64_t o, const AntialiasedRow& row, int64_t j) const {
    return Filter(kind, (static_cast<double>(row.imin + j) - Center(o) + 0.5) * invscale);
  }
};

// PyTorch's cubic convolution, a = -0.75 (upsample_bicubic2d), in its two pieces.
constexpr double kBicubicA = -0.75;
double CubicNear(double x) {  // |x| <= 1
  return ((kBicubicA + 2.0) * x - (kBicubicA + 3.0)) * x * x + 1.0;
}
double CubicFar(double x) {  // 1 < |x| < 2
  return ((kBicubicA * x - 5.0 * kBicubicA) * x + 8.0 * kBicubicA) * x - 4.0 * kBicubicA;
}

// The single input index of nearest output o (PyTorch's nearest_idx and
// nearest_neighbor_exact_compute_source_index), in float32 where ATen computes in float32.
int64_t NearestIndex(const AxisParams& axis, int64_t o) {
  const int64_t in = axis.in_size, out = axis.out_size;
  if (axis.kind == Kind::kNearest) {
    if (out == in) return o;
    if (out == 2 * in) return o >> 1;
  }
  const float scale = NearestScale(axis);
  const float position = axis.kind == Kind::kNearest
                             ? static_cast<float>(o) * scale
                             : static_cast<float>((static_cast<double>(o) + 0.5) * scale);
  return FloorAtMost(std::floor(position), in - 1);
}

}  // namespace

double UsedScale(const AxisParams& axis) {
  const double scale = axis.scale;
  if (!(scale > 0.0)) return 0.0;
  if (axis.consistent_scales) {
    // 1.3, bilinear: only when consistent with outputSize and at most 100x.
    const double in = static_cast<double>(axis.in_size);
    const bool consistent = static_cast<double>(axis.out_size) == std::floor(in * scale);
    return consistent && 1.0 / scale >= 0.01 ? scale : 0.0;
  }
  return scale;
}

double Ratio(const AxisParams& axis) {
  const double in = static_cast<double>(axis.in_size);
  const double out = static_cast<double>(axis.out_size);
  if (axis.align_corners) return axis.out_size > 1 ? (in - 1.0) / (out - 1.0) : 0.0;
  const double scale = UsedScale(axis);
  return scale > 0.0 ? 1.0 / scale : in / out;
}

float NearestScale(const AxisParams& axis) {
  const double scale = UsedScale(axis);
  return scale > 0.0 ? static_cast<float>(1.0 / scale)
                     : static_cast<float>(axis.in_size) / static_cast<float>(axis.out_size);
}

bool IsWellDefined(const AxisParams& axis) {
  if (IsNearest(axis.kind)) return std::isfinite(NearestScale(axis));
  // The source position s * (o + 0.5) (the filter's centre and support, antialiased) must stay
  // finite too.
  const double s = Ratio(axis);
  return std::isfinite(s) && std::isfinite(2.0 * s * (static_cast<double>(axis.out_size) + 1.0));
}

void ForEachEntry(const AxisParams& axis,
                  const std::function<void(int64_t o, int64_t i, double w)>& fn) {
  const int64_t in = axis.in_size;
  if (IsNearest(axis.kind)) {
    for (int64_t o = 0; o < axis.out_size; ++o) fn(o, NearestIndex(axis, o), 1.0);
    return;
  }
  const double s = Ratio(axis);
  if (axis.kind == Kind::kBilinear) {
    for (int64_t o = 0; o < axis.out_size; ++o) {
      // PyTorch's compute_source_index_and_lambda copies when the sizes match, whatever the
      // scale (section 1: "PyTorch is the reference for every case"); formula 1.1 is silent.
      if (in == axis.out_size) {
        fn(o, o, 1.0);
        continue;
      }
      const double od = static_cast<double>(o);
      const double src = axis.align_corners ? od * s : std::max(0.0, (od + 0.5) * s - 0.5);
      const int64_t i0 = FloorAtMost(src, in - 1);
      const int64_t i1 = i0 < in - 1 ? i0 + 1 : i0;
      const double l1 = std::clamp(src - static_cast<double>(i0), 0.0, 1.0);
      fn(o, i0, 1.0 - l1);
      fn(o, i1, l1);
    }
    return;
  }
  if (axis.kind == Kind::kBicubic) {
    for (int64_t o = 0; o < axis.out_size; ++o) {
      // Not clamped at 0 (unlike bilinear): the taps left of the image land on index 0.
      const double od = static_cast<double>(o);
      const double real = axis.align_corners ? od * s : s * (od + 0.5) - 0.5;
      const int64_t i0 = FloorAtMost(real, in - 1);
      const double t = std::clamp(real - static_cast<double>(i0), 0.0, 1.0);
      const double taps[4] = {CubicFar(t + 1.0), CubicNear(t), CubicNear(1.0 - t),
                              CubicFar(2.0 - t)};
      for (int64_t j = 0; j < 4; ++j) fn(o, std::clamp<int64_t>(i0 - 1 + j, 0, in - 1), taps[j]);
    }
    return;
  }
  const AntialiasedAxis aa(axis);
  std::vector<double> w;
  for (int64_t o = 0; o < axis.out_size; ++o) {
    const AntialiasedRow row = aa.Row(o, in);
    w.assign(row.count, 0.0);
    double total = 0.0;
    for (int64_t j = 0; j < row.count; ++j) {
      w[j] = aa.Tap(axis.kind, o, row, j);
      total += w[j];
    }
    // PyTorch (_compute_weights_aa) divides only by a non-zero total; the contract's formula
    // would divide by zero.
    for (int64_t j = 0; j < row.count; ++j) fn(o, row.imin + j, total != 0.0 ? w[j] / total : w[j]);
  }
}

int64_t CountEntries(const AxisParams& axis) {
  switch (axis.kind) {
    case Kind::kBilinear:
      return axis.in_size == axis.out_size ? axis.out_size : 2 * axis.out_size;
    case Kind::kBicubic:
      return 4 * axis.out_size;
    case Kind::kNearest:
    case Kind::kNearestExact:
      return axis.out_size;
    default:
      break;
  }
  if (!IsWellDefined(axis)) return 0;
  const AntialiasedAxis aa(axis);
  int64_t total = 0;
  for (int64_t o = 0; o < axis.out_size; ++o) total += aa.Row(o, axis.in_size).count;
  return total;
}

std::vector<double> DenseMatrix(const AxisParams& axis) {
  std::vector<double> a(static_cast<size_t>(axis.out_size * axis.in_size), 0.0);
  ForEachEntry(axis, [&](int64_t o, int64_t i, double w) { a[o * axis.in_size + i] += w; });
  return a;
}

std::vector<double> RowTotals(const AxisParams& axis) {
  std::vector<double> totals(static_cast<size_t>(axis.out_size), 1.0);
  if (!IsAntialiased(axis.kind)) return totals;
  const AntialiasedAxis aa(axis);
  for (int64_t o = 0; o < axis.out_size; ++o) {
    const AntialiasedRow row = aa.Row(o, axis.in_size);
    double total = 0.0;
    for (int64_t j = 0; j < row.count; ++j) total += aa.Tap(axis.kind, o, row, j);
    totals[o] = total;
  }
  return totals;
}

bool RowsWellConditioned(const AxisParams& axis) {
  if (!IsAntialiased(axis.kind)) return true;
  const std::vector<double> totals = RowTotals(axis);
  const AntialiasedAxis aa(axis);
  for (int64_t o = 0; o < axis.out_size; ++o) {
    const AntialiasedRow row = aa.Row(o, axis.in_size);
    if (row.count > 0 && !(std::fabs(totals[o]) >= 1e-6 * static_cast<double>(row.count))) {
      return false;
    }
  }
  return true;
}

std::vector<double> DenseSupport(const AxisParams& axis) {
  const std::vector<double> totals = RowTotals(axis);
  std::vector<double> bound(static_cast<size_t>(axis.out_size * axis.in_size), 0.0);
  ForEachEntry(axis, [&](int64_t o, int64_t i, double w) {
    // A row left undivided (total 0) carries its noise as it is.
    const double divisor = totals[o] != 0.0 ? std::fabs(totals[o]) : 1.0;
    bound[o * axis.in_size + i] += std::fabs(w) + 1.0 / divisor;
  });
  return bound;
}

std::vector<double> ColumnAbsSums(const AxisParams& axis) {
  // Sum each (o, i) entry first: bilinear's repeated index adds two taps of one entry.
  std::vector<double> sums(static_cast<size_t>(axis.in_size), 0.0);
  int64_t row = -1, last_i = -1;
  double pending = 0.0;
  auto flush = [&] {
    if (last_i >= 0) sums[last_i] += std::fabs(pending);
  };
  ForEachEntry(axis, [&](int64_t o, int64_t i, double w) {
    if (o == row && i == last_i) {
      pending += w;
      return;
    }
    flush();
    row = o;
    last_i = i;
    pending = w;
  });
  flush();
  return sums;
}

std::vector<double> RowAbsSums(const AxisParams& axis) {
  // |w| per tap: bilinear's repeated index has two non-negative taps; bicubic's clamped taps
  // may cancel, so this can exceed the row's entries' sum, which only loosens the bound.
  std::vector<double> sums(static_cast<size_t>(axis.out_size), 0.0);
  ForEachEntry(axis, [&](int64_t o, int64_t /*i*/, double w) { sums[o] += std::fabs(w); });
  return sums;
}

std::vector<double> Transposed(const std::vector<double>& a, int64_t rows, int64_t cols) {
  std::vector<double> t(a.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) t[c * rows + r] = a[r * cols + c];
  return t;
}

PlaneResult ApplyPlane(const std::vector<double>& m_h, const std::vector<double>& m_w,
                       const std::vector<double>& support_h, const std::vector<double>& support_w,
                       int64_t src_h, int64_t src_w, int64_t result_h, int64_t result_w,
                       const std::vector<double>& source) {
  // t = S * M_W (src_h x result_w), with |.|, term counts and the support sum alongside.
  const size_t tile = static_cast<size_t>(src_h * result_w);
  std::vector<double> t(tile, 0.0), t_abs(tile, 0.0), t_terms(tile, 0.0), t_support(tile, 0.0);
  for (int64_t s = 0; s < src_h; ++s) {
    for (int64_t q = 0; q < src_w; ++q) {
      const double g = source[s * src_w + q];
      const double* row = &m_w[q * result_w];
      const double* mask = &support_w[q * result_w];
      for (int64_t r = 0; r < result_w; ++r) {
        t_support[s * result_w + r] += std::fabs(g) * mask[r];
        if (row[r] == 0.0) continue;
        t[s * result_w + r] += row[r] * g;
        t_abs[s * result_w + r] += std::fabs(row[r] * g);
        t_terms[s * result_w + r] += 1.0;
      }
    }
  }
  PlaneResult result;
  const size_t plane = static_cast<size_t>(result_h * result_w);
  result.value.assign(plane, 0.0);
  result.magnitude.assign(plane, 0.0);
  result.terms.assign(plane, 0.0);
  result.support_magnitude.assign(plane, 0.0);
  for (double v : t_abs) result.max_intermediate = std::max(result.max_intermediate, v);
  for (int64_t r = 0; r < result_h; ++r) {
    for (int64_t q = 0; q < src_w; ++q) {
      double u = 0.0;
      for (int64_t s = 0; s < src_h; ++s)
        u += std::fabs(m_h[s * result_h + r] * source[s * src_w + q]);
      result.max_intermediate = std::max(result.max_intermediate, u);
    }
  }
  // result = M_H^T * t.
  for (int64_t s = 0; s < src_h; ++s) {
    const double* row = &m_h[s * result_h];
    const double* mask = &support_h[s * result_h];
    for (int64_t r = 0; r < result_h; ++r) {
      if (mask[r] != 0.0) {
        for (int64_t w = 0; w < result_w; ++w) {
          result.support_magnitude[r * result_w + w] += mask[r] * t_support[s * result_w + w];
        }
      }
      if (row[r] == 0.0) continue;
      for (int64_t w = 0; w < result_w; ++w) {
        result.value[r * result_w + w] += row[r] * t[s * result_w + w];
        result.magnitude[r * result_w + w] += std::fabs(row[r]) * t_abs[s * result_w + w];
        result.terms[r * result_w + w] += t_terms[s * result_w + w] + 1.0;
      }
    }
  }
  return result;
}

}  // namespace fuzz_ref
