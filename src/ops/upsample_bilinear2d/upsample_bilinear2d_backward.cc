// aclnnUpsampleBilinear2dBackward: the first gradient of aclnnUpsampleBilinear2d, PyTorch's
// upsample_bilinear2d_backward. Its rules are the flags of its row below: NCHW or NHWC; empty
// tensors are invalid; negative scales mean "not given"; unlike aclnnUpsampleBilinear2dBackwardV2,
// any positive scale is used as given (its inverse must be finite), whether or not it agrees with
// outputSize, as PyTorch does.
#include "aclnnop/aclnn_upsample_bilinear_2d_backward.h"
#include "ops/common/run_operator.h"
#include "ops/upsample_bilinear2d/bilinear_weights.h"

namespace aclnn_upsample {

extern const aclnn_upsample_operator kUpsampleBilinear2dBackward;
extern const aclnn_upsample_operator kUpsampleBilinear2dBackward = {
    "aclnnUpsampleBilinear2dBackward",
    "bilinear",
    ACLNN_UPSAMPLE_BACKWARD,
    "bilinear-v1",
    "gradOut",
    /*accepts_nhwc=*/true,
    /*accepts_nd=*/false,
    /*accepts_empty=*/false,
    /*rejects_negative_scales=*/false,
    /*scales_need_consistent_size=*/false,
    /*max_upscale=*/0.0,
    PlanRow<kUpsampleBilinear2dBackward, BuildBilinearAxis>,
    aclnnUpsampleBilinear2dBackward,
    /*takes_align_corners=*/true,
    /*takes_scales=*/true,
    /*result_name=*/"out",
    /*scales_are_float=*/false,
};

}  // namespace aclnn_upsample

extern "C" aclnnStatus aclnnUpsampleBilinear2dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    bool alignCorners, double scalesH, double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  using namespace aclnn_upsample;
  return PlanRow<kUpsampleBilinear2dBackward, BuildBilinearAxis>(
      gradOut, outputSize, inputSize, alignCorners, scalesH, scalesW, out, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleBilinear2dBackward(void* workspace, uint64_t workspaceSize,
                                                       aclOpExecutor* executor,
                                                       aclrtStream stream) {
  return aclnn_upsample::RunOperator(aclnn_upsample::kUpsampleBilinear2dBackward, workspace,
                                     workspaceSize, executor, stream);
}
