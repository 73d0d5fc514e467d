// aclnnUpsampleNearestExact2d: nearest-exact resizing, PyTorch's _upsample_nearest_exact2d
// (F.interpolate(mode="nearest-exact")), with the matrix its gradient
// aclnnUpsampleNearestExact2dBackward transposes. Its rules are the flags of its row below: NCHW,
// NHWC or ND; N or C == 0 is an empty problem; negative scales are invalid; any positive scale is
// used as given, with a finite inverse.
#include "aclnnop/aclnn_upsample_nearest_exact2d.h"
#include "ops/common/run_operator.h"
#include "ops/upsample_nearest_exact2d/nearest_exact_weights.h"

namespace aclnn_upsample {

extern const aclnn_upsample_operator kUpsampleNearestExact2d;
extern const aclnn_upsample_operator kUpsampleNearestExact2d = {
    "aclnnUpsampleNearestExact2d",
    "nearest_exact",
    ACLNN_UPSAMPLE_FORWARD,
    "nearest-exact-forward",
    "self",
    /*accepts_nhwc=*/true,
    /*accepts_nd=*/true,
    /*accepts_empty=*/true,
    /*rejects_negative_scales=*/true,
    /*scales_need_consistent_size=*/false,
    /*max_upscale=*/0.0,
    PlanRow<kUpsampleNearestExact2d, BuildNearestExactAxis>,
    aclnnUpsampleNearestExact2d,
    /*takes_align_corners=*/false,
    /*takes_scales=*/true,
    /*result_name=*/"out",
    /*scales_are_float=*/false,
};

}  // namespace aclnn_upsample

extern "C" aclnnStatus aclnnUpsampleNearestExact2dGetWorkspaceSize(
    const aclTensor* self, const aclIntArray* outputSize, double scalesH, double scalesW,
    aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  using namespace aclnn_upsample;
  return PlanRow<kUpsampleNearestExact2d, BuildNearestExactAxis>(
      self, outputSize, nullptr, false, scalesH, scalesW, out, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleNearestExact2d(void* workspace, uint64_t workspaceSize,
                                                   aclOpExecutor* executor, aclrtStream stream) {
  return aclnn_upsample::RunOperator(aclnn_upsample::kUpsampleNearestExact2d, workspace,
                                     workspaceSize, executor, stream);
}
