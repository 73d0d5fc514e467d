/**
 * aclnnUpsampleBilinear2dBackwardV2: gradient of bilinear 2-D upsampling with respect to its
 * input. Formats NCHW or NHWC (the same for both tensors); dtypes FLOAT, FLOAT16, BF16.
 */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_BACKWARD_V2_H_
#define ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_BACKWARD_V2_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: validates, plans, and reports the workspace bytes phase 2 needs. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    bool alignCorners, double scalesH, double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor);

/** Phase 2: runs the plan of `executor` on `stream`. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBilinear2dBackwardV2(void* workspace,
                                                                  uint64_t workspaceSize,
                                                                  aclOpExecutor* executor,
                                                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_BACKWARD_V2_H_
