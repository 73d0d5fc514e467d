// The 1-D matrices of the nearest-neighbour operators: one tap of weight 1 per output. The
// source index is computed exactly as PyTorch's ATen computes it (UpSample.h), in float32
// arithmetic: an index is not a rounding error within a tolerance but a different pixel, so the
// library reproduces those roundings rather than the exact-arithmetic formula.
#ifndef ACLNN_UPSAMPLE_OPS_UPSAMPLE_NEAREST2D_NEAREST_WEIGHTS_H_
#define ACLNN_UPSAMPLE_OPS_UPSAMPLE_NEAREST2D_NEAREST_WEIGHTS_H_

#include <cstdint>

#include "engine/axis_weights.h"

namespace aclnn_upsample {

// PyTorch's compute_scales_value<float>: the float32 input/output ratio, (float)(1/scale) for a
// used scale, else (float)in / (float)out.
float NearestRatio(const AxisSpec& axis);

// min(floor(position), last) for a float32 position, with positions that are NaN or below 0
// (0 * Inf, for a ratio beyond float's range) reading input 0 and those beyond int64 the last.
int64_t NearestIndexAtMost(float position, int64_t last);

// The matrix with one tap of weight 1 per output o, at source_index(o) (PyTorch's ratio and
// the axis's last index given): the shape of every nearest mode.
template <class SourceIndex>
ForwardAxis BuildSelectionAxis(const AxisSpec& axis, SourceIndex source_index) {
  ForwardAxis forward;
  forward.in_size = axis.in_size;
  forward.out_size = axis.out_size;
  const float ratio = NearestRatio(axis);
  const int64_t last = axis.in_size - 1;
  const double one = 1.0;
  for (int64_t o = 0; o < axis.out_size; ++o) forward.AddRow(source_index(o, ratio, last), &one, 1);
  return forward;
}

// aclnnUpsampleNearest2d(V2) and aclnnUpsampleNearest2dBackward, PyTorch's legacy nearest
// (nearest_idx): equal lengths copy, a doubled length takes o >> 1 (whatever the scale), else
// min(floor(o * ratio), in - 1).
ForwardAxis BuildNearestAxis(const AxisSpec& axis);

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_OPS_UPSAMPLE_NEAREST2D_NEAREST_WEIGHTS_H_
