// Runs the operators through the public C API on tensors of any dtype, format and storage
// kind, and checks results against the contract's tolerances.
#ifndef ACLNN_UPSAMPLE_TESTS_SUPPORT_TEST_TENSORS_H_
#define ACLNN_UPSAMPLE_TESTS_SUPPORT_TEST_TENSORS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn_upsample/operators.h"
#include "support/reference.h"

namespace support {

enum class Storage {
  kContiguous,        // row-major in the format's axis order
  kChannelsLastView,  // NCHW view with NHWC strides (format NCHW only)
  kPaddedRows,        // rows (the innermost axis) padded to a longer stride
  kOffset,            // contiguous, starting at a non-zero offset into a larger storage
  kBroadcastGrad,     // the source (gradOut, or a forward input) with zero N and C strides
                      // (one plane seen N*C times); the result is contiguous
};

struct RunOptions {
  aclDataType dtype = ACL_FLOAT;
  aclFormat format = ACL_FORMAT_NCHW;
  Storage storage = Storage::kContiguous;
  int threads = 0;  // > 0: ACLNN_UPSAMPLE_NUM_THREADS for this call's phase 1
};

struct RunOutput {
  aclnnStatus status = -1;
  std::string message;
  std::vector<double> values;     // the result in logical NCHW order, converted to float64
  std::vector<uint8_t> raw_bits;  // the result's elements' bytes in logical NCHW order
  bool outside_view_untouched = true;
};

// Rounds `value` to `dtype` (round to nearest even) and back to float64.
double RoundTo(aclDataType dtype, double value);

// The distance between adjacent values of `dtype` at the magnitude of `value`.
double UlpOf(aclDataType dtype, double value);

// Normal-distributed values with a fixed seed.
std::vector<double> RandomValues(size_t count, uint32_t seed);

// Runs the case's backward operator. `grad` is in logical NCHW order; it is rounded to the dtype
// first (*grad_rounded receives what the library actually saw, for the reference).
RunOutput Run(const reference::Case& c, const std::vector<double>& grad, const RunOptions& options,
              std::vector<double>* grad_rounded = nullptr);

// Runs any row of the operator table on the case, through the row's phase-1 and phase-2
// functions. A forward row reads `source` as the (N, C, in_h, in_w) image and writes
// (N, C, out_h, out_w); a backward row reads it as gradOut (N, C, out_h, out_w) and writes
// (N, C, in_h, in_w). Otherwise as Run().
RunOutput RunOperator(const aclnn_upsample_operator& op, const reference::Case& c,
                      const std::vector<double>& source, const RunOptions& options,
                      std::vector<double>* source_rounded = nullptr);

// The table's row for a mode and direction (fails the test and returns null if there is none).
const aclnn_upsample_operator* FindOperator(reference::Op mode, aclnn_upsample_direction direction);

// The reference's name for a row's mode.
reference::Op ModeOf(const aclnn_upsample_operator& op);

// Every row of the table with the given direction.
std::vector<const aclnn_upsample_operator*> OperatorsOf(aclnn_upsample_direction direction);

// The contract's tolerance (section 4) for one element: one ulp of the dtype at `expected`
// (none for FLOAT32) plus 1e-5 * magnitude.
double Tolerance(aclDataType dtype, double expected, double magnitude);

// Whether `actual` meets the contract for the float64 result `expected`: a NaN exactly where
// one is expected, an Inf of the expected sign, a finite value within Tolerance().
bool WithinTolerance(aclDataType dtype, double actual, double expected, double magnitude);

// Asserts WithinTolerance element by element; returns the number of failures (at most a few
// are printed).
int CountOutOfTolerance(aclDataType dtype, const std::vector<double>& actual,
                        const std::vector<double>& expected, const std::vector<double>& magnitude,
                        const std::string& label);

}  // namespace support

#endif  // ACLNN_UPSAMPLE_TESTS_SUPPORT_TEST_TENSORS_H_
