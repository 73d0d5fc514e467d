// A plan is everything phase 2 needs, as plain data, in two parts: the problem (what to compute:
// the two tensors and the two 1-D matrices, backend-neutral) and this CPU engine's schedule
// (how: layout, pass order, vector forms, bands, scratch and slots). BuildPlan runs in phase 1;
// Execute (execute.h) only follows the plan.
#ifndef ACLNN_UPSAMPLE_ENGINE_PLAN_H_
#define ACLNN_UPSAMPLE_ENGINE_PLAN_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/axis_weights.h"
#include "engine/dtype.h"

namespace aclnn_upsample {

// A 4-D view in logical (N, C, H, W) order; strides count elements and are non-negative.
struct PlaneView {
  char* data = nullptr;  // address of element (0, 0, 0, 0)
  int64_t n = 0, c = 0, h = 0, w = 0;
  int64_t stride_n = 0, stride_c = 0, stride_h = 0, stride_w = 0;
};

// How the two separable passes are laid over memory.
enum class Layout : uint8_t {
  // Per (n, c) plane: a W pass row by row and an H pass row by row (PlanarPath says in which
  // order, through which scratch).
  kPlanar,
  // Channels contiguous in both tensors: both passes combine whole C-vectors.
  kChannelsLast,
  // Few channels (2 to 7: RGB, RGBA images and a few more), contiguous, with pixels back to back
  // in both tensors: the H pass combines whole rows of pixels; the W pass deinterleaves a row
  // into one planar row per channel, gathers them with the planar W forms and interleaves the
  // result.
  kInterleaved,
  // Many small planes (feature maps of 4x4 to 32x32, NCHW): a task takes a group of
  // kernels::kPlaneGroup planes, transposes them into pixels of that many channels in scratch,
  // runs the channels-last passes on them (one whole vector per pixel, where a planar row would
  // be shorter than a few vectors) and transposes the result back into its planes.
  kPlaneGroups,
  // Every result element one source element or zero (nearest: runs of one tap of weight 1, or
  // none, on both axes), with channels contiguous in both tensors, at least kMinCopiedChannels
  // of them: a task copies the pixels of a band of rows of one image, bit for bit,
  // with no passes, no arithmetic and no scratch.
  kCopy,
};

// The fewest channels kCopy takes (pixels of 8 bytes or more in every dtype). Fewer stay on the
// interleaved passes, whose vectors span several pixels: copied pixel by pixel, RGB float32 ran
// 1.3-1.6x slower (12-byte pixels as two overlapping 8-byte copies), two float32 channels 1.3x,
// and 16-bit RGB, copied a byte at a time (no vector form below 8 bytes), 3x; from four channels
// up copies won in every dtype (bfloat16 RGBA 0.63 of the passes' time, 16-bit C = 5-7, which ran
// as planes read with a stride of C, 0.14-0.26).
inline constexpr int64_t kMinCopiedChannels = 4;

// The planar passes, in the order they run.
enum class PlanarPath : uint8_t {
  kWidthOnly,    // H is the identity: each result row is the W pass of its source row
  kWidthFirst,   // W pass into a (source rows x result width) tile, then the H pass
  kHeightFirst,  // H pass a row group at a time, then the W pass of the group
};

// One task: a band of result rows [result_row_begin, result_row_end) of one plane (planar) or
// of one image and channel block (channels-last), needing source rows
// [source_row_begin, source_row_end).
struct RowBand {
  int32_t result_row_begin, result_row_end;
  int32_t source_row_begin, source_row_end;
};

// What to compute, whatever computes it: the tensor read (gradOut for a backward operator, the
// image for a forward one), the tensor written, their dtype, and the two 1-D matrices as gather
// runs. A backend that is not this CPU engine would take this and make its own schedule.
struct ResampleProblem {
  DType dtype = DType::kFloat32;
  PlaneView source;
  PlaneView result;
  AxisRuns axis_h;
  AxisRuns axis_w;

