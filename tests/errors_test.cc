// Error paths of the backward operators, one test per row of the contract's error tables
// (section 3), for every backward row of the operator table.
// Every failing call is checked three ways: the exact status, a message from
// aclGetRecentErrMsg() that names the operator, the parameter, what was expected and what
// arrived, and `out`'s storage left byte for byte as it was (the contract promises that nothing
// is written on a failure, so a half-written result can never be mistaken for a gradient).
// Rows shared by the backward operators run for every backward row of the operator table through
// the parameterised suites below.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn_upsample/operators.h"
#include "aclnnop/aclnn_upsample_bicubic2d_aa_grad.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward_v2.h"
#include "support/test_tensors.h"

namespace {

// The backward rows of the operator table (include/aclnn_upsample/operators.h): a backward
// operator added to the table runs every shared row below without an edit here. (The forward
// rows have their own signature and run in forward_errors_test.cc.)
using OperatorApi = aclnn_upsample_operator;

std::vector<const OperatorApi*> BackwardOperators() {
  std::vector<const OperatorApi*> rows;
  for (size_t i = 0; i < aclnn_upsample_operator_count(); ++i) {
    const OperatorApi* op = aclnn_upsample_operator_at(i);
    if (op->direction == ACLNN_UPSAMPLE_BACKWARD) rows.push_back(op);
  }
  return rows;
}

const OperatorApi& Row(const char* name) {
  const OperatorApi* op = aclnn_upsample_find_operator(name);
  if (op == nullptr) std::abort();  // the table lost an operator these tests name
  return *op;
}

const OperatorApi& kBilinear = Row("aclnnUpsampleBilinear2dBackwardV2");
const OperatorApi& kBicubic = Row("aclnnUpsampleBicubic2dAAGrad");

// Another backward operator than `op`, for executors made by the wrong one.
const OperatorApi& Other(const OperatorApi& op) {
  for (const OperatorApi* other : BackwardOperators()) {
    if (other != &op) return *other;
  }
  std::abort();
}

constexpr uint8_t kSentinel = 0xA5;
constexpr int64_t kBig = (int64_t{1} << 20) + 1;  // the first dimension over the limit
// Real memory backs at most this many elements; larger storage is metadata for limit checks
// that must fail before any data is looked at.
constexpr int64_t kMaxBackedElements = int64_t{1} << 22;

size_t ElementSize(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
      return 2;
    case ACL_DOUBLE:
    case ACL_INT64:
      return 8;
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_BOOL:
      return 1;
    default:
      return 4;
  }
}

int64_t Product(const std::vector<int64_t>& dims) {
  int64_t product = 1;
  for (int64_t d : dims) product *= d;
  return product;
}

struct TensorSpec {
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;  // empty: contiguous row-major
  int64_t offset = 0;
  std::vector<int64_t> storage;  // empty: the same as dims
  aclDataType dtype = ACL_FLOAT;
  aclFormat format = ACL_FORMAT_NCHW;
  bool null_data = false;

  int64_t StorageElements() const { return Product(storage.empty() ? dims : storage); }
};

TensorSpec Spec(std::vector<int64_t> dims, std::vector<int64_t> storage = {},
                aclDataType dtype = ACL_FLOAT, aclFormat format = ACL_FORMAT_NCHW) {
  TensorSpec spec;
  spec.dims = std::move(dims);
  spec.storage = std::move(storage);
  spec.dtype = dtype;
  spec.format = format;
  return spec;
}

// Everything one phase-1 call takes. The default is a valid 2x upsample of a 2x2 plane.
struct Call {
  TensorSpec grad = Spec({1, 1, 4, 4});
  TensorSpec out = Spec({1, 1, 2, 2});
  std::vector<int64_t> output_size{4, 4};
  std::vector<int64_t> input_size{1, 1, 2, 2};
  bool align_corners = false;
  double scales_h = 0.0, scales_w = 0.0;
  // Which of the six pointer parameters to pass as nullptr: 0 grad, 1 outputSize, 2 inputSize,
  // 3 out, 4 workspaceSize, 5 executor; -1 none.
  int null_parameter = -1;
  // >= 0: gradOut's data lives inside out's buffer, this many gradOut elements in (overlap rule).
  int64_t grad_inside_out_at = -1;
  // >= 0: out's data lives inside gradOut's buffer, this many elements in.
  int64_t out_inside_grad_at = -1;
};

// Builds the tensors and buffers of a Call, runs phase 1 and keeps what later checks need.
class Invocation {
 public:
  Invocation(const OperatorApi& op, const Call& call) : op_(op), call_(call) {
    const size_t grad_elem = ElementSize(call.grad.dtype);
    const size_t out_elem = ElementSize(call.out.dtype);
    int64_t out_elements = std::min(call.out.StorageElements(), kMaxBackedElements);
    if (call.grad_inside_out_at >= 0) {
      out_elements =
          std::max(out_elements, call.grad_inside_out_at +
                                     std::min(call.grad.StorageElements(), kMaxBackedElements));
    }
    out_buffer_.assign(static_cast<size_t>(std::max<int64_t>(out_elements, 1)) * out_elem,
                       kSentinel);
    int64_t grad_elements = std::min(call.grad.StorageElements(), kMaxBackedElements);
    if (call.out_inside_grad_at >= 0) {
      grad_elements = std::max(grad_elements, call.out_inside_grad_at + out_elements);
    }
    // Finite values (0x3F3F... is about 0.75 as FLOAT32) so a run that should happen can.
    grad_buffer_.assign(static_cast<size_t>(std::max<int64_t>(grad_elements, 1)) * grad_elem, 0x3F);
    void* grad_data = call.grad_inside_out_at >= 0
                          ? out_buffer_.data() + call.grad_inside_out_at * grad_elem
                          : grad_buffer_.data();
    void* out_data = call.out_inside_grad_at >= 0
                         ? grad_buffer_.data() + call.out_inside_grad_at * out_elem
                         : out_buffer_.data();
    grad_ = MakeTensor(call.grad, call.grad.null_data ? nullptr : grad_data);
    out_ = MakeTensor(call.out, call.out.null_data ? nullptr : out_data);
    output_size_ = aclCreateIntArray(call.output_size.data(), call.output_size.size());
    input_size_ = aclCreateIntArray(call.input_size.data(), call.input_size.size());
    snapshot_ = out_buffer_;
    grad_snapshot_ = grad_buffer_;
  }

  ~Invocation() {
    // A single-use executor that phase 2 never consumed is still registered.
    if (executor_ != nullptr && !consumed_) aclDestroyAclOpExecutor(executor_);
    aclDestroyTensor(grad_);
    aclDestroyTensor(out_);
    aclDestroyIntArray(output_size_);
    aclDestroyIntArray(input_size_);
  }

