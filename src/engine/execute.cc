#include "engine/execute.h"

#include <algorithm>
#include <cstring>

#include "engine/gather_view.h"
#include "engine/thread_pool.h"
#include "kernels/kernels.h"

namespace aclnn_upsample {
namespace {

using kernels::CombinePixelRuns;
using kernels::CombineRowPairFrom;
using kernels::CombineRows;
using kernels::CombineRowsFrom;
using kernels::CombineThenGatherRows;
using kernels::GatherAxis;
using kernels::GatherRows;
using kernels::kRowGroup;
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

struct Scratch {
  float* tile;
  float* source;
  float* result;
};

Scratch SlotScratch(const Plan& plan, void* workspace, int slot) {
  float* base = static_cast<float*>(workspace) + static_cast<size_t>(slot) * plan.slot_floats;
  return Scratch{base, base + plan.tile_floats, base + plan.tile_floats + plan.source_floats};
}

GatherAxis WidthGather(const Plan& plan) {
  return MakeGatherAxis(plan.axis_w, &plan.axis_w_uniform, &plan.axis_w_blocked,
                        &plan.axis_w_periodic);
}

// Where the H pass of result row `hi` starts reading, in rows past the band's first row `row0`
// (0 for an empty run, which reads nothing).
int64_t RunRowOffset(const BackwardAxis& axis, int64_t hi, int64_t row0) {
  return axis.count(hi) > 0 ? axis.first[hi] - row0 : 0;
}

class PlanarTask {
 public:
  PlanarTask(const Plan& plan, void* workspace, int64_t task, int slot)
      : plan_(plan),
        elem_(DTypeSize(plan.dtype)),
        band_(plan.bands[task % static_cast<int64_t>(plan.bands.size())]),
        n_(task / static_cast<int64_t>(plan.bands.size()) / plan.result.c),
        c_(task / static_cast<int64_t>(plan.bands.size()) % plan.result.c),
        in_w_(plan.result.w),
        out_w_(plan.grad.w),
        scratch_(SlotScratch(plan, workspace, slot)),
        gather_(WidthGather(plan)),
        grad_direct_(plan.dtype == DType::kFloat32 && plan.grad.stride_w == 1),
        result_direct_(plan.dtype == DType::kFloat32 && plan.result.stride_w == 1) {}

  void Run() {
    if (plan_.h_pass_first) {
      RunHFirst();
    } else if (plan_.axis_h.identity) {
      RunWOnly();
    } else {
      RunWFirst();
    }
  }

 private:
  char* GradRow(int64_t ho) const { return At(plan_.grad, elem_, n_, c_, ho, 0); }
  char* ResultRow(int64_t hi) const { return At(plan_.result, elem_, n_, c_, hi, 0); }

  // gradOut row `ho` as contiguous floats, converted into `buffer` only when it has to be.
  const float* GradRowAsFloat(int64_t ho, float* buffer) const {
    if (grad_direct_) return reinterpret_cast<const float*>(GradRow(ho));
    LoadAsFloat(plan_.dtype, GradRow(ho), plan_.grad.stride_w, out_w_, buffer);
    return buffer;
  }

  // The W pass of one float row into `dst`.
  void WPassRow(const float* src, float* dst) const {
    if (plan_.axis_w.identity) {
      std::memcpy(dst, src, static_cast<size_t>(in_w_) * sizeof(float));
    } else {
      GatherRows(gather_, 1, src, 0, dst, 0);
    }
  }

  void StoreResultRow(int64_t hi, const float* row) const {
    StoreFromFloat(plan_.dtype, row, in_w_, ResultRow(hi), plan_.result.stride_w);
  }

  // H is the identity: each result row is the W pass of the gradOut row of the same index.
  void RunWOnly() {
    if (grad_direct_ && result_direct_ && !plan_.axis_w.identity) {
      GatherRows(gather_, band_.in_row_end - band_.in_row_begin,
                 reinterpret_cast<const float*>(GradRow(band_.in_row_begin)), plan_.grad.stride_h,
                 reinterpret_cast<float*>(ResultRow(band_.in_row_begin)), plan_.result.stride_h);
      return;
    }
    for (int64_t hi = band_.in_row_begin; hi < band_.in_row_end; ++hi) {
      const float* src = GradRowAsFloat(hi, scratch_.source);
      if (plan_.axis_w.identity) {
        StoreResultRow(hi, src);
        continue;
      }
      float* dst = result_direct_ ? reinterpret_cast<float*>(ResultRow(hi)) : scratch_.result;
      WPassRow(src, dst);
      if (!result_direct_) StoreResultRow(hi, dst);
    }
  }

