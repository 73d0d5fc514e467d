// Operator tests through the public C API against the independent float64 reference:
// documented examples, adjoint identities, size/ratio/scale sweeps, dtypes, formats and
// storage kinds, NaN/Inf propagation and bitwise determinism across thread counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>
#include <vector>

#include "support/reference.h"
#include "support/test_tensors.h"

namespace {

using reference::Case;
using reference::MakeResizeCase;
using reference::Op;
using support::CountOutOfTolerance;
using support::RunOptions;
using support::Storage;

// Runs the case and checks it against the reference within the contract's tolerance, and that
// nothing outside out's view was written.
void CheckCase(const Case& c, const RunOptions& options, uint32_t seed = 1) {
  const std::vector<double> grad = support::RandomValues(c.grad_elements(), seed);
  std::vector<double> seen;
  const support::RunOutput run = support::Run(c, grad, options, &seen);
  ASSERT_EQ(run.status, ACLNN_SUCCESS) << c.Name() << ": " << run.message;
  std::vector<double> expected, magnitude;
  reference::Backward(c, seen, &expected, &magnitude);
  EXPECT_EQ(CountOutOfTolerance(options.dtype, run.values, expected, magnitude, c.Name()), 0);
  EXPECT_TRUE(run.outside_view_untouched) << c.Name();
  for (double v : run.values) {
    ASSERT_TRUE(std::isfinite(v)) << c.Name() << ": finite input gave a non-finite result";
  }
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

// <forward(x), g> == <x, backward(g)>: first for the reference itself (which validates the
// test's own backward against its naive forward), then for the library.
TEST(Adjoint, ReferenceAndLibraryAgreeWithNaiveForward) {
  const std::vector<Case> cases = {
      MakeResizeCase(Op::kBilinear, 5, 7, 11, 3, false, 0, 0, 2, 3),
      MakeResizeCase(Op::kBilinear, 9, 4, 17, 8, true, 0, 0, 1, 2),
      MakeResizeCase(Op::kBilinear, 16, 13, 8, 31, false, 0.5, 2.4, 1, 1),
      MakeResizeCase(Op::kBicubicAA, 30, 8, 7, 19, false, 0, 0, 2, 1),
      MakeResizeCase(Op::kBicubicAA, 13, 60, 29, 2, true, 0, 0, 1, 2),
      MakeResizeCase(Op::kBicubicAA, 12, 10, 5, 25, false, 0.4, 2.5, 1, 1),
  };
  for (const Case& c : cases) {
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
    EXPECT_NEAR(lhs, rhs, 1e-12 * scale) << c.Name();

    std::vector<double> seen;
    const support::RunOutput run = support::Run(c, g, RunOptions{}, &seen);
    ASSERT_EQ(run.status, ACLNN_SUCCESS) << run.message;
    const std::vector<double> y_seen = reference::Forward(c, x);
    double lib_lhs = 0, lib_rhs = 0;
    for (size_t i = 0; i < y_seen.size(); ++i) lib_lhs += y_seen[i] * seen[i];
    for (size_t i = 0; i < x.size(); ++i) lib_rhs += x[i] * run.values[i];
    EXPECT_NEAR(lib_lhs, lib_rhs, 1e-5 * scale) << c.Name();
  }
}

// Sizes 1, 2, primes and around 8/16/32 (the vector widths of the kernels), in every
// combination of up, down and identity per axis.
const std::vector<int64_t> kSizes = {1, 2, 3, 5, 7, 8, 9, 13, 15, 16, 17, 31, 32, 33};

TEST(Sweep, SizesBothOperatorsBothAlignments) {
  for (Op op : {Op::kBilinear, Op::kBicubicAA}) {
    for (bool align : {false, true}) {
      for (size_t a = 0; a < kSizes.size(); ++a) {
        for (size_t b = 0; b < kSizes.size(); ++b) {
          const int64_t in_h = kSizes[a], out_h = kSizes[b];
          const int64_t in_w = kSizes[(a + 5) % kSizes.size()];
          const int64_t out_w = kSizes[(b + 3) % kSizes.size()];
          if (op == Op::kBicubicAA && (in_h * 50 < out_h || in_w * 50 < out_w)) continue;
          CheckCase(MakeResizeCase(op, in_h, in_w, out_h, out_w, align), RunOptions{},
                    static_cast<uint32_t>(a * 31 + b));
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

TEST(Sweep, AntialiasedDownsamplingToOneThirtieth) {
  for (bool align : {false, true}) {
    CheckCase(MakeResizeCase(Op::kBicubicAA, 60, 90, 2, 3, align, 0, 0, 1, 2), RunOptions{});
    CheckCase(MakeResizeCase(Op::kBicubicAA, 300, 31, 10, 1, align), RunOptions{});
    CheckCase(MakeResizeCase(Op::kBicubicAA, 7, 300, 7, 10, align), RunOptions{});
  }
}

TEST(Sweep, LargeUpsampling) {
  CheckCase(MakeResizeCase(Op::kBicubicAA, 2, 3, 100, 150, false), RunOptions{});  // exactly 50x
  CheckCase(MakeResizeCase(Op::kBilinear, 2, 3, 300, 7, false), RunOptions{});
  CheckCase(MakeResizeCase(Op::kBilinear, 3, 2, 64, 130, true), RunOptions{});
}

TEST(Sweep, ScalesGivenAbsentAndInconsistent) {
  for (Op op : {Op::kBilinear, Op::kBicubicAA}) {
    for (bool align : {false, true}) {
      CheckCase(MakeResizeCase(op, 8, 6, 16, 12, align, 2.0, 2.0), RunOptions{});  // consistent
      CheckCase(MakeResizeCase(op, 8, 6, 16, 12, align, 0.0, 0.0), RunOptions{});  // absent
      CheckCase(MakeResizeCase(op, 8, 6, 16, 12, align, 3.0, 1.5), RunOptions{});  // inconsistent
      CheckCase(MakeResizeCase(op, 10, 9, 3, 4, align, 0.3, 0.45),
                RunOptions{});  // downscale, given
      CheckCase(MakeResizeCase(op, 7, 7, 17, 12, align, 2.5, 1.8),
                RunOptions{});  // floor(in*s) == out
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Contract 1.3, one side of one rule per row: the ratio the contract prescribes, and the one a
// library that broke the rule would take. A row only proves something if the two readings give
// results further apart than the tolerance, so the test checks that first: inputs of 1 (one
// tap whatever the ratio) and outputSize == inputSize * scales exactly (in/out is then the same
// double as 1/scales) cannot tell the readings apart.
struct ScaleRule {
  const char* rule;
  Op op;
  int64_t in, out;
  bool align;
  double scale;
  double contract_ratio;
  double broken_ratio;
};

const double kBelow100 = std::nextafter(100.0, 0.0);  // 1/scales just above 0.01

const std::vector<ScaleRule> kScaleRules = {
    {"bilinear consistent: 1/scales", Op::kBilinear, 7, 17, false, 2.5, 1 / 2.5, 7.0 / 17},
    {"bilinear outputSize = floor + 1 (rounded up): in/out", Op::kBilinear, 7, 18, false, 2.5,
     7.0 / 18, 1 / 2.5},
    {"bilinear outputSize = floor - 1: in/out", Op::kBilinear, 7, 16, false, 2.5, 7.0 / 16,
     1 / 2.5},
    {"bilinear consistent downscale: 1/scales", Op::kBilinear, 10, 3, false, 0.35, 1 / 0.35,
     10.0 / 3},
    {"bilinear inconsistent downscale: in/out", Op::kBilinear, 10, 4, false, 0.35, 10.0 / 4,
     1 / 0.35},
    // floor(3 * kBelow100) is 299: consistent, and 1/scales (about 0.01) is 3/299 less 0.3%.
    {"bilinear 1/scales one ulp above 0.01: 1/scales", Op::kBilinear, 3, 299, false, kBelow100,
     1 / kBelow100, 3.0 / 299},
    {"bilinear scales 100.049 (1/scales < 0.01): in/out", Op::kBilinear, 20, 2000, false, 100.049,
     20.0 / 2000, 1 / 100.049},
    {"bilinear scales 150.5: in/out", Op::kBilinear, 3, 451, false, 150.5, 3.0 / 451, 1 / 150.5},
    // Implied by the consistency rule as well; the broken reading uses the magnitude.
    {"bilinear negative scales: in/out", Op::kBilinear, 7, 17, false, -2.5, 7.0 / 17, 1 / 2.5},
    {"bilinear alignCorners ignores scales", Op::kBilinear, 7, 17, true, 2.5, 6.0 / 16, 1 / 2.5},
    {"bicubic AA consistent: 1/scales", Op::kBicubicAA, 7, 17, false, 2.5, 1 / 2.5, 7.0 / 17},
    {"bicubic AA outputSize = floor - 1: still 1/scales", Op::kBicubicAA, 7, 16, false, 2.5,
     1 / 2.5, 7.0 / 16},
    {"bicubic AA outputSize far from in*scales: still 1/scales", Op::kBicubicAA, 5, 9, false, 3.1,
     1 / 3.1, 5.0 / 9},
    {"bicubic AA inconsistent downscale: still 1/scales", Op::kBicubicAA, 10, 4, false, 0.35,
     1 / 0.35, 10.0 / 4},
    {"bicubic AA alignCorners ignores scales", Op::kBicubicAA, 7, 17, true, 2.5, 6.0 / 16, 1 / 2.5},
};

// The axis under test on H or W; the other axis is a plain 5 -> 9 resize without scales.
Case ScaleRuleCase(const ScaleRule& rule, bool on_h, int64_t channels) {
  return on_h ? MakeResizeCase(rule.op, rule.in, 5, rule.out, 9, rule.align, rule.scale, 0, 1,
                               channels)
              : MakeResizeCase(rule.op, 5, rule.in, 9, rule.out, rule.align, 0, rule.scale, 1,
                               channels);
}

// The float64 result with the tested axis built from `ratio`.
void BackwardWithRatio(const Case& c, bool on_h, double ratio, const std::vector<double>& grad,
                       std::vector<double>* result, std::vector<double>* magnitude) {
  const reference::Matrix ah =
      on_h ? reference::AxisMatrixForRatio(c.op, c.in_h, c.out_h, c.align_corners, ratio)
           : reference::AxisMatrix(c.op, c.in_h, c.out_h, c.align_corners, c.scales_h);
  const reference::Matrix aw =
      on_h ? reference::AxisMatrix(c.op, c.in_w, c.out_w, c.align_corners, c.scales_w)
           : reference::AxisMatrixForRatio(c.op, c.in_w, c.out_w, c.align_corners, ratio);
  reference::BackwardWith(c, ah, aw, grad, result, magnitude);
}

int CountDistinguishable(const std::vector<double>& other, const std::vector<double>& expected,
                         const std::vector<double>& magnitude) {
  int count = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    if (!support::WithinTolerance(ACL_FLOAT, other[i], expected[i], magnitude[i])) ++count;
  }
  return count;
}

TEST(ScaleRules, EachSideOfEachRuleOnHAndW) {
  for (const ScaleRule& rule : kScaleRules) {
    SCOPED_TRACE(rule.rule);
    // The reference every other test uses reads the rule as this table does.
    EXPECT_EQ(reference::Ratio(rule.op, rule.in, rule.out, rule.align, rule.scale),
              rule.contract_ratio);
    for (bool on_h : {true, false}) {
      // NHWC (bilinear only) puts H at inputSize[1] and W at [2]: a scale checked against the
      // NCHW positions meets a size of 5 or C there, and takes the other reading. C = 16 runs
      // the channels-last plan.
      std::vector<std::pair<aclFormat, int64_t>> layouts = {{ACL_FORMAT_NCHW, 1}};
      if (rule.op == Op::kBilinear) {
        layouts.push_back({ACL_FORMAT_NHWC, 3});
        layouts.push_back({ACL_FORMAT_NHWC, 16});
      }
      for (const auto& [format, channels] : layouts) {
        const Case c = ScaleRuleCase(rule, on_h, channels);
        SCOPED_TRACE(c.Name() + (format == ACL_FORMAT_NHWC ? " NHWC" : " NCHW"));
        const std::vector<double> grad = support::RandomValues(c.grad_elements(), 17);
        RunOptions options;
        options.format = format;
        std::vector<double> seen;
        const support::RunOutput run = support::Run(c, grad, options, &seen);
        ASSERT_EQ(run.status, ACLNN_SUCCESS) << run.message;
        EXPECT_TRUE(run.outside_view_untouched);
        std::vector<double> expected, magnitude, broken, broken_magnitude;
        BackwardWithRatio(c, on_h, rule.contract_ratio, seen, &expected, &magnitude);
        BackwardWithRatio(c, on_h, rule.broken_ratio, seen, &broken, &broken_magnitude);
        ASSERT_GT(CountDistinguishable(broken, expected, magnitude), 0)
            << "this row cannot tell the two readings apart";
        EXPECT_EQ(CountOutOfTolerance(ACL_FLOAT, run.values, expected, magnitude, c.Name()), 0);
      }
    }
  }
}

// The boundary scale itself is usable (1/100 == 0.01), but at scales 100 and at the next
// double above it consistency forces outputSize == 100 * inputSize, so in/out equals 1/scales
// to the last bit or two and no result can show which reading was taken: the rule's edge is
// observable only from the rows above (one double below 100, and 100.049). This checks what
// can be checked there: the readings coincide and the library agrees with them on both axes.
TEST(ScaleRules, AtScale100BothReadingsCoincide) {
  for (double scale : {100.0, std::nextafter(100.0, 200.0)}) {
    EXPECT_EQ(reference::Ratio(Op::kBilinear, 3, 300, false, scale),
              scale == 100.0 ? 1 / scale : 3.0 / 300);
    EXPECT_NEAR(1 / scale, 3.0 / 300, 1e-17);
    for (bool on_h : {true, false}) {
      const ScaleRule rule = {"", Op::kBilinear, 3, 300, false, scale, 0, 0};
      CheckCase(ScaleRuleCase(rule, on_h, 1), RunOptions{});
    }
  }
}

TEST(Sweep, EverySupportedDType) {
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    RunOptions options;
    options.dtype = dtype;
    for (Op op : {Op::kBilinear, Op::kBicubicAA}) {
      CheckCase(MakeResizeCase(op, 9, 17, 18, 33, false, 0, 0, 2, 3), options);
      CheckCase(MakeResizeCase(op, 33, 16, 13, 7, true, 0, 0, 1, 2), options);
      CheckCase(MakeResizeCase(op, 5, 5, 5, 5, false, 0, 0, 1, 1), options);
      CheckCase(MakeResizeCase(op, 20, 12, 20, 48, false, 0, 0, 2, 16), options);
    }
  }
}

TEST(Sweep, FormatsAndStorageKinds) {
  struct Layout {
    Op op;
    aclFormat format;
    Storage storage;
  };
  const std::vector<Layout> layouts = {
      {Op::kBilinear, ACL_FORMAT_NCHW, Storage::kContiguous},
      {Op::kBilinear, ACL_FORMAT_NHWC, Storage::kContiguous},
      {Op::kBilinear, ACL_FORMAT_NHWC, Storage::kPaddedRows},
      {Op::kBilinear, ACL_FORMAT_NCHW, Storage::kChannelsLastView},
      {Op::kBilinear, ACL_FORMAT_NCHW, Storage::kPaddedRows},
      {Op::kBilinear, ACL_FORMAT_NCHW, Storage::kOffset},
      {Op::kBilinear, ACL_FORMAT_NCHW, Storage::kBroadcastGrad},
      {Op::kBilinear, ACL_FORMAT_NHWC, Storage::kBroadcastGrad},
      {Op::kBicubicAA, ACL_FORMAT_NCHW, Storage::kChannelsLastView},
      {Op::kBicubicAA, ACL_FORMAT_ND, Storage::kContiguous},
      {Op::kBicubicAA, ACL_FORMAT_ND, Storage::kPaddedRows},
      {Op::kBicubicAA, ACL_FORMAT_NCHW, Storage::kOffset},
      {Op::kBicubicAA, ACL_FORMAT_NCHW, Storage::kBroadcastGrad},
  };
  for (const Layout& layout : layouts) {
    for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      for (int64_t channels : {3, 16, 37}) {
        RunOptions options;
        options.dtype = dtype;
        options.format = layout.format;
        options.storage = layout.storage;
        SCOPED_TRACE(::testing::Message() << "format " << layout.format << " storage "
                                          << static_cast<int>(layout.storage) << " dtype " << dtype
                                          << " C " << channels);
        CheckCase(MakeResizeCase(layout.op, 7, 10, 13, 5, false, 0, 0, 2, channels), options);
        CheckCase(MakeResizeCase(layout.op, 12, 6, 6, 19, true, 0, 0, 1, channels), options);
      }
    }
  }
}

// N or C zero is an empty bilinear problem in either format (contract 3.2). Run() backs the empty
// view of out with the storage it would have with N and C at 1, filled with sentinels, so a
// library that writes anything there is caught.
TEST(Sweep, EmptyBilinearProblemSucceedsWithoutWork) {
  const std::pair<aclFormat, Storage> layouts[] = {{ACL_FORMAT_NCHW, Storage::kContiguous},
                                                   {ACL_FORMAT_NCHW, Storage::kChannelsLastView},
                                                   {ACL_FORMAT_NCHW, Storage::kOffset},
                                                   {ACL_FORMAT_NHWC, Storage::kContiguous},
                                                   {ACL_FORMAT_NHWC, Storage::kOffset}};
  for (const auto& [format, storage] : layouts) {
    for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      for (const auto& [n, c] : {std::pair<int64_t, int64_t>{0, 3}, {2, 0}, {0, 0}, {0, 16}}) {
        const Case empty = MakeResizeCase(Op::kBilinear, 4, 5, 8, 9, false, 2.0, 0, n, c);
        RunOptions options;
        options.format = format;
        options.storage = storage;
        options.dtype = dtype;
        const support::RunOutput run = support::Run(empty, {}, options);
        SCOPED_TRACE(::testing::Message() << empty.Name() << " format " << format << " storage "
                                          << static_cast<int>(storage) << " dtype " << dtype);
        EXPECT_EQ(run.status, ACLNN_SUCCESS) << run.message;
        EXPECT_TRUE(run.outside_view_untouched);
      }
    }
  }
}

// Bicubic AA limits upscaling through r = 1/scales when a scale is given (contract 3.3), so
// sizes beyond 50x are accepted when the scale says 50, and computed with that scale.
TEST(Sweep, BicubicAABeyond50xBySizesAcceptedByScales) {
  for (bool align : {false, true}) {
    CheckCase(MakeResizeCase(Op::kBicubicAA, 2, 5, 101, 9, align, 50.0, 0), RunOptions{});
    CheckCase(MakeResizeCase(Op::kBicubicAA, 5, 3, 9, 170, align, 0, 50.0), RunOptions{});
    // Scale 1 over 2 -> 400: most output rows lie beyond the image and have no taps.
    CheckCase(MakeResizeCase(Op::kBicubicAA, 2, 4, 400, 4, align, 1.0, 0), RunOptions{});
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

// A NaN or Inf in gradOut reaches exactly the results whose formula includes it as a tap:
// through the public API, for every dtype, planar and channels-last plans (C = 9 >= 8 with unit
// channel stride), NHWC, and identity axes. Inf keeps its sign (the weights' signs times its
// own); +Inf meeting -Inf, or a zero-weight tap, gives NaN; finite elements stay within the
// contract's tolerance. README: an Inf on a bilinear identity axis or merged border tap stays
// Inf (one tap of weight 1), which is what the reference computes.
TEST(NonFinite, PropagatesAlongTapsOnly) {
  struct Layout {
    const char* name;
    aclFormat format;
    Storage storage;
    int64_t channels;
  };
  const Layout layouts[] = {
      {"planar", ACL_FORMAT_NCHW, Storage::kContiguous, 2},
      {"channels-last view", ACL_FORMAT_NCHW, Storage::kChannelsLastView, 9},
      {"NHWC", ACL_FORMAT_NHWC, Storage::kContiguous, 9},
      {"NHWC planar plan", ACL_FORMAT_NHWC, Storage::kContiguous, 3},
  };
  // (in_h, in_w, out_h, out_w): both axes resized, identity on H, on W, on both.
  const int64_t shapes[][4] = {{6, 9, 11, 4}, {6, 9, 6, 4}, {6, 9, 11, 9}, {5, 7, 5, 7}};
  struct Poison {
    int64_t h, w;
    double value;
  };
  const double inf = INFINITY;
  const std::vector<std::vector<Poison>> poisons = {
      {{3, 2, std::nan("")}},
      {{3, 2, inf}},
      {{0, 0, -inf}},
      {{10, 3, inf}},  // the last row and column: bilinear's merged border tap
      {{3, 1, inf}, {3, 2, -inf}, {4, 1, std::nan("")}},
  };
  for (Op op : {Op::kBilinear, Op::kBicubicAA}) {
    for (const Layout& layout : layouts) {
      if (op == Op::kBicubicAA && layout.format == ACL_FORMAT_NHWC) continue;  // not accepted
      for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
        for (bool align : {false, true}) {
          for (const auto& shape : shapes) {
            for (const std::vector<Poison>& poison : poisons) {
              const Case c = MakeResizeCase(op, shape[0], shape[1], shape[2], shape[3], align, 0, 0,
                                            2, layout.channels);
              std::vector<double> grad = support::RandomValues(c.grad_elements(), 3);
              // Plane (0, 1) and the last plane carry the poison.
              for (int64_t plane : {int64_t{1}, c.n * c.c - 1}) {
                for (const Poison& p : poison) {
                  const int64_t h = std::min(p.h, c.out_h - 1), w = std::min(p.w, c.out_w - 1);
                  grad[(plane * c.out_h + h) * c.out_w + w] = p.value;
                }
              }
              RunOptions options;
              options.dtype = dtype;
              options.format = layout.format;
              options.storage = layout.storage;
              std::vector<double> seen;
              const support::RunOutput run = support::Run(c, grad, options, &seen);
              SCOPED_TRACE(::testing::Message()
                           << c.Name() << " " << layout.name << " dtype " << dtype << " poison "
                           << poison[0].value << " at " << poison[0].h << "," << poison[0].w);
              ASSERT_EQ(run.status, ACLNN_SUCCESS) << run.message;
              std::vector<double> expected, magnitude;
              reference::Backward(c, seen, &expected, &magnitude);
              const auto non_finite = std::count_if(expected.begin(), expected.end(),
                                                    [](double v) { return !std::isfinite(v); });
              ASSERT_GT(non_finite, 0) << "the poison reached nothing";
              ASSERT_LT(non_finite, static_cast<long>(expected.size()));
              EXPECT_EQ(CountOutOfTolerance(dtype, run.values, expected, magnitude, c.Name()), 0);
              EXPECT_TRUE(run.outside_view_untouched);
              if (HasFailure()) return;
            }
          }
        }
      }
    }
  }
}

// Bitwise identical results for 1, 2 and 3 threads, on shapes the planner cuts into bands.
TEST(Determinism, BitwiseAcrossThreadCounts) {
  const std::vector<std::pair<Case, Storage>> cases = {
      {MakeResizeCase(Op::kBilinear, 97, 61, 300, 200, false), Storage::kContiguous},
      {MakeResizeCase(Op::kBilinear, 64, 64, 512, 512, true), Storage::kContiguous},
      {MakeResizeCase(Op::kBicubicAA, 300, 200, 97, 61, false, 0, 0, 1, 2), Storage::kContiguous},
      {MakeResizeCase(Op::kBilinear, 20, 24, 40, 48, false, 0, 0, 2, 16),
       Storage::kChannelsLastView},
      {MakeResizeCase(Op::kBicubicAA, 40, 30, 17, 64, false, 0, 0, 1, 3), Storage::kPaddedRows},
  };
  for (aclDataType dtype : {ACL_FLOAT, ACL_BF16}) {
    for (const auto& [c, storage] : cases) {
      const std::vector<double> grad = support::RandomValues(c.grad_elements(), 11);
      std::vector<std::vector<uint8_t>> results;
      for (int threads : {1, 2, 3}) {
        RunOptions options;
        options.dtype = dtype;
        options.storage = storage;
        options.threads = threads;
        const support::RunOutput run = support::Run(c, grad, options);
        ASSERT_EQ(run.status, ACLNN_SUCCESS) << run.message;
        results.push_back(run.raw_bits);
      }
      EXPECT_EQ(results[0], results[1]) << c.Name();
      EXPECT_EQ(results[0], results[2]) << c.Name();
    }
  }
}

}  // namespace
