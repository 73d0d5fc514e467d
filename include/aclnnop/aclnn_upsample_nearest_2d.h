/**
 * aclnnUpsampleNearest2d: nearest-neighbour 2-D resizing of `self` (N, C, H, W) to (N, C,
 * outputSize[0], outputSize[1]) without scales, PyTorch's upsample_nearest2d(input, output_size).
 * Formats NCHW or NHWC; dtypes FLOAT, FLOAT16, BF16. aclnnUpsampleNearest2dV2 adds scales.
 */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_NEAREST_2D_H_
#define ACLNNOP_ACLNN_UPSAMPLE_NEAREST_2D_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Phase 1: validates, plans, and reports the workspace bytes phase 2 needs. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleNearest2dGetWorkspaceSize(
    const aclTensor* self, const aclIntArray* outputSize, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor);

/** Phase 2: runs the plan of `executor` on `stream`. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnUpsampleNearest2d(void* workspace, uint64_t workspaceSize,
                                                       aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // ACLNNOP_ACLNN_UPSAMPLE_NEAREST_2D_H_
