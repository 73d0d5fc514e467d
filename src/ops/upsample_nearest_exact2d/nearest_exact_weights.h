// The 1-D matrix of aclnnUpsampleNearestExact2d and aclnnUpsampleNearestExact2dBackward:
// PyTorch's nearest-exact (nearest_exact_idx), one tap of weight 1 per output at
// min(floor((o + 0.5) * ratio), in - 1), with ATen's roundings (nearest_weights.h).
#ifndef ACLNN_UPSAMPLE_OPS_UPSAMPLE_NEAREST_EXACT2D_NEAREST_EXACT_WEIGHTS_H_
#define ACLNN_UPSAMPLE_OPS_UPSAMPLE_NEAREST_EXACT2D_NEAREST_EXACT_WEIGHTS_H_

#include "engine/axis_weights.h"

namespace aclnn_upsample {

ForwardAxis BuildNearestExactAxis(const AxisSpec& axis);

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_OPS_UPSAMPLE_NEAREST_EXACT2D_NEAREST_EXACT_WEIGHTS_H_
