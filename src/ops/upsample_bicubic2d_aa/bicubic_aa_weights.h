// The 1-D matrix of aclnnUpsampleBicubic2dAA and of its gradient aclnnUpsampleBicubic2dAAGrad:
// the axis ratio and the anti-aliased bicubic weights (PIL / PyTorch antialias=True, a = -0.5;
// contract sections 1.2 and 1.3).
#ifndef ACLNN_UPSAMPLE_OPS_UPSAMPLE_BICUBIC2D_AA_BICUBIC_AA_WEIGHTS_H_
#define ACLNN_UPSAMPLE_OPS_UPSAMPLE_BICUBIC2D_AA_BICUBIC_AA_WEIGHTS_H_

#include "engine/axis_weights.h"

namespace aclnn_upsample {

// (in-1)/(out-1) with alignCorners (0 for out == 1); otherwise 1/scale whenever scale > 0
// (no consistency check), else in/out.
double BicubicAAAxisRatio(const AxisSpec& axis);

ForwardAxis BuildBicubicAAAxis(const AxisSpec& axis);

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_OPS_UPSAMPLE_BICUBIC2D_AA_BICUBIC_AA_WEIGHTS_H_