  bool empty() const { return result.n == 0 || result.c == 0; }
};

// A slot's scratch, in floats, as four consecutive buffers, each a whole number of cache lines:
// the intermediate tile, source rows converted to float, result rows in float before
// conversion, and (plane groups only) the group's source and result pixels.
struct ScratchLayout {
  size_t tile_floats = 0;
  size_t source_floats = 0;
  size_t result_floats = 0;
  size_t group_floats = 0;
  size_t slot_floats() const { return tile_floats + source_floats + result_floats + group_floats; }
};

// How this CPU engine computes a problem: every choice phase 2 follows, made once here so that
// execute.cc never decides anything of its own (and the scratch sized here is the scratch it
// uses: a debug build checks every access against this layout). Chosen from the shapes alone,
// never the thread count, except the bands and slots, which change no rounding.
struct CpuSchedule {
  Layout layout = Layout::kPlanar;
  // Which pass runs first. W first keeps a (source rows x result width) intermediate; H first a
  // (result rows x source width) one. The cheaper by vector steps.
  bool h_pass_first = false;
  PlanarPath planar_path = PlanarPath::kWidthFirst;  // planar only
  UniformInterior w_uniform;    // planar W pass: the vectorised interior, if uniform
  PeriodicInterior w_periodic;  // planar W pass: else the vectorised periodic interior
  // Interleaved W pass: w_periodic indexes elements of pixel rows (FindPeriodicInterior with the
  // channels), and the pixel rows are gathered as they are, without planar rows in scratch.
  bool w_periodic_pixels = false;
  // Interleaved W first from 16-bit pixel rows: the rows converted to float32 in scratch for one
  // W-pass call (several where the W pass gathers pixel rows in place, whose per-call layout is
  // then worked out once per group, else 1; plan.cc, ConvertedPixelRows).
  int64_t converted_pixel_rows = 1;
  BlockedAxis w_blocked;  // planar W pass: vectorised form otherwise (may be empty)
  // Planar W pass, where none of the forms above is kept: the runs by tap for the gathered form
  // (kernels::GatherAxis::gathered_taps; empty on one lane, or for runs of more than
  // kMaxGatheredTaps taps).
  TapTable w_taps;
  // Where rows are read and written without a copy through scratch:
  bool source_rows_float_in_place = false;   // float32 source rows with unit column stride
  bool source_rows_native_in_place = false;  // source rows of any dtype with unit column stride,
                                             // converted in registers (the planar H-first pass)
  bool result_rows_float_in_place = false;   // float32 result rows with unit column stride
  bool result_rows_native_in_place = false;  // result rows of any dtype with unit column stride,
                                             // rounded in registers (the planar W-first H pass)
  // Channels-last: a task's pixels are back to back in a row (all channels, no padding), so a
  // whole row converts or stores as one vector.
  bool source_pixels_dense = false;
  bool result_pixels_dense = false;
  // W first: floats from one row of the tile of W-pass rows to the next, at least a row's
  // (result width x channel block), in whole cache lines where the results stream or round to
  // bfloat16 (plan.cc, TileRowFloats); 0 where there is no such tile.
  int64_t tile_row_floats = 0;
  std::vector<RowBand> bands;  // the row bands of one plane, in order
  int64_t channel_block = 1;   // channels-last: channels per task; plane groups: kPlaneGroup
  // Plane groups: elements from one plane to the next (plane q is image q / C, channel q % C),
  // the same across the whole tensor.
  int64_t source_plane_stride = 0, result_plane_stride = 0;
  // A plane's rows are back to back (unit column stride, no row padding), so a run of whole rows
  // is one run of elements: a plane group transposes in one call per direction, and a planar
  // task converts or rounds a row group in one call, rather than one per row.
  bool source_planes_dense = false, result_planes_dense = false;
  // Plane groups with dense result planes: the pixels of the window a step's result rows go
  // through (its rows and the pixels short of a whole vector of planes that the step before
  // left), at most the whole result plane; 0 otherwise (the whole result's pixels).
  int64_t group_window_pixels = 0;
  // Plane groups H first, result planes dense: the source pixel rows a step's transpose writes
  // into before the rows still to be read move to the front of the group's source pixels
  // (execute.cc, PlaneGroupTask); 0 transposes the whole source first (plan.cc,
  // GroupSourceWindowRows).
  int64_t group_source_window_rows = 0;
  // Planar: rows handed from one pass to the other at once (plan.cc, PlanarRowGroup).
  int64_t row_group = 0;
  // Planar W first, result rows in place: the W pass fills the tile this many rows at a time,
  // each step followed by the H pass of every result row it completes, so that those rows are
  // read back from L1; 0 runs the whole band's W pass first (plan.cc, WidthFirstStepRows).
  int64_t w_first_step_rows = 0;
  // Planar W first in steps: the tile rows the steps fill before the rows still to be read are
  // moved back to the tile's front, so that the W pass writes into the same few lines over and
  // over; 0 fills the whole band's tile (plan.cc, WidthFirstWindowRows).
  int64_t w_first_window_rows = 0;
  // Channels-last H first: the H pass combines consecutive rows in pairs (two rows of scratch).
  bool pair_h_rows = false;
  // Channels-last H first with paired rows, float32 pixels of one or two whole vectors stored
  // cached (the plane groups' among them): the W pass takes kHeightGroupRows H-pass rows per call,
  // a result pixel at a time down them (kernels::GatherPixelBand), instead of a row per call.
  bool band_w_pass = false;
  // Channels-last H first over dense pixel rows whose runs span more than L1 holds: the H pass
  // combines kHeightGroupRows result rows at a time, a column chunk at a time, instead of pairs.
  bool group_h_rows = false;
  // Results written straight into the tensor by the last pass bypass the caches (kernels.h,
  // ResultStores): set where the call moves more than kStreamedResultMinTraffic (and, for results
  // smaller than their source and the planar H-first pass, more than LastLevelCacheBytes) and
  // the last pass writes result rows in place, in the dtypes its kernel streams (plan.cc,
  // ShouldStreamResult).
  bool stream_result = false;
  // Whether the call moves more than the last-level cache holds (LastLevelCacheBytes), so that
  // its source comes from memory: the kernels may prefetch it differently (kernels::SourceReads).
  bool source_from_memory = false;
  int64_t num_tasks = 0;  // planes (or image x channel block, or plane groups) x bands
  int num_slots = 1;      // worker slots, each with its own scratch
  ScratchLayout scratch;
  uint64_t workspace_bytes = 0;
};

// `floats` rounded up to whole 64-byte cache lines (16 floats each).
inline constexpr size_t RoundUpToCacheLine(size_t floats) { return (floats + 15) / 16 * 16; }

// The interleaved H-first pass, and the channels-last one where it groups its rows
// (CpuSchedule::group_h_rows), combine kHeightGroupRows result rows per call
// (kernels::CombineRowGroupFrom) into float rows HeightGroupRowFloats(source row floats) apart,
// whole cache lines each.
inline constexpr size_t kHeightGroupRows = 4;
inline constexpr size_t HeightGroupRowFloats(size_t n) { return RoundUpToCacheLine(n); }

// Channels-last H first without groups: the H-pass rows held for one W-pass call (execute.cc,
// RunHFirst), rows of source width x channels floats back to back in scratch.
inline int64_t HeldHeightRows(const CpuSchedule& schedule) {
  if (schedule.band_w_pass) return static_cast<int64_t>(kHeightGroupRows);
  return schedule.pair_h_rows ? 2 : 1;
}

struct Plan {
  ResampleProblem problem;
  CpuSchedule schedule;

