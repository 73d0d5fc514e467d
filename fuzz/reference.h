// An independent float64 reference for the fuzz target, written from the contract
// (/work/shared/spec/OPERATORS.md, formulas 1.1-1.3) and deliberately sharing no code with src/:
// a bug copied into both would otherwise go unnoticed.
#ifndef ACLNN_UPSAMPLE_FUZZ_REFERENCE_H_
#define ACLNN_UPSAMPLE_FUZZ_REFERENCE_H_

#include <cstdint>
#include <functional>
#include <vector>

namespace fuzz_ref {

enum class Kind { kBilinear, kBicubicAA };

// One axis of the forward resize: A is out_size x in_size.
struct AxisParams {
  Kind kind = Kind::kBilinear;
  int64_t in_size = 1;
  int64_t out_size = 1;
  bool align_corners = false;
  double scale = 0.0;
};

// The per-axis ratio s of contract section 1 (with the rules of 1.3).
double Ratio(const AxisParams& axis);

// False where the formulas are undefined in float64 (a ratio of Inf makes the bicubic centre
// Inf - Inf): no reference value exists, so callers compare nothing numerically.
bool IsWellDefined(const AxisParams& axis);

// Calls fn(o, i, w) for every entry the formula adds to A, row by row. An index may repeat
// within a row (bilinear's last column); callers sum. Entries may be 0.
void ForEachEntry(const AxisParams& axis,
                  const std::function<void(int64_t o, int64_t i, double w)>& fn);

// The number of entries ForEachEntry visits, cheaply (for sizing work before doing it).
int64_t CountEntries(const AxisParams& axis);

// Dense row-major A (out_size x in_size).
std::vector<double> DenseMatrix(const AxisParams& axis);

// Per row o: the sum of the row's unnormalised taps that formula 1.2 divides by (1.0 for
// bilinear rows).
std::vector<double> RowTotals(const AxisParams& axis);

// False where a bicubic row's taps sum to within 1e-6 per tap of 0 (a given scale can put a
// centre outside the image, where the kernel's lobes cancel): each tap carries float64 noise of
// up to 1e-14 (see DenseSupport), so such a row's divisor, and with it every weight of the row,
// is known to no better than 1e-8 relative, in the library and here alike; nearer 0 the
// contract's 1e-5 * m is beyond what any float64 evaluation of formula 1.2 decides.
bool RowsWellConditioned(const AxisParams& axis);

// Where the formula visits entry (o, i) at all, weight 0 included: |A[o, i]| + 1 / |total_o|
// (1 for a row left undivided); else 0.0. The cubic kernel near |d| = 1 or 2 is 0 in exact
// arithmetic but +-1e-14 noise in float64, with a sign and size that depend on how the
// polynomial is evaluated, then divided by the row's total; tolerances charge that noise, times
// the other axis's weight, to these entries.
std::vector<double> DenseSupport(const AxisParams& axis);

// Per input index i: sum_o |A[o, i]| (how much one gradOut value can be amplified).
std::vector<double> ColumnAbsSums(const AxisParams& axis);

// gradIn = A_H^T * G * A_W for one (n, c) plane, with m = sum |A_H * A_W * G| per element
// (the contract's tolerance scale), `terms`, the number of non-zero products summed, and
// `support_magnitude` = sum |G| * support_h * support_w over the entries both supports visit
// (DenseSupport's bounds).
struct PlaneResult {
  std::vector<double> value;  // h_in x w_in
  std::vector<double> magnitude;
  std::vector<double> terms;
  std::vector<double> support_magnitude;
  // The largest partial sums either pass order can meet: max over (o, w) of
  // sum_p |G[o, p] * A_W[p, w]| (width pass first) and over (h, p) of sum_o |A_H[o, h] * G[o, p]|
  // (height pass first). Past float32's range a float32 implementation may overflow there.
  double max_intermediate = 0.0;
};
PlaneResult BackwardPlane(const std::vector<double>& a_h, const std::vector<double>& a_w,
                          const std::vector<double>& support_h,
                          const std::vector<double>& support_w, int64_t h_out, int64_t w_out,
                          int64_t h_in, int64_t w_in, const std::vector<double>& grad);

}  // namespace fuzz_ref

#endif  // ACLNN_UPSAMPLE_FUZZ_REFERENCE_H_