  aclnnStatus Phase1() {
    const int null = call_.null_parameter;
    return op_.get_workspace_size(null == 0 ? nullptr : grad_, null == 1 ? nullptr : output_size_,
                                  null == 2 ? nullptr : input_size_, call_.align_corners,
                                  call_.scales_h, call_.scales_w, null == 3 ? nullptr : out_,
                                  null == 4 ? nullptr : &workspace_size_,
                                  null == 5 ? nullptr : &executor_);
  }

  // Phase 2 with the given workspace size; the buffer is that large (or null if asked).
  aclnnStatus Phase2(uint64_t size, bool null_workspace = false) {
    return Phase2With(op_, size, null_workspace);
  }
  aclnnStatus Phase2With(const OperatorApi& op, uint64_t size, bool null_workspace = false) {
    workspace_.assign(static_cast<size_t>(size), 0);
    consumed_ = true;  // single-use executors are consumed whether the run succeeds or fails
    return op.run(null_workspace ? nullptr : workspace_.data(), size, executor_, nullptr);
  }

  // Both buffers: out may live in gradOut's, and gradOut is never written at all.
  bool OutUntouched() const { return out_buffer_ == snapshot_ && grad_buffer_ == grad_snapshot_; }
  // Element `index` of out's storage, read as FLOAT32.
  float OutStorageFloat(int64_t index) const {
    float value;
    std::memcpy(&value, out_buffer_.data() + index * sizeof(float), sizeof(float));
    return value;
  }
  // After a successful run, makes the current contents the new reference for OutUntouched().
  void Resnapshot() {
    snapshot_ = out_buffer_;
    grad_snapshot_ = grad_buffer_;
  }

  uint64_t workspace_size() const { return workspace_size_; }
  aclOpExecutor* executor() const { return executor_; }
  void set_consumed() { consumed_ = true; }

 private:
  static aclTensor* MakeTensor(const TensorSpec& spec, void* data) {
    const std::vector<int64_t>& storage = spec.storage.empty() ? spec.dims : spec.storage;
    return aclCreateTensor(spec.dims.data(), spec.dims.size(), spec.dtype,
                           spec.strides.empty() ? nullptr : spec.strides.data(), spec.offset,
                           spec.format, storage.data(), storage.size(), data);
  }

  const OperatorApi& op_;
  Call call_;
  std::vector<uint8_t> grad_buffer_, out_buffer_, snapshot_, grad_snapshot_, workspace_;
  aclTensor* grad_ = nullptr;
  aclTensor* out_ = nullptr;
  aclIntArray* output_size_ = nullptr;
  aclIntArray* input_size_ = nullptr;
  uint64_t workspace_size_ = 0;
  aclOpExecutor* executor_ = nullptr;
  bool consumed_ = false;
};

std::string RecentMessage() {
  const char* message = aclGetRecentErrMsg();
  return message == nullptr ? "<null>" : message;
}

// Asserts status, message contents and untouched `out`. `fragments` are the parameter's name
// and the offending value (and anything else the message must say).
void ExpectFailure(const OperatorApi& op, const Invocation& invocation, aclnnStatus status,
                   aclnnStatus expected, std::initializer_list<std::string> fragments) {
  EXPECT_EQ(status, expected);
  const std::string message = RecentMessage();
  EXPECT_NE(message.find(op.name), std::string::npos) << "message: " << message;
  EXPECT_NE(message.find("expected"), std::string::npos) << "message: " << message;
  for (const std::string& fragment : fragments) {
    EXPECT_NE(message.find(fragment), std::string::npos)
        << "missing \"" << fragment << "\" in message: " << message;
  }
  EXPECT_TRUE(invocation.OutUntouched()) << "out was written by a failing call";
}

// Runs phase 1 of `call` and expects it to fail as described.
void ExpectPhase1Failure(const OperatorApi& op, const Call& call, aclnnStatus expected,
                         std::initializer_list<std::string> fragments) {
  Invocation invocation(op, call);
  const aclnnStatus status = invocation.Phase1();
  ExpectFailure(op, invocation, status, expected, fragments);
}

// Runs phase 1 of `call` and expects success; then phase 2 must succeed too.
void ExpectSuccessfulRun(const OperatorApi& op, const Call& call) {
  Invocation invocation(op, call);
  ASSERT_EQ(invocation.Phase1(), ACLNN_SUCCESS) << RecentMessage();
  EXPECT_EQ(invocation.Phase2(invocation.workspace_size()), ACLNN_SUCCESS) << RecentMessage();
}

// "<result> <what>" with CANN's name of the tensor the row writes ("out" or "gradInput"), e.g.
// "gradInput dtype"; a `what` of ":" gives "<result>:".
std::string Result(const OperatorApi& op, const std::string& what) {
  return std::string(op.result_name) + (what == ":" ? ":" : " " + what);
}

// A test name from CANN's name: "aclnnUpsampleBicubic2dAAGrad" -> "Bicubic2dAAGrad".
std::string ShortName(const OperatorApi& op) { return std::string(op.name).substr(13); }

std::string OperatorName(const testing::TestParamInfo<const OperatorApi*>& info) {
  return ShortName(*info.param);
}

// ---------------------------------------------------------------------------------------------
// 3.1: rows common to both operators.

class CommonErrorsTest : public testing::TestWithParam<const OperatorApi*> {
 protected:
  const OperatorApi& op() const { return *GetParam(); }
};

INSTANTIATE_TEST_SUITE_P(BackwardOperators, CommonErrorsTest,
                         testing::ValuesIn(BackwardOperators()), OperatorName);

TEST_P(CommonErrorsTest, DefaultCallIsValid) {
  // Every other test changes one thing of this call, so it must pass on its own.
  ExpectSuccessfulRun(op(), Call{});
}

// Row: a null gradOut/gradOutput, outputSize, inputSize, out, workspaceSize or executor.
class NullParameterTest : public testing::TestWithParam<std::tuple<const OperatorApi*, int>> {};

std::string NullParameterName(
    const testing::TestParamInfo<std::tuple<const OperatorApi*, int>>& info) {
  static const char* const kNames[] = {"Grad", "OutputSize",    "InputSize",
                                       "Out",  "WorkspaceSize", "Executor"};
  return ShortName(*std::get<0>(info.param)) + "_" + kNames[std::get<1>(info.param)];
}

INSTANTIATE_TEST_SUITE_P(BackwardOperators, NullParameterTest,
                         testing::Combine(testing::ValuesIn(BackwardOperators()),
                                          testing::Range(0, 6)),
                         NullParameterName);

