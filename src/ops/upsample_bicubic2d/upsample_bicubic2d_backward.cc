// aclnnUpsampleBicubic2dBackward: the gradient of aclnnUpsampleBicubic2d, PyTorch's
// upsample_bicubic2d_backward. Its rules are the flags of its row below: NCHW, ND or NHWC; empty
// tensors are invalid; a scale that is not positive means "not given"; any positive scale is used
// as given, with a finite inverse.
#include "aclnnop/aclnn_upsample_bicubic_2d_backward.h"
#include "ops/common/run_operator.h"
#include "ops/upsample_bicubic2d/bicubic_weights.h"

namespace aclnn_upsample {

extern const aclnn_upsample_operator kUpsampleBicubic2dBackward;
extern const aclnn_upsample_operator kUpsampleBicubic2dBackward = {
    "aclnnUpsampleBicubic2dBackward",
    "bicubic",
    ACLNN_UPSAMPLE_BACKWARD,
    "bicubic",
    "gradOut",
    /*accepts_nhwc=*/true,
    /*accepts_nd=*/true,
    /*accepts_empty=*/false,
    /*rejects_negative_scales=*/false,
    /*scales_need_consistent_size=*/false,
    /*max_upscale=*/0.0,
    PlanRow<kUpsampleBicubic2dBackward, BuildBicubicAxis>,
    aclnnUpsampleBicubic2dBackward,
    /*takes_align_corners=*/true,
    /*takes_scales=*/true,
    /*result_name=*/"gradInput",
    /*scales_are_float=*/false,
};

}  // namespace aclnn_upsample

extern "C" aclnnStatus aclnnUpsampleBicubic2dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    const bool alignCorners, double scalesH, double scalesW, aclTensor* gradInput,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
  using namespace aclnn_upsample;
  return PlanRow<kUpsampleBicubic2dBackward, BuildBicubicAxis>(gradOut, outputSize, inputSize,
                                                               alignCorners, scalesH, scalesW,
                                                               gradInput, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleBicubic2dBackward(void* workspace, uint64_t workspaceSize,
                                                      aclOpExecutor* executor, aclrtStream stream) {
  return aclnn_upsample::RunOperator(aclnn_upsample::kUpsampleBicubic2dBackward, workspace,
                                     workspaceSize, executor, stream);
}
