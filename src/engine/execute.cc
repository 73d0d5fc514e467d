#include "engine/execute.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "engine/gather_view.h"
#include "engine/thread_pool.h"
#include "kernels/kernels.h"

namespace aclnn_upsample {
namespace {

using kernels::CombineRowPairFrom;
using kernels::CombineRowRunsTo;
using kernels::CombineRows;
using kernels::CombineRowsFrom;
using kernels::CombineThenGatherRows;
using kernels::GatherAxis;
using kernels::GatherPixelBand;
using kernels::GatherPixels;
using kernels::GatherPixelsRounded;
using kernels::GatherRows;
using kernels::LoadAsFloat;
using kernels::ResultStores;
using kernels::RowRuns;
using kernels::StoreFromFloat;

// Element address of a view; offsets in elements.
inline char* At(const PlaneView& view, size_t elem, int64_t n, int64_t c, int64_t h, int64_t w) {
  return view.data +
         (n * view.stride_n + c * view.stride_c + h * view.stride_h + w * view.stride_w) *
             static_cast<int64_t>(elem);
}

// One buffer of a slot's scratch, as the plan sized it. Every access goes through Span, which a
// debug build checks against the buffer's size: the plan decides which buffers a path uses and
// how large they are, and a path that used more than the plan reserved would silently overrun
// the next buffer or the next worker's slot.
class ScratchBuffer {
 public:
  ScratchBuffer(float* data, size_t floats) : data_(data), floats_(floats) {}

  // Floats [begin, begin + count) of the buffer.
  float* Span(size_t begin, size_t count) const {
    assert(begin + count <= floats_ && "scratch access outside the buffer the plan sized");
    (void)count;
    return data_ + begin;
  }

 private:
  float* data_;
  size_t floats_;
};

struct Scratch {
  ScratchBuffer tile;
  ScratchBuffer source;
  ScratchBuffer result;
  ScratchBuffer group;
};

Scratch SlotScratch(const CpuSchedule& schedule, void* workspace, int slot) {
  const ScratchLayout& layout = schedule.scratch;
  float* const tile =
      static_cast<float*>(workspace) + static_cast<size_t>(slot) * layout.slot_floats();
  float* const source = tile + layout.tile_floats;
  float* const result = source + layout.source_floats;
  float* const group = result + layout.result_floats;
  return Scratch{
      ScratchBuffer(tile, layout.tile_floats), ScratchBuffer(source, layout.source_floats),
      ScratchBuffer(result, layout.result_floats), ScratchBuffer(group, layout.group_floats)};
}

GatherAxis WidthGather(const Plan& plan) {
  const CpuSchedule& schedule = plan.schedule;
  return MakeGatherAxis(plan.problem.axis_w, &schedule.w_uniform, &schedule.w_blocked,
                        &schedule.w_periodic, &schedule.w_taps);
}

// How a last pass that writes result rows in place stores them: streamed where the plan asks
// (plan.cc, ShouldStreamResult). Execute flushes once a task ends.
ResultStores InPlaceResultStores(const CpuSchedule& schedule) {
  return schedule.stream_result ? ResultStores::kStreamed : ResultStores::kCached;
}

// Where a pass's source rows come from, as the plan expects (CpuSchedule::source_from_memory).
kernels::SourceReads SourceReadsOf(const CpuSchedule& schedule) {
  return schedule.source_from_memory ? kernels::SourceReads::kFromMemory
                                     : kernels::SourceReads::kFromCache;
}

// Where the H pass of result row `hi` starts reading, in rows past the band's first row `row0`
// (0 for an empty run, which reads nothing).
int64_t RunRowOffset(const AxisRuns& axis, int64_t hi, int64_t row0) {
  return axis.count(hi) > 0 ? axis.first[hi] - row0 : 0;
}

// Where that run ends, in rows past `row0`: the rows result row `hi` reads all lie before it (0
// for an empty run).
int64_t RunRowEnd(const AxisRuns& axis, int64_t hi, int64_t row0) {
  return axis.count(hi) > 0 ? axis.first[hi] + axis.count(hi) - row0 : 0;
}

// A window over a longer run of rows, row *front at its first: moves rows [keep, end) (those
// still to be read) to the window's front where that frees any rows (keep past *front; an empty
// run's offset, 0, frees none).
void MoveRowsToFront(float* window, int64_t row_floats, int64_t keep, int64_t end, int64_t* front) {
  if (keep <= *front || keep > end) return;
  std::memmove(window, window + (keep - *front) * row_floats,
               static_cast<size_t>((end - keep) * row_floats) * sizeof(float));
  *front = keep;
}

// The H runs as the row kernels take them.
RowRuns HeightRuns(const AxisRuns& axis) {
  return RowRuns{axis.first.data(), axis.weight_offset.data(), axis.weights.data()};
}

class PlanarTask {
 public:
  PlanarTask(const Plan& plan, void* workspace, int64_t task, int slot)
      : problem_(plan.problem),
        schedule_(plan.schedule),
        elem_(DTypeSize(problem_.dtype)),
        band_(schedule_.bands[task % static_cast<int64_t>(schedule_.bands.size())]),
        n_(task / static_cast<int64_t>(schedule_.bands.size()) / problem_.result.c),
        c_(task / static_cast<int64_t>(schedule_.bands.size()) % problem_.result.c),
        result_w_(problem_.result.w),
        source_w_(problem_.source.w),
        tile_row_(schedule_.tile_row_floats),
        scratch_(SlotScratch(schedule_, workspace, slot)),
        gather_(WidthGather(plan)),
        source_direct_(schedule_.source_rows_float_in_place),
        result_direct_(schedule_.result_rows_float_in_place) {}

  void Run() {
    switch (schedule_.planar_path) {
      case PlanarPath::kHeightFirst:
        return RunHFirst();
      case PlanarPath::kWidthOnly:
        return RunWOnly();
      case PlanarPath::kWidthFirst:
        return RunWFirst();
    }
  }

 private:
  char* SourceRow(int64_t ho) const { return At(problem_.source, elem_, n_, c_, ho, 0); }
  char* ResultRow(int64_t hi) const { return At(problem_.result, elem_, n_, c_, hi, 0); }

