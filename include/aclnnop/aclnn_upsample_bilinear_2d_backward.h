/**
 * aclnnUpsampleBilinear2dBackward: gradient of bilinear 2-D upsampling (CANN's first version;
 * PyTorch's upsample_bilinear2d_backward). Formats NCHW or NHWC; dtypes FLOAT, FLOAT16, BF16. It
 * differs from aclnnUpsampleBilinear2dBackwardV2 only in the scales: any positive scale is used as
 * given.
 */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_BACKWARD_H_
#define ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_BACKWARD_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: validates, plans, and reports the workspace bytes phase 2 needs. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBilinear2dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    bool alignCorners, double scalesH, double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor);

/** Phase 2: runs the plan of `executor` on `stream`. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBilinear2dBackward(void* workspace,
                                                                uint64_t workspaceSize,
                                                                aclOpExecutor* executor,
                                                                aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_BACKWARD_H_
