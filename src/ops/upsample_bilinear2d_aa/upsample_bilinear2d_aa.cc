// aclnnUpsampleBilinear2dAA: anti-aliased bilinear resizing, PyTorch's _upsample_bilinear2d_aa
// (F.interpolate(mode="bilinear", antialias=True)), with the matrix its gradient
// aclnnUpsampleBilinear2dAABackward transposes. Its rules are the flags of its row below: NCHW or
// ND; empty tensors are invalid; negative scales are invalid; any positive scale is used as given,
// with a finite inverse.
#include "aclnnop/aclnn_upsample_bilinear2d_aa.h"
#include "ops/common/run_operator.h"
#include "ops/upsample_bilinear2d_aa/bilinear_aa_weights.h"

namespace aclnn_upsample {

extern const aclnn_upsample_operator kUpsampleBilinear2dAA;
extern const aclnn_upsample_operator kUpsampleBilinear2dAA = {
    "aclnnUpsampleBilinear2dAA",
    "bilinear_aa",
    ACLNN_UPSAMPLE_FORWARD,
    "bilinear-aa-forward",
    "input",
    /*accepts_nhwc=*/false,
    /*accepts_nd=*/true,
    /*accepts_empty=*/false,
    /*rejects_negative_scales=*/true,
    /*scales_need_consistent_size=*/false,
    /*max_upscale=*/0.0,
    PlanRow<kUpsampleBilinear2dAA, BuildBilinearAAAxis>,
    aclnnUpsampleBilinear2dAA,
    /*takes_align_corners=*/true,
    /*takes_scales=*/true,
    /*result_name=*/"out",
    /*scales_are_float=*/false,
};

}  // namespace aclnn_upsample

extern "C" aclnnStatus aclnnUpsampleBilinear2dAAGetWorkspaceSize(
    const aclTensor* input, const aclIntArray* outputSize, bool alignCorners, double scalesH,
    double scalesW, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  using namespace aclnn_upsample;
  return PlanRow<kUpsampleBilinear2dAA, BuildBilinearAAAxis>(
      input, outputSize, nullptr, alignCorners, scalesH, scalesW, out, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleBilinear2dAA(void* workspace, uint64_t workspaceSize,
                                                 aclOpExecutor* executor, aclrtStream stream) {
  return aclnn_upsample::RunOperator(aclnn_upsample::kUpsampleBilinear2dAA, workspace,
                                     workspaceSize, executor, stream);
}
