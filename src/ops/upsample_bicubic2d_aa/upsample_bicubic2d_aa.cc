// aclnnUpsampleBicubic2dAA: anti-aliased bicubic resizing, PyTorch's _upsample_bicubic2d_aa, with
// the matrix its gradient aclnnUpsampleBicubic2dAAGrad transposes (bicubic_aa_weights.cc), so
// the two are exact adjoints. Its rules are its gradient's (the flags of its row below): NCHW or
// ND; empty tensors are invalid; negative scales are invalid; any positive scale is used as
// given, with a finite inverse, and the upscaling factor is at most 50 per axis. (CANN's page
// for this operator words the 50x limit as one on downscaling; the gradient's contract, which
// this library keeps for both directions so that they stay adjoint, limits upscaling, and
// downscaling widens the filter without limit.)
#include "aclnnop/aclnn_upsample_bicubic2d_aa.h"
#include "ops/common/run_operator.h"
#include "ops/upsample_bicubic2d_aa/bicubic_aa_weights.h"

namespace aclnn_upsample {

extern const aclnn_upsample_operator kUpsampleBicubic2dAA;
extern const aclnn_upsample_operator kUpsampleBicubic2dAA = {
    "aclnnUpsampleBicubic2dAA",
    "bicubic_aa",
    ACLNN_UPSAMPLE_FORWARD,
    "bicubic-aa-forward",
    "x",
    /*accepts_nhwc=*/false,
    /*accepts_nd=*/true,
    /*accepts_empty=*/false,
    /*rejects_negative_scales=*/true,
    /*scales_need_consistent_size=*/false,
    /*max_upscale=*/50.0,
    PlanRow<kUpsampleBicubic2dAA, BuildBicubicAAAxis>,
    aclnnUpsampleBicubic2dAA,
    /*takes_align_corners=*/true,
    /*takes_scales=*/true,
    /*result_name=*/"out",
    /*scales_are_float=*/false,
};

}  // namespace aclnn_upsample

extern "C" aclnnStatus aclnnUpsampleBicubic2dAAGetWorkspaceSize(
    const aclTensor* x, const aclIntArray* outputSize, bool alignCorners, double scalesH,
    double scalesW, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  using namespace aclnn_upsample;
  return PlanRow<kUpsampleBicubic2dAA, BuildBicubicAAAxis>(
      x, outputSize,
      /*input_size=*/nullptr, alignCorners, scalesH, scalesW, out, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleBicubic2dAA(void* workspace, uint64_t workspaceSize,
                                                aclOpExecutor* executor, aclrtStream stream) {
  return aclnn_upsample::RunOperator(aclnn_upsample::kUpsampleBicubic2dAA, workspace, workspaceSize,
                                     executor, stream);
}