TEST_P(NullParameterTest, IsParamNullptr) {
  const OperatorApi& op = *std::get<0>(GetParam());
  const int which = std::get<1>(GetParam());
  const std::string names[] = {op.source_name, "outputSize",    "inputSize",
                               op.result_name, "workspaceSize", "executor"};
  Call call;
  call.null_parameter = which;
  ExpectPhase1Failure(op, call, ACLNN_ERR_PARAM_NULLPTR, {names[which] + ":", "nullptr"});
}

// Row: dtype of either tensor not FLOAT32, FLOAT16 or BFLOAT16, or the two dtypes differ.
TEST_P(CommonErrorsTest, GradDtypeInt32IsInvalid) {
  Call call;
  call.grad.dtype = ACL_INT32;
  call.out.dtype = ACL_INT32;
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID,
                      {std::string(op().source_name) + " dtype", "FLOAT16", "3"});
}

TEST_P(CommonErrorsTest, OutDtypeDoubleIsInvalid) {
  Call call;
  call.out.dtype = ACL_DOUBLE;
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID, {Result(op(), "dtype"), "11"});
}

TEST_P(CommonErrorsTest, DtypesDifferingIsInvalid) {
  Call call;
  call.out.dtype = ACL_FLOAT16;
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID,
                      {Result(op(), "dtype"), "FLOAT32", "FLOAT16"});
}

// Row: a tensor not 4-D; outputSize not 2 elements; inputSize not 4 elements.
TEST_P(CommonErrorsTest, GradNot4DIsInvalid) {
  Call call;
  call.grad.dims = {1, 4, 4};
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID, {op().source_name, "4-D", "3-D"});
  call.grad.dims = {1, 1, 1, 4, 4};
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID, {op().source_name, "4-D", "5-D"});
}

TEST_P(CommonErrorsTest, OutNot4DIsInvalid) {
  Call call;
  call.out.dims = {1, 2, 2};
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID, {Result(op(), ":"), "4-D", "3-D"});
  call.out.dims = {1, 1, 1, 2, 2};
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID, {Result(op(), ":"), "4-D", "5-D"});
}

TEST_P(CommonErrorsTest, OutputSizeNotTwoElementsIsInvalid) {
  Call call;
  call.output_size = {4};
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID, {"outputSize", "2 elements", "[4]"});
  call.output_size = {4, 4, 4};
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID,
                      {"outputSize", "2 elements", "[4, 4, 4]"});
}

TEST_P(CommonErrorsTest, InputSizeNotFourElementsIsInvalid) {
  Call call;
  call.input_size = {1, 2, 2};
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID,
                      {"inputSize", "4 elements", "[1, 2, 2]"});
  call.input_size = {1, 1, 1, 2, 2};
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID,
                      {"inputSize", "4 elements", "[1, 1, 1, 2, 2]"});
}

// Row: an outputSize element < 1; inputSize H or W < 1; N or C < 0.
TEST_P(CommonErrorsTest, OutputSizeBelowOneIsInvalid) {
  Call call;
  call.output_size = {0, 4};
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID, {"outputSize[0]", "got 0"});
  call.output_size = {4, -3};
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID, {"outputSize[1]", "got -3"});
}

TEST_P(CommonErrorsTest, InputSizeHeightOrWidthBelowOneIsInvalid) {
  Call call;
  call.input_size = {1, 1, 0, 2};
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID, {"inputSize[2] (H)", "got 0"});
  call.input_size = {1, 1, 2, -1};
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID, {"inputSize[3] (W)", "got -1"});
}

TEST_P(CommonErrorsTest, NegativeBatchOrChannelsIsInvalid) {
  Call call;
  call.input_size = {-1, 1, 2, 2};
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID, {"inputSize[0] (N)", "got -1"});
  call.input_size = {1, -2, 2, 2};
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID, {"inputSize[1] (C)", "got -2"});
}

// Row: gradOut's shape is not {N, C, outputSize}; out's shape is not inputSize.
TEST_P(CommonErrorsTest, GradShapeNotMatchingSizesIsInvalid) {
  Call call;
  call.grad.dims = {1, 1, 4, 5};  // W differs from outputSize[1]
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID,
                      {std::string(op().source_name) + " shape", "[1, 1, 4, 4]", "[1, 1, 4, 5]"});
  call.grad.dims = {2, 1, 4, 4};  // N differs from inputSize[0]
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID,
                      {std::string(op().source_name) + " shape", "[2, 1, 4, 4]"});
}

TEST_P(CommonErrorsTest, OutShapeNotInputSizeIsInvalid) {
  Call call;
  call.out.dims = {1, 1, 2, 3};
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID,
                      {Result(op(), "shape"), "[1, 1, 2, 2]", "[1, 1, 2, 3]"});
}

// Row: any dimension of either tensor, or any value of outputSize/inputSize, > 2^20.
TEST_P(CommonErrorsTest, TensorDimensionAbove2Pow20IsInvalid) {
  Call call;
  call.grad.dims = {1, 1, 4, kBig};
  call.grad.storage = {1};  // limits are checked before the layout; nothing is read
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID,
                      {std::string(op().source_name) + " shape", "2^20", "1048577"});
  Call out_call;
  out_call.out.dims = {1, 1, 2, kBig};
  out_call.out.storage = {4};
  ExpectPhase1Failure(op(), out_call, ACLNN_ERR_PARAM_INVALID,
                      {Result(op(), "shape"), "2^20", "1048577"});
}

TEST_P(CommonErrorsTest, OutputSizeAbove2Pow20IsInvalid) {
  Call call;
  call.output_size = {4, kBig};
  call.grad.dims = {1, 1, 4, kBig};
  call.grad.storage = {1};
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID, {"outputSize[1]", "2^20", "1048577"});
}

TEST_P(CommonErrorsTest, InputSizeAbove2Pow20IsInvalid) {
  Call call;
  call.input_size = {1, 1, kBig, 2};
  call.out.dims = {1, 1, kBig, 2};
  call.out.storage = {4};
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID, {"inputSize[2] (H)", "1048577"});
  Call batch_call;
  batch_call.input_size = {kBig, 1, 2, 2};
  ExpectPhase1Failure(op(), batch_call, ACLNN_ERR_PARAM_INVALID, {"inputSize[0] (N)", "1048577"});
}

