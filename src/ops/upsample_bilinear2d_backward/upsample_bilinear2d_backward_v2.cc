// aclnnUpsampleBilinear2dBackwardV2: shared validation, this operator's weights, the engine.
// Its own rules: NCHW or NHWC; N or C == 0 is an empty problem; negative scales mean "not
// given"; the consistency rule of contract 1.3 (in bilinear_weights.cc).
#include "aclnnop/aclnn_upsample_bilinear_2d_backward_v2.h"
#include "ops/common/run_operator.h"
#include "ops/common/validation.h"
#include "ops/upsample_bilinear2d_backward/bilinear_weights.h"

namespace aclnn_upsample {
namespace {
constexpr OperatorTraits kBilinear2dBackwardV2 = {"aclnnUpsampleBilinear2dBackwardV2", "gradOut",
                                                  /*accepts_nhwc=*/true, /*accepts_nd=*/false};
}  // namespace
}  // namespace aclnn_upsample

extern "C" aclnnStatus aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize(
    const aclTensor* gradOut, const aclIntArray* outputSize, const aclIntArray* inputSize,
    bool alignCorners, double scalesH, double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  using namespace aclnn_upsample;
  Problem problem;
  const aclnnStatus status = ValidateCommon(kBilinear2dBackwardV2, gradOut, outputSize, inputSize,
                                            out, workspaceSize, executor, &problem);
  if (status != ACLNN_SUCCESS) return status;
  return PlanOperator(
      kBilinear2dBackwardV2, problem, BuildBilinearAxis(HeightAxis(problem, alignCorners, scalesH)),
      BuildBilinearAxis(WidthAxis(problem, alignCorners, scalesW)), workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleBilinear2dBackwardV2(void* workspace, uint64_t workspaceSize,
                                                         aclOpExecutor* executor,
                                                         aclrtStream stream) {
  using namespace aclnn_upsample;
  return RunOperator(kBilinear2dBackwardV2, workspace, workspaceSize, executor, stream);
}
