/**
 * aclnnUpsampleBilinear2d: bilinear 2-D resizing of `self` (N, C, H, W) to
 * (N, C, outputSize[0], outputSize[1]), PyTorch's upsample_bilinear2d. Formats NCHW or NHWC (the
 * same for both tensors); dtypes FLOAT, FLOAT16, BF16. Its gradient is
 * aclnnUpsampleBilinear2dBackwardV2 with the same outputSize, alignCorners and scales: the two
 * apply one matrix and its transpose.
 */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_H_
#define ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: validates, plans, and reports the workspace bytes phase 2 needs. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBilinear2dGetWorkspaceSize(
    const aclTensor* self, const aclIntArray* outputSize, bool alignCorners, double scalesH,
    double scalesW, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);

/** Phase 2: runs the plan of `executor` on `stream`. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleBilinear2d(void* workspace, uint64_t workspaceSize,
                                                        aclOpExecutor* executor,
                                                        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_H_
