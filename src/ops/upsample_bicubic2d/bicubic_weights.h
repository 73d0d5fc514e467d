// The 1-D matrix of aclnnUpsampleBicubic2d and of its gradient aclnnUpsampleBicubic2dBackward:
// PyTorch's upsample_bicubic2d (mode="bicubic", antialias=False).
#ifndef ACLNN_UPSAMPLE_OPS_UPSAMPLE_BICUBIC2D_BICUBIC_WEIGHTS_H_
#define ACLNN_UPSAMPLE_OPS_UPSAMPLE_BICUBIC2D_BICUBIC_WEIGHTS_H_

#include "engine/axis_weights.h"

namespace aclnn_upsample {

// Output o samples the input at real = ratio * o (alignCorners) or ratio * (o + 0.5) - 0.5
// (not clamped at 0, unlike bilinear), with Keys' cubic (a = -0.75) at the four inputs around
// it; an index outside the axis reads the nearest edge element, so those taps are summed onto
// it. No identity shortcut: equal lengths give the weights (0, 1, 0, 0), whose zero taps still
// carry a neighbour's NaN, as in PyTorch.
ForwardAxis BuildBicubicAxis(const AxisSpec& axis);

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_OPS_UPSAMPLE_BICUBIC2D_BICUBIC_WEIGHTS_H_
