// aclnnUpsampleBicubic2d: bicubic resizing, PyTorch's upsample_bicubic2d
// (F.interpolate(mode="bicubic")), with the matrix its gradient aclnnUpsampleBicubic2dBackward
// transposes. Its rules are the flags of its row below: NCHW, ND or NHWC; empty tensors are
// invalid; a scale that is not positive means "not given"; any positive scale is used as given,
// with a finite inverse.
#include "aclnnop/aclnn_upsample_bicubic_2d.h"
#include "ops/common/run_operator.h"
#include "ops/upsample_bicubic2d/bicubic_weights.h"

namespace aclnn_upsample {

extern const aclnn_upsample_operator kUpsampleBicubic2d;
extern const aclnn_upsample_operator kUpsampleBicubic2d = {
    "aclnnUpsampleBicubic2d",
    "bicubic",
    ACLNN_UPSAMPLE_FORWARD,
    "bicubic-forward",
    "self",
    /*accepts_nhwc=*/true,
    /*accepts_nd=*/true,
    /*accepts_empty=*/false,
    /*rejects_negative_scales=*/false,
    /*scales_need_consistent_size=*/false,
    /*max_upscale=*/0.0,
    PlanRow<kUpsampleBicubic2d, BuildBicubicAxis>,
    aclnnUpsampleBicubic2d,
    /*takes_align_corners=*/true,
    /*takes_scales=*/true,
    /*result_name=*/"out",
    /*scales_are_float=*/false,
};

}  // namespace aclnn_upsample

extern "C" aclnnStatus aclnnUpsampleBicubic2dGetWorkspaceSize(
    const aclTensor* self, const aclIntArray* outputSize, const bool alignCorners,
    const double scalesH, const double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  using namespace aclnn_upsample;
  return PlanRow<kUpsampleBicubic2d, BuildBicubicAxis>(
      self, outputSize, nullptr, alignCorners, scalesH, scalesW, out, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleBicubic2d(void* workspace, uint64_t workspaceSize,
                                              aclOpExecutor* executor, aclrtStream stream) {
  return aclnn_upsample::RunOperator(aclnn_upsample::kUpsampleBicubic2d, workspace, workspaceSize,
                                     executor, stream);
}
