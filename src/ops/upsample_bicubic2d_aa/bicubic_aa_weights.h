// The 1-D matrix of aclnnUpsampleBicubic2dAA and of its gradient aclnnUpsampleBicubic2dAAGrad:
// the anti-aliased bicubic weights (PIL / PyTorch antialias=True, a = -0.5; contract section
// 1.2), the common antialias matrix with Keys' cubic filter.
#ifndef ACLNN_UPSAMPLE_OPS_UPSAMPLE_BICUBIC2D_AA_BICUBIC_AA_WEIGHTS_H_
#define ACLNN_UPSAMPLE_OPS_UPSAMPLE_BICUBIC2D_AA_BICUBIC_AA_WEIGHTS_H_

#include "engine/axis_weights.h"

namespace aclnn_upsample {

ForwardAxis BuildBicubicAAAxis(const AxisSpec& axis);

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_OPS_UPSAMPLE_BICUBIC2D_AA_BICUBIC_AA_WEIGHTS_H_
