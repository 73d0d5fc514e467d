// An independent float64 reference of the operators (both directions), written from the contract's
// formulas (sections 1.1-1.3) with dense matrices. It shares no code with the library's plan.
#ifndef ACLNN_UPSAMPLE_TESTS_SUPPORT_REFERENCE_H_
#define ACLNN_UPSAMPLE_TESTS_SUPPORT_REFERENCE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace reference {

enum class Op { kBilinear, kBicubicAA };

struct Case {
  Op op = Op::kBilinear;
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

// The forward 1-D matrix of one axis (rows: output index, columns: input index), and which
// entries are taps of the formula (a tap may have weight 0 and still carries NaN).
struct Matrix {
  int64_t rows = 0, cols = 0;
  std::vector<double> weight;  // rows x cols
  std::vector<bool> is_tap;
  double at(int64_t r, int64_t c) const { return weight[r * cols + c]; }
  bool tap(int64_t r, int64_t c) const { return is_tap[r * cols + c]; }
};

Matrix AxisMatrix(Op op, int64_t in, int64_t out, bool align_corners, double scale);

// The per-axis ratio s (input/output) that the contract's sections 1 and 1.3 prescribe.
double Ratio(Op op, int64_t in, int64_t out, bool align_corners, double scale);

// The matrix for a ratio given directly, bypassing the scale rules: tests build the reading a
// rule rejects with it, to show that it would give a different result.
Matrix AxisMatrixForRatio(Op op, int64_t in, int64_t out, bool align_corners, double ratio);

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
