// Error paths of the forward operators (every forward row of the operator table), one entry per
// check of src/ops/common/validation.cc (#1-#13) and operator_rules.cc (#14-#16), plus phase 2.
// Every failing call is checked three ways: the exact status, a message from
// aclGetRecentErrMsg() that names the operator and the parameter (and the offending value), and
// both tensors' storage left byte for byte as it was. Then, for all rows of the table (forward
// and backward), that each flag of the row is what its operator does: formats, empty problems,
// negative scales, the upscaling limit, the consistent-size rule, and that a row without
// alignCorners or scales gives the same result whatever is passed for them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn_upsample/operators.h"
#include "support/test_tensors.h"

namespace {

constexpr int64_t kBig = (int64_t{1} << 20) + 1;  // the first size over the limit

using support::Invocation;
using support::RecentMessage;
using support::TensorSpec;
using support::ValidCall;
using Call = support::CallSpec;

// In a fragment, "{source}" and "{result}" stand for the row's names of the tensors it reads and
// writes, "{accepted}" for the formats it accepts as its messages list them.
std::string Expand(const std::string& fragment, const aclnn_upsample_operator& op) {
  const std::pair<std::string, std::string> keys[] = {{"{source}", op.source_name},
                                                      {"{result}", op.result_name},
                                                      {"{accepted}", support::AcceptedFormats(op)}};
  std::string text = fragment;
  for (const auto& [key, value] : keys) {
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key)) {
      text.replace(at, key.size(), value);
    }
  }
  return text;
}

void ExpectFailure(const aclnn_upsample_operator& op, const Invocation& invocation,
                   aclnnStatus status, aclnnStatus expected,
                   const std::vector<std::string>& fragments) {
  EXPECT_EQ(status, expected);
  const std::string message = RecentMessage();
  // "<operator>: <parameter>: expected ..., got ...": the operator first, then the parameter.
  EXPECT_EQ(message.rfind(std::string(op.name) + ": ", 0), 0u) << "message: " << message;
  EXPECT_NE(message.find("expected"), std::string::npos) << "message: " << message;
  for (const std::string& fragment : fragments) {
    const std::string wanted = Expand(fragment, op);
    EXPECT_NE(message.find(wanted), std::string::npos)
        << "missing \"" << wanted << "\" in message: " << message;
  }
  EXPECT_TRUE(invocation.Untouched()) << "a failing call wrote to a tensor";
}

std::vector<const aclnn_upsample_operator*> ForwardRows() {
  return support::OperatorsOf(ACLNN_UPSAMPLE_FORWARD);
}

std::vector<const aclnn_upsample_operator*> AllRows() {
  std::vector<const aclnn_upsample_operator*> rows;
  for (size_t i = 0; i < aclnn_upsample_operator_count(); ++i) {
    rows.push_back(aclnn_upsample_operator_at(i));
  }
  return rows;
}

// One error row: how it changes the valid default call (a 2x2 -> 4x4 NCHW FLOAT32 resize),
// which rows of the table it applies to, and what the failure must say.
struct ErrorRow {
  const char* check;
  std::function<bool(const aclnn_upsample_operator&)> applies;
  std::function<void(const aclnn_upsample_operator&, Call*)> change;
  aclnnStatus status;
  std::vector<std::string> fragments;
};

bool Always(const aclnn_upsample_operator&) { return true; }

// A row whose CANN prototype declares the scales float gets the table's double rounded, so a
// subnormal double arrives as 0 (not given) and a float scale whose inverse is finite in double
// passes.
bool ScalesAreFloat(const aclnn_upsample_operator& op) { return op.scales_are_float; }

// The other format the row accepts besides NCHW, and one it does not.
aclFormat AcceptedOtherFormat(const aclnn_upsample_operator& op) {
  return op.accepts_nhwc ? ACL_FORMAT_NHWC : ACL_FORMAT_ND;
}

