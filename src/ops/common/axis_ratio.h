// The input/output ratio of one axis as PyTorch's area_pixel_compute_scale reads it, shared by
// every operator with an alignCorners parameter.
#ifndef ACLNN_UPSAMPLE_OPS_COMMON_AXIS_RATIO_H_
#define ACLNN_UPSAMPLE_OPS_COMMON_AXIS_RATIO_H_

#include <cmath>
#include <cstdint>

#include "engine/axis_weights.h"

namespace aclnn_upsample {

// (in-1)/(out-1) with alignCorners (0 for a single output, which then samples input 0); else
// 1/scale where a scale is used (AxisAsUsed has set every unused one to 0); else in/out.
inline double SourceRatio(const AxisSpec& axis) {
  const double in = static_cast<double>(axis.in_size);
  const double out = static_cast<double>(axis.out_size);
  if (axis.align_corners) return axis.out_size > 1 ? (in - 1.0) / (out - 1.0) : 0.0;
  return axis.scale > 0.0 ? 1.0 / axis.scale : in / out;
}

// floor(position) as an index no larger than `last`, defined for positions beyond int64's
// range (a used scale can make the ratio as large as 1/DBL_MIN): those are past the last input.
inline int64_t FloorIndexAtMost(double position, int64_t last) {
  if (!(position < static_cast<double>(last))) return last;
  return static_cast<int64_t>(std::floor(position));
}

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_OPS_COMMON_AXIS_RATIO_H_