// Row: N * C * H_out >= 2^31. Metadata only: the storage is one element, which is fine because
// the limits are checked before the view-fits-storage rule.
Call RowsCall(int64_t out_h) {
  Call call;
  call.grad = Spec({2048, 1024, out_h, 1}, {1});
  call.out = Spec({2048, 1024, 1, 1}, {1});
  call.output_size = {out_h, 1};
  call.input_size = {2048, 1024, 1, 1};
  return call;
}

TEST_P(CommonErrorsTest, RowsAtLeast2Pow31IsInvalid) {
  ExpectPhase1Failure(op(), RowsCall(1024), ACLNN_ERR_PARAM_INVALID,
                      {"N * C * H_out", "2^31", "2147483648"});
}

TEST_P(CommonErrorsTest, RowsJustBelow2Pow31PassTheLimit) {
  // 2^31 - 2048 rows pass; the call then fails on the next rule, the one-element storage.
  Invocation invocation(op(), RowsCall(1023));
  const aclnnStatus status = invocation.Phase1();
  EXPECT_EQ(status, ACLNN_ERR_PARAM_INVALID);
  const std::string message = RecentMessage();
  EXPECT_EQ(message.find("N * C * H_out"), std::string::npos) << message;
  EXPECT_NE(message.find("view"), std::string::npos) << message;
  EXPECT_TRUE(invocation.OutUntouched());
}

// Row: (H_out*W_out + H_in*W_in + H_out*W_in) * N * C * sizeof(dtype) >= 60 GiB. With
// H = 65536 on both sides, W = 81920 and FLOAT32 the footprint is exactly 60 GiB.
Call FootprintCall(int64_t width, aclDataType dtype, int64_t channels) {
  Call call;
  call.grad = Spec({1, channels, 65536, width}, {1}, dtype);
  call.out = Spec({1, channels, 65536, width}, {1}, dtype);
  call.output_size = {65536, width};
  call.input_size = {1, channels, 65536, width};
  return call;
}

TEST_P(CommonErrorsTest, FootprintOf60GiBIsInvalid) {
  ExpectPhase1Failure(op(), FootprintCall(81920, ACL_FLOAT, 1), ACLNN_ERR_PARAM_INVALID,
                      {"footprint", "60 GiB", "64424509440"});
  // sizeof(dtype) counts: half the bytes per element, twice the planes.
  ExpectPhase1Failure(op(), FootprintCall(81920, ACL_BF16, 2), ACLNN_ERR_PARAM_INVALID,
                      {"footprint", "64424509440"});
}

TEST_P(CommonErrorsTest, FootprintJustBelow60GiBPassesTheLimit) {
  // 64423723008 bytes: one column less. Fails later, on the one-element storage.
  Invocation invocation(op(), FootprintCall(81919, ACL_FLOAT, 1));
  EXPECT_EQ(invocation.Phase1(), ACLNN_ERR_PARAM_INVALID);
  const std::string message = RecentMessage();
  EXPECT_EQ(message.find("footprint"), std::string::npos) << message;
  EXPECT_EQ(message.find("GiB"), std::string::npos) << message;
  EXPECT_NE(message.find("view"), std::string::npos) << message;
  EXPECT_TRUE(invocation.OutUntouched());
  // FLOAT16 halves the bytes, so the exact-60-GiB shape passes the limit too.
  Invocation half(op(), FootprintCall(81920, ACL_FLOAT16, 1));
  EXPECT_EQ(half.Phase1(), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(RecentMessage().find("footprint"), std::string::npos) << RecentMessage();
}

// Row: a view that does not fit its storage.
TEST_P(CommonErrorsTest, ViewOffsetBeyondStorageIsInvalid) {
  Call call;
  call.out.offset = 1;  // 4 elements of storage, the last one would be element 4
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID,
                      {Result(op(), "view"), "offset 1", "element 4"});
  Call grad_call;
  grad_call.grad.offset = 3;
  ExpectPhase1Failure(op(), grad_call, ACLNN_ERR_PARAM_INVALID,
                      {std::string(op().source_name) + " view", "offset 3", "element 18"});
}

TEST_P(CommonErrorsTest, ViewStridesBeyondStorageIsInvalid) {
  Call call;
  call.out.strides = {8, 8, 4, 1};  // reaches element 5 of 4
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID,
                      {Result(op(), "view"), "[8, 8, 4, 1]", "element 5"});
  Call grad_call;
  grad_call.grad.strides = {16, 16, 5, 1};  // reaches element 18 of 16
  ExpectPhase1Failure(op(), grad_call, ACLNN_ERR_PARAM_INVALID,
                      {std::string(op().source_name) + " view", "element 18"});
}

// Row: a view that does not fit its storage, when that storage is larger than any process can
// address (2^56 bytes): storageDims are metadata only, and the engine forms byte offsets from
// strides in int64.
TEST_P(CommonErrorsTest, ViewBeyondAddressableMemoryIsInvalid) {
  Call call;
  call.out.strides = {8, 8, int64_t{1} << 54, 1};  // element 2^54 + 1, of 4 bytes: past 2^56
  call.out.storage = {int64_t{1} << 55};
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID,
                      {Result(op(), "view"), "addressable", "18014398509481985"});
  Call half_call;  // 2-byte elements reach 2^55 + 2 bytes: inside the bound, and valid
  half_call.out.dtype = half_call.grad.dtype = ACL_FLOAT16;
  half_call.out.strides = call.out.strides;
  half_call.out.storage = call.out.storage;
  Invocation half(op(), half_call);
  EXPECT_EQ(half.Phase1(), ACLNN_SUCCESS) << RecentMessage();
}

// Row: a negative stride (and a negative offset, which cannot address storage either).
TEST_P(CommonErrorsTest, NegativeStrideIsInvalid) {
  Call call;
  call.grad.strides = {16, 16, 4, -1};
  call.grad.offset = 3;
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID,
                      {std::string(op().source_name) + " strides", "non-negative", "-1"});
  Call out_call;
  out_call.out.strides = {4, 4, -2, 1};
  out_call.out.offset = 2;
  ExpectPhase1Failure(op(), out_call, ACLNN_ERR_PARAM_INVALID, {Result(op(), "strides"), "-2"});
}

TEST_P(CommonErrorsTest, NegativeOffsetIsInvalid) {
  Call call;
  call.out.offset = -1;
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID,
                      {Result(op(), "offset"), "non-negative", "-1"});
}

// Row: two elements of out at one address.
TEST_P(CommonErrorsTest, OutZeroStrideIsInvalid) {
  Call call;
  call.out.strides = {4, 4, 2, 0};
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID,
                      {Result(op(), "strides"), "own address", "[4, 4, 2, 0]"});
}

