// Engine tests below the API: plans with both pass orders forced, both layouts, every dtype,
// identity axes and several thread counts, executed on random banded matrices and compared with
// a naive float64 product over the same weights.
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/execute.h"
#include "engine/plan.h"
#include "engine/thread_pool.h"
#include "kernels/kernels.h"
#include "ops/upsample_bicubic2d/bicubic_weights.h"
#include "ops/upsample_bicubic2d_aa/bicubic_aa_weights.h"
#include "ops/upsample_bilinear2d/bilinear_weights.h"
#include "ops/upsample_bilinear2d_aa/bilinear_aa_weights.h"
#include "support/random_axis.h"
#include "support/scoped_tuning.h"

namespace aclnn_upsample {
namespace {

AxisRuns IdentityAxis(int64_t size) {
  ForwardAxis forward;
  forward.in_size = forward.out_size = size;
  const double one = 1.0;
  for (int64_t o = 0; o < size; ++o) forward.AddRow(o, &one, 1);
  return Transpose(forward);
}

double Weight(const AxisRuns& axis, int64_t out, int64_t in) {
  const int32_t k = static_cast<int32_t>(out - axis.first[in]);
  return k >= 0 && k < axis.count(in) ? axis.weights[axis.weight_offset[in] + k] : 0.0;
}

uint16_t Encode16(DType dtype, float v) {
  return dtype == DType::kFloat16 ? FloatToFloat16(v) : FloatToBFloat16(v);
}
float Decode16(DType dtype, uint16_t v) {
  return dtype == DType::kFloat16 ? Float16ToFloat(v) : BFloat16ToFloat(v);
}

struct Problem {
  int64_t n, c, in_h, in_w, out_h, out_w;
  bool channels_last;
  int64_t pixel_pad = 0;  // channels-last: floats between one pixel's channels and the next's
  float scale = 1.0f;     // gradOut values are standard normal times this
  int64_t row_pad = 0;    // NCHW: elements between one row's end and the next row
};

// The shapes and strides of gradOut (`grad`) and the result for a problem; data left unset.
void ShapeViews(const Problem& p, PlaneView* grad, PlaneView* result) {
  grad->n = result->n = p.n;
  grad->c = result->c = p.c;
  grad->h = p.out_h;
  grad->w = p.out_w;
  result->h = p.in_h;
  result->w = p.in_w;
  for (PlaneView* v : {grad, result}) {
    if (p.channels_last) {
      v->stride_c = 1;
      v->stride_w = v->c + p.pixel_pad;
      v->stride_h = v->w * v->stride_w;
      v->stride_n = v->h * v->stride_h;
    } else {
      v->stride_w = 1;
      v->stride_h = v->w + p.row_pad;
      v->stride_c = v->h * v->stride_h;
      v->stride_n = v->c * v->stride_c;
    }
  }
}

// `elements` values drawn from `normal`, stored in `dtype` as the library stores floats.
std::vector<uint8_t> DrawnValuesIn(DType dtype, size_t elements,
                                   std::normal_distribution<float>& normal, std::mt19937& rng) {
  std::vector<float> values(elements);
  for (float& v : values) v = normal(rng);
  std::vector<uint8_t> data(elements * DTypeSize(dtype));
  kernels::StoreFromFloat(dtype, values.data(), elements, data.data(), 1);
  return data;
}

// Channels-last problems combine C-vectors from 8 channels up; with 2 to 4 channels and pixels
// back to back they deinterleave rows; NCHW problems of at least 8 groups of 16 planes whose
// result rows are at most 63 wide and source rows at most 64 (and a group's pixels at most
// 384 KiB) run in plane groups; anything else runs plane by plane.
Layout ExpectedLayout(const Problem& p) {
  if (!p.channels_last) {
    const int64_t group_bytes = (p.in_h * p.in_w + p.out_h * p.out_w) * 16 * 4;
    const bool grouped =
        p.n * p.c >= 8 * 16 && p.in_w <= 63 && p.out_w <= 64 && group_bytes <= 384 * 1024;
    return grouped ? Layout::kPlaneGroups : Layout::kPlanar;
  }
  if (p.c >= 8) return Layout::kChannelsLast;
  return p.c >= 2 && p.c <= 7 && p.pixel_pad == 0 ? Layout::kInterleaved : Layout::kPlanar;
}

// Runs one plan and checks every element against the naive product of the same weights.
void RunAndCheck(const Problem& p, const AxisRuns& ax_h, const AxisRuns& ax_w, DType dtype,
                 PassOrder order, int threads, std::vector<uint8_t>* bits_out) {
  const size_t elem = DTypeSize(dtype);
  std::mt19937 rng(3);
  std::normal_distribution<float> normal;
  const int64_t grad_count = p.n * p.c * p.out_h * p.out_w;
  const int64_t result_count = p.n * p.c * p.in_h * p.in_w;
  std::vector<double> grad_values(grad_count);  // logical NCHW order
  PlaneView g, r;
  ShapeViews(p, &g, &r);
  // Elements from the first to one past the last, padding between rows or pixels included.
  const auto slots = [](const PlaneView& v) {
    return (v.n - 1) * v.stride_n + (v.c - 1) * v.stride_c + (v.h - 1) * v.stride_h +
           (v.w - 1) * v.stride_w + 1;
  };
  std::vector<uint8_t> grad(slots(g) * elem), result(slots(r) * elem, 0xCD);
  g.data = reinterpret_cast<char*>(grad.data());
  r.data = reinterpret_cast<char*>(result.data());
  for (int64_t i = 0; i < grad_count; ++i) {
    const int64_t w = i % p.out_w, h = i / p.out_w % p.out_h, c = i / p.out_w / p.out_h % p.c,
                  n = i / p.out_w / p.out_h / p.c;
    const int64_t at = n * g.stride_n + c * g.stride_c + h * g.stride_h + w * g.stride_w;
    const float v = normal(rng) * p.scale;
    if (dtype == DType::kFloat32) {
      std::memcpy(grad.data() + at * 4, &v, 4);
      grad_values[i] = v;
    } else {
      const uint16_t b = Encode16(dtype, v);
      std::memcpy(grad.data() + at * 2, &b, 2);
      grad_values[i] = Decode16(dtype, b);
    }
  }
  const Plan plan = BuildPlan(dtype, g, r, ax_h, ax_w, threads, order);
  ASSERT_EQ(plan.schedule.layout, ExpectedLayout(p));
  if (order != PassOrder::kCheapest &&
      !(plan.schedule.layout == Layout::kPlanar && (ax_h.identity || ax_w.identity))) {
    ASSERT_EQ(plan.schedule.h_pass_first, order == PassOrder::kHeightFirst);
  }
  std::vector<float> workspace(plan.schedule.workspace_bytes / sizeof(float) + 1);
  Execute(plan, workspace.data());

  for (int64_t n = 0; n < p.n; ++n) {
    for (int64_t c = 0; c < p.c; ++c) {
      for (int64_t hi = 0; hi < p.in_h; ++hi) {
        for (int64_t wi = 0; wi < p.in_w; ++wi) {
          double expected = 0, magnitude = 0;
          for (int64_t ho = 0; ho < p.out_h; ++ho) {
            const double wh = Weight(ax_h, ho, hi);
            if (wh == 0) continue;
            for (int64_t wo = 0; wo < p.out_w; ++wo) {
              const double term = wh * Weight(ax_w, wo, wi) *
                                  grad_values[((n * p.c + c) * p.out_h + ho) * p.out_w + wo];
              expected += term;
              magnitude += std::abs(term);
            }
          }
          const int64_t at = n * r.stride_n + c * r.stride_c + hi * r.stride_h + wi * r.stride_w;
          double actual;
          double ulp = 0;
          if (dtype == DType::kFloat32) {
            float v;
            std::memcpy(&v, result.data() + at * 4, 4);
            actual = v;
          } else {
            uint16_t b;
            std::memcpy(&b, result.data() + at * 2, 2);
            actual = Decode16(dtype, b);
            // The contract's one ulp of the exact result in the output dtype: its binade,
            // floored at the dtype's smallest normal one (float16's 2^-14; bfloat16 has
            // float32's exponent range, 2^-126). ilogb(0) is below either floor.
            const int mantissa_bits = dtype == DType::kFloat16 ? 10 : 7;
            const int min_exponent = dtype == DType::kFloat16 ? -14 : -126;
            ulp = std::ldexp(
                1.0, std::max(std::ilogb(std::abs(expected)), min_exponent) - mantissa_bits);
          }
          ASSERT_NEAR(actual, expected, ulp + 1e-5 * magnitude)
              << "n " << n << " c " << c << " hi " << hi << " wi " << wi;
        }
      }
    }
  }
  if (bits_out) *bits_out = result;
}

// RunAndCheck in float32 and bfloat16, W first and H first, on two threads.
void RunFloatAndBFloat16BothOrders(const Problem& p, const AxisRuns& ax_h, const AxisRuns& ax_w) {
  for (DType dtype : {DType::kFloat32, DType::kBFloat16}) {
    for (PassOrder order : {PassOrder::kWidthFirst, PassOrder::kHeightFirst}) {
      SCOPED_TRACE(::testing::Message()
                   << DTypeName(dtype) << " h_first " << (order == PassOrder::kHeightFirst));
      RunAndCheck(p, ax_h, ax_w, dtype, order, 2, nullptr);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// Two channels-last images of `channels` channels resampled along runs_h and runs_w.
Problem InterleavedProblem(int64_t channels, const AxisRuns& runs_h, const AxisRuns& runs_w) {
  return Problem{
      2,   channels, runs_h.result_size, runs_w.result_size, runs_h.source_size, runs_w.source_size,
      true};
}

// The float32 plan of `p` on one thread.
Plan PlanOf(const Problem& p, const AxisRuns& runs_h, const AxisRuns& runs_w) {
  PlaneView g, r;
  ShapeViews(p, &g, &r);
  return BuildPlan(DType::kFloat32, g, r, runs_h, runs_w, 1);
}

TEST(Engine, BothPassOrdersBothLayoutsEveryDType) {
  const std::vector<Problem> problems = {
      {2, 3, 9, 13, 20, 7, false},
      {1, 2, 17, 5, 6, 33, false},
      {2, 16, 7, 9, 15, 4, true},
      {1, 19, 12, 3, 5, 21, true},
      {1, 1, 1, 1, 3, 2, false},
      {3, 1, 40, 1, 2, 70, false},
      // Pixels with padding between them: neither tensor's rows are one dense vector.
      {2, 16, 7, 9, 15, 4, true, 3},
      // Few channels, pixels back to back: interleaved rows (C = 2 to 7; 5 to 7 moved eight
      // pixels at a time on eight-lane targets, so rows of 33 pixels and more); padded: planes
      // read with a stride.
      {2, 3, 9, 13, 20, 7, true},
      {1, 4, 17, 5, 6, 33, true},
      {2, 2, 7, 40, 15, 22, true},
      {1, 3, 12, 3, 5, 21, true, 1},
      {1, 5, 6, 11, 9, 8, true},
      {1, 6, 17, 40, 6, 37, true},
      {2, 7, 9, 41, 15, 20, true},
      {1, 6, 12, 3, 5, 21, true, 1},
      // Interleaved rows wider than the H pass's column chunk (kernels::kRowChunkBytes, 256
      // float32 or 512 16-bit columns): 181 RGB pixels of gradOut, 543 elements, in groups of
      // result rows.
      {1, 3, 13, 90, 10, 181, true},
  };
  for (const Problem& p : problems) {
    const RandomAxis ax_h = MakeRandomAxis(p.in_h, p.out_h, 1);
    const RandomAxis ax_w = MakeRandomAxis(p.in_w, p.out_w, 2);
    for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
      for (PassOrder order : {PassOrder::kWidthFirst, PassOrder::kHeightFirst}) {
        SCOPED_TRACE(::testing::Message()
                     << "in " << p.in_h << "x" << p.in_w << " out " << p.out_h << "x" << p.out_w
                     << " C " << p.c << (p.channels_last ? " NHWC" : " NCHW") << " dtype "
                     << DTypeName(dtype) << " h_first " << (order == PassOrder::kHeightFirst));
        RunAndCheck(p, ax_h.exact, ax_w.exact, dtype, order, 1, nullptr);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// Interleaved rows run the planar W forms on each channel's row (the uniform backward 2x, the
// blocked or periodic 8/7), or gather the pixel rows as they are where a periodic interior holds
// over them (forward 2x and 3x), in both pass orders and every dtype, forward and backward,
// against the naive product.
TEST(Engine, InterleavedRowsTakeEveryPlanarWidthForm) {
  struct Axes {
    int64_t small, big;
    bool forward;
  };
  for (const Axes& a :
       {Axes{40, 80, false}, Axes{40, 80, true}, Axes{56, 64, false}, Axes{37, 111, true}}) {
    const ForwardAxis axis = BuildBilinearAxis(AxisSpec{a.small, a.big, false, 0.0});
    const AxisRuns runs = a.forward ? AsGather(axis) : Transpose(axis);
    const int64_t result = runs.result_size, source = runs.source_size;
    const int64_t lanes = static_cast<int64_t>(kernels::FloatLanes());
    const bool power_of_two = (lanes & (lanes - 1)) == 0;
    for (int64_t channels = 2; channels <= 4 && a.big == 2 * a.small && lanes > 1; ++channels) {
      PlaneView g, r;
      ShapeViews(Problem{1, channels, result, result, source, source, true}, &g, &r);
      const Plan plan = BuildPlan(DType::kFloat32, g, r, runs, runs, 1);
      SCOPED_TRACE(::testing::Message() << "plan of C " << channels << ", " << lanes << " lanes");
      EXPECT_EQ(plan.schedule.layout, Layout::kInterleaved);
      if (!a.forward) {
        // A vector of 2x backward elements reads more than two vectors of pixels.
        EXPECT_EQ(plan.schedule.w_uniform.stride, 2) << "the 2x backward's uniform interior";
        EXPECT_FALSE(plan.schedule.w_periodic_pixels);
      } else if (power_of_two && (lanes >= 16 || (lanes == 8 && 8 % (2 * channels) == 0))) {
        // The 2x forward gathers the pixel rows as they are where its elements (repeating every
        // 2 C) cost few enough steps: every C on 16 lanes, and on 8 lanes where the period
        // divides the lanes (2 and 4 channels; RGB takes two loads and three patterns there,
        // and the planar form costs fewer steps).
        EXPECT_TRUE(plan.schedule.w_periodic_pixels) << "the 2x forward over pixel rows";
        EXPECT_EQ(plan.schedule.w_periodic.period, 2 * channels);
        EXPECT_EQ(plan.schedule.w_uniform.stride, 0);
        EXPECT_EQ(plan.schedule.w_blocked.lanes, 0);
        EXPECT_EQ(plan.schedule.converted_pixel_rows, 1) << "float32 rows are gathered in place";
        // 16-bit pixel rows W first are converted several at a time for each gathering call:
        // in the runs below (two images, two threads), with bands whose rows leave a shorter
        // last group.
        PlaneView g2, r2;
        ShapeViews(Problem{2, channels, result, result, source, source, true}, &g2, &r2);
        const Plan half =
            BuildPlan(DType::kBFloat16, g2, r2, runs, runs, 2, PassOrder::kWidthFirst);
        EXPECT_TRUE(half.schedule.w_periodic_pixels);
        EXPECT_GT(half.schedule.converted_pixel_rows, 1);
        bool short_last_group = false;
        for (const RowBand& band : half.schedule.bands) {
          const int64_t rows = band.source_row_end - band.source_row_begin;
          short_last_group |= rows % half.schedule.converted_pixel_rows != 0;
        }
        EXPECT_TRUE(short_last_group);
      }
    }
    for (int64_t channels : {2, 3, 4}) {
      const Problem p = {2, channels, result, result, source, source, true};
      for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
        for (PassOrder order : {PassOrder::kWidthFirst, PassOrder::kHeightFirst}) {
          SCOPED_TRACE(::testing::Message()
                       << (a.forward ? "forward " : "backward ") << a.small << "<->" << a.big
                       << " C " << channels << " " << DTypeName(dtype) << " h_first "
                       << (order == PassOrder::kHeightFirst));
          RunAndCheck(p, runs, runs, dtype, order, 2, nullptr);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

// Channels-last downscales by 2 and 4 (and the gradients of such upscales: uniform interiors of
// stride 2 and 4) run their W pass through pixel phase rows where the target splits them
// (kernels::SplitsPixelPhases), for 2 to 7 channels, every dtype and both pass orders, matching
// the naive product. On AVX-512 the plan weighs that split, not the planar moves: a 4x bilinear
// downscale of RGB (two taps a pixel) takes the pixel rows, which ran 1.22x faster, and a 2x AA
// one keeps the uniform planar form.
TEST(Engine, InterleavedUniformDownscalesSplitByPixelPhase) {
  const int64_t lanes = static_cast<int64_t>(kernels::FloatLanes());
  const ForwardAxis rows = BuildBilinearAxis(AxisSpec{7, 5, false, 0.0});
  struct Case {
    ForwardAxis axis;
    bool forward;
    int32_t stride;
  };
  const Case cases[] = {
      {BuildBilinearAAAxis(AxisSpec{256, 128, false, 0.0}), true, 2},
      {BuildBilinearAxis(AxisSpec{256, 64, false, 0.0}), true, 4},
      {BuildBilinearAxis(AxisSpec{96, 192, false, 0.0}), false, 2},
      {BuildBicubicAxis(AxisSpec{40, 160, false, 0.0}), false, 4},
  };
  for (const Case& c : cases) {
    const AxisRuns runs = c.forward ? AsGather(c.axis) : Transpose(c.axis);
    const AxisRuns runs_h = c.forward ? AsGather(rows) : Transpose(rows);
    for (int64_t channels = 2; channels <= 7; ++channels) {
      const Problem p = InterleavedProblem(channels, runs_h, runs);
      SCOPED_TRACE(::testing::Message()
                   << (c.forward ? "forward " : "backward ") << runs.source_size << " -> "
                   << runs.result_size << " C " << channels);
      if (lanes == 16 && channels == 3 && c.forward) {
        const Plan plan = PlanOf(p, runs_h, runs);
        ASSERT_EQ(plan.schedule.layout, Layout::kInterleaved);
        ASSERT_TRUE(kernels::SplitsPixelPhases(3, c.stride));
        if (c.stride == 4) {
          EXPECT_TRUE(plan.schedule.w_periodic_pixels) << "the 4x bilinear over pixel rows";
        } else {
          EXPECT_FALSE(plan.schedule.w_periodic_pixels);
          EXPECT_EQ(plan.schedule.w_uniform.stride, 2) << "the 2x AA's planar uniform form";
        }
      }
      RunFloatAndBFloat16BothOrders(p, runs_h, runs);
      if (HasFatalFailure()) return;
    }
  }
}

// RGB and RGBA rows whose W runs do not repeat within a short period (images resized 500 ->
// 224, 256 -> 299, 224 -> 500) gather their pixel rows as they are from a row table, where
// deinterleaving them for the planar forms had cost a quarter of the call; on 16 lanes the plan
// takes the table (a pattern per vector), and every dtype and pass order, forward and backward,
// matches the naive product.
TEST(Engine, InterleavedRowsTakeARowTableWhereRunsDoNotRepeat) {
  const int64_t lanes = static_cast<int64_t>(kernels::FloatLanes());
  const ForwardAxis rows = BuildBilinearAxis(AxisSpec{7, 5, false, 0.0});
  for (const AxisSpec& spec : {AxisSpec{500, 224, false, 0.0}, AxisSpec{256, 299, false, 0.0},
                               AxisSpec{224, 500, false, 0.0}}) {
    for (bool forward : {true, false}) {
      const ForwardAxis axis = BuildBilinearAxis(spec);
      const AxisRuns runs = forward ? AsGather(axis) : Transpose(axis);
      const AxisRuns runs_h = forward ? AsGather(rows) : Transpose(rows);
      for (int64_t channels : {3, 4}) {
        const Problem p = InterleavedProblem(channels, runs_h, runs);
        SCOPED_TRACE(::testing::Message() << (forward ? "forward " : "backward ") << spec.in_size
                                          << " -> " << spec.out_size << " C " << channels);
        if (forward && lanes == 16) {
          const Plan plan = PlanOf(p, runs_h, runs);
          ASSERT_EQ(plan.schedule.layout, Layout::kInterleaved);
          EXPECT_TRUE(plan.schedule.w_periodic_pixels);
          const PeriodicInterior& table = plan.schedule.w_periodic;
          EXPECT_EQ(table.patterns, table.vectors + (table.overhang > 0 ? 1 : 0));
          EXPECT_GT(table.vectors, 8);
        }
        RunFloatAndBFloat16BothOrders(p, runs_h, runs);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// Channels-last rows whose W runs repeat within a short period but need two loads a tap (bicubic
// 2x upscales of RGB and RGBA, bilinear 1.5x gradients of 5 to 7 channels) gather their pixel
// rows in place, where deinterleaving them for the planar form and interleaving the result back
// cost more than the planar gather saves (1.14-1.58x faster over pixel rows on AVX-512, the
// bicubic ones 1.10-1.43x on AVX2): the plan takes the periodic pixel form on 16 lanes, and on
// 8 for the bicubic RGB and RGBA rows (taps from two loads there); on every target each dtype
// and pass order matches the naive product.
TEST(Engine, InterleavedPeriodicRowsStayPixelRowsOnWideVectors) {
  const int64_t lanes = static_cast<int64_t>(kernels::FloatLanes());
  const ForwardAxis rows = BuildBilinearAxis(AxisSpec{7, 5, false, 0.0});
  struct Case {
    ForwardAxis axis;
    bool forward;
    std::vector<int64_t> channels;
  };
  const Case cases[] = {
      {BuildBicubicAxis(AxisSpec{128, 256, false, 0.0}), true, {3, 4, 5}},
      {BuildBilinearAxis(AxisSpec{128, 192, false, 0.0}), false, {5, 6, 7}},
  };
  for (const Case& c : cases) {
    const AxisRuns runs = c.forward ? AsGather(c.axis) : Transpose(c.axis);
    const AxisRuns runs_h = c.forward ? AsGather(rows) : Transpose(rows);
    for (int64_t channels : c.channels) {
      const Problem p = InterleavedProblem(channels, runs_h, runs);
      SCOPED_TRACE(::testing::Message()
                   << (c.forward ? "forward " : "backward ") << runs.source_size << " -> "
                   << runs.result_size << " C " << channels);
      if (lanes == 16 || (lanes == 8 && c.forward && channels <= 4)) {
        const Plan plan = PlanOf(p, runs_h, runs);
        ASSERT_EQ(plan.schedule.layout, Layout::kInterleaved);
        EXPECT_TRUE(plan.schedule.w_periodic_pixels) << "pixel rows on " << lanes << " lanes";
        EXPECT_GT(plan.schedule.w_periodic.period, 0) << "a period's patterns, not a row table";
      }
      RunFloatAndBFloat16BothOrders(p, runs_h, runs);
      if (HasFatalFailure()) return;
    }
  }
}

// Many small NCHW planes run in groups of kernels::kPlaneGroup through the channels-last passes:
// every dtype, both pass orders, a last group short of planes, padded rows (transposed row by
// row), downscaling and upscaling, with the same bits at 1 and 3 threads.
TEST(Engine, ManySmallPlanesRunInGroups) {
  std::vector<Problem> problems = {
      {2, 67, 14, 14, 28, 28, false},  // 134 planes: 8 whole groups and 6 planes more
      {1, 130, 9, 13, 20, 7, false},   // 130 planes, a group of two last
      {3, 48, 28, 28, 14, 14, false},  // results twice the source
      {1, 130, 11, 47, 9, 30, false},  // result rows of 47: past 32, not whole vectors
      {2, 70, 7, 9, 15, 4, false},     // row_pad 3 below
  };
  problems.back().row_pad = 3;
  for (const Problem& p : problems) {
    const RandomAxis ax_h = MakeRandomAxis(p.in_h, p.out_h, 5);
    const RandomAxis ax_w = MakeRandomAxis(p.in_w, p.out_w, 6);
    for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
      for (PassOrder order : {PassOrder::kWidthFirst, PassOrder::kHeightFirst}) {
        SCOPED_TRACE(::testing::Message()
                     << p.n << "x" << p.c << " planes, in " << p.in_h << "x" << p.in_w << " out "
                     << p.out_h << "x" << p.out_w << " row pad " << p.row_pad << " dtype "
                     << DTypeName(dtype) << " h_first " << (order == PassOrder::kHeightFirst));
        std::vector<uint8_t> one_thread, three_threads;
        RunAndCheck(p, ax_h.exact, ax_w.exact, dtype, order, 1, &one_thread);
        RunAndCheck(p, ax_h.exact, ax_w.exact, dtype, order, 3, &three_threads);
        if (HasFatalFailure()) return;
        EXPECT_EQ(one_thread, three_threads);
      }
    }
  }
}

// Plane groups need the planes evenly spaced in both tensors (a group is one strided run of
// planes) and rows short enough to gain; otherwise the planes run one by one.
TEST(Engine, PlaneGroupsOnlyWhereTheyApply) {
  const Problem grouped = {2, 80, 14, 14, 28, 28, false};
  const RandomAxis ax = MakeRandomAxis(14, 28, 7);
  PlaneView g, r;
  ShapeViews(grouped, &g, &r);
  const Plan plan = BuildPlan(DType::kFloat32, g, r, ax.exact, ax.exact, 1);
  EXPECT_EQ(plan.schedule.layout, Layout::kPlaneGroups);
  // The result pixels go through a window of a step's rows and a vector's pixels short of one,
  // not a buffer for the whole 14 x 14 result, and the scratch holds just that.
  const int64_t window = kPlaneGroupStepRows * 14 + 15;
  EXPECT_EQ(plan.schedule.group_window_pixels, window);
  EXPECT_LE(plan.schedule.scratch.group_floats, static_cast<size_t>(16 * (28 * 28 + window) + 16));
  PlaneView padded_rows = r;
  padded_rows.stride_h += 2;  // result rows apart: pixels a row at a time, a whole buffer
  padded_rows.stride_c = padded_rows.h * padded_rows.stride_h;
  padded_rows.stride_n = padded_rows.c * padded_rows.stride_c;
  const Plan whole = BuildPlan(DType::kFloat32, g, padded_rows, ax.exact, ax.exact, 1);
  EXPECT_EQ(whole.schedule.layout, Layout::kPlaneGroups);
  EXPECT_EQ(whole.schedule.group_window_pixels, 0);
  PlaneView gap = r;
  gap.stride_n += 5;  // images apart: planes of one image evenly spaced, not across images
  EXPECT_EQ(BuildPlan(DType::kFloat32, g, gap, ax.exact, ax.exact, 1).schedule.layout,
            Layout::kPlanar);
  PlaneView broadcast = g;
  broadcast.stride_n = broadcast.stride_c = 0;  // one gradOut plane for every plane: a source
  EXPECT_EQ(BuildPlan(DType::kFloat32, broadcast, r, ax.exact, ax.exact, 1).schedule.layout,
            Layout::kPlaneGroups);
  Problem few = grouped;
  few.c = 63;  // 126 planes: fewer than 8 groups
  ShapeViews(few, &g, &r);
  EXPECT_EQ(BuildPlan(DType::kFloat32, g, r, ax.exact, ax.exact, 1).schedule.layout,
            Layout::kPlanar);
  // Result rows up to 63 wide from source rows up to 64: 64 -> 32 and 32 -> 63 group;
  // 65 -> 32 and 32 -> 64 do not.
  const auto layout_for = [&](int64_t result_w, int64_t source_w) {
    const Problem shape = {2, 80, 14, result_w, 28, source_w, false};
    const RandomAxis axis = MakeRandomAxis(result_w, source_w, 9);
    ShapeViews(shape, &g, &r);
    return BuildPlan(DType::kFloat32, g, r, ax.exact, axis.exact, 1).schedule.layout;
  };
  EXPECT_EQ(layout_for(32, 64), Layout::kPlaneGroups);
  EXPECT_EQ(layout_for(63, 32), Layout::kPlaneGroups);
  EXPECT_EQ(layout_for(32, 65), Layout::kPlanar);
  EXPECT_EQ(layout_for(64, 32), Layout::kPlanar);
}

// H first, plane groups transpose each step's source rows just before it, into a window of
// KernelTuning::group_source_window_bytes (21 KiB here, Intel's; CpuSchedule::
// group_source_window_rows), the rows still read moving to its front, and the bits are those of
// the whole source transposed first: the gradient of a 2x bilinear upsample (runs of 3-5 taps,
// two rows apart) and a 2x bicubic AA downscale (8 taps), 28 x 28 -> 14 x 14, in float32 and
// bfloat16 and on 1 and 3 threads. Source pixel rows of 64 pixels (4 KiB, five to a window), runs
// that start out of order and a tuning of no window take none.
TEST(Engine, PlaneGroupSourceWindowChangesNoBits) {
  const Problem p{2, 80, 14, 14, 28, 28, false};  // 160 planes: ten groups
  const AxisRuns bilinear = Transpose(BuildBilinearAxis(AxisSpec{14, 28, false, 0.0}));
  const AxisRuns bicubic_aa = AsGather(BuildBicubicAAAxis(AxisSpec{28, 14, false, 0.0}));
  const int64_t window_rows = 21 * 1024 / (28 * 16 * 4);  // 12 of the 28 source rows
  const ScopedTuning tuning(
      [](kernels::KernelTuning& t) { t.group_source_window_bytes = 21 * 1024; });
  PlaneView g, r;
  ShapeViews(p, &g, &r);
  std::mt19937 rng(41);
  std::normal_distribution<float> normal;
  for (const AxisRuns* axis_h : {&bilinear, &bicubic_aa}) {
    for (DType dtype : {DType::kFloat32, DType::kBFloat16}) {
      const size_t source_elements = static_cast<size_t>(p.n * g.stride_n);
      std::vector<uint8_t> source_data = DrawnValuesIn(dtype, source_elements, normal, rng);
      const size_t result_bytes = static_cast<size_t>(p.n * r.stride_n) * DTypeSize(dtype);
      for (int threads : {1, 3}) {
        SCOPED_TRACE(::testing::Message() << "taps " << axis_h->max_count << " " << DTypeName(dtype)
                                          << " threads " << threads);
        Plan plan = BuildPlan(dtype, g, r, *axis_h, bilinear, threads, PassOrder::kHeightFirst);
        ASSERT_EQ(plan.schedule.layout, Layout::kPlaneGroups);
        ASSERT_TRUE(plan.schedule.h_pass_first);
        ASSERT_EQ(plan.schedule.group_source_window_rows, window_rows);
        plan.problem.source.data = reinterpret_cast<char*>(source_data.data());
        std::vector<float> workspace(plan.schedule.workspace_bytes / sizeof(float) + 1);
        std::vector<uint8_t> windowed(result_bytes, 0xAB), whole(result_bytes, 0xCD);
        plan.problem.result.data = reinterpret_cast<char*>(windowed.data());
        Execute(plan, workspace.data());
        plan.schedule.group_source_window_rows = 0;
        plan.problem.result.data = reinterpret_cast<char*>(whole.data());
        Execute(plan, workspace.data());
        ASSERT_EQ(windowed, whole);
      }
    }
  }
  // Against the naive product too, through the plan RunAndCheck builds.
  RunAndCheck(p, bilinear, bilinear, DType::kBFloat16, PassOrder::kHeightFirst, 3, nullptr);

  // Rows of 64 pixels: five in the window, fewer than a step moves; the whole source first.
  const Problem wide{2, 80, 14, 32, 28, 64, false};
  PlaneView wide_g, wide_r;
  ShapeViews(wide, &wide_g, &wide_r);
  const AxisRuns halve_w = Transpose(BuildBilinearAxis(AxisSpec{32, 64, false, 0.0}));
  const Plan wide_plan =
      BuildPlan(DType::kFloat32, wide_g, wide_r, bilinear, halve_w, 1, PassOrder::kHeightFirst);
  ASSERT_EQ(wide_plan.schedule.layout, Layout::kPlaneGroups);
  EXPECT_EQ(wide_plan.schedule.group_source_window_rows, 0);

  // The same runs for the result rows in reverse order: a later run starts before an earlier
  // one, so the rows a move would drop may still be read.
  AxisRuns reversed = bilinear;
  reversed.weights.clear();
  for (int32_t i = 0; i < bilinear.result_size; ++i) {
    const int32_t from = bilinear.result_size - 1 - i;
    reversed.first[i] = bilinear.first[from];
    reversed.weight_offset[i + 1] = reversed.weight_offset[i] + bilinear.count(from);
    reversed.weights.insert(reversed.weights.end(),
                            bilinear.weights.begin() + bilinear.weight_offset[from],
                            bilinear.weights.begin() + bilinear.weight_offset[from + 1]);
  }
  const Plan reversed_plan =
      BuildPlan(DType::kFloat32, g, r, reversed, bilinear, 1, PassOrder::kHeightFirst);
  ASSERT_EQ(reversed_plan.schedule.layout, Layout::kPlaneGroups);
  EXPECT_EQ(reversed_plan.schedule.group_source_window_rows, 0);
  RunAndCheck(p, reversed, bilinear, DType::kFloat32, PassOrder::kHeightFirst, 1, nullptr);

  // A CPU whose tuning has no window (AMD's): the whole source first.
  const ScopedTuning no_window([](kernels::KernelTuning& t) { t.group_source_window_bytes = 0; });
  const Plan unwindowed_plan =
      BuildPlan(DType::kFloat32, g, r, bilinear, bilinear, 1, PassOrder::kHeightFirst);
  ASSERT_EQ(unwindowed_plan.schedule.layout, Layout::kPlaneGroups);
  EXPECT_EQ(unwindowed_plan.schedule.group_source_window_rows, 0);
}

TEST(Engine, IdentityAxesAreSkippedAndExact) {
  const Problem p = {2, 3, 11, 9, 11, 9, false};
  const AxisRuns id_h = IdentityAxis(11), id_w = IdentityAxis(9);
  const RandomAxis other_h = MakeRandomAxis(11, 11, 4), other_w = MakeRandomAxis(9, 9, 5);
  for (DType dtype : {DType::kFloat32, DType::kBFloat16}) {
    RunAndCheck(p, id_h, id_w, dtype, PassOrder::kCheapest, 2, nullptr);
    RunAndCheck(p, id_h, other_w.exact, dtype, PassOrder::kCheapest, 2, nullptr);
    RunAndCheck(p, other_h.exact, id_w, dtype, PassOrder::kCheapest, 2, nullptr);
  }
}

TEST(Engine, ThreadCountsGiveIdenticalBits) {
  const Problem planar = {1, 2, 70, 45, 150, 31, false};
  const Problem channels_last = {1, 24, 33, 20, 70, 41, true};
  for (const Problem& p : {planar, channels_last}) {
    const RandomAxis ax_h = MakeRandomAxis(p.in_h, p.out_h, 8);
    const RandomAxis ax_w = MakeRandomAxis(p.in_w, p.out_w, 9);
    for (PassOrder order : {PassOrder::kWidthFirst, PassOrder::kHeightFirst}) {
      std::vector<uint8_t> one, three;
      RunAndCheck(p, ax_h.exact, ax_w.exact, DType::kFloat32, order, 1, &one);
      RunAndCheck(p, ax_h.exact, ax_w.exact, DType::kFloat32, order, 3, &three);
      EXPECT_EQ(one, three);
    }
  }
}

// Tiny gradients keep their precision: 16-bit results are within one ulp of their own binade
// (bfloat16 values near 2^-100 are normal, float16 ones near 2^-20 subnormal with ulp 2^-24),
// so a result flushed to zero or rounded at a fixed absolute step, which an ulp floored at a
// larger exponent would let through, fails. float32 near 2^-100 is still normal.
TEST(Engine, TinyGradientsStayWithinOneUlpOfTheirOwnBinade) {
  struct Case {
    DType dtype;
    float scale;
  };
  for (const Problem& shape :
       {Problem{2, 3, 9, 13, 20, 7, false}, Problem{1, 16, 7, 9, 15, 4, true}}) {
    const RandomAxis ax_h = MakeRandomAxis(shape.in_h, shape.out_h, 21);
    const RandomAxis ax_w = MakeRandomAxis(shape.in_w, shape.out_w, 22);
    for (const Case c : {Case{DType::kBFloat16, std::ldexp(1.0f, -100)},
                         Case{DType::kFloat16, std::ldexp(1.0f, -20)},
                         Case{DType::kFloat32, std::ldexp(1.0f, -100)}}) {
      Problem p = shape;
      p.scale = c.scale;
      for (PassOrder order : {PassOrder::kWidthFirst, PassOrder::kHeightFirst}) {
        SCOPED_TRACE(::testing::Message() << DTypeName(c.dtype) << " scale " << c.scale
                                          << (p.channels_last ? " NHWC" : " NCHW") << " h_first "
                                          << (order == PassOrder::kHeightFirst));
        RunAndCheck(p, ax_h.exact, ax_w.exact, c.dtype, order, 1, nullptr);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// A plan keeps a uniform W interior only in a form the kernels carry (else it tries the blocked
// form): a uniform interior the kernels could not run would leave the W pass to the scalar exact
// runs, as bicubic upsampling by 3 and 4 (12 and 16 taps) once did. Integer upsampling factors
// 1..8 of both operators, over lengths around 2, 4 and 8 vectors of the dispatched target (a
// plan wants a uniform interior of at least MinUniformInteriorLength).
TEST(Engine, PlansKeepOnlyUniformFormsTheKernelsCarry) {
  const int64_t lanes = static_cast<int64_t>(kernels::FloatLanes());
  const int64_t wide = 4 * lanes + 5, widest = 8 * lanes + 5;  // interiors of 4 vectors and more
  int bicubic_big_factors_uniform = 0;
  for (int factor = 1; factor <= 8; ++factor) {
    for (int64_t in_w : {int64_t{5}, 2 * lanes + 1, wide, widest}) {
      for (bool bicubic : {false, true}) {
        const AxisSpec spec{in_w, in_w * factor, false, 0.0};
        AxisRuns axis_w = Transpose(bicubic ? BuildBicubicAAAxis(spec) : BuildBilinearAxis(spec));
        PlaneView grad, result;
        ShapeViews(Problem{1, 2, 3, in_w, 3, in_w * factor, false}, &grad, &result);
        const Plan plan = BuildPlan(DType::kFloat32, grad, result, IdentityAxis(3),
                                    std::move(axis_w), 1, PassOrder::kCheapest);
        SCOPED_TRACE(::testing::Message()
                     << (bicubic ? "bicubic" : "bilinear") << " x" << factor << " in_w " << in_w);
        if (plan.problem.axis_w.identity) continue;
        if (plan.schedule.w_uniform.stride > 0) {
          EXPECT_LE(plan.schedule.w_uniform.stride, kernels::kMaxUniformStride);
          EXPECT_LE(static_cast<int32_t>(plan.schedule.w_uniform.weights.size()),
                    kernels::kMaxUniformTaps);
          EXPECT_EQ(plan.schedule.w_blocked.lanes, 0);  // one vector form per axis
          if (bicubic && factor >= 3 && in_w >= wide) ++bicubic_big_factors_uniform;
        }
      }
    }
  }
  EXPECT_EQ(bicubic_big_factors_uniform, 4);  // bicubic x3 and x4 at the two widest in_w
}

// Channels-last bilinear 2x: the H pass takes consecutive rows in pairs (their runs share two
// of four source rows). Every dtype, bands cut by 1 and 3 threads, odd row counts (a row left
// without a partner), against the naive product and bitwise across thread counts.
TEST(Engine, ChannelsLastRowPairsMatchNaiveAndThreadCounts) {
  for (const Problem& p :
       {Problem{2, 16, 9, 6, 18, 12, true}, Problem{1, 24, 8, 5, 16, 10, true}}) {
    const AxisRuns ax_h = Transpose(BuildBilinearAxis(AxisSpec{p.in_h, p.out_h, false, 0.0}));
    const AxisRuns ax_w = Transpose(BuildBilinearAxis(AxisSpec{p.in_w, p.out_w, false, 0.0}));
    for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
      std::vector<uint8_t> one, three;
      RunAndCheck(p, ax_h, ax_w, dtype, PassOrder::kHeightFirst, 1, &one);
      RunAndCheck(p, ax_h, ax_w, dtype, PassOrder::kHeightFirst, 3, &three);
      EXPECT_EQ(one, three) << DTypeName(dtype);
    }
  }
}

// Channels-last runs whose rows span more than L1 (the gradient of a bicubic 4x upscale: 16 taps
// of gradOut rows of 80 pixels of 16 channels) combine result rows in groups, a column chunk at a
// time: every dtype, bands cut by 1 and 3 threads, against the naive product and bitwise across
// thread counts. Runs of a bilinear 2x gradient (4 taps) keep the pairs.
TEST(Engine, ChannelsLastRowGroupsMatchNaiveAndThreadCounts) {
  const Problem p{1, 16, 6, 20, 24, 80, true};
  const AxisRuns ax_h = Transpose(BuildBicubicAxis(AxisSpec{p.in_h, p.out_h, false, 0.0}));
  const AxisRuns ax_w = Transpose(BuildBicubicAxis(AxisSpec{p.in_w, p.out_w, false, 0.0}));
  PlaneView grad, result;
  ShapeViews(p, &grad, &result);
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    const Plan plan = BuildPlan(dtype, grad, result, ax_h, ax_w, 1, PassOrder::kHeightFirst);
    EXPECT_TRUE(plan.schedule.group_h_rows) << DTypeName(dtype);
    EXPECT_FALSE(plan.schedule.pair_h_rows) << DTypeName(dtype);
    std::vector<uint8_t> one, three;
    RunAndCheck(p, ax_h, ax_w, dtype, PassOrder::kHeightFirst, 1, &one);
    RunAndCheck(p, ax_h, ax_w, dtype, PassOrder::kHeightFirst, 3, &three);
    EXPECT_EQ(one, three) << DTypeName(dtype);
  }
  const Problem bilinear{1, 16, 12, 40, 24, 80, true};
  const AxisRuns bilinear_h =
      Transpose(BuildBilinearAxis(AxisSpec{bilinear.in_h, bilinear.out_h, false, 0.0}));
  const AxisRuns bilinear_w =
      Transpose(BuildBilinearAxis(AxisSpec{bilinear.in_w, bilinear.out_w, false, 0.0}));
  ShapeViews(bilinear, &grad, &result);
  const Plan paired =
      BuildPlan(DType::kFloat32, grad, result, bilinear_h, bilinear_w, 1, PassOrder::kHeightFirst);
  EXPECT_FALSE(paired.schedule.group_h_rows);
  EXPECT_TRUE(paired.schedule.pair_h_rows);
}

// Planar row groups hold about 16 KiB of float rows, 8 to 32 rows (plan.cc, PlanarRowGroup):
// 32 of a 2x gradient's 128-column H-pass rows, 8 of 2048 columns; W first, a converted source
// row and the W-pass row made from it count together (64 + 128 columns: 21 rows). Groups of several
// sizes in one band, and a band shorter than a group, match the naive product in every dtype and
// give the same bits at 1 and 3 threads.
TEST(Engine, PlanarRowGroupsHoldAboutSixteenKiBAndChangeNoBits) {
  struct Case {
    Problem problem;
    PassOrder order;
    int64_t row_group;
  };
  const Case cases[] = {
      {Problem{1, 2, 70, 64, 140, 128, false}, PassOrder::kHeightFirst, 32},
      {Problem{1, 1, 20, 1024, 40, 2048, false}, PassOrder::kHeightFirst, 8},
      {Problem{1, 2, 40, 256, 80, 512, false}, PassOrder::kHeightFirst, 8},
      {Problem{1, 2, 140, 128, 70, 64, false}, PassOrder::kWidthFirst, 21},
      {Problem{1, 1, 36, 512, 18, 256, false}, PassOrder::kWidthFirst, 8},
  };
  for (const Case& c : cases) {
    const Problem& p = c.problem;
    const AxisRuns ax_h = Transpose(BuildBilinearAxis(AxisSpec{p.in_h, p.out_h, false, 0.0}));
    const AxisRuns ax_w = Transpose(BuildBilinearAxis(AxisSpec{p.in_w, p.out_w, false, 0.0}));
    PlaneView grad, result;
    ShapeViews(p, &grad, &result);
    for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
      const Plan plan = BuildPlan(dtype, grad, result, ax_h, ax_w, 1, c.order);
      ASSERT_EQ(plan.schedule.layout, Layout::kPlanar);
      EXPECT_EQ(plan.schedule.row_group, c.row_group)
          << p.in_w << " -> " << p.out_w << " " << DTypeName(dtype);
      std::vector<uint8_t> one, three;
      RunAndCheck(p, ax_h, ax_w, dtype, c.order, 1, &one);
      RunAndCheck(p, ax_h, ax_w, dtype, c.order, 3, &three);
      EXPECT_EQ(one, three) << p.in_w << " " << DTypeName(dtype);
    }
  }
}

// Whether a call outgrows this CPU's last-level cache, as the plan judges it.
bool BeyondLastLevelCache(const PlaneView& source, const PlaneView& result, DType dtype) {
  const uint64_t last_level = LastLevelCacheBytes();
  return last_level > 0 && TrafficBytes(source, result, dtype) > last_level;
}

// Runs `plan` (its source already set) with cached and with streamed result stores, the streamed
// result aligned to a 64-byte line and one float off it, and expects the same bits.
void ExpectStreamedRunMatchesCached(Plan plan, size_t result_elements) {
  const size_t elem = DTypeSize(plan.problem.dtype);
  const size_t bytes = result_elements * elem;
  std::vector<float> workspace(plan.schedule.workspace_bytes / sizeof(float) + 1);
  for (size_t misalign : {0, 1}) {
    std::vector<uint8_t> cached(bytes), storage(bytes + 64 + misalign * elem);
    uint8_t* streamed = storage.data() +
                        (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64 +
                        misalign * elem;
    plan.schedule.stream_result = false;
    plan.problem.result.data = reinterpret_cast<char*>(cached.data());
    Execute(plan, workspace.data());
    plan.schedule.stream_result = true;
    plan.problem.result.data = reinterpret_cast<char*>(streamed);
    Execute(plan, workspace.data());
    ASSERT_EQ(std::memcmp(cached.data(), streamed, bytes), 0)
        << DTypeName(plan.problem.dtype) << " C " << plan.problem.result.c << " slots "
        << plan.schedule.num_slots << " misalign " << misalign;
  }
}

// The bilinear backward of `p` in `dtype` (gradOut drawn from `rng`), planned H first at 1 and
// 3 threads, streamed against cached (ExpectStreamedRunMatchesCached). Returns the plans' layout.
Layout ExpectHeightFirstBackwardStreamsAlike(const Problem& p, std::mt19937& rng,
                                             DType dtype = DType::kFloat32) {
  const AxisRuns bh = Transpose(BuildBilinearAxis(AxisSpec{p.in_h, p.out_h, false, 0.0}));
  const AxisRuns bw = Transpose(BuildBilinearAxis(AxisSpec{p.in_w, p.out_w, false, 0.0}));
  PlaneView grad, result;
  ShapeViews(p, &grad, &result);
  std::normal_distribution<float> normal;
  std::vector<uint8_t> grad_data =
      DrawnValuesIn(dtype, static_cast<size_t>(p.n * grad.stride_n), normal, rng);
  grad.data = reinterpret_cast<char*>(grad_data.data());
  Layout layout = Layout::kPlanar;
  for (int threads : {1, 3}) {
    const Plan plan = BuildPlan(dtype, grad, result, bh, bw, threads, PassOrder::kHeightFirst);
    layout = plan.schedule.layout;
    ExpectStreamedRunMatchesCached(plan, static_cast<size_t>(p.n * result.stride_n));
    if (::testing::Test::HasFatalFailure()) break;
  }
  return layout;
}

// Channels-last H first with paired rows over pixels of one or two whole vectors (16 channels,
// where a target's vectors hold 8 or 16 floats: the plane groups, and channels-last tensors of
// 16 channels stored cached) holds kHeightGroupRows H-pass rows for one W-pass call
// (CpuSchedule::band_w_pass). Checked against the naive product at 1 and 3 threads, and
// bitwise against the same plan a row at a time, for a 2x downscale (pairs throughout) and
// 28 -> 9 (a pair or a single row at a time), bilinear and bicubic AA, float32 and bfloat16;
// 64 channels never band.
TEST(Engine, HeightFirstBandsOfRowsChangeNoBits) {
  const int64_t lanes = static_cast<int64_t>(kernels::FloatLanes());
  const bool bands = lanes == 8 || lanes == 16;
  for (const Problem& p :
       {Problem{2, 80, 14, 14, 28, 28, false}, Problem{1, 144, 9, 11, 28, 21, false},
        Problem{2, 16, 14, 14, 28, 28, true}, Problem{1, 64, 14, 14, 28, 28, true}}) {
    for (const bool bicubic : {false, true}) {
      const auto axis = [&](int64_t in, int64_t out) {
        const AxisSpec spec{in, out, false, 0.0};
        return Transpose(bicubic ? BuildBicubicAAAxis(spec) : BuildBilinearAxis(spec));
      };
      const AxisRuns ax_h = axis(p.in_h, p.out_h), ax_w = axis(p.in_w, p.out_w);
      for (DType dtype : {DType::kFloat32, DType::kBFloat16}) {
        SCOPED_TRACE(::testing::Message()
                     << p.n << "x" << p.c << (p.channels_last ? " channels-last" : " planes")
                     << ", in " << p.in_h << "x" << p.in_w << " out " << p.out_h << "x" << p.out_w
                     << (bicubic ? " bicubic AA " : " bilinear ") << DTypeName(dtype));
        PlaneView grad, result;
        ShapeViews(p, &grad, &result);
        Plan plan = BuildPlan(dtype, grad, result, ax_h, ax_w, 3, PassOrder::kHeightFirst);
        if (p.c != 64) ASSERT_TRUE(plan.schedule.pair_h_rows);
        // Channels-last bfloat16 tensors convert each row: no band; plane groups always run on
        // float32 pixels.
        const bool float32_pixels = !p.channels_last || dtype == DType::kFloat32;
        EXPECT_EQ(plan.schedule.band_w_pass, bands && p.c != 64 && float32_pixels);
        std::vector<uint8_t> one, three;
        RunAndCheck(p, ax_h, ax_w, dtype, PassOrder::kHeightFirst, 1, &one);
        RunAndCheck(p, ax_h, ax_w, dtype, PassOrder::kHeightFirst, 3, &three);
        if (HasFatalFailure()) return;
        EXPECT_EQ(one, three);
        if (!plan.schedule.band_w_pass) continue;
        const size_t bytes = static_cast<size_t>(p.n * p.c * p.in_h * p.in_w) * DTypeSize(dtype);
        std::vector<uint8_t> source(static_cast<size_t>(p.n * p.c * p.out_h * p.out_w) *
                                    DTypeSize(dtype));
        std::mt19937 rng(41);
        for (uint8_t& byte : source) byte = static_cast<uint8_t>(rng() % 64);  // finite values
        std::vector<uint8_t> banded(bytes), by_rows(bytes);
        std::vector<float> workspace(plan.schedule.workspace_bytes / sizeof(float) + 1);
        plan.problem.source.data = reinterpret_cast<char*>(source.data());
        plan.problem.result.data = reinterpret_cast<char*>(banded.data());
        Execute(plan, workspace.data());
        plan.schedule.band_w_pass = false;  // the scratch holds the two rows this needs
        plan.problem.result.data = reinterpret_cast<char*>(by_rows.data());
        Execute(plan, workspace.data());
        EXPECT_EQ(banded, by_rows);
      }
    }
  }
}

// Channels-last float32 results stream past the caches only where a call moves more than
// kStreamedResultMinTraffic, and a streamed run writes the same bits as a cached one, on
// aligned and misaligned results, whole-vector and ragged channel counts, 1 and 3 threads. The
// kernels stream only pixels of whole vectors, so the channel counts are this target's
// multiples of its lanes (40 channels are not whole 16-lane vectors), one over, and whole
// vectors with padding between pixels.
TEST(Engine, StreamedResultsArePlannedForBigCallsAndChangeNoBits) {
  PlaneView grad, result;
  ShapeViews(Problem{8, 64, 64, 64, 128, 128, true}, &grad, &result);  // the suite's case 7
  const AxisRuns ax_h = Transpose(BuildBilinearAxis(AxisSpec{64, 128, false, 0.0}));
  const AxisRuns ax_w = ax_h;
  EXPECT_TRUE(BuildPlan(DType::kFloat32, grad, result, ax_h, ax_w, 2).schedule.stream_result);
  EXPECT_FALSE(BuildPlan(DType::kBFloat16, grad, result, ax_h, ax_w, 2).schedule.stream_result);
  ShapeViews(Problem{8, 64, 64, 64, 128, 128, false}, &grad, &result);  // planar: a quarter
  EXPECT_EQ(BuildPlan(DType::kFloat32, grad, result, ax_h, ax_w, 2).schedule.stream_result,
            BeyondLastLevelCache(grad, result, DType::kFloat32));
  ShapeViews(Problem{4, 64, 64, 64, 128, 128, true}, &grad, &result);  // 20 MiB
  EXPECT_TRUE(BuildPlan(DType::kFloat32, grad, result, ax_h, ax_w, 2).schedule.stream_result);
  ShapeViews(Problem{2, 64, 64, 64, 128, 128, true}, &grad, &result);  // 10 MiB
  EXPECT_FALSE(BuildPlan(DType::kFloat32, grad, result, ax_h, ax_w, 2).schedule.stream_result);

  const int64_t lanes = static_cast<int64_t>(kernels::FloatLanes());
  const auto whole_vectors = [lanes](int64_t at_least) {
    return (at_least + lanes - 1) / lanes * lanes;
  };
  std::mt19937 rng(17);
  for (const Problem& p : {Problem{2, whole_vectors(40), 9, 6, 18, 12, true},
                           Problem{1, whole_vectors(16) + 1, 8, 5, 16, 10, true},
                           Problem{2, whole_vectors(24), 7, 9, 13, 20, true, whole_vectors(8)}}) {
    EXPECT_EQ(ExpectHeightFirstBackwardStreamsAlike(p, rng), Layout::kChannelsLast);
    if (HasFatalFailure()) return;
  }
}

// Results smaller than their source (the backward of a 2x upsample here), and every result of
// the planar H-first pass, stream only where a call moves more than the last-level cache holds
// (LastLevelCacheBytes; kStreamedResultMinTraffic is the floor either way), and only such calls
// are planned to read their source from memory: for this CPU's cache and, whatever this CPU has,
// for the Zen VMs' 32 MiB and the Intel VM's 260 MiB; where the size is unknown, no call. The
// planar H-first pass streams through a row group in scratch: every dtype, rows back to back and
// padded, aligned and misaligned, 1 and 3 threads, the same bits as cached.
TEST(Engine, ResultsStreamPastTheLastLevelCacheAndChangeNoBits) {
  const AxisRuns down = Transpose(BuildBilinearAxis(AxisSpec{64, 128, false, 0.0}));
  const auto planned = [&](int64_t images, DType dtype, bool channels_last) {
    PlaneView grad, result;
    ShapeViews(Problem{images, 64, 64, 64, 128, 128, channels_last}, &grad, &result);
    return BuildPlan(dtype, grad, result, down, down, 2);
  };
  const uint64_t image_bytes = uint64_t{64} * (64 * 64 + 128 * 128) * sizeof(float);
  for (const uint64_t last_level :
       {LastLevelCacheBytes(), uint64_t{32} << 20, uint64_t{260} << 20}) {
    if (last_level == 0) continue;  // this CPU's, where the system does not say: below
    SCOPED_TRACE(::testing::Message() << "last-level cache " << last_level);
    const ScopedTuning cache(
        [&](kernels::KernelTuning& t) { t.last_level_cache_bytes = last_level; });
    ASSERT_EQ(LastLevelCacheBytes(), last_level);
    const auto beyond = static_cast<int64_t>(last_level / image_bytes + 1);
    const auto within = static_cast<int64_t>(last_level / image_bytes);
    for (DType dtype : {DType::kFloat32, DType::kBFloat16}) {
      const int64_t scale = dtype == DType::kFloat32 ? 1 : 2;  // the same bytes in 16-bit elements
      const Plan big = planned(beyond * scale, dtype, false);
      EXPECT_EQ(big.schedule.planar_path, PlanarPath::kHeightFirst);
      EXPECT_TRUE(big.schedule.stream_result) << DTypeName(dtype);
      EXPECT_TRUE(big.schedule.source_from_memory) << DTypeName(dtype);
      const Plan small = planned(within * scale, dtype, false);
      EXPECT_FALSE(small.schedule.source_from_memory) << DTypeName(dtype);
      if (within * image_bytes > kStreamedResultMinTraffic) {
        EXPECT_FALSE(small.schedule.stream_result) << DTypeName(dtype);
      }
    }
    EXPECT_TRUE(planned(beyond, DType::kFloat32, true).schedule.stream_result);  // channels-last
  }
  {
    const ScopedTuning unknown([](kernels::KernelTuning& t) { t.last_level_cache_bytes = 0; });
    const Plan huge = planned(4096, DType::kFloat32, false);  // 20 GiB, planned only
    EXPECT_FALSE(huge.schedule.source_from_memory);
    EXPECT_FALSE(huge.schedule.stream_result);
  }

  std::mt19937 rng(29);
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    for (const Problem& p : {Problem{2, 3, 20, 37, 40, 74, false},
                             Problem{1, 2, 33, 80, 66, 160, false, 0, 1.0f, 3}}) {
      SCOPED_TRACE(::testing::Message() << DTypeName(dtype) << " row pad " << p.row_pad);
      EXPECT_EQ(ExpectHeightFirstBackwardStreamsAlike(p, rng, dtype), Layout::kPlanar);
      if (HasFatalFailure()) return;
    }
  }
}

// Interleaved pixel rows (RGB, RGBA images) H first stream their float32 result rows, into which
// the W pass interleaves whole vectors, where a call moves more than kStreamedResultMinTraffic
// (16-bit results go through scratch, cached), and a streamed run writes the same bits as a
// cached one: aligned and misaligned results (rows of 40 pixels start on and off a line in
// turn), 2 to 4 channels (streamed) and 5 (stored cached), 1 and 3 threads.
TEST(Engine, InterleavedHeightFirstResultsStreamAndChangeNoBits) {
  PlaneView grad, result;
  ShapeViews(Problem{8, 3, 256, 256, 512, 512, true}, &grad, &result);  // RGB 2x backward
  const AxisRuns down = Transpose(BuildBilinearAxis(AxisSpec{256, 512, false, 0.0}));
  const Plan big = BuildPlan(DType::kFloat32, grad, result, down, down, 2);
  EXPECT_EQ(big.schedule.layout, Layout::kInterleaved);
  EXPECT_TRUE(big.schedule.h_pass_first);
  EXPECT_TRUE(big.schedule.stream_result);
  EXPECT_FALSE(BuildPlan(DType::kBFloat16, grad, result, down, down, 2).schedule.stream_result);
  ShapeViews(Problem{1, 3, 256, 256, 512, 512, true}, &grad, &result);  // 3.75 MiB
  EXPECT_FALSE(BuildPlan(DType::kFloat32, grad, result, down, down, 2).schedule.stream_result);

  std::mt19937 rng(23);
  for (int64_t channels = 2; channels <= 5; ++channels) {
    const Layout layout =
        ExpectHeightFirstBackwardStreamsAlike(Problem{2, channels, 20, 40, 40, 80, true}, rng);
    if (HasFatalFailure()) return;
    EXPECT_EQ(layout, Layout::kInterleaved) << "C " << channels;
  }
}

// A nearest axis as a forward gather: result index o reads source index pick(o) with weight 1,
// except every fifth, whose run is empty (a result of zeros).
AxisRuns NearestAxis(int64_t source, int64_t result, uint32_t seed) {
  ForwardAxis forward;
  forward.in_size = source;
  forward.out_size = result;
  std::mt19937 rng(seed);
  const double one = 1.0;
  for (int64_t o = 0; o < result; ++o) {
    forward.AddRow(static_cast<int64_t>(rng() % static_cast<uint32_t>(source)), &one,
                   o % 5 == 3 ? 0 : 1);
  }
  return AsGather(forward);
}

// Nearest on both axes with channels contiguous in pixels of 16 bytes or more is a copy
// (Layout::kCopy): every result element has its source element's bits, signalling NaNs and
// negative zeros included, at 1 and 3 threads; a weight other than 1, narrower pixels and planes
// take the passes.
TEST(Engine, NearestPixelsOfContiguousChannelsAreCopiedBitForBit) {
  const AxisRuns ax_h = NearestAxis(7, 12, 1), ax_w = NearestAxis(9, 5, 2);
  // Pixels apart (padded) and back to back; four channels are 8-byte pixels in 16-bit dtypes,
  // six are 12-byte ones (copied with overlapping 8-byte vectors).
  for (const Problem p : {Problem{3, 20, 12, 5, 7, 9, true, /*pixel_pad=*/2},
                          Problem{2, 4, 12, 5, 7, 9, true}, Problem{2, 6, 12, 5, 7, 9, true}}) {
    for (const DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
      const int64_t elem = static_cast<int64_t>(DTypeSize(dtype));
      PlaneView source, result;
      ShapeViews(p, &source, &result);
      std::vector<uint8_t> source_bytes(source.n * source.stride_n * elem);
      std::mt19937 rng(3);
      for (uint8_t& byte : source_bytes) byte = static_cast<uint8_t>(rng());
      // Values the float passes would change: a signalling NaN and -0 in every dtype.
      const uint32_t signalling_nan = dtype == DType::kFloat32   ? 0x7F800001u
                                      : dtype == DType::kFloat16 ? 0x7C01u
                                                                 : 0x7F81u;
      const uint32_t specials[] = {signalling_nan,
                                   dtype == DType::kFloat32 ? 0x80000000u : 0x8000u};
      for (size_t at = 0; at + elem <= source_bytes.size(); at += 7 * elem) {
        std::memcpy(source_bytes.data() + at, &specials[at / elem % 2], elem);
      }
      source.data = reinterpret_cast<char*>(source_bytes.data());
      for (const int threads : {1, 3}) {
        std::vector<uint8_t> result_bytes(result.n * result.stride_n * elem, 0xA5);
        result.data = reinterpret_cast<char*>(result_bytes.data());
        const Plan plan = BuildPlan(dtype, source, result, ax_h, ax_w, threads);
        ASSERT_EQ(plan.schedule.layout, Layout::kCopy) << DTypeName(dtype);
        EXPECT_EQ(plan.schedule.workspace_bytes, 0u);
        Execute(plan, nullptr);
        for (int64_t n = 0; n < p.n; ++n) {
          for (int64_t h = 0; h < result.h; ++h) {
            for (int64_t w = 0; w < result.w; ++w) {
              const bool empty = ax_h.count(h) == 0 || ax_w.count(w) == 0;
              for (int64_t c = 0; c < p.c; ++c) {
                const int64_t to =
                    (n * result.stride_n + h * result.stride_h + w * result.stride_w + c) * elem;
                const int64_t from = (n * source.stride_n + ax_h.first[h] * source.stride_h +
                                      ax_w.first[w] * source.stride_w + c) *
                                     elem;
                for (int64_t b = 0; b < elem; ++b) {
                  ASSERT_EQ(result_bytes[to + b], empty ? 0 : source_bytes[from + b])
                      << DTypeName(dtype) << " threads " << threads << " channels " << p.c
                      << " pixel " << n << "," << h << "," << w << " channel " << c;
                }
              }
            }
          }
        }
      }
    }
  }
  // What stays on the passes.
  const auto layout_of = [](const Problem& p, DType dtype, const AxisRuns& h, const AxisRuns& w) {
    PlaneView source, result;
    ShapeViews(p, &source, &result);
    return BuildPlan(dtype, source, result, h, w, 1).schedule.layout;
  };
  const Problem four = {1, 4, 12, 5, 7, 9, true};  // four channels: copied in every dtype
  EXPECT_EQ(layout_of(four, DType::kBFloat16, ax_h, ax_w), Layout::kCopy);
  EXPECT_EQ(layout_of(four, DType::kFloat32, ax_h, ax_w), Layout::kCopy);
  const Problem three = {1, 3, 12, 5, 7, 9, true};  // RGB: the interleaved passes
  EXPECT_NE(layout_of(three, DType::kBFloat16, ax_h, ax_w), Layout::kCopy);
  EXPECT_NE(layout_of(three, DType::kFloat32, ax_h, ax_w), Layout::kCopy);
  const Problem eight = {1, 8, 12, 5, 7, 9, true};
  const Problem planes = {1, 20, 12, 5, 7, 9, false};  // channels not contiguous
  EXPECT_NE(layout_of(planes, DType::kFloat32, ax_h, ax_w), Layout::kCopy);
  AxisRuns halved = ax_w;
  halved.weights[0] = 0.5f;
  EXPECT_NE(layout_of(eight, DType::kFloat32, ax_h, halved), Layout::kCopy);
}

// Plane groups stream their float32 results only where a vector fills a cache line (16 lanes):
// the transposes write a vector into each of 16 planes in turn, and streamed half-line vectors
// (AVX2) ran a 4096-plane backward onto 32x32 planes 3.8x slower than cached ones.
TEST(Engine, PlaneGroupsStreamOnlyVectorsThatFillACacheLine) {
  PlaneView grad, result;
  // 21 MB moved, the result four times the source: streamed where the vectors allow.
  ShapeViews(Problem{16, 256, 32, 32, 16, 16, false}, &grad, &result);
  const AxisRuns axis = Transpose(BuildBilinearAxis(AxisSpec{32, 16, false, 0.0}));
  const Plan plan = BuildPlan(DType::kFloat32, grad, result, axis, axis, 2);
  ASSERT_EQ(plan.schedule.layout, Layout::kPlaneGroups);
  EXPECT_EQ(plan.schedule.stream_result, kernels::FloatLanes() >= 16)
      << kernels::FloatLanes() << " lanes";
}

// Channels-last 16-bit pixels count a conversion step per pixel in the pass order: H first rounds
// every result row from float scratch, W first converts every source row (its H pass rounds in
// registers). A 2x upscale, which ties in float32 and runs H first, runs W first in 16 bits (it
// converts a quarter of the pixels); its backward, which converts a quarter of the pixels H
// first, stays H first. Counted without the conversions, the 16-bit upscale ran H first.
TEST(Engine, ChannelsLast16BitPixelsCountTheirConversionsInThePassOrder) {
  PlaneView small, large;
  ShapeViews(Problem{2, 16, 64, 64, 32, 32, true}, &small, &large);  // source 32x32, result 64x64
  const AxisRuns up = AsGather(BuildBilinearAxis(AxisSpec{32, 64, false, 0.0}));
  const AxisRuns down = Transpose(BuildBilinearAxis(AxisSpec{32, 64, false, 0.0}));
  for (const DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    const Plan upscale = BuildPlan(dtype, small, large, up, up, 1);
    ASSERT_EQ(upscale.schedule.layout, Layout::kChannelsLast);
    EXPECT_EQ(upscale.schedule.h_pass_first, dtype == DType::kFloat32) << DTypeName(dtype);
    const Plan backward = BuildPlan(dtype, large, small, down, down, 1);
    ASSERT_EQ(backward.schedule.layout, Layout::kChannelsLast);
    EXPECT_TRUE(backward.schedule.h_pass_first) << DTypeName(dtype);
  }
}

// Results the last pass writes in place as whole rows (planar W first, channels-last W first with
// dense pixels) also stream in big calls whose result is at least as large as their source, as a
// forward upsample's (which writes four times what it reads), in every dtype (16-bit rows
// rounded in registers); a streamed run writes the same bits as a cached one, aligned or not, at
// 1 and 3 threads. Planar rows stream their whole vectors when the row starts on a vector (a 2x
// forward of 64 -> 128 does; 61 -> 122 ends in a partial vector).
TEST(Engine, StreamedWidthFirstResultsArePlannedForBigCallsAndChangeNoBits) {
  for (const bool channels_last : {false, true}) {
    PlaneView source, result;
    // A forward 2x upsample: the source is the small image, the result four times its size.
    ShapeViews(Problem{8, 16, 128, 128, 64, 64, channels_last}, &source, &result);
    const AxisRuns up = AsGather(BuildBilinearAxis(AxisSpec{64, 128, false, 0.0}));
    for (DType dtype : {DType::kFloat32, DType::kBFloat16}) {  // 10 and 5 MiB
      EXPECT_FALSE(BuildPlan(dtype, source, result, up, up, 2, PassOrder::kWidthFirst)
                       .schedule.stream_result)
          << DTypeName(dtype);
    }
    // 40 and 20 MiB: streamed, 16-bit rows rounded in registers.
    ShapeViews(Problem{8, 64, 128, 128, 64, 64, channels_last}, &source, &result);
    for (DType dtype : {DType::kFloat32, DType::kBFloat16}) {
      const Plan big = BuildPlan(dtype, source, result, up, up, 2, PassOrder::kWidthFirst);
      EXPECT_FALSE(big.schedule.h_pass_first);
      EXPECT_TRUE(big.schedule.stream_result)
          << DTypeName(dtype) << " channels_last " << channels_last;
    }
    // The backward of the same upsample writes a quarter of what it reads: cached stores, unless
    // the call outgrows the last-level cache (42 MB against 32 MiB on some CPUs).
    ShapeViews(Problem{8, 64, 64, 64, 128, 128, channels_last}, &source, &result);
    const AxisRuns down = Transpose(BuildBilinearAxis(AxisSpec{64, 128, false, 0.0}));
    EXPECT_EQ(BuildPlan(DType::kFloat32, source, result, down, down, 2, PassOrder::kWidthFirst)
                  .schedule.stream_result,
              BeyondLastLevelCache(source, result, DType::kFloat32))
        << "channels_last " << channels_last;
  }
  std::mt19937 rng(29);
  std::normal_distribution<float> normal;
  for (const Problem& p :
       {Problem{2, 3, 128, 128, 64, 64, false}, Problem{1, 2, 122, 98, 61, 49, false},
        Problem{2, 16, 40, 36, 20, 18, true}}) {
    PlaneView source, result;
    ShapeViews(p, &source, &result);
    const AxisRuns ax_h = AsGather(BuildBilinearAxis(AxisSpec{p.out_h, p.in_h, false, 0.0}));
    const AxisRuns ax_w = AsGather(BuildBilinearAxis(AxisSpec{p.out_w, p.in_w, false, 0.0}));
    const size_t source_elements = static_cast<size_t>(p.n * source.stride_n);
    const size_t result_elements = static_cast<size_t>(p.n * result.stride_n);
    for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
      std::vector<uint8_t> source_data = DrawnValuesIn(dtype, source_elements, normal, rng);
      source.data = reinterpret_cast<char*>(source_data.data());
      for (int threads : {1, 3}) {
        const Plan plan =
            BuildPlan(dtype, source, result, ax_h, ax_w, threads, PassOrder::kWidthFirst);
        ASSERT_FALSE(plan.schedule.h_pass_first);
        ExpectStreamedRunMatchesCached(plan, result_elements);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// A W-first planar task whose tile outgrows L1, where the H pass makes one or two result rows of
// each tile row, runs the passes in turns (CpuSchedule::w_first_step_rows), through a window of
// the tile where the H runs have at most three taps (w_first_window_rows), and neither changes
// bits: against the naive product, across thread counts, and against the same plan with the
// whole W pass first and with turns over the whole tile, streamed or cached, for ratios whose
// result rows complete two per step (2x) or irregularly (8/7, 3/2). Tiles within L1, H
// downscales and H upsamples past 2x take no turns; bicubic runs take no window. Tiles past the
// window and short of the turns' size are cut into bands of about the window (bilinear runs).
TEST(Engine, WidthFirstTurnsArePlannedForTilesPastL1AndChangeNoBits) {
  const auto gather = [](int64_t source, int64_t result) {
    return AsGather(BuildBilinearAxis(AxisSpec{source, result, false, 0.0}));
  };
  // Problem: n, c, result h, w, source h, w (a forward's output and input).
  const auto plan_for = [&](const Problem& p, DType dtype, int threads) {
    PlaneView source, result;
    ShapeViews(p, &source, &result);
    return BuildPlan(dtype, source, result, gather(p.out_h, p.in_h), gather(p.out_w, p.in_w),
                     threads, PassOrder::kWidthFirst);
  };
  // The same with bicubic H runs (four taps).
  const auto bicubic_plan_for = [&](const Problem& p) {
    PlaneView source, result;
    ShapeViews(p, &source, &result);
    return BuildPlan(DType::kFloat32, source, result,
                     AsGather(BuildBicubicAxis(AxisSpec{p.out_h, p.in_h, false, 0.0})),
                     gather(p.out_w, p.in_w), 1, PassOrder::kWidthFirst);
  };
  {
    // A 32 KiB tile: no turns; bilinear runs cut it into two bands of about the window,
    // bicubic ones keep it whole.
    const Problem small{1, 1, 128, 128, 64, 64, false};
    const Plan plan = plan_for(small, DType::kFloat32, 1);
    EXPECT_EQ(plan.schedule.w_first_step_rows, 0);
    ASSERT_FALSE(plan.schedule.h_pass_first);
    EXPECT_EQ(plan.schedule.bands.size(), 2u);
    for (const RowBand& band : plan.schedule.bands) {
      EXPECT_LE((band.source_row_end - band.source_row_begin - 2) * plan.problem.result.w * 4,
                16 * 1024);
    }
    EXPECT_EQ(bicubic_plan_for(small).schedule.bands.size(), 1u);
    for (DType dtype : {DType::kFloat32, DType::kBFloat16}) {
      std::vector<uint8_t> one, three;
      RunAndCheck(small, gather(small.out_h, small.in_h), gather(small.out_w, small.in_w), dtype,
                  PassOrder::kWidthFirst, 1, &one);
      RunAndCheck(small, gather(small.out_h, small.in_h), gather(small.out_w, small.in_w), dtype,
                  PassOrder::kWidthFirst, 3, &three);
      EXPECT_EQ(one, three) << DTypeName(dtype);
    }
  }
  EXPECT_EQ(plan_for(Problem{1, 1, 80, 1024, 160, 512, false}, DType::kFloat32, 1)
                .schedule.w_first_step_rows,
            0);  // H down
  EXPECT_EQ(plan_for(Problem{1, 1, 480, 1024, 60, 512, false}, DType::kFloat32, 1)
                .schedule.w_first_step_rows,
            0);  // H up by 8
  {
    const Plan plan = bicubic_plan_for(Problem{1, 1, 256, 1024, 128, 512, false});
    EXPECT_GT(plan.schedule.w_first_step_rows, 0);
    EXPECT_EQ(plan.schedule.w_first_window_rows, 0);  // four taps: each move copies too much
  }

  const Problem checked{1, 1, 160, 1024, 80, 512, false};  // bands of 20+ rows of 4 KiB
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    ASSERT_GT(plan_for(checked, dtype, 1).schedule.w_first_step_rows, 0) << DTypeName(dtype);
    std::vector<uint8_t> one, three;
    RunAndCheck(checked, gather(checked.out_h, checked.in_h), gather(checked.out_w, checked.in_w),
                dtype, PassOrder::kWidthFirst, 1, &one);
    RunAndCheck(checked, gather(checked.out_h, checked.in_h), gather(checked.out_w, checked.in_w),
                dtype, PassOrder::kWidthFirst, 3, &three);
    EXPECT_EQ(one, three) << DTypeName(dtype);
  }

  std::mt19937 rng(31);
  std::normal_distribution<float> normal;
  for (const Problem& p :
       {Problem{1, 2, 256, 2048, 128, 1024, false}, Problem{1, 1, 256, 1200, 224, 1050, false},
        Problem{2, 1, 150, 999, 100, 666, false}}) {
    for (DType dtype : {DType::kFloat32, DType::kBFloat16}) {
      PlaneView source, result;
      ShapeViews(p, &source, &result);
      const size_t source_elements = static_cast<size_t>(p.n * source.stride_n);
      const size_t result_bytes = static_cast<size_t>(p.n * result.stride_n) * DTypeSize(dtype);
      std::vector<uint8_t> source_data = DrawnValuesIn(dtype, source_elements, normal, rng);
      for (int threads : {1, 3}) {
        Plan plan = plan_for(p, dtype, threads);
        ASSERT_GT(plan.schedule.w_first_step_rows, 0)
            << p.in_w << " " << DTypeName(dtype) << " threads " << threads;
        const int64_t step_rows = plan.schedule.w_first_step_rows;
        const int64_t window_rows = plan.schedule.w_first_window_rows;
        // The window must be narrower than a band, so that its rows move.
        ASSERT_GT(window_rows, step_rows) << p.in_w;
        int64_t band_rows = 0;
        for (const RowBand& band : plan.schedule.bands) {
          band_rows = std::max<int64_t>(band_rows, band.source_row_end - band.source_row_begin);
        }
        ASSERT_LT(window_rows, band_rows) << p.in_w;
        plan.problem.source.data = reinterpret_cast<char*>(source_data.data());
        std::vector<float> workspace(plan.schedule.workspace_bytes / sizeof(float) + 1);
        std::vector<uint8_t> windowed(result_bytes), turns(result_bytes, 0xAB),
            whole(result_bytes, 0xCD);
        for (bool streamed : {false, true}) {
          plan.schedule.stream_result = streamed;
          plan.schedule.w_first_step_rows = step_rows;
          plan.schedule.w_first_window_rows = window_rows;
          plan.problem.result.data = reinterpret_cast<char*>(windowed.data());
          Execute(plan, workspace.data());
          plan.schedule.w_first_window_rows = 0;
          plan.problem.result.data = reinterpret_cast<char*>(turns.data());
          Execute(plan, workspace.data());
          plan.schedule.w_first_step_rows = 0;
          plan.problem.result.data = reinterpret_cast<char*>(whole.data());
          Execute(plan, workspace.data());
          ASSERT_EQ(turns, whole) << p.in_w << " " << DTypeName(dtype) << " threads " << threads
                                  << " streamed " << streamed;
          ASSERT_EQ(windowed, whole) << p.in_w << " " << DTypeName(dtype) << " threads " << threads
                                     << " streamed " << streamed;
        }
      }
    }
  }
}

// The W-first tile's rows (CpuSchedule::tile_row_floats) start on cache lines where the results
// round to bfloat16 or stream, and lie a row's floats apart where float32 or float16 results are
// stored cached, in planar, interleaved (RGB) and channels-last (8 channels) tiles; the scratch
// holds the tallest band's rows at that stride. Padded or not, the bits are the same: each plan
// against the naive product (RunAndCheck, 1 and 3 threads), and each padded one against itself
// with rows a row's floats apart, streamed ones included.
TEST(Engine, WidthFirstTileRowsStartOnCacheLinesWhereTheyPayAndChangeNoBits) {
  const auto gather = [](int64_t source, int64_t result) {
    return AsGather(BuildBilinearAxis(AxisSpec{source, result, false, 0.0}));
  };
  const auto padded = [](int64_t floats) { return (floats + 15) / 16 * 16; };
  // Runs `plan` on standard normal values, then again with tile rows a row's floats apart
  // (scratch sized for the padded rows holds them), and expects the same bytes (those between
  // pixels, which neither writes, filled alike).
  const auto expect_unpadded_run_matches = [](Plan plan, const std::string& what) {
    const size_t elem = DTypeSize(plan.problem.dtype);
    const PlaneView& source = plan.problem.source;
    const auto source_elements = static_cast<size_t>(source.n * source.stride_n);
    const auto result_bytes =
        static_cast<size_t>(plan.problem.result.n * plan.problem.result.stride_n) * elem;
    std::mt19937 rng(53);
    std::normal_distribution<float> normal;
    std::vector<uint8_t> source_data =
        DrawnValuesIn(plan.problem.dtype, source_elements, normal, rng);
    plan.problem.source.data = reinterpret_cast<char*>(source_data.data());
    std::vector<float> workspace(plan.schedule.workspace_bytes / sizeof(float) + 1);
    std::vector<uint8_t> with_padding(result_bytes, 0xAB), without(result_bytes, 0xAB);
    plan.problem.result.data = reinterpret_cast<char*>(with_padding.data());
    Execute(plan, workspace.data());
    plan.schedule.tile_row_floats = plan.problem.result.w * plan.schedule.channel_block;
    plan.problem.result.data = reinterpret_cast<char*>(without.data());
    Execute(plan, workspace.data());
    EXPECT_EQ(with_padding, without) << what;
  };
  // W: a 2x forward (pixel rows gathered as they are where interleaved) or a 2x gradient
  // (interleaved pixel rows through planar ones); H: a 1.5x forward.
  for (int64_t width : {46, 127, 128, 299}) {
    for (bool gradient : {false, true}) {
      // Planar, RGB, 8 channels, and 8 channels a float apart (pixels not dense).
      for (const auto& [channels, pixel_pad] :
           {std::pair<int64_t, int64_t>{1, 0}, {3, 0}, {8, 0}, {8, 1}}) {
        Problem p{1, 2, 48, width, 32, 0, false};  // n, c, result h, w, source h, w
        p.c = channels == 1 ? 2 : channels;
        p.out_w = gradient ? 2 * width : (width + 1) / 2;
        p.channels_last = channels > 1;
        p.pixel_pad = pixel_pad;
        const AxisRuns ax_h = gather(p.out_h, p.in_h);
        const AxisRuns ax_w =
            gradient ? Transpose(BuildBilinearAxis(AxisSpec{p.in_w, p.out_w, false, 0.0}))
                     : gather(p.out_w, p.in_w);
        for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
          const std::string what = std::to_string(width) + (gradient ? " gradient x " : " x ") +
                                   std::to_string(channels) + " channels (pad " +
                                   std::to_string(pixel_pad) + ") " + DTypeName(dtype);
          PlaneView source, result;
          ShapeViews(p, &source, &result);
          for (int threads : {1, 3}) {
            const Plan plan =
                BuildPlan(dtype, source, result, ax_h, ax_w, threads, PassOrder::kWidthFirst);
            ASSERT_FALSE(plan.schedule.h_pass_first) << what;
            ASSERT_FALSE(plan.schedule.stream_result) << what;
            const int64_t row_floats = width * plan.schedule.channel_block;
            EXPECT_EQ(plan.schedule.tile_row_floats,
                      dtype == DType::kBFloat16 ? padded(row_floats) : row_floats)
                << what;
            int64_t band_rows = 0;
            for (const RowBand& band : plan.schedule.bands) {
              band_rows = std::max<int64_t>(band_rows, band.source_row_end - band.source_row_begin);
            }
            EXPECT_GE(static_cast<int64_t>(plan.schedule.scratch.tile_floats),
                      band_rows * plan.schedule.tile_row_floats)
                << what;
            std::vector<uint8_t> bits;
            RunAndCheck(p, ax_h, ax_w, dtype, PassOrder::kWidthFirst, threads, &bits);
            if (HasFatalFailure()) return;
            if (dtype == DType::kBFloat16) expect_unpadded_run_matches(plan, what);
          }
        }
      }
    }
  }
  // Results of more than kStreamedResultMinTraffic stream, through padded rows.
  for (DType dtype : {DType::kFloat32, DType::kFloat16}) {
    const Problem large{1, dtype == DType::kFloat32 ? 2 : 4, 1800, 1023, 900, 512, false};
    PlaneView source, result;
    ShapeViews(large, &source, &result);
    const Plan plan = BuildPlan(dtype, source, result, gather(large.out_h, large.in_h),
                                gather(large.out_w, large.in_w), 2, PassOrder::kWidthFirst);
    ASSERT_TRUE(plan.schedule.stream_result) << DTypeName(dtype);
    EXPECT_EQ(plan.schedule.tile_row_floats, padded(large.in_w)) << DTypeName(dtype);
    expect_unpadded_run_matches(plan, std::string("streamed ") + DTypeName(dtype));
  }
}

// The pool runs every task exactly once, whatever the thread count and however its claims of
// consecutive tasks fall, and hands each participant a slot below the thread count.
TEST(ThreadPool, EveryTaskRunsOnceInASlotBelowTheThreadCount) {
  for (int threads : {1, 2, 3, 5}) {
    for (int64_t tasks : {int64_t{1}, int64_t{2}, int64_t{7}, int64_t{64}, int64_t{4099}}) {
      std::vector<std::atomic<int>> runs(static_cast<size_t>(tasks));
      std::atomic<int> bad_slots{0};
      ParallelFor(tasks, threads, [&](int64_t task, int slot) {
        runs[static_cast<size_t>(task)].fetch_add(1);
        if (slot < 0 || slot >= threads) bad_slots.fetch_add(1);
      });
      for (int64_t t = 0; t < tasks; ++t) {
        ASSERT_EQ(runs[static_cast<size_t>(t)].load(), 1)
            << "task " << t << " of " << tasks << ", " << threads << " threads";
      }
      EXPECT_EQ(bad_slots.load(), 0);
    }
  }
}

// Idle workers watch for the next call for a moment and then block, and a caller watches for its
// helpers and then blocks: calls spaced wider than both watches (so every worker has gone to
// sleep and must be woken), tasks slower than both (so the caller must block and be woken), and
// several application threads calling at once all run every task once, and the caller sees
// each task's plain (non-atomic) writes when ParallelFor returns. A lost wake-up of the caller
// hangs the test (ctest's timeout fails it); a caller that leaves early misses a slow task's
// write; workers that are never woken leave every task to the callers (no slot above 0).
TEST(ThreadPool, WakesSleepingWorkersAndWaitsForSlowHelpers) {
  constexpr int kThreads = 3;
  constexpr int64_t kTasks = 6;
  std::atomic<int> highest_slot{0};
  auto calls = [&highest_slot](int caller, int count) {
    for (int call = 0; call < count; ++call) {
      if (call % 2 == 0) std::this_thread::sleep_for(std::chrono::microseconds(300));
      std::vector<int64_t> written(kTasks, -1);
      ParallelFor(kTasks, kThreads, [&](int64_t task, int slot) {
        if (task % 2 == 1) std::this_thread::sleep_for(std::chrono::microseconds(200));
        written[static_cast<size_t>(task)] = task * 1000 + caller;
        int seen = highest_slot.load();
        while (slot > seen && !highest_slot.compare_exchange_weak(seen, slot)) {
        }
      });
      for (int64_t task = 0; task < kTasks; ++task) {
        ASSERT_EQ(written[static_cast<size_t>(task)], task * 1000 + caller)
            << "caller " << caller << ", call " << call << ", task " << task;
      }
    }
  };
  calls(0, 20);
  EXPECT_GT(highest_slot.load(), 0) << "no worker joined any of 20 calls of 6 slow tasks";
  std::vector<std::thread> callers;
  for (int caller = 1; caller <= 4; ++caller) callers.emplace_back(calls, caller, 20);
  for (std::thread& caller : callers) caller.join();
}

// Without ACLNN_UPSAMPLE_NUM_THREADS a run gets a thread per kMinBytesPerThread of traffic, up
// to the cores it may use; with it, exactly the count it names, however small the problem.
TEST(Engine, DefaultThreadCountScalesWithTrafficAndTheSettingIsExact) {
  const char* saved = std::getenv("ACLNN_UPSAMPLE_NUM_THREADS");
  const std::string saved_value = saved != nullptr ? saved : "";
  unsetenv("ACLNN_UPSAMPLE_NUM_THREADS");
  cpu_set_t cpus;
  ASSERT_EQ(sched_getaffinity(0, sizeof(cpus), &cpus), 0);
  const int cores = std::max(1, CPU_COUNT(&cpus));
  EXPECT_EQ(ThreadCountFor(0), 1);
  EXPECT_EQ(ThreadCountFor(kMinBytesPerThread - 1), 1);
  EXPECT_EQ(ThreadCountFor(3 * kMinBytesPerThread), std::min(cores, 3));
  EXPECT_EQ(ThreadCountFor(uint64_t{1} << 50), cores);
  setenv("ACLNN_UPSAMPLE_NUM_THREADS", "3", 1);
  EXPECT_EQ(ThreadCountFor(0), 3);
  EXPECT_EQ(ThreadCountFor(uint64_t{1} << 50), 3);
  if (saved != nullptr) {
    setenv("ACLNN_UPSAMPLE_NUM_THREADS", saved_value.c_str(), 1);
  } else {
    unsetenv("ACLNN_UPSAMPLE_NUM_THREADS");
  }
}

// A rational W ratio (8/7, the suite's 256 -> 224) plans the periodic form, alone: backward
// (period 8, one lane pattern where it divides the lanes) and forward (period 7, a pattern per
// vector start) on targets of 8 lanes or more, and whichever form costs fewer steps elsewhere;
// on every target the results through both pass orders and several threads match the naive
// product.
TEST(Engine, RationalRatiosPlanAndRunThePeriodicForm) {
  const int64_t lanes = static_cast<int64_t>(kernels::FloatLanes());
  const bool power_of_two = (lanes & (lanes - 1)) == 0;
  SCOPED_TRACE(::testing::Message() << kernels::ActiveTargetName() << ", " << lanes << " lanes");
  for (bool forward : {false, true}) {
    SCOPED_TRACE(forward ? "forward 64 -> 56" : "backward 56 -> 64");
    const ForwardAxis forward_h = BuildBilinearAxis(AxisSpec{24, 21, false, 0.0});
    const ForwardAxis forward_w = BuildBilinearAxis(AxisSpec{64, 56, false, 0.0});
    // Problem's "in" sizes are the result's, its "out" sizes the source's.
    const Problem p =
        forward ? Problem{2, 3, 21, 56, 24, 64, false} : Problem{2, 3, 24, 64, 21, 56, false};
    const AxisRuns ax_h = forward ? AsGather(forward_h) : Transpose(forward_h);
    const AxisRuns ax_w = forward ? AsGather(forward_w) : Transpose(forward_w);
    PlaneView grad, result;
    ShapeViews(p, &grad, &result);
    const Plan plan = BuildPlan(DType::kFloat32, grad, result, ax_h, ax_w, 1, PassOrder::kCheapest);
    // Which form the W axis gets depends on the lanes alone, so only this part is conditional.
    const PeriodicInterior& periodic = plan.schedule.w_periodic;
    // The runs are not one uniform stride wider than a lane.
    if (lanes > 1) EXPECT_EQ(plan.schedule.w_uniform.stride, 0);
    if (power_of_two && lanes >= 8) {
      EXPECT_EQ(periodic.lanes, lanes);
      EXPECT_EQ(periodic.period, forward ? 7 : 8);
      EXPECT_EQ(periodic.patterns, forward ? 7 : 1);
      EXPECT_EQ(plan.schedule.w_blocked.lanes, 0);  // one vector form per axis
    } else if (lanes > 1) {
      // Four lanes take two loads per vector, a permute and a blend per tap, against a window
      // of about five columns per blocked vector: the cheaper of the two, never both.
      EXPECT_NE(periodic.lanes > 0, plan.schedule.w_blocked.lanes > 0);
    } else {
      // One lane: a block of one element is its exact run (BlockAxis never blocks), and a
      // one-lane periodic vector takes two or three steps per tap where an exact run takes
      // one, so neither is planned. (A stretch of two equal runs in the middle may be planned
      // as a uniform interior of one-lane vectors.)
      EXPECT_EQ(periodic.lanes, 0);
      EXPECT_EQ(plan.schedule.w_blocked.lanes, 0);
    }
    for (PassOrder order : {PassOrder::kWidthFirst, PassOrder::kHeightFirst}) {
      for (int threads : {1, 3}) {
        RunAndCheck(p, ax_h, ax_w, DType::kFloat32, order, threads, nullptr);
        RunAndCheck(p, ax_h, ax_w, DType::kBFloat16, order, threads, nullptr);
      }
    }
  }
}

// The blocked W form runs in blocks of 8 lanes on a 16-lane target (AVX-512) where the CPU's
// tuning allows it and a downscale's stride makes up the windows (plan.cc,
// BlockedInHalfVectors), in the target's lanes elsewhere, and the bits are the same either way:
// the gradients of an 8x bilinear upscale (a gather of stride 8, as case 3's) and of a 4x
// bicubic AA downscale (a gather of stride 1/4, as case 8's, whose windows are mostly taps).
TEST(Engine, BlockedFormTakesHalfVectorsOnlyForDownscalesAndChangesNoBits) {
  const int64_t lanes = static_cast<int64_t>(kernels::FloatLanes());
  SCOPED_TRACE(::testing::Message() << kernels::ActiveTargetName() << ", " << lanes << " lanes");
  for (const bool stride_eight : {true, false}) {
    SCOPED_TRACE(stride_eight ? "8x bilinear gradient" : "4x bicubic AA gradient");
    // Problem's "in" sizes are the result's, its "out" sizes the source's.
    const Problem p =
        stride_eight ? Problem{2, 3, 6, 40, 12, 320, false} : Problem{2, 3, 6, 160, 12, 40, false};
    const AxisRuns ax_h = Transpose(BuildBilinearAxis(AxisSpec{6, 12, false, 0.0}));
    const AxisRuns ax_w = stride_eight
                              ? Transpose(BuildBilinearAxis(AxisSpec{40, 320, false, 0.0}))
                              : Transpose(BuildBicubicAAAxis(AxisSpec{160, 40, false, 0.0}));
    PlaneView grad, result;
    ShapeViews(p, &grad, &result);
    std::vector<uint8_t> bits[2];
    for (const bool half_allowed : {false, true}) {
      const ScopedTuning tuning(
          [&](kernels::KernelTuning& t) { t.blocked_in_half_vectors = half_allowed; });
      const Plan plan =
          BuildPlan(DType::kFloat32, grad, result, ax_h, ax_w, 1, PassOrder::kCheapest);
      // One lane never blocks (a block of one element is its exact run).
      const int64_t expected_lanes =
          lanes == 1 ? 0 : (lanes == 16 && half_allowed && stride_eight ? 8 : lanes);
      EXPECT_EQ(plan.schedule.w_blocked.lanes, expected_lanes)
          << (half_allowed ? "half vectors allowed" : "whole vectors");
      for (const DType dtype : {DType::kFloat32, DType::kBFloat16}) {
        for (const PassOrder order : {PassOrder::kWidthFirst, PassOrder::kHeightFirst}) {
          std::vector<uint8_t> run_bits;
          RunAndCheck(p, ax_h, ax_w, dtype, order, 3, &run_bits);
          bits[half_allowed ? 1 : 0].insert(bits[half_allowed ? 1 : 0].end(), run_bits.begin(),
                                            run_bits.end());
        }
      }
    }
    EXPECT_EQ(bits[0], bits[1]);
  }
}

// A bilinear forward from 9 x `source_w` to 20 x `result_w` (2 images of 3 channels), planar and
// channels-last: `expect_plan` checks each plan's W form, then both pass orders at one and three
// threads must match the naive product in float32 and bfloat16.
void PlanAndRunBilinearWidth(int64_t source_w, int64_t result_w,
                             const std::function<void(const Plan&)>& expect_plan,
                             bool gradient = false) {
  const int64_t lanes = static_cast<int64_t>(kernels::FloatLanes());
  SCOPED_TRACE(::testing::Message()
               << kernels::ActiveTargetName() << ", " << lanes << " lanes, " << source_w << " -> "
               << result_w << " columns" << (gradient ? " (gradient)" : ""));
  // Problem's "in" sizes are the result's, its "out" sizes the source's.
  const AxisRuns ax_h = AsGather(BuildBilinearAxis(AxisSpec{20, 9, false, 0.0}));
  // The gradient's W axis is the transpose of the forward result_w -> source_w upscale.
  const AxisRuns ax_w = gradient
                            ? Transpose(BuildBilinearAxis(AxisSpec{result_w, source_w, false, 0.0}))
                            : AsGather(BuildBilinearAxis(AxisSpec{source_w, result_w, false, 0.0}));
  for (const bool channels_last : {false, true}) {
    const Problem p{2, 3, 9, result_w, 20, source_w, channels_last};
    PlaneView grad, result;
    ShapeViews(p, &grad, &result);
    expect_plan(BuildPlan(DType::kFloat32, grad, result, ax_h, ax_w, 1, PassOrder::kCheapest));
    for (const PassOrder order : {PassOrder::kWidthFirst, PassOrder::kHeightFirst}) {
      for (const int threads : {1, 3}) {
        RunAndCheck(p, ax_h, ax_w, DType::kFloat32, order, threads, nullptr);
        RunAndCheck(p, ax_h, ax_w, DType::kBFloat16, order, threads, nullptr);
      }
    }
  }
}

// A bilinear downscale by 10 (200 -> 20 columns): runs of two taps further apart than any
// periodic form reaches (four vectors, or 64 columns for 8 results on AVX-512), so no form of
// contiguous loads holds, and the W pass gathers its taps (GatherAxis::gathered_taps).
TEST(Engine, DistantFewTapRunsPlanAndRunTheGatheredForm) {
  const int64_t lanes = static_cast<int64_t>(kernels::FloatLanes());
  PlanAndRunBilinearWidth(200, 20, [&](const Plan& plan) {
    // (One lane may find two equal runs in the middle, a uniform interior of one-lane vectors,
    // and channels-last pixel rows a row table of one-element vectors, whose two taps lie C
    // elements apart, within four.)
    if (lanes > 1) EXPECT_EQ(plan.schedule.w_uniform.stride, 0);
    if (lanes > 1) EXPECT_EQ(plan.schedule.w_periodic.lanes, 0);
    EXPECT_EQ(plan.schedule.w_blocked.lanes, 0);
    // One lane has no gathered form: the exact runs are its vectors.
    EXPECT_EQ(plan.schedule.w_taps.taps, lanes > 1 ? 2 : 0);
  });
}

// A bilinear downscale by 2.26 (113 -> 50 columns, as 500 -> 224): 16 results read 38 source
// columns, 8 read 20, so on AVX2 and AVX-512 the plan keeps a table of one lane pattern per
// vector whose taps are permuted from three loads (the interior's runs do not repeat within
// kMaxPeriod), where it had gathered each tap. Four lanes (SSE4) read 11 columns, three loads
// too, but there three permutes and two blends a tap cost more than the runs' own taps, and the
// plan keeps the gathered form.
TEST(Engine, FewTapRunsWithinFourVectorsPlanAndRunThePeriodicFormFromThreeLoads) {
  const int64_t lanes = static_cast<int64_t>(kernels::FloatLanes());
  PlanAndRunBilinearWidth(113, 50, [&](const Plan& plan) {
    const PeriodicInterior& periodic = plan.schedule.w_periodic;
    if (lanes >= 8 && (lanes & (lanes - 1)) == 0) {
      EXPECT_EQ(periodic.lanes, lanes);
      EXPECT_EQ(kernels::PeriodicLoads(periodic.span, periodic.taps, static_cast<int32_t>(lanes)),
                3);
      EXPECT_GE(int64_t{periodic.vectors} * lanes, 40);
      EXPECT_EQ(plan.schedule.w_taps.taps, 0);
    } else if (lanes == 4) {
      EXPECT_EQ(periodic.lanes, 0);
      EXPECT_EQ(plan.schedule.w_taps.taps, 2);
    }
  });
}

// A bilinear downscale by 4.52 (113 -> 25 columns, as 1000 -> 224): 16 results read 70 source
// columns, past four loads, but 8 read 33, so AVX-512 keeps a periodic interior of half vectors
// from three whole loads (kernels::PeriodicRowsInHalfVectors), where the other targets (8
// results read 33 columns, 4 read 16) gather each tap.
TEST(Engine, FewTapRunsPastFourVectorsPlanAndRunHalfVectorsOnAvx512) {
  const int64_t lanes = static_cast<int64_t>(kernels::FloatLanes());
  PlanAndRunBilinearWidth(113, 25, [&](const Plan& plan) {
    const PeriodicInterior& periodic = plan.schedule.w_periodic;
    if (kernels::PeriodicRowsInHalfVectors()) {
      EXPECT_EQ(periodic.lanes, lanes / 2);
      EXPECT_EQ(kernels::PeriodicLoads(periodic.span, periodic.taps, static_cast<int32_t>(lanes)),
                3);
      EXPECT_EQ(plan.schedule.w_taps.taps, 0);
    } else {
      EXPECT_EQ(periodic.lanes, 0);
      EXPECT_EQ(plan.schedule.w_taps.taps, lanes > 1 ? 2 : 0);
    }
  });
}

// The gradient of a bilinear 224 -> 500 upscale (500 -> 224 columns): runs of 5 and 6 taps
// whose 16 results read 38 columns. Where the CPU's tuning takes such runs from three loads
// (KernelTuning::wide_periodic_taps: 8 on Intel and AMD), AVX-512 plans the periodic form from
// three loads instead of the blocked form; AVX2 (whose cost count keeps the blocked form) and a
// tuning of 4 (AMD's until session 41) plan no run of more than four taps past two loads. Either
// way the naive product, planar and channels-last, float32 and bfloat16, both pass orders.
TEST(Engine, FiveAndSixTapRunsPlanThreeLoadsOnAvx512WhereTheTuningTakesThem) {
  const int64_t lanes = static_cast<int64_t>(kernels::FloatLanes());
  for (const int32_t wide_taps : {4, 8}) {
    const ScopedTuning tuning([&](kernels::KernelTuning& t) { t.wide_periodic_taps = wide_taps; });
    SCOPED_TRACE(::testing::Message() << "wide_periodic_taps " << wide_taps);
    PlanAndRunBilinearWidth(
        500, 224,
        [&](const Plan& plan) {
          const PeriodicInterior& periodic = plan.schedule.w_periodic;
          const int32_t loads =
              kernels::PeriodicLoads(periodic.span, periodic.taps, static_cast<int32_t>(lanes));
          if (lanes == 16 && wide_taps == 8) {
            EXPECT_EQ(periodic.lanes, lanes);
            EXPECT_EQ(loads, 3);
            EXPECT_GT(periodic.taps, 4);
            EXPECT_EQ(plan.schedule.w_blocked.lanes, 0);
          } else if (wide_taps == 4 && periodic.lanes > 0) {
            EXPECT_TRUE(loads <= 2 || periodic.taps <= 4);
          }
        },
        /*gradient=*/true);
  }
}

}  // namespace
}  // namespace aclnn_upsample
