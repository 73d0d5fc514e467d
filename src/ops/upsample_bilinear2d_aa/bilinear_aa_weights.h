// The 1-D matrix of aclnnUpsampleBilinear2dAA and of its gradient
// aclnnUpsampleBilinear2dAABackward: PyTorch's _upsample_bilinear2d_aa (antialias=True
// bilinear), the common antialias matrix with the triangle filter.
#ifndef ACLNN_UPSAMPLE_OPS_UPSAMPLE_BILINEAR2D_AA_BILINEAR_AA_WEIGHTS_H_
#define ACLNN_UPSAMPLE_OPS_UPSAMPLE_BILINEAR2D_AA_BILINEAR_AA_WEIGHTS_H_

#include "engine/axis_weights.h"

namespace aclnn_upsample {

ForwardAxis BuildBilinearAAAxis(const AxisSpec& axis);

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_OPS_UPSAMPLE_BILINEAR2D_AA_BILINEAR_AA_WEIGHTS_H_