  // W pass of the band's gradOut rows into the tile (H_out x W_in), then the H pass.
  void RunWFirst() {
    const int64_t row0 = band_.out_row_begin, rows = band_.out_row_end - band_.out_row_begin;
    const float* tile = scratch_.tile;
    ptrdiff_t stride = in_w_;
    if (plan_.axis_w.identity && grad_direct_) {
      tile = reinterpret_cast<const float*>(GradRow(row0));  // gradOut's own rows
      stride = plan_.grad.stride_h;
    } else if (grad_direct_) {
      GatherRows(gather_, rows, reinterpret_cast<const float*>(GradRow(row0)), plan_.grad.stride_h,
                 scratch_.tile, in_w_);
    } else if (plan_.axis_w.identity) {
      for (int64_t r = 0; r < rows; ++r) {
        LoadAsFloat(plan_.dtype, GradRow(row0 + r), plan_.grad.stride_w, out_w_,
                    scratch_.tile + r * in_w_);
      }
    } else {
      // A row group at a time, so the W pass shares its weight loads across rows as it does
      // on float rows read in place.
      const auto group_rows = static_cast<int64_t>(kRowGroup);
      for (int64_t r0 = 0; r0 < rows; r0 += group_rows) {
        const int64_t group = std::min(group_rows, rows - r0);
        for (int64_t r = 0; r < group; ++r) {
          LoadAsFloat(plan_.dtype, GradRow(row0 + r0 + r), plan_.grad.stride_w, out_w_,
                      scratch_.source + r * out_w_);
        }
        GatherRows(gather_, static_cast<size_t>(group), scratch_.source, out_w_,
                   scratch_.tile + r0 * in_w_, in_w_);
      }
    }
    const BackwardAxis& ax_h = plan_.axis_h;
    for (int64_t hi = band_.in_row_begin; hi < band_.in_row_end; ++hi) {
      float* dst = result_direct_ ? reinterpret_cast<float*>(ResultRow(hi)) : scratch_.result;
      CombineRows(dst, in_w_, tile + RunRowOffset(ax_h, hi, row0) * stride, stride,
                  ax_h.weights.data() + ax_h.offset[hi], ax_h.count(hi));
      if (!result_direct_) StoreResultRow(hi, dst);
    }
  }

  // H pass then W pass, a row group at a time, straight to the result when it is float32 rows
  // of unit column stride (else a group at a time through float rows in scratch). gradOut rows
  // with unit column stride are read in place, in any dtype (converted in registers); others
  // are converted into the tile first.
  void RunHFirst() {
    const int64_t row0 = band_.out_row_begin;
    DType rows_dtype = DType::kFloat32;
    const void* rows = scratch_.tile;
    ptrdiff_t stride = out_w_;
    if (plan_.grad.stride_w == 1) {
      rows_dtype = plan_.dtype;
      rows = GradRow(row0);
      stride = plan_.grad.stride_h;
    } else {
      for (int64_t ho = row0; ho < band_.out_row_end; ++ho) {
        LoadAsFloat(plan_.dtype, GradRow(ho), plan_.grad.stride_w, out_w_,
                    scratch_.tile + (ho - row0) * out_w_);
      }
    }
    const BackwardAxis& ax_h = plan_.axis_h;
    const RowRuns runs{ax_h.first.data(), ax_h.offset.data(), ax_h.weights.data()};
    const auto begin = static_cast<size_t>(band_.in_row_begin);
    const auto end = static_cast<size_t>(band_.in_row_end);
    if (result_direct_) {
      CombineThenGatherRows(
          runs, begin, end, rows_dtype, rows, stride, row0, gather_, scratch_.source,
          reinterpret_cast<float*>(ResultRow(band_.in_row_begin)), plan_.result.stride_h);
      return;
    }
    for (size_t group_begin = begin; group_begin < end; group_begin += kRowGroup) {
      const size_t group_end = std::min(end, group_begin + kRowGroup);
      CombineThenGatherRows(runs, group_begin, group_end, rows_dtype, rows, stride, row0, gather_,
                            scratch_.source, scratch_.result, in_w_);
      for (size_t hi = group_begin; hi < group_end; ++hi) {
        StoreResultRow(static_cast<int64_t>(hi), scratch_.result + (hi - group_begin) * in_w_);
      }
    }
  }

