// aclnnUpsampleNearestExact2dBackward: the gradient of aclnnUpsampleNearestExact2d, PyTorch's
// _upsample_nearest_exact2d_backward. Its rules are the flags of its row below: NCHW or ND; N or C
// == 0 is an empty problem; negative scales are invalid; any positive scale is used as given, with
// a finite inverse, and the forward upscaling factor is at most 50 per axis (CANN's page).
#include "aclnnop/aclnn_upsample_nearest_exact2d_backward.h"
#include "ops/common/run_operator.h"
#include "ops/upsample_nearest_exact2d/nearest_exact_weights.h"

namespace aclnn_upsample {

extern const aclnn_upsample_operator kUpsampleNearestExact2dBackward;
extern const aclnn_upsample_operator kUpsampleNearestExact2dBackward = {
    "aclnnUpsampleNearestExact2dBackward",
    "nearest_exact",
    ACLNN_UPSAMPLE_BACKWARD,
    "nearest-exact",
    "gradOutput",
    /*accepts_nhwc=*/false,
    /*accepts_nd=*/true,
    /*accepts_empty=*/true,
    /*rejects_negative_scales=*/true,
    /*scales_need_consistent_size=*/false,
    /*max_upscale=*/50.0,
    PlanRow<kUpsampleNearestExact2dBackward, BuildNearestExactAxis>,
    aclnnUpsampleNearestExact2dBackward,
    /*takes_align_corners=*/false,
    /*takes_scales=*/true,
    /*result_name=*/"out",
    /*scales_are_float=*/false,
};

}  // namespace aclnn_upsample

extern "C" aclnnStatus aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclIntArray* outputSize, const aclIntArray* inputSize,
    double scalesH, double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  using namespace aclnn_upsample;
  return PlanRow<kUpsampleNearestExact2dBackward, BuildNearestExactAxis>(
      gradOutput, outputSize, inputSize, false, scalesH, scalesW, out, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleNearestExact2dBackward(void* workspace, uint64_t workspaceSize,
                                                           aclOpExecutor* executor,
                                                           aclrtStream stream) {
  return aclnn_upsample::RunOperator(aclnn_upsample::kUpsampleNearestExact2dBackward, workspace,
                                     workspaceSize, executor, stream);
}