TEST_P(CommonErrorsTest, OutOverlappingStridesIsInvalid) {
  Call call;
  call.out.strides = {4, 4, 1, 1};  // (0, 1) and (1, 0) are both element 1
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID,
                      {Result(op(), "strides"), "own address", "[4, 4, 1, 1]"});
}

TEST_P(CommonErrorsTest, GradWithZeroStrideIsValid) {
  // Only out must have one address per element; a broadcast gradient is an ordinary input.
  Call call;
  call.grad.strides = {0, 0, 0, 1};
  call.grad.storage = {4};
  ExpectSuccessfulRun(op(), call);
}

// The contract forbids two elements of out at one address; a layout whose dimensions
// interleave (H stride 2, W stride 3: addresses 0 2 4 3 5 7) gives every element its own
// address and so is allowed. If this fails, the library's no-aliasing check is stricter than
// the contract (it demands that each dimension's stride step past everything the smaller ones
// reach) and rejects a valid out.
TEST_P(CommonErrorsTest, OutWithDistinctInterleavedAddressesIsAccepted) {
  Call call;
  call.grad.dims = {1, 1, 6, 4};
  call.output_size = {6, 4};
  call.input_size = {1, 1, 3, 2};
  call.out = Spec({1, 1, 3, 2}, {8});
  call.out.strides = {8, 8, 2, 3};
  Invocation strided(op(), call);
  ASSERT_EQ(strided.Phase1(), ACLNN_SUCCESS) << RecentMessage();
  ASSERT_EQ(strided.Phase2(strided.workspace_size()), ACLNN_SUCCESS) << RecentMessage();
  // The same problem with a contiguous out gives the values each address must hold.
  Call contiguous_call = call;
  contiguous_call.out = Spec({1, 1, 3, 2});
  Invocation contiguous(op(), contiguous_call);
  ASSERT_EQ(contiguous.Phase1(), ACLNN_SUCCESS) << RecentMessage();
  ASSERT_EQ(contiguous.Phase2(contiguous.workspace_size()), ACLNN_SUCCESS) << RecentMessage();
  for (int64_t h = 0; h < 3; ++h) {
    for (int64_t w = 0; w < 2; ++w) {
      EXPECT_EQ(strided.OutStorageFloat(h * 2 + w * 3), contiguous.OutStorageFloat(h * 2 + w))
          << "h " << h << ", w " << w;
    }
  }
}

// aclCreateTensor derives contiguous strides from the dims when none are given; with dims far
// beyond the limit that product must not overflow (signed overflow is undefined behaviour,
// which the sanitizer build turns into a crash), and validation must then reject the dims.
TEST_P(CommonErrorsTest, HugeDimsWithoutStridesAreRejectedWithoutOverflow) {
  Call call;
  const int64_t huge = int64_t{1} << 21;
  call.grad.dims = {huge, huge, huge, huge};  // row-major strides up to 2^63
  call.grad.storage = {1};
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID,
                      {std::string(op().source_name) + " shape", "2^20", "2097152"});
}

// Not a row of the tables, but the natural reading of "validates everything": a non-empty
// tensor without data is refused before anything is read or written.
TEST_P(CommonErrorsTest, NullDataOfNonEmptyTensorIsRefused) {
  Call call;
  call.grad.null_data = true;
  Invocation invocation(op(), call);
  const aclnnStatus status = invocation.Phase1();
  EXPECT_NE(status, ACLNN_SUCCESS);
  EXPECT_NE(RecentMessage().find(op().source_name), std::string::npos) << RecentMessage();
  EXPECT_TRUE(invocation.OutUntouched());
}

// Row: the memory spans of out and gradOut overlapping.
TEST_P(CommonErrorsTest, OutOverlappingGradIsInvalid) {
  Call call;
  call.grad_inside_out_at = 2;  // gradOut starts at out's third element
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID,
                      {Result(op(), "memory"), "overlap", op().source_name});
}

TEST_P(CommonErrorsTest, OutInsideGradIsInvalid) {
  Call call;
  call.out_inside_grad_at = 3;  // out's four elements are gradOut's elements 3..6
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID,
                      {Result(op(), "memory"), "overlap", op().source_name});
}

// Spans that overlap without sharing an element: out on the even elements of one buffer,
// gradOut on the odd ones. The contract's row is about the spans, so this is invalid too.
Call InterleavedCall() {
  Call call;
  call.out = Spec({1, 1, 2, 2}, {8});
  call.out.strides = {8, 8, 4, 2};  // elements 0, 2, 4, 6
  call.grad = Spec({1, 1, 4, 4}, {32});
  call.grad.strides = {32, 32, 8, 2};  // elements 0, 2, ..., 30 of its own storage
  return call;
}

TEST_P(CommonErrorsTest, InterleavedSpansSharingNoElementAreInvalid) {
  // Each layout alone is valid: the failure below is the overlap, not the strides.
  ExpectSuccessfulRun(op(), InterleavedCall());
  Call grad_on_odd = InterleavedCall();
  grad_on_odd.grad_inside_out_at = 1;  // gradOut at 1, 3, ..., 31; out at 0, 2, 4, 6
  ExpectPhase1Failure(op(), grad_on_odd, ACLNN_ERR_PARAM_INVALID,
                      {Result(op(), "memory"), "overlap", op().source_name});
  Call out_on_odd = InterleavedCall();
  out_on_odd.out_inside_grad_at = 1;  // out at 1, 3, 5, 7 among gradOut's even elements
  ExpectPhase1Failure(op(), out_on_odd, ACLNN_ERR_PARAM_INVALID,
                      {Result(op(), "memory"), "overlap", op().source_name});
}

TEST_P(CommonErrorsTest, OutAndGradAdjacentInOneBufferIsValid) {
  // Sharing a buffer is fine as long as the spans are disjoint: gradOut right after out.
  Call call;
  call.grad_inside_out_at = 4;
  Invocation invocation(op(), call);
  EXPECT_EQ(invocation.Phase1(), ACLNN_SUCCESS) << RecentMessage();
}

TEST_P(CommonErrorsTest, DifferingFormatsAreInvalid) {
  Call call;
  call.out.format = &op() == &kBilinear ? ACL_FORMAT_NHWC : ACL_FORMAT_ND;
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID, {Result(op(), "format"), "NCHW"});
}

TEST_P(CommonErrorsTest, UnknownFormatIsInvalid) {
  Call call;
  call.grad.format = static_cast<aclFormat>(3);  // NC1HWC0-like values are not accepted here
  call.out.format = static_cast<aclFormat>(3);
  ExpectPhase1Failure(op(), call, ACLNN_ERR_PARAM_INVALID,
                      {std::string(op().source_name) + " format", "format 3"});
}