  bool empty() const { return schedule.num_tasks == 0; }
};

// Which pass goes first: the cheaper (the library's choice), or forced (for tests and
// benchmarks). A forced H-first is ignored on a planar plan with an identity axis, whose
// passes are skipped instead.
enum class PassOrder : uint8_t { kCheapest, kWidthFirst, kHeightFirst };

// Schedules `problem` for this CPU; `num_threads` is the parallelism phase 2 will use (>= 1).
Plan BuildPlan(ResampleProblem problem, int num_threads, PassOrder order = PassOrder::kCheapest);

// The same from its parts.
Plan BuildPlan(DType dtype, const PlaneView& source, const PlaneView& result, AxisRuns axis_h,
               AxisRuns axis_w, int num_threads, PassOrder order = PassOrder::kCheapest);

// Bytes a problem moves: the source read once plus the result written once.
uint64_t TrafficBytes(const PlaneView& source, const PlaneView& result, DType dtype);

// The size of this CPU's last-level cache in bytes, or 0 where the system does not say: the
// tuning's (kernels::KernelTuning::last_level_cache_bytes).
uint64_t LastLevelCacheBytes();

// The number of threads to run a problem that moves `traffic_bytes` (source read plus result
// written) with: the embedding's SetThreadCountOverride if set (engine/thread_control.h), else
// ACLNN_UPSAMPLE_NUM_THREADS if set to a positive integer, honoured exactly;
// else the cores this process may use (an external team's size where one is set), but no more
// than one per kMinBytesPerThread of traffic, since waking a worker costs more than it saves on
// a small share of work.
int ThreadCountFor(uint64_t traffic_bytes);

// Traffic below which a default-sized run gives no further worker a share. On the 2-core
// development VM, with the pool's workers watching for calls (thread_pool.cc), problems of
// 125-250 KB ran about as fast on 2 threads as on 1 (one 245 KB forward 1.5x faster), 500 KB
// ones 1.7-2.1x faster and a 1 MB one (case 46) 1.5x (medians of 5 solo runs). With a worker
// woken through the kernel each call, 512 KiB had been the break-even.
inline constexpr uint64_t kMinBytesPerThread = uint64_t{128} << 10;

// Plane groups run their result rows in steps of kPlaneGroupStepRows (execute.cc,
// PlaneGroupTask), each step's pixels transposed into the planes right after it. Steps of 2 and
// 8 rows ran 2-5 % slower than 4 (bench/RESULTS.md, session 25), and 8 again, 2-5 %, once the
// steps' pixels went through a window of one step (session 26).
inline constexpr int64_t kPlaneGroupStepRows = 4;

// Traffic (source read plus result written) above which a result is written with streaming
// stores, skipping the read-for-ownership of every result line: a sixth of a channels-last 2x
// backward's traffic, a quarter of a 1.5x one's. The cost would be a next reader that finds the
// result in cache no longer; on the development VM (32 MiB L3) a sum over the result right after
// the call ran as fast after streamed stores as after cached ones from 20 MiB of traffic up,
// while the calls were 5-15 % faster (bench/RESULTS.md). Smaller calls keep their results cached.
inline constexpr uint64_t kStreamedResultMinTraffic = uint64_t{16} << 20;

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_ENGINE_PLAN_H_
