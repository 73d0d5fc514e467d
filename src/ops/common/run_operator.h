// The two halves every operator shares: phase 1 (the shared checks, the rules its table row
// states, and the plan from its 1-D weight builder, registered as an executor) and phase 2
// (running an executor). An operator's entry points are one call each.
#ifndef ACLNN_UPSAMPLE_OPS_COMMON_RUN_OPERATOR_H_
#define ACLNN_UPSAMPLE_OPS_COMMON_RUN_OPERATOR_H_

#include <cstdint>

#include "acl/acl_base.h"
#include "aclnn/acl_meta.h"
#include "engine/axis_weights.h"
#include "ops/common/validation.h"

namespace aclnn_upsample {

// Phase 1 of any operator: the shared checks, the row's own rules (operator_rules.h), then the
// plan from the operator's 1-D weight builder. `input_size` is ignored for a forward operator.
using AxisBuilder = ForwardAxis (*)(const AxisSpec& axis);
aclnnStatus PlanResize(const aclnn_upsample_operator& op, AxisBuilder build_axis,
                       const aclTensor* source, const aclIntArray* output_size,
                       const aclIntArray* input_size, bool align_corners, double scales_h,
                       double scales_w, aclTensor* out, uint64_t* workspace_size,
                       aclOpExecutor** executor);

// Operator `kOp`'s phase 1 with its weights `kBuild`, in the table's uniform signature
// (include/aclnn_upsample/operators.h): both its table entry and its C entry point. Parameters
// the operator's own signature lacks are ignored (a forward inputSize; alignCorners or scales
// where its row says it takes none).
template <const aclnn_upsample_operator& kOp, AxisBuilder kBuild>
aclnnStatus PlanRow(const aclTensor* source, const aclIntArray* output_size,
                    const aclIntArray* input_size, bool align_corners, double scales_h,
                    double scales_w, aclTensor* out, uint64_t* workspace_size,
                    aclOpExecutor** executor) {
  return PlanResize(kOp, kBuild, source, output_size, input_size, align_corners, scales_h, scales_w,
                    out, workspace_size, executor);
}

// Phase 2 of any operator: checks the executor and workspace, then runs the plan.
aclnnStatus RunOperator(const aclnn_upsample_operator& op, void* workspace, uint64_t workspace_size,
                        aclOpExecutor* executor, aclrtStream stream);

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_OPS_COMMON_RUN_OPERATOR_H_