  // Source row `ho` as contiguous floats, converted into the source scratch only when it has to
  // be.
  const float* SourceRowAsFloat(int64_t ho) const {
    if (source_direct_) return reinterpret_cast<const float*>(SourceRow(ho));
    float* const buffer = scratch_.source.Span(0, source_w_);
    LoadAsFloat(problem_.dtype, SourceRow(ho), problem_.source.stride_w, source_w_, buffer);
    return buffer;
  }

  // The W pass of one float row into `dst`.
  void WPassRow(const float* src, float* dst) const {
    if (problem_.axis_w.identity) {
      std::memcpy(dst, src, static_cast<size_t>(result_w_) * sizeof(float));
    } else {
      GatherRows(gather_, 1, src, 0, dst, 0);
    }
  }

  void StoreResultRow(int64_t hi, const float* row) const {
    StoreFromFloat(problem_.dtype, row, result_w_, ResultRow(hi), problem_.result.stride_w);
  }

  // Source rows [ho, ho + count) as float rows source_w apart, in one call where the tensor's
  // rows are back to back.
  void LoadSourceRows(int64_t ho, int64_t count, float* rows) const {
    if (schedule_.source_planes_dense) {
      LoadAsFloat(problem_.dtype, SourceRow(ho), 1, count * source_w_, rows);
      return;
    }
    for (int64_t r = 0; r < count; ++r) {
      LoadAsFloat(problem_.dtype, SourceRow(ho + r), problem_.source.stride_w, source_w_,
                  rows + r * source_w_);
    }
  }

  // H is the identity: each result row is the W pass of the source row of the same index.
  void RunWOnly() {
    if (source_direct_ && result_direct_ && !problem_.axis_w.identity) {
      GatherRows(gather_, band_.result_row_end - band_.result_row_begin,
                 reinterpret_cast<const float*>(SourceRow(band_.result_row_begin)),
                 problem_.source.stride_h,
                 reinterpret_cast<float*>(ResultRow(band_.result_row_begin)),
                 problem_.result.stride_h);
      return;
    }
    for (int64_t hi = band_.result_row_begin; hi < band_.result_row_end; ++hi) {
      const float* src = SourceRowAsFloat(hi);
      if (problem_.axis_w.identity) {
        StoreResultRow(hi, src);
        continue;
      }
      float* dst = result_direct_ ? reinterpret_cast<float*>(ResultRow(hi))
                                  : scratch_.result.Span(0, result_w_);
      WPassRow(src, dst);
      if (!result_direct_) StoreResultRow(hi, dst);
    }
  }

  // W pass of the band's source rows into the tile (source rows x result width), then the H pass;
  // in turns where the plan steps (CpuSchedule::w_first_step_rows).
  void RunWFirst() {
    const int64_t row0 = band_.source_row_begin,
                  rows = band_.source_row_end - band_.source_row_begin;
    const float* tile = nullptr;
    ptrdiff_t stride = tile_row_;
    float* tile_rows = nullptr;
    if (problem_.axis_w.identity && source_direct_) {
      tile = reinterpret_cast<const float*>(SourceRow(row0));  // the source's own rows
      stride = problem_.source.stride_h;
    } else {
      tile_rows = scratch_.tile.Span(0, rows * tile_row_);
      tile = tile_rows;
    }
    int64_t front = 0;  // the band's source row (from row0) at the tile's first row
    // Tile rows [begin, end) from the source, unless the tile is the source itself.
    const auto w_pass = [&](int64_t begin, int64_t end) {
      if (tile_rows == nullptr || begin >= end) return;
      if (source_direct_) {
        GatherRows(gather_, static_cast<size_t>(end - begin),
                   reinterpret_cast<const float*>(SourceRow(row0 + begin)),
                   problem_.source.stride_h, tile_rows + (begin - front) * tile_row_, tile_row_);
      } else if (problem_.axis_w.identity) {
        for (int64_t r = begin; r < end; ++r) {
          LoadAsFloat(problem_.dtype, SourceRow(row0 + r), problem_.source.stride_w, source_w_,
                      tile_rows + (r - front) * tile_row_);
        }
      } else {
        // A row group at a time, so the W pass shares its weight loads across rows as it does
        // on float rows read in place.
        const int64_t group_rows = schedule_.row_group;
        for (int64_t r0 = begin; r0 < end; r0 += group_rows) {
          const int64_t group = std::min(group_rows, end - r0);
          float* const source_rows = scratch_.source.Span(0, group * source_w_);
          LoadSourceRows(row0 + r0, group, source_rows);
          GatherRows(gather_, static_cast<size_t>(group), source_rows, source_w_,
                     tile_rows + (r0 - front) * tile_row_, tile_row_);
        }
      }
    };
    const AxisRuns& ax_h = problem_.axis_h;
    if (schedule_.result_rows_native_in_place) {
      const auto runs = HeightRuns(ax_h);
      const auto h_pass = [&](int64_t begin, int64_t end) {
        CombineRowRunsTo(runs, static_cast<size_t>(begin), static_cast<size_t>(end), tile, stride,
                         static_cast<size_t>(row0 + front), static_cast<size_t>(result_w_),
                         problem_.dtype, ResultRow(begin), problem_.result.stride_h,
                         InPlaceResultStores(schedule_));
      };
      const int64_t end = band_.result_row_end, step = schedule_.w_first_step_rows;
      if (step == 0 || tile_rows == nullptr) {
        w_pass(0, rows);
        h_pass(band_.result_row_begin, end);
        return;
      }
      const int64_t window = schedule_.w_first_window_rows;
      int64_t done = 0;
      for (int64_t hi = band_.result_row_begin; hi < end;) {
        const int64_t target = std::min(rows, done + step);
        if (window > 0 && target - front > window) {
          // The runs start in order (plan.cc, WidthFirstWindowRows): rows before hi's first one
          // are read no more. Where no row can go, the step runs on into the whole band's tile.
          MoveRowsToFront(tile_rows, tile_row_, RunRowOffset(ax_h, hi, row0), done, &front);
        }
        w_pass(done, target);
        done = target;
        int64_t step_end = hi;
        while (step_end < end && RunRowEnd(ax_h, step_end, row0) <= done) ++step_end;
        if (step_end > hi) h_pass(hi, step_end);
        hi = step_end;
      }
      return;
    }
    w_pass(0, rows);
    for (int64_t hi = band_.result_row_begin; hi < band_.result_row_end; ++hi) {
      const float* const rows = tile + RunRowOffset(ax_h, hi, row0) * stride;
      const float* const weights = ax_h.weights.data() + ax_h.weight_offset[hi];
      float* const dst = scratch_.result.Span(0, result_w_);
      CombineRows(dst, result_w_, rows, stride, weights, ax_h.count(hi));
      StoreResultRow(hi, dst);
    }
  }

