#include "engine/execute.h"

#include <cstring>

#include "engine/thread_pool.h"
#include "kernels/resample_kernels.h"

namespace aclnn_upsample {
namespace {

using kernels::CombineRows;
using kernels::GatherRow;
using kernels::LoadAsFloat;
using kernels::StoreFromFloat;

// Element address of a view; offsets in elements.
inline char* At(const PlaneView& view, size_t elem, int64_t n, int64_t c, int64_t h, int64_t w) {
  return view.data + (n * view.stride_n + c * view.stride_c + h * view.stride_h +
                      w * view.stride_w) * static_cast<int64_t>(elem);
}

struct Scratch {
  float* tile;
  float* grad_row;
  float* result_row;
};

Scratch SlotScratch(const Plan& plan, void* workspace, int slot, size_t grad_row_floats) {
  float* base = static_cast<float*>(workspace) + static_cast<size_t>(slot) * plan.slot_floats;
  Scratch scratch;
  scratch.tile = base;
  scratch.grad_row = base + plan.tile_floats;
  scratch.result_row = scratch.grad_row + (grad_row_floats + 15) / 16 * 16;
  return scratch;
}

// One band of one (n, c) plane: W pass of the gradOut rows the band needs into the tile, then
// the H pass of the band's result rows. Identity passes are skipped.
void RunPlanarTask(const Plan& plan, void* workspace, int64_t task, int slot) {
  const size_t elem = DTypeSize(plan.dtype);
  const int64_t num_bands = static_cast<int64_t>(plan.bands.size());
  const RowBand& band = plan.bands[task % num_bands];
  const int64_t plane = task / num_bands;
  const int64_t n = plane / plan.result.c, c = plane % plan.result.c;
  const BackwardAxis& ax_h = plan.axis_h;
  const BackwardAxis& ax_w = plan.axis_w;
  const int64_t in_w = plan.result.w, out_w = plan.grad.w;
  const Scratch scratch = SlotScratch(plan, workspace, slot, out_w);
  const bool f32 = plan.dtype == DType::kFloat32;
  const bool grad_rows_direct = f32 && plan.grad.stride_w == 1;
  const bool result_rows_direct = f32 && plan.result.stride_w == 1;

  // gradOut row `ho` as contiguous floats, converted only when it has to be.
  auto grad_row = [&](int64_t ho) -> const float* {
    const char* row = At(plan.grad, elem, n, c, ho, 0);
    if (grad_rows_direct) return reinterpret_cast<const float*>(row);
    LoadAsFloat(plan.dtype, row, plan.grad.stride_w, out_w, scratch.grad_row);
    return scratch.grad_row;
  };
  // The W pass of one gradOut row into `dst` (in_w floats).
  auto w_pass = [&](int64_t ho, float* dst) {
    const float* src = grad_row(ho);
    if (ax_w.identity) {
      std::memcpy(dst, src, static_cast<size_t>(in_w) * sizeof(float));
    } else {
      GatherRow(dst, in_w, src, ax_w.first.data(), ax_w.offset.data(), ax_w.weights.data());
    }
  };

  // Rows of the intermediate G * A_W that the H pass combines, and their stride. With an
  // identity W pass on directly readable float32 rows, they are gradOut's own rows.
  const float* rows = scratch.tile;
  ptrdiff_t row_stride = in_w;
  if (!ax_h.identity) {
    if (ax_w.identity && grad_rows_direct) {
      rows = reinterpret_cast<const float*>(At(plan.grad, elem, n, c, band.out_row_begin, 0));
      row_stride = plan.grad.stride_h;
    } else {
      for (int64_t ho = band.out_row_begin; ho < band.out_row_end; ++ho) {
        w_pass(ho, scratch.tile + (ho - band.out_row_begin) * in_w);
      }
    }
  }

  for (int64_t hi = band.in_row_begin; hi < band.in_row_end; ++hi) {
    char* out_row = At(plan.result, elem, n, c, hi, 0);
    float* dst = result_rows_direct ? reinterpret_cast<float*>(out_row) : scratch.result_row;
    if (ax_h.identity) {
      w_pass(hi, dst);
    } else {
      const int32_t count = ax_h.count(hi);
      const float* src = count > 0 ? rows + (ax_h.first[hi] - band.out_row_begin) * row_stride : rows;
      CombineRows(dst, in_w, src, row_stride, ax_h.weights.data() + ax_h.offset[hi], count);
    }
    if (!result_rows_direct) StoreFromFloat(plan.dtype, dst, in_w, out_row, plan.result.stride_w);
  }
}

// One band of one image and channel block, with channels contiguous in both tensors: both
// passes combine whole C-vectors (vectorised over C), the tile holds rows x W_in x C-block.
void RunChannelsLastTask(const Plan& plan, void* workspace, int64_t task, int slot) {
  const size_t elem = DTypeSize(plan.dtype);
  const int64_t channels = plan.result.c;
  const int64_t block = plan.channel_block;
  const int64_t num_blocks = (channels + block - 1) / block;
  const int64_t num_bands = static_cast<int64_t>(plan.bands.size());
  const RowBand& band = plan.bands[task % num_bands];
  const int64_t unit = task / num_bands;
  const int64_t n = unit / num_blocks;
  const int64_t c0 = (unit % num_blocks) * block;
  const int64_t width = std::min(block, channels - c0);
  const BackwardAxis& ax_h = plan.axis_h;
  const BackwardAxis& ax_w = plan.axis_w;
  const int64_t in_w = plan.result.w, out_w = plan.grad.w;
  const Scratch scratch = SlotScratch(plan, workspace, slot, out_w * block);
  const bool f32 = plan.dtype == DType::kFloat32;
  const ptrdiff_t pixel_stride = f32 ? plan.grad.stride_w : block;

  // W pass of gradOut row `ho` into the tile row (in_w C-vectors of `block` floats).
  auto w_pass = [&](int64_t ho, float* dst_row) {
    const float* pixels;
    if (f32) {
      pixels = reinterpret_cast<const float*>(At(plan.grad, elem, n, c0, ho, 0));
    } else {
      for (int64_t wo = 0; wo < out_w; ++wo) {
        LoadAsFloat(plan.dtype, At(plan.grad, elem, n, c0, ho, wo), 1, width,
                    scratch.grad_row + wo * block);
      }
      pixels = scratch.grad_row;
    }
    for (int64_t wi = 0; wi < in_w; ++wi) {
      const int32_t count = ax_w.count(wi);
      const float* src = count > 0 ? pixels + ax_w.first[wi] * pixel_stride : pixels;
      CombineRows(dst_row + wi * block, width, src, pixel_stride,
                  ax_w.weights.data() + ax_w.offset[wi], count);
    }
  };

  for (int64_t ho = band.out_row_begin; ho < band.out_row_end; ++ho) {
    w_pass(ho, scratch.tile + (ho - band.out_row_begin) * in_w * block);
  }
  const ptrdiff_t tile_row_stride = in_w * block;
  for (int64_t hi = band.in_row_begin; hi < band.in_row_end; ++hi) {
    const int32_t count = ax_h.count(hi);
    const float* rows =
        count > 0 ? scratch.tile + (ax_h.first[hi] - band.out_row_begin) * tile_row_stride
                  : scratch.tile;
    const float* weights = ax_h.weights.data() + ax_h.offset[hi];
    for (int64_t wi = 0; wi < in_w; ++wi) {
      char* out_pixel = At(plan.result, elem, n, c0, hi, wi);
      float* dst = f32 ? reinterpret_cast<float*>(out_pixel) : scratch.result_row;
      CombineRows(dst, width, rows + wi * block, tile_row_stride, weights, count);
      if (!f32) StoreFromFloat(plan.dtype, dst, width, out_pixel, 1);
    }
  }
}

}  // namespace

void Execute(const Plan& plan, void* workspace) {
  if (plan.empty()) return;
  const TaskFunction run = [&plan, workspace](int64_t task, int slot) {
    if (plan.layout == Layout::kChannelsLast) {
      RunChannelsLastTask(plan, workspace, task, slot);
    } else {
      RunPlanarTask(plan, workspace, task, slot);
    }
  };
  ParallelFor(plan.num_tasks, plan.num_slots, run);
}

}  // namespace aclnn_upsample