const std::vector<ErrorRow>& ForwardErrorRows() {
  using Op = aclnn_upsample_operator;
  static const std::vector<ErrorRow> rows = {
      // #1: null handles (a forward signature has no inputSize).
      {"#1 source null",
       Always,
       [](const Op&, Call* c) { c->null_parameter = 0; },
       ACLNN_ERR_PARAM_NULLPTR,
       {": {source}: expected a non-null pointer", "nullptr"}},
      {"#1 outputSize null",
       Always,
       [](const Op&, Call* c) { c->null_parameter = 1; },
       ACLNN_ERR_PARAM_NULLPTR,
       {": outputSize: ", "nullptr"}},
      {"#1 out null",
       Always,
       [](const Op&, Call* c) { c->null_parameter = 2; },
       ACLNN_ERR_PARAM_NULLPTR,
       {": {result}: ", "nullptr"}},
      {"#1 workspaceSize null",
       Always,
       [](const Op&, Call* c) { c->null_parameter = 3; },
       ACLNN_ERR_PARAM_NULLPTR,
       {": workspaceSize: ", "nullptr"}},
      {"#1 executor null",
       Always,
       [](const Op&, Call* c) { c->null_parameter = 4; },
       ACLNN_ERR_PARAM_NULLPTR,
       {": executor: ", "nullptr"}},
      // #2: dtypes supported and equal.
      {"#2 source dtype INT32",
       Always,
       [](const Op&, Call* c) { c->source.dtype = c->out.dtype = ACL_INT32; },
       ACLNN_ERR_PARAM_INVALID,
       {"{source} dtype", "FLOAT32, FLOAT16 or BFLOAT16", "got aclDataType 3"}},
      {"#2 out dtype DOUBLE",
       Always,
       [](const Op&, Call* c) { c->out.dtype = ACL_DOUBLE; },
       ACLNN_ERR_PARAM_INVALID,
       {": {result} dtype", "got aclDataType 11"}},
      {"#2 dtypes differ",
       Always,
       [](const Op&, Call* c) { c->out.dtype = ACL_FLOAT16; },
       ACLNN_ERR_PARAM_INVALID,
       {": {result} dtype", "the dtype of {source} (FLOAT32)", "got FLOAT16"}},
      // #3: formats accepted and equal.
      {"#3 unknown format",
       Always,
       [](const Op&, Call* c) { c->source.format = c->out.format = static_cast<aclFormat>(3); },
       ACLNN_ERR_PARAM_INVALID,
       {"{source} format", "got format 3"}},
      {"#3 NHWC where not accepted",
       [](const Op& op) { return !op.accepts_nhwc; },
       [](const Op&, Call* c) { c->source.format = c->out.format = ACL_FORMAT_NHWC; },
       ACLNN_ERR_PARAM_INVALID,
       {"{source} format", "{accepted}", "got NHWC"}},
      {"#3 ND where not accepted",
       [](const Op& op) { return !op.accepts_nd; },
       [](const Op&, Call* c) { c->source.format = c->out.format = ACL_FORMAT_ND; },
       ACLNN_ERR_PARAM_INVALID,
       {"{source} format", "{accepted}", "got ND"}},
      {"#3 formats differ",
       Always,
       [](const Op& op, Call* c) { c->out.format = AcceptedOtherFormat(op); },
       ACLNN_ERR_PARAM_INVALID,
       {": {result} format", "the format of {source} (NCHW)"}},
      // #4: ranks and array lengths.
      {"#4 source 3-D",
       Always,
       [](const Op&, Call* c) {
         c->source.dims = {1, 2, 2};
       },
       ACLNN_ERR_PARAM_INVALID,
       {": {source}: expected a 4-D tensor", "got 3-D shape [1, 2, 2]"}},
      {"#4 source 5-D",
       Always,
       [](const Op&, Call* c) {
         c->source.dims = {1, 1, 1, 2, 2};
       },
       ACLNN_ERR_PARAM_INVALID,
       {": {source}: expected a 4-D tensor", "got 5-D"}},
      {"#4 out 3-D",
       Always,
       [](const Op&, Call* c) {
         c->out.dims = {1, 4, 4};
       },
       ACLNN_ERR_PARAM_INVALID,
       {": {result}: expected a 4-D tensor", "got 3-D"}},
      {"#4 outputSize 1 element",
       Always,
       [](const Op&, Call* c) { c->output_size = {4}; },
       ACLNN_ERR_PARAM_INVALID,
       {": outputSize: ", "2 elements", "got 1 elements [4]"}},
      {"#4 outputSize 3 elements",
       Always,
       [](const Op&, Call* c) {
         c->output_size = {4, 4, 4};
       },
       ACLNN_ERR_PARAM_INVALID,
       {": outputSize: ", "[4, 4, 4]"}},
      // #5: value ranges of outputSize and of the source's shape (the forward input's sizes).
      {"#5 outputSize 0",
       Always,
       [](const Op&, Call* c) {
         c->output_size = {0, 4};
       },
       ACLNN_ERR_PARAM_INVALID,
       {"outputSize[0]", "[1, 2^20]", "got 0"}},
      {"#5 outputSize over 2^20",
       Always,
       [](const Op&, Call* c) {
         c->output_size = {4, kBig};
       },
       ACLNN_ERR_PARAM_INVALID,
       {"outputSize[1]", "got 1048577"}},
      {"#5 source H 0",
       Always,
       [](const Op&, Call* c) {
         c->source.dims = {1, 1, 0, 2};
       },
       ACLNN_ERR_PARAM_INVALID,
       {"{source} shape[2] (H)", "[1, 2^20]", "got 0"}},
      {"#5 source W over 2^20",
       Always,
       [](const Op&, Call* c) {
         c->source.dims = {1, 1, 2, kBig};
         c->source.storage = {1};
       },
       ACLNN_ERR_PARAM_INVALID,
       {"{source} shape[3] (W)", "got 1048577"}},
      {"#5 source N negative",
       Always,
       [](const Op&, Call* c) {
         c->source.dims = {-1, 1, 2, 2};
       },
       ACLNN_ERR_PARAM_INVALID,
       {"{source} shape[0] (N)", "[0, 2^20]", "got -1"}},
      {"#5 source C over 2^20",
       Always,
       [](const Op&, Call* c) {
         c->source.dims = {1, kBig, 2, 2};
         c->source.storage = {1};
       },
       ACLNN_ERR_PARAM_INVALID,
       {"{source} shape[1] (C)", "got 1048577"}},
      // #6: every dimension of out within [0, 2^20] (the source's are #5's).
      {"#6 out dimension over 2^20",
       Always,
       [](const Op&, Call* c) {
         c->out.dims = {1, 1, 4, kBig};
         c->out.storage = {4};
       },
       ACLNN_ERR_PARAM_INVALID,
       {": {result} shape", "[0, 2^20]", "1048577"}},
      {"#6 out dimension negative",
       Always,
       [](const Op&, Call* c) {
         c->out.dims = {1, 1, -4, 4};
       },
       ACLNN_ERR_PARAM_INVALID,
       {": {result} shape", "[1, 1, -4, 4]"}},
      // #7: out is {N, C, outputSize}.
      {"#7 out W not outputSize",
       Always,
       [](const Op&, Call* c) {
         c->out.dims = {1, 1, 4, 5};
       },
       ACLNN_ERR_PARAM_INVALID,
       {": {result} shape", "[1, 1, 4, 4]", "{source}'s N, C and outputSize", "got [1, 1, 4, 5]"}},
      {"#7 out N not the source's",
       Always,
       [](const Op&, Call* c) {
         c->out.dims = {2, 1, 4, 4};
       },
       ACLNN_ERR_PARAM_INVALID,
       {": {result} shape", "[1, 1, 4, 4]", "got [2, 1, 4, 4]"}},
      // #8: size limits from the metadata alone (one element of storage: never reached).
      {"#8 N * C * H_out 2^31",
       Always,
       [](const Op&, Call* c) {
         c->source = TensorSpec{{2048, 1024, 1, 1}, {}, 0, {1}};
         c->out = TensorSpec{{2048, 1024, 1024, 1}, {}, 0, {1}};
         c->output_size = {1024, 1};
       },
       ACLNN_ERR_PARAM_INVALID,
       {"N * C * H_out", "< 2^31", "= 2147483648"}},
      {"#8 footprint 60 GiB",
       Always,
       [](const Op&, Call* c) {
         c->source = TensorSpec{{1, 1, 65536, 81920}, {}, 0, {1}};
         c->out = TensorSpec{{1, 1, 65536, 81920}, {}, 0, {1}};
         c->output_size = {65536, 81920};
       },
       ACLNN_ERR_PARAM_INVALID,
       {"memory footprint", "60 GiB", "got 64424509440 bytes"}},
      // #9: non-negative strides.
      {"#9 source negative stride",
       Always,
       [](const Op&, Call* c) {
         c->source.strides = {4, 4, 2, -1};
         c->source.offset = 1;
       },
       ACLNN_ERR_PARAM_INVALID,
       {"{source} strides", "non-negative", "[4, 4, 2, -1]"}},
      {"#9 out negative stride",
       Always,
       [](const Op&, Call* c) {
         c->out.strides = {16, 16, -4, 1};
         c->out.offset = 12;
       },
       ACLNN_ERR_PARAM_INVALID,
       {": {result} strides", "[16, 16, -4, 1]"}},
      // #10: the view inside its storage.
      {"#10 out negative offset",
       Always,
       [](const Op&, Call* c) { c->out.offset = -1; },
       ACLNN_ERR_PARAM_INVALID,
       {": {result} offset", "non-negative", "got -1"}},
      {"#10 out offset beyond storage",
       Always,
       [](const Op&, Call* c) { c->out.offset = 1; },
       ACLNN_ERR_PARAM_INVALID,
       {": {result} view", "16 elements", "offset 1", "element 16"}},
      {"#10 source strides beyond storage",
       Always,
       [](const Op&, Call* c) {
         c->source.strides = {8, 8, 4, 1};
       },
       ACLNN_ERR_PARAM_INVALID,
       {"{source} view", "[8, 8, 4, 1]", "element 5"}},
      // Storage larger than any process can address (2^56 bytes) is metadata only.
      {"#10 source beyond addressable memory",
       Always,
       [](const Op&, Call* c) {
         c->source.strides = {8, 8, int64_t{1} << 54, 1};
         c->source.storage = {int64_t{1} << 55};
       },
       ACLNN_ERR_PARAM_INVALID,
       {"{source} view", "addressable", "18014398509481985"}},
      {"#10 source negative storageDims",
       Always,
       [](const Op&, Call* c) { c->source.storage = {-4}; },
       ACLNN_ERR_PARAM_INVALID,
       {"{source} storageDims", "[-4]"}},
      // #11: one address per element of out.
      {"#11 out zero stride",
       Always,
       [](const Op&, Call* c) {
         c->out.strides = {16, 16, 4, 0};
       },
       ACLNN_ERR_PARAM_INVALID,
       {": {result} strides", "own address", "[16, 16, 4, 0]"}},
      {"#11 out overlapping strides",
       Always,
       [](const Op&, Call* c) {
         c->out.strides = {16, 16, 1, 1};
       },
       ACLNN_ERR_PARAM_INVALID,
       {": {result} strides", "share an address"}},
      // #12: data pointers of non-empty tensors.
      {"#12 source data null",
       Always,
       [](const Op&, Call* c) { c->source.null_data = true; },
       ACLNN_ERR_PARAM_NULLPTR,
       {"{source} data", "got nullptr"}},
      {"#12 out data null",
       Always,
       [](const Op&, Call* c) { c->out.null_data = true; },
       ACLNN_ERR_PARAM_NULLPTR,
       {": {result} data", "got nullptr"}},
      // #13: no overlap between the two tensors' spans.
      {"#13 source inside out",
       Always,
       [](const Op&, Call* c) { c->source_inside_out_at = 2; },
       ACLNN_ERR_PARAM_INVALID,
       {": {result} memory", "no overlap with {source}"}},
      {"#13 out inside source",
       Always,
       [](const Op&, Call* c) { c->out_inside_source_at = 1; },
       ACLNN_ERR_PARAM_INVALID,
       {": {result} memory", "no overlap with {source}"}},
      // #14: empty problems where the row does not accept them.
      {"#14 N 0",
       [](const Op& op) { return !op.accepts_empty; },
       [](const Op&, Call* c) { c->source.dims[0] = c->out.dims[0] = 0; },
       ACLNN_ERR_PARAM_INVALID,
       {"{source} shape", "empty tensors are not supported", "N = 0"}},
      {"#14 C 0",
       [](const Op& op) { return !op.accepts_empty; },
       [](const Op&, Call* c) { c->source.dims[1] = c->out.dims[1] = 0; },
       ACLNN_ERR_PARAM_INVALID,
       {"{source} shape", "C = 0"}},
      // #15: negative scales where the row rejects them.
      {"#15 scalesH negative",
       [](const Op& op) { return op.rejects_negative_scales; },
       [](const Op&, Call* c) { c->scales_h = -2.0; },
       ACLNN_ERR_PARAM_INVALID,
       {": scalesH: ", ">= 0", "got -2"}},
      {"#15 scalesW negative",
       [](const Op& op) { return op.rejects_negative_scales; },
       [](const Op&, Call* c) { c->scales_w = -0.5; },
       ACLNN_ERR_PARAM_INVALID,
       {": scalesW: ", "got -0.5"}},
      // #16: where every positive scale is used, a finite ratio within the upscaling limit.
      {"#16 scale with an infinite inverse",
       [](const Op& op) {
         return op.takes_scales && !op.scales_need_consistent_size && !ScalesAreFloat(op);
       },
       [](const Op&, Call* c) { c->scales_w = 1e-320; },
       ACLNN_ERR_PARAM_INVALID,
       {": scalesW: ", "inverse is finite", "got 9.9998886718268301e-321"}},
      {"#16 sizes beyond the upscaling limit",
       [](const Op& op) { return op.max_upscale > 0; },
       [](const Op& op, Call* c) {
         const int64_t out_h = static_cast<int64_t>(2 * op.max_upscale) + 1;
         c->output_size[0] = out_h;
         c->out.dims[2] = out_h;
       },
       ACLNN_ERR_PARAM_INVALID,
       {"upscaling factor of axis H", "{source} size 2"}},
      {"#16 scale beyond the upscaling limit",
       [](const Op& op) {
         return op.takes_scales && !op.scales_need_consistent_size && op.max_upscale > 0;
       },
       [](const Op& op, Call* c) { c->scales_w = op.max_upscale * 1.01; },
       ACLNN_ERR_PARAM_INVALID,
       {"upscaling factor of axis W", "outputSize 4"}},
  };
  return rows;
}

