// The kernels' view of a W axis: pointers into plan data (the exact runs and, when present,
// the uniform or periodic interior and the blocked form). The one place plan data becomes a
// GatherAxis.
#ifndef ACLNN_UPSAMPLE_ENGINE_GATHER_VIEW_H_
#define ACLNN_UPSAMPLE_ENGINE_GATHER_VIEW_H_

#include "engine/axis_weights.h"
#include "kernels/kernels.h"

namespace aclnn_upsample {

// `uniform`, `blocked`, `periodic` and `taps` may be null (or empty) to leave those forms out.
inline kernels::GatherAxis MakeGatherAxis(const AxisRuns& exact, const UniformInterior* uniform,
                                          const BlockedAxis* blocked,
                                          const PeriodicInterior* periodic = nullptr,
                                          const TapTable* taps = nullptr) {
  kernels::GatherAxis axis;
  axis.length = static_cast<size_t>(exact.result_size);
  axis.source_length = static_cast<size_t>(exact.source_size);
  axis.first = exact.first.data();
  axis.weight_offset = exact.weight_offset.data();
  axis.weights = exact.weights.data();
  if (uniform != nullptr && uniform->stride > 0) {
    axis.uniform_stride = uniform->stride;
    axis.uniform_begin = uniform->begin;
    axis.uniform_end = uniform->end;
    axis.uniform_shift = uniform->shift;
    axis.uniform_count = static_cast<int32_t>(uniform->weights.size());
    axis.uniform_weights = uniform->weights.data();
  }
  if (periodic != nullptr && periodic->lanes > 0) {
    axis.periodic_lanes = periodic->lanes;
    axis.periodic_begin = periodic->begin;
    axis.periodic_vectors = periodic->vectors;
    axis.periodic_patterns = periodic->patterns;
    axis.periodic_overhang = periodic->overhang;
    axis.periodic_overhang_pattern = periodic->overhang_pattern;
    axis.periodic_overhang_base = periodic->overhang_base;
    axis.periodic_base = periodic->base;
    axis.periodic_next_pattern = periodic->next_pattern.data();
    axis.periodic_base_step = periodic->base_step.data();
    axis.periodic_taps = periodic->taps;
    axis.periodic_span = periodic->span;
    axis.periodic_counts = periodic->counts.data();
    axis.periodic_index = periodic->index.data();
    axis.periodic_weights = periodic->weights.data();
  }
  if (taps != nullptr && taps->taps > 0) {
    axis.gathered_taps = taps->taps;
    axis.gathered_weights = taps->weights.data();
  }
  if (blocked != nullptr && blocked->lanes > 0) {
    axis.block_lanes = static_cast<size_t>(blocked->lanes);
    axis.window_begin = blocked->window_begin.data();
    axis.block_offset = blocked->block_offset.data();
    axis.block_weights = blocked->weights.data();
  }
  return axis;
}

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_ENGINE_GATHER_VIEW_H_
