// A plan is everything phase 2 needs, as plain data: where the two tensors live, the two
// backward axes, how the work is cut into independent tasks and how much workspace each
// worker slot owns. BuildPlan runs in phase 1; Execute (execute.h) only follows the plan.
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
  // Per (n, c) plane: W pass row by row into an H_out x W_in tile, then H pass row by row.
  kPlanar,
  // Channels contiguous in both tensors: both passes combine whole C-vectors.
  kChannelsLast,
};

// One task: a band of result rows [in_row_begin, in_row_end) of one plane (planar) or of one
// image and channel block (channels-last), needing gradOut rows [out_row_begin, out_row_end).
struct RowBand {
  int32_t in_row_begin, in_row_end;
  int32_t out_row_begin, out_row_end;
};

struct Plan {
  DType dtype = DType::kFloat32;
  Layout layout = Layout::kPlanar;
  // Which pass runs first. W first keeps an H_out x W_in intermediate; H first an H_in x W_out
  // one. Chosen from the shapes alone (never the thread count), by fewer vector steps.
  bool h_pass_first = false;
  PlaneView grad;    // gradOut: (N, C, H_out, W_out)
  PlaneView result;  // out:     (N, C, H_in, W_in)
  BackwardAxis axis_h;
  BackwardAxis axis_w;
  UniformInterior axis_w_uniform;    // planar W pass: the vectorised interior, if uniform
  PeriodicInterior axis_w_periodic;  // planar W pass: else the vectorised periodic interior
  BlockedAxis axis_w_blocked;        // planar W pass: vectorised form otherwise (may be empty)
  std::vector<RowBand> bands;        // the row bands of one plane, in order
  int64_t channel_block = 1;         // channels-last: channels per task
  // Channels-last H first: the H pass combines consecutive rows in pairs (two rows of scratch).
  bool pair_h_rows = false;
  // float32 results written by the channels-last W pass bypass the caches (kernels.h,
  // ResultStores): set where the call moves more than kStreamedResultMinTraffic.
  bool stream_result = false;
  int64_t num_tasks = 0;  // planes (or image x channel block) x bands
  int num_slots = 1;      // worker slots, each with its own scratch
  // Scratch per slot, in floats: the intermediate tile, source rows converted to float, and
  // result rows in float before conversion.
  size_t tile_floats = 0;
  size_t source_floats = 0;
  size_t result_floats = 0;
  size_t slot_floats = 0;
  uint64_t workspace_bytes = 0;

  bool empty() const { return num_tasks == 0; }
};

// Which pass goes first: the cheaper (the library's choice), or forced (for tests and
// benchmarks). A forced H-first is ignored on a planar plan with an identity axis, whose
// passes are skipped instead.
enum class PassOrder : uint8_t { kCheapest, kWidthFirst, kHeightFirst };

// Builds the plan; `num_threads` is the parallelism phase 2 will use (>= 1).
Plan BuildPlan(DType dtype, const PlaneView& grad, const PlaneView& result, BackwardAxis axis_h,
               BackwardAxis axis_w, int num_threads, PassOrder order = PassOrder::kCheapest);

// Bytes a problem moves: gradOut read once plus the result written once.
uint64_t TrafficBytes(const PlaneView& grad, const PlaneView& result, DType dtype);

// The number of threads to run a problem that moves `traffic_bytes` (gradOut read plus result
// written) with: the embedding's SetThreadCountOverride if set (engine/thread_control.h), else
// ACLNN_UPSAMPLE_NUM_THREADS if set to a positive integer, honoured exactly;
// else the cores this process may use (an external team's size where one is set), but no more
// than one per kMinBytesPerThread of traffic, since waking a worker costs more than it saves on
// a small share of work.
int ThreadCountFor(uint64_t traffic_bytes);

// Traffic below which a default-sized run gives no further worker a share: on the 2-core
// development VM a 320 KB problem ran no faster on 2 threads than on 1 (median), a 1.3 MB one
// 20-25 % faster.
inline constexpr uint64_t kMinBytesPerThread = uint64_t{512} << 10;

// Traffic (gradOut read plus result written) above which a result is written with streaming
// stores, skipping the read-for-ownership of every result line: a sixth of a channels-last 2x
// backward's traffic, a quarter of a 1.5x one's. The cost would be a next reader that finds the
// result in cache no longer; on the development VM (32 MiB L3) a sum over the result right after
// the call ran as fast after streamed stores as after cached ones from 20 MiB of traffic up,
// while the calls were 5-15 % faster (bench/RESULTS.md). Smaller calls keep their results cached.
inline constexpr uint64_t kStreamedResultMinTraffic = uint64_t{16} << 20;

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_ENGINE_PLAN_H_
