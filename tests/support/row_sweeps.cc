#include "support/row_sweeps.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "support/reference.h"
#include "support/test_tensors.h"

namespace support {
namespace {

using reference::Case;

constexpr aclDataType kDTypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};

bool IsForward(const aclnn_upsample_operator& op) { return op.direction == ACLNN_UPSAMPLE_FORWARD; }

RunOptions Options(aclDataType dtype, aclFormat format = ACL_FORMAT_NCHW,
                   Storage storage = Storage::kContiguous) {
  RunOptions options;
  options.dtype = dtype;
  options.format = format;
  options.storage = storage;
  return options;
}

// Checks the case on random data unless the row's upscaling limit makes it an error row.
void CheckIfWithinLimit(const aclnn_upsample_operator& op, const Case& c,
                        const RunOptions& options = RunOptions{}, uint32_t seed = 1) {
  if (WithinUpscaleLimit(op, c)) ExpectMatchesOnRandomData(op, c, options, seed);
}

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

}  // namespace

void SweepSizes(const Rows& rows) {
  const std::vector<int64_t> sizes = {1, 2, 3, 5, 7, 8, 9, 13, 15, 16, 17, 31, 32, 33};
  for (const aclnn_upsample_operator* op : rows) {
    for (bool align : {false, true}) {
      for (size_t a = 0; a < sizes.size(); ++a) {
        for (size_t b = 0; b < sizes.size(); ++b) {
          CheckIfWithinLimit(*op,
                             RowCase(*op, sizes[a], sizes[(a + 5) % sizes.size()], sizes[b],
                                     sizes[(b + 3) % sizes.size()], align),
                             RunOptions{}, static_cast<uint32_t>(a * 31 + b));
          if (::testing::Test::HasFailure()) return;
        }
      }
    }
  }
}

void SweepThinPlanes(const Rows& rows) {
  for (const aclnn_upsample_operator* op : rows) {
    // Axes of size 1 with the strides of a dense tensor, then with strides of 2^62 (which the
    // engine must never multiply into a byte offset), in each format the row takes.
    std::vector<RunOptions> layouts;
    for (Storage storage : {Storage::kContiguous, Storage::kHugeUnitStrides}) {
      layouts.push_back(Options(ACL_FLOAT, ACL_FORMAT_NCHW, storage));
      if (op->accepts_nhwc) layouts.push_back(Options(ACL_BF16, ACL_FORMAT_NHWC, storage));
    }
    for (const RunOptions& options : layouts) {
      for (bool align : {false, true}) {
        for (const Case& c :
             {RowCase(*op, 1, 40, 1, 17, align, 0, 0, 1, 2),
              RowCase(*op, 40, 1, 17, 1, align, 0, 0, 1, 2), RowCase(*op, 1, 9, 5, 1, align),
              RowCase(*op, 9, 1, 1, 20, align), RowCase(*op, 1, 1, 1, 1, align, 0, 0, 2, 3),
              RowCase(*op, 1, 1, 1, 1, align, 0, 0, 1, 4),
              RowCase(*op, 6, 5, 6, 5, align, 0, 0, 1, 1)}) {
          CheckIfWithinLimit(*op, c, options);
        }
      }
    }
  }
}

void SweepLargeRatios(const Rows& rows) {
  for (const aclnn_upsample_operator* op : rows) {
    for (bool align : {false, true}) {
      for (const Case& c :
           {RowCase(*op, 2, 3, 100, 150, align),  // 50x on both axes
            RowCase(*op, 300, 31, 10, 1, align),  // 30x down
            RowCase(*op, 60, 90, 2, 3, align, 0, 0, 1, 2), RowCase(*op, 7, 300, 7, 10, align),
            RowCase(*op, 2, 3, 300, 7, align),  // 150x: rows without a limit only
            RowCase(*op, 3, 2, 64, 130, align)}) {
        CheckIfWithinLimit(*op, c);
      }
    }
  }
}

void SweepScales(const Rows& rows) {
  for (const aclnn_upsample_operator* op : rows) {
    for (bool align : {false, true}) {
      for (const Case& c : {
               RowCase(*op, 8, 6, 16, 12, align, 2.0, 2.0),       // consistent
               RowCase(*op, 8, 6, 16, 12, align, 0.0, 0.0),       // absent
               RowCase(*op, 8, 6, 16, 12, align, 3.0, 1.5),       // inconsistent
               RowCase(*op, 10, 9, 3, 4, align, 0.3125, 0.4375),  // downscale, given
               RowCase(*op, 7, 7, 17, 12, align, 2.5, 1.75),      // floor(in * s) == out
               RowCase(*op, 9, 9, 9, 9, align, 1.25, 1.125),      // identity sizes
               RowCase(*op, 9, 9, 18, 4, align, 2.25, 0.375),
           }) {
        CheckIfWithinLimit(*op, c);
      }
      // Negative scales where the row does not reject them: not given.
      if (!op->rejects_negative_scales) {
        CheckIfWithinLimit(*op, RowCase(*op, 8, 6, 16, 12, align, -2.0, -0.5));
      }
    }
  }
}

