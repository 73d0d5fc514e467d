// The 1-D matrix of aclnnUpsampleBilinear2d and of its gradients aclnnUpsampleBilinear2dBackwardV2
// and aclnnUpsampleBilinear2dBackward (contract section 1.1). The operators differ only in which
// scales they use (their rows' scales_need_consistent_size), which the common rules settle
// before this builder runs.
#ifndef ACLNN_UPSAMPLE_OPS_UPSAMPLE_BILINEAR2D_BILINEAR_WEIGHTS_H_
#define ACLNN_UPSAMPLE_OPS_UPSAMPLE_BILINEAR2D_BILINEAR_WEIGHTS_H_

#include "engine/axis_weights.h"

namespace aclnn_upsample {

// The forward bilinear matrix of one axis. Equal lengths give the identity, as in PyTorch,
// whatever the ratio.
ForwardAxis BuildBilinearAxis(const AxisSpec& axis);

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_OPS_UPSAMPLE_BILINEAR2D_BILINEAR_WEIGHTS_H_