TEST(ForwardErrors, DefaultCallIsValid) {
  // Every row below changes one thing of this call, so it must succeed on its own.
  for (const aclnn_upsample_operator* op : ForwardRows()) {
    Invocation invocation(*op, ValidCall(*op));
    ASSERT_EQ(invocation.Phase1(), ACLNN_SUCCESS) << op->name << ": " << RecentMessage();
    EXPECT_EQ(invocation.Phase2(invocation.workspace_size()), ACLNN_SUCCESS) << RecentMessage();
  }
}

TEST(ForwardErrors, EveryRowOfEveryForwardOperator) {
  for (const aclnn_upsample_operator* op : ForwardRows()) {
    int applied = 0;
    for (const ErrorRow& row : ForwardErrorRows()) {
      if (!row.applies(*op)) continue;
      ++applied;
      SCOPED_TRACE(std::string(op->name) + ", " + row.check);
      Call call = ValidCall(*op);
      row.change(*op, &call);
      Invocation invocation(*op, call);
      const aclnnStatus status = invocation.Phase1();
      ExpectFailure(*op, invocation, status, row.status, row.fragments);
      EXPECT_EQ(invocation.executor(), nullptr) << "a failing phase 1 handed out an executor";
    }
    EXPECT_GE(applied, 40) << op->name;
  }
}

