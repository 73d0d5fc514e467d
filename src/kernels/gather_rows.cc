// The planar W pass: each result element gathers a short run of its gradOut (or intermediate)
// row. Finite rows run four at a time through the blocked form, where a block of `lanes`
// consecutive elements shares one dense window of source columns, so each step is a broadcast
// source value times a vector of weights; rows with NaN or Inf take the exact runs.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/gather_rows.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/kernels.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_upsample {
namespace kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Exact runs, one element at a time, in a one-lane vector so that the contraction (FMA or
// not) is the target's, as in CombineRows.
void GatherRowExact(const GatherAxis& axis, const float* HWY_RESTRICT src,
                    float* HWY_RESTRICT dst) {
  const hn::CappedTag<float, 1> d1;
  for (size_t i = 0; i < axis.length; ++i) {
    const int32_t begin = axis.offset[i];
    const int32_t count = axis.offset[i + 1] - begin;
    if (count == 0) {
      dst[i] = 0.0f;
      continue;
    }
    const float* x = src + axis.first[i];
    const float* w = axis.weights + begin;
    auto acc = hn::Mul(hn::Set(d1, w[0]), hn::Set(d1, x[0]));
    for (int32_t k = 1; k < count; ++k) acc = hn::MulAdd(hn::Set(d1, w[k]), hn::Set(d1, x[k]), acc);
    dst[i] = hn::GetLane(acc);
  }
}

// Whether a row has no NaN or Inf: x - x is 0 for finite x and NaN otherwise.
bool RowIsFinite(const float* HWY_RESTRICT row, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  auto acc = hn::Zero(d);
  size_t j = 0;
  for (; j + lanes <= n; j += lanes) {
    const auto x = hn::LoadU(d, row + j);
    acc = hn::Add(acc, hn::Sub(x, x));
  }
  float tail = 0.0f;
  for (; j < n; ++j) tail += row[j] - row[j];
  return hn::AllTrue(d, hn::Eq(acc, hn::Zero(d))) && tail == 0.0f;
}

// The blocked form over `R` rows at once (R <= 4): the block's weights are loaded once per
// window column and reused for every row.
template <size_t R>
void GatherRowsBlocked(const GatherAxis& axis, const float* const* src, float* const* dst) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  const size_t num_blocks = (axis.length + lanes - 1) / lanes;
  for (size_t b = 0; b < num_blocks; ++b) {
    const float* w = axis.block_weights + axis.block_offset[b];
    const size_t window =
        static_cast<size_t>(axis.block_offset[b + 1] - axis.block_offset[b]) / lanes;
    const int32_t begin = axis.window_begin[b];
    hn::Vec<decltype(d)> acc[R];
    for (size_t r = 0; r < R; ++r) acc[r] = hn::Zero(d);
    for (size_t j = 0; j < window; ++j) {
      const auto wj = hn::LoadU(d, w + j * lanes);
      for (size_t r = 0; r < R; ++r) acc[r] = hn::MulAdd(wj, hn::Set(d, src[r][begin + j]), acc[r]);
    }
    const size_t start = b * lanes;
    if (start + lanes <= axis.length) {
      for (size_t r = 0; r < R; ++r) hn::StoreU(acc[r], d, dst[r] + start);
    } else {
      HWY_ALIGN float buffer[HWY_MAX_BYTES / sizeof(float)];
      for (size_t r = 0; r < R; ++r) {
        hn::Store(acc[r], d, buffer);
        for (size_t t = start; t < axis.length; ++t) dst[r][t] = buffer[t - start];
      }
    }
  }
}

void GatherRowsImpl(const GatherAxis& axis, size_t rows, const float* src, ptrdiff_t src_stride,
                    float* dst, ptrdiff_t dst_stride) {
  const hn::ScalableTag<float> d;
  const bool blocked = axis.block_lanes == hn::Lanes(d);
  size_t row = 0;
  while (row < rows) {
    const float* group_src[4];
    float* group_dst[4];
    size_t group = 0;
    // Collect up to four finite rows; a non-finite one is done exactly on the spot.
    for (; row < rows && group < 4; ++row) {
      const float* s = src + static_cast<ptrdiff_t>(row) * src_stride;
      float* t = dst + static_cast<ptrdiff_t>(row) * dst_stride;
      if (blocked && RowIsFinite(s, axis.source_length)) {
        group_src[group] = s;
        group_dst[group] = t;
        ++group;
      } else {
        GatherRowExact(axis, s, t);
      }
    }
    switch (group) {
      case 4:
        GatherRowsBlocked<4>(axis, group_src, group_dst);
        break;
      case 3:
        GatherRowsBlocked<3>(axis, group_src, group_dst);
        break;
      case 2:
        GatherRowsBlocked<2>(axis, group_src, group_dst);
        break;
      case 1:
        GatherRowsBlocked<1>(axis, group_src, group_dst);
        break;
      default:
        break;
    }
  }
}

size_t FloatLanesImpl() { return hn::Lanes(hn::ScalableTag<float>()); }

const char* ActiveTargetNameImpl() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace aclnn_upsample
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace aclnn_upsample {
namespace kernels {

HWY_EXPORT(GatherRowsImpl);
HWY_EXPORT(FloatLanesImpl);
HWY_EXPORT(ActiveTargetNameImpl);

void GatherRows(const GatherAxis& axis, size_t rows, const float* src, ptrdiff_t src_stride,
                float* dst, ptrdiff_t dst_stride) {
  HWY_DYNAMIC_DISPATCH(GatherRowsImpl)(axis, rows, src, src_stride, dst, dst_stride);
}

size_t FloatLanes() { return HWY_DYNAMIC_DISPATCH(FloatLanesImpl)(); }

const char* ActiveTargetName() { return HWY_DYNAMIC_DISPATCH(ActiveTargetNameImpl)(); }

}  // namespace kernels
}  // namespace aclnn_upsample
#endif  // HWY_ONCE