void SweepDTypes(const Rows& rows) {
  for (const aclnn_upsample_operator* op : rows) {
    for (aclDataType dtype : kDTypes) {
      for (const Case& c : {RowCase(*op, 9, 17, 18, 33, false, 0, 0, 2, 3),
                            RowCase(*op, 33, 16, 13, 7, true, 0, 0, 1, 2),
                            RowCase(*op, 5, 5, 5, 5, false, 0, 0, 1, 1),
                            RowCase(*op, 20, 12, 48, 20, false, 2.25, 0, 2, 16),
                            RowCase(*op, 20, 12, 20, 48, false, 0, 2.375, 2, 16),
                            // Many small planes: plane groups, the last one short of planes.
                            RowCase(*op, 14, 14, 28, 28, false, 0, 0, 2, 67),
                            RowCase(*op, 28, 28, 14, 14, true, 0, 0, 1, 130)}) {
        CheckIfWithinLimit(*op, c, Options(dtype));
      }
    }
  }
}

void SweepLayouts(const Rows& rows) {
  for (const aclnn_upsample_operator* op : rows) {
    for (const auto& [format, storage] : LayoutsOf(*op)) {
      for (aclDataType dtype : kDTypes) {
        // C >= 8 with unit channel stride runs the channels-last plan, C = 3 the planar one on
        // strided rows; 130 NCHW planes of short rows run in plane groups.
        for (int64_t channels : {3, 8, 16, 37, 130}) {
          for (const Case& c : {RowCase(*op, 7, 10, 13, 5, false, 0, 0, 2, channels),
                                RowCase(*op, 12, 6, 6, 19, true, 0, 0, 1, channels),
                                RowCase(*op, 9, 9, 9, 21, false, 0, 2.25, 1, channels)}) {
            CheckIfWithinLimit(*op, c, Options(dtype, format, storage));
          }
          if (::testing::Test::HasFailure()) return;
        }
      }
    }
  }
}

void SweepNonFinite(const Rows& rows) {
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
  struct Layout {
    aclFormat format;
    Storage storage;
    int64_t channels;
  };
  for (const aclnn_upsample_operator* op : rows) {
    const bool forward = IsForward(*op);
    int reached = 0;
    // 2 x 65 NCHW planes run in plane groups (the last plane in a group of two).
    std::vector<Layout> layouts = {{ACL_FORMAT_NCHW, Storage::kContiguous, 2},
                                   {ACL_FORMAT_NCHW, Storage::kChannelsLastView, 9},
                                   {ACL_FORMAT_NCHW, Storage::kContiguous, 65}};
    if (op->accepts_nhwc) {
      layouts.push_back({ACL_FORMAT_NHWC, Storage::kContiguous, 9});
      layouts.push_back({ACL_FORMAT_NHWC, Storage::kContiguous, 3});
    }
    for (const Layout& layout : layouts) {
      for (aclDataType dtype : kDTypes) {
        for (bool align : {false, true}) {
          for (const auto& shape : shapes) {
            for (const std::vector<Poison>& poison : poisons) {
              const Case c = RowCase(*op, shape[0], shape[1], shape[2], shape[3], align, 0, 0, 2,
                                     layout.channels);
              const int64_t source_h = forward ? c.in_h : c.out_h;
              const int64_t source_w = forward ? c.in_w : c.out_w;
              std::vector<double> source =
                  RandomValues(forward ? c.result_elements() : c.grad_elements(), 5);
              // Plane (0, 1) and the last plane carry the poison.
              for (int64_t plane : {int64_t{1}, c.n * c.c - 1}) {
                for (const Poison& p : poison) {
                  const int64_t h = std::min(p.h, source_h - 1), w = std::min(p.w, source_w - 1);
                  source[(plane * source_h + h) * source_w + w] = p.value;
                }
              }
              const RunOptions options = Options(dtype, layout.format, layout.storage);
              const std::string label =
                  Describe(*op, c, options) + " poison " + std::to_string(poison[0].value) +
                  " at " + std::to_string(poison[0].h) + "," + std::to_string(poison[0].w);
              std::vector<double> expected;
              ExpectMatchesReference(*op, c, source, options, label, &expected);
              const auto non_finite = std::count_if(expected.begin(), expected.end(),
                                                    [](double v) { return !std::isfinite(v); });
              // Only a nearest forward skips source elements (downscaling reads one pixel of
              // several); every gradient reaches some result.
              if (non_finite == 0) {
                EXPECT_TRUE(forward && reference::IsNearest(ModeOf(*op)))
                    << label << ": the poison reached nothing";
              } else {
                ++reached;
              }
              EXPECT_LT(non_finite, static_cast<long>(expected.size())) << label;
              if (::testing::Test::HasFailure()) return;
            }
          }
        }
      }
    }
    EXPECT_GT(reached, 0) << op->name << ": no poison reached a result";
  }
}