  // H pass then W pass, a row group at a time, straight to the result when it is float32 rows
  // of unit column stride (else a group at a time through float rows in scratch). source rows
  // with unit column stride are read in place, in any dtype (converted in registers); others
  // are converted into the tile first.
  void RunHFirst() {
    const int64_t row0 = band_.source_row_begin;
    DType rows_dtype = DType::kFloat32;
    const void* rows = nullptr;
    ptrdiff_t stride = source_w_;
    if (schedule_.source_rows_native_in_place) {
      rows_dtype = problem_.dtype;
      rows = SourceRow(row0);
      stride = problem_.source.stride_h;
    } else {
      const int64_t band_rows = band_.source_row_end - row0;
      float* const tile = scratch_.tile.Span(0, band_rows * source_w_);
      LoadSourceRows(row0, band_rows, tile);
      rows = tile;
    }
    const auto group = static_cast<size_t>(schedule_.row_group);
    float* const group_rows = scratch_.source.Span(0, group * kernels::GroupRowFloats(source_w_));
    const RowRuns runs = HeightRuns(problem_.axis_h);
    const auto begin = static_cast<size_t>(band_.result_row_begin);
    const auto end = static_cast<size_t>(band_.result_row_end);
    // Float32 rows of unit column stride are written in place by the W pass, cached; others, and
    // streamed results, go through a row group in scratch (kernels::RowGroupResult).
    const ResultStores stores = InPlaceResultStores(schedule_);
    kernels::RowGroupResult result{ResultRow(band_.result_row_begin),
                                   problem_.result.stride_h,
                                   problem_.result.stride_w,
                                   problem_.dtype,
                                   nullptr,
                                   stores};
    if (!result_direct_ || stores == ResultStores::kStreamed) {
      result.staging = scratch_.result.Span(0, group * result_w_);
    }
    CombineThenGatherRows(runs, begin, end, group, rows_dtype, rows, stride, row0,
                          SourceReadsOf(schedule_), gather_, group_rows, result);
  }

  const ResampleProblem& problem_;
  const CpuSchedule& schedule_;
  const size_t elem_;
  const RowBand& band_;
  const int64_t n_, c_;
  const int64_t result_w_, source_w_;
  const int64_t tile_row_;  // W first: floats from one tile row to the next
  const Scratch scratch_;
  const GatherAxis gather_;
  const bool source_direct_, result_direct_;
};

// The H pass of a band's result rows over whole rows of `row_floats` source elements (source
// row o at `source` + o * source_stride elements, in `dtype`), kHeightGroupRows result rows per
// kernels::CombineRowGroupFrom call into `rows` (HeightGroupRowFloats(row_floats) apart), then
// group_pass(begin, count) for the group's result rows [begin, begin + count).
template <class GroupPass>
void CombineHeightGroupsThen(const AxisRuns& axis_h, const RowBand& band, DType dtype,
                             const void* source, ptrdiff_t source_stride, size_t row_floats,
                             float* rows, GroupPass group_pass) {
  const size_t row_stride = HeightGroupRowFloats(row_floats);
  const RowRuns runs = HeightRuns(axis_h);
  const auto end = static_cast<size_t>(band.result_row_end);
  for (auto begin = static_cast<size_t>(band.result_row_begin); begin < end;
       begin += kHeightGroupRows) {
    const size_t group_end = std::min(end, begin + kHeightGroupRows);
    kernels::CombineRowGroupFrom(runs, begin, group_end, dtype, source, source_stride, 0,
                                 row_floats, rows, static_cast<ptrdiff_t>(row_stride),
                                 std::min(end, group_end + kHeightGroupRows));
    group_pass(static_cast<int64_t>(begin), static_cast<int64_t>(group_end - begin));
  }
}

// The same with w_pass(hi, row) for each row of each group.
template <class WPass>
void CombineHeightGroups(const AxisRuns& axis_h, const RowBand& band, DType dtype,
                         const void* source, ptrdiff_t source_stride, size_t row_floats,
                         float* rows, WPass w_pass) {
  const size_t row_stride = HeightGroupRowFloats(row_floats);
  CombineHeightGroupsThen(axis_h, band, dtype, source, source_stride, row_floats, rows,
                          [&](int64_t begin, int64_t count) {
                            for (int64_t r = 0; r < count; ++r) {
                              w_pass(begin + r, rows + static_cast<size_t>(r) * row_stride);
                            }
                          });
}

// What one channels-last task computes: a band of rows of `width` channels from c0 of image n,
// read from `source` and written to `result` in `dtype` (the tensors, or for a plane group its
// float32 pixels in scratch), the in-place result rows stored as `stores` says.
struct ChannelsLastWork {
  DType dtype;
  const PlaneView* source;
  const PlaneView* result;
  const RowBand* band;
  int64_t n, c0, width;
  ResultStores stores;
};

// Channels contiguous in both tensors: both passes combine whole C-vectors. Scratch rows hold
// `width` floats per pixel, densely.
class ChannelsLastTask {
 public:
  ChannelsLastTask(const Plan& plan, const ChannelsLastWork& work, const Scratch& scratch)
      : axis_h_(plan.problem.axis_h),
        schedule_(plan.schedule),
        dtype_(work.dtype),
        source_(*work.source),
        result_(work.result),
        elem_(DTypeSize(work.dtype)),
        scratch_(scratch),
        band_(work.band),
        n_(work.n),
        c0_(work.c0),
        width_(work.width),
        f32_(work.dtype == DType::kFloat32),
        result_w_(work.result->w),
        source_w_(work.source->w),
        stores_(work.stores),
        rounds_in_registers_(
            !f32_ && kernels::RoundsPixelsInRegisters(work.dtype, static_cast<size_t>(work.width))),
        gather_(WidthGather(plan)) {
    gather_.block_lanes = 0;  // pixels, not scalars, are gathered here
    gather_.gathered_taps = 0;
    gather_.uniform_stride = 0;
  }

