// Element-wise accuracy comparison of a result (A) against a reference (B), the check NPU users
// run against a trusted CPU result.
#ifndef TOOLS_UPSAMPLE_GRAD_COMPARE_H_
#define TOOLS_UPSAMPLE_GRAD_COMPARE_H_

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "typed_array.h"

namespace upsample_grad {

// An element passes when |a - b| <= atol + rtol * |b| (numpy.isclose with B as the reference).
struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

// Just above one ulp of the coarser of the two dtypes, since the operator contract allows one
// ulp of rounding for 16-bit results: float32/float64 rtol 1e-5 atol 1e-6, float16 rtol 1e-3
// atol 1e-5, bfloat16 rtol 8e-3 atol 1e-5.
Tolerance DefaultTolerance(ElementType a, ElementType b);

struct Mismatch {
  int64_t flat_index = 0;
  double a = 0;
  double b = 0;
};

struct CompareReport {
  bool same_shape = false;
  int64_t elements = 0;
  // Over pairs of finite values; pairs with a NaN or an infinity in only one of the arrays (or
  // infinities of opposite sign) are counted in nonfinite_mismatches instead.
  double max_abs_error = 0;
  int64_t max_abs_index = 0;
  double mean_abs_error = 0;
  // Over elements where B is non-zero, since |a-b|/|b| says nothing useful where B is zero.
  double max_rel_error = 0;
  int64_t max_rel_index = 0;
  double cosine_similarity = 1;
  int64_t nonfinite_mismatches = 0;
  // Distances in units in the last place, only when both arrays have the same float dtype
  // other than float64: counts of 0, 1, 2 and 3 or more ulp (a NaN against a number is 3+).
  bool has_ulp_counts = false;
  std::array<int64_t, 4> ulp_counts{};
  int64_t beyond_tolerance = 0;
  std::vector<Mismatch> first_beyond;  // in index order

  bool WithinTolerance() const { return same_shape && beyond_tolerance == 0; }
};

CompareReport CompareArrays(const TypedArray& a, const TypedArray& b, Tolerance tolerance,
                            size_t max_listed = 10);

// The multi-index of flat (C-order) `index` in `shape`, formatted "(0, 1, 2, 3)".
std::string FormatPosition(int64_t index, const std::vector<int64_t>& shape);

// The human-readable report that `upsample-grad compare` prints, ending with "result: PASS" or
// "result: FAIL".
void PrintCompareReport(std::ostream& out, const std::string& name_a, const TypedArray& a,
                        const std::string& name_b, const TypedArray& b, Tolerance tolerance,
                        const CompareReport& report);

}  // namespace upsample_grad

#endif  // TOOLS_UPSAMPLE_GRAD_COMPARE_H_
