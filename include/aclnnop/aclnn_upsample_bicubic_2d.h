/**
 * aclnnUpsampleBicubic2d: bicubic 2-D resizing of `self` (N, C, H, W) to (N, C, outputSize[0],
 * outputSize[1]), PyTorch's upsample_bicubic2d (a = -0.75, border indices clamped). Formats NCHW,
 * ND or NHWC; dtypes FLOAT, FLOAT16, BF16. Its gradient is aclnnUpsampleBicubic2dBackward.
 */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_BICUBIC_2D_H_
#define ACLNNOP_ACLNN_UPSAMPLE_BICUBIC_2D_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: validates, plans, and reports the workspace bytes phase 2 needs. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBicubic2dGetWorkspaceSize(
    const aclTensor* self, const aclIntArray* outputSize, const bool alignCorners,
    const double scalesH, const double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor);

/** Phase 2: runs the plan of `executor` on `stream`. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBicubic2d(void* workspace, uint64_t workspaceSize,
                                                       aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // ACLNNOP_ACLNN_UPSAMPLE_BICUBIC_2D_H_
