/**
 * aclnnUpsampleNearestExact2d: nearest-exact 2-D resizing of `self` (N, C, H, W) to (N, C,
 * outputSize[0], outputSize[1]), PyTorch's _upsample_nearest_exact2d. Formats NCHW, NHWC or ND;
 * dtypes FLOAT, FLOAT16, BF16. Its gradient is aclnnUpsampleNearestExact2dBackward.
 */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT2D_H_
#define ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT2D_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: validates, plans, and reports the workspace bytes phase 2 needs. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleNearestExact2dGetWorkspaceSize(
    const aclTensor* self, const aclIntArray* outputSize, double scalesH, double scalesW,
    aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);

/** Phase 2: runs the plan of `executor` on `stream`. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleNearestExact2d(void* workspace, uint64_t workspaceSize,
                                                            aclOpExecutor* executor,
                                                            aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT2D_H_
