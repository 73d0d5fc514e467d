/**
 * aclnnUpsampleBilinear2dAABackward: gradient of anti-aliased bilinear 2-D resizing, PyTorch's
 * _upsample_bilinear2d_aa_backward. Formats NCHW or ND; dtypes FLOAT, FLOAT16, BF16.
 */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_BILINEAR2D_AA_BACKWARD_H_
#define ACLNNOP_ACLNN_UPSAMPLE_BILINEAR2D_AA_BACKWARD_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: validates, plans, and reports the workspace bytes phase 2 needs. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBilinear2dAABackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclIntArray* outputSize, const aclIntArray* inputSize,
    bool alignCorners, double scalesH, double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor);

/** Phase 2: runs the plan of `executor` on `stream`. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBilinear2dAABackward(void* workspace,
                                                                  uint64_t workspaceSize,
                                                                  aclOpExecutor* executor,
                                                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // ACLNNOP_ACLNN_UPSAMPLE_BILINEAR2D_AA_BACKWARD_H_
