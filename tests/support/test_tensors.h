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
  kHugeUnitStrides,   // contiguous, but every axis of size 1 has stride 2^62: never stepped
                      // along, so any stride is valid there (PyTorch leaves them arbitrary)
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
  std::vector<double> values;        // the result in logical NCHW order, converted to float64
  std::vector<uint8_t> raw_bits;     // the result's elements' bytes in logical NCHW order
  std::vector<uint8_t> source_bits;  // the source's elements' bytes as the library read them
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

// A case of the row's mode (see reference::MakeResizeCase).
reference::Case RowCase(const aclnn_upsample_operator& op, int64_t in_h, int64_t in_w,
                        int64_t out_h, int64_t out_w, bool align, double scales_h = 0,
                        double scales_w = 0, int64_t n = 1, int64_t c = 1);

// "<operator> <case> dtype .. format .. storage ..", for failure messages.
std::string Describe(const aclnn_upsample_operator& op, const reference::Case& c,
                     const RunOptions& options);

// Whether the row's upscaling limit admits the case's sizes (cases that give scales keep them
// within the limit themselves).
bool WithinUpscaleLimit(const aclnn_upsample_operator& op, const reference::Case& c);

// Runs the row on `source` and checks the result element by element against the reference of
// the row's direction (reference::Forward or reference::Backward of ForRow(op, c) on the values
// the library saw) within the contract's tolerance, that a nearest-neighbour forward row copied
// each element bit for bit, and that nothing outside out's view was written. Returns the run;
// *expected receives the reference's result (empty when the run failed, which fails the test).
RunOutput ExpectMatchesReference(const aclnn_upsample_operator& op, const reference::Case& c,
                                 const std::vector<double>& source, const RunOptions& options,
                                 const std::string& label, std::vector<double>* expected = nullptr);

// ExpectMatchesReference on normal-distributed source values (seeded), and that finite data
// gave finite results.
void ExpectMatchesOnRandomData(const aclnn_upsample_operator& op, const reference::Case& c,
                               const RunOptions& options, uint32_t seed = 1);

// The result's bytes (RunOutput::raw_bits) of one run per thread count, each with
// ACLNN_UPSAMPLE_NUM_THREADS set for its phase-1 call; a run that fails fails the test and
// leaves its entry empty.
std::vector<std::vector<uint8_t>> RunAtThreadCounts(const aclnn_upsample_operator& op,
                                                    const reference::Case& c,
                                                    const std::vector<double>& source,
                                                    RunOptions options,
                                                    const std::vector<int>& thread_counts);

// The table's row for a mode and direction (fails the test and returns null if there is none).
const aclnn_upsample_operator* FindOperator(reference::Op mode, aclnn_upsample_direction direction);

// The reference's name for a row's mode.
reference::Op ModeOf(const aclnn_upsample_operator& op);

// The problem the row computes when called with `c`'s parameters: the row's mode and scale rule,
// alignCorners false where the row takes none, scales not given where it takes none. (Negative
// scales that the row does not reject read as not given in the reference already.)
reference::Case ForRow(const aclnn_upsample_operator& op, reference::Case c);

// For a nearest-neighbour forward row: the number of result elements whose bytes are not those
// of the one source element the reference maps them to (a copy must be exact: no arithmetic,
// signed zeros and NaN payloads kept). At most a few are reported as failures.
int CountInexactCopies(const aclnn_upsample_operator& op, const reference::Case& c,
                       const RunOutput& run, aclDataType dtype, const std::string& label);

// Checks that the row reads a scale on one axis as its flags say: runs the row on a case with
// `scale` on axis H (on_h) or W (the other axis a plain 5 -> 9 resize without scales) and
// compares with the reference built from the ratio the row must use and from the one a row
// breaking its rule would use. Returns false, without judging the library, when those two
// readings cannot be told apart on this axis (the caller must then show another axis can).
bool ExpectReadsScaleByItsFlags(const aclnn_upsample_operator& op, int64_t in, int64_t out,
                                bool align, double scale, bool on_h, const RunOptions& options,
                                int64_t channels);

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

// ---------------------------------------------------------------------------------------------
// Calls built field by field, for the error paths of any row of the operator table.

// One tensor description for aclCreateTensor.
struct TensorSpec {
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;  // empty: contiguous row-major (aclCreateTensor's default)
  int64_t offset = 0;
  std::vector<int64_t> storage;  // empty: the product of dims
  aclDataType dtype = ACL_FLOAT;
  aclFormat format = ACL_FORMAT_NCHW;
  bool null_data = false;

  int64_t StorageElements() const;
};

// One phase-1 call of any row. Sizes are given in the format's axis order.
struct CallSpec {
  TensorSpec source, out;
  std::vector<int64_t> output_size;
  std::vector<int64_t> input_size;  // passed to backward rows only
  bool align_corners = false;
  double scales_h = 0.0, scales_w = 0.0;
  // Which pointer parameter to pass as nullptr: 0 source, 1 outputSize, 2 out, 3 workspaceSize,
  // 4 executor; -1 none.
  int null_parameter = -1;
  // >= 0: the source's data lives inside out's buffer, this many elements in (and the reverse).
  int64_t source_inside_out_at = -1;
  int64_t out_inside_source_at = -1;
};

// A valid call of `op` resizing (n, c, in_h, in_w) to outputSize (out_h, out_w).
CallSpec ValidCall(const aclnn_upsample_operator& op, aclFormat format = ACL_FORMAT_NCHW,
                   int64_t n = 1, int64_t c = 1, int64_t in_h = 2, int64_t in_w = 2,
                   int64_t out_h = 4, int64_t out_w = 4);

// Builds the tensors and buffers of a CallSpec (out filled with sentinels, the source with
// finite values; at most 2^22 elements of each are backed by memory, larger storage is metadata
// for checks that must fail before any data is read), runs phase 1 and phase 2 on request, and
// tells whether either buffer changed.
class Invocation {
 public:
  Invocation(const aclnn_upsample_operator& op, const CallSpec& call);
  ~Invocation();
  Invocation(const Invocation&) = delete;
  Invocation& operator=(const Invocation&) = delete;

  aclnnStatus Phase1();
  // Phase 2 of `runner` (this row by default) with a workspace of `size` bytes.
  aclnnStatus Phase2(uint64_t size, bool null_workspace = false,
                     const aclnn_upsample_operator* runner = nullptr);

  bool Untouched() const;
  uint64_t workspace_size() const { return workspace_size_; }
  aclOpExecutor* executor() const { return executor_; }

 private:
  const aclnn_upsample_operator& op_;
  CallSpec call_;
  std::vector<uint8_t> source_buffer_, out_buffer_, out_snapshot_, source_snapshot_, workspace_;
  aclTensor* source_ = nullptr;
  aclTensor* out_ = nullptr;
  aclIntArray* output_size_ = nullptr;
  aclIntArray* input_size_ = nullptr;
  uint64_t workspace_size_ = 0;
  aclOpExecutor* executor_ = nullptr;
  bool consumed_ = false;
};

// The formats the row accepts, as its format errors list them: "NCHW", "NCHW or NHWC",
// "NCHW or ND" or "NCHW, NHWC or ND".
std::string AcceptedFormats(const aclnn_upsample_operator& op);

// aclGetRecentErrMsg() as a string ("<null>" for none).
std::string RecentMessage();

}  // namespace support

#endif  // ACLNN_UPSAMPLE_TESTS_SUPPORT_TEST_TENSORS_H_
