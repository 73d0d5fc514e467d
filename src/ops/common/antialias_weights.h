// The anti-aliased resampling matrix of PyTorch's _upsample_*_aa operators (and PIL's resize),
// shared by every antialias mode; the modes differ only in their filter.
#ifndef ACLNN_UPSAMPLE_OPS_COMMON_ANTIALIAS_WEIGHTS_H_
#define ACLNN_UPSAMPLE_OPS_COMMON_ANTIALIAS_WEIGHTS_H_

#include "engine/axis_weights.h"

namespace aclnn_upsample {

struct AntialiasFilter {
  double (*weight)(double distance);  // the filter at a distance in input samples (unscaled)
  double half_width;                  // the filter is 0 at distances >= half_width
};

// Output o's taps are the inputs within ratio * half_width of its centre ratio * (o + 0.5) when
// downsampling (ratio >= 1: the filter stretched so that every input contributes), within
// half_width when upsampling, each weighted by the filter at its scaled distance and
// normalised to sum 1.
ForwardAxis BuildAntialiasAxis(const AxisSpec& axis, const AntialiasFilter& filter);

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_OPS_COMMON_ANTIALIAS_WEIGHTS_H_
