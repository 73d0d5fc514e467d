#include "engine/plan.h"

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>

#include "engine/thread_control.h"
#include "kernels/kernels.h"

namespace aclnn_upsample {
namespace {

// The intermediate tile of one task should stay in a core's L2 (512 KiB and up on current
// x86 server parts; half of it leaves room for the rows streaming through).
constexpr size_t kTileBudgetBytes = 256 * 1024;
// Tasks per thread, so that unequal tasks still balance.
constexpr int64_t kTasksPerThread = 4;
// Channels-last pays once a C-vector fills at least one AVX2 register.
constexpr int64_t kMinChannelsLastChannels = 8;
constexpr int64_t kMaxChannelBlock = 512;
// A periodic interior pays once it fills a few vectors (else the blocked form serves).
constexpr int32_t kMinPeriodicVectors = 2;
// Blocked W-pass weights beyond this many floats are not worth their memory.
constexpr size_t kMaxBlockedFloats = size_t{8} << 20;

size_t RoundUpToCacheLine(size_t floats) { return (floats + 15) / 16 * 16; }

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Cuts the result rows [0, H_in) into `count` bands and records, for each, the gradOut rows its
// H pass reads.
std::vector<RowBand> MakeBands(const BackwardAxis& axis_h, int64_t count) {
  std::vector<RowBand> bands;
  const int64_t rows = axis_h.in_size;
  const int64_t per_band = CeilDiv(rows, std::max<int64_t>(count, 1));
  for (int64_t begin = 0; begin < rows; begin += per_band) {
    const int64_t end = std::min(rows, begin + per_band);
    int64_t lo = axis_h.out_size, hi = 0;
    for (int64_t i = begin; i < end; ++i) {
      if (axis_h.count(i) == 0) continue;
      lo = std::min<int64_t>(lo, axis_h.first[i]);
      hi = std::max<int64_t>(hi, axis_h.first[i] + axis_h.count(i));
    }
    if (hi <= lo) lo = hi = 0;
    bands.push_back({static_cast<int32_t>(begin), static_cast<int32_t>(end),
                     static_cast<int32_t>(lo), static_cast<int32_t>(hi)});
  }
  return bands;
}

// Chooses how many row bands each independent unit (plane, or image x channel block) gets:
// enough tasks for every thread, and tiles of at most the budget.
int64_t ChooseBandCount(int64_t units, int64_t tile_row_floats, const BackwardAxis& axis_h,
                        int num_threads) {
  int64_t bands = 1;
  if (num_threads > 1 && units < kTasksPerThread * num_threads) {
    bands = CeilDiv(kTasksPerThread * num_threads, units);
  }
  const int64_t whole_tile_bytes =
      static_cast<int64_t>(axis_h.out_size) * tile_row_floats * static_cast<int64_t>(sizeof(float));
  bands = std::max<int64_t>(bands, CeilDiv(whole_tile_bytes, kTileBudgetBytes));
  return std::clamp<int64_t>(bands, 1, axis_h.in_size);
}

// Ties go to H first: its intermediate is one row at a time, so no band overlap is recomputed.
bool ChooseHeightFirst(PassOrder order, int64_t cost_h_first, int64_t cost_w_first) {
  if (order != PassOrder::kCheapest) return order == PassOrder::kHeightFirst;
  return cost_h_first <= cost_w_first;
}

int64_t MaxBandRows(const std::vector<RowBand>& bands) {
  int64_t rows = 0;
  for (const RowBand& band : bands)
    rows = std::max<int64_t>(rows, band.out_row_end - band.out_row_begin);
  return rows;
}

int64_t VectorLanes() { return static_cast<int64_t>(kernels::FloatLanes()); }

// Combining whole C-vectors needs the channels contiguous in both tensors, and pays only once a
// C-vector fills a register; otherwise each (n, c) plane is resampled on its own.
Layout ChooseLayout(const PlaneView& grad, const PlaneView& result) {
  const bool channels_last =
      result.c >= kMinChannelsLastChannels && grad.stride_c == 1 && result.stride_c == 1;
  return channels_last ? Layout::kChannelsLast : Layout::kPlanar;
}

// Whole C-vectors, unless a row of them (`widest_row` pixels) would not fit the tile budget by
// itself: then the most channels in multiples of 8 (one AVX2 register) that do, and never fewer
// than make channels-last pay.
int64_t ChooseChannelBlock(int64_t channels, int64_t widest_row) {
  const int64_t fitting = static_cast<int64_t>(kTileBudgetBytes / sizeof(float)) / widest_row;
  return std::min(
      {channels, kMaxChannelBlock, std::max(kMinChannelsLastChannels, fitting / 8 * 8)});
}

// Vector steps of one W-pass row in the uniform form: the interior's taps once per vector, the
// edges' taps one by one.
int64_t UniformRowSteps(const UniformInterior& uniform, int64_t in_w, int64_t lanes) {
  const int64_t interior = uniform.end - uniform.begin;
  const int64_t taps = static_cast<int64_t>(uniform.weights.size());
  return CeilDiv(interior, lanes) * taps + (in_w - interior) * taps;
}

// Vector steps of one W-pass row in the periodic form, on the blocked form's scale: a blocked
// step is a broadcast and an FMA; a periodic tap a permute (two and a blend when the span takes
// two loads), an FMA and, for short runs, a blend. The edges' taps go one by one.
int64_t PeriodicRowSteps(const PeriodicInterior& periodic, int64_t in_w, int64_t lanes) {
  const int64_t interior = int64_t{periodic.vectors} * lanes;
  const int64_t steps_per_tap = periodic.span > lanes ? 3 : 2;
  return periodic.vectors * periodic.taps * steps_per_tap + (in_w - interior) * periodic.taps;
}

// The planar W pass runs in one vector form per axis, and the plan keeps the cheapest the axis
// admits: a uniform interior (integer factors) whenever one is found; else blocked dense windows
// or a periodic interior (rational ratios such as 8/7, downsampling by 2), whichever takes fewer
// vector steps; else the exact taps one by one. Returns the kept form's vector steps per W-pass
// row, which the pass order weighs (0 for an identity axis, whose pass is skipped).
int64_t ChooseWidthForm(Plan* plan) {
  const BackwardAxis& axis_w = plan->axis_w;
  if (axis_w.identity) return 0;
  const int64_t lanes = VectorLanes(), in_w = plan->result.w;
  plan->axis_w_uniform = FindUniformInterior(axis_w, MinUniformInteriorLength(lanes),
                                             kernels::kMaxUniformStride, kernels::kMaxUniformTaps);
  if (plan->axis_w_uniform.stride > 0) return UniformRowSteps(plan->axis_w_uniform, in_w, lanes);

  plan->axis_w_blocked = BlockAxis(axis_w, static_cast<int32_t>(lanes), kMaxBlockedFloats);
  const int64_t other_steps =
      plan->axis_w_blocked.lanes > 0 ? plan->axis_w_blocked.window_steps : TapCount(axis_w);
  plan->axis_w_periodic = FindPeriodicInterior(axis_w, static_cast<int32_t>(lanes),
                                               kernels::kMaxPeriodicTaps, kMinPeriodicVectors);
  if (plan->axis_w_periodic.lanes == 0) return other_steps;
  const int64_t periodic_steps = PeriodicRowSteps(plan->axis_w_periodic, in_w, lanes);
  if (periodic_steps < other_steps) {
    plan->axis_w_blocked = BlockedAxis();  // one vector form per axis
    return periodic_steps;
  }
  plan->axis_w_periodic = PeriodicInterior();
  return other_steps;
}

// Either order computes the result; the plan runs the one that takes fewer vector steps. The
// count uses the shapes alone, never the thread count, so that the order, and with it every
// rounding, is the same however many threads run. `w_row_steps` is the planar W form's cost per
// row (ChooseWidthForm).
bool ChoosePassOrder(const Plan& plan, PassOrder order, int64_t w_row_steps) {
  const int64_t in_h = plan.result.h, out_h = plan.grad.h;
  const int64_t in_w = plan.result.w, out_w = plan.grad.w;
  const int64_t taps_h = TapCount(plan.axis_h);
  if (plan.layout == Layout::kChannelsLast) {
    // Vector steps are C-vectors here: one per tap per pixel.
    const int64_t taps_w = TapCount(plan.axis_w);
    const int64_t cost_w_first = out_h * taps_w + taps_h * in_w;
    const int64_t cost_h_first = taps_h * out_w + in_h * taps_w;
    return ChooseHeightFirst(order, cost_h_first, cost_w_first);
  }
  // A planar pass along an identity axis is skipped, which only the W-first path does, so such
  // a plan runs W first whatever the order asked.
  const int64_t lanes = VectorLanes();
  const int64_t cost_w_first = (plan.axis_h.identity ? in_h : out_h) * w_row_steps +
                               (plan.axis_h.identity ? 0 : taps_h * CeilDiv(in_w, lanes));
  const int64_t cost_h_first = taps_h * CeilDiv(out_w, lanes) + in_h * w_row_steps;
  return !plan.axis_h.identity && !plan.axis_w.identity &&
         ChooseHeightFirst(order, cost_h_first, cost_w_first);
}

// Only the channels-last H-first kernel can combine two result rows per source load, and only
// while both rows' scratch fits the tile budget: consecutive rows share source loads.
bool ShouldPairHeightRows(const Plan& plan) {
  const int64_t row_bytes = plan.grad.w * plan.channel_block * static_cast<int64_t>(sizeof(float));
  return 2 * row_bytes <= static_cast<int64_t>(kTileBudgetBytes);
}

// Streaming stores skip reading each result line before writing it, which pays only on calls
// too large for the result to be found in cache afterwards (kStreamedResultMinTraffic), and the
// kernel that has them writes float32 results only.
bool ShouldStreamResult(const Plan& plan) {
  return plan.dtype == DType::kFloat32 &&
         TrafficBytes(plan.grad, plan.result, plan.dtype) > kStreamedResultMinTraffic;
}

// The units tasks are cut from are independent of each other: planes, or image x channel block
// for channels-last, whose channels one task combines together.
int64_t CountUnits(const Plan& plan) {
  if (plan.layout == Layout::kChannelsLast)
    return plan.result.n * CeilDiv(plan.result.c, plan.channel_block);
  return plan.result.n * plan.result.c;
}

// Bands give every thread tasks and keep each task's intermediate tile in L2 (ChooseBandCount),
// so they are cut by the width of the intermediate's rows: gradOut's when H runs first, the
// result's when W runs first, in whole channel blocks for channels-last.
std::vector<RowBand> PlanBands(const Plan& plan, int64_t units, int num_threads) {
  const int64_t row_pixels = plan.h_pass_first ? plan.grad.w : plan.result.w;
  const int64_t tile_row =
      plan.layout == Layout::kChannelsLast ? row_pixels * plan.channel_block : row_pixels;
  return MakeBands(plan.axis_h, ChooseBandCount(units, tile_row, plan.axis_h, num_threads));
}

// Channels-last scratch per slot: what the pass order and the row pairing chosen above read
// and write, for the tallest band.
void SizeChannelsLastScratch(Plan* plan) {
  const bool f32 = plan->dtype == DType::kFloat32;
  const int64_t in_w = plan->result.w, out_w = plan->grad.w;
  const int64_t block = plan->channel_block;
  if (plan->h_pass_first) {
    plan->tile_floats = 0;  // gradOut is read in place, in any dtype
    plan->source_floats = (plan->pair_h_rows ? 2 : 1) * out_w * block;  // H-pass rows
  } else {
    plan->tile_floats = MaxBandRows(plan->bands) * in_w * block;  // W-pass rows
    plan->source_floats = f32 ? 0 : out_w * block;                // one gradOut row as float
  }
  plan->result_floats = in_w * block;  // one result row as float
}

// Planar scratch per slot: what the pass order chosen above reads and writes, for the tallest
// band; a skipped (identity) pass needs no tile.
void SizePlanarScratch(Plan* plan) {
  const bool f32 = plan->dtype == DType::kFloat32;
  const int64_t in_w = plan->result.w, out_w = plan->grad.w;
  const int64_t band_rows = MaxBandRows(plan->bands);
  if (plan->h_pass_first) {
    // gradOut rows are read in place (any dtype) when their columns are contiguous.
    plan->tile_floats = plan->grad.stride_w == 1 ? 0 : band_rows * out_w;
    plan->source_floats =
        kernels::kRowGroup * kernels::GroupRowFloats(static_cast<size_t>(out_w));  // H-pass rows
    plan->result_floats = kernels::kRowGroup * static_cast<size_t>(in_w);
  } else {
    plan->tile_floats = plan->axis_h.identity ? 0 : band_rows * in_w;  // W-pass rows
    // gradOut rows as float: a row group of them where the W pass reads them from scratch.
    const bool grad_rows_in_place = f32 && plan->grad.stride_w == 1;
    const bool group_in_scratch =
        !grad_rows_in_place && !plan->axis_h.identity && !plan->axis_w.identity;
    plan->source_floats = (group_in_scratch ? kernels::kRowGroup : 1) * static_cast<size_t>(out_w);
    plan->result_floats = in_w;
  }
}

// Each worker slot owns its scratch, sized here once for the tallest band, so that phase 2
// allocates nothing. Every buffer is a whole number of cache lines, so buffers and slots start
// on line boundaries of the workspace and no two workers write one line.
void SizeScratch(Plan* plan) {
  if (plan->layout == Layout::kChannelsLast) {
    SizeChannelsLastScratch(plan);
  } else {
    SizePlanarScratch(plan);
  }
  plan->tile_floats = RoundUpToCacheLine(plan->tile_floats);
  plan->source_floats = RoundUpToCacheLine(plan->source_floats);
  plan->result_floats = RoundUpToCacheLine(plan->result_floats);
  plan->slot_floats = plan->tile_floats + plan->source_floats + plan->result_floats;
}

// No more slots than tasks: a slot no task can reach would only grow the workspace.
void SizeWorkspace(Plan* plan, int64_t units, int num_threads) {
  plan->num_tasks = units * static_cast<int64_t>(plan->bands.size());
  plan->num_slots = static_cast<int>(std::min<int64_t>(num_threads, plan->num_tasks));
  plan->workspace_bytes =
      static_cast<uint64_t>(plan->num_slots) * plan->slot_floats * sizeof(float);
}

}  // namespace

uint64_t TrafficBytes(const PlaneView& grad, const PlaneView& result, DType dtype) {
  // Unsigned, so that no shape can overflow into undefined behaviour here.
  const auto elements = [](const PlaneView& v) {
    return static_cast<uint64_t>(v.n) * static_cast<uint64_t>(v.c) * static_cast<uint64_t>(v.h) *
           static_cast<uint64_t>(v.w);
  };
  return (elements(grad) + elements(result)) * DTypeSize(dtype);
}

int ThreadCountFor(uint64_t traffic_bytes) {
  if (const int forced = ThreadCountOverride(); forced > 0) return forced;
  if (const char* text = std::getenv("ACLNN_UPSAMPLE_NUM_THREADS")) {
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (end != text && *end == '\0' && value >= 1) return static_cast<int>(std::min(value, 1024L));
  }
  int cores = 1;
  cpu_set_t cpus;
  ExternalTeam team;
  if (GetExternalTeam(&team)) {
    cores = std::max(1, team.max_threads(team.context));
  } else if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0) {
    cores = std::max(1, CPU_COUNT(&cpus));
  }
  const uint64_t useful = std::max<uint64_t>(1, traffic_bytes / kMinBytesPerThread);
  return static_cast<int>(std::min<uint64_t>(static_cast<uint64_t>(cores), useful));
}

