// The backward operators (every backward row of the operator table) through the public C API
// against the independent float64 reference, which computes what each row's mode and flags say
// (support::ForRow): documented examples, the reference's own adjoint identity, the shared sweeps
// of support/row_sweeps.h (sizes, ratios, scales, dtypes, formats and storage kinds, NaN/Inf
// propagation, empty problems, bitwise determinism across thread counts), each side of each
// row's scale rule, and the upscaling limit read through scales.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "support/reference.h"
#include "support/row_sweeps.h"
#include "support/test_tensors.h"

namespace {

using reference::Case;
using reference::MakeResizeCase;
using reference::Op;
using support::ExpectMatchesOnRandomData;
using support::RowCase;
using support::RunOptions;

std::vector<const aclnn_upsample_operator*> BackwardRows() {
  return support::OperatorsOf(ACLNN_UPSAMPLE_BACKWARD);
}

TEST(DocumentedExamples, BilinearMatchesContract) {
  Case c = MakeResizeCase(Op::kBilinear, 3, 3, 6, 6, true, 2.0, 2.0);
  const support::RunOutput run = support::Run(c, std::vector<double>(36, 1.0), RunOptions{});
  ASSERT_EQ(run.status, ACLNN_SUCCESS) << run.message;
  const double expected[9] = {3.24, 4.32, 3.24, 4.32, 5.76, 4.32, 3.24, 4.32, 3.24};
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(run.values[i], expected[i], 1e-5) << i;
}

TEST(DocumentedExamples, BicubicAAMatchesContract) {
  Case c = MakeResizeCase(Op::kBicubicAA, 8, 4, 4, 2, true, 2.0, 2.0);
  std::vector<double> grad(8);
  std::iota(grad.begin(), grad.end(), 0.0);
  const support::RunOutput run = support::Run(c, grad, RunOptions{});
  ASSERT_EQ(run.status, ACLNN_SUCCESS) << run.message;
  const double expected[32] = {
      -0.037380, -0.021394, 0.076689, 0.210637, -0.019148, 0.026700, 0.200382, 0.428001,
      0.054657,  0.153699,  0.411533, 0.732542, 0.137444,  0.293525, 0.637135, 1.051797,
      0.170893,  0.347117,  0.715870, 1.156116, 0.237614,  0.463294, 0.912605, 1.443050,
      0.538375,  1.014847,  1.918604, 2.973265, 1.005456,  1.876058, 3.500808, 5.389207};
  double total = 0;
  for (int i = 0; i < 32; ++i) {
    EXPECT_NEAR(run.values[i], expected[i], 1e-6) << i;
    total += run.values[i];
  }
  EXPECT_NEAR(total, 28.0, 1e-4);
}

// <forward(x), g> == <x, backward(g)> for the reference itself, in every row's reading: this
// validates the tap-only backward against the naive forward (all matrix entries) of the same
// matrices. (The library's side is adjoint_test.cc.)
TEST(Adjoint, ReferenceBackwardIsTheNaiveForwardTransposed) {
  struct Shape {
    int64_t in_h, in_w, out_h, out_w;
    bool align;
    double scales_h, scales_w;
    int64_t n, c;
  };
  const Shape shapes[] = {
      {5, 7, 11, 3, false, 0, 0, 2, 3},       {9, 4, 17, 8, true, 0, 0, 1, 2},
      {16, 13, 8, 31, false, 0.5, 2.4, 1, 1}, {30, 8, 7, 19, false, 0, 0, 2, 1},
      {13, 60, 29, 2, true, 0, 0, 1, 2},      {12, 10, 5, 25, false, 0.4, 2.5, 1, 1},
  };
  for (const aclnn_upsample_operator* op : BackwardRows()) {
    for (const Shape& s : shapes) {
      const Case c = support::ForRow(*op, RowCase(*op, s.in_h, s.in_w, s.out_h, s.out_w, s.align,
                                                  s.scales_h, s.scales_w, s.n, s.c));
      const std::vector<double> x = support::RandomValues(c.result_elements(), 7);
      const std::vector<double> g = support::RandomValues(c.grad_elements(), 8);
      const std::vector<double> y = reference::Forward(c, x);
      std::vector<double> back, magnitude;
      reference::Backward(c, g, &back, &magnitude);
      double lhs = 0, rhs = 0, scale = 0;
      for (size_t i = 0; i < y.size(); ++i) lhs += y[i] * g[i];
      for (size_t i = 0; i < x.size(); ++i) {
        rhs += x[i] * back[i];
        scale += std::abs(x[i]) * magnitude[i];
      }
      EXPECT_GT(scale, 0.0) << op->name << " " << c.Name();
      EXPECT_NEAR(lhs, rhs, 1e-12 * scale) << op->name << " " << c.Name();
    }
  }
}

TEST(Sweep, SizesEveryRowBothAlignments) { support::SweepSizes(BackwardRows()); }

TEST(Sweep, OneByNAndNByOnePlanes) { support::SweepThinPlanes(BackwardRows()); }

TEST(Sweep, LargeUpAndDownscaling) { support::SweepLargeRatios(BackwardRows()); }

TEST(Sweep, ScalesGivenAbsentAndInconsistent) { support::SweepScales(BackwardRows()); }

TEST(Sweep, EverySupportedDType) { support::SweepDTypes(BackwardRows()); }

TEST(Sweep, FormatsAndStorageKinds) { support::SweepLayouts(BackwardRows()); }

TEST(Sweep, EmptyProblemsFollowTheRowsFlag) { support::SweepEmpty(BackwardRows()); }

TEST(NonFinite, PropagatesAlongTapsOnly) { support::SweepNonFinite(BackwardRows()); }

TEST(Determinism, BitwiseAcrossThreadCounts) { support::SweepDeterminism(BackwardRows()); }

TEST(Nearest, IndicesFollowFloat32Arithmetic) {
  EXPECT_GT(support::SweepNearestFloatIndices(BackwardRows()), 0) << "no nearest backward row";
}

// ---------------------------------------------------------------------------------------------
// Contract 1.3 and ops7's scale rule, each side of each rule per row
// (support::ExpectReadsScaleByItsFlags: the reading the row's flags prescribe, and the one a row
// breaking its rule would take, told apart on the axis first). Inputs of 1 (one tap whatever the
// ratio) and outputSize == inputSize * scales exactly (in/out is then the same double as
// 1/scales) cannot tell the readings apart, and nearest indices move in whole pixels. Every
// backward row takes double scales, so odd ones are fine here.
const double kBelow100 = std::nextafter(100.0, 0.0);  // 1/scales just above 0.01

const std::vector<support::ScaleAxis> kScaleAxes = {
    {"consistent", 7, 17, false, 2.5},
    {"outputSize = floor + 1 (rounded up)", 7, 18, false, 2.5},
    {"outputSize = floor - 1", 7, 16, false, 2.5},
    {"consistent downscale", 10, 3, false, 0.35},
    {"inconsistent downscale", 10, 4, false, 0.35},
    {"outputSize far from in * scales", 5, 9, false, 3.1},
    {"consistent, nearest indices differ", 5, 8, false, 1.75},
    {"inconsistent, nearest indices differ", 5, 9, false, 1.75},
    // floor(3 * kBelow100) is 299: consistent, and 1/scales (about 0.01) is 3/299 less 0.3%.
    {"1/scales one ulp above 0.01", 3, 299, false, kBelow100},
    {"scales 100.049 (1/scales < 0.01)", 20, 2000, false, 100.049},
    {"scales 150.5", 3, 451, false, 150.5},
    {"negative scales", 7, 17, false, -2.5},
    {"alignCorners ignores scales", 7, 17, true, 2.5},
};

TEST(ScaleRules, EachSideOfEachRuleOnHAndW) {
  support::ExpectRowsReadScales(BackwardRows(), kScaleAxes, 10);
}

// The boundary scale itself is usable (1/100 == 0.01), but at scales 100 and at the next
// double above it consistency forces outputSize == 100 * inputSize, so in/out equals 1/scales
// to the last bit or two and no result can show which reading was taken: the rule's edge is
// observable only from the rows above (one double below 100, and 100.049). This checks what
// can be checked there, for each row with the rule: the readings coincide and the library
// agrees with them on both axes.
TEST(ScaleRules, AtScale100BothReadingsCoincide) {
  for (const aclnn_upsample_operator* op : BackwardRows()) {
    if (!op->scales_need_consistent_size) continue;
    for (double scale : {100.0, std::nextafter(100.0, 200.0)}) {
      const Case c = support::ForRow(*op, RowCase(*op, 3, 5, 300, 9, false, scale, 0));
      EXPECT_EQ(reference::UsedScale(c, 3, 300, scale), scale == 100.0 ? scale : 0.0);
      EXPECT_NEAR(1 / scale, 3.0 / 300, 1e-17);
      ExpectMatchesOnRandomData(*op, RowCase(*op, 3, 5, 300, 9, false, scale, 0), RunOptions{});
      ExpectMatchesOnRandomData(*op, RowCase(*op, 5, 3, 9, 300, false, 0, scale), RunOptions{});
    }
  }
}

// A row with an upscaling limit judges it through r = 1/scales when a scale is given (contract
// 3.3), so sizes beyond the limit are accepted when the scale says exactly the limit, and
// computed with that scale.
TEST(Sweep, BeyondTheUpscaleLimitBySizesAcceptedByScales) {
  for (const aclnn_upsample_operator* op : BackwardRows()) {
    if (op->max_upscale <= 0) continue;
    const double limit = op->max_upscale;
    const int64_t beyond = static_cast<int64_t>(2 * limit) + 1;
    for (bool align : {false, true}) {
      ExpectMatchesOnRandomData(*op, RowCase(*op, 2, 5, beyond, 9, align, limit, 0), RunOptions{});
      ExpectMatchesOnRandomData(*op, RowCase(*op, 5, 3, 9, beyond + 19, align, 0, limit),
                                RunOptions{});
      // Scale 1 over 2 -> 400: most output rows lie beyond the image.
      ExpectMatchesOnRandomData(*op, RowCase(*op, 2, 4, 400, 4, align, 1.0, 0), RunOptions{});
    }
  }
}

// A scale near the smallest doubles: 1/scale (about 1e308) is finite, so the call is valid,
// but the filter support 2/scale overflows. Formula 1.2 in exact arithmetic still gives rows 0
// and 1 (whose centres lie within two ratios of the image) the whole axis, each tap weighing
// 1/W, and every later row no tap at all; so a NaN in a later row reaches nothing, and each
// result is (g[0] + g[1]) / W exactly as at 1e-300, where nothing overflows.
TEST(Sweep, BicubicAAScaleWhoseSupportOverflows) {
  const int64_t width = 8;
  for (double scale : {1e-300, 1e-308, 6e-309}) {
    for (bool on_h : {false, true}) {
      Case c = on_h ? MakeResizeCase(Op::kBicubicAA, width, 1, width, 1, false, scale, 0)
                    : MakeResizeCase(Op::kBicubicAA, 1, width, 1, width, false, 0, scale);
      std::vector<double> grad(width);
      std::iota(grad.begin(), grad.end(), 1.0);
      grad[5] = std::nan("");
      const support::RunOutput run = support::Run(c, grad, RunOptions{});
      ASSERT_EQ(run.status, ACLNN_SUCCESS) << scale << ": " << run.message;
      ASSERT_EQ(run.values.size(), static_cast<size_t>(width));
      for (int64_t i = 0; i < width; ++i) {
        EXPECT_NEAR(run.values[i], (grad[0] + grad[1]) / width, 1e-6)
            << "scale " << scale << (on_h ? " on H" : " on W") << ", element " << i;
      }
    }
  }
}

}  // namespace
