// aclnnUpsampleNearest2dBackward: the gradient of aclnnUpsampleNearest2d(V2), PyTorch's
// upsample_nearest2d_backward: each input element sums the gradOut elements that copied it. Its
// rules are the flags of its row below: NCHW or NHWC (inputSize in the format's axis order); N or C
// == 0 is an empty problem; a scale that is not positive means "not given"; any positive scale is
// used as given, with a finite inverse.
#include "aclnnop/aclnn_upsample_nearest_2d_backward.h"
#include "ops/common/run_operator.h"
#include "ops/upsample_nearest2d/nearest_weights.h"

namespace aclnn_upsample {

extern const aclnn_upsample_operator kUpsampleNearest2dBackward;
extern const aclnn_upsample_operator kUpsampleNearest2dBackward = {
    "aclnnUpsampleNearest2dBackward",
    "nearest",
    ACLNN_UPSAMPLE_BACKWARD,
    "nearest",
    "gradOut",
    /*accepts_nhwc=*/true,
    /*accepts_nd=*/false,
    /*accepts_empty=*/true,
    /*rejects_negative_scales=*/false,
    /*scales_need_consistent_size=*/false,
    /*max_upscale=*/0.0,
    PlanRow<kUpsampleNearest2dBackward, BuildNearestAxis>,
    aclnnUpsampleNearest2dBackward,
    /*takes_align_corners=*/false,
    /*takes_scales=*/true,
    /*result_name=*/"gradInput",
    /*scales_are_float=*/false,
};

}  // namespace aclnn_upsample

extern "C" aclnnStatus aclnnUpsampleNearest2dBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    double scalesH, double scalesW, aclTensor* gradInput, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  using namespace aclnn_upsample;
  return PlanRow<kUpsampleNearest2dBackward, BuildNearestAxis>(
      gradOut, outputSize, inputSize, false, scalesH, scalesW, gradInput, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleNearest2dBackward(void* workspace, uint64_t workspaceSize,
                                                      aclOpExecutor* executor, aclrtStream stream) {
  return aclnn_upsample::RunOperator(aclnn_upsample::kUpsampleNearest2dBackward, workspace,
                                     workspaceSize, executor, stream);
}
