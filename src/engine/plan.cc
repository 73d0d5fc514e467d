#include "engine/plan.h"

#include <sched.h>

#include <algorithm>
#include <cstdlib>
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
constexpr auto kCacheLineBytes = static_cast<int64_t>(kernels::kCacheLineBytes);
// Channels-last pays once a C-vector fills at least one AVX2 register.
constexpr int64_t kMinChannelsLastChannels = 8;
constexpr int64_t kMaxChannelBlock = 512;
// A periodic interior pays once it fills a few vectors (else the blocked form serves).
constexpr int32_t kMinPeriodicVectors = 2;
// A row table's lanes are read once per row, in order, so they need not stay in L1: with 128
// KiB instead of 12, AVX-512 on the Intel VM (session 37), the NCHW 1080x1920 -> 600x1000
// forwards (32-48 KiB tables) ran 1.22x (bilinear AA), 1.45x (bilinear) and 1.25x (bicubic)
// faster, channels-last RGB (96 KiB) 1.8-2.2x. Past that the gain fades: a 260 KiB table
// (channels-last RGB 2160x3840 -> 1000x1800 AA) ran 1.15x faster, the same shape's NCHW row (87
// KiB) 0.96-0.99 (noise). The limit keeps a table within a share of a 512 KiB L2 (Zen 3; not
// measured there).
constexpr size_t kMaxRowTableBytes = 128 * 1024;
// Planar and pixel rows take periodic vectors whose few taps reach up to four vectors from the
// base (a bilinear 500 -> 224 forward: 38 columns for 16 results, 40-58 elements of RGB pixels),
// where a gather per tap had served, for runs of as many taps as the CPU's tuning says
// (KernelTuning::wide_periodic_taps).
int32_t WidePeriodicTaps() {
  return std::clamp(kernels::TuningForCpu().wide_periodic_taps, 1, kernels::kMaxPeriodicTaps);
}
PeriodicReach CpuPeriodicReach() {
  return PeriodicReach{kernels::kMaxPeriodicLoads, WidePeriodicTaps()};
}
// Blocked W-pass weights beyond this many floats are not worth their memory.
constexpr size_t kMaxBlockedFloats = size_t{8} << 20;