  // Task `task` of a channels-last plan: image x channel block x band, on the tensors.
  static void RunTask(const Plan& plan, void* workspace, int64_t task, int slot) {
    const CpuSchedule& schedule = plan.schedule;
    const int64_t num_bands = static_cast<int64_t>(schedule.bands.size());
    const int64_t block = schedule.channel_block;
    const int64_t num_blocks = (plan.problem.result.c + block - 1) / block;
    const int64_t unit = task / num_bands;
    const int64_t c0 = (unit % num_blocks) * block;
    const ChannelsLastWork work{plan.problem.dtype,
                                &plan.problem.source,
                                &plan.problem.result,
                                &schedule.bands[task % num_bands],
                                unit / num_blocks,
                                c0,
                                std::min(block, plan.problem.result.c - c0),
                                InPlaceResultStores(schedule)};
    ChannelsLastTask(plan, work, SlotScratch(schedule, workspace, slot)).Run();
  }

  void Run() { RunRows(band_->result_row_begin, band_->result_row_end); }

  // The result rows from `first_row` on go to `rows`, row first_row at its first row, instead of
  // the work's result view (the plane groups' step window).
  void RedirectResultRows(const PlaneView* rows, int64_t first_row) {
    result_ = rows;
    result_row0_ = first_row;
  }

  // Source rows from `first_row` on are read from the work's source view, row first_row at its
  // first row (the plane groups' source window).
  void RedirectSourceRows(int64_t first_row) { source_row0_ = first_row; }

  // Run() in steps, for a caller that uses each step's result rows at once (the plane groups):
  // RunRows over the band's result rows in order, in any steps. W first, the first step runs the
  // W pass of the whole band; H first, each row starts from the source.
  void RunRows(int64_t begin, int64_t end) {
    RowBand rows = *band_;
    rows.result_row_begin = static_cast<int32_t>(begin);
    rows.result_row_end = static_cast<int32_t>(end);
    if (schedule_.h_pass_first) {
      RunHFirst(rows);
    } else {
      if (!tile_filled_) RunWPassIntoTile();
      tile_filled_ = true;
      RunHPassFromTile(rows);
    }
  }

 private:
  char* SourcePixel(int64_t ho, int64_t wo) const {
    return At(source_, elem_, n_, c0_, ho - source_row0_, wo);
  }
  char* ResultPixel(int64_t hi, int64_t wi) const {
    return At(*result_, elem_, n_, c0_, hi - result_row0_, wi);
  }
  // A row whose pixels are back to back converts in one call (a call per pixel cost more than
  // the conversion itself: 0.87 M of a bf16 image's 2.3 M instructions went to storing).
  void ConvertSourceRow(int64_t ho, float* dst) const {
    if (schedule_.source_pixels_dense) {
      LoadAsFloat(dtype_, SourcePixel(ho, 0), 1, source_w_ * width_, dst);
      return;
    }
    for (int64_t wo = 0; wo < source_w_; ++wo) {
      LoadAsFloat(dtype_, SourcePixel(ho, wo), 1, width_, dst + wo * width_);
    }
  }

  // Result row `hi` from a dense float row of in_w pixels.
  void StoreResultRow(int64_t hi, const float* row) const {
    if (schedule_.result_pixels_dense) {
      StoreFromFloat(dtype_, row, result_w_ * width_, ResultPixel(hi, 0), 1);
      return;
    }
    for (int64_t wi = 0; wi < result_w_; ++wi) {
      StoreFromFloat(dtype_, row + wi * width_, width_, ResultPixel(hi, wi), 1);
    }
  }

  // W first: the W pass of the band's source rows into the tile. Float32 pixels (the plane
  // groups' among them) go in one call, a result pixel at a time down the band's rows
  // (GatherPixelBand), so that each pixel's run is looked up once: the plane groups of 14 x 14
  // <-> 28 x 28 ran in 0.95-0.98 of the time that a row at a time took, each step running the W
  // pass of just the rows it read (b41d38b), and the whole band a row at a time ran as that did.
  void RunWPassIntoTile() {
    const int64_t row0 = band_->source_row_begin;
    const int64_t rows = band_->source_row_end - row0;
    const ptrdiff_t tile_row = schedule_.tile_row_floats;
    float* const tile = scratch_.tile.Span(0, rows * tile_row);
    if (f32_) {
      GatherPixelBand(gather_, width_, static_cast<size_t>(rows),
                      reinterpret_cast<const float*>(SourcePixel(row0, 0)), source_.stride_w,
                      source_.stride_h, tile, width_, tile_row);
      return;
    }
    float* const converted = scratch_.source.Span(0, source_w_ * width_);
    for (int64_t r = 0; r < rows; ++r) {
      ConvertSourceRow(row0 + r, converted);
      GatherPixels(gather_, width_, converted, width_, tile + r * tile_row, width_);
    }
  }

  // W first: the H pass of result rows [rows.result_row_begin, rows.result_row_end) from the
  // tile.
  void RunHPassFromTile(const RowBand& rows) {
    const int64_t row0 = band_->source_row_begin;
    const ptrdiff_t tile_row = schedule_.tile_row_floats;
    const int64_t row_floats = result_w_ * width_;
    const AxisRuns& ax_h = axis_h_;
    const int64_t band_rows = band_->source_row_end - row0;
    const float* const tile = scratch_.tile.Span(0, band_rows * tile_row);
    if (schedule_.result_pixels_dense) {
      CombineRowRunsTo(HeightRuns(ax_h), static_cast<size_t>(rows.result_row_begin),
                       static_cast<size_t>(rows.result_row_end), tile, tile_row,
                       static_cast<size_t>(row0), static_cast<size_t>(row_floats), dtype_,
                       ResultPixel(rows.result_row_begin, 0), result_->stride_h, stores_);
      return;
    }
    for (int64_t hi = rows.result_row_begin; hi < rows.result_row_end; ++hi) {
      const float* const rows = tile + RunRowOffset(ax_h, hi, row0) * tile_row;
      const float* const weights = ax_h.weights.data() + ax_h.weight_offset[hi];
      float* const dst = scratch_.result.Span(0, row_floats);
      CombineRows(dst, row_floats, rows, tile_row, weights, ax_h.count(hi));
      StoreResultRow(hi, dst);
    }
  }