void SweepEmpty(const Rows& rows) {
  for (const aclnn_upsample_operator* op : rows) {
    std::vector<std::pair<aclFormat, Storage>> layouts = {
        {ACL_FORMAT_NCHW, Storage::kContiguous},
        {ACL_FORMAT_NCHW, Storage::kChannelsLastView},
        {ACL_FORMAT_NCHW, Storage::kOffset},
    };
    if (op->accepts_nhwc) layouts.push_back({ACL_FORMAT_NHWC, Storage::kContiguous});
    if (op->accepts_nhwc) layouts.push_back({ACL_FORMAT_NHWC, Storage::kOffset});
    if (op->accepts_nd) layouts.push_back({ACL_FORMAT_ND, Storage::kContiguous});
    for (const auto& [format, storage] : layouts) {
      for (aclDataType dtype : kDTypes) {
        for (const auto& [n, c] : {std::pair<int64_t, int64_t>{0, 3}, {2, 0}, {0, 0}, {0, 16}}) {
          const Case empty = RowCase(*op, 4, 5, 8, 9, false, 2.0, 0, n, c);
          const RunOptions options = Options(dtype, format, storage);
          const RunOutput run = RunOperator(*op, empty, {}, options);
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

void SweepDeterminism(const Rows& rows) {
  for (const aclnn_upsample_operator* op : rows) {
    std::vector<std::pair<Case, RunOptions>> cases = {
        {RowCase(*op, 97, 61, 300, 200, false), RunOptions{}},
        {RowCase(*op, 300, 200, 97, 61, true, 0, 0, 1, 2), RunOptions{}},
        {RowCase(*op, 64, 64, 160, 150, false, 2.5, 0),
         Options(ACL_FLOAT, ACL_FORMAT_NCHW, Storage::kPaddedRows)},
        {RowCase(*op, 20, 24, 40, 48, false, 0, 0, 2, 16),
         Options(ACL_FLOAT, ACL_FORMAT_NCHW, Storage::kChannelsLastView)},
        {RowCase(*op, 14, 14, 28, 28, false, 0, 0, 2, 100), RunOptions{}},  // plane groups
        {RowCase(*op, 28, 20, 14, 10, false, 0, 0, 3, 50),
         Options(ACL_FLOAT, ACL_FORMAT_NCHW, Storage::kPaddedRows)},
    };
    if (op->accepts_nhwc) {
      cases.push_back({RowCase(*op, 30, 24, 61, 47, false, 0, 0, 2, 12),
                       Options(ACL_FLOAT, ACL_FORMAT_NHWC, Storage::kOffset)});
    }
    if (op->accepts_nd) {
      cases.push_back({RowCase(*op, 40, 30, 17, 64, false, 0, 0, 1, 3),
                       Options(ACL_FLOAT, ACL_FORMAT_ND, Storage::kPaddedRows)});
    }
    for (aclDataType dtype : {ACL_FLOAT, ACL_BF16}) {
      for (auto [c, options] : cases) {
        options.dtype = dtype;
        const bool forward = IsForward(*op);
        const std::vector<std::vector<uint8_t>> results = RunAtThreadCounts(
            *op, c, RandomValues(forward ? c.result_elements() : c.grad_elements(), 11), options,
            {1, 2, 3, 7});
        for (size_t i = 1; i < results.size(); ++i) {
          EXPECT_EQ(results[0], results[i]) << op->name << " " << c.Name() << " run " << i;
        }
      }
    }
  }
}

namespace {

// The source index of output o by exact arithmetic: floor(o * in / out) (nearest, with its
// shortcuts for out == in and out == 2 in, which exact arithmetic gives as well) or
// floor((o + 0.5) * in / out) (nearest_exact).
int64_t ExactNearestIndex(reference::Op mode, int64_t o, int64_t in, int64_t out) {
  const int64_t index =
      mode == reference::Op::kNearest ? o * in / out : (2 * o + 1) * in / (2 * out);
  return std::min(index, in - 1);
}

// Whether the reference's float32 indices differ from exact ones somewhere on this axis.
bool FloatIndicesDiffer(reference::Op mode, int64_t in, int64_t out) {
  const float scale = static_cast<float>(reference::Ratio(mode, in, out, false, 0));
  for (int64_t o = 0; o < out; ++o) {
    if (reference::NearestSourceIndex(mode, o, in, out, scale) !=
        ExactNearestIndex(mode, o, in, out)) {
      return true;
    }
  }
  return false;
}

}  // namespace

void ExpectLongAxis(const aclnn_upsample_operator& op, int64_t in, int64_t out) {
  const Case c = RowCase(op, 1, in, 1, out, false);
  const bool forward = IsForward(op);
  std::vector<double> seen;
  const RunOutput run =
      RunOperator(op, c, RandomValues(forward ? in : out, 41), RunOptions{}, &seen);
  const std::string label = Describe(op, c, RunOptions{});
  ASSERT_EQ(run.status, ACLNN_SUCCESS) << label << ": " << run.message;
  EXPECT_TRUE(run.outside_view_untouched) << label;
  // H is 1 -> 1, a single tap of weight 1 in every mode.
  const reference::AxisTaps taps = reference::Taps(ModeOf(op), in, out, false, 0);
  std::vector<double> expected(forward ? out : in, 0.0), magnitude(expected.size(), 0.0);
  for (int64_t o = 0; o < out; ++o) {
    for (const auto& [i, w] : taps[o]) {
      const int64_t to = forward ? o : i;
      const double term = w * seen[forward ? i : o];
      expected[to] += term;
      magnitude[to] += std::abs(term);
    }
  }
  EXPECT_EQ(CountOutOfTolerance(ACL_FLOAT, run.values, expected, magnitude, label), 0);
  if (forward && reference::IsNearest(ModeOf(op))) {
    int copy_failures = 0;
    for (int64_t o = 0; o < out; ++o) {
      const int64_t i = taps[o].front().first;
      copy_failures += std::memcmp(&run.raw_bits[o * 4], &run.source_bits[i * 4], 4) != 0;
    }
    EXPECT_EQ(copy_failures, 0) << label << ": results that are not copies of their source";
  }
}

int SweepNearestFloatIndices(const Rows& rows) {
  int axes_per_row = 0;
  for (const aclnn_upsample_operator* op : rows) {
    const reference::Op mode = ModeOf(*op);
    if (!reference::IsNearest(mode)) continue;
    int axes = 0;
    for (int64_t in = 1; in <= 48 && axes < 6; ++in) {
      for (int64_t out = 1; out <= 96 && axes < 6; ++out) {
        if (!FloatIndicesDiffer(mode, in, out)) continue;
        if (!WithinUpscaleLimit(*op, RowCase(*op, 1, in, 1, out, false))) continue;
        ++axes;
        ExpectMatchesOnRandomData(*op, RowCase(*op, 1, in, 1, out, false, 0, 0, 1, 2),
                                  RunOptions{});
        ExpectMatchesOnRandomData(*op, RowCase(*op, in, 3, out, 2, false, 0, 0, 1, 2),
                                  RunOptions{});
      }
    }
    // Near the size limit float32 keeps fewer fraction bits of o * scale: the first of these
    // whose indices differ.
    for (const auto& [in, out] : {std::pair<int64_t, int64_t>{(1 << 20) - 3, (1 << 20) - 1},
                                  {(1 << 20) - 1, 699051},
                                  {699051, (1 << 20) - 1}}) {
      if (!FloatIndicesDiffer(mode, in, out)) continue;
      ++axes;
      ExpectLongAxis(*op, in, out);
      break;  // one such axis per row: each costs a 2^20-element run
    }
    EXPECT_GE(axes, 7) << op->name << ": too few axes where float32 indices differ";
    axes_per_row = axes;
  }
  return axes_per_row;
}

void ExpectRowsReadScales(const Rows& rows, const std::vector<ScaleAxis>& axes, int min_judged) {
  for (const aclnn_upsample_operator* op : rows) {
    int judged = 0;
    for (const ScaleAxis& axis : axes) {
      SCOPED_TRACE(std::string(op->name) + ": " + axis.rule);
      if (axis.scale < 0 && op->rejects_negative_scales) continue;
      if (op->max_upscale > 0 &&
          (axis.scale > op->max_upscale || double(axis.out) > double(axis.in) * op->max_upscale)) {
        continue;
      }
      std::vector<std::pair<aclFormat, int64_t>> layouts = {{ACL_FORMAT_NCHW, 1}};
      if (op->accepts_nhwc) {
        layouts.push_back({ACL_FORMAT_NHWC, 3});
        layouts.push_back({ACL_FORMAT_NHWC, 16});
      }
      for (const auto& [format, channels] : layouts) {
        for (bool on_h : {true, false}) {
          judged += ExpectReadsScaleByItsFlags(*op, axis.in, axis.out, axis.align, axis.scale, on_h,
                                               Options(ACL_FLOAT, format), channels);
        }
      }
    }
    EXPECT_GE(judged, min_judged) << op->name << ": too few axes tell the readings apart";
  }
}

}  // namespace support
