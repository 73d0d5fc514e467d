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

// Builds the plan from the forward axes, registers the executor and reports the workspace.
aclnnStatus PlanOperator(const OperatorTraits& op, const Problem& problem,
                         const ForwardAxis& axis_h, const ForwardAxis& axis_w,
                         uint64_t* workspace_size, aclOpExecutor** executor);

// Phase 2 of any operator: checks the executor and workspace, then runs the plan.
aclnnStatus RunOperator(const OperatorTraits& op, void* workspace, uint64_t workspace_size,
                        aclOpExecutor* executor, aclrtStream stream);

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_OPS_COMMON_RUN_OPERATOR_H_