  const Plan& plan_;
  const size_t elem_;
  const RowBand& band_;
  const int64_t n_, c_;
  const int64_t in_w_, out_w_;
  const Scratch scratch_;
  const GatherAxis gather_;
  const bool grad_direct_, result_direct_;
};

// Channels contiguous in both tensors: both passes combine whole C-vectors. Scratch rows hold
// `width` floats per pixel, densely.
class ChannelsLastTask {
 public:
  ChannelsLastTask(const Plan& plan, void* workspace, int64_t task, int slot)
      : plan_(plan), elem_(DTypeSize(plan.dtype)), scratch_(SlotScratch(plan, workspace, slot)) {
    const int64_t num_bands = static_cast<int64_t>(plan.bands.size());
    const int64_t num_blocks = (plan.result.c + plan.channel_block - 1) / plan.channel_block;
    band_ = &plan.bands[task % num_bands];
    const int64_t unit = task / num_bands;
    n_ = unit / num_blocks;
    c0_ = (unit % num_blocks) * plan.channel_block;
    width_ = std::min(plan.channel_block, plan.result.c - c0_);
    f32_ = plan.dtype == DType::kFloat32;
    in_w_ = plan.result.w;
    out_w_ = plan.grad.w;
    gather_ = WidthGather(plan);
    gather_.block_lanes = 0;  // pixels, not scalars, are gathered here
    gather_.uniform_stride = 0;
  }

  void Run() {
    if (plan_.h_pass_first) {
      RunHFirst();
    } else {
      RunWFirst();
    }
    // Streamed result stores are ordered before the pool hands the task's end to the caller.
    if (plan_.stream_result) kernels::FlushStreamedStores();
  }

 private:
  char* GradPixel(int64_t ho, int64_t wo) const { return At(plan_.grad, elem_, n_, c0_, ho, wo); }
  char* ResultPixel(int64_t hi, int64_t wi) const {
    return At(plan_.result, elem_, n_, c0_, hi, wi);
  }
  // Whether a row's pixels are back to back (all channels in this task, no padding), so a whole
  // row is one long vector.
  bool DenseRows(const PlaneView& view) const {
    return width_ == view.c && view.stride_w == view.c;
  }

  // A row whose pixels are back to back converts in one call (a call per pixel cost more than
  // the conversion itself: 0.87 M of a bf16 image's 2.3 M instructions went to storing).
  void ConvertGradRow(int64_t ho, float* dst) const {
    if (DenseRows(plan_.grad)) {
      LoadAsFloat(plan_.dtype, GradPixel(ho, 0), 1, out_w_ * width_, dst);
      return;
    }
    for (int64_t wo = 0; wo < out_w_; ++wo) {
      LoadAsFloat(plan_.dtype, GradPixel(ho, wo), 1, width_, dst + wo * width_);
    }
  }

  // Result row `hi` from a dense float row of in_w pixels.
  void StoreResultRow(int64_t hi, const float* row) const {
    if (DenseRows(plan_.result)) {
      StoreFromFloat(plan_.dtype, row, in_w_ * width_, ResultPixel(hi, 0), 1);
      return;
    }
    for (int64_t wi = 0; wi < in_w_; ++wi) {
      StoreFromFloat(plan_.dtype, row + wi * width_, width_, ResultPixel(hi, wi), 1);
    }
  }

  void RunWFirst() {
    const int64_t row0 = band_->out_row_begin;
    const ptrdiff_t tile_row = in_w_ * width_;
    for (int64_t ho = row0; ho < band_->out_row_end; ++ho) {
      const float* pixels = reinterpret_cast<const float*>(GradPixel(ho, 0));
      ptrdiff_t pixel_stride = plan_.grad.stride_w;
      if (!f32_) {
        ConvertGradRow(ho, scratch_.source);
        pixels = scratch_.source;
        pixel_stride = width_;
      }
      CombinePixelRuns(gather_, width_, pixels, pixel_stride,
                       scratch_.tile + (ho - row0) * tile_row, width_);
    }
    const BackwardAxis& ax_h = plan_.axis_h;
    const bool direct = f32_ && DenseRows(plan_.result);
    for (int64_t hi = band_->in_row_begin; hi < band_->in_row_end; ++hi) {
      float* dst = direct ? reinterpret_cast<float*>(ResultPixel(hi, 0)) : scratch_.result;
      CombineRows(dst, tile_row, scratch_.tile + RunRowOffset(ax_h, hi, row0) * tile_row, tile_row,
                  ax_h.weights.data() + ax_h.offset[hi], ax_h.count(hi));
      if (!direct) StoreResultRow(hi, dst);
    }
  }

