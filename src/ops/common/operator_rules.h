// The rules that differ between operators, stated as flags of each operator's table row
// (include/aclnn_upsample/operators.h) and enforced here, after the shared checks, so that a
// row cannot say one thing while the code does another: empty problems, negative scales, and
// the ratio a used scale implies (finite, and within the row's upscaling limit), and which of
// the caller's alignCorners and scales an operator reads at all.
#ifndef ACLNN_UPSAMPLE_OPS_COMMON_OPERATOR_RULES_H_
#define ACLNN_UPSAMPLE_OPS_COMMON_OPERATOR_RULES_H_

#include "aclnn/acl_meta.h"
#include "aclnn_upsample/operators.h"
#include "engine/axis_weights.h"
#include "ops/common/validation.h"

namespace aclnn_upsample {

// One axis as the caller gave it, less what the operator lacks: an operator without an
// alignCorners or scales parameter reads false and "not given" whatever its uniform table entry
// was passed, and one whose scales are float reads them rounded to float.
AxisSpec AxisAsGiven(const aclnn_upsample_operator& op, int64_t in_size, int64_t out_size,
                     bool align_corners, double scale);

// Checks #14-#16 of a validated problem with its two axes, in order; the first failure's status.
aclnnStatus CheckOperatorRules(const aclnn_upsample_operator& op, const Problem& problem,
                               const AxisSpec& axis_h, const AxisSpec& axis_w);

// The axis the weight builder sees, after the checks: a scale the operator does not use (not
// positive, or, where the row needs it, inconsistent with outputSize: contract 1.3) becomes 0,
// so that every builder reads "scale > 0: ratio 1/scale, else in/out".
AxisSpec AxisAsUsed(const aclnn_upsample_operator& op, AxisSpec axis);

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_OPS_COMMON_OPERATOR_RULES_H_