  // The H pass reads source in place, in any dtype (converted in registers): a whole row as
  // one vector when its pixels are back to back, else pixel by pixel. Where the plan allows,
  // two consecutive rows whose runs overlap are combined at once, sharing their source loads.
  // Result rows [rows.result_row_begin, rows.result_row_end).
  void RunHFirst(const RowBand& rows) {
    if (schedule_.group_h_rows) {
      RunHFirstGrouped(rows);
      return;
    }
    const AxisRuns& ax_h = axis_h_;
    const bool dense = schedule_.source_pixels_dense;
    const bool pair = dense && schedule_.pair_h_rows;
    const auto row_floats = static_cast<ptrdiff_t>(source_w_ * width_);
    // The H-pass rows wait in `held` for the W pass until the next pair might not fit.
    const int64_t capacity = HeldHeightRows(schedule_);
    float* const held = scratch_.source.Span(0, capacity * row_floats);
    int64_t count = 0, first_held = rows.result_row_begin;
    for (int64_t hi = rows.result_row_begin; hi < rows.result_row_end;) {
      if (count == 0) first_held = hi;
      float* const row = held + count * row_floats;
      if (pair && hi + 1 < rows.result_row_end && RunsOverlap(hi)) {
        const int64_t first = ax_h.first[hi];
        CombineRowPairFrom(dtype_, row, row + row_floats, source_w_ * width_, SourcePixel(first, 0),
                           source_.stride_h, ax_h.weights.data() + ax_h.weight_offset[hi],
                           ax_h.count(hi), ax_h.first[hi + 1] - first,
                           ax_h.weights.data() + ax_h.weight_offset[hi + 1], ax_h.count(hi + 1));
        count += 2;
        hi += 2;
      } else {
        HPassRow(hi, dense, row);
        ++count;
        ++hi;
      }
      if (count + (pair ? 2 : 1) > capacity || hi == rows.result_row_end) {
        WPassRows(first_held, count, held, row_floats);
        count = 0;
      }
    }
  }

  // The H pass kHeightGroupRows result rows at a time, a column chunk at a time (the plan's
  // group_h_rows: pixels back to back), then each row's W pass.
  void RunHFirstGrouped(const RowBand& rows) {
    const auto row_floats = static_cast<size_t>(source_w_ * width_);
    float* const group =
        scratch_.source.Span(0, kHeightGroupRows * HeightGroupRowFloats(row_floats));
    CombineHeightGroups(axis_h_, rows, dtype_, SourcePixel(0, 0), source_.stride_h, row_floats,
                        group, [this](int64_t hi, const float* row) { WPassRow(hi, row); });
  }

  // Whether result row hi + 1's run starts inside row hi's and ends no earlier (what
  // CombineRowPairFrom takes).
  bool RunsOverlap(int64_t hi) const {
    const AxisRuns& ax_h = axis_h_;
    const int64_t shift = int64_t{ax_h.first[hi + 1]} - ax_h.first[hi];
    return ax_h.count(hi) > 0 && ax_h.count(hi + 1) > 0 && shift >= 0 && shift < ax_h.count(hi) &&
           shift + ax_h.count(hi + 1) >= ax_h.count(hi);
  }

  // The H pass of result row hi into `row` (source width x channels floats).
  void HPassRow(int64_t hi, bool dense, float* row) const {
    const AxisRuns& ax_h = axis_h_;
    const int64_t row0 = band_->source_row_begin;
    const float* weights = ax_h.weights.data() + ax_h.weight_offset[hi];
    const int32_t count = ax_h.count(hi);
    const int64_t first_row = row0 + RunRowOffset(ax_h, hi, row0);
    if (dense) {
      CombineRowsFrom(dtype_, row, source_w_ * width_, SourcePixel(first_row, 0), source_.stride_h,
                      weights, count);
      return;
    }
    for (int64_t wo = 0; wo < source_w_; ++wo) {
      CombineRowsFrom(dtype_, row + wo * width_, width_, SourcePixel(first_row, wo),
                      source_.stride_h, weights, count);
    }
  }

  // The W pass of one H-pass row into result row hi.
  void WPassRow(int64_t hi, const float* row) const {
    if (f32_) {
      GatherPixels(gather_, width_, row, width_, reinterpret_cast<float*>(ResultPixel(hi, 0)),
                   result_->stride_w, stores_);
    } else if (rounds_in_registers_) {
      GatherPixelsRounded(gather_, width_, row, width_, dtype_,
                          reinterpret_cast<uint16_t*>(ResultPixel(hi, 0)), result_->stride_w);
    } else {
      float* const converted = scratch_.result.Span(0, result_w_ * width_);
      GatherPixels(gather_, width_, row, width_, converted, width_);
      StoreResultRow(hi, converted);
    }
  }

  // The W pass of `count` H-pass rows (`row_stride` floats apart) into result rows from hi: as
  // one band where the plan says (CpuSchedule::band_w_pass), else a row at a time.
  void WPassRows(int64_t hi, int64_t count, const float* rows, ptrdiff_t row_stride) const {
    if (schedule_.band_w_pass) {
      GatherPixelBand(gather_, width_, static_cast<size_t>(count), rows, width_, row_stride,
                      reinterpret_cast<float*>(ResultPixel(hi, 0)), result_->stride_w,
                      result_->stride_h);
      return;
    }
    for (int64_t r = 0; r < count; ++r) WPassRow(hi + r, rows + r * row_stride);
  }

  const AxisRuns& axis_h_;
  const CpuSchedule& schedule_;
  const DType dtype_;
  const PlaneView& source_;
  const PlaneView* result_;
  int64_t result_row0_ = 0;   // the result row at result_'s first row (RedirectResultRows)
  int64_t source_row0_ = 0;   // the source row at source_'s first row (RedirectSourceRows)
  bool tile_filled_ = false;  // W first: the W pass of the band has run
  const size_t elem_;
  const Scratch scratch_;
  const RowBand* const band_;
  const int64_t n_, c0_, width_;
  const bool f32_;
  const int64_t result_w_, source_w_;
  const ResultStores stores_;
  // 16-bit result pixels: the W pass rounds them as it stores them.
  const bool rounds_in_registers_;
  GatherAxis gather_;
};

// Few channels with pixels back to back (Layout::kInterleaved): the H pass combines whole rows
// of pixels, and the W pass runs the planar W kernels on one planar row per channel,
// deinterleaved into scratch and interleaved back.
class InterleavedTask {
 public:
  InterleavedTask(const Plan& plan, void* workspace, int64_t task, int slot)
      : problem_(plan.problem),
        schedule_(plan.schedule),
        elem_(DTypeSize(problem_.dtype)),
        band_(schedule_.bands[task % static_cast<int64_t>(schedule_.bands.size())]),
        n_(task / static_cast<int64_t>(schedule_.bands.size())),
        channels_(static_cast<size_t>(problem_.result.c)),
        source_w_(static_cast<size_t>(problem_.source.w)),
        result_w_(static_cast<size_t>(problem_.result.w)),
        f32_(problem_.dtype == DType::kFloat32),
        scratch_(SlotScratch(schedule_, workspace, slot)),
        gather_(WidthGather(plan)) {}

