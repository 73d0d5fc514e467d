// The planar W pass: each result element gathers a short run of its source row. Three forms,
// fastest first:
//  - uniform interior: where every element's run has the same weights and starts `stride`
//    columns after its neighbour's (an integer upsampling factor, e.g. bilinear 2x), a vector
//    of elements is a weighted sum of de-interleaved loads; bit-identical to the exact runs;
//  - blocked: a block of `lanes` elements shares one dense window of source columns, so each
//    step is a broadcast source value times a vector of weights (finite rows only, so that the
//    window's zero weights never multiply a NaN or Inf);
//  - exact runs, one element at a time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/gather_rows.cc"
#include <algorithm>
#include <array>
#include <utility>

#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/kernels.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_upsample {
namespace kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// w * x + acc rounded as the target's vector MulAdd rounds it: fused where the target has FMA,
// else two roundings (the library is compiled with -ffp-contract=off, so this stays two).
HWY_INLINE float MulAddLikeVectors(float w, float x, float acc) {
#if HWY_NATIVE_FMA
  return __builtin_fmaf(w, x, acc);
#else
  return w * x + acc;
#endif
}

// Exact runs of elements [from, to), one at a time, with the same operations in the same order
// as the vector forms and CombineRows.
HWY_INLINE void GatherExact(const GatherAxis& axis, const float* HWY_RESTRICT src,
                            float* HWY_RESTRICT dst, size_t from, size_t to) {
  for (size_t i = from; i < to; ++i) {
    const int32_t begin = axis.offset[i];
    const int32_t count = axis.offset[i + 1] - begin;
    const float* x = src + axis.first[i];
    const float* w = axis.weights + begin;
    float acc = count > 0 ? w[0] * x[0] : 0.0f;
    for (int32_t k = 1; k < count; ++k) acc = MulAddLikeVectors(w[k], x[k], acc);
    dst[i] = acc;
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

// Loads kStride * lanes consecutive floats and splits them by position modulo kStride.
template <int kStride, class D, class V>
HWY_INLINE void LoadPhases(D d, const float* HWY_RESTRICT p, V& v0, V& v1, V& v2, V& v3) {
  if constexpr (kStride == 1) {
    v0 = hn::LoadU(d, p);
  } else if constexpr (kStride == 2) {
    hn::LoadInterleaved2(d, p, v0, v1);
  } else if constexpr (kStride == 3) {
    hn::LoadInterleaved3(d, p, v0, v1, v2);
  } else {
    hn::LoadInterleaved4(d, p, v0, v1, v2, v3);
  }
}

// The uniform form, for an interior where element i is
// sum_k weights[k] * src[stride * i + offset + k]. From base = src + stride * i + offset, tap k
// is phase k % stride of the de-interleaved load at base + stride * (k / stride), so with the
// stride and tap count known at compile time every load, phase and weight is fixed and the
// loop unrolls. Operations match GatherExact's, so vectors may overlap and any element may be
// done exactly instead without changing a bit.
template <int kStride, int kTaps, class D>
HWY_INLINE void UniformVector(D d, const float* HWY_RESTRICT base,
                              const float* HWY_RESTRICT weights, float* HWY_RESTRICT out) {
  auto v0 = hn::Zero(d), v1 = hn::Zero(d), v2 = hn::Zero(d), v3 = hn::Zero(d);
  auto acc = hn::Zero(d);
  for (int k = 0; k < kTaps; ++k) {
    const int phase = k % kStride;
    if (phase == 0) LoadPhases<kStride>(d, base + k, v0, v1, v2, v3);
    const auto x = phase == 0 ? v0 : phase == 1 ? v1 : phase == 2 ? v2 : v3;
    const auto w = hn::Set(d, weights[k]);
    acc = k == 0 ? hn::Mul(w, x) : hn::MulAdd(w, x, acc);
  }
  hn::StoreU(acc, d, out);
}

template <int kStride, int kTaps>
void GatherUniformRow(const GatherAxis& axis, const float* HWY_RESTRICT src,
                      float* HWY_RESTRICT dst) {
  static_assert(kTaps >= 1 && kStride >= 1 && kStride <= 4, "");
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t offset = axis.uniform_offset;
  constexpr int64_t kLoads = (kTaps + kStride - 1) / kStride;
  // Vector loads stay inside the row: stride * i + offset >= 0 and
  // stride * (i + lanes + kLoads - 1) + offset <= source_length for the last element i.
  const int64_t first = std::max<int64_t>(axis.uniform_begin, (-offset + kStride - 1) / kStride);
  const int64_t last = std::min<int64_t>(
      axis.uniform_end,
      (static_cast<int64_t>(axis.source_length) - offset) / kStride - (kLoads - 1));  // exclusive
  if (last - first < lanes) {
    GatherExact(axis, src, dst, 0, axis.length);
    return;
  }
  GatherExact(axis, src, dst, 0, static_cast<size_t>(first));
  int64_t i = first;
  for (; i + lanes <= last; i += lanes) {
    UniformVector<kStride, kTaps>(d, src + kStride * i + offset, axis.uniform_weights, dst + i);
  }
  if (i < last) {  // a last, overlapping vector
    UniformVector<kStride, kTaps>(d, src + kStride * (last - lanes) + offset, axis.uniform_weights,
                                  dst + last - lanes);
  }
  GatherExact(axis, src, dst, static_cast<size_t>(last), axis.length);
}

using UniformRowFunction = void (*)(const GatherAxis&, const float*, float*);
constexpr int kMaxUniformTaps = 8;

template <int kStride, int... kTaps>
constexpr std::array<UniformRowFunction, sizeof...(kTaps)> UniformRowsForStride(
    std::integer_sequence<int, kTaps...>) {
  return {&GatherUniformRow<kStride, kTaps + 1>...};
}

// The row function for the axis's stride and tap count, or nullptr.
UniformRowFunction SelectUniformRow(const GatherAxis& axis) {
  using Taps = std::make_integer_sequence<int, kMaxUniformTaps>;
  static constexpr std::array<std::array<UniformRowFunction, kMaxUniformTaps>, 4> kTable = {
      UniformRowsForStride<1>(Taps()), UniformRowsForStride<2>(Taps()),
      UniformRowsForStride<3>(Taps()), UniformRowsForStride<4>(Taps())};
  if (axis.uniform_stride < 1 || axis.uniform_stride > 4 || axis.uniform_count < 1 ||
      axis.uniform_count > kMaxUniformTaps) {
    return nullptr;
  }
  return kTable[axis.uniform_stride - 1][axis.uniform_count - 1];
}

// The blocked form over `kRows` rows at once (at most 4): a block's weights are loaded once per
// window column and reused for every row.
template <size_t kRows>
void GatherRowsBlocked(const GatherAxis& axis, const float* const* src, float* const* dst) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  const size_t num_blocks = (axis.length + lanes - 1) / lanes;
  for (size_t b = 0; b < num_blocks; ++b) {
    const float* w = axis.block_weights + axis.block_offset[b];
    const size_t window =
        static_cast<size_t>(axis.block_offset[b + 1] - axis.block_offset[b]) / lanes;
    const int32_t begin = axis.window_begin[b];
    // Named accumulators rather than an array: arrays of vectors are not portable to SVE.
    auto acc0 = hn::Zero(d), acc1 = hn::Zero(d), acc2 = hn::Zero(d), acc3 = hn::Zero(d);
    for (size_t j = 0; j < window; ++j) {
      const auto wj = hn::LoadU(d, w + j * lanes);
      acc0 = hn::MulAdd(wj, hn::Set(d, src[0][begin + j]), acc0);
      if constexpr (kRows > 1) acc1 = hn::MulAdd(wj, hn::Set(d, src[1][begin + j]), acc1);
      if constexpr (kRows > 2) acc2 = hn::MulAdd(wj, hn::Set(d, src[2][begin + j]), acc2);
      if constexpr (kRows > 3) acc3 = hn::MulAdd(wj, hn::Set(d, src[3][begin + j]), acc3);
    }
    const size_t start = b * lanes;
    HWY_ALIGN float buffer[HWY_MAX_BYTES / sizeof(float)];
    for (size_t r = 0; r < kRows; ++r) {
      const auto acc = r == 0 ? acc0 : r == 1 ? acc1 : r == 2 ? acc2 : acc3;
      if (start + lanes <= axis.length) {
        hn::StoreU(acc, d, dst[r] + start);
      } else {
        hn::Store(acc, d, buffer);
        for (size_t t = start; t < axis.length; ++t) dst[r][t] = buffer[t - start];
      }
    }
  }
}

void GatherRowsImpl(const GatherAxis& axis, size_t rows, const float* src, ptrdiff_t src_stride,
                    float* dst, ptrdiff_t dst_stride) {
  const hn::ScalableTag<float> d;
  if (const UniformRowFunction uniform_row = SelectUniformRow(axis)) {
    for (size_t row = 0; row < rows; ++row) {
      uniform_row(axis, src + static_cast<ptrdiff_t>(row) * src_stride,
                  dst + static_cast<ptrdiff_t>(row) * dst_stride);
    }
    return;
  }
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
        GatherExact(axis, s, t, 0, axis.length);
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

size_t FloatLanes() {
  ApplySimdOverrideOnce();
  return HWY_DYNAMIC_DISPATCH(FloatLanesImpl)();
}

const char* ActiveTargetName() { return HWY_DYNAMIC_DISPATCH(ActiveTargetNameImpl)(); }

}  // namespace kernels
}  // namespace aclnn_upsample
#endif  // HWY_ONCE
