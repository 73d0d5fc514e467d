// aclnnUpsampleBilinear2dBackwardV2: the gradient of aclnnUpsampleBilinear2d. Its rules are the
// flags of its row below: NCHW or NHWC; N or C == 0 is an empty problem; negative scales mean
// "not given"; scales are used only when consistent with outputSize (contract 1.3, in
// bilinear_weights.cc).
#include "aclnnop/aclnn_upsample_bilinear_2d_backward_v2.h"
#include "ops/common/run_operator.h"
#include "ops/upsample_bilinear2d/bilinear_weights.h"

namespace aclnn_upsample {

extern const aclnn_upsample_operator kUpsampleBilinear2dBackwardV2;
extern const aclnn_upsample_operator kUpsampleBilinear2dBackwardV2 = {
    "aclnnUpsampleBilinear2dBackwardV2",
    "bilinear",
    ACLNN_UPSAMPLE_BACKWARD,
    "bilinear",
    "gradOut",
    /*accepts_nhwc=*/true,
    /*accepts_nd=*/false,
    /*accepts_empty=*/true,
    /*rejects_negative_scales=*/false,
    /*scales_need_consistent_size=*/true,
    /*max_upscale=*/0.0,
    PlanRow<kUpsampleBilinear2dBackwardV2, BuildBilinearAxis>,
    aclnnUpsampleBilinear2dBackwardV2,
    /*takes_align_corners=*/true,
    /*takes_scales=*/true,
    /*result_name=*/"out",
    /*scales_are_float=*/false,
};

}  // namespace aclnn_upsample

extern "C" aclnnStatus aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    bool alignCorners, double scalesH, double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  using namespace aclnn_upsample;
  return PlanRow<kUpsampleBilinear2dBackwardV2, BuildBilinearAxis>(
      gradOut, outputSize, inputSize, alignCorners, scalesH, scalesW, out, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleBilinear2dBackwardV2(void* workspace, uint64_t workspaceSize,
                                                         aclOpExecutor* executor,
                                                         aclrtStream stream) {
  return aclnn_upsample::RunOperator(aclnn_upsample::kUpsampleBilinear2dBackwardV2, workspace,
                                     workspaceSize, executor, stream);
}