// Plane groups (Layout::kPlaneGroups) pay where planar rows are short, and only with enough
// groups to share among threads; a group's pixels, source and result, should stay in L2 with
// room for the channels-last intermediate.
constexpr int64_t kMinPlaneGroups = 8;
// Result rows shorter than 64 pixels, read from source rows of up to 64: the shorter the result
// row, the less the planar forms amortise their edges. On the Intel VM (AVX-512), grouped, 4096
// planes of 64x64 -> 32x32 ran 18-25 % faster than planar (bilinear and bicubic backward,
// bicubic AA and bilinear forward), while 32x32 -> 64x64 forward ran 65-70 % slower. On the
// Zen 3 VM (AVX2), of 68 shapes with results 36 to 63 wide (seven operators, float32 and
// bfloat16, up and down), 67 ran faster grouped, at 0.38-0.97 of the planar time (about 0.4
// where a row is not a whole number of vectors), one at 1.02; 64 wide, 2x upscales ran 15-46 %
// slower again (in-process A/B, 2 threads; bench/RESULTS.md, session 14).
constexpr int64_t kMaxGroupedResultRow = 63;
constexpr int64_t kMaxGroupedSourceRow = 64;
// A group's source and result pixels: 320 KiB for 64x64 -> 32x32, which left room in this
// host's 1.25 MiB L2 for the channels-last tile.
constexpr size_t kMaxGroupPixelBytes = 384 * 1024;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Cuts the result rows [0, H_in) into `count` bands and records, for each, the source rows its
// H pass reads.
std::vector<RowBand> MakeBands(const AxisRuns& axis_h, int64_t count) {
  std::vector<RowBand> bands;
  const int64_t rows = axis_h.result_size;
  const int64_t per_band = CeilDiv(rows, std::max<int64_t>(count, 1));
  for (int64_t begin = 0; begin < rows; begin += per_band) {
    const int64_t end = std::min(rows, begin + per_band);
    int64_t lo = axis_h.source_size, hi = 0;
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
int64_t ChooseBandCount(int64_t units, int64_t tile_row_floats, const AxisRuns& axis_h,
                        int num_threads) {
  int64_t bands = 1;
  if (num_threads > 1 && units < kTasksPerThread * num_threads) {
    bands = CeilDiv(kTasksPerThread * num_threads, units);
  }
  const int64_t whole_tile_bytes = static_cast<int64_t>(axis_h.source_size) * tile_row_floats *
                                   static_cast<int64_t>(sizeof(float));
  bands = std::max<int64_t>(bands, CeilDiv(whole_tile_bytes, kTileBudgetBytes));
  return std::clamp<int64_t>(bands, 1, axis_h.result_size);
}

// Ties go to H first: its intermediate is one row at a time, so no band overlap is recomputed.
bool ChooseHeightFirst(PassOrder order, int64_t cost_h_first, int64_t cost_w_first) {
  if (order != PassOrder::kCheapest) return order == PassOrder::kHeightFirst;
  return cost_h_first <= cost_w_first;
}

int64_t MaxBandRows(const std::vector<RowBand>& bands) {
  int64_t rows = 0;
  for (const RowBand& band : bands)
    rows = std::max<int64_t>(rows, band.source_row_end - band.source_row_begin);
  return rows;
}

int64_t VectorLanes() { return static_cast<int64_t>(kernels::FloatLanes()); }

// Elements from plane q to plane q + 1 (plane q being image q / C, channel q % C) where that is
// one number across the tensor (0 for a source broadcast over N and C), else -1.
int64_t FlatPlaneStride(const PlaneView& view) {
  if (view.c == 1) return view.stride_n;
  if (view.n == 1 || view.stride_n == view.c * view.stride_c) return view.stride_c;
  return -1;
}

// Planar rows too short for the planar vector forms (a few vectors or less) and planes enough
// to fill kMinPlaneGroups groups: the channels-last passes over groups of planes, transposed
// into pixels of kPlaneGroup channels and back, run them a whole vector per pixel. Each plane's
// columns must be contiguous and the planes evenly spaced in both tensors, so that a group is
// one strided run of planes.
bool ShouldGroupPlanes(const PlaneView& source, const PlaneView& result) {
  const int64_t group = static_cast<int64_t>(kernels::kPlaneGroup);
  const int64_t planes = result.n * result.c;
  if (planes < kMinPlaneGroups * group || source.stride_w != 1 || result.stride_w != 1 ||
      result.w > kMaxGroupedResultRow || source.w > kMaxGroupedSourceRow) {
    return false;
  }
  const uint64_t pixel_bytes = static_cast<uint64_t>(source.h * source.w + result.h * result.w) *
                               static_cast<uint64_t>(group) * sizeof(float);
  if (pixel_bytes > kMaxGroupPixelBytes) return false;
  const int64_t source_stride = FlatPlaneStride(source), result_stride = FlatPlaneStride(result);
  return source_stride >= 0 && result_stride > 0;
}

// Whether every run of the axis is a single tap of weight exactly 1 or empty: each result index
// then takes one source index unchanged, or zero.
bool IsPureGather(const AxisRuns& axis) {
  for (int32_t i = 0; i < axis.result_size; ++i) {
    const int32_t count = axis.count(i);
    if (count > 1 || (count == 1 && axis.weights[axis.weight_offset[i]] != 1.0f)) return false;
  }
  return true;
}

// Nearest on both axes, channels contiguous in both tensors, at least kMinCopiedChannels of them
// (Layout::kCopy). The passes would compute 1 * x for each element, through float32 and back:
// 0.6-0.9x PyTorch's channels-last bfloat16 nearest forward, which copies.
bool ShouldCopyPixels(const ResampleProblem& problem) {
  const PlaneView &source = problem.source, &result = problem.result;
  return source.stride_c == 1 && result.stride_c == 1 && result.c >= kMinCopiedChannels &&
         IsPureGather(problem.axis_h) && IsPureGather(problem.axis_w);
}

// Combining whole C-vectors needs the channels contiguous in both tensors, and pays only once a
// C-vector fills a register; otherwise each (n, c) plane is resampled on its own.
// Images with fewer channels, pixels back to back, would otherwise run as planes read with a
// stride of C, every plane re-reading the whole image: they deinterleave rows instead.
Layout ChooseLayout(const PlaneView& source, const PlaneView& result) {
  const bool contiguous_channels = source.stride_c == 1 && result.stride_c == 1;
  if (contiguous_channels && result.c >= kMinChannelsLastChannels) return Layout::kChannelsLast;
  const auto channels = static_cast<size_t>(result.c);
  if (contiguous_channels && channels >= kernels::kMinInterleavedChannels &&
      channels <= kernels::kMaxInterleavedChannels && source.stride_w == result.c &&
      result.stride_w == result.c) {
    return Layout::kInterleaved;
  }
  if (ShouldGroupPlanes(source, result)) return Layout::kPlaneGroups;
  return Layout::kPlanar;
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
int64_t UniformRowSteps(const UniformInterior& uniform, int64_t result_w, int64_t lanes) {
  const int64_t interior = uniform.end - uniform.begin;
  const int64_t taps = static_cast<int64_t>(uniform.weights.size());
  return CeilDiv(interior, lanes) * taps + (result_w - interior) * taps;
}

// Vector steps of one W-pass row in the periodic form, on the blocked form's scale: a blocked
// step is a broadcast and an FMA; a periodic tap a permute (two and a blend when the span takes
// two loads), an FMA and, for short runs, a blend. The edges' taps go one by one.
int64_t PeriodicRowSteps(const PeriodicInterior& periodic, int64_t result_w, int64_t lanes) {
  // Half vectors (AVX-512) count their vectors in their own lanes and their loads in whole ones.
  const int64_t interior = int64_t{periodic.vectors} * periodic.lanes + periodic.overhang;
  const int64_t vectors = periodic.vectors + (periodic.overhang > 0 ? 1 : 0);
  // A tap costs a permute and an FMA from one load, a blend more from two (a two-table permute
  // on AVX-512), and from three or four a permute and a blend per load; half vectors (AVX-512
  // only) two permutes and a blend. Whole vectors from three loads on AVX-512 take as few, but
  // their count was measured as it is.
  const int64_t loads = CeilDiv(periodic.span, lanes);
  const bool half_vectors = periodic.lanes < lanes;
  const int64_t steps_per_tap = loads == 1 ? 2 : loads == 2 ? 3 : half_vectors ? 4 : 2 * loads;
  return vectors * periodic.taps * steps_per_tap + (result_w - interior) * periodic.taps;
}

// The W pass's periodic interior for `lanes`-wide vectors over rows of `channels` interleaved
// channels (1: planar rows): a period's, or the row table's, a pattern per vector. A short period
// can hold over a stretch of a longer one's row (the runs of 500 -> 224 repeat every 9 results for
// a few vectors), leaving the rest of the row to the exact runs one by one: there the row table
// covers more. It replaces a periodic interior only of less than half its vectors: one pattern's
// tables stay in registers, a pattern per vector loads them (and a row of 2x upscales keeps its one
// pattern).
PeriodicInterior PeriodicOrRowTable(const AxisRuns& axis, int32_t lanes, int32_t max_taps,
                                    PeriodicReach reach, int32_t channels = 1) {
  PeriodicInterior periodic =
      FindPeriodicInterior(axis, lanes, max_taps, kMinPeriodicVectors, channels, reach);
  PeriodicInterior table = FindRowTableInterior(axis, lanes, max_taps, kMinPeriodicVectors,
                                                kMaxRowTableBytes, reach, channels);
  if (table.lanes > 0 && (periodic.lanes == 0 || table.vectors > 2 * periodic.vectors)) {
    return table;
  }
  return periodic;
}

// Where no periodic interior of whole vectors holds, one of half vectors on targets that run
// them (kernels::PeriodicRowsInHalfVectors: AVX-512), whose whole-vector loads reach 64 columns
// for 8 results: a bilinear 1000 -> 224 forward's 8 results read 38 columns, its 16 read 73.
// The same search as for whole vectors, a period first and else a row table.
PeriodicInterior PeriodicInHalfVectors(const AxisRuns& axis, int64_t lanes) {
  if (lanes < 2 || !kernels::PeriodicRowsInHalfVectors()) return {};
  // Four whole loads are eight half vectors of columns.
  const int32_t wide_taps = WidePeriodicTaps();
  PeriodicInterior periodic =
      PeriodicOrRowTable(axis, static_cast<int32_t>(lanes / 2), wide_taps,
                         PeriodicReach{2 * kernels::kMaxPeriodicLoads, wide_taps});
  // The kernels carry half vectors from three loads on (fewer would have fit whole vectors).
  if (periodic.lanes > 0 &&
      kernels::PeriodicLoads(periodic.span, periodic.taps, static_cast<int32_t>(lanes)) < 3) {
    return {};
  }
  return periodic;
}

// The planar W pass's blocked form runs in 8 lanes instead of 16 where the CPU's tuning allows
// it (KernelTuning::blocked_in_half_vectors: AMD, whose 512-bit FMAs take both 256-bit pipes)
// and the 16-lane windows average at least 16 columns, as a downscale's do: a block's window is
// its lanes times the stride plus the taps, so there half the lanes read about half the columns
// and each step costs half. Shorter windows (the gathers of upscales' gradients) are bound by
// each block's stores and checks rather than its FMAs, and twice the blocks cost more. In cache
// on the Zen 4 VM (session 32 in bench/RESULTS.md), 8 lanes against 16: a 500 -> 224 bicubic
// forward (windows of 39 columns) 0.83 of the time, case 3's 8x bilinear gradient (135) 0.91,
// 6x and 10x downscales 0.88-0.95, case 25 0.97; case 8's 4x bicubic AA gradient (windows of 8)
// 1.15, cases 11 and 17 1.05, a 224 -> 500 gather (8) 1.02-1.11. Case 3 had run 1.06-1.12x
// slower on AVX-512 than on AVX2.
BlockedAxis BlockedInHalfVectors(const AxisRuns& axis, BlockedAxis full, int64_t lanes) {
  if (full.lanes == 0 || lanes != 16 || !kernels::TuningForCpu().blocked_in_half_vectors) {
    return full;
  }
  const int64_t blocks = CeilDiv(int64_t{axis.result_size}, lanes);
  if (full.window_steps < lanes * blocks) return full;
  BlockedAxis half = BlockAxis(axis, static_cast<int32_t>(lanes / 2), kMaxBlockedFloats);
  return half.lanes > 0 ? std::move(half) : std::move(full);
}

// Where the W axis keeps no vector form of contiguous loads, its runs by tap for the gathered
// form, on targets of more than one lane and for runs of at most kMaxGatheredTaps taps: the
// bilinear downscales by non-integer factors past two (images resized to 224 from 500 or 640),
// whose two taps lie further apart than two vectors span and whose blocked windows would take
// more vector steps than the runs have taps. Each element had run a scalar loop over its run. In
// cache on the Zen 4 VM, one thread (session 32 in bench/RESULTS.md): 500 -> 224 bilinear
// forward 1.31-1.40x faster (AVX2 1.31, SSE4's emulated gathers 1.34), 1000 -> 224 1.22-1.28,
// 64 planes of 200 -> 56 1.18-1.25. The steps returned stay the exact runs' count, so the pass
// order is chosen as before.
constexpr int32_t kMaxGatheredTaps = 8;

void KeepTapTableIfExact(const AxisRuns& axis, int64_t lanes, CpuSchedule* schedule) {
  if (lanes > 1 && schedule->w_blocked.lanes == 0) {
    schedule->w_taps = MakeTapTable(axis, kMaxGatheredTaps, kMaxBlockedFloats);
  }
}

// The planar W pass runs in one vector form per axis, and the plan keeps the cheapest the axis
// admits: a uniform interior (integer factors) whenever one is found; else blocked dense windows
// or a periodic interior (rational ratios such as 8/7, downsampling by 2), whichever takes fewer
// vector steps; else the exact taps one by one. Returns the kept form's vector steps per W-pass
// row, which the pass order weighs (0 for an identity axis, whose pass is skipped).
int64_t ChooseWidthForm(const ResampleProblem& problem, CpuSchedule* schedule) {
  const AxisRuns& axis_w = problem.axis_w;
  if (axis_w.identity) return 0;
  const int64_t lanes = VectorLanes(), result_w = problem.result.w;
  schedule->w_uniform = FindUniformInterior(axis_w, MinUniformInteriorLength(lanes),
                                            kernels::kMaxUniformStride, kernels::kMaxUniformTaps);
  if (schedule->w_uniform.stride > 0) return UniformRowSteps(schedule->w_uniform, result_w, lanes);

  schedule->w_blocked = BlockAxis(axis_w, static_cast<int32_t>(lanes), kMaxBlockedFloats);
  const int64_t other_steps =
      schedule->w_blocked.lanes > 0 ? schedule->w_blocked.window_steps : TapCount(axis_w);
  schedule->w_periodic = PeriodicOrRowTable(axis_w, static_cast<int32_t>(lanes),
                                            kernels::kMaxPeriodicTaps, CpuPeriodicReach());
  if (schedule->w_periodic.lanes == 0) {
    schedule->w_periodic = PeriodicInHalfVectors(axis_w, lanes);
  }
  if (schedule->w_periodic.lanes == 0) {
    schedule->w_blocked = BlockedInHalfVectors(axis_w, std::move(schedule->w_blocked), lanes);
    KeepTapTableIfExact(axis_w, lanes, schedule);
    return other_steps;
  }
  const int64_t periodic_steps = PeriodicRowSteps(schedule->w_periodic, result_w, lanes);
  if (periodic_steps < other_steps) {
    schedule->w_blocked = BlockedAxis();  // one vector form per axis
    return periodic_steps;
  }
  schedule->w_periodic = PeriodicInterior();
  schedule->w_blocked = BlockedInHalfVectors(axis_w, std::move(schedule->w_blocked), lanes);
  KeepTapTableIfExact(axis_w, lanes, schedule);
  return other_steps;
}

// Interleaved rows (few channels, channels-last) run a planar W form on each channel's row,
// deinterleaved into scratch and interleaved back, unless a periodic interior or a row table
// holds over the pixel rows themselves (upsampling and downsampling by up to about 3, where a
// vector's taps stay within four vectors of elements) and takes fewer steps than the planar
// form plus those two moves, at kHalfStepsPerMovedVector / 2 steps per vector moved. Then the
// planar forms are dropped and the W pass gathers the pixel rows in place. Returns the W steps
// per channel row, as ChooseWidthForm.
//
// A vector step per vector moved, as first assumed, undercounted the moves: RGB rows resized
// 256 -> 299 and 224 -> 299 (bicubic) forward, which the model gave to the planar form by a few
// steps, ran 1.27x and 1.20x faster over pixel rows (AVX-512, session 37). At 2.5 steps they
// take the pixel rows, while the 2x downscales' uniform planar forms and a bicubic AA 128 ->
// 512 gradient (0.98 over pixel rows) keep theirs.
constexpr int64_t kHalfStepsPerMovedVector = 5;
// Split by pixel phase (kernels::SplitsPixelPhases), the planar form moves only its source, at
// four steps a vector by this count: channels-last RGB 1024 -> 256 bilinear (stride 4, two
// taps), which a weight of 2.5 had given the planar form, ran 1.22x faster over pixel rows
// (AVX-512, session 38), while the 2x downscales ran alike either way (bilinear 0.97-1.01, AA,
// bicubic and the 2x gradient 0.99-1.01) and stay planar.
constexpr int64_t kHalfStepsPerSplitVector = 8;
// Against a periodic pixel form of at least two taps (one period's few lane patterns, read from
// L1), the moves weigh 3.5 steps a vector on 16-lane targets (AVX-512), and on narrower ones
// where each tap takes at most two loads: there a tap from two loads is one two-table permute
// (AVX-512) or two and a blend, where deinterleaving three to seven channels and interleaving the
// result back take more permutes per vector than the count's 2.5 steps. Measured on the Emerald
// Rapids VM (session 39, in-process, old plan against new, 2 threads): of 370 channels-last
// shapes (2 to 7 channels, the four filters, forward and backward, 2x, 1.5x, 4x and odd ratios),
// the 25 this moves to pixel rows on AVX-512 ran 1.03-1.58x faster in two runs (bicubic RGB 2x
// upscales 1.14-1.16, RGBA 1.26-1.28, bilinear 1.5x gradients of 5-7 channels 1.23-1.58), the 10
// on AVX2 1.10-1.43x (bicubic and bicubic AA 2x of 2-4 channels); none slower. The same weight
// for every periodic form on AVX2 ran the 500 -> 224 bilinear gradients (one tap, periods of
// 32-112 elements) at half their speed and taps from three or four loads at 0.88-1.22; against
// row tables (a pattern per vector, tens of KiB a row, from L2) it ran RGB and RGBA at 0.81-1.03
// on both targets. Those keep 2.5.
constexpr int64_t kHalfStepsPerMovedVectorWide = 7;
bool MovesWeighMore(const PeriodicInterior& pixels, int64_t lanes) {
  return pixels.period > 0 && pixels.taps >= 2 && (lanes >= 16 || CeilDiv(pixels.span, lanes) <= 2);
}

int64_t ChoosePixelRowForm(const ResampleProblem& problem, int64_t planar_steps,
                           CpuSchedule* schedule) {
  const AxisRuns& axis_w = problem.axis_w;
  if (axis_w.identity) return planar_steps;
  const int64_t lanes = VectorLanes(), channels = problem.result.c;
  PeriodicInterior pixels =
      PeriodicOrRowTable(axis_w, static_cast<int32_t>(lanes), kernels::kMaxPeriodicTaps,
                         CpuPeriodicReach(), static_cast<int32_t>(channels));
  if (pixels.lanes == 0) return planar_steps;
  const int64_t pixel_steps = PeriodicRowSteps(pixels, problem.result.w * channels, lanes);
  const int64_t source_vectors = CeilDiv(problem.source.w * channels, lanes);
  const int32_t stride = schedule->w_uniform.stride;
  // The planar form's moves: the source split by pixel phase where the kernels do that, else
  // deinterleaved and the result interleaved back.
  const int64_t half_steps_moved =
      kernels::SplitsPixelPhases(static_cast<size_t>(channels), stride)
          ? kHalfStepsPerSplitVector * source_vectors
          : (MovesWeighMore(pixels, lanes) ? kHalfStepsPerMovedVectorWide
                                           : kHalfStepsPerMovedVector) *
                (source_vectors + CeilDiv(problem.result.w * channels, lanes));
  if (pixel_steps >= planar_steps * channels + half_steps_moved / 2) return planar_steps;
  schedule->w_uniform = UniformInterior();
  schedule->w_blocked = BlockedAxis();
  schedule->w_taps = TapTable();
  schedule->w_periodic = std::move(pixels);
  schedule->w_periodic_pixels = true;
  return CeilDiv(pixel_steps, channels);
}

// Either order computes the result; the plan runs the one that takes fewer vector steps. The
// count uses the shapes alone, never the thread count, so that the order, and with it every
// rounding, is the same however many threads run. `w_row_steps` is the planar W form's cost per
// row (ChooseWidthForm).
bool ChoosePassOrder(const ResampleProblem& problem, Layout layout, PassOrder order,
                     int64_t w_row_steps) {
  const int64_t result_h = problem.result.h, source_h = problem.source.h;
  const int64_t result_w = problem.result.w, source_w = problem.source.w;
  const int64_t taps_h = TapCount(problem.axis_h);
  if (layout == Layout::kInterleaved) {
    // The planar costs with rows C times as wide for the H pass and C planar rows per W pass.
    const int64_t channels = problem.result.c, lanes = VectorLanes();
    const int64_t cost_w_first =
        source_h * w_row_steps * channels + taps_h * CeilDiv(result_w * channels, lanes);
    const int64_t cost_h_first =
        taps_h * CeilDiv(source_w * channels, lanes) + result_h * w_row_steps * channels;
    return ChooseHeightFirst(order, cost_h_first, cost_w_first);
  }
  if (layout == Layout::kChannelsLast || layout == Layout::kPlaneGroups) {
    // Vector steps are C-vectors here: one per tap per pixel. A plane group's pixel is one or
    // two vectors, so a W step (a pixel's gather: its run's indices and set-up around an FMA or
    // two) costs about two H steps (whole rows of pixels, one long run of vectors). Measured on
    // the nine small-plane cases, A/B of the two orders: the cheaper order by this count won in
    // every one, by 2-12 %; counted alike, they all tied and ran H first.
    const int64_t w_step = layout == Layout::kPlaneGroups ? 2 : 1;
    const int64_t taps_w = TapCount(problem.axis_w) * w_step;
    int64_t cost_w_first = source_h * taps_w + taps_h * result_w;
    int64_t cost_h_first = taps_h * source_w + result_h * taps_w;
    if (layout == Layout::kChannelsLast && problem.dtype != DType::kFloat32) {
      // 16-bit pixels add a conversion pass, a step per pixel: H first rounds every result row
      // from float scratch after its W pass, W first converts every source row before its W pass
      // (its H pass rounds in registers). Counted without it, a 2x upscale tied and ran H first,
      // converting four times the pixels: bfloat16 forwards ran at 0.4-0.5x float32's bytes/s.
      cost_h_first += result_h * result_w;
      cost_w_first += source_h * source_w;
    }
    return ChooseHeightFirst(order, cost_h_first, cost_w_first);
  }
  // A planar pass along an identity axis is skipped, which only the W-first path does, so such
  // a plan runs W first whatever the order asked.
  const int64_t lanes = VectorLanes();
  const bool h_identity = problem.axis_h.identity;
  const int64_t cost_w_first = (h_identity ? result_h : source_h) * w_row_steps +
                               (h_identity ? 0 : taps_h * CeilDiv(result_w, lanes));
  const int64_t cost_h_first = taps_h * CeilDiv(source_w, lanes) + result_h * w_row_steps;
  return !h_identity && !problem.axis_w.identity &&
         ChooseHeightFirst(order, cost_h_first, cost_w_first);
}

PlanarPath ChoosePlanarPath(const ResampleProblem& problem, bool h_pass_first) {
  if (h_pass_first) return PlanarPath::kHeightFirst;
  return problem.axis_h.identity ? PlanarPath::kWidthOnly : PlanarPath::kWidthFirst;
}

// Floats from one row of the W-first tile (the W pass's rows, which the H pass combines) to the
// next, 0 where the plan keeps no such tile: a row's floats (result width x channel block),
// rounded up to whole cache lines where the results stream or round to bfloat16, so that every
// tile row starts on one. The H pass takes whole vectors only from rows that all start on a
// vector's multiple (kernels: RowsStartOnMultiplesOf; else half vectors on AVX-512), and whole
// vectors halve the instructions that round to bfloat16 (a dozen a vector) or convert and
// stream through the staging buffer. Results stored cached in float32 or float16 (one
// conversion a vector) keep unpadded rows: those lie a row's floats apart in the result too, and
// there whole vectors split every store of a row off a line across two lines. In-process on the
// Emerald Rapids VM (session 53, AVX3, 2 threads), against the unpadded rows before: bilinear
// forwards 64 -> 127 1.53x faster in bfloat16, 1.15x in float16 (streamed), 256 -> 299 1.27x in
// bfloat16; channels-last bfloat16 RGB 256 -> 299 1.08x, RGBA 64 -> 127 1.15x, 8 channels
// 1.19x, a bicubic RGB 224 -> 299 forward 1.18x, an RGB 299 -> 256 gradient 1.13x; streamed
// float32 1.01-1.02x. Padded, cached float32 256 -> 299 forwards had run 0.92x (bilinear and
// bicubic), cached float16 channels-last 64 -> 127 ones 0.87-0.91x.
int64_t TileRowFloats(const ResampleProblem& problem, const CpuSchedule& schedule) {
  if (schedule.h_pass_first ||
      (schedule.layout == Layout::kPlanar && schedule.planar_path != PlanarPath::kWidthFirst)) {
    return 0;
  }
  const int64_t row_floats = problem.result.w * schedule.channel_block;
  if (problem.dtype != DType::kBFloat16 && !schedule.stream_result) return row_floats;
  return static_cast<int64_t>(RoundUpToCacheLine(static_cast<size_t>(row_floats)));
}

// Rows go straight to and from the tensors wherever the kernels can take them as they are:
// float32 rows of unit column stride; for the planar H-first pass, which converts in registers,
// source rows of any dtype with unit column stride. Channels-last pixels are dense when a task
// takes every channel and the row has no padding.
void ChooseInPlaceRows(const ResampleProblem& problem, CpuSchedule* schedule) {
  const bool f32 = problem.dtype == DType::kFloat32;
  schedule->source_rows_native_in_place = problem.source.stride_w == 1;
  schedule->source_rows_float_in_place = f32 && problem.source.stride_w == 1;
  schedule->result_rows_float_in_place = f32 && problem.result.stride_w == 1;
  schedule->result_rows_native_in_place = problem.result.stride_w == 1;
  const auto dense = [&](const PlaneView& view) {
    return schedule->channel_block >= view.c && view.stride_w == view.c;
  };
  schedule->source_pixels_dense = dense(problem.source);
  schedule->result_pixels_dense = dense(problem.result);
  const auto rows_back_to_back = [](const PlaneView& view) {
    return view.stride_w == 1 && view.stride_h == view.w;
  };
  schedule->source_planes_dense = rows_back_to_back(problem.source);
  schedule->result_planes_dense = rows_back_to_back(problem.result);
  if (schedule->layout == Layout::kPlaneGroups) {
    // The channels-last passes run on the group's pixels in scratch, float32 and dense.
    schedule->source_pixels_dense = schedule->result_pixels_dense = true;
    schedule->source_rows_native_in_place = schedule->source_rows_float_in_place = false;
    schedule->result_rows_float_in_place = schedule->result_rows_native_in_place = false;
  }
}

// The source bytes a channels-last H pass may read per result row and still find, in L1, the
// rows it shares with the next result row.
constexpr int64_t kL1RunBytes = 32 * 1024;
// The fewest taps a run needs for its rows to be grouped rather than paired.
constexpr int64_t kMinGroupedTaps = 8;

// Whether a channels-last H pass (H first, pixels back to back) combines its result rows in
// groups, a column chunk at a time (CpuSchedule::group_h_rows): where the longest run's rows
// span more than kL1RunBytes, a result row at a time evicted the rows the next one shares
// before it read them. Channels-last 4x bicubic AA forwards of float32 (17 taps) ran in
// 0.87-0.92 of the pairs' time (16, 32 and 64 channels), bfloat16 in 0.97-1.02. Runs of a few taps
// (bilinear, bicubic) keep the pairs, which load each shared row once for both sums: grouped,
// the 16-bit 2x bilinear backwards (cases 13 and 14, 4 taps of 16 KiB rows) ran 1.04x slower
// (bench/RESULTS.md, session 23). Not the plane groups, whose pixels come from L2 in scratch:
// grouped, 4x AA forwards onto 16x16 planes ran 1.02-1.03x slower.
bool ShouldGroupHeightRows(const ResampleProblem& problem, const CpuSchedule& schedule) {
  if (schedule.layout != Layout::kChannelsLast || !schedule.source_pixels_dense) return false;
  const int64_t longest = problem.axis_h.max_count;
  const int64_t row_bytes =
      problem.source.w * schedule.channel_block * static_cast<int64_t>(DTypeSize(problem.dtype));
  return longest >= kMinGroupedTaps && longest * row_bytes > kL1RunBytes;
}

// A planar row group's float rows (the H-first pass's H-pass rows; the W-first pass's converted
// source rows with the W-pass rows made from them) take about kRowGroupBytes, from kMinRowGroup
// to kMaxRowGroup rows. Each group costs its own set-up: the W pass's per-call work and exact
// edge elements, and where 16-bit results take one call per group, a source prefetch that
// starts again. Every planar case in groups of 16 rows rather than 8 ran in 0.89-1.01 of its
// time (AVX3, 2 threads, alternated rounds); in 32 rather than 16, the 2x gradients' 512-byte
// H-pass rows (cases 5 and 6) 0.86-0.89 and case 1 0.95, while rows of 1-2 KiB ran 1.03x slower
// (cases 10, 12), as did 64 rows of 256 bytes against 16 (case 19, W first): the W pass then
// reads its rows from L2. Counting only its 128-column source rows, a 4x bicubic AA gradient onto
// 512-column bfloat16 planes (case 12, W first) took groups of 32 and ran 1.05x slower than in 8.
constexpr int64_t kRowGroupBytes = 16 * 1024;

int64_t PlanarRowGroup(const ResampleProblem& problem, const CpuSchedule& schedule) {
  const int64_t row_floats =
      schedule.h_pass_first
          ? static_cast<int64_t>(kernels::GroupRowFloats(static_cast<size_t>(problem.source.w)))
          : problem.source.w + problem.result.w;
  const int64_t row_bytes = std::max<int64_t>(row_floats, 1) * static_cast<int64_t>(sizeof(float));
  return std::clamp(kRowGroupBytes / row_bytes, static_cast<int64_t>(kernels::kMinRowGroup),
                    static_cast<int64_t>(kernels::kMaxRowGroup));
}

// Only the channels-last H-first kernel can combine two result rows per source load, and only
// while both rows' scratch fits the tile budget: consecutive rows share source loads.
bool ShouldPairHeightRows(const ResampleProblem& problem, const CpuSchedule& schedule) {
  const int64_t row_bytes =
      problem.source.w * schedule.channel_block * static_cast<int64_t>(sizeof(float));
  return 2 * row_bytes <= static_cast<int64_t>(kTileBudgetBytes);
}

// Channels-last H first with paired rows: whether the W pass takes the H pass's rows as a band
// (CpuSchedule::band_w_pass). Only pixels of one or two whole vectors go a pixel at a time down
// the rows (GatherPixelBand); other widths would hold twice the rows in L1 for nothing. The
// plane groups' 28 x 28 -> 14 x 14 forwards and 2x backwards ran in 0.93-0.97 of their time so
// (bench/RESULTS.md, session 27).
bool ShouldBandWPass(const ResampleProblem& problem, const CpuSchedule& schedule) {
  // The plane groups' passes run on float32 pixels in scratch, stored cached, whatever the
  // tensors' dtype.
  const bool float32_cached = schedule.layout == Layout::kPlaneGroups ||
                              (problem.dtype == DType::kFloat32 && !schedule.stream_result);
  const auto lanes = static_cast<int64_t>(kernels::FloatLanes());
  const int64_t channels = schedule.channel_block;
  return schedule.pair_h_rows && float32_cached && (channels == lanes || channels == 2 * lanes);
}

// Whether a call moves more than the last-level cache holds (false where its size is unknown).
bool OutgrowsLastLevelCache(const ResampleProblem& problem) {
  const uint64_t last_level = LastLevelCacheBytes();
  return last_level > 0 && TrafficBytes(problem.source, problem.result, problem.dtype) > last_level;
}

// Streaming stores skip reading each result line before writing it, which pays only on calls
// too large for the result to be found in cache afterwards (kStreamedResultMinTraffic). The
// kernels that have them write results straight into the tensor: the channels-last W pass (H
// first) and the plane groups' transposes, float32 only, and the H pass writing whole result
// rows in place in any dtype (channels-last W first with dense pixels, planar W first,
// interleaved W first), and the planar H-first pass through a row group in scratch. For the H
// pass and the plane groups, only where the result is at least as large as the source or the
// call outgrows the last-level cache: a forward upsample writes four times what it reads, and
// streaming made it 1.6x faster (bench/RESULTS.md), while the backward of a 2x upsample, whose
// result is a quarter of the source, ran about 8 % slower streamed than cached back to back in
// L3.
bool ShouldStreamResult(const ResampleProblem& problem, const CpuSchedule& schedule) {
  if (TrafficBytes(problem.source, problem.result, problem.dtype) <= kStreamedResultMinTraffic) {
    return false;
  }
  // The channels-last W pass and the plane groups' transposes stream float32 only; the H pass
  // writing whole rows streams every dtype (CombineRowRunsTo).
  const bool f32 = problem.dtype == DType::kFloat32;
  if (schedule.layout == Layout::kChannelsLast && schedule.h_pass_first) return f32;
  // Interleaved H first: the W pass interleaves float32 result rows into the tensor
  // (kernels::Interleave streams them), downscales too; gathered as pixel rows, they are stored
  // cached.
  if (schedule.layout == Layout::kInterleaved && schedule.h_pass_first) {
    return f32 && !schedule.w_periodic_pixels;
  }
  // A result smaller than its source (a downscale, the backward of an upscale) is streamed only
  // where the call moves more than the last-level cache holds, so that the result could not be
  // found there afterwards anyway: back to back in L3 the backward of a 2x upsample (a quarter of
  // its source) ran about 8 % slower streamed, from memory 1.09-1.28x faster (bench/RESULTS.md,
  // session 52).
  const auto plane = [](const PlaneView& view) { return view.h * view.w; };
  const bool outgrows_caches = OutgrowsLastLevelCache(problem);
  if (plane(problem.result) < plane(problem.source) && !outgrows_caches) return false;
  switch (schedule.layout) {
    case Layout::kPlaneGroups:
      // The transposes back into the planes write whole planes, but a vector into each of up to
      // 16 planes in turn: streamed, each vector must fill its cache line, or every plane holds
      // a partly written line, more than the write-combining buffers hold. With 32-byte vectors
      // (AVX2) a 4096-plane backward onto 32x32 planes ran 3.8x slower streamed than cached on
      // the Zen 3 VM (6.7 against 1.7 ms).
      return f32 && std::min(VectorLanes(), static_cast<int64_t>(kernels::kPlaneGroup)) *
                            static_cast<int64_t>(sizeof(float)) >=
                        kCacheLineBytes;
    case Layout::kChannelsLast:
      return schedule.result_pixels_dense;
    case Layout::kInterleaved:
      return !schedule.h_pass_first;
    case Layout::kPlanar:
      // H first, the W pass writes a row group into scratch, and StoreFromFloat streams the
      // group's whole lines into the result rows (execute.cc, RunHFirst). Only from memory: in
      // L3, a 256 x 64 -> 64 x 256 forward (its result as large as its source) ran 1.3x slower.
      if (schedule.planar_path == PlanarPath::kHeightFirst) {
        return outgrows_caches && problem.result.stride_w == 1;
      }
      return schedule.planar_path == PlanarPath::kWidthFirst &&
             schedule.result_rows_native_in_place;
    case Layout::kCopy:
      return true;  // whole pixels, streamed where they are whole aligned vectors
  }
  return false;
}

// The units tasks are cut from are independent of each other: planes, or image x channel block
// for channels-last, whose channels one task combines together.
int64_t CountUnits(const ResampleProblem& problem, const CpuSchedule& schedule) {
  if (schedule.layout == Layout::kInterleaved) return problem.result.n;
  if (schedule.layout == Layout::kPlaneGroups) {
    return CeilDiv(problem.result.n * problem.result.c, schedule.channel_block);
  }
  if (schedule.layout == Layout::kChannelsLast)
    return problem.result.n * CeilDiv(problem.result.c, schedule.channel_block);
  return problem.result.n * problem.result.c;
}

// A W-first tile past L1 is read back from L2 by the H pass, unless the two passes take turns:
// the W pass of kWidthFirstStepRows tile rows, then the H pass of the result rows they complete.
// Where the H pass makes one to two result rows of each tile row, the turns ran in 0.91-0.95 of
// the time on the suite's cases 9, 24 and 37 (a 224 -> 256 bicubic AA backward, 128 -> 256
// forward, 256 -> 512 bilinear AA backward: tiles of 224-512 KiB), 0.97-0.99 on 4 and 34. Tiles
// within L1 lost 8-18 % to the extra calls (64 -> 128 and 32 -> 64 forwards), H upsamples by 8 lost
// 1-3 % (case 11) and gained nothing (case 3), downscales lost up to 17 % (a 4x bicubic AA forward,
// case 12; session 26 in bench/RESULTS.md).
constexpr int64_t kWidthFirstStepRows = 8;
constexpr int64_t kMinSteppedTileBytes = 64 * 1024;

int64_t WidthFirstStepRows(const ResampleProblem& problem, const CpuSchedule& schedule) {
  if (schedule.layout != Layout::kPlanar || schedule.planar_path != PlanarPath::kWidthFirst ||
      !schedule.result_rows_native_in_place || problem.axis_w.identity) {
    return 0;
  }
  const int64_t tile_bytes =
      MaxBandRows(schedule.bands) * schedule.tile_row_floats * static_cast<int64_t>(sizeof(float));
  const int64_t source_rows = problem.axis_h.source_size, result_rows = problem.axis_h.result_size;
  const bool one_to_two_rows = result_rows >= source_rows && result_rows <= 2 * source_rows;
  return tile_bytes > kMinSteppedTileBytes && one_to_two_rows ? kWidthFirstStepRows : 0;
}

// The steps fill a window of the tile rather than the whole band's tile: once the next step
// would pass the window, the rows that later result rows still read (from the next run's first
// row on) move to the window's front. A step then writes lines it wrote a few steps before, in L1,
// where it had written lines that had left L1 for L2. On the Emerald Rapids VM (session 36) the
// bilinear backwards 224 -> 256 and 256 -> 512 (cases 4 and 37, tiles of 224-512 KiB) ran
// 1.05-1.12x faster on AVX-512 and alike on AVX2 (1.00), so case 4's AVX-512 run, 1-5 % behind
// AVX2's before, is 4-7 % ahead of it. A 24 KiB window measured 1.04 on case 4, 32 KiB 1.00.
// Runs of 4-5 taps (bicubic, bicubic AA: cases 9, 34) ran 0.88 with a 16-row window and
// 0.96-0.98 with room for four runs past the step: each move copies a run's worth of rows.
constexpr int64_t kWidthFirstWindowBytes = 16 * 1024;
constexpr int32_t kMaxWindowedTaps = 3;

// Whether no non-empty run starts before the one of a result row above it: a window of rows that
// keeps those from the next run's first one on then holds every row a later run reads.
bool RunsStartInOrder(const AxisRuns& axis) {
  int32_t last_first = 0;
  for (int32_t i = 0; i < axis.result_size; ++i) {
    if (axis.count(i) == 0) continue;
    if (axis.first[i] < last_first) return false;
    last_first = axis.first[i];
  }
  return true;
}

int64_t WidthFirstWindowRows(const ResampleProblem& problem, const CpuSchedule& schedule) {
  const AxisRuns& axis = problem.axis_h;
  if (schedule.w_first_step_rows == 0 || axis.max_count == 0 || axis.max_count > kMaxWindowedTaps ||
      !RunsStartInOrder(axis)) {
    return 0;
  }
  const int64_t row_bytes = schedule.tile_row_floats * static_cast<int64_t>(sizeof(float));
  const int64_t rows = std::max(schedule.w_first_step_rows + 2 * int64_t{axis.max_count},
                                kWidthFirstWindowBytes / row_bytes);
  return rows < MaxBandRows(schedule.bands) ? rows : 0;
}

// Bands give every thread tasks and keep each task's intermediate tile in L2 (ChooseBandCount),
// so they are cut by the width of the intermediate's rows: the source's when H runs first, the
// result's when W runs first, in whole channel blocks for channels-last.
std::vector<RowBand> PlanBands(const ResampleProblem& problem, const CpuSchedule& schedule,
                               int64_t units, int num_threads) {
  // A group transposes whole planes: one band, its tile in L2 by ShouldGroupPlanes's limit.
  if (schedule.layout == Layout::kPlaneGroups) return MakeBands(problem.axis_h, 1);
  const int64_t row_pixels = schedule.h_pass_first ? problem.source.w : problem.result.w;
  int64_t tile_row = row_pixels * (schedule.layout == Layout::kPlanar ? 1 : schedule.channel_block);
  if (schedule.tile_row_floats > 0) tile_row = schedule.tile_row_floats;  // W first
  int64_t count = ChooseBandCount(units, tile_row, problem.axis_h, num_threads);
  // A W-first planar tile short of the steps' size (WidthFirstStepRows) fills whole, so it is cut
  // into bands of about the steps' window, where runs of at most kMaxWindowedTaps taps leave
  // little overlap to compute twice. On the Emerald Rapids VM (session 36) two bands for a 32 KiB
  // tile ran the 64 -> 128 bilinear forwards (cases 15, 19, 20) 1.06-1.09x faster on AVX-512 and
  // the nearest ones (29, 31, 32) 1.03-1.04x, in both orders; AVX2 measured 0.97-1.01.
  const AxisRuns& axis_h = problem.axis_h;
  if (schedule.layout == Layout::kPlanar && schedule.planar_path == PlanarPath::kWidthFirst &&
      !problem.axis_w.identity && axis_h.max_count <= kMaxWindowedTaps) {
    const int64_t whole_tile_bytes =
        axis_h.source_size * tile_row * static_cast<int64_t>(sizeof(float));
    if (whole_tile_bytes <= kMinSteppedTileBytes) {
      count =
          std::clamp<int64_t>(std::max(count, CeilDiv(whole_tile_bytes, kWidthFirstWindowBytes)), 1,
                              axis_h.result_size);
    }
  }
  return MakeBands(axis_h, count);
}

// Channels-last scratch per slot: what the pass order and the row pairing chosen above read
// and write, for the tallest band (execute.cc, ChannelsLastTask, uses exactly these buffers).
ScratchLayout ChannelsLastScratch(const ResampleProblem& problem, const CpuSchedule& schedule) {
  const bool f32 = problem.dtype == DType::kFloat32;
  const int64_t result_w = problem.result.w, source_w = problem.source.w;
  const int64_t block = schedule.channel_block;
  ScratchLayout scratch;
  if (schedule.h_pass_first) {
    // The source is read in place, in any dtype; the H pass writes one row (two when paired, a
    // group's when grouped).
    const auto row_floats = static_cast<size_t>(source_w * block);
    scratch.source_floats = schedule.group_h_rows
                                ? kHeightGroupRows * HeightGroupRowFloats(row_floats)
                                : HeldHeightRows(schedule) * row_floats;
    scratch.result_floats = f32 ? 0 : result_w * block;  // the W pass's row before conversion
  } else {
    scratch.tile_floats =
        static_cast<size_t>(MaxBandRows(schedule.bands) * schedule.tile_row_floats);  // W-pass rows
    scratch.source_floats = f32 ? 0 : source_w * block;  // one source row as float
    // Dense result rows are written in place, 16-bit ones rounded in registers.
    scratch.result_floats = schedule.result_pixels_dense ? 0 : result_w * block;
  }
  return scratch;
}

// Planar scratch per slot: what the path chosen above reads and writes, for the tallest band
// (execute.cc, PlanarTask, uses exactly these buffers).
ScratchLayout PlanarScratch(const ResampleProblem& problem, const CpuSchedule& schedule) {
  const size_t result_w = static_cast<size_t>(problem.result.w);
  const size_t source_w = static_cast<size_t>(problem.source.w);
  const size_t band_rows = static_cast<size_t>(MaxBandRows(schedule.bands));
  const bool w_identity = problem.axis_w.identity;
  const bool result_in_place = schedule.result_rows_float_in_place;
  const auto group = static_cast<size_t>(schedule.row_group);
  ScratchLayout scratch;
  switch (schedule.planar_path) {
    case PlanarPath::kHeightFirst:
      // Source rows of any dtype are read in place when their columns are contiguous, else
      // converted into the tile; the H pass writes a row group for the W pass.
      scratch.tile_floats = schedule.source_rows_native_in_place ? 0 : band_rows * source_w;
      scratch.source_floats = group * kernels::GroupRowFloats(source_w);
      // A row group of result rows for the W pass, stored from there into the result where it
      // is not written in place, or where the plan streams it (RunHFirst). Reserved either way,
      // so that a plan may run both ways.
      scratch.result_floats = group * result_w;
      break;
    case PlanarPath::kWidthOnly:
      // One source row as float, unless read in place; one result row unless written in place
      // (or stored straight from the source row when W is the identity too).
      scratch.source_floats = schedule.source_rows_float_in_place ? 0 : source_w;
      scratch.result_floats = result_in_place || w_identity ? 0 : result_w;
      break;
    case PlanarPath::kWidthFirst:
      // The tile of W-pass rows (the source's own rows when W is the identity and they are read
      // in place); source rows converted a row group at a time for the W pass.
      scratch.tile_floats = w_identity && schedule.source_rows_float_in_place
                                ? 0
                                : band_rows * static_cast<size_t>(schedule.tile_row_floats);
      scratch.source_floats =
          schedule.source_rows_float_in_place || w_identity ? 0 : group * source_w;
      scratch.result_floats = schedule.result_rows_native_in_place ? 0 : result_w;
      break;
  }
  return scratch;
}

// Interleaved W first from 16-bit rows that the W pass gathers as pixel rows: the rows
// converted to float32 for one W-pass call. The periodic form works out its row layout once per
// call (its tables copied, its vectors listed), which for one row of RGB or RGBA pixels cost
// about as much as the row's taps: the 2x bilinear forwards of 16-bit RGB and RGBA images ran
// 1.18-1.38x faster with 8 rows a call (in-process, AVX3 on Zen 4; AVX2 RGBA 1.42), and 8 rows
// 1.02-1.06x faster than 4. At most kConvertedPixelBytes of them, so that they stay in L2.
constexpr int64_t kConvertedPixelRows = 8;
constexpr int64_t kConvertedPixelBytes = 64 * 1024;

int64_t ConvertedPixelRows(const ResampleProblem& problem, const CpuSchedule& schedule) {
  if (schedule.layout != Layout::kInterleaved || schedule.h_pass_first ||
      problem.dtype == DType::kFloat32 || !schedule.w_periodic_pixels) {
    return 1;
  }
  const int64_t row_bytes =
      problem.source.w * problem.source.c * static_cast<int64_t>(sizeof(float));
  const int64_t fitting = std::max<int64_t>(1, kConvertedPixelBytes / row_bytes);
  return std::max<int64_t>(1,
                           std::min({kConvertedPixelRows, fitting, MaxBandRows(schedule.bands)}));
}

// Interleaved scratch per slot (execute.cc, InterleavedTask, uses exactly these buffers): the
// source buffer holds pixel rows as float (W first: converted source rows, only for 16-bit
// sources, CpuSchedule::converted_pixel_rows of them; H first: the H pass's group of
// kHeightGroupRows rows) followed by the C planar rows of one; the result buffer holds the C
// gathered planar rows followed, for 16-bit results, by the interleaved row to convert.
ScratchLayout InterleavedScratch(const ResampleProblem& problem, const CpuSchedule& schedule) {
  const bool f32 = problem.dtype == DType::kFloat32;
  const size_t channels = static_cast<size_t>(problem.result.c);
  const size_t source_row = static_cast<size_t>(problem.source.w) * channels;
  const size_t result_row = static_cast<size_t>(problem.result.w) * channels;
  ScratchLayout scratch;
  if (!schedule.h_pass_first) {
    scratch.tile_floats =
        static_cast<size_t>(MaxBandRows(schedule.bands) * schedule.tile_row_floats);
  }
  // A source row (converted, or combined H first) and its planar rows, each padded as
  // GatherThroughPlanarRows splits them.
  const size_t planar_rows =
      channels * kernels::GroupRowFloats(static_cast<size_t>(problem.source.w));
  const size_t pixel_rows =
      schedule.h_pass_first
          ? kHeightGroupRows * HeightGroupRowFloats(source_row)
          : (f32 ? 0 : source_row * static_cast<size_t>(schedule.converted_pixel_rows));
  scratch.source_floats = pixel_rows + planar_rows;
  // W first, the H pass writes result rows in place (16-bit ones rounded in registers); H first,
  // 16-bit result rows are gathered as floats and converted.
  scratch.result_floats = result_row + (f32 || !schedule.h_pass_first ? 0 : result_row);
  return scratch;
}

// H first, the plane groups transpose the source rows each step reads just before it, into a
// window of KernelTuning::group_source_window_bytes (where the CPU's tuning has one), the rows
// still to be read moving to its front when the next step's would pass it: the transposes then
// write lines still in L1, and the H pass reads them from there, where the whole group's source
// pixels (50 KiB for 16 planes of 28 x 28) had left L1 before it came to them (the measurements
// are with the tuning, kernels.h). Rows of fewer than kMinGroupWindowRows in the window (64-wide
// planes, 4 KiB pixel rows: case 2) moved a step's worth each step and ran 0.95-0.97 at 8-16 rows
// on the Emerald Rapids VM (session 36): they transpose the whole source first, as sources within
// the window do.
constexpr int64_t kMinGroupWindowRows = 8;

int64_t GroupSourceWindowRows(const ResampleProblem& problem, const CpuSchedule& schedule) {
  if (!schedule.h_pass_first || !schedule.source_planes_dense ||
      !RunsStartInOrder(problem.axis_h)) {
    return 0;
  }
  const int64_t row_bytes = problem.source.w * static_cast<int64_t>(kernels::kPlaneGroup) *
                            static_cast<int64_t>(sizeof(float));
  const auto window_bytes = static_cast<int64_t>(kernels::TuningForCpu().group_source_window_bytes);
  const int64_t rows = window_bytes / row_bytes;
  return rows >= kMinGroupWindowRows && rows < problem.source.h ? rows : 0;
}

// Plane-group scratch per slot (execute.cc, PlaneGroupTask): the channels-last passes' buffers
// for float32 pixels of kPlaneGroup channels, and the group buffer: the source pixels and the
// result pixels (a step's window of them where the result planes are dense).
ScratchLayout PlaneGroupScratch(const ResampleProblem& problem, const CpuSchedule& schedule) {
  ResampleProblem pixels = problem;
  pixels.dtype = DType::kFloat32;
  ScratchLayout scratch = ChannelsLastScratch(pixels, schedule);
  const size_t group = kernels::kPlaneGroup;
  const auto plane = [](const PlaneView& view) { return static_cast<size_t>(view.h * view.w); };
  const size_t result_pixels = schedule.group_window_pixels > 0
                                   ? static_cast<size_t>(schedule.group_window_pixels)
                                   : plane(problem.result);
  scratch.group_floats = group * (plane(problem.source) + result_pixels);
  return scratch;
}

// Each worker slot owns its scratch, sized here once for the tallest band, so that phase 2
// allocates nothing. Every buffer is a whole number of cache lines, so buffers and slots start
// on line boundaries of the workspace and no two workers write one line.
ScratchLayout SizeScratch(const ResampleProblem& problem, const CpuSchedule& schedule) {
  ScratchLayout scratch;
  switch (schedule.layout) {
    case Layout::kChannelsLast:
      scratch = ChannelsLastScratch(problem, schedule);
      break;
    case Layout::kInterleaved:
      scratch = InterleavedScratch(problem, schedule);
      break;
    case Layout::kPlanar:
      scratch = PlanarScratch(problem, schedule);
      break;
    case Layout::kPlaneGroups:
      scratch = PlaneGroupScratch(problem, schedule);
      break;
    case Layout::kCopy:
      break;  // no scratch
  }
  scratch.tile_floats = RoundUpToCacheLine(scratch.tile_floats);
  scratch.source_floats = RoundUpToCacheLine(scratch.source_floats);
  scratch.result_floats = RoundUpToCacheLine(scratch.result_floats);
  scratch.group_floats = RoundUpToCacheLine(scratch.group_floats);
  return scratch;
}

// No more slots than tasks: a slot no task can reach would only grow the workspace.
void SizeWorkspace(CpuSchedule* schedule, int64_t units, int num_threads) {
  schedule->num_tasks = units * static_cast<int64_t>(schedule->bands.size());
  schedule->num_slots = static_cast<int>(std::min<int64_t>(num_threads, schedule->num_tasks));
  schedule->workspace_bytes =
      static_cast<uint64_t>(schedule->num_slots) * schedule->scratch.slot_floats() * sizeof(float);
}

}  // namespace

uint64_t LastLevelCacheBytes() { return kernels::TuningForCpu().last_level_cache_bytes; }

uint64_t TrafficBytes(const PlaneView& source, const PlaneView& result, DType dtype) {
  // Unsigned, so that no shape can overflow into undefined behaviour here.
  const auto elements = [](const PlaneView& v) {
    return static_cast<uint64_t>(v.n) * static_cast<uint64_t>(v.c) * static_cast<uint64_t>(v.h) *
           static_cast<uint64_t>(v.w);
  };
  return (elements(source) + elements(result)) * DTypeSize(dtype);
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

Plan BuildPlan(ResampleProblem problem, int num_threads, PassOrder order) {
  Plan plan;
  plan.problem = std::move(problem);
  const ResampleProblem& p = plan.problem;
  CpuSchedule& schedule = plan.schedule;
  if (p.empty()) return plan;  // no tasks, no workspace
  num_threads = std::max(num_threads, 1);

  if (ShouldCopyPixels(p)) {
    schedule.layout = Layout::kCopy;
    schedule.channel_block = p.result.c;
    const int64_t units = p.result.n;
    schedule.bands = MakeBands(p.axis_h, ChooseBandCount(units, 0, p.axis_h, num_threads));
    schedule.stream_result = ShouldStreamResult(p, schedule);
    SizeWorkspace(&schedule, units, num_threads);
    return plan;
  }

  schedule.layout = ChooseLayout(p.source, p.result);
  int64_t w_row_steps = 0;  // planar only: channels-last W passes step over whole C-vectors
  if (schedule.layout == Layout::kChannelsLast) {
    schedule.channel_block = ChooseChannelBlock(p.result.c, std::max(p.result.w, p.source.w));
  } else if (schedule.layout == Layout::kPlaneGroups) {
    schedule.channel_block = static_cast<int64_t>(kernels::kPlaneGroup);
    schedule.source_plane_stride = FlatPlaneStride(p.source);
    schedule.result_plane_stride = FlatPlaneStride(p.result);
  } else {
    w_row_steps = ChooseWidthForm(p, &schedule);
    if (schedule.layout == Layout::kInterleaved) {
      schedule.channel_block = p.result.c;
      w_row_steps = ChoosePixelRowForm(p, w_row_steps, &schedule);
    }
  }
  schedule.h_pass_first = ChoosePassOrder(p, schedule.layout, order, w_row_steps);
  schedule.planar_path = ChoosePlanarPath(p, schedule.h_pass_first);
  if (schedule.layout == Layout::kPlanar) schedule.row_group = PlanarRowGroup(p, schedule);
  ChooseInPlaceRows(p, &schedule);
  if (schedule.layout == Layout::kPlaneGroups && schedule.result_planes_dense) {
    const int64_t group = static_cast<int64_t>(kernels::kPlaneGroup);
    schedule.group_window_pixels =
        std::min(p.result.h * p.result.w, kPlaneGroupStepRows * p.result.w + group - 1);
    schedule.group_source_window_rows = GroupSourceWindowRows(p, schedule);
  }
  if ((schedule.layout == Layout::kChannelsLast || schedule.layout == Layout::kPlaneGroups) &&
      schedule.h_pass_first) {
    schedule.group_h_rows = ShouldGroupHeightRows(p, schedule);
    schedule.pair_h_rows = !schedule.group_h_rows && ShouldPairHeightRows(p, schedule);
  }
  schedule.stream_result = ShouldStreamResult(p, schedule);
  schedule.tile_row_floats = TileRowFloats(p, schedule);
  schedule.source_from_memory = OutgrowsLastLevelCache(p);
  schedule.band_w_pass = ShouldBandWPass(p, schedule);
  const int64_t units = CountUnits(p, schedule);
  schedule.bands = PlanBands(p, schedule, units, num_threads);
  schedule.w_first_step_rows = WidthFirstStepRows(p, schedule);
  schedule.w_first_window_rows = WidthFirstWindowRows(p, schedule);
  schedule.converted_pixel_rows = ConvertedPixelRows(p, schedule);
  schedule.scratch = SizeScratch(p, schedule);
  SizeWorkspace(&schedule, units, num_threads);
  return plan;
}

Plan BuildPlan(DType dtype, const PlaneView& source, const PlaneView& result, AxisRuns axis_h,
               AxisRuns axis_w, int num_threads, PassOrder order) {
  return BuildPlan(ResampleProblem{dtype, source, result, std::move(axis_h), std::move(axis_w)},
                   num_threads, order);
}

}  // namespace aclnn_upsample
