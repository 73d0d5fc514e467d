#include "ops/common/run_operator.h"

#include <memory>
#include <new>
#include <string>
#include <utility>

#include "engine/execute.h"
#include "engine/plan.h"
#include "ops/common/operator_rules.h"
#include "runtime/error.h"
#include "runtime/executor.h"

namespace aclnn_upsample {

namespace {

// Builds both axes' weights and the plan (the matrix itself for a forward operator, its
// transpose for a backward one), registers the executor and reports the workspace. The weights
// are built inside the try too: they are phase 1's largest allocation, and no exception may
// leave the C API.
aclnnStatus PlanOperator(const aclnn_upsample_operator& op, const Problem& problem,
                         AxisBuilder build_axis, const AxisSpec& axis_h, const AxisSpec& axis_w,
                         uint64_t* workspace_size, aclOpExecutor** executor) {
  try {
    auto made = std::make_unique<Executor>();
    made->op_name = op.name;
    const uint64_t traffic = TrafficBytes(problem.source, problem.result, problem.dtype);
    const bool forward = op.direction == ACLNN_UPSAMPLE_FORWARD;
    const auto runs = [&](const AxisSpec& axis) {
      return forward ? AsGather(build_axis(axis)) : Transpose(build_axis(axis));
    };
    made->plan = BuildPlan(problem.dtype, problem.source, problem.result, runs(axis_h),
                           runs(axis_w), ThreadCountFor(traffic));
    const uint64_t bytes = made->plan.schedule.workspace_bytes;
    aclOpExecutor* handle = RegisterExecutor(std::move(made));
    *workspace_size = bytes;
    *executor = handle;
    return ACLNN_SUCCESS;
  } catch (const std::bad_alloc&) {
    return Fail(ACLNN_ERR_INNER, op.name, "plan", "memory for the interpolation weights",
                "out of memory");
  }
}

}  // namespace

aclnnStatus PlanResize(const aclnn_upsample_operator& op, AxisBuilder build_axis,
                       const aclTensor* source, const aclIntArray* output_size,
                       const aclIntArray* input_size, bool align_corners, double scales_h,
                       double scales_w, aclTensor* out, uint64_t* workspace_size,
                       aclOpExecutor** executor) {
  Problem problem;
  aclnnStatus status =
      ValidateCommon(op, source, output_size, input_size, out, workspace_size, executor, &problem);
  if (status != ACLNN_SUCCESS) return status;
  const AxisSpec axis_h =
      AxisAsGiven(op, problem.forward_in_h, problem.forward_out_h, align_corners, scales_h);
  const AxisSpec axis_w =
      AxisAsGiven(op, problem.forward_in_w, problem.forward_out_w, align_corners, scales_w);
  status = CheckOperatorRules(op, problem, axis_h, axis_w);
  if (status != ACLNN_SUCCESS) return status;
  return PlanOperator(op, problem, build_axis, AxisAsUsed(op, axis_h), AxisAsUsed(op, axis_w),
                      workspace_size, executor);
}

aclnnStatus RunOperator(const aclnn_upsample_operator& op, void* workspace, uint64_t workspace_size,
                        aclOpExecutor* handle, aclrtStream /*stream: work runs synchronously*/) {
  if (handle == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR, op.name, "executor", "a non-null executor", "nullptr");
  }
  const std::shared_ptr<const Executor> executor = AcquireExecutorForRun(handle);
  if (executor == nullptr) {
    return Fail(ACLNN_ERR_PARAM_INVALID, op.name, "executor",
                "a live executor returned by the GetWorkspaceSize call",
                "an unknown, destroyed or already consumed handle");
  }
  if (std::string(executor->op_name) != op.name) {
    return Fail(ACLNN_ERR_PARAM_INVALID, op.name, "executor",
                std::string("an executor made by ") + op.name + "GetWorkspaceSize",
                std::string("one made by ") + executor->op_name + "GetWorkspaceSize");
  }
  const Plan& plan = executor->plan;
  if (workspace_size < plan.schedule.workspace_bytes) {
    return Fail(ACLNN_ERR_PARAM_INVALID, op.name, "workspaceSize",
                "at least the " + std::to_string(plan.schedule.workspace_bytes) + " bytes reported",
                std::to_string(workspace_size));
  }
  if (workspace == nullptr && plan.schedule.workspace_bytes > 0) {
    return Fail(ACLNN_ERR_PARAM_INVALID, op.name, "workspace",
                "a buffer of " + std::to_string(plan.schedule.workspace_bytes) + " bytes",
                "nullptr");
  }
  Execute(plan, workspace);
  return ACLNN_SUCCESS;
}

}  // namespace aclnn_upsample
