// An independent float64 reference for the fuzz target, written from the contract
// (/work/shared/spec/OPERATORS.md, formulas 1.1-1.3; the modes of issue 15 from PyTorch's ATen
// formulas as /work/notes/ops7.md states them) and deliberately sharing no code with src/: a bug
// copied into both would otherwise go unnoticed.
#ifndef ACLNN_UPSAMPLE_FUZZ_REFERENCE_H_
#define ACLNN_UPSAMPLE_FUZZ_REFERENCE_H_

#include <cstdint>
#include <functional>
#include <vector>

namespace fuzz_ref {

// The 1-D weights of an operator's mode (the table's `mode`): bilinear, bicubic_aa, bilinear_aa,
// bicubic, nearest, nearest_exact.
enum class Kind { kBilinear, kBicubicAA, kBilinearAA, kBicubic, kNearest, kNearestExact };

// One axis of the forward resize: A is out_size x in_size. `align_corners` and `scale` are what
// the operator receives: false and 0 where it has no such parameter, the scale rounded to float
// where its prototype takes a float.
struct AxisParams {
  Kind kind = Kind::kBilinear;
  int64_t in_size = 1;
  int64_t out_size = 1;
  bool align_corners = false;
  double scale = 0.0;
  // The scale is used only when consistent with the sizes (contract 1.3's bilinear rule, the
  // table's scales_need_consistent_size); otherwise any positive scale is used as given.
  bool consistent_scales = false;
};

// The scale as the operator uses it: 0 where it is not given or not used (1.3).
double UsedScale(const AxisParams& axis);

// The per-axis ratio s of contract section 1 (with the rules of 1.3).
double Ratio(const AxisParams& axis);

// The nearest modes' ratio in float32, as PyTorch's compute_scales_value<float> rounds it.
float NearestScale(const AxisParams& axis);

// False where the formulas are undefined in float64 (a ratio of Inf makes the bicubic centre
// Inf - Inf; a nearest ratio of Inf in float32 makes 0 * Inf): no reference value exists, so
// callers compare nothing numerically.
bool IsWellDefined(const AxisParams& axis);

// Calls fn(o, i, w) for every entry the formula adds to A, row by row. An index may repeat
// within a row (bilinear's last column, bicubic's clamped taps); callers sum. Entries may be 0.
void ForEachEntry(const AxisParams& axis,
                  const std::function<void(int64_t o, int64_t i, double w)>& fn);

// The number of entries ForEachEntry visits, cheaply (for sizing work before doing it).
int64_t CountEntries(const AxisParams& axis);

// Dense row-major A (out_size x in_size).
std::vector<double> DenseMatrix(const AxisParams& axis);

// Per row o: the sum of the row's unnormalised taps that formula 1.2 divides by (1.0 for the
// modes that do not normalise: bilinear, bicubic, nearest).
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

// Per input index i: sum_o |A[o, i]| (how much one gradOut value can be amplified by the
// backward operator).
std::vector<double> ColumnAbsSums(const AxisParams& axis);

// Per output index o: sum_i |A[o, i]| (the same for the forward operator's input values).
std::vector<double> RowAbsSums(const AxisParams& axis);

// A row-major rows x cols matrix, transposed (cols x rows).
std::vector<double> Transposed(const std::vector<double>& a, int64_t rows, int64_t cols);

// One (n, c) plane of either direction, written as the backward product: result =
// M_H^T * S * M_W, where S is the source plane (src_h x src_w) and each M is src x result.
// The backward operator applies M = A (gradIn = A_H^T * G * A_W); the forward operator M = A^T
// (y = A_H * x * A_W^T), so its callers pass Transposed(A) and its supports likewise.
// Alongside the value: m = sum |M_H * M_W * S| per element (the contract's tolerance scale),
// `terms`, the number of non-zero products summed, and `support_magnitude` = sum |S| *
// support_h * support_w over the entries both supports visit (DenseSupport's bounds).
struct PlaneResult {
  std::vector<double> value;  // result_h x result_w
  std::vector<double> magnitude;
  std::vector<double> terms;
  std::vector<double> support_magnitude;
  // The largest partial sums either pass order can meet: max over (s, r) of
  // sum_q |S[s, q] * M_W[q, r]| (width pass first) and over (r, q) of sum_s |M_H[s, r] * S[s, q]|
  // (height pass first). Past float32's range a float32 implementation may overflow there.
  double max_intermediate = 0.0;
};
PlaneResult ApplyPlane(const std::vector<double>& m_h, const std::vector<double>& m_w,
                       const std::vector<double>& support_h, const std::vector<double>& support_w,
                       int64_t src_h, int64_t src_w, int64_t result_h, int64_t result_w,
                       const std::vector<double>& source);

}  // namespace fuzz_ref

#endif  // ACLNN_UPSAMPLE_FUZZ_REFERENCE_H_