  void Run() {
    if (schedule_.h_pass_first) {
      RunHFirst();
    } else {
      RunWFirst();
    }
  }

 private:
  char* SourceRow(int64_t h) const { return At(problem_.source, elem_, n_, 0, h, 0); }
  char* ResultRow(int64_t h) const { return At(problem_.result, elem_, n_, 0, h, 0); }

  // The W pass of one row of source_w pixels (floats) into `dst` (result_w pixels): gathered as
  // it is where the plan has a periodic interior over pixel rows, else through `planar`
  // (channels rows of source_w) and the gathered planar rows in the result scratch, interleaved
  // into dst as `stores` says.
  void WPassRow(const float* pixels, float* planar, float* dst,
                ResultStores stores = ResultStores::kCached) const {
    if (schedule_.w_periodic_pixels) {
      kernels::GatherPixelRows(gather_, channels_, 1, pixels, 0, dst, 0);
      return;
    }
    float* const gathered = scratch_.result.Span(0, channels_ * result_w_);
    kernels::GatherThroughPlanarRows(gather_, channels_, pixels, planar, gathered, dst, stores);
  }

  // Floats of the planar rows WPassRow deinterleaves a row into (GatherThroughPlanarRows).
  size_t PlanarFloats() const { return channels_ * kernels::GroupRowFloats(source_w_); }

  // A result row of float pixels where it is written: the tensor's row for float32 results, else
  // scratch, converted by StoreResultRow.
  float* ResultRowAsFloat(int64_t h) const {
    if (f32_) return reinterpret_cast<float*>(ResultRow(h));
    return scratch_.result.Span(channels_ * result_w_, channels_ * result_w_);
  }

  void StoreResultRow(int64_t h, const float* row) const {
    if (!f32_) StoreFromFloat(problem_.dtype, row, channels_ * result_w_, ResultRow(h), 1);
  }

  // W pass of the band's source rows into the tile, then the H pass over whole pixel rows.
  void RunWFirst() {
    const int64_t row0 = band_.source_row_begin;
    const int64_t rows = band_.source_row_end - row0;
    const auto tile_row = static_cast<size_t>(schedule_.tile_row_floats);
    const size_t row_floats = channels_ * result_w_;
    const size_t source_row = channels_ * source_w_;
    float* const tile = scratch_.tile.Span(0, rows * tile_row);
    const auto converted_rows = static_cast<size_t>(schedule_.converted_pixel_rows);
    // After the converted rows, if any.
    const size_t planar_at = f32_ ? 0 : converted_rows * source_row;
    float* const planar = scratch_.source.Span(planar_at, PlanarFloats());
    if (schedule_.w_periodic_pixels && f32_) {  // the band's rows in one call, in place
      kernels::GatherPixelRows(gather_, channels_, static_cast<size_t>(rows),
                               reinterpret_cast<const float*>(SourceRow(row0)),
                               problem_.source.stride_h, tile, static_cast<ptrdiff_t>(tile_row));
    } else if (schedule_.w_periodic_pixels) {
      // 16-bit rows: converted_rows at a time, converted, then gathered in one call.
      float* const converted = scratch_.source.Span(0, converted_rows * source_row);
      for (int64_t r0 = 0; r0 < rows; r0 += static_cast<int64_t>(converted_rows)) {
        const auto group =
            static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(converted_rows), rows - r0));
        for (size_t r = 0; r < group; ++r) {
          LoadAsFloat(problem_.dtype, SourceRow(row0 + r0 + static_cast<int64_t>(r)), 1, source_row,
                      converted + r * source_row);
        }
        kernels::GatherPixelRows(gather_, channels_, group, converted,
                                 static_cast<ptrdiff_t>(source_row), tile + r0 * tile_row,
                                 static_cast<ptrdiff_t>(tile_row));
      }
    } else {
      for (int64_t r = 0; r < rows; ++r) {
        const float* pixels = reinterpret_cast<const float*>(SourceRow(row0 + r));
        if (!f32_) {
          float* const converted = scratch_.source.Span(0, source_row);
          LoadAsFloat(problem_.dtype, SourceRow(row0 + r), 1, source_row, converted);
          pixels = converted;
        }
        WPassRow(pixels, planar, scratch_.tile.Span(r * tile_row, row_floats));
      }
    }
    CombineRowRunsTo(HeightRuns(problem_.axis_h), static_cast<size_t>(band_.result_row_begin),
                     static_cast<size_t>(band_.result_row_end), tile,
                     static_cast<ptrdiff_t>(tile_row), static_cast<size_t>(row0), row_floats,
                     problem_.dtype, ResultRow(band_.result_row_begin), problem_.result.stride_h,
                     InPlaceResultStores(schedule_));
  }

