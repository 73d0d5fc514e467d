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

// 1.0 where the formula visits entry (o, i) at all, weight 0 included, else 0.0. Weights that
// are mathematically 0 (the cubic kernel at |d| = 1 or 2) come out as +-1e-16 noise in float64
// depending on how the polynomial is evaluated; tolerances charge that noise to these entries.
std::vector<double> DenseSupport(const AxisParams& axis);

// Per input index i: sum_o |A[o, i]| (how much one gradOut value can be amplified).
std::vector<double> ColumnAbsSums(const AxisParams& axis);

// gradIn = A_H^T * G * A_W for one (n, c) plane, with m = sum |A_H * A_W * G| per element
// (the contract's tolerance scale), `terms`, the number of non-zero products summed, and
// `support_magnitude` = sum |G| over the entries both supports visit.
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
