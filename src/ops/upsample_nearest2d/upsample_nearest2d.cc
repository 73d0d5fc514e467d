// aclnnUpsampleNearest2d: nearest-neighbour resizing without scales (CANN's first version),
// PyTorch's upsample_nearest2d with the ratio in/out. Its rules are the flags of its row below:
// NCHW or NHWC; empty tensors are invalid.
#include "aclnnop/aclnn_upsample_nearest_2d.h"
#include "ops/common/run_operator.h"
#include "ops/upsample_nearest2d/nearest_weights.h"

namespace aclnn_upsample {

extern const aclnn_upsample_operator kUpsampleNearest2d;
extern const aclnn_upsample_operator kUpsampleNearest2d = {
    "aclnnUpsampleNearest2d",
    "nearest",
    ACLNN_UPSAMPLE_FORWARD,
    "nearest-v1-forward",
    "self",
    /*accepts_nhwc=*/true,
    /*accepts_nd=*/false,
    /*accepts_empty=*/false,
    /*rejects_negative_scales=*/false,
    /*scales_need_consistent_size=*/false,
    /*max_upscale=*/0.0,
    PlanRow<kUpsampleNearest2d, BuildNearestAxis>,
    aclnnUpsampleNearest2d,
    /*takes_align_corners=*/false,
    /*takes_scales=*/false,
    /*result_name=*/"out",
    /*scales_are_float=*/false,
};

}  // namespace aclnn_upsample

extern "C" aclnnStatus aclnnUpsampleNearest2dGetWorkspaceSize(const aclTensor* self,
                                                              const aclIntArray* outputSize,
                                                              aclTensor* out,
                                                              uint64_t* workspaceSize,
                                                              aclOpExecutor** executor) {
  using namespace aclnn_upsample;
  return PlanRow<kUpsampleNearest2d, BuildNearestAxis>(self, outputSize, nullptr, false, 0.0, 0.0,
                                                       out, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleNearest2d(void* workspace, uint64_t workspaceSize,
                                              aclOpExecutor* executor, aclrtStream stream) {
  return aclnn_upsample::RunOperator(aclnn_upsample::kUpsampleNearest2d, workspace, workspaceSize,
                                     executor, stream);
}