  // Per group of kHeightGroupRows result rows: the H pass over whole source pixel rows (read
  // in place in any dtype, a column chunk of the whole group at a time), then each row's W pass
  // straight into its result row.
  void RunHFirst() {
    const size_t source_row = channels_ * source_w_;
    const size_t group_floats = kHeightGroupRows * HeightGroupRowFloats(source_row);
    float* const h_rows = scratch_.source.Span(0, group_floats);
    float* const planar = scratch_.source.Span(group_floats, PlanarFloats());
    if (schedule_.w_periodic_pixels && f32_) {
      // The group's rows gathered as pixel rows in one call, straight into the result rows: the
      // periodic form's per-call set-up is shared (256 -> 224 and 224 -> 256 RGB and RGBA rows
      // ran 1.07-1.13x faster than a call per row, in-process on the Zen 4 VM).
      const auto row_stride = static_cast<ptrdiff_t>(HeightGroupRowFloats(source_row));
      CombineHeightGroupsThen(
          problem_.axis_h, band_, problem_.dtype, SourceRow(0), problem_.source.stride_h,
          source_row, h_rows, [&](int64_t begin, int64_t count) {
            kernels::GatherPixelRows(gather_, channels_, static_cast<size_t>(count), h_rows,
                                     row_stride, reinterpret_cast<float*>(ResultRow(begin)),
                                     problem_.result.stride_h);
          });
      return;
    }
    // Float32 result rows are the tensor's own (ShouldStreamResult streams only those).
    const ResultStores stores = InPlaceResultStores(schedule_);
    CombineHeightGroups(
        problem_.axis_h, band_, problem_.dtype, SourceRow(0), problem_.source.stride_h, source_row,
        h_rows, [&](int64_t hi, const float* row) {
          float* const dst = ResultRowAsFloat(hi);
          if (f32_ || schedule_.w_periodic_pixels) {
            WPassRow(row, planar, dst, f32_ ? stores : ResultStores::kCached);
            StoreResultRow(hi, dst);
            return;
          }
          // 16-bit pixels rounded as the W pass stores them where it can.
          kernels::GatherThroughPlanarRowsRounded(
              gather_, channels_, row, planar, scratch_.result.Span(0, channels_ * result_w_), dst,
              problem_.dtype, reinterpret_cast<uint16_t*>(ResultRow(hi)));
        });
  }

  const ResampleProblem& problem_;
  const CpuSchedule& schedule_;
  const size_t elem_;
  const RowBand& band_;
  const int64_t n_;
  const size_t channels_, source_w_, result_w_;
  const bool f32_;
  const Scratch scratch_;
  const GatherAxis gather_;
};

// Calls run(tensor_offset, packed_offset, count) over a plane of `view` in runs of consecutive
// elements: the whole plane at once when its rows are back to back (`dense`), else row by row.
// Offsets count elements from the plane's first one, in the tensor and in the plane packed
// without padding.
template <class Run>
void ForEachPlaneRun(const PlaneView& view, bool dense, Run run) {
  if (dense) {
    run(int64_t{0}, int64_t{0}, view.h * view.w);
    return;
  }
  for (int64_t h = 0; h < view.h; ++h) run(h * view.stride_h, h * view.w, view.w);
}

// Many small planes (Layout::kPlaneGroups): kPlaneGroup planes are transposed into pixels of as
// many channels in scratch, resampled there by the channels-last passes in float32, and
// transposed back into their planes (16-bit planes converted on the way in and rounded on the
// way out, in registers).
class PlaneGroupTask {
 public:
  PlaneGroupTask(const Plan& plan, void* workspace, int64_t task, int slot)
      : plan_(plan),
        problem_(plan.problem),
        schedule_(plan.schedule),
        elem_(static_cast<int64_t>(DTypeSize(problem_.dtype))),
        scratch_(SlotScratch(schedule_, workspace, slot)),
        first_plane_(task * kGroup),
        planes_(static_cast<size_t>(
            std::min<int64_t>(kGroup, problem_.result.n * problem_.result.c - first_plane_))),
        source_plane_(static_cast<size_t>(problem_.source.h * problem_.source.w)),
        result_plane_(static_cast<size_t>(problem_.result.h * problem_.result.w)) {}

  void Run() {
    float* const source_pixels = scratch_.group.Span(0, kGroup * source_plane_);
    const PlaneView& source = problem_.source;
    const char* const source_planes = FirstPlane(source);
    // With a source window the steps transpose their rows as they come to them (below).
    if (schedule_.group_source_window_rows == 0) {
      ForEachPlaneRun(
          source, schedule_.source_planes_dense, [&](int64_t at, int64_t packed, int64_t count) {
            kernels::PlanesToPixels(problem_.dtype, source_planes + at * elem_,
                                    schedule_.source_plane_stride, planes_,
                                    static_cast<size_t>(count), source_pixels + packed * kGroup);
          });
    }
    const PlaneView& result = problem_.result;
    const PlaneView source_view = PixelView(source, source_pixels);
    char* const result_planes = FirstPlane(result);
    // Result pixels [at, at + count) of the planes from `pixels`.
    const auto to_planes = [&](int64_t at, const float* pixels, int64_t count) {
      kernels::PixelsToPlanes(problem_.dtype, pixels, planes_, static_cast<size_t>(count),
                              result_planes + at * elem_, schedule_.result_plane_stride,
                              InPlaceResultStores(schedule_));
    };
    if (!schedule_.result_planes_dense) {
      float* const result_pixels =
          scratch_.group.Span(kGroup * source_plane_, kGroup * result_plane_);
      const PlaneView result_view = PixelView(result, result_pixels);
      ChannelsLastTask(plan_, Work(source_view, result_view), scratch_).Run();
      ForEachPlaneRun(result, false, [&](int64_t at, int64_t packed, int64_t count) {
        to_planes(at, result_pixels + packed * kGroup, count);
      });
      return;
    }
    // A few result rows at a time, each step's whole vectors of pixels transposed into the planes
    // right after it: the stores into the planes, each waiting for its line, then overlap the
    // next rows' arithmetic instead of all coming at the end. The steps' pixels go through a
    // window of one step (and the few pixels short of a whole vector that the step before left),
    // so that they are still in L1 when they are transposed and the window stays there: with
    // a pixel buffer for the whole result, a 14 x 14 -> 28 x 28 group's scratch outgrew L1.
    const auto window_pixels = static_cast<size_t>(schedule_.group_window_pixels);
    float* const window = scratch_.group.Span(kGroup * source_plane_, kGroup * window_pixels);
    // The step's rows, from the window's first pixel past those carried (RedirectResultRows).
    PlaneView step_rows = PixelView(result, window);
    ChannelsLastTask pixels(plan_, Work(source_view, step_rows), scratch_);
    const RowBand& band = schedule_.bands.front();
    const int64_t end = band.result_row_end;
    int64_t done = 0;     // pixels already in the planes
    int64_t carried = 0;  // pixels at the window's front, left by the step before
    SourceWindow source_window{this, source_planes, source_pixels};
    for (int64_t hi = band.result_row_begin; hi < end; hi += kPlaneGroupStepRows) {
      const int64_t step_end = std::min(hi + kPlaneGroupStepRows, end);
      if (schedule_.group_source_window_rows > 0) {
        pixels.RedirectSourceRows(source_window.Provide(hi, step_end));
      }
      step_rows.data = reinterpret_cast<char*>(window + carried * kGroup);
      pixels.RedirectResultRows(&step_rows, hi);
      pixels.RunRows(hi, step_end);
      const int64_t held = carried + (step_end - hi) * result.w;
      const int64_t ready = step_end == end ? held : held / kGroup * kGroup;
      if (ready > 0) to_planes(done, window, ready);
      done += ready;
      carried = held - ready;
      std::copy(window + ready * kGroup, window + held * kGroup, window);
    }
  }

