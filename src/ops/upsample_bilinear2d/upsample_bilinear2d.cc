// aclnnUpsampleBilinear2d: bilinear resizing, PyTorch's upsample_bilinear2d, with the matrix its
// gradient aclnnUpsampleBilinear2dBackwardV2 transposes (bilinear_weights.cc), so the two are
// exact adjoints. Its rules are the flags of its row below: NCHW or NHWC; N or C == 0 is an
// empty problem; a negative scale is invalid (CANN's page for this operator, where the V2
// gradient reads it as "not given"); scales are used only when consistent with outputSize.
#include "aclnnop/aclnn_upsample_bilinear_2d.h"
#include "ops/common/run_operator.h"
#include "ops/upsample_bilinear2d/bilinear_weights.h"

namespace aclnn_upsample {

extern const aclnn_upsample_operator kUpsampleBilinear2d;
extern const aclnn_upsample_operator kUpsampleBilinear2d = {
    "aclnnUpsampleBilinear2d",
    "bilinear",
    ACLNN_UPSAMPLE_FORWARD,
    "bilinear-forward",
    "self",
    /*accepts_nhwc=*/true,
    /*accepts_nd=*/false,
    /*accepts_empty=*/true,
    /*rejects_negative_scales=*/true,
    /*scales_need_consistent_size=*/true,
    /*max_upscale=*/0.0,
    PlanRow<kUpsampleBilinear2d, BuildBilinearAxis>,
    aclnnUpsampleBilinear2d,
    /*takes_align_corners=*/true,
    /*takes_scales=*/true,
    /*result_name=*/"out",
    /*scales_are_float=*/false,
};

}  // namespace aclnn_upsample

extern "C" aclnnStatus aclnnUpsampleBilinear2dGetWorkspaceSize(
    const aclTensor* self, const aclIntArray* outputSize, bool alignCorners, double scalesH,
    double scalesW, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  using namespace aclnn_upsample;
  return PlanRow<kUpsampleBilinear2d, BuildBilinearAxis>(
      self, outputSize,
      /*input_size=*/nullptr, alignCorners, scalesH, scalesW, out, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleBilinear2d(void* workspace, uint64_t workspaceSize,
                                               aclOpExecutor* executor, aclrtStream stream) {
  return aclnn_upsample::RunOperator(aclnn_upsample::kUpsampleBilinear2d, workspace, workspaceSize,
                                     executor, stream);
}
