#include "compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace upsample_grad {
namespace {

double TolerancePrecision(ElementType type, bool for_atol) {
  switch (type) {
    case ElementType::kFloat16:
      return for_atol ? 1e-5 : 1e-3;
    case ElementType::kBFloat16:
      return for_atol ? 1e-5 : 8e-3;
    case ElementType::kFloat32:
    case ElementType::kFloat64:
      return for_atol ? 1e-6 : 1e-5;
  }
  return 0;
}

int BitWidth(ElementType type) { return static_cast<int>(ElementSize(type)) * 8; }

// Maps a float's bit pattern onto integers that are consecutive for consecutive floats, so that
// the difference of two mapped values is their distance in ulp (+0 and -0 both map to 0).
int64_t OrderedBits(uint64_t bits, int width) {
  uint64_t sign = uint64_t{1} << (width - 1);
  int64_t magnitude = static_cast<int64_t>(bits & (sign - 1));
  return (bits & sign) ? -magnitude : magnitude;
}

std::string Number(double value, const char* format = "%.6g") {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

}  // namespace

Tolerance DefaultTolerance(ElementType a, ElementType b) {
  return {std::max(TolerancePrecision(a, false), TolerancePrecision(b, false)),
          std::max(TolerancePrecision(a, true), TolerancePrecision(b, true))};
}

CompareReport CompareArrays(const TypedArray& a, const TypedArray& b, Tolerance tolerance,
                            size_t max_listed) {
  CompareReport report;
  report.same_shape = a.shape == b.shape;
  if (!report.same_shape) return report;
  report.elements = a.ElementCount();
  report.has_ulp_counts = a.type == b.type && a.type != ElementType::kFloat64;
  const int width = BitWidth(a.type);

  double abs_error_sum = 0;
  int64_t finite_pairs = 0;
  double dot = 0, norm_a = 0, norm_b = 0;
  for (int64_t i = 0; i < report.elements; ++i) {
    double x = a.ValueAt(i);
    double y = b.ValueAt(i);
    bool both_nan = std::isnan(x) && std::isnan(y);
    bool equal = both_nan || x == y;
    bool finite = std::isfinite(x) && std::isfinite(y);
    bool beyond;
    if (finite) {
      double error = std::fabs(x - y);
      beyond = error > tolerance.atol + tolerance.rtol * std::fabs(y);
      ++finite_pairs;
      abs_error_sum += error;
      if (error > report.max_abs_error) {
        report.max_abs_error = error;
        report.max_abs_index = i;
      }
      if (y != 0) {
        double relative = error / std::fabs(y);
        if (relative > report.max_rel_error) {
          report.max_rel_error = relative;
          report.max_rel_index = i;
        }
      }
      dot += x * y;
      norm_a += x * x;
      norm_b += y * y;
    } else {
      beyond = !equal;
      if (beyond) ++report.nonfinite_mismatches;
    }
    if (report.has_ulp_counts) {
      int64_t distance = 0;
      if (!both_nan) {
        distance =
            std::isnan(x) || std::isnan(y)
                ? std::numeric_limits<int64_t>::max()
                : std::llabs(OrderedBits(a.BitsAt(i), width) - OrderedBits(b.BitsAt(i), width));
      }
      ++report.ulp_counts[static_cast<size_t>(std::min<int64_t>(distance, 3))];
    }
    if (beyond) {
      ++report.beyond_tolerance;
      if (report.first_beyond.size() < max_listed) report.first_beyond.push_back({i, x, y});
    }
  }
  report.mean_abs_error = finite_pairs > 0 ? abs_error_sum / static_cast<double>(finite_pairs) : 0;
  if (norm_a == 0 && norm_b == 0) {
    report.cosine_similarity = 1;  // two zero vectors point the same (no) way
  } else if (norm_a == 0 || norm_b == 0) {
    report.cosine_similarity = 0;
  } else {
    report.cosine_similarity = dot / (std::sqrt(norm_a) * std::sqrt(norm_b));
  }
  return report;
}

std::string FormatPosition(int64_t index, const std::vector<int64_t>& shape) {
  std::vector<int64_t> position(shape.size());
  for (size_t axis = shape.size(); axis-- > 0;) {
    position[axis] = shape[axis] > 0 ? index % shape[axis] : 0;
    index = shape[axis] > 0 ? index / shape[axis] : 0;
  }
  return npy::FormatShape(position);
}

void PrintCompareReport(std::ostream& out, const std::string& name_a, const TypedArray& a,
                        const std::string& name_b, const TypedArray& b, Tolerance tolerance,
                        const CompareReport& report) {
  out << "A (result):    " << name_a << "  " << ElementTypeName(a.type) << " "
      << npy::FormatShape(a.shape) << "\n";
  out << "B (reference): " << name_b << "  " << ElementTypeName(b.type) << " "
      << npy::FormatShape(b.shape) << "\n";
  if (!report.same_shape) {
    out << "result: FAIL (the shapes differ)\n";
    return;
  }
  out << "elements: " << report.elements << "  tolerance: |a-b| <= " << Number(tolerance.atol)
      << " + " << Number(tolerance.rtol) << "*|b|\n";
  out << "max abs error: " << Number(report.max_abs_error);
  if (report.max_abs_error > 0) out << " at " << FormatPosition(report.max_abs_index, a.shape);
  out << "\nmean abs error: " << Number(report.mean_abs_error) << "\n";
  out << "max rel error: " << Number(report.max_rel_error);
  if (report.max_rel_error > 0) out << " at " << FormatPosition(report.max_rel_index, a.shape);
  out << "\ncosine similarity: " << Number(report.cosine_similarity, "%.9f") << "\n";
  if (report.has_ulp_counts) {
    out << "ulp distance: 0: " << report.ulp_counts[0] << "  1: " << report.ulp_counts[1]
        << "  2: " << report.ulp_counts[2] << "  3+: " << report.ulp_counts[3] << "\n";
  }
  if (report.nonfinite_mismatches > 0) {
    out << "NaN/Inf mismatches: " << report.nonfinite_mismatches << "\n";
  }
  out << "beyond tolerance: " << report.beyond_tolerance << " of " << report.elements << "\n";
  for (const Mismatch& mismatch : report.first_beyond) {
    out << "  at " << FormatPosition(mismatch.flat_index, a.shape)
        << ": a=" << Number(mismatch.a, "%.9g") << " b=" << Number(mismatch.b, "%.9g")
        << " |a-b|=" << Number(std::fabs(mismatch.a - mismatch.b)) << "\n";
  }
  if (report.beyond_tolerance > static_cast<int64_t>(report.first_beyond.size())) {
    out << "  ... and "
        << report.beyond_tolerance - static_cast<int64_t>(report.first_beyond.size()) << " more\n";
  }
  out << "result: " << (report.WithinTolerance() ? "PASS" : "FAIL") << "\n";
}

}  // namespace upsample_grad