 private:
  // The group's source pixel rows a step at a time (CpuSchedule::group_source_window_rows):
  // Provide(hi, end) transposes the rows result rows [hi, end) read that are not yet there,
  // first moving the rows from hi's run on to the front where the new ones would pass the
  // window (the plan has checked that no later run starts before), and returns the source row
  // at the front.
  struct SourceWindow {
    const PlaneGroupTask* task;
    const char* source_planes;
    float* pixels;
    int64_t front = 0;       // the source row at pixels' first row
    int64_t transposed = 0;  // source rows [0, transposed) have been transposed

    int64_t Provide(int64_t hi, int64_t end) {
      const AxisRuns& axis = task->problem_.axis_h;
      const int64_t row_floats = task->problem_.source.w * kGroup;
      int64_t needed = transposed;
      for (int64_t i = hi; i < end; ++i) needed = std::max(needed, RunRowEnd(axis, i, 0));
      if (needed - front > task->schedule_.group_source_window_rows) {
        MoveRowsToFront(pixels, row_floats, RunRowOffset(axis, hi, 0), transposed, &front);
      }
      if (needed > transposed) {
        const int64_t row_pixels = task->problem_.source.w;
        kernels::PlanesToPixels(task->problem_.dtype,
                                source_planes + transposed * row_pixels * task->elem_,
                                task->schedule_.source_plane_stride, task->planes_,
                                static_cast<size_t>((needed - transposed) * row_pixels),
                                pixels + (transposed - front) * row_floats);
        transposed = needed;
      }
      return front;
    }
  };

  static constexpr int64_t kGroup = static_cast<int64_t>(kernels::kPlaneGroup);
  static_assert(kPlaneGroupStepRows % static_cast<int64_t>(kHeightGroupRows) == 0 &&
                    kPlaneGroupStepRows % 2 == 0,
                "steps must group and pair rows as the whole band does");

  // The channels-last work of the group's pixels: one image of kGroup channels, one band.
  ChannelsLastWork Work(const PlaneView& source_view, const PlaneView& result_view) const {
    return ChannelsLastWork{DType::kFloat32,
                            &source_view,
                            &result_view,
                            &schedule_.bands.front(),
                            0,
                            0,
                            static_cast<int64_t>(kGroup),
                            ResultStores::kCached};
  }

  // The group's pixels in scratch as a channels-last image of kGroup channels.
  static PlaneView PixelView(const PlaneView& tensor, float* pixels) {
    PlaneView view;
    view.data = reinterpret_cast<char*>(pixels);
    view.n = 1;
    view.c = kGroup;
    view.h = tensor.h;
    view.w = tensor.w;
    view.stride_c = 1;
    view.stride_w = view.c;
    view.stride_h = view.w * view.stride_w;
    view.stride_n = view.h * view.stride_h;
    return view;
  }

  // The first element of the group's first plane.
  char* FirstPlane(const PlaneView& view) const {
    return At(view, static_cast<size_t>(elem_), first_plane_ / view.c, first_plane_ % view.c, 0, 0);
  }

  const Plan& plan_;
  const ResampleProblem& problem_;
  const CpuSchedule& schedule_;
  const int64_t elem_;
  const Scratch scratch_;
  const int64_t first_plane_;
  const size_t planes_;
  const size_t source_plane_, result_plane_;
};

// Nearest on both axes (Layout::kCopy): each result pixel of a band of rows of one image is its
// source pixel's bytes, or zeros.
void RunCopyTask(const Plan& plan, int64_t task) {
  const ResampleProblem& problem = plan.problem;
  const CpuSchedule& schedule = plan.schedule;
  const auto num_bands = static_cast<int64_t>(schedule.bands.size());
  const RowBand& band = schedule.bands[task % num_bands];
  const int64_t n = task / num_bands;
  const auto elem = static_cast<int64_t>(DTypeSize(problem.dtype));
  const PlaneView &source = problem.source, &result = problem.result;
  const AxisRuns &ax_h = problem.axis_h, &ax_w = problem.axis_w;
  const auto pixel_bytes = static_cast<size_t>(result.c * elem);
  for (int64_t hi = band.result_row_begin; hi < band.result_row_end; ++hi) {
    // A row whose H run is empty is zeros, stored as the copies are (streamed or not).
    const char* const source_row =
        ax_h.count(hi) == 0 ? nullptr
                            : At(source, static_cast<size_t>(elem), n, 0, ax_h.first[hi], 0);
    kernels::CopyPixels(ax_w.first.data(), ax_w.weight_offset.data(), static_cast<size_t>(result.w),
                        source_row, source.stride_w * elem,
                        At(result, static_cast<size_t>(elem), n, 0, hi, 0), result.stride_w * elem,
                        pixel_bytes, InPlaceResultStores(schedule));
  }
}

}  // namespace

void Execute(const Plan& plan, void* workspace) {
  if (plan.empty()) return;
  const TaskFunction run = [&plan, workspace](int64_t task, int slot) {
    switch (plan.schedule.layout) {
      case Layout::kChannelsLast:
        ChannelsLastTask::RunTask(plan, workspace, task, slot);
        break;
      case Layout::kPlaneGroups:
        PlaneGroupTask(plan, workspace, task, slot).Run();
        break;
      case Layout::kInterleaved:
        InterleavedTask(plan, workspace, task, slot).Run();
        break;
      case Layout::kPlanar:
        PlanarTask(plan, workspace, task, slot).Run();
        break;
      case Layout::kCopy:
        RunCopyTask(plan, task);
        break;
    }
  };
  // ParallelFor orders each thread's streamed result stores before handing its tasks' end to the
  // caller.
  ParallelFor(plan.schedule.num_tasks, plan.schedule.num_slots, run);
}

}  // namespace aclnn_upsample
