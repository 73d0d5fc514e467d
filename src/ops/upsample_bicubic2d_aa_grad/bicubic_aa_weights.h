// The rules of aclnnUpsampleBicubic2dAAGrad that differ from the bilinear operator: the axis
// ratio and the anti-aliased bicubic 1-D matrix (PIL / PyTorch antialias=True, a = -0.5;
// contract sections 1.2 and 1.3).
#ifndef ACLNN_UPSAMPLE_OPS_UPSAMPLE_BICUBIC2D_AA_GRAD_BICUBIC_AA_WEIGHTS_H_
#define ACLNN_UPSAMPLE_OPS_UPSAMPLE_BICUBIC2D_AA_GRAD_BICUBIC_AA_WEIGHTS_H_

#include "engine/axis_weights.h"

namespace aclnn_upsample {

// (in-1)/(out-1) with alignCorners (0 for out == 1); otherwise 1/scale whenever scale > 0
// (no consistency check), else in/out.
double BicubicAAAxisRatio(const AxisSpec& axis);

// The forward ratio that the 50x upscaling limit is checked against: 1/scale if scale > 0,
// else in/out, whatever alignCorners says.
double BicubicAAUpscaleRatio(const AxisSpec& axis);

ForwardAxis BuildBicubicAAAxis(const AxisSpec& axis);

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_OPS_UPSAMPLE_BICUBIC2D_AA_GRAD_BICUBIC_AA_WEIGHTS_H_
