// The forward operators (every forward row of the operator table) through the public C API
// against the independent float64 reference (tests/support/reference.cc), which computes what
// each row's mode and flags say (support::ForRow): the shared sweeps of support/row_sweeps.h
// (sizes up, down and identity per axis, odd ratios, 1xN and Nx1 planes, both alignments, scales
// given, absent and rejected by the row's rule, every dtype, format and storage kind, NaN/Inf
// propagation along taps only, empty problems, bitwise determinism across thread counts), and
// bitwise copies for the nearest modes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "aclnn_upsample/operators.h"
#include "support/reference.h"
#include "support/row_sweeps.h"
#include "support/test_tensors.h"

namespace {

using reference::Case;
using support::Describe;
using support::RowCase;
using support::RunOptions;
using support::Storage;

std::vector<const aclnn_upsample_operator*> ForwardRows() {
  return support::OperatorsOf(ACLNN_UPSAMPLE_FORWARD);
}

// The reference's naive forward (all matrix entries) and its tap-only forward with magnitudes
// are two independent readings of the formulas; on finite data they must agree.
TEST(Reference, TapForwardAgreesWithNaiveForward) {
  for (const aclnn_upsample_operator* op : ForwardRows()) {
    for (bool align : {false, true}) {
      const Case c = support::ForRow(*op, RowCase(*op, 7, 12, 15, 5, align, 1.75, 0, 2, 2));
      const std::vector<double> x = support::RandomValues(c.result_elements(), 3);
      const std::vector<double> naive = reference::Forward(c, x);
      std::vector<double> y, magnitude;
      reference::Forward(c, x, &y, &magnitude);
      for (size_t i = 0; i < y.size(); ++i) {
        EXPECT_NEAR(y[i], naive[i], 1e-13 * magnitude[i]) << c.Name() << " element " << i;
        EXPECT_GE(magnitude[i], std::abs(y[i]));
      }
    }
  }
}

TEST(ForwardSweep, SizesBothAlignments) { support::SweepSizes(ForwardRows()); }

TEST(ForwardSweep, OneByNAndNByOnePlanes) { support::SweepThinPlanes(ForwardRows()); }

TEST(ForwardSweep, LargeUpAndDownscaling) { support::SweepLargeRatios(ForwardRows()); }

TEST(ForwardSweep, ScalesGivenAndAbsent) { support::SweepScales(ForwardRows()); }

TEST(ForwardSweep, EverySupportedDType) { support::SweepDTypes(ForwardRows()); }

TEST(ForwardSweep, FormatsAndStorageKinds) { support::SweepLayouts(ForwardRows()); }

TEST(ForwardNonFinite, PropagatesAlongTapsOnly) { support::SweepNonFinite(ForwardRows()); }

TEST(ForwardEmpty, EmptyProblemsFollowTheRowsFlag) { support::SweepEmpty(ForwardRows()); }

TEST(ForwardDeterminism, BitwiseAcrossThreadCounts) { support::SweepDeterminism(ForwardRows()); }

// Each row reads a scale as its flags say: used as given, used only when consistent with
// outputSize (bilinear), ignored under alignCorners, or ignored altogether (a row without
// scales). Scales are multiples of a power of two (aclnnUpsampleNearest2dV2 takes float ones).
TEST(ForwardScales, EachRowReadsScalesByItsFlags) {
  const std::vector<support::ScaleAxis> axes = {
      {"consistent: floor(7 * 2.5) = 17", 7, 17, false, 2.5},
      {"inconsistent (rounded up)", 7, 18, false, 2.5},
      {"consistent, and nearest indices differ", 5, 8, false, 1.75},
      {"inconsistent, and nearest indices differ", 5, 9, false, 1.75},
      {"consistent downscale", 10, 3, false, 0.3125},
      {"inconsistent downscale", 10, 4, false, 0.3125},
      {"far from in * scale", 5, 9, false, 3.125},
      {"consistent, but 1/scales < 0.01", 20, 2001, false, 100.0625},
      {"alignCorners ignores scales where the row takes it", 7, 17, true, 2.5},
      {"negative: not given", 7, 17, false, -2.5},
  };
  support::ExpectRowsReadScales(ForwardRows(), axes, 6);
}

TEST(ForwardNearest, IndicesFollowFloat32Arithmetic) {
  EXPECT_GT(support::SweepNearestFloatIndices(ForwardRows()), 0) << "no nearest forward row";
}

// A nearest forward row copies: the bits of each result element are those of its source element
// (ExpectMatchesReference compares them) for the values arithmetic would change, too: -0 (which
// 0 + 1 * x turns into +0), NaNs with a payload or a sign, subnormals (which flush-to-zero modes
// lose) and infinities, in every dtype and on the planar and channels-last plans.
TEST(ForwardNearest, CopiesSpecialValuesBitwise) {
  const uint64_t nan_bits = 0x7FF8'4000'0000'0000;  // quiet, payload in float's and bf16's bits
  double quiet_nan_with_payload;
  std::memcpy(&quiet_nan_with_payload, &nan_bits, sizeof nan_bits);
  const double special[] = {-0.0,     0.0,      quiet_nan_with_payload, -std::nan(""),
                            1e-40,   // float subnormal
                            -1e-39,  // bfloat16 subnormal
                            3e-6,    // float16 subnormal
                            INFINITY, -INFINITY};
  int rows = 0;
  for (const aclnn_upsample_operator* op : ForwardRows()) {
    if (!reference::IsNearest(support::ModeOf(*op))) continue;
    ++rows;
    for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      for (const auto& [storage, channels] : {std::pair<Storage, int64_t>{Storage::kContiguous, 2},
                                              {Storage::kChannelsLastView, 9}}) {
        // 9 -> 20 on both axes reads every input element at least once.
        const Case c = RowCase(*op, 9, 9, 20, 20, false, 0, 0, 1, channels);
        std::vector<double> x(c.result_elements());
        for (size_t i = 0; i < x.size(); ++i) x[i] = special[i % std::size(special)];
        RunOptions options;
        options.dtype = dtype;
        options.storage = storage;
        support::ExpectMatchesReference(*op, c, x, options, Describe(*op, c, options));
      }
    }
  }
  EXPECT_GT(rows, 0) << "the table has no nearest forward row";
}

}  // namespace