// A forward signature has no inputSize: the table's uniform phase 1 ignores whatever is passed.
TEST(ForwardErrors, TableEntryIgnoresInputSize) {
  for (const aclnn_upsample_operator* op : ForwardRows()) {
    const Call call = ValidCall(*op);
    const int64_t nonsense[] = {-7};
    aclIntArray* input_size = aclCreateIntArray(nonsense, 1);
    std::vector<float> source(4, 1.0f), out(16, 0.0f);
    aclTensor* source_tensor =
        aclCreateTensor(call.source.dims.data(), 4, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCHW,
                        call.source.dims.data(), 4, source.data());
    aclTensor* out_tensor = aclCreateTensor(call.out.dims.data(), 4, ACL_FLOAT, nullptr, 0,
                                            ACL_FORMAT_NCHW, call.out.dims.data(), 4, out.data());
    aclIntArray* output_size = aclCreateIntArray(call.output_size.data(), 2);
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    EXPECT_EQ(op->get_workspace_size(source_tensor, output_size, input_size, false, 0, 0,
                                     out_tensor, &workspace_size, &executor),
              ACLNN_SUCCESS)
        << op->name << ": " << RecentMessage();
    if (executor != nullptr) aclDestroyAclOpExecutor(executor);
    aclDestroyTensor(source_tensor);
    aclDestroyTensor(out_tensor);
    aclDestroyIntArray(output_size);
    aclDestroyIntArray(input_size);
  }
}

