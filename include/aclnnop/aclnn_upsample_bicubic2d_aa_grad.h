/**
 * aclnnUpsampleBicubic2dAAGrad: gradient of anti-aliased bicubic 2-D resizing (PIL / PyTorch
 * antialias=True, a = -0.5) with respect to its input. Formats NCHW or ND (read as NCHW);
 * dtypes FLOAT, FLOAT16, BF16.
 */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_BICUBIC2D_AA_GRAD_H_
#define ACLNNOP_ACLNN_UPSAMPLE_BICUBIC2D_AA_GRAD_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: validates, plans, and reports the workspace bytes phase 2 needs. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBicubic2dAAGradGetWorkspaceSize(
    const aclTensor* gradOutput, const aclIntArray* outputSize, const aclIntArray* inputSize,
    bool alignCorners, double scalesH, double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor);

/** Phase 2: runs the plan of `executor` on `stream`. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBicubic2dAAGrad(void* workspace,
                                                             uint64_t workspaceSize,
                                                             aclOpExecutor* executor,
                                                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // ACLNNOP_ACLNN_UPSAMPLE_BICUBIC2D_AA_GRAD_H_
