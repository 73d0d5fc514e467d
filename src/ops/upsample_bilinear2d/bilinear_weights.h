// The 1-D matrix of aclnnUpsampleBilinear2d and of its gradient aclnnUpsampleBilinear2dBackwardV2:
// which ratio an axis uses and the bilinear weights (contract sections 1.1 and 1.3).
#ifndef ACLNN_UPSAMPLE_OPS_UPSAMPLE_BILINEAR2D_BILINEAR_WEIGHTS_H_
#define ACLNN_UPSAMPLE_OPS_UPSAMPLE_BILINEAR2D_BILINEAR_WEIGHTS_H_

#include "engine/axis_weights.h"

namespace aclnn_upsample {

// The ratio input/output of one axis: (in-1)/(out-1) with alignCorners; otherwise 1/scale only
// when the caller's scale is positive, consistent with outputSize (out == floor(in * scale)) and
// not a more than 100x upsample, else in/out.
double BilinearAxisRatio(const AxisSpec& axis);

// The forward bilinear matrix of one axis. Equal lengths give the identity, as in PyTorch,
// whatever the ratio.
ForwardAxis BuildBilinearAxis(const AxisSpec& axis);

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_OPS_UPSAMPLE_BILINEAR2D_BILINEAR_WEIGHTS_H_
