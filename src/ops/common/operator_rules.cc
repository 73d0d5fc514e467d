#include "ops/common/operator_rules.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "ops/common/axis_ratio.h"
#include "runtime/error.h"

namespace aclnn_upsample {
namespace {

std::string ToText(double value) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.17g", value);
  return text;
}

aclnnStatus Invalid(const aclnn_upsample_operator& op, const std::string& parameter,
                    const std::string& expected, const std::string& actual) {
  return Fail(ACLNN_ERR_PARAM_INVALID, op.name, parameter, expected, actual);
}

// The input/output ratio an operator that uses every positive scale as given applies to an
// axis: the builders' ratio without alignCorners, which changes the sampling positions, not the
// ratio the upscaling limit is measured by (contract 3.3).
double GivenScaleRatio(const AxisSpec& axis) {
  return SourceRatio(AxisSpec{axis.in_size, axis.out_size, /*align_corners=*/false, axis.scale});
}

// #14: an operator that does not accept empty tensors rejects N or C of 0.
aclnnStatus CheckEmpty(const aclnn_upsample_operator& op, const Problem& problem) {
  if (op.accepts_empty || !problem.empty()) return ACLNN_SUCCESS;
  return Invalid(
      op, std::string(op.source_name) + " shape",
      "no zero dimension (empty tensors are not supported)",
      "N = " + std::to_string(problem.batch) + ", C = " + std::to_string(problem.channels));
}

// #15: negative scales, where the operator rejects them rather than reading "not given".
aclnnStatus CheckNegativeScales(const aclnn_upsample_operator& op, const AxisSpec& axis_h,
                                const AxisSpec& axis_w) {
  if (!op.rejects_negative_scales) return ACLNN_SUCCESS;
  for (const auto& [axis, name] :
       {std::pair<const AxisSpec*, const char*>{&axis_h, "scalesH"}, {&axis_w, "scalesW"}}) {
    if (axis->scale < 0.0) {
      return Invalid(op, name, "a value >= 0 (0: not given)", ToText(axis->scale));
    }
  }
  return ACLNN_SUCCESS;
}

// #16: where every positive scale is used as given, its ratio must be finite (a subnormal scale
// has an infinite inverse) and, under an upscaling limit L, at least 1/L per axis. (Where scales
// must agree with outputSize to be used, an unusable one is simply not used: contract 1.3.)
aclnnStatus CheckScaleRatios(const aclnn_upsample_operator& op, const AxisSpec& axis_h,
                             const AxisSpec& axis_w) {
  if (op.scales_need_consistent_size) return ACLNN_SUCCESS;
  for (const auto& [axis, name] :
       {std::pair<const AxisSpec*, const char*>{&axis_h, "H"}, {&axis_w, "W"}}) {
    const double ratio = GivenScaleRatio(*axis);
    if (!std::isfinite(ratio)) {
      return Invalid(op, std::string("scales") + name,
                     "a scale whose inverse is finite (0: not given)", ToText(axis->scale));
    }
    if (op.max_upscale > 0.0 && !(ratio >= 1.0 / op.max_upscale)) {
      // The forward input's size is inputSize in a backward signature and the source's own size
      // in a forward one, which has no inputSize.
      const std::string in_size = op.direction == ACLNN_UPSAMPLE_FORWARD
                                      ? std::string(op.source_name) + " size"
                                      : std::string("inputSize");
      return Invalid(op, std::string("upscaling factor of axis ") + name,
                     "at most " + ToText(op.max_upscale) +
                         " (input/output ratio >= " + ToText(1.0 / op.max_upscale) +
                         ", from 1/scales if given, else " + in_size + "/outputSize)",
                     "ratio " + ToText(ratio) + " (" + in_size + " " +
                         std::to_string(axis->in_size) + ", outputSize " +
                         std::to_string(axis->out_size) + ", scales " + ToText(axis->scale) + ")");
    }
  }
  return ACLNN_SUCCESS;
}

// Contract 1.3: a scale is used only when it gives outputSize (out == floor(in * scale)) and is
// not a more than 100x upsample.
bool ScaleConsistentWithSize(const AxisSpec& axis) {
  return static_cast<double>(axis.out_size) ==
             std::floor(static_cast<double>(axis.in_size) * axis.scale) &&
         1.0 / axis.scale >= 0.01;
}

}  // namespace

AxisSpec AxisAsGiven(const aclnn_upsample_operator& op, int64_t in_size, int64_t out_size,
                     bool align_corners, double scale) {
  double given = op.takes_scales ? scale : 0.0;
  // A float parameter in CANN's prototype: the table's double arrives rounded, as through the C
  // entry point (where the rounding has already happened and this changes nothing).
  if (op.scales_are_float) given = static_cast<float>(given);
  return AxisSpec{in_size, out_size, op.takes_align_corners && align_corners, given};
}

AxisSpec AxisAsUsed(const aclnn_upsample_operator& op, AxisSpec axis) {
  if (!(axis.scale > 0.0) || (op.scales_need_consistent_size && !ScaleConsistentWithSize(axis))) {
    axis.scale = 0.0;
  }
  return axis;
}

aclnnStatus CheckOperatorRules(const aclnn_upsample_operator& op, const Problem& problem,
                               const AxisSpec& axis_h, const AxisSpec& axis_w) {
  aclnnStatus status = CheckEmpty(op, problem);
  if (status == ACLNN_SUCCESS) status = CheckNegativeScales(op, axis_h, axis_w);
  if (status == ACLNN_SUCCESS) status = CheckScaleRatios(op, axis_h, axis_w);
  return status;
}

}  // namespace aclnn_upsample
