// aclnnUpsampleBicubic2dAAGrad: shared validation, this operator's own rules (numbered checks
// below), its weights, the engine.
#include <cmath>
#include <cstdio>
#include <string>

#include "aclnnop/aclnn_upsample_bicubic2d_aa_grad.h"
#include "ops/common/run_operator.h"
#include "ops/common/validation.h"
#include "ops/upsample_bicubic2d_aa_grad/bicubic_aa_weights.h"
#include "runtime/error.h"

namespace aclnn_upsample {
namespace {

constexpr OperatorTraits kBicubic2dAAGrad = {"aclnnUpsampleBicubic2dAAGrad", "gradOutput",
                                             /*accepts_nhwc=*/false, /*accepts_nd=*/true};

// The forward upscaling factor is at most 50 per axis.
constexpr double kMinRatio = 0.02;

aclnnStatus Invalid(const std::string& parameter, const std::string& expected,
                    const std::string& actual) {
  return Fail(ACLNN_ERR_PARAM_INVALID, kBicubic2dAAGrad.name, parameter, expected, actual);
}

std::string ToText(double value) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.17g", value);
  return text;
}

aclnnStatus CheckBicubicRules(const Problem& problem, const AxisSpec& axis_h,
                              const AxisSpec& axis_w) {
  // #1: empty tensors are not supported.
  if (problem.empty()) {
    return Invalid(
        "gradOutput shape", "no zero dimension (empty tensors are not supported)",
        "N = " + std::to_string(problem.batch) + ", C = " + std::to_string(problem.channels));
  }
  // #2: negative scales.
  for (const auto& [axis, name] :
       {std::pair<const AxisSpec*, const char*>{&axis_h, "scalesH"}, {&axis_w, "scalesW"}}) {
    if (axis->scale < 0.0) return Invalid(name, "a value >= 0 (0: not given)", ToText(axis->scale));
  }
  // #3: a finite ratio (a subnormal scale has an infinite inverse), and at most 50x
  // upscaling per axis (ratio input/output >= 0.02).
  for (const auto& [axis, name] :
       {std::pair<const AxisSpec*, const char*>{&axis_h, "H"}, {&axis_w, "W"}}) {
    const double ratio = BicubicAAUpscaleRatio(*axis);
    if (!std::isfinite(ratio)) {
      return Invalid(std::string("scales") + name, "a scale whose inverse is finite (0: not given)",
                     ToText(axis->scale));
    }
    if (!(ratio >= kMinRatio)) {
      return Invalid(std::string("upscaling factor of axis ") + name,
                     "at most 50 (input/output ratio >= 0.02, from 1/scales if given, else "
                     "inputSize/outputSize)",
                     "ratio " + ToText(ratio) + " (inputSize " + std::to_string(axis->in_size) +
                         ", outputSize " + std::to_string(axis->out_size) + ", scales " +
                         ToText(axis->scale) + ")");
    }
  }
  return ACLNN_SUCCESS;
}

}  // namespace
}  // namespace aclnn_upsample

extern "C" aclnnStatus aclnnUpsampleBicubic2dAAGradGetWorkspaceSize(
    const aclTensor* gradOutput, const aclIntArray* outputSize, const aclIntArray* inputSize,
    bool alignCorners, double scalesH, double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  using namespace aclnn_upsample;
  Problem problem;
  aclnnStatus status = ValidateCommon(kBicubic2dAAGrad, gradOutput, outputSize, inputSize, out,
                                      workspaceSize, executor, &problem);
  if (status != ACLNN_SUCCESS) return status;
  const AxisSpec axis_h = HeightAxis(problem, alignCorners, scalesH);
  const AxisSpec axis_w = WidthAxis(problem, alignCorners, scalesW);
  status = CheckBicubicRules(problem, axis_h, axis_w);
  if (status != ACLNN_SUCCESS) return status;
  return PlanOperator(kBicubic2dAAGrad, problem, BuildBicubicAAAxis(axis_h),
                      BuildBicubicAAAxis(axis_w), workspaceSize, executor);
}

extern "C" aclnnStatus aclnnUpsampleBicubic2dAAGrad(void* workspace, uint64_t workspaceSize,
                                                    aclOpExecutor* executor, aclrtStream stream) {
  using namespace aclnn_upsample;
  return RunOperator(kBicubic2dAAGrad, workspace, workspaceSize, executor, stream);
}
