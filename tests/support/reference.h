// An independent float64 reference of the operators (both directions), written from the contract's
// formulas (sections 1.1-1.3) and, for the modes of issue 15, from ATen's UpSample.h formulas as
// /work/notes/ops7.md states them, with dense matrices. It shares no code with the library's plan.
#ifndef ACLNN_UPSAMPLE_TESTS_SUPPORT_REFERENCE_H_
#define ACLNN_UPSAMPLE_TESTS_SUPPORT_REFERENCE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace reference {

// One per `mode` string of the operator table.
enum class Op { kBilinear, kBicubicAA, kBilinearAA, kBicubic, kNearest, kNearestExact };

// The table's mode string of `op`, and the reverse (false for a mode the reference lacks).
const char* ModeName(Op op);
bool OpFromMode(const std::string& mode, Op* op);

// Whether the mode's index arithmetic is PyTorch's float32 nearest-neighbour one (one tap of
// weight 1 per output element, no alignCorners).
bool IsNearest(Op op);

// How a row reads a positive scale: used as given, or only when consistent with outputSize
// (contract 1.3: outputSize == floor(in * scale) and 1/scale >= 0.01). kOfMode is the rule of
// the mode's first rows (consistent for bilinear, as given otherwise), for callers that set
// only `op`.
enum class ScaleRule { kOfMode, kAsGiven, kConsistentSize };

struct Case {
  Op op = Op::kBilinear;
  ScaleRule scale_rule = ScaleRule::kOfMode;
  int64_t n = 1, c = 1;
  int64_t in_h = 1, in_w = 1;    // forward input: the result's H, W
  int64_t out_h = 1, out_w = 1;  // forward output: gradOut's H, W
  bool align_corners = false;
  double scales_h = 0.0, scales_w = 0.0;

  int64_t grad_elements() const { return n * c * out_h * out_w; }
  int64_t result_elements() const { return n * c * in_h * in_w; }
  std::string Name() const;
};

// A case from its sizes, alignment, scales and plane counts. (Not MakeCase: argument-dependent
// lookup would make that name ambiguous in tests that define their own.)
Case MakeResizeCase(Op op, int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w, bool align,
                    double scales_h = 0, double scales_w = 0, int64_t n = 1, int64_t c = 1);

// The scale one axis of the case uses: `scale`, or 0 ("not given") where the case's rule
// rejects it.
double UsedScale(const Case& c, int64_t in, int64_t out, double scale);

// The forward 1-D matrix of one axis (rows: output index, columns: input index), and which
// entries are taps of the formula (a tap may have weight 0 and still carries NaN).
struct Matrix {
  int64_t rows = 0, cols = 0;
  std::vector<double> weight;  // rows x cols
  std::vector<bool> is_tap;
  double at(int64_t r, int64_t c) const { return weight[r * cols + c]; }
  bool tap(int64_t r, int64_t c) const { return is_tap[r * cols + c]; }
};

// The matrix of one axis with `scale` used as given (> 0) or not given (<= 0).
Matrix AxisMatrix(Op op, int64_t in, int64_t out, bool align_corners, double scale);

// The case's matrix of axis H (on_h) or W, its scale read by the case's rule.
Matrix CaseAxisMatrix(const Case& c, bool on_h);

// The per-axis ratio s (input/output) with `scale` used as given (> 0) or not given (<= 0), as
// sections 1 and 1.3 prescribe. For the nearest modes it is PyTorch's float32 scale, widened.
double Ratio(Op op, int64_t in, int64_t out, bool align_corners, double scale);

// A nearest mode's source index of output `o` for the float32 scale `scale` (Ratio's value),
// without building a matrix (for axes too long for dense ones).
int64_t NearestSourceIndex(Op op, int64_t o, int64_t in, int64_t out, float scale);

// The matrix for a ratio given directly, bypassing the scale rules: tests build the reading a
// rule rejects with it, to show that it would give a different result. (Nearest modes round the
// ratio to float32, as their index arithmetic does.)
Matrix AxisMatrixForRatio(Op op, int64_t in, int64_t out, bool align_corners, double ratio);

// The taps of each output row of one axis, sparse (for axes too long for a Matrix): (input index,
// weight), each index once (clamped taps that land on one index add up). Taps() reads `scale`
// as AxisMatrix does, TapsForRatio() as AxisMatrixForRatio does; the matrices are built from
// these.
using AxisTaps = std::vector<std::vector<std::pair<int64_t, double>>>;
AxisTaps Taps(Op op, int64_t in, int64_t out, bool align_corners, double scale);
AxisTaps TapsForRatio(Op op, int64_t in, int64_t out, bool align_corners, double ratio);

// gradIn = A_H^T gradOut A_W over NCHW-contiguous float64 data, summing taps only; also
// m = sum |A_H * A_W * gradOut| per result element (the contract's error scale).
void Backward(const Case& c, const std::vector<double>& grad, std::vector<double>* result,
              std::vector<double>* magnitude);

// The same with the two axis matrices given (sizes from `c`, which must match them).
void BackwardWith(const Case& c, const Matrix& ah, const Matrix& aw,
                  const std::vector<double>& grad, std::vector<double>* result,
                  std::vector<double>* magnitude);

// y = A_H x A_W^T: the naive forward, for adjoint tests.
std::vector<double> Forward(const Case& c, const std::vector<double>& x);

// The forward operators' reference: y = A_H x A_W^T over NCHW-contiguous float64 data of the
// forward input (in_h x in_w planes), summing taps only (a tap of weight 0 still carries a NaN
// or turns an Inf into NaN, as in the formulas), and m = sum |A_H * A_W * x| per output element
// (the contract's error scale, section 4).
void Forward(const Case& c, const std::vector<double>& x, std::vector<double>* y,
             std::vector<double>* magnitude);

// The same with the two axis matrices given (sizes from `c`, which must match them).
void ForwardWith(const Case& c, const Matrix& ah, const Matrix& aw, const std::vector<double>& x,
                 std::vector<double>* y, std::vector<double>* magnitude);

}  // namespace reference

#endif  // ACLNN_UPSAMPLE_TESTS_SUPPORT_REFERENCE_H_