Plan BuildPlan(DType dtype, const PlaneView& grad, const PlaneView& result, BackwardAxis axis_h,
               BackwardAxis axis_w, int num_threads, PassOrder order) {
  Plan plan;
  plan.dtype = dtype;
  plan.grad = grad;
  plan.result = result;
  plan.axis_h = std::move(axis_h);
  plan.axis_w = std::move(axis_w);
  if (result.n == 0 || result.c == 0) return plan;  // empty problem: no tasks, no workspace
  num_threads = std::max(num_threads, 1);

  plan.layout = ChooseLayout(grad, result);
  int64_t w_row_steps = 0;  // planar only: channels-last W passes step over whole C-vectors
  if (plan.layout == Layout::kChannelsLast) {
    plan.channel_block = ChooseChannelBlock(result.c, std::max(result.w, grad.w));
  } else {
    w_row_steps = ChooseWidthForm(&plan);
  }
  plan.h_pass_first = ChoosePassOrder(plan, order, w_row_steps);
  if (plan.layout == Layout::kChannelsLast && plan.h_pass_first) {
    plan.pair_h_rows = ShouldPairHeightRows(plan);
    plan.stream_result = ShouldStreamResult(plan);
  }
  const int64_t units = CountUnits(plan);
  plan.bands = PlanBands(plan, units, num_threads);
  SizeScratch(&plan);
  SizeWorkspace(&plan, units, num_threads);
  return plan;
}

}  // namespace aclnn_upsample
