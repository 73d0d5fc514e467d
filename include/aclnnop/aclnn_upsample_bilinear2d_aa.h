/**
 * aclnnUpsampleBilinear2dAA: anti-aliased bilinear 2-D resizing of `input` (N, C, H, W) to (N, C,
 * outputSize[0], outputSize[1]), PyTorch's _upsample_bilinear2d_aa. Formats NCHW or ND; dtypes
 * FLOAT, FLOAT16, BF16. Its gradient is aclnnUpsampleBilinear2dAABackward.
 */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_BILINEAR2D_AA_H_
#define ACLNNOP_ACLNN_UPSAMPLE_BILINEAR2D_AA_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: validates, plans, and reports the workspace bytes phase 2 needs. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBilinear2dAAGetWorkspaceSize(
    const aclTensor* input, const aclIntArray* outputSize, bool alignCorners, double scalesH,
    double scalesW, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);

/** Phase 2: runs the plan of `executor` on `stream`. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBilinear2dAA(void* workspace, uint64_t workspaceSize,
                                                          aclOpExecutor* executor,
                                                          aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // ACLNNOP_ACLNN_UPSAMPLE_BILINEAR2D_AA_H_