// ---------------------------------------------------------------------------------------------
// 3.1: phase 2 rows, for both operators.

class Phase2ErrorsTest : public CommonErrorsTest {
 protected:
  // Phase 1 of the default call, which must succeed and report a non-empty workspace.
  void Prepare(Invocation* invocation) {
    ASSERT_EQ(invocation->Phase1(), ACLNN_SUCCESS) << RecentMessage();
    ASSERT_GT(invocation->workspace_size(), 0u);
  }
};

INSTANTIATE_TEST_SUITE_P(BackwardOperators, Phase2ErrorsTest,
                         testing::ValuesIn(BackwardOperators()), OperatorName);

TEST_P(Phase2ErrorsTest, NullExecutorIsParamNullptr) {
  Invocation invocation(op(), Call{});
  Prepare(&invocation);
  std::vector<uint8_t> workspace(invocation.workspace_size());
  const aclnnStatus status = op().run(workspace.data(), workspace.size(), nullptr, nullptr);
  ExpectFailure(op(), invocation, status, ACLNN_ERR_PARAM_NULLPTR, {"executor", "nullptr"});
}

TEST_P(Phase2ErrorsTest, WorkspaceSmallerThanReportedIsInvalid) {
  Invocation invocation(op(), Call{});
  Prepare(&invocation);
  const uint64_t reported = invocation.workspace_size();
  const aclnnStatus status = invocation.Phase2(reported - 1);
  ExpectFailure(op(), invocation, status, ACLNN_ERR_PARAM_INVALID,
                {"workspaceSize", std::to_string(reported), "got " + std::to_string(reported - 1)});
}

TEST_P(Phase2ErrorsTest, NullWorkspaceWithNonZeroSizeIsInvalid) {
  Invocation invocation(op(), Call{});
  Prepare(&invocation);
  const aclnnStatus status =
      invocation.Phase2(invocation.workspace_size(), /*null_workspace=*/true);
  ExpectFailure(op(), invocation, status, ACLNN_ERR_PARAM_INVALID, {"workspace", "nullptr"});
}

TEST_P(Phase2ErrorsTest, ConsumedExecutorIsInvalid) {
  Invocation invocation(op(), Call{});
  Prepare(&invocation);
  ASSERT_EQ(invocation.Phase2(invocation.workspace_size()), ACLNN_SUCCESS) << RecentMessage();
  invocation.Resnapshot();  // the first run wrote out; the second must not write again
  const aclnnStatus status = invocation.Phase2(invocation.workspace_size());
  ExpectFailure(op(), invocation, status, ACLNN_ERR_PARAM_INVALID, {"executor", "consumed"});
}

TEST_P(Phase2ErrorsTest, FailedRunConsumesSingleUseExecutor) {
  Invocation invocation(op(), Call{});
  Prepare(&invocation);
  ASSERT_EQ(invocation.Phase2(invocation.workspace_size() - 1), ACLNN_ERR_PARAM_INVALID);
  const aclnnStatus status = invocation.Phase2(invocation.workspace_size());
  ExpectFailure(op(), invocation, status, ACLNN_ERR_PARAM_INVALID, {"executor", "consumed"});
}

TEST_P(Phase2ErrorsTest, InventedHandleIsInvalid) {
  Invocation invocation(op(), Call{});
  Prepare(&invocation);
  std::vector<uint8_t> workspace(invocation.workspace_size());
  // Never a real executor: the library must look it up, not dereference it.
  const aclnnStatus status = op().run(workspace.data(), workspace.size(),
                                      reinterpret_cast<aclOpExecutor*>(0x1234), nullptr);
  ExpectFailure(op(), invocation, status, ACLNN_ERR_PARAM_INVALID, {"executor", "unknown"});
}

TEST_P(Phase2ErrorsTest, DestroyedRepeatableExecutorIsInvalid) {
  Invocation invocation(op(), Call{});
  Prepare(&invocation);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(invocation.executor()), ACLNN_SUCCESS);
  ASSERT_EQ(aclDestroyAclOpExecutor(invocation.executor()), ACLNN_SUCCESS);
  invocation.set_consumed();
  const aclnnStatus status = invocation.Phase2(invocation.workspace_size());
  ExpectFailure(op(), invocation, status, ACLNN_ERR_PARAM_INVALID, {"executor", "destroyed"});
}

TEST_P(Phase2ErrorsTest, DestroyedSingleUseExecutorIsInvalid) {
  Invocation invocation(op(), Call{});
  Prepare(&invocation);
  ASSERT_EQ(aclDestroyAclOpExecutor(invocation.executor()), ACLNN_SUCCESS) << RecentMessage();
  invocation.set_consumed();
  const aclnnStatus status = invocation.Phase2(invocation.workspace_size());
  ExpectFailure(op(), invocation, status, ACLNN_ERR_PARAM_INVALID, {"executor", "destroyed"});
  EXPECT_EQ(aclDestroyAclOpExecutor(invocation.executor()), ACLNN_ERR_PARAM_INVALID);
}

TEST_P(Phase2ErrorsTest, RepeatableOnConsumedExecutorIsInvalidAndRevivesNothing) {
  Invocation invocation(op(), Call{});
  Prepare(&invocation);
  ASSERT_EQ(invocation.Phase2(invocation.workspace_size()), ACLNN_SUCCESS) << RecentMessage();
  invocation.Resnapshot();
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(invocation.executor()), ACLNN_ERR_PARAM_INVALID);
  const std::string message = RecentMessage();
  EXPECT_NE(message.find("aclSetAclOpExecutorRepeatable"), std::string::npos) << message;
  EXPECT_NE(message.find("consumed"), std::string::npos) << message;
  const aclnnStatus status = invocation.Phase2(invocation.workspace_size());
  ExpectFailure(op(), invocation, status, ACLNN_ERR_PARAM_INVALID, {"executor", "consumed"});
}

TEST_P(Phase2ErrorsTest, ExecutorOfTheOtherOperatorIsInvalid) {
  Invocation invocation(Other(op()), Call{});
  Prepare(&invocation);
  // Phase 2 of this operator with an executor made by the other one.
  const aclnnStatus status = invocation.Phase2With(op(), invocation.workspace_size());
  ExpectFailure(op(), invocation, status, ACLNN_ERR_PARAM_INVALID,
                {"executor", std::string("one made by ") + Other(op()).name});
}

// ---------------------------------------------------------------------------------------------
// 3.2 and 3.3 (bilinear's and bicubic AA's own rows) as the flags of the operator table's rows
// state them, for every backward row the flag applies to: formats, empty problems, negative
// scales and the upscaling limit. (forward_errors_test's RowFlags check the flags' statuses for
// all rows; these check the messages and that nothing is written.)