// Phase 2: the executor and workspace rules of run_operator.cc, for each forward row.
TEST(ForwardErrors, Phase2Rows) {
  for (const aclnn_upsample_operator* op : ForwardRows()) {
    SCOPED_TRACE(op->name);
    {
      Invocation invocation(*op, ValidCall(*op));
      ASSERT_EQ(invocation.Phase1(), ACLNN_SUCCESS) << RecentMessage();
      std::vector<uint8_t> workspace(invocation.workspace_size() + 1);
      const aclnnStatus status = op->run(workspace.data(), workspace.size(), nullptr, nullptr);
      ExpectFailure(*op, invocation, status, ACLNN_ERR_PARAM_NULLPTR, {": executor: ", "nullptr"});
    }
    {
      // An executor from the backward operator's phase 1, run by the forward's phase 2.
      const aclnn_upsample_operator* adjoint = aclnn_upsample_adjoint_operator(op);
      ASSERT_NE(adjoint, nullptr);
      Invocation invocation(*adjoint, ValidCall(*adjoint));
      ASSERT_EQ(invocation.Phase1(), ACLNN_SUCCESS) << RecentMessage();
      const aclnnStatus status = invocation.Phase2(invocation.workspace_size(), false, op);
      ExpectFailure(*op, invocation, status, ACLNN_ERR_PARAM_INVALID,
                    {": executor: ", std::string("one made by ") + adjoint->name});
    }
    {
      Invocation invocation(*op, ValidCall(*op, ACL_FORMAT_NCHW, 1, 1, 20, 30, 41, 17));
      ASSERT_EQ(invocation.Phase1(), ACLNN_SUCCESS) << RecentMessage();
      const uint64_t reported = invocation.workspace_size();
      ASSERT_GT(reported, 0u) << "a plan without workspace cannot show the workspace rules";
      ExpectFailure(
          *op, invocation, invocation.Phase2(reported - 1), ACLNN_ERR_PARAM_INVALID,
          {": workspaceSize: ", std::to_string(reported), "got " + std::to_string(reported - 1)});
    }
    {
      Invocation invocation(*op, ValidCall(*op, ACL_FORMAT_NCHW, 1, 1, 20, 30, 41, 17));
      ASSERT_EQ(invocation.Phase1(), ACLNN_SUCCESS) << RecentMessage();
      ExpectFailure(*op, invocation, invocation.Phase2(invocation.workspace_size(), true),
                    ACLNN_ERR_PARAM_INVALID, {": workspace: ", "got nullptr"});
    }
    {
      // Executors are single-use: a second run of the same handle is refused.
      Invocation invocation(*op, ValidCall(*op));
      ASSERT_EQ(invocation.Phase1(), ACLNN_SUCCESS) << RecentMessage();
      std::vector<uint8_t> workspace(invocation.workspace_size() + 1);
      ASSERT_EQ(op->run(workspace.data(), workspace.size(), invocation.executor(), nullptr),
                ACLNN_SUCCESS);
      const aclnnStatus status = invocation.Phase2(invocation.workspace_size());
      EXPECT_EQ(status, ACLNN_ERR_PARAM_INVALID);
      EXPECT_NE(RecentMessage().find("already consumed"), std::string::npos) << RecentMessage();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Each flag of each row (forward and backward) against what its operator does.

aclnnStatus Phase1Status(const aclnn_upsample_operator& op, const Call& call) {
  Invocation invocation(op, call);
  return invocation.Phase1();
}

TEST(RowFlags, FormatsMatchWhatTheOperatorAccepts) {
  for (const aclnn_upsample_operator* op : AllRows()) {
    SCOPED_TRACE(op->name);
    EXPECT_EQ(Phase1Status(*op, ValidCall(*op, ACL_FORMAT_NCHW, 1, 3, 2, 5, 4, 7)), ACLNN_SUCCESS)
        << RecentMessage();
    EXPECT_EQ(Phase1Status(*op, ValidCall(*op, ACL_FORMAT_NHWC, 1, 3, 2, 5, 4, 7)) == ACLNN_SUCCESS,
              op->accepts_nhwc)
        << RecentMessage();
    EXPECT_EQ(Phase1Status(*op, ValidCall(*op, ACL_FORMAT_ND, 1, 3, 2, 5, 4, 7)) == ACLNN_SUCCESS,
              op->accepts_nd)
        << RecentMessage();
  }
}

TEST(RowFlags, EmptyProblemsMatchAcceptsEmpty) {
  for (const aclnn_upsample_operator* op : AllRows()) {
    for (const auto& [n, c] : {std::pair<int64_t, int64_t>{0, 3}, {2, 0}}) {
      Invocation invocation(*op, ValidCall(*op, ACL_FORMAT_NCHW, n, c));
      const aclnnStatus status = invocation.Phase1();
      EXPECT_EQ(status == ACLNN_SUCCESS, op->accepts_empty) << op->name << ": " << RecentMessage();
      if (status == ACLNN_SUCCESS) {
        EXPECT_EQ(invocation.Phase2(invocation.workspace_size()), ACLNN_SUCCESS);
      }
      EXPECT_TRUE(invocation.Untouched()) << op->name;
    }
  }
}

TEST(RowFlags, NegativeScalesMatchRejectsNegativeScales) {
  for (const aclnn_upsample_operator* op : AllRows()) {
    for (bool on_h : {true, false}) {
      Call call = ValidCall(*op);
      (on_h ? call.scales_h : call.scales_w) = -2.0;
      EXPECT_EQ(Phase1Status(*op, call) == ACLNN_ERR_PARAM_INVALID, op->rejects_negative_scales)
          << op->name << ": " << RecentMessage();
    }
  }
}

TEST(RowFlags, MaxUpscaleIsTheExactLimit) {
  for (const aclnn_upsample_operator* op : AllRows()) {
    SCOPED_TRACE(op->name);
    // With no limit, 1 -> 2^20 (a ratio below any limit one could state) is accepted.
    const double limit = op->max_upscale > 0 ? op->max_upscale : double(int64_t{1} << 20);
    const int64_t at_limit = static_cast<int64_t>(2 * limit);
    const int64_t in = op->max_upscale > 0 ? 2 : 1;
    const int64_t largest = op->max_upscale > 0 ? at_limit : (int64_t{1} << 20);
    EXPECT_EQ(Phase1Status(*op, ValidCall(*op, ACL_FORMAT_NCHW, 1, 1, in, 2, largest, 4)),
              ACLNN_SUCCESS)
        << RecentMessage();
    if (op->max_upscale > 0) {
      EXPECT_EQ(Phase1Status(*op, ValidCall(*op, ACL_FORMAT_NCHW, 1, 1, 2, 2, at_limit + 1, 4)),
                ACLNN_ERR_PARAM_INVALID);
      EXPECT_NE(RecentMessage().find("upscaling factor"), std::string::npos) << RecentMessage();
    }
  }
}

// The values of one run of the row on a 5 x 3 -> out_h x 5 resize (C = 2) with the given
// alignCorners and scales, or empty if it failed (which fails the test).
std::vector<uint8_t> ResultBits(const aclnn_upsample_operator& op, int64_t out_h, bool align,
                                double scales_h, double scales_w) {
  const reference::Case c = support::RowCase(op, 5, 3, out_h, 5, align, scales_h, scales_w, 1, 2);
  const bool forward = op.direction == ACLNN_UPSAMPLE_FORWARD;
  const std::vector<double> source =
      support::RandomValues(forward ? c.result_elements() : c.grad_elements(), 5);
  const support::RunOutput run = support::RunOperator(op, c, source, support::RunOptions{});
  EXPECT_EQ(run.status, ACLNN_SUCCESS) << op.name << " " << c.Name() << ": " << run.message;
  return run.status == ACLNN_SUCCESS ? run.raw_bits : std::vector<uint8_t>{};
}

// Whether the reference's results of the row for two parameter sets are further apart than the
// tolerance somewhere: a comparison of library results can only show a flag where they are.
bool ReferenceTellsApart(const aclnn_upsample_operator& op, const reference::Case& a,
                         const reference::Case& b) {
  const bool forward = op.direction == ACLNN_UPSAMPLE_FORWARD;
  const std::vector<double> source =
      support::RandomValues(forward ? a.result_elements() : a.grad_elements(), 5);
  std::vector<double> ya, ma, yb, mb;
  if (forward) {
    reference::Forward(a, source, &ya, &ma);
    reference::Forward(b, source, &yb, &mb);
  } else {
    reference::Backward(a, source, &ya, &ma);
    reference::Backward(b, source, &yb, &mb);
  }
  for (size_t i = 0; i < ya.size(); ++i) {
    if (!support::WithinTolerance(ACL_FLOAT, yb[i], ya[i], ma[i])) return true;
  }
  return false;
}

// takes_align_corners: a row with the parameter computes another problem when it is true (5 ->
// 8 on H, 3 -> 5 on W), one without (the nearest family) gives the same bits whatever is passed.
TEST(RowFlags, AlignCornersMatchesTakesAlignCorners) {
  for (const aclnn_upsample_operator* op : AllRows()) {
    SCOPED_TRACE(op->name);
    const reference::Case plain = support::ForRow(*op, support::RowCase(*op, 5, 3, 8, 5, false));
    reference::Case aligned = plain;
    aligned.align_corners = true;
    // (A mode without the parameter has no aligned reading to tell apart.)
    if (op->takes_align_corners) {
      ASSERT_TRUE(ReferenceTellsApart(*op, plain, aligned)) << "the case cannot show the flag";
    }
    const bool same = ResultBits(*op, 8, true, 0, 0) == ResultBits(*op, 8, false, 0, 0);
    EXPECT_EQ(same, !op->takes_align_corners);
    if (!op->takes_align_corners) {
      // Nor does alignCorners switch scales off where there is none to switch.
      EXPECT_EQ(ResultBits(*op, 8, true, 1.75, 0), ResultBits(*op, 8, false, 1.75, 0));
    }
  }
}

// takes_scales: a row with scales uses a consistent scale that changes the result (5 -> 8 with
// 1.75: 1/1.75 differs from 5/8 enough to move nearest indices), one without gives the same bits
// whatever is passed, negative, subnormal or huge, and refuses none of them.
TEST(RowFlags, ScalesMatchTakesScales) {
  for (const aclnn_upsample_operator* op : AllRows()) {
    SCOPED_TRACE(op->name);
    const reference::Case plain = support::ForRow(*op, support::RowCase(*op, 5, 3, 8, 5, false));
    reference::Case scaled = plain;
    scaled.scales_h = 1.75;
    ASSERT_TRUE(ReferenceTellsApart(*op, plain, scaled)) << "the case cannot show the flag";
    const std::vector<uint8_t> without = ResultBits(*op, 8, false, 0, 0);
    EXPECT_EQ(ResultBits(*op, 8, false, 1.75, 0) == without, !op->takes_scales);
    if (op->takes_scales) continue;
    for (double scale : {-2.0, 1e-320, 1e6, 0.5}) {
      EXPECT_EQ(ResultBits(*op, 8, false, scale, scale), without) << "scales " << scale;
    }
  }
}

// scales_need_consistent_size: whether a scale inconsistent with outputSize (5 -> 9 with 1.75,
// floor(8.75) = 8) is used. Observable only in the values: the result equals the one without
// scales exactly when the row ignores it. A consistent scale (5 -> 8 with 1.75) changes the
// result for every row that takes scales (ScalesMatchTakesScales), which shows the comparison
// can tell.
TEST(RowFlags, ConsistentSizeRuleMatchesScalesNeedConsistentSize) {
  for (const aclnn_upsample_operator* op : AllRows()) {
    if (!op->takes_scales) continue;  // nothing to read: ScalesMatchTakesScales
    SCOPED_TRACE(op->name);
    const reference::Case plain = support::ForRow(*op, support::RowCase(*op, 5, 3, 9, 5, false));
    reference::Case as_given = plain;
    as_given.scales_h = 1.75;
    as_given.scale_rule = reference::ScaleRule::kAsGiven;
    ASSERT_TRUE(ReferenceTellsApart(*op, plain, as_given)) << "the case cannot show the flag";
    EXPECT_EQ(ResultBits(*op, 9, false, 1.75, 0) == ResultBits(*op, 9, false, 0, 0),
              op->scales_need_consistent_size);
    // A subnormal scale has an infinite inverse: refused where scales are used as given, ignored
    // (so accepted) where they must be consistent with outputSize, and 0 (not given) once a row
    // with float scales has rounded it.
    Call call = ValidCall(*op);
    call.scales_h = 1e-320;
    EXPECT_EQ(Phase1Status(*op, call) == ACLNN_SUCCESS,
              op->scales_need_consistent_size || ScalesAreFloat(*op))
        << RecentMessage();
  }
}

}  // namespace