  // The H pass reads gradOut in place, in any dtype (converted in registers): a whole row as
  // one vector when its pixels are back to back, else pixel by pixel. Where the plan allows,
  // two consecutive rows whose runs overlap are combined at once, sharing their source loads.
  void RunHFirst() {
    const BackwardAxis& ax_h = plan_.axis_h;
    const bool dense = DenseRows(plan_.grad);
    float* const second_row = scratch_.source + out_w_ * width_;
    for (int64_t hi = band_->in_row_begin; hi < band_->in_row_end;) {
      if (dense && plan_.pair_h_rows && hi + 1 < band_->in_row_end && RunsOverlap(hi)) {
        const int64_t first = ax_h.first[hi];
        CombineRowPairFrom(plan_.dtype, scratch_.source, second_row, out_w_ * width_,
                           GradPixel(first, 0), plan_.grad.stride_h,
                           ax_h.weights.data() + ax_h.offset[hi], ax_h.count(hi),
                           ax_h.first[hi + 1] - first, ax_h.weights.data() + ax_h.offset[hi + 1],
                           ax_h.count(hi + 1));
        WPassRow(hi, scratch_.source);
        WPassRow(hi + 1, second_row);
        hi += 2;
        continue;
      }
      HPassRow(hi, dense);
      WPassRow(hi, scratch_.source);
      ++hi;
    }
  }

  // Whether result row hi + 1's run starts inside row hi's and ends no earlier (what
  // CombineRowPairFrom takes).
  bool RunsOverlap(int64_t hi) const {
    const BackwardAxis& ax_h = plan_.axis_h;
    const int64_t shift = int64_t{ax_h.first[hi + 1]} - ax_h.first[hi];
    return ax_h.count(hi) > 0 && ax_h.count(hi + 1) > 0 && shift >= 0 && shift < ax_h.count(hi) &&
           shift + ax_h.count(hi + 1) >= ax_h.count(hi);
  }

  // The H pass of result row hi into scratch_.source.
  void HPassRow(int64_t hi, bool dense) const {
    const BackwardAxis& ax_h = plan_.axis_h;
    const int64_t row0 = band_->out_row_begin;
    const float* weights = ax_h.weights.data() + ax_h.offset[hi];
    const int32_t count = ax_h.count(hi);
    const int64_t first_row = row0 + RunRowOffset(ax_h, hi, row0);
    if (dense) {
      CombineRowsFrom(plan_.dtype, scratch_.source, out_w_ * width_, GradPixel(first_row, 0),
                      plan_.grad.stride_h, weights, count);
      return;
    }
    for (int64_t wo = 0; wo < out_w_; ++wo) {
      CombineRowsFrom(plan_.dtype, scratch_.source + wo * width_, width_, GradPixel(first_row, wo),
                      plan_.grad.stride_h, weights, count);
    }
  }

  // The W pass of one H-pass row into result row hi.
  void WPassRow(int64_t hi, const float* row) const {
    if (f32_) {
      CombinePixelRuns(gather_, width_, row, width_, reinterpret_cast<float*>(ResultPixel(hi, 0)),
                       plan_.result.stride_w,
                       plan_.stream_result ? ResultStores::kStreamed : ResultStores::kCached);
    } else {
      CombinePixelRuns(gather_, width_, row, width_, scratch_.result, width_);
      StoreResultRow(hi, scratch_.result);
    }
  }

  const Plan& plan_;
  const size_t elem_;
  const Scratch scratch_;
  const RowBand* band_;
  int64_t n_, c0_, width_;
  bool f32_;
  int64_t in_w_, out_w_;
  GatherAxis gather_;
};

}  // namespace

void Execute(const Plan& plan, void* workspace) {
  if (plan.empty()) return;
  const TaskFunction run = [&plan, workspace](int64_t task, int slot) {
    if (plan.layout == Layout::kChannelsLast) {
      ChannelsLastTask(plan, workspace, task, slot).Run();
    } else {
      PlanarTask(plan, workspace, task, slot).Run();
    }
  };
  ParallelFor(plan.num_tasks, plan.num_slots, run);
}

}  // namespace aclnn_upsample