// NHWC: views are (N, H, W, C) and inputSize is {N, H, W, C}.
Call NhwcCall() {
  Call call;
  call.grad = Spec({1, 4, 4, 3}, {}, ACL_FLOAT, ACL_FORMAT_NHWC);
  call.out = Spec({1, 2, 2, 3}, {}, ACL_FLOAT, ACL_FORMAT_NHWC);
  call.input_size = {1, 2, 2, 3};
  return call;
}

// "<source> <what>", e.g. "gradOut format".
std::string Named(const OperatorApi& op, const std::string& what) {
  return std::string(op.source_name) + " " + what;
}

TEST(FormatRowsTest, FormatsTheRowDoesNotAcceptAreInvalid) {
  for (const OperatorApi* op : BackwardOperators()) {
    SCOPED_TRACE(op->name);
    if (!op->accepts_nd) {
      Call call;
      call.grad.format = ACL_FORMAT_ND;
      call.out.format = ACL_FORMAT_ND;
      ExpectPhase1Failure(*op, call, ACLNN_ERR_PARAM_INVALID,
                          {Named(*op, "format"), support::AcceptedFormats(*op), "got ND"});
    }
    if (!op->accepts_nhwc) {
      Call call = NhwcCall();
      ExpectPhase1Failure(*op, call, ACLNN_ERR_PARAM_INVALID,
                          {Named(*op, "format"), support::AcceptedFormats(*op), "got NHWC"});
    }
    Call unknown;
    unknown.out.format = static_cast<aclFormat>(3);
    ExpectPhase1Failure(*op, unknown, ACLNN_ERR_PARAM_INVALID, {Result(*op, "format"), "format 3"});
  }
}

TEST(FormatRowsTest, FormatsTheRowAcceptsAreValid) {
  for (const OperatorApi* op : BackwardOperators()) {
    SCOPED_TRACE(op->name);
    if (op->accepts_nd) {
      Call call;
      call.grad.format = ACL_FORMAT_ND;
      call.out.format = ACL_FORMAT_ND;
      ExpectSuccessfulRun(*op, call);
    }
    if (op->accepts_nhwc) ExpectSuccessfulRun(*op, NhwcCall());
  }
}

TEST(FormatRowsTest, NhwcShapesInNchwOrderAreInvalid) {
  for (const OperatorApi* op : BackwardOperators()) {
    if (!op->accepts_nhwc) continue;
    SCOPED_TRACE(op->name);
    Call grad_call = NhwcCall();
    grad_call.grad.dims = {1, 3, 4, 4};
    ExpectPhase1Failure(*op, grad_call, ACLNN_ERR_PARAM_INVALID,
                        {Named(*op, "shape"), "[1, 4, 4, 3]", "[1, 3, 4, 4]"});
    Call out_call = NhwcCall();
    out_call.out.dims = {1, 3, 2, 2};
    ExpectPhase1Failure(*op, out_call, ACLNN_ERR_PARAM_INVALID,
                        {Result(*op, "shape"), "[1, 2, 2, 3]", "[1, 3, 2, 2]"});
  }
}

// NHWC's H is inputSize[1]: zero there is an invalid H, not an empty C (which is what
// inputSize[1] means in NCHW), even when N is zero too.
TEST(FormatRowsTest, NhwcZeroHeightIsInvalid) {
  for (const OperatorApi* op : BackwardOperators()) {
    if (!op->accepts_nhwc) continue;
    SCOPED_TRACE(op->name);
    for (int64_t batch : {1, 0}) {
      Call call = NhwcCall();
      call.grad.dims = {batch, 4, 4, 3};
      call.out.dims = {batch, 0, 2, 3};
      call.input_size = {batch, 0, 2, 3};
      ExpectPhase1Failure(*op, call, ACLNN_ERR_PARAM_INVALID, {"inputSize[1] (H)", "got 0"});
      Call output_call = NhwcCall();
      output_call.grad.dims = {batch, 0, 4, 3};
      output_call.out.dims = {batch, 2, 2, 3};
      output_call.input_size = {batch, 2, 2, 3};
      output_call.output_size = {0, 4};
      ExpectPhase1Failure(*op, output_call, ACLNN_ERR_PARAM_INVALID, {"outputSize[0]", "got 0"});
    }
  }
}

// An empty problem (N or C zero) in each format the row accepts: dims in the format's axis order.
Call EmptyCall(aclFormat format, int64_t batch, int64_t channels) {
  Call call = format == ACL_FORMAT_NHWC ? NhwcCall() : Call();
  if (format == ACL_FORMAT_NHWC) {
    call.grad.dims = {batch, 4, 4, channels};
    call.out.dims = {batch, 2, 2, channels};
    call.input_size = {batch, 2, 2, channels};
  } else {
    call.grad.dims = {batch, channels, 4, 4};
    call.out.dims = {batch, channels, 2, 2};
    call.input_size = {batch, channels, 2, 2};
    call.grad.format = call.out.format = format;
  }
  return call;
}

TEST(EmptyRowsTest, EmptyBatchOrChannelsFollowTheRowsFlag) {
  for (const OperatorApi* op : BackwardOperators()) {
    std::vector<aclFormat> formats = {ACL_FORMAT_NCHW};
    if (op->accepts_nhwc) formats.push_back(ACL_FORMAT_NHWC);
    if (op->accepts_nd) formats.push_back(ACL_FORMAT_ND);
    for (aclFormat format : formats) {
      for (const auto& [batch, channels] : {std::pair<int64_t, int64_t>{0, 3}, {1, 0}, {0, 0}}) {
        SCOPED_TRACE(std::string(op->name) + " format " + std::to_string(format) +
                     ", N = " + std::to_string(batch) + ", C = " + std::to_string(channels));
        Call call = EmptyCall(format, batch, channels);
        if (!op->accepts_empty) {
          ExpectPhase1Failure(
              *op, call, ACLNN_ERR_PARAM_INVALID,
              {Named(*op, "shape"), "zero dimension", batch == 0 ? "N = 0" : "C = 0"});
          continue;
        }
        // Empty tensors need no data: the null-data rule is for non-empty tensors only.
        call.grad.null_data = true;
        call.out.null_data = true;
        Invocation invocation(*op, call);
        ASSERT_EQ(invocation.Phase1(), ACLNN_SUCCESS) << RecentMessage();
        EXPECT_EQ(invocation.workspace_size(), 0u);
        EXPECT_EQ(invocation.Phase2(0, /*null_workspace=*/true), ACLNN_SUCCESS) << RecentMessage();
      }
    }
  }
}

