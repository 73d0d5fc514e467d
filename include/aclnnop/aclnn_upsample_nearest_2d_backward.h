/**
 * aclnnUpsampleNearest2dBackward: gradient of nearest-neighbour 2-D resizing, PyTorch's
 * upsample_nearest2d_backward. Formats NCHW or NHWC; dtypes FLOAT, FLOAT16, BF16.
 */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_NEAREST_2D_BACKWARD_H_
#define ACLNNOP_ACLNN_UPSAMPLE_NEAREST_2D_BACKWARD_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: validates, plans, and reports the workspace bytes phase 2 needs. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleNearest2dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    double scalesH, double scalesW, aclTensor* gradInput, uint64_t* workspaceSize,
    aclOpExecutor** executor);

/** Phase 2: runs the plan of `executor` on `stream`. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleNearest2dBackward(void* workspace,
                                                               uint64_t workspaceSize,
                                                               aclOpExecutor* executor,
                                                               aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // ACLNNOP_ACLNN_UPSAMPLE_NEAREST_2D_BACKWARD_H_
