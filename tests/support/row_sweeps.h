// The sweeps that forward_test and operator_test run over their rows of the operator table, one
// direction each: every check compares the library with the float64 reference of what the row's
// mode and flags say (support::ExpectMatchesReference), so that a forward and a backward row are
// held to the same cases. Failures are reported through gtest in the calling test.
#ifndef ACLNN_UPSAMPLE_TESTS_SUPPORT_ROW_SWEEPS_H_
#define ACLNN_UPSAMPLE_TESTS_SUPPORT_ROW_SWEEPS_H_

#include <cstdint>
#include <vector>

#include "aclnn_upsample/operators.h"

namespace support {

using Rows = std::vector<const aclnn_upsample_operator*>;

// Sizes 1, 2, primes and around the kernels' vector widths (8, 16, 32) on each side, so that
// every pairing of up, down and identity per axis occurs with odd ratios, both alignments.
void SweepSizes(const Rows& rows);

// 1xN and Nx1 planes on either side, and 1x1.
void SweepThinPlanes(const Rows& rows);

// 50x upscaling, 30x downscaling, and beyond 50x where the row has no limit.
void SweepLargeRatios(const Rows& rows);

// Scales given (consistent and not, up and down), absent, and negative where not rejected. The
// scales are multiples of a power of two: aclnnUpsampleNearest2dV2 takes them as float, and a
// scale that float rounds would test that rounding instead of the row.
void SweepScales(const Rows& rows);

// FLOAT32, FLOAT16 and BFLOAT16 on several shapes, planes and scales.
void SweepDTypes(const Rows& rows);

// Every layout the row accepts (NCHW contiguous, channels-last views, padded rows, an offset, a
// broadcast source with zero N and C strides; NHWC and ND storage kinds where the flags accept
// them) in every dtype, with channel counts that run the planar, channels-last and plane-group
// plans.
void SweepLayouts(const Rows& rows);

// A NaN or Inf in the source reaches exactly the results whose formula has it as a tap (a tap
// of weight 0 included; an Inf times such a tap, or +Inf meeting -Inf, gives NaN), and every
// other result stays within the tolerance of the finite reference: planar and channels-last
// plans, NHWC where accepted, every dtype, identity axes, border taps.
void SweepNonFinite(const Rows& rows);

// N or C of 0: a row that accepts empty problems succeeds and writes nothing (the empty view is
// backed by the storage it would have with N and C at 1, filled with sentinels); any other row
// rejects the call with a message naming the row and its source, also without writing.
void SweepEmpty(const Rows& rows);

// Bitwise identical results at 1, 2, 3 and 7 threads (ACLNN_UPSAMPLE_NUM_THREADS, read by each
// phase-1 call), on shapes the planner cuts into bands, in each layout family the row accepts.
void SweepDeterminism(const Rows& rows);

// The row on a 1 x in <-> 1 x out FLOAT32 resize (alignCorners false, no scales) too long for
// the reference's dense matrices, checked element by element against its sparse taps (and, for
// a nearest forward row, as bitwise copies).
void ExpectLongAxis(const aclnn_upsample_operator& op, int64_t in, int64_t out);

// Nearest modes only (other rows are skipped): resizes on W and H whose float32 index
// arithmetic (PyTorch's) picks another source pixel than exact arithmetic would for some output,
// found by search and by sizes near 2^20, so that a row computing indices in double or in
// integers fails. Returns how many such axes ran per nearest row (0 if none is nearest).
int SweepNearestFloatIndices(const Rows& rows);

// One axis of a scale-reading check (see ExpectReadsScaleByItsFlags).
struct ScaleAxis {
  const char* rule;
  int64_t in, out;
  bool align;
  double scale;
};

// Each row reads each axis's scale as its flags say, on H and on W, in NCHW and (where accepted)
// NHWC with 3 and 16 channels (NHWC puts H at inputSize[1]: a scale checked against the NCHW
// positions would meet another size there). Axes beyond the row's upscaling limit, and negative
// scales where the row rejects them, are error rows and skipped. Nearest indices move in whole
// pixels, so some axes cannot tell the two readings apart for them; each row must be judged on
// at least `min_judged` (axis, side, layout) runs.
void ExpectRowsReadScales(const Rows& rows, const std::vector<ScaleAxis>& axes, int min_judged);

}  // namespace support

#endif  // ACLNN_UPSAMPLE_TESTS_SUPPORT_ROW_SWEEPS_H_
