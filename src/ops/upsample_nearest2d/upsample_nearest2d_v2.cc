// aclnnUpsampleNearest2dV2: nearest-neighbour resizing with scales, PyTorch's upsample_nearest2d
// (F.interpolate(mode="nearest")), with the matrix its gradient aclnnUpsampleNearest2dBackward
// transposes. Its rules are the flags of its row below: NCHW or NHWC; N or C == 0 is an empty
// problem; a scale that is not positive means "not given"; any positive scale is used as given,
// with a finite inverse. CANN declares the scales float, not double: a caller's double scale is
// rounded to float before use, as on the device.
#include "aclnnop/aclnn_upsample_nearest_2d_v2.h"
#include "ops/common/run_operator.h"
#include "ops/upsample_nearest2d/nearest_weights.h"

namespace aclnn_upsample {

extern const aclnn_upsample_operator kUpsampleNearest2dV2;
extern const aclnn_upsample_operator kUpsampleNearest2dV2 = {
    "aclnnUpsampleNearest2dV2",
    "nearest",
    ACLNN_UPSAMPLE_FORWARD,
    "nearest-forward",
    "self",
    /*accepts_nhwc=*/true,
    /*accepts_nd=*/false,
    /*accepts_empty=*/true,
    /*rejects_negative_scales=*/false,
    /*scales_need_consistent_size=*/false,
    /*max_upscale=*/0.0,
    PlanRow<kUpsampleNearest2dV2, BuildNearestAxis>,
    aclnnUpsampleNearest2dV2,
    /*takes_align_corners=*/false,
    /*takes_scales=*/true,
    /*result_name=*/"out",
    /*scales_are_float=*/true,
};

}  // namespace aclnn_upsample

extern "C" aclnnStatus aclnnUpsampleNearest2dV2GetWorkspaceSize(
    const aclTensor* self, const aclIntArray* outputSize, float scalesH, float scalesW,
    aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  using namespace aclnn_upsample;
  return PlanRow<kUpsampleNearest2dV2, BuildNearestAxis>(self, outputSize, nullptr, false, scalesH,
                                                         scalesW, out, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleNearest2dV2(void* workspace, uint64_t workspaceSize,
                                                aclOpExecutor* executor, aclrtStream stream) {
  return aclnn_upsample::RunOperator(aclnn_upsample::kUpsampleNearest2dV2, workspace, workspaceSize,
                                     executor, stream);
}
