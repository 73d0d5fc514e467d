// The backward operators (every backward row of the operator table) through the public C API
// against the independent float64 reference, which computes what each row's mode and flags say
// (support::ForRow): documented examples, adjoint identities of the reference, size/ratio/scale
// sweeps, each row's scale rule, dtypes, formats and storage kinds, NaN/Inf propagation and
// bitwise determinism across thread counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "support/reference.h"
#include "support/test_tensors.h"

namespace {

using reference::Case;
using reference::MakeResizeCase;
using reference::Op;
using support::CountOutOfTolerance;
using support::ExpectMatchesOnRandomData;
using support::RowCase;
using support::RunOptions;
using support::Storage;

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

// Sizes 1, 2, primes and around 8/16/32 (the vector widths of the kernels), in every
// combination of up, down and identity per axis.
const std::vector<int64_t> kSizes = {1, 2, 3, 5, 7, 8, 9, 13, 15, 16, 17, 31, 32, 33};

TEST(Sweep, SizesEveryRowBothAlignments) {
  for (const aclnn_upsample_operator* op : BackwardRows()) {
    for (bool align : {false, true}) {
      for (size_t a = 0; a < kSizes.size(); ++a) {
        for (size_t b = 0; b < kSizes.size(); ++b) {
          const Case c = RowCase(*op, kSizes[a], kSizes[(a + 5) % kSizes.size()], kSizes[b],
                                 kSizes[(b + 3) % kSizes.size()], align);
          if (!support::WithinUpscaleLimit(*op, c)) continue;
          ExpectMatchesOnRandomData(*op, c, RunOptions{}, static_cast<uint32_t>(a * 31 + b));
          if (HasFailure()) return;
        }
      }
    }
  }
}

TEST(Sweep, OneByNAndNByOnePlanes) {
  for (const aclnn_upsample_operator* op : BackwardRows()) {
    for (bool align : {false, true}) {
      ExpectMatchesOnRandomData(*op, RowCase(*op, 1, 40, 1, 17, align, 0, 0, 1, 2), RunOptions{});
      ExpectMatchesOnRandomData(*op, RowCase(*op, 40, 1, 17, 1, align, 0, 0, 1, 2), RunOptions{});
      ExpectMatchesOnRandomData(*op, RowCase(*op, 1, 9, 5, 1, align), RunOptions{});
      ExpectMatchesOnRandomData(*op, RowCase(*op, 9, 1, 1, 20, align), RunOptions{});
    }
  }
}

TEST(Sweep, DownsamplingToOneThirtieth) {
  for (const aclnn_upsample_operator* op : BackwardRows()) {
    for (bool align : {false, true}) {
      ExpectMatchesOnRandomData(*op, RowCase(*op, 60, 90, 2, 3, align, 0, 0, 1, 2), RunOptions{});
      ExpectMatchesOnRandomData(*op, RowCase(*op, 300, 31, 10, 1, align), RunOptions{});
      ExpectMatchesOnRandomData(*op, RowCase(*op, 7, 300, 7, 10, align), RunOptions{});
    }
  }
}

TEST(Sweep, LargeUpsampling) {
  for (const aclnn_upsample_operator* op : BackwardRows()) {
    ExpectMatchesOnRandomData(*op, RowCase(*op, 2, 3, 100, 150, false), RunOptions{});  // 50x
    const Case beyond_50x[] = {RowCase(*op, 2, 3, 300, 7, false),
                               RowCase(*op, 3, 2, 64, 130, true)};
    for (const Case& c : beyond_50x) {
      if (support::WithinUpscaleLimit(*op, c)) ExpectMatchesOnRandomData(*op, c, RunOptions{});
    }
  }
}

TEST(Sweep, ScalesGivenAbsentAndInconsistent) {
  for (const aclnn_upsample_operator* op : BackwardRows()) {
    for (bool align : {false, true}) {
      ExpectMatchesOnRandomData(*op, RowCase(*op, 8, 6, 16, 12, align, 2.0, 2.0), RunOptions{});
      ExpectMatchesOnRandomData(*op, RowCase(*op, 8, 6, 16, 12, align, 0.0, 0.0), RunOptions{});
      ExpectMatchesOnRandomData(*op, RowCase(*op, 8, 6, 16, 12, align, 3.0, 1.5), RunOptions{});
      ExpectMatchesOnRandomData(*op, RowCase(*op, 10, 9, 3, 4, align, 0.3, 0.45), RunOptions{});
      ExpectMatchesOnRandomData(*op, RowCase(*op, 7, 7, 17, 12, align, 2.5, 1.8), RunOptions{});
      ExpectMatchesOnRandomData(*op, RowCase(*op, 9, 9, 9, 9, align, 1.2, 1.1), RunOptions{});
      if (!op->rejects_negative_scales) {
        ExpectMatchesOnRandomData(*op, RowCase(*op, 8, 6, 16, 12, align, -2.0, -0.5), RunOptions{});
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Contract 1.3 and ops7's scale rule, each side of each rule per row
// (support::ExpectReadsScaleByItsFlags: the reading the row's flags prescribe, and the one a row
// breaking its rule would take, told apart on the axis first). Inputs of 1 (one tap whatever the
// ratio) and outputSize == inputSize * scales exactly (in/out is then the same double as
// 1/scales) cannot tell the readings apart, and nearest indices move in whole pixels; every row
// must be judged on enough axes.
struct ScaleAxis {
  const char* rule;
  int64_t in, out;
  bool align;
  double scale;
};

const double kBelow100 = std::nextafter(100.0, 0.0);  // 1/scales just above 0.01

const ScaleAxis kScaleAxes[] = {
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
  for (const aclnn_upsample_operator* op : BackwardRows()) {
    int judged = 0;
    for (const ScaleAxis& axis : kScaleAxes) {
      SCOPED_TRACE(std::string(op->name) + ": " + axis.rule);
      if (axis.scale < 0 && op->rejects_negative_scales) continue;  // an error row
      if (op->max_upscale > 0 &&
          (axis.scale > op->max_upscale || double(axis.out) > double(axis.in) * op->max_upscale)) {
        continue;  // beyond the row's upscaling limit: an error row
      }
      // NHWC puts H at inputSize[1] and W at [2]: a scale checked against the NCHW positions
      // meets a size of 5 or C there, and takes the other reading. C = 16 runs the
      // channels-last plan.
      std::vector<std::pair<aclFormat, int64_t>> layouts = {{ACL_FORMAT_NCHW, 1}};
      if (op->accepts_nhwc) {
        layouts.push_back({ACL_FORMAT_NHWC, 3});
        layouts.push_back({ACL_FORMAT_NHWC, 16});
      }
      for (const auto& [format, channels] : layouts) {
        RunOptions options;
        options.format = format;
        for (bool on_h : {true, false}) {
          judged += support::ExpectReadsScaleByItsFlags(*op, axis.in, axis.out, axis.align,
                                                        axis.scale, on_h, options, channels);
        }
      }
    }
    EXPECT_GE(judged, 10) << op->name << ": too few axes tell the readings apart";
  }
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

TEST(Sweep, EverySupportedDType) {
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    RunOptions options;
    options.dtype = dtype;
    for (const aclnn_upsample_operator* op : BackwardRows()) {
      ExpectMatchesOnRandomData(*op, RowCase(*op, 9, 17, 18, 33, false, 0, 0, 2, 3), options);
      ExpectMatchesOnRandomData(*op, RowCase(*op, 33, 16, 13, 7, true, 0, 0, 1, 2), options);
      ExpectMatchesOnRandomData(*op, RowCase(*op, 5, 5, 5, 5, false, 0, 0, 1, 1), options);
      ExpectMatchesOnRandomData(*op, RowCase(*op, 20, 12, 20, 48, false, 0, 2.4, 2, 16), options);
    }
  }
}

// The layouts each row accepts: NCHW contiguous, channels-last views, padded rows, an offset, a
// broadcast gradOut (zero N and C strides), and NHWC or ND where the row's flags accept them.
std::vector<std::pair<aclFormat, Storage>> LayoutsOf(const aclnn_upsample_operator& op) {
  std::vector<std::pair<aclFormat, Storage>> layouts = {
      {ACL_FORMAT_NCHW, Storage::kContiguous},    {ACL_FORMAT_NCHW, Storage::kChannelsLastView},
      {ACL_FORMAT_NCHW, Storage::kPaddedRows},    {ACL_FORMAT_NCHW, Storage::kOffset},
      {ACL_FORMAT_NCHW, Storage::kBroadcastGrad},
  };
  for (Storage storage : {Storage::kContiguous, Storage::kPaddedRows, Storage::kBroadcastGrad}) {
    if (op.accepts_nhwc) layouts.push_back({ACL_FORMAT_NHWC, storage});
    if (op.accepts_nd) layouts.push_back({ACL_FORMAT_ND, storage});
  }
  return layouts;
}

TEST(Sweep, FormatsAndStorageKinds) {
  for (const aclnn_upsample_operator* op : BackwardRows()) {
    for (const auto& [format, storage] : LayoutsOf(*op)) {
      for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
        for (int64_t channels : {3, 16, 37}) {
          RunOptions options;
          options.dtype = dtype;
          options.format = format;
          options.storage = storage;
          ExpectMatchesOnRandomData(*op, RowCase(*op, 7, 10, 13, 5, false, 0, 0, 2, channels),
                                    options);
          ExpectMatchesOnRandomData(*op, RowCase(*op, 12, 6, 6, 19, true, 0, 0, 1, channels),
                                    options);
          if (HasFailure()) return;
        }
      }
    }
  }
}

// N or C zero: a row that accepts empty problems succeeds without work (contract 3.2), any other
// rejects them; RunOperator backs the empty view of out with the storage it would have with N
// and C at 1, filled with sentinels, so a library that writes anything there is caught.
TEST(Sweep, EmptyProblemsFollowTheRowsFlag) {
  for (const aclnn_upsample_operator* op : BackwardRows()) {
    for (const auto& [format, storage] : LayoutsOf(*op)) {
      if (storage == Storage::kBroadcastGrad || storage == Storage::kPaddedRows) continue;
      for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
        for (const auto& [n, c] : {std::pair<int64_t, int64_t>{0, 3}, {2, 0}, {0, 0}, {0, 16}}) {
          const Case empty = RowCase(*op, 4, 5, 8, 9, false, 2.0, 0, n, c);
          RunOptions options;
          options.format = format;
          options.storage = storage;
          options.dtype = dtype;
          const support::RunOutput run = support::RunOperator(*op, empty, {}, options);
          SCOPED_TRACE(support::Describe(*op, empty, options));
          EXPECT_EQ(run.status == ACLNN_SUCCESS, op->accepts_empty) << run.message;
          EXPECT_TRUE(run.outside_view_untouched);
        }
      }
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
  for (const aclnn_upsample_operator* op : BackwardRows()) {
    for (const Layout& layout : layouts) {
      if (!op->accepts_nhwc && layout.format == ACL_FORMAT_NHWC) continue;  // not accepted
      for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
        for (bool align : {false, true}) {
          for (const auto& shape : shapes) {
            for (const std::vector<Poison>& poison : poisons) {
              const Case c = RowCase(*op, shape[0], shape[1], shape[2], shape[3], align, 0, 0, 2,
                                     layout.channels);
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
              const std::string label = support::Describe(*op, c, options) + " " + layout.name +
                                        " poison " + std::to_string(poison[0].value) + " at " +
                                        std::to_string(poison[0].h) + "," +
                                        std::to_string(poison[0].w);
              std::vector<double> expected;
              support::ExpectMatchesReference(*op, c, grad, options, label, &expected);
              // Every gradOut element has a tap in every mode: a gradient is never dropped.
              const auto non_finite = std::count_if(expected.begin(), expected.end(),
                                                    [](double v) { return !std::isfinite(v); });
              EXPECT_GT(non_finite, 0) << label << ": the poison reached nothing";
              EXPECT_LT(non_finite, static_cast<long>(expected.size())) << label;
              if (HasFailure()) return;
            }
          }
        }
      }
    }
  }
}

// Bitwise identical results at 1, 2, 3 and 7 threads, on shapes the planner cuts into bands.
TEST(Determinism, BitwiseAcrossThreadCounts) {
  for (const aclnn_upsample_operator* op : BackwardRows()) {
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
    if (op->accepts_nd) {
      cases.push_back(
          {RowCase(*op, 40, 30, 17, 64, false, 0, 0, 1, 3), {ACL_FORMAT_ND, Storage::kPaddedRows}});
    }
    for (aclDataType dtype : {ACL_FLOAT, ACL_BF16}) {
      for (const auto& [c, layout] : cases) {
        RunOptions options;
        options.dtype = dtype;
        options.format = layout.first;
        options.storage = layout.second;
        const std::vector<std::vector<uint8_t>> results = support::RunAtThreadCounts(
            *op, c, support::RandomValues(c.grad_elements(), 11), options, {1, 2, 3, 7});
        for (size_t i = 1; i < results.size(); ++i) {
          EXPECT_EQ(results[0], results[i]) << op->name << " " << c.Name() << " run " << i;
        }
      }
    }
  }
}

}  // namespace
