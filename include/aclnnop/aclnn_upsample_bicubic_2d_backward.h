/**
 * aclnnUpsampleBicubic2dBackward: gradient of bicubic 2-D resizing, PyTorch's
 * upsample_bicubic2d_backward. Formats NCHW, ND or NHWC; dtypes FLOAT, FLOAT16, BF16.
 */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_BICUBIC_2D_BACKWARD_H_
#define ACLNNOP_ACLNN_UPSAMPLE_BICUBIC_2D_BACKWARD_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: validates, plans, and reports the workspace bytes phase 2 needs. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBicubic2dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    const bool alignCorners, double scalesH, double scalesW, aclTensor* gradInput,
    uint64_t* workspaceSize, aclOpExecutor** executor);

/** Phase 2: runs the plan of `executor` on `stream`. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBicubic2dBackward(void* workspace,
                                                               uint64_t workspaceSize,
                                                               aclOpExecutor* executor,
                                                               aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // ACLNNOP_ACLNN_UPSAMPLE_BICUBIC_2D_BACKWARD_H_
