/**
 * aclnnUpsampleNearestExact2dBackward: gradient of nearest-exact 2-D resizing, PyTorch's
 * _upsample_nearest_exact2d_backward. Formats NCHW or ND; dtypes FLOAT, FLOAT16, BF16; the forward
 * upscaling factor is at most 50 per axis.
 */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT2D_BACKWARD_H_
#define ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT2D_BACKWARD_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: validates, plans, and reports the workspace bytes phase 2 needs. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclIntArray* outputSize, const aclIntArray* inputSize,
    double scalesH, double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor);

/** Phase 2: runs the plan of `executor` on `stream`. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleNearestExact2dBackward(void* workspace,
                                                                    uint64_t workspaceSize,
                                                                    aclOpExecutor* executor,
                                                                    aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT2D_BACKWARD_H_