TEST(ScaleRowsTest, NegativeScalesFollowTheRowsFlag) {
  for (const OperatorApi* op : BackwardOperators()) {
    SCOPED_TRACE(op->name);
    if (!op->rejects_negative_scales) {
      Call call;
      call.scales_h = -1.0;
      call.scales_w = -2.5;
      ExpectSuccessfulRun(*op, call);
      continue;
    }
    Call on_h;
    on_h.scales_h = -1.0;
    ExpectPhase1Failure(*op, on_h, ACLNN_ERR_PARAM_INVALID, {"scalesH", ">= 0", "got -1"});
    Call on_w;
    on_w.scales_w = -0.5;
    ExpectPhase1Failure(*op, on_w, ACLNN_ERR_PARAM_INVALID, {"scalesW", ">= 0", "got -0.5"});
  }
}

Call UpscaleCall(int64_t in_h, int64_t out_h) {
  Call call;
  call.grad.dims = {1, 1, out_h, 4};
  call.output_size = {out_h, 4};
  call.input_size = {1, 1, in_h, 2};
  call.out.dims = {1, 1, in_h, 2};
  return call;
}

// The rows with an upscaling limit L (ratio in/out >= 1/L per axis).
std::vector<const OperatorApi*> LimitedRows() {
  std::vector<const OperatorApi*> rows;
  for (const OperatorApi* op : BackwardOperators()) {
    if (op->max_upscale > 0) rows.push_back(op);
  }
  EXPECT_FALSE(rows.empty()) << "no backward row has an upscaling limit";
  return rows;
}

TEST(UpscaleRowsTest, BeyondTheLimitBySizesIsInvalid) {
  for (const OperatorApi* op : LimitedRows()) {
    SCOPED_TRACE(op->name);
    const int64_t beyond = static_cast<int64_t>(2 * op->max_upscale) + 1;  // r = 2 / (2L + 1)
    ExpectPhase1Failure(*op, UpscaleCall(2, beyond), ACLNN_ERR_PARAM_INVALID,
                        {"upscaling factor of axis H", "outputSize " + std::to_string(beyond)});
  }
}

TEST(UpscaleRowsTest, BeyondTheLimitByScalesIsInvalid) {
  for (const OperatorApi* op : LimitedRows()) {
    SCOPED_TRACE(op->name);
    // The sizes are a plain 2x upsample, but a given scale decides: r = 1 / (L + 1).
    Call call;
    call.scales_w = op->max_upscale + 1;
    ExpectPhase1Failure(*op, call, ACLNN_ERR_PARAM_INVALID, {"upscaling factor of axis W"});
  }
}

TEST(UpscaleRowsTest, UpscaleOfExactlyTheLimitIsValid) {
  for (const OperatorApi* op : LimitedRows()) {
    SCOPED_TRACE(op->name);
    ExpectSuccessfulRun(*op, UpscaleCall(2, static_cast<int64_t>(2 * op->max_upscale)));
    Call by_scales;
    by_scales.scales_h = op->max_upscale;  // r = 1 / L: on the limit, whatever the sizes say
    ExpectSuccessfulRun(*op, by_scales);
  }
}

// Contract 3.3: a given scale, not the sizes, decides the limit. Sizes of 2 -> 2L + 1 (beyond
// the limit) pass with scales L and the double below it, and fail with the double above L, on
// either axis.
TEST(UpscaleRowsTest, BeyondTheLimitBySizesFollowsTheScaleAtItsBoundary) {
  for (const OperatorApi* op : LimitedRows()) {
    const double limit = op->max_upscale;
    const int64_t beyond = static_cast<int64_t>(2 * limit) + 1;
    const double above = std::nextafter(limit, 2 * limit);
    for (bool on_h : {true, false}) {
      SCOPED_TRACE(std::string(op->name) + (on_h ? " H" : " W"));
      Call call = UpscaleCall(2, beyond);
      if (!on_h) {
        call.grad.dims = {1, 1, 4, beyond};
        call.output_size = {4, beyond};
        call.input_size = {1, 1, 2, 2};
        call.out.dims = {1, 1, 2, 2};
      }
      double& scale = on_h ? call.scales_h : call.scales_w;
      for (double usable : {limit, std::nextafter(limit, 0.0)}) {
        scale = usable;
        ExpectSuccessfulRun(*op, call);
      }
      scale = above;
      char above_text[32];
      std::snprintf(above_text, sizeof(above_text), "scales %.17g", above);
      ExpectPhase1Failure(*op, call, ACLNN_ERR_PARAM_INVALID,
                          {std::string("upscaling factor of axis ") + (on_h ? "H" : "W"),
                           "outputSize " + std::to_string(beyond), above_text});
    }
  }
}

TEST(UpscaleRowsTest, LargeDownscaleIsValid) {
  // Downsampling has no limit: the filter widens instead.
  for (const OperatorApi* op : BackwardOperators()) {
    SCOPED_TRACE(op->name);
    ExpectSuccessfulRun(*op, UpscaleCall(400, 4));
  }
}

// ---------------------------------------------------------------------------------------------
// aclGetRecentErrMsg(): per thread, persistent until the next failure.

TEST(RecentErrorMessageTest, PersistsAcrossReadsAndSuccesses) {
  Call bad;
  bad.output_size = {0, 4};
  Invocation failing(kBilinear, bad);
  ASSERT_EQ(failing.Phase1(), ACLNN_ERR_PARAM_INVALID);
  const std::string first = RecentMessage();
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(RecentMessage(), first) << "reading the message must not clear it";

  ExpectSuccessfulRun(kBicubic, Call{});
  EXPECT_EQ(RecentMessage(), first) << "a success must not clear the last failure's message";
}

TEST(RecentErrorMessageTest, IsPerThread) {
  // Make sure this thread has a message, so that an empty one elsewhere means "per thread".
  Call bad;
  bad.scales_h = -1.0;
  Invocation failing(kBicubic, bad);
  ASSERT_EQ(failing.Phase1(), ACLNN_ERR_PARAM_INVALID);
  const std::string main_message = RecentMessage();

  std::string before, after;
  std::thread worker([&] {
    before = RecentMessage();
    Call other;
    other.input_size = {1, 1, 2};
    Invocation own(kBilinear, other);
    own.Phase1();
    after = RecentMessage();
  });
  worker.join();
  EXPECT_EQ(before, "") << "a new thread must start without a message";
  EXPECT_NE(after.find("inputSize"), std::string::npos) << after;
  EXPECT_NE(after.find(kBilinear.name), std::string::npos) << after;
  EXPECT_EQ(RecentMessage(), main_message) << "another thread's failure leaked into this one";
}

}  // namespace
