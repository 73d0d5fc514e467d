// The forward operators (every forward row of the operator table) through the public C API
// against the independent float64 reference (tests/support/reference.cc), which computes what
// each row's mode and flags say (support::ForRow): sizes up, down and identity per axis, odd
// ratios, 1xN and Nx1 planes, both alignments, scales given, absent and rejected by the row's
// rule, every dtype, format and storage kind, NaN/Inf propagation along taps only, empty
// problems, bitwise copies for the nearest modes, and bitwise determinism across thread counts.
// Scales are multiples of a power of two: aclnnUpsampleNearest2dV2 takes them as float, and a
// scale that float rounds would test that rounding instead of the row.
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
#include "support/test_tensors.h"

namespace {

using reference::Case;
using reference::Op;
using support::CountOutOfTolerance;
using support::Describe;
using support::ExpectMatchesOnRandomData;
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

// Sizes 1, 2, primes and around the kernels' vector widths (8, 16, 32), so that every pairing
// of up, down and identity per axis occurs, with odd ratios, and 1xN / Nx1 planes on either side.
const std::vector<int64_t> kSizes = {1, 2, 3, 5, 7, 8, 9, 13, 16, 17, 31, 33};

TEST(ForwardSweep, SizesBothAlignments) {
  for (const aclnn_upsample_operator* op : ForwardRows()) {
    for (bool align : {false, true}) {
      for (size_t a = 0; a < kSizes.size(); ++a) {
        for (size_t b = 0; b < kSizes.size(); ++b) {
          const Case c = RowCase(*op, kSizes[a], kSizes[(a + 5) % kSizes.size()], kSizes[b],
                                 kSizes[(b + 3) % kSizes.size()], align);
          if (!support::WithinUpscaleLimit(*op, c)) continue;
          ExpectMatchesOnRandomData(*op, c, RunOptions{}, static_cast<uint32_t>(a * 31 + b));
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

TEST(ForwardSweep, OneByNAndNByOnePlanes) {
  for (const aclnn_upsample_operator* op : ForwardRows()) {
    for (bool align : {false, true}) {
      ExpectMatchesOnRandomData(*op, RowCase(*op, 1, 40, 1, 17, align, 0, 0, 1, 2), RunOptions{});
      ExpectMatchesOnRandomData(*op, RowCase(*op, 40, 1, 17, 1, align, 0, 0, 1, 2), RunOptions{});
      ExpectMatchesOnRandomData(*op, RowCase(*op, 1, 9, 5, 1, align), RunOptions{});
      ExpectMatchesOnRandomData(*op, RowCase(*op, 9, 1, 1, 20, align), RunOptions{});
      ExpectMatchesOnRandomData(*op, RowCase(*op, 1, 1, 1, 1, align, 0, 0, 2, 3), RunOptions{});
    }
  }
}

TEST(ForwardSweep, LargeUpAndDownscaling) {
  for (const aclnn_upsample_operator* op : ForwardRows()) {
    for (bool align : {false, true}) {
      ExpectMatchesOnRandomData(*op, RowCase(*op, 2, 3, 100, 150, align),
                                RunOptions{});  // 50x on both axes
      ExpectMatchesOnRandomData(*op, RowCase(*op, 300, 31, 10, 1, align),
                                RunOptions{});  // 30x down
      ExpectMatchesOnRandomData(*op, RowCase(*op, 60, 90, 2, 3, align, 0, 0, 1, 2), RunOptions{});
    }
  }
}

TEST(ForwardSweep, ScalesGivenAndAbsent) {
  for (const aclnn_upsample_operator* op : ForwardRows()) {
    for (bool align : {false, true}) {
      ExpectMatchesOnRandomData(*op, RowCase(*op, 8, 6, 16, 12, align, 2.0, 2.0), RunOptions{});
      ExpectMatchesOnRandomData(*op, RowCase(*op, 8, 6, 16, 12, align, 0.0, 0.0), RunOptions{});
      ExpectMatchesOnRandomData(*op, RowCase(*op, 8, 6, 16, 12, align, 3.0, 1.5), RunOptions{});
      ExpectMatchesOnRandomData(*op, RowCase(*op, 10, 9, 3, 4, align, 0.3125, 0.4375),
                                RunOptions{});
      ExpectMatchesOnRandomData(*op, RowCase(*op, 7, 7, 17, 12, align, 2.5, 1.75), RunOptions{});
      ExpectMatchesOnRandomData(*op, RowCase(*op, 9, 9, 9, 9, align, 1.25, 1.125), RunOptions{});
      ExpectMatchesOnRandomData(*op, RowCase(*op, 9, 9, 18, 4, align, 2.25, 0.375), RunOptions{});
      // Negative scales where the row does not reject them: not given.
      if (!op->rejects_negative_scales) {
        ExpectMatchesOnRandomData(*op, RowCase(*op, 8, 6, 16, 12, align, -2.0, -0.5), RunOptions{});
      }
    }
  }
}

// Each row reads a scale as its flags say (support::ExpectReadsScaleByItsFlags: the reading it
// must take and the one a row breaking its rule would take, told apart on the axis first): used
// as given, used only when consistent with outputSize (bilinear), ignored under alignCorners, or
// ignored altogether (a row without scales). Nearest indices move in steps of a pixel, so some
// axes cannot tell the readings apart for them; every row must be judged on several.
TEST(ForwardScales, EachRowReadsScalesByItsFlags) {
  struct Axis {
    int64_t in, out;
    double scale;
    bool align;
  };
  const Axis axes[] = {
      {7, 17, 2.5, false},          // consistent: floor(7 * 2.5) = 17
      {7, 18, 2.5, false},          // inconsistent (rounded up)
      {5, 8, 1.75, false},          // consistent, and nearest indices differ
      {5, 9, 1.75, false},          // inconsistent, and nearest indices differ
      {10, 3, 0.3125, false},       // consistent downscale
      {10, 4, 0.3125, false},       // inconsistent downscale
      {5, 9, 3.125, false},         // far from in * scale
      {20, 2001, 100.0625, false},  // consistent, but 1/scales < 0.01
      {7, 17, 2.5, true},           // alignCorners ignores scales where the row takes it
      {7, 17, -2.5, false},         // negative: not given (rows that reject it are skipped)
  };
  for (const aclnn_upsample_operator* op : ForwardRows()) {
    int judged = 0;
    for (const Axis& axis : axes) {
      if (axis.scale < 0 && op->rejects_negative_scales) continue;
      if (op->max_upscale > 0 &&
          (axis.scale > op->max_upscale || double(axis.out) > double(axis.in) * op->max_upscale)) {
        continue;  // beyond the row's upscaling limit: an error row, not a reading
      }
      for (bool on_h : {true, false}) {
        judged += support::ExpectReadsScaleByItsFlags(*op, axis.in, axis.out, axis.align,
                                                      axis.scale, on_h, RunOptions{}, 2);
      }
    }
    EXPECT_GE(judged, 6) << op->name << ": too few axes tell the readings apart";
  }
}

TEST(ForwardSweep, EverySupportedDType) {
  for (const aclnn_upsample_operator* op : ForwardRows()) {
    for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      RunOptions options;
      options.dtype = dtype;
      ExpectMatchesOnRandomData(*op, RowCase(*op, 9, 17, 18, 33, false, 0, 0, 2, 3), options);
      ExpectMatchesOnRandomData(*op, RowCase(*op, 33, 16, 13, 7, true, 0, 0, 1, 2), options);
      ExpectMatchesOnRandomData(*op, RowCase(*op, 5, 5, 5, 5, false, 0, 0, 1, 1), options);
      ExpectMatchesOnRandomData(*op, RowCase(*op, 20, 12, 48, 20, false, 2.25, 0, 2, 16), options);
    }
  }
}

// The layouts each row accepts: NCHW contiguous, NCHW views with channels-last strides (C >= 8
// with unit channel stride runs the channels-last plan, C = 3 the planar one on strided rows),
// padded rows, a storage offset, a broadcast input (zero N and C strides), and the NHWC or ND
// formats where the row's flags accept them.
std::vector<std::pair<aclFormat, Storage>> LayoutsOf(const aclnn_upsample_operator& op) {
  std::vector<std::pair<aclFormat, Storage>> layouts = {
      {ACL_FORMAT_NCHW, Storage::kContiguous},    {ACL_FORMAT_NCHW, Storage::kChannelsLastView},
      {ACL_FORMAT_NCHW, Storage::kPaddedRows},    {ACL_FORMAT_NCHW, Storage::kOffset},
      {ACL_FORMAT_NCHW, Storage::kBroadcastGrad},
  };
  for (Storage storage :
       {Storage::kContiguous, Storage::kPaddedRows, Storage::kOffset, Storage::kBroadcastGrad}) {
    if (op.accepts_nhwc) layouts.push_back({ACL_FORMAT_NHWC, storage});
    if (op.accepts_nd) layouts.push_back({ACL_FORMAT_ND, storage});
  }
  return layouts;
}

TEST(ForwardSweep, FormatsAndStorageKinds) {
  for (const aclnn_upsample_operator* op : ForwardRows()) {
    for (const auto& [format, storage] : LayoutsOf(*op)) {
      for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
        for (int64_t channels : {3, 8, 16, 37}) {
          RunOptions options;
          options.dtype = dtype;
          options.format = format;
          options.storage = storage;
          ExpectMatchesOnRandomData(*op, RowCase(*op, 7, 10, 13, 5, false, 0, 0, 2, channels),
                                    options);
          ExpectMatchesOnRandomData(*op, RowCase(*op, 12, 6, 6, 19, true, 0, 0, 1, channels),
                                    options);
          ExpectMatchesOnRandomData(*op, RowCase(*op, 9, 9, 9, 21, false, 0, 2.25, 1, channels),
                                    options);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

// A NaN or Inf in the input reaches exactly the outputs whose formula has it as a tap (a tap of
// weight 0 included; an Inf times such a tap, or +Inf meeting -Inf, gives NaN), and every other
// output stays within the tolerance of the finite reference. Planar and channels-last plans,
// NHWC where accepted, every dtype, identity axes.
TEST(ForwardNonFinite, PropagatesAlongTapsOnly) {
  struct Poison {
    int64_t h, w;
    double value;
  };
  const double inf = INFINITY, nan = std::nan("");
  const std::vector<std::vector<Poison>> poisons = {
      {{3, 2, nan}},
      {{2, 5, inf}},
      {{0, 0, -inf}},
      {{10, 10, inf}},  // clamped to the last row and column: border taps
      {{3, 1, inf}, {3, 2, -inf}, {4, 1, nan}},
  };
  // (in_h, in_w, out_h, out_w): both axes resized up and down, identity on H, on W, on both.
  const int64_t shapes[][4] = {
      {6, 9, 11, 4}, {11, 4, 6, 9}, {6, 9, 6, 4}, {6, 9, 11, 9}, {5, 7, 5, 7}};
  for (const aclnn_upsample_operator* op : ForwardRows()) {
    int reached = 0;
    std::vector<std::pair<aclFormat, std::pair<Storage, int64_t>>> layouts = {
        {ACL_FORMAT_NCHW, {Storage::kContiguous, 2}},
        {ACL_FORMAT_NCHW, {Storage::kChannelsLastView, 9}},
    };
    if (op->accepts_nhwc) {
      layouts.push_back({ACL_FORMAT_NHWC, {Storage::kContiguous, 9}});
      layouts.push_back({ACL_FORMAT_NHWC, {Storage::kContiguous, 3}});
    }
    for (const auto& [format, storage_and_channels] : layouts) {
      for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
        for (bool align : {false, true}) {
          for (const auto& shape : shapes) {
            for (const std::vector<Poison>& poison : poisons) {
              const Case c = RowCase(*op, shape[0], shape[1], shape[2], shape[3], align, 0, 0, 2,
                                     storage_and_channels.second);
              std::vector<double> x = support::RandomValues(c.result_elements(), 5);
              for (int64_t plane : {int64_t{1}, c.n * c.c - 1}) {
                for (const Poison& p : poison) {
                  const int64_t h = std::min(p.h, c.in_h - 1), w = std::min(p.w, c.in_w - 1);
                  x[(plane * c.in_h + h) * c.in_w + w] = p.value;
                }
              }
              RunOptions options;
              options.dtype = dtype;
              options.format = format;
              options.storage = storage_and_channels.first;
              const std::string label =
                  Describe(*op, c, options) + " poison " + std::to_string(poison[0].value) +
                  " at " + std::to_string(poison[0].h) + "," + std::to_string(poison[0].w);
              std::vector<double> expected;
              support::ExpectMatchesReference(*op, c, x, options, label, &expected);
              const auto non_finite = std::count_if(expected.begin(), expected.end(),
                                                    [](double v) { return !std::isfinite(v); });
              // Only a nearest mode skips inputs (downscaling reads one pixel of several).
              if (non_finite == 0) {
                EXPECT_TRUE(reference::IsNearest(support::ModeOf(*op)))
                    << label << ": the poison reached nothing";
              } else {
                ++reached;
              }
              EXPECT_LT(non_finite, static_cast<long>(expected.size())) << label;
              if (HasFailure()) return;
            }
          }
        }
      }
    }
    EXPECT_GT(reached, 0) << op->name << ": no poison reached an output";
  }
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

// N or C of 0: a row that accepts empty problems succeeds and writes nothing (Run backs the
// empty view with the storage it would have with N and C at 1, filled with sentinels); any other
// row rejects the call, also without writing.
TEST(ForwardEmpty, EmptyProblemsFollowTheRowsFlag) {
  for (const aclnn_upsample_operator* op : ForwardRows()) {
    std::vector<std::pair<aclFormat, Storage>> layouts = {
        {ACL_FORMAT_NCHW, Storage::kContiguous},
        {ACL_FORMAT_NCHW, Storage::kChannelsLastView},
        {ACL_FORMAT_NCHW, Storage::kOffset},
    };
    if (op->accepts_nhwc) layouts.push_back({ACL_FORMAT_NHWC, Storage::kContiguous});
    if (op->accepts_nd) layouts.push_back({ACL_FORMAT_ND, Storage::kContiguous});
    for (const auto& [format, storage] : layouts) {
      for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
        for (const auto& [n, c] : {std::pair<int64_t, int64_t>{0, 3}, {2, 0}, {0, 0}, {0, 16}}) {
          const Case empty = RowCase(*op, 4, 5, 8, 9, false, 2.0, 0, n, c);
          RunOptions options;
          options.format = format;
          options.storage = storage;
          options.dtype = dtype;
          const support::RunOutput run = support::RunOperator(*op, empty, {}, options);
          SCOPED_TRACE(Describe(*op, empty, options));
          if (op->accepts_empty) {
            EXPECT_EQ(run.status, ACLNN_SUCCESS) << run.message;
          } else {
            EXPECT_EQ(run.status, ACLNN_ERR_PARAM_INVALID);
            EXPECT_NE(run.message.find(op->name), std::string::npos) << run.message;
            EXPECT_NE(run.message.find(op->source_name), std::string::npos) << run.message;
          }
          EXPECT_TRUE(run.outside_view_untouched);
        }
      }
    }
  }
}

// Bitwise identical results at 1, 2, 3 and 7 threads (ACLNN_UPSAMPLE_NUM_THREADS, read by each
// phase-1 call), on shapes large enough for the planner to cut planes into bands.
TEST(ForwardDeterminism, BitwiseAcrossThreadCounts) {
  for (const aclnn_upsample_operator* op : ForwardRows()) {
    std::vector<std::pair<Case, std::pair<aclFormat, Storage>>> cases = {
        {RowCase(*op, 97, 61, 300, 200, false), {ACL_FORMAT_NCHW, Storage::kContiguous}},
        {RowCase(*op, 300, 200, 97, 61, true, 0, 0, 1, 2), {ACL_FORMAT_NCHW, Storage::kContiguous}},
        {RowCase(*op, 64, 64, 160, 150, false, 2.5, 0), {ACL_FORMAT_NCHW, Storage::kPaddedRows}},
        {RowCase(*op, 20, 24, 40, 48, false, 0, 0, 2, 16),
         {ACL_FORMAT_NCHW, Storage::kChannelsLastView}},
    };
    if (op->accepts_nhwc) {
      cases.push_back(
          {RowCase(*op, 30, 24, 61, 47, false, 0, 0, 2, 12), {ACL_FORMAT_NHWC, Storage::kOffset}});
    }
    for (aclDataType dtype : {ACL_FLOAT, ACL_BF16}) {
      for (const auto& [c, layout] : cases) {
        RunOptions options;
        options.dtype = dtype;
        options.format = layout.first;
        options.storage = layout.second;
        const std::vector<std::vector<uint8_t>> results = support::RunAtThreadCounts(
            *op, c, support::RandomValues(c.result_elements(), 11), options, {1, 2, 3, 7});
        for (size_t i = 1; i < results.size(); ++i) {
          EXPECT_EQ(results[0], results[i]) << op->name << " " << c.Name() << " run " << i;
        }
      }
    }
  }
}

}  // namespace
