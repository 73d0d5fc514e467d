// The rules that differ between operators, stated as flags of each operator's table row
// (include/aclnn_upsample/operators.h) and enforced here, after the shared checks, so that a
// row cannot say one thing while the code does another: empty problems, negative scales, and
// the ratio a used scale implies (finite, and within the row's upscaling limit).
#ifndef ACLNN_UPSAMPLE_OPS_COMMON_OPERATOR_RULES_H_
#define ACLNN_UPSAMPLE_OPS_COMMON_OPERATOR_RULES_H_

#include "aclnn/acl_meta.h"
#include "aclnn_upsample/operators.h"
#include "engine/axis_weights.h"
#include "ops/common/validation.h"

namespace aclnn_upsample {

// Checks #14-#16 of a validated problem with its two axes, in order; the first failure's status.
aclnnStatus CheckOperatorRules(const aclnn_upsample_operator& op, const Problem& problem,
                               const AxisSpec& axis_h, const AxisSpec& axis_w);

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_OPS_COMMON_OPERATOR_RULES_H_
