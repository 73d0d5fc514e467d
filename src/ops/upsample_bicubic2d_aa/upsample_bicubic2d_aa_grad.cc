// aclnnUpsampleBicubic2dAAGrad: the gradient of aclnnUpsampleBicubic2dAA. Its rules are the
// flags of its row below (contract 3.3): NCHW or ND; empty tensors are invalid; negative scales
// are invalid; any positive scale is used as given, with a finite inverse, and the forward
// upscaling factor is at most 50 per axis.
#include "aclnnop/aclnn_upsample_bicubic2d_aa_grad.h"
#include "ops/common/run_operator.h"
#include "ops/upsample_bicubic2d_aa/bicubic_aa_weights.h"

namespace aclnn_upsample {

extern const aclnn_upsample_operator kUpsampleBicubic2dAAGrad;
extern const aclnn_upsample_operator kUpsampleBicubic2dAAGrad = {
    "aclnnUpsampleBicubic2dAAGrad",
    "bicubic_aa",
    ACLNN_UPSAMPLE_BACKWARD,
    "bicubic-aa",
    "gradOutput",
    /*accepts_nhwc=*/false,
    /*accepts_nd=*/true,
    /*accepts_empty=*/false,
    /*rejects_negative_scales=*/true,
    /*scales_need_consistent_size=*/false,
    /*max_upscale=*/50.0,
    PlanRow<kUpsampleBicubic2dAAGrad, BuildBicubicAAAxis>,
    aclnnUpsampleBicubic2dAAGrad,
    /*takes_align_corners=*/true,
    /*takes_scales=*/true,
    /*result_name=*/"out",
    /*scales_are_float=*/false,
};

}  // namespace aclnn_upsample

extern "C" aclnnStatus aclnnUpsampleBicubic2dAAGradGetWorkspaceSize(
    const aclTensor* gradOutput, const aclIntArray* outputSize, const aclIntArray* inputSize,
    bool alignCorners, double scalesH, double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  using namespace aclnn_upsample;
  return PlanRow<kUpsampleBicubic2dAAGrad, BuildBicubicAAAxis>(gradOutput, outputSize, inputSize,
                                                               alignCorners, scalesH, scalesW, out,
                                                               workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleBicubic2dAAGrad(void* workspace, uint64_t workspaceSize,
                                                    aclOpExecutor* executor, aclrtStream stream) {
  return aclnn_upsample::RunOperator(aclnn_upsample::kUpsampleBicubic2dAAGrad, workspace,
                                     workspaceSize, executor, stream);
}
