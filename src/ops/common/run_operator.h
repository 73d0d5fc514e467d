// The two halves every operator shares once its own rules have run: turning validated axes
// into a registered executor (phase 1), and running an executor (phase 2).
#ifndef ACLNN_UPSAMPLE_OPS_COMMON_RUN_OPERATOR_H_
#define ACLNN_UPSAMPLE_OPS_COMMON_RUN_OPERATOR_H_

#include <cstdint>

#include "acl/acl_base.h"
#include "aclnn/acl_meta.h"
#include "engine/axis_weights.h"
#include "ops/common/validation.h"

namespace aclnn_upsample {

// The H and W axes of a validated problem, with the caller's alignCorners and scales.
AxisSpec HeightAxis(const Problem& problem, bool align_corners, double scales_h);
AxisSpec WidthAxis(const Problem& problem, bool align_corners, double scales_w);

// Builds the plan from the forward axes (run as A for a forward operator, as A^T for a backward
// one), registers the executor and reports the workspace.
aclnnStatus PlanOperator(const aclnn_upsample_operator& op, const Problem& problem,
                         const ForwardAxis& axis_h, const ForwardAxis& axis_w,
                         uint64_t* workspace_size, aclOpExecutor** executor);

// Phase 1 of any operator: the shared checks, the row's own rules (operator_rules.h), then the
// plan from the operator's 1-D weight builder. `input_size` is ignored for a forward operator.
using AxisBuilder = ForwardAxis (*)(const AxisSpec& axis);
aclnnStatus PlanResize(const aclnn_upsample_operator& op, AxisBuilder build_axis,
                       const aclTensor* source, const aclIntArray* output_size,
                       const aclIntArray* input_size, bool align_corners, double scales_h,
                       double scales_w, aclTensor* out, uint64_t* workspace_size,
                       aclOpExecutor** executor);

// A forward operator's phase 1 in the table's uniform signature (include/aclnn_upsample/
// operators.h), which has an inputSize that a forward signature lacks.
using ForwardGetWorkspaceSize = aclnnStatus (*)(const aclTensor* source,
                                                const aclIntArray* output_size, bool align_corners,
                                                double scales_h, double scales_w, aclTensor* out,
                                                uint64_t* workspace_size, aclOpExecutor** executor);
template <ForwardGetWorkspaceSize kForward>
aclnnStatus IgnoringInputSize(const aclTensor* source, const aclIntArray* output_size,
                              const aclIntArray* /*input_size*/, bool align_corners,
                              double scales_h, double scales_w, aclTensor* out,
                              uint64_t* workspace_size, aclOpExecutor** executor) {
  return kForward(source, output_size, align_corners, scales_h, scales_w, out, workspace_size,
                  executor);
}

// Phase 2 of any operator: checks the executor and workspace, then runs the plan.
aclnnStatus RunOperator(const aclnn_upsample_operator& op, void* workspace, uint64_t workspace_size,
                        aclOpExecutor* executor, aclrtStream stream);

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_OPS_COMMON_RUN_OPERATOR_H_
