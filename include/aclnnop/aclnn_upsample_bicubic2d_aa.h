/**
 * aclnnUpsampleBicubic2dAA: anti-aliased bicubic 2-D resizing of `x` (N, C, H, W) to
 * (N, C, outputSize[0], outputSize[1]), PIL's and PyTorch's antialias=True filter (a = -0.5),
 * PyTorch's _upsample_bicubic2d_aa. Formats NCHW or ND (read as NCHW); dtypes FLOAT, FLOAT16,
 * BF16. Its gradient is aclnnUpsampleBicubic2dAAGrad with the same outputSize, alignCorners and
 * scales: the two apply one matrix and its transpose.
 */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_BICUBIC2D_AA_H_
#define ACLNNOP_ACLNN_UPSAMPLE_BICUBIC2D_AA_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: validates, plans, and reports the workspace bytes phase 2 needs. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBicubic2dAAGetWorkspaceSize(
    const aclTensor* x, const aclIntArray* outputSize, bool alignCorners, double scalesH,
    double scalesW, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);

/** Phase 2: runs the plan of `executor` on `stream`. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBicubic2dAA(void* workspace, uint64_t workspaceSize,
                                                         aclOpExecutor* executor,
                                                         aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // ACLNNOP_ACLNN_UPSAMPLE_BICUBIC2D_AA_H_
