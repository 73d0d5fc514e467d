// The planar W pass: each result element gathers a short run of its source row. Four forms,
// fastest first:
//  - uniform interior: where every element's run has the same weights and starts `stride`
//    columns after its neighbour's (an integer upsampling factor, e.g. bilinear 2x), a vector
//    of elements is a weighted sum of de-interleaved loads; bit-identical to the exact runs;
//  - periodic interior: where runs repeat every few elements (a rational ratio such as 8/7),
//    every vector has the same lane pattern: one or two loads permuted into lanes per tap;
//    bit-identical to the exact runs;
//  - blocked: a block of `lanes` elements shares one dense window of source columns, so each
//    step is a broadcast source value times a vector of weights (a row whose results come out
//    not all finite is redone exactly, since the window's zero weights may have met a NaN or
//    Inf there);
//  - exact runs, one element at a time.
// Also the planar H-first row group (CombineThenGatherRows): the H pass of a few rows into
// scratch, stored split by column phase when the W pass is uniform with stride 2 or 4 (then the
// uniform form needs no de-interleaving: every tap is one plain unaligned load), then their W
// pass, in one dispatched call per band.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/gather_rows.cc"
#include <algorithm>
#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "hwy/cache_control.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/combine-inl.h"
#include "kernels/kernels.h"
#include "kernels/source_prefetch.h"

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

// Where column j of a source row is stored: in natural order, or split by phase as RowSink
// stores it (combine-inl.h).
struct NaturalColumns {
  size_t operator()(size_t j) const { return j; }
};
template <int kPhases>
struct SplitColumns {
  size_t phase_length;
  size_t operator()(size_t j) const { return SplitIndex<kPhases>(j, phase_length); }
};

// Exact runs of elements [from, to), one at a time, with the same operations in the same order
// as the vector forms and CombineRows.
template <class Columns = NaturalColumns>
HWY_INLINE void GatherExact(const GatherAxis& axis, const float* HWY_RESTRICT src,
                            float* HWY_RESTRICT dst, size_t from, size_t to,
                            Columns column = Columns()) {
  for (size_t i = from; i < to; ++i) {
    const int32_t begin = axis.weight_offset[i];
    const int32_t count = axis.weight_offset[i + 1] - begin;
    const size_t x = static_cast<size_t>(count > 0 ? axis.first[i] : 0);
    const float* w = axis.weights + begin;
    float acc = count > 0 ? w[0] * src[column(x)] : 0.0f;
    for (int32_t k = 1; k < count; ++k) acc = MulAddLikeVectors(w[k], src[column(x + k)], acc);
    dst[i] = acc;
  }
}

// One element of `rows` rows whose run has kCount taps (>= 1) at the given (stored) columns.
template <int kCount>
void GatherExactElement(const float* HWY_RESTRICT w, const size_t* index, size_t rows,
                        const float* src, ptrdiff_t src_stride, float* dst, ptrdiff_t dst_stride) {
  for (size_t row = 0; row < rows; ++row) {
    const float* x = src + static_cast<ptrdiff_t>(row) * src_stride;
    float acc = w[0] * x[index[0]];
    for (int32_t k = 1; k < kCount; ++k) acc = MulAddLikeVectors(w[k], x[index[k]], acc);
    *(dst + static_cast<ptrdiff_t>(row) * dst_stride) = acc;
  }
}

using ElementFunction = void (*)(const float*, const size_t*, size_t, const float*, ptrdiff_t,
                                 float*, ptrdiff_t);
constexpr int kMaxCompiledTaps = 16;

template <int... kCounts>
constexpr std::array<ElementFunction, sizeof...(kCounts)> ElementFunctions(
    std::integer_sequence<int, kCounts...>) {
  return {&GatherExactElement<kCounts + 1>...};
}
constexpr std::array<ElementFunction, kMaxCompiledTaps> kElementFunctions =
    ElementFunctions(std::make_integer_sequence<int, kMaxCompiledTaps>());

// GatherExact over `rows` rows, element by element: an element's columns are worked out once
// for all the rows (the uniform form's edges, a few elements of every row of a group). Runs of
// up to kMaxCompiledTaps taps (every bilinear edge, and the 9-16-tap edges of 2x-4x anti-aliased
// downscales) have their tap count compiled in, so an element costs a few instructions of set-up
// rather than a loop over its taps: with a run-time count up to 16, the edges of a 4x bicubic AA
// bfloat16 forward (case 26) took 7 % of it, which ran in 0.95-0.97 of its time compiled in.
// Longer runs go through GatherExact row by row. Not inlined: one copy per column layout serves
// every stride and tap count.
template <class Columns>
HWY_NOINLINE void GatherExactRows(const GatherAxis& axis, size_t rows, const float* src,
                                  ptrdiff_t src_stride, float* dst, ptrdiff_t dst_stride,
                                  size_t from, size_t to, Columns column) {
  for (size_t i = from; i < to; ++i) {
    const int32_t begin = axis.weight_offset[i];
    const int32_t count = axis.weight_offset[i + 1] - begin;
    float* dst_column = dst + i;
    if (count == 0) {
      for (size_t row = 0; row < rows; ++row)
        dst_column[static_cast<ptrdiff_t>(row) * dst_stride] = 0.0f;
      continue;
    }
    if (count > kMaxCompiledTaps) {
      for (size_t row = 0; row < rows; ++row) {
        GatherExact(axis, src + static_cast<ptrdiff_t>(row) * src_stride,
                    dst + static_cast<ptrdiff_t>(row) * dst_stride, i, i + 1, column);
      }
      continue;
    }
    const float* w = axis.weights + begin;
    const auto first = static_cast<size_t>(axis.first[i]);
    size_t index[kMaxCompiledTaps];
    for (int32_t k = 0; k < count; ++k) index[k] = column(first + static_cast<size_t>(k));
    kElementFunctions[count - 1](w, index, rows, src, src_stride, dst_column, dst_stride);
  }
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
// sum_k weights[k] * src[stride * i + shift + k]. From base = src + stride * i + shift, tap k
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

// The elements [first, last) of the uniform interior whose vector loads stay inside the row:
// stride * i + shift >= 0 and stride * (i + lanes + kLoads - 1) + shift <= source_length for
// the last element i. Empty (last - first < lanes) when no whole vector fits.
template <int kStride, int kTaps>
HWY_INLINE std::pair<int64_t, int64_t> VectorSpan(const GatherAxis& axis) {
  constexpr int64_t kLoads = (kTaps + kStride - 1) / kStride;
  const int64_t shift = axis.uniform_shift;
  const int64_t first = std::max<int64_t>(axis.uniform_begin, (-shift + kStride - 1) / kStride);
  const int64_t last = std::min<int64_t>(
      axis.uniform_end,
      (static_cast<int64_t>(axis.source_length) - shift) / kStride - (kLoads - 1));
  return {first, last};
}

// Runs `rows` uniform rows: exact runs outside [first, last), `vector_at(src_row, dst_row, i)`
// (elements i .. i + lanes - 1) inside it. After the first vector the others start where dst
// is aligned to a whole vector, the last overlapping its neighbour where the span is ragged:
// a 64-byte store that is not aligned always splits a cache line (a 32-byte one half the
// time), and from element 2, as a 2x backward's interior starts, every AVX-512 store did.
template <int kStride, int kTaps, class Columns, class VectorAt>
HWY_INLINE void GatherUniform(const GatherAxis& axis, size_t rows, const float* src,
                              ptrdiff_t src_stride, float* dst, ptrdiff_t dst_stride,
                              Columns columns, VectorAt vector_at) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(hn::ScalableTag<float>()));
  const auto [first, last] = VectorSpan<kStride, kTaps>(axis);
  if (last - first < lanes) {
    GatherExactRows(axis, rows, src, src_stride, dst, dst_stride, 0, axis.length, columns);
    return;
  }
  for (size_t row = 0; row < rows; ++row) {
    const float* src_row = src + static_cast<ptrdiff_t>(row) * src_stride;
    float* dst_row = dst + static_cast<ptrdiff_t>(row) * dst_stride;
    vector_at(src_row, dst_row, first);
    // The first element after `first` whose address is a multiple of the vector's size.
    const auto offset = static_cast<int64_t>(reinterpret_cast<uintptr_t>(dst_row + first) /
                                             sizeof(float) % static_cast<uintptr_t>(lanes));
    int64_t i = first + lanes - offset;
    for (; i + lanes <= last; i += lanes) vector_at(src_row, dst_row, i);
    if (i < last) vector_at(src_row, dst_row, last - lanes);
  }
  GatherExactRows(axis, rows, src, src_stride, dst, dst_stride, 0, static_cast<size_t>(first),
                  columns);
  GatherExactRows(axis, rows, src, src_stride, dst, dst_stride, static_cast<size_t>(last),
                  axis.length, columns);
}

template <int kStride, int kTaps>
void GatherUniformRows(const GatherAxis& axis, size_t rows, const float* src, ptrdiff_t src_stride,
                       float* dst, ptrdiff_t dst_stride) {
  static_assert(kTaps >= 1 && kStride >= 1 && kStride <= kMaxUniformStride, "");
  const hn::ScalableTag<float> d;
  const int64_t shift = axis.uniform_shift;
  float weights[kTaps];  // a local, so the compiler knows the stores to dst cannot change it
  for (int k = 0; k < kTaps; ++k) weights[k] = axis.uniform_weights[k];
  GatherUniform<kStride, kTaps>(
      axis, rows, src, src_stride, dst, dst_stride, NaturalColumns(),
      [&](const float* HWY_RESTRICT src_row, float* HWY_RESTRICT dst_row, int64_t i) {
        UniformVector<kStride, kTaps>(d, src_row + kStride * i + shift, weights, dst_row + i);
      });
}

// The uniform form over rows stored split by phase (RowSink<kStride>): tap k of element i is
// column kStride * i + shift + k, that is phase (shift + k) mod kStride at index i +
// floor((shift + k) / kStride), so every tap is one unaligned load and no shuffles remain.
// Operations match GatherExact's, as in UniformVector.
template <int kStride, int kTaps>
void GatherUniformSplitRows(const GatherAxis& axis, size_t rows, const float* src,
                            ptrdiff_t src_stride, size_t phase_length, float* dst,
                            ptrdiff_t dst_stride) {
  static_assert(kTaps >= 1 && (kStride == 2 || kStride == 4), "");
  const hn::ScalableTag<float> d;
  // Locals, so the compiler knows the stores to dst cannot change them.
  float weights[kTaps];
  int64_t tap_index[kTaps];
  for (int k = 0; k < kTaps; ++k) {
    weights[k] = axis.uniform_weights[k];
    const int64_t column = axis.uniform_shift + k;
    const int64_t phase = column & (kStride - 1);  // two's complement: the floor's remainder
    tap_index[k] = phase * static_cast<int64_t>(phase_length) + (column - phase) / kStride;
  }
  GatherUniform<kStride, kTaps>(
      axis, rows, src, src_stride, dst, dst_stride, SplitColumns<kStride>{phase_length},
      [&](const float* HWY_RESTRICT src_row, float* HWY_RESTRICT dst_row, int64_t i) {
        auto acc = hn::Mul(hn::Set(d, weights[0]), hn::LoadU(d, src_row + tap_index[0] + i));
        for (int k = 1; k < kTaps; ++k) {
          acc = hn::MulAdd(hn::Set(d, weights[k]), hn::LoadU(d, src_row + tap_index[k] + i), acc);
        }
        hn::StoreU(acc, d, dst_row + i);
      });
}

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// Lane l of the result is column[l] of the kLoads * 16 columns v0, v1, ...: two-table permutes
// (vpermt2ps, which take the column modulo 32; vpermps modulo 16) instead of a permute and a
// blend per load. The two-load taps of the 8/7 bicubic AA rows (case 9) had cost AVX-512 four
// instructions more than one-load ones. Lanes whose column is undefined come out undefined.
template <int kLoads>
HWY_INLINE __m512 PermuteColumns(__m512 v0, __m512 v1, __m512 v2, __m512 v3, __m512i column) {
  static_assert(kLoads >= 1 && kLoads <= kMaxPeriodicLoads, "");
  if constexpr (kLoads == 1) {
    (void)v1;
    (void)v2;
    (void)v3;
    return _mm512_permutexvar_ps(column, v0);
  } else {
    const __m512 low = _mm512_permutex2var_ps(v0, column, v1);
    if constexpr (kLoads == 2) {
      (void)v2;
      (void)v3;
      return low;
    } else {
      // Columns from 32 on: in v2 alone or in v2, v3.
      const __m512 high =
          kLoads == 3 ? _mm512_permutexvar_ps(column, v2) : _mm512_permutex2var_ps(v2, column, v3);
      return _mm512_mask_blend_ps(_mm512_cmpge_epi32_mask(column, _mm512_set1_epi32(32)), low,
                                  high);
    }
  }
}
#endif

// Lane l of the result is column[l] of the kLoads * lanes columns v0, v1, ... (v0 alone holds
// every column with one load; the vectors past kLoads are not read).
template <int kLoads, class D, class V, class VI>
HWY_INLINE V SelectColumns(D d, V v0, V v1, V v2, V v3, VI column, VI lane_of, VI lanes_v) {
  static_assert(kLoads >= 1 && kLoads <= kMaxPeriodicLoads, "");
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (kLoads >= 2) {
    (void)lane_of;
    (void)lanes_v;
    return V{PermuteColumns<kLoads>(v0.raw, v1.raw, v2.raw, v3.raw, column.raw)};
  }
#endif
  const auto lane = hn::IndicesFromVec(d, hn::And(column, lane_of));
  // The last load's lanes, then each earlier load's where the column lies before its end.
  auto x = hn::TableLookupLanes(kLoads == 1 ? v0 : kLoads == 2 ? v1 : kLoads == 3 ? v2 : v3, lane);
  if constexpr (kLoads >= 4) {
    x = hn::IfThenElse(
        hn::RebindMask(d, hn::Lt(column, hn::Add(hn::Add(lanes_v, lanes_v), lanes_v))),
        hn::TableLookupLanes(v2, lane), x);
  }
  if constexpr (kLoads >= 3) {
    x = hn::IfThenElse(hn::RebindMask(d, hn::Lt(column, hn::Add(lanes_v, lanes_v))),
                       hn::TableLookupLanes(v1, lane), x);
  }
  if constexpr (kLoads >= 2) {
    x = hn::IfThenElse(hn::RebindMask(d, hn::Lt(column, lanes_v)), hn::TableLookupLanes(v0, lane),
                       x);
  }
  return x;
}

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// Whether this target runs periodic interiors of half its lanes (GatherPeriodicRows, kHalf):
// 8 results a vector whose taps reach up to 64 columns, four whole 16-float loads.
inline constexpr bool kHasHalfPeriodic = true;
// Whether SelectColumns picks from two loads with one permute (the others: one per load and a
// blend per load after the first).
inline constexpr bool kTwoTablePermutes = true;

// SelectColumns for 8 result lanes from kLoads 16-float loads: the low half of the whole
// vectors' permutes (the index's upper half is left undefined, and so is the result's).
template <int kLoads, class D, class V16, class VI>
HWY_INLINE hn::Vec<D> SelectHalfColumns(V16 v0, V16 v1, V16 v2, V16 v3, VI column) {
  return hn::Vec<D>{_mm512_castps512_ps256(
      PermuteColumns<kLoads>(v0.raw, v1.raw, v2.raw, v3.raw, _mm512_castsi256_si512(column.raw)))};
}
#else
inline constexpr bool kHasHalfPeriodic = false;
inline constexpr bool kTwoTablePermutes = false;
#endif

// v, kept in a register: GCC otherwise folds a row's load into each tap's permute, a load per
// tap, and at a row offset that is not a multiple of the vector each of them splits across two
// cache lines. One load per vector measured 17 % faster on 256 -> 512 bilinear rows (AVX-512).
template <class V>
HWY_INLINE V KeepInRegister(V v) {
#if HWY_ARCH_X86 && (HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL)
  asm volatile("" : "+v"(v.raw));
#elif HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
  asm volatile("" : "+x"(v.raw));
#endif
  return v;
}

// The periodic form: every vector of the interior has one of a few lane patterns (kernels.h),
// so its taps are one or two plain loads from the vector's base, permuted into lanes. A lane
// whose run is shorter than the longest keeps its sum through the extra taps (a blend, not a
// multiply by 0), so each lane sees exactly its run's operations in GatherExact's order: the
// bits are the exact runs', NaN and Inf included.
//
// kHalf (AVX-512 only: kHasHalfPeriodic): vectors of half the lanes, 8 results, whose kLoads
// loads are whole 16-float vectors: a bilinear downscale by 4.46 (1000 -> 224) reads 38 columns
// for 8 results, 73 for 16, past what four loads reach, and took a gather per tap.
template <int kTaps, int kLoads, bool kHalf = false>
void GatherPeriodicRows(const GatherAxis& axis, size_t rows, const float* src, ptrdiff_t src_stride,
                        float* dst, ptrdiff_t dst_stride) {
  const hn::ScalableTag<float> dl;  // the loads'
  constexpr size_t kHalfLanes = std::max<size_t>(hn::MaxLanes(hn::ScalableTag<float>()) / 2, 1);
  using D = std::conditional_t<kHalf, hn::CappedTag<float, kHalfLanes>, hn::ScalableTag<float>>;
  const D d;  // the results', tables' and weights'
  const hn::RebindToSigned<decltype(d)> di;
  const auto lanes = static_cast<int32_t>(hn::Lanes(d));
  const auto lane_of = hn::Set(di, lanes - 1);  // lanes is a power of two
  const auto lanes_v = hn::Set(di, lanes);
  // The axis's tables in locals: the compiler cannot tell that the stores to dst leave them be.
  const int32_t patterns = axis.periodic_patterns;
  const int32_t* HWY_RESTRICT counts = axis.periodic_counts;
  const int32_t* HWY_RESTRICT index = axis.periodic_index;
  const float* HWY_RESTRICT weights = axis.periodic_weights;
  const int32_t* HWY_RESTRICT next_pattern = axis.periodic_next_pattern;
  const int32_t* HWY_RESTRICT base_step = axis.periodic_base_step;
  const int32_t first_base = axis.periodic_base;
  const ptrdiff_t table_taps = static_cast<ptrdiff_t>(kTaps) * lanes;
  // Taps below every lane's run length need no blend.
  const int32_t all_in_run = *std::min_element(counts, counts + patterns * lanes);
  const int64_t loaded = int64_t{kLoads} * static_cast<int64_t>(hn::Lanes(dl));
  const auto source_length = static_cast<int64_t>(axis.source_length);
  constexpr size_t kMaxLoaded = kMaxPeriodicLoads * HWY_MAX_BYTES / sizeof(float);
  HWY_ALIGN float padded[kMaxLoaded] = {};  // a tail vector's columns (what follows is unread)
  // The vector whose lanes read from `base` on (its base column of the row, `shift` columns
  // past `loads`, from which its whole vectors are loaded), with a lane pattern's run lengths
  // and tables, into `out`. `in_register` keeps the loads in registers (KeepInRegister): the
  // per-call layout's loops measured faster so (256 -> 512 rows 17 %), the vector-by-vector
  // loop slower (the 7-pattern 256 -> 224 forward, case 18, 5 %). `all_in_every_run` (true at
  // compile time) promises that every lane's run takes all kTaps taps, so no tap is blended.
  const auto vector_from = [&](const float* HWY_RESTRICT loads, auto shifted, int32_t shift,
                               auto in_register, auto all_in_every_run,
                               decltype(lanes_v) pattern_counts,
                               const int32_t* HWY_RESTRICT pattern_index,
                               const float* HWY_RESTRICT pattern_weights, float* out) {
    const auto load = [&](const float* from) {
      if constexpr (decltype(in_register)::value) return KeepInRegister(hn::LoadU(dl, from));
      return hn::LoadU(dl, from);
    };
    const auto load_lanes = static_cast<ptrdiff_t>(hn::Lanes(dl));
    const auto v0 = load(loads);
    // Vectors past the first only where the span needs them: past it they may leave the row.
    const auto v1 = kLoads >= 2 ? load(loads + load_lanes) : v0;
    const auto v2 = kLoads >= 3 ? load(loads + 2 * load_lanes) : v0;
    const auto v3 = kLoads >= 4 ? load(loads + 3 * load_lanes) : v0;
    auto acc = hn::Zero(d);
    for (int k = 0; k < kTaps; ++k) {
      auto column = hn::LoadU(di, pattern_index + k * lanes);
      if constexpr (decltype(shifted)::value) column = hn::Add(column, hn::Set(di, shift));
      const auto x = [&] {
        if constexpr (kHalf) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
          return SelectHalfColumns<kLoads, D>(v0, v1, v2, v3, column);
#endif
        } else {
          return SelectColumns<kLoads>(d, v0, v1, v2, v3, column, lane_of, lanes_v);
        }
      }();
      const auto w = hn::LoadU(d, pattern_weights + k * lanes);
      const auto sum = k == 0 ? hn::Mul(w, x) : hn::MulAdd(w, x, acc);
      acc =
          decltype(all_in_every_run)::value || k < all_in_run
              ? sum
              : hn::IfThenElse(hn::RebindMask(d, hn::Lt(hn::Set(di, k), pattern_counts)), sum, acc);
    }
    hn::StoreU(acc, d, out);
  };
  // The same from column `start` of `src_row`. Where its whole-vector loads would pass the
  // row's end (the last vectors of a row, and the overhang's), they end at the row's end
  // instead and every tap's column moves up by as much: the taps never pass the end, so they
  // stay inside the loads. (A copy into a padded buffer, as rows shorter than the loads still
  // take, cost the 8/7 rows 10-20 % of their W pass: a call and a store-forwarding stall per
  // row.)
  const auto vector_at = [&](const float* src_row, int64_t start, decltype(lanes_v) pattern_counts,
                             const int32_t* HWY_RESTRICT pattern_index,
                             const float* HWY_RESTRICT pattern_weights, float* out) {
    if (start + loaded <= source_length) {
      vector_from(src_row + start, std::false_type(), 0, std::false_type(), std::false_type(),
                  pattern_counts, pattern_index, pattern_weights, out);
    } else if (source_length >= loaded) {
      vector_from(src_row + source_length - loaded, std::true_type(),
                  static_cast<int32_t>(start + loaded - source_length), std::false_type(),
                  std::false_type(), pattern_counts, pattern_index, pattern_weights, out);
    } else {
      const float* base = src_row + start;
      std::copy(base, base + (source_length - start), padded);
      vector_from(padded, std::false_type(), 0, std::false_type(), std::false_type(),
                  pattern_counts, pattern_index, pattern_weights, out);
    }
  };
  // The same with pattern `pattern`'s tables.
  const auto vector_of = [&](const float* src_row, int64_t start, int32_t pattern, float* out) {
    vector_at(src_row, start, hn::LoadU(di, counts + static_cast<ptrdiff_t>(pattern) * lanes),
              index + pattern * table_taps, weights + pattern * table_taps, out);
  };
  const int32_t last = axis.periodic_vectors - 1;
  // A row's vectors load from the same columns with the same tables in every row, so unless the
  // rows are shorter than the loads or the tables outgrow the stack buffers, what varies along a
  // row is worked out once per call, here:
  //  - every pattern's tables are copied onto the stack, where no store to dst can reach them
  //    (through the axis's pointers the compiler reloaded the weights for every vector);
  //  - the vectors whose loads stay inside the row are listed with their start and pattern (one
  //    pattern needs no list: its step is constant);
  //  - the others, whose loads end at the row's end instead, and the overhang, get their
  //    moved-up columns.
  // One pattern of 64 -> 128 bilinear rows (AVX-512, in L1) went from 11.5 to 5.1 cycles a
  // vector: the per-vector row-end checks, pattern walk and shifts had cost more than the taps.
  constexpr ptrdiff_t kMaxRowTable = 1024;  // entries of each copied table (4 KiB)
  // Vectors of a row with several patterns: the 2x upscales of RGB pixel rows (3 patterns) have
  // 96 vectors in a 512-pixel row on AVX-512, 192 on AVX2; at 64 they took the loop below, and
  // their W pass 2.2x the time of the same problem's planar rows (2 KiB each way on the stack).
  constexpr int32_t kMaxListed = 512;
  constexpr int32_t kMaxEndVectors = 64;
  const ptrdiff_t table_entries = static_cast<ptrdiff_t>(patterns) * table_taps;
  // The layout costs about a vector step per table vector it copies, so a call of few vectors
  // with many patterns would spend more on it than it saves: channels-last RGB 256 -> 224 passes
  // a row at a time (21 patterns) and ran 40 % slower, and the 8-row groups of the H-first
  // 256 -> 224 forward (7 patterns, case 18) 5 % slower. Several patterns save less a vector
  // (14.5 -> 13.2 cycles against 11.5 -> 5.1 for one), so they need four times the vectors.
  const int64_t vectors_per_table_vector = patterns == 1 ? 4 : 16;
  const bool layout_pays =
      static_cast<int64_t>(rows) * (last + 1) >= vectors_per_table_vector * (table_entries / lanes);
  if (layout_pays && source_length >= loaded && table_entries <= kMaxRowTable &&
      (patterns == 1 || last < kMaxListed)) {
    // One walk along the row: vectors [0, inside) load within it (starts are non-decreasing, so
    // they come first) and are listed where there are several patterns; the others, and the
    // overhang, are its end vectors. Upsampling by k leaves about k of them (a vector's loads
    // advance lanes / k columns); more than the buffers hold leave the row to the loop below.
    int32_t inside = 0;
    int32_t listed_start[kMaxListed];
    int32_t listed_pattern[kMaxListed];
    struct EndVector {
      int64_t load;     // the column its loads start from
      ptrdiff_t out;    // its first result column, from the interior's begin
      int32_t pattern;  // its weights and run lengths; its columns are in end_index
    };
    EndVector ends[kMaxEndVectors];
    HWY_ALIGN int32_t end_index[kMaxRowTable];
    int32_t end_count = 0;
    const auto add_end = [&](int64_t start, int32_t pattern, ptrdiff_t out) {
      if (end_count == kMaxEndVectors || (end_count + 1) * table_taps > kMaxRowTable) return false;
      const int64_t load = std::min(start, source_length - loaded);
      const auto shift = static_cast<int32_t>(start - load);
      const int32_t* pattern_index = index + pattern * table_taps;
      int32_t* const moved = end_index + end_count * table_taps;
      for (ptrdiff_t t = 0; t < table_taps; ++t) moved[t] = pattern_index[t] + shift;
      ends[end_count++] = {load, out, pattern};
      return true;
    };
    bool ends_fit = true;
    int64_t start = first_base;
    int32_t pattern = 0;
    for (int32_t m = 0; m <= last && ends_fit; ++m) {
      if (m == inside && start + loaded <= source_length) {
        if (patterns > 1) {
          listed_start[m] = static_cast<int32_t>(start);
          listed_pattern[m] = pattern;
        }
        ++inside;
      } else {
        ends_fit = add_end(start, pattern, static_cast<ptrdiff_t>(m) * lanes);
      }
      start += base_step[pattern];
      pattern = next_pattern[pattern];
    }
    if (ends_fit && axis.periodic_overhang > 0) {
      ends_fit = add_end(axis.periodic_overhang_base, axis.periodic_overhang_pattern,
                         static_cast<ptrdiff_t>(last) * lanes + axis.periodic_overhang);
    }
    if (ends_fit) {
      HWY_ALIGN int32_t row_index[kMaxRowTable];
      HWY_ALIGN float row_weights[kMaxRowTable];
      std::copy(index, index + table_entries, row_index);
      std::copy(weights, weights + table_entries, row_weights);
      const auto counts_of = [&](int32_t p) {
        return hn::LoadU(di, counts + static_cast<ptrdiff_t>(p) * lanes);
      };
      const int64_t step = base_step[0];
      const auto one_pattern_counts = counts_of(0);
      // Two or three patterns that take turns from the first vector on (2x upscales of pixel
      // rows of 3 or 6 channels: three) run a whole cycle of vectors per step, each with its
      // own pattern's tables: the same in every step, they stay in registers, where a listed
      // vector's pattern loaded them all again (a load per tap for its columns and one for its
      // weights, each vector, on top of its two loads of columns). On the Zen 4 VM (session 43,
      // in-process, both orders) channels-last RGB 256 -> 512 bicubic forwards ran 1.17-1.28x
      // faster on AVX-512 and 1.14 on AVX2, 6 channels 128 -> 256 bilinear 1.12-1.25 (AVX2 1.30),
      // the RGB 224 -> 256 bilinear gradient 1.08-1.10 (AVX2 1.23); the channels-last shapes of
      // other periods measured 0.98-1.02.
      int32_t cycle_patterns = 0;
      int32_t cycle[3] = {0, 0, 0};         // the patterns in turn
      int64_t cycle_offset[3] = {0, 0, 0};  // their vectors' columns from the cycle's first
      int64_t cycle_step = 0;               // columns from one cycle to the next
      if (patterns <= 3) {
        int32_t p = 0;
        for (int32_t k = 0; k < patterns; ++k) {
          cycle[k] = p;
          cycle_offset[k] = cycle_step;
          cycle_step += base_step[p];
          p = next_pattern[p];
        }
        // Each pattern once, back at the first after `patterns` steps.
        const bool whole =
            p == 0 && cycle[1] != 0 && (patterns < 3 || (cycle[2] != 0 && cycle[2] != cycle[1]));
        cycle_patterns = whole ? patterns : 0;
      }
      // Vectors [0, returned) of the row's listed ones, a cycle of kPatterns at a time.
      const auto cycles = [&](auto num_patterns, auto all_in_every_run, const float* src_row,
                              float* out) {
        constexpr int32_t kPatterns = decltype(num_patterns)::value;
        int32_t m = 0;
        const float* from = src_row + first_base;
        for (; m + kPatterns <= inside; m += kPatterns) {
#pragma GCC unroll 3
          for (int32_t k = 0; k < kPatterns; ++k) {
            const int32_t p = cycle[k];
            vector_from(from + cycle_offset[k], std::false_type(), 0, std::true_type(),
                        all_in_every_run,
                        decltype(all_in_every_run)::value ? one_pattern_counts : counts_of(p),
                        row_index + p * table_taps, row_weights + p * table_taps,
                        out + static_cast<ptrdiff_t>(m + k) * lanes);
          }
          from += cycle_step;
        }
        return m;
      };
      for (size_t row = 0; row < rows; ++row) {
        const float* src_row = src + static_cast<ptrdiff_t>(row) * src_stride;
        float* out = dst + static_cast<ptrdiff_t>(row) * dst_stride + axis.periodic_begin;
        if (patterns == 1) {  // a constant step: no list
          // Where every lane's run takes every tap (bilinear and bicubic upscales, for
          // instance), the loop is compiled without the blends' checks: they were two of the
          // eleven instructions of a 64 -> 128 bilinear row's vector.
          const auto interior = [&](auto all_in_every_run) {
            for (int32_t m = 0; m < inside; ++m) {
              vector_from(src_row + first_base + m * step, std::false_type(), 0, std::true_type(),
                          all_in_every_run, one_pattern_counts, row_index, row_weights,
                          out + static_cast<ptrdiff_t>(m) * lanes);
            }
          };
          if (all_in_run >= kTaps) {
            interior(std::true_type());
          } else {
            interior(std::false_type());
          }
        } else {
          const auto listed = [&](auto all_in_every_run) {
            int32_t m = 0;
            if (cycle_patterns == 2) {
              m = cycles(std::integral_constant<int32_t, 2>(), all_in_every_run, src_row, out);
            } else if (cycle_patterns == 3) {
              m = cycles(std::integral_constant<int32_t, 3>(), all_in_every_run, src_row, out);
            }
            for (; m < inside; ++m) {
              const int32_t p = listed_pattern[m];
              vector_from(src_row + listed_start[m], std::false_type(), 0, std::true_type(),
                          all_in_every_run,
                          decltype(all_in_every_run)::value ? one_pattern_counts : counts_of(p),
                          row_index + p * table_taps, row_weights + p * table_taps,
                          out + static_cast<ptrdiff_t>(m) * lanes);
            }
          };
          if (all_in_run >= kTaps) {  // as for one pattern
            listed(std::true_type());
          } else {
            listed(std::false_type());
          }
        }
        for (int32_t e = 0; e < end_count; ++e) {
          const int32_t p = ends[e].pattern;
          vector_from(src_row + ends[e].load, std::false_type(), 0, std::true_type(),
                      std::false_type(), counts_of(p), end_index + e * table_taps,
                      row_weights + p * table_taps, out + ends[e].out);
        }
      }
      return;
    }
  }
  for (size_t row = 0; row < rows; ++row) {
    const float* src_row = src + static_cast<ptrdiff_t>(row) * src_stride;
    float* out = dst + static_cast<ptrdiff_t>(row) * dst_stride + axis.periodic_begin;
    if (patterns == 1) {  // one pattern: a constant step, the same tables
      const int64_t step = base_step[0];
      const auto pattern_counts = hn::LoadU(di, counts);
      for (int32_t m = 0; m <= last; ++m) {
        vector_at(src_row, first_base + m * step, pattern_counts, index, weights,
                  out + static_cast<ptrdiff_t>(m) * lanes);
      }
    } else {
      int64_t start = first_base;
      int32_t pattern = 0;
      for (int32_t m = 0; m <= last; ++m) {
        vector_of(src_row, start, pattern, out + static_cast<ptrdiff_t>(m) * lanes);
        start += base_step[pattern];
        pattern = next_pattern[pattern];
      }
    }
    if (axis.periodic_overhang > 0) {
      vector_of(src_row, axis.periodic_overhang_base, axis.periodic_overhang_pattern,
                out + static_cast<ptrdiff_t>(last) * lanes + axis.periodic_overhang);
    }
  }
}

using PeriodicRowFunction = void (*)(const GatherAxis&, size_t, const float*, ptrdiff_t, float*,
                                     ptrdiff_t);

// Rows whose vectors load kLoads vectors, for 1 to sizeof...(kTaps) taps (the rest nullptr).
template <int kLoads, int... kTaps>
constexpr std::array<PeriodicRowFunction, kMaxPeriodicTaps> PeriodicRowsForLoads(
    std::integer_sequence<int, kTaps...>) {
  return {&GatherPeriodicRows<kTaps + 1, kLoads>...};
}

// The same in half vectors, where this target has them (else never called).
template <int kLoads, int... kTaps>
constexpr std::array<PeriodicRowFunction, kMaxPeriodicTaps> HalfPeriodicRowsForLoads(
    std::integer_sequence<int, kTaps...>) {
  if constexpr (kHasHalfPeriodic) {
    return {&GatherPeriodicRows<kTaps + 1, kLoads, true>...};
  } else {
    return {};
  }
}

// The periodic-row function for the axis's tap count and span, or nullptr when the axis has no
// periodic interior for this target's lanes (or half of them: kHasHalfPeriodic).
PeriodicRowFunction SelectPeriodicRow(const GatherAxis& axis) {
  using Taps = std::make_integer_sequence<int, kMaxPeriodicTaps>;
  static_assert(kMaxPeriodicLoads == 4, "one row of kTable per load count");
  static constexpr std::array<std::array<PeriodicRowFunction, kMaxPeriodicTaps>, 4> kTable = {
      PeriodicRowsForLoads<1>(Taps()), PeriodicRowsForLoads<2>(Taps()),
      PeriodicRowsForLoads<3>(Taps()), PeriodicRowsForLoads<4>(Taps())};
  const auto lanes = static_cast<int32_t>(hn::Lanes(hn::ScalableTag<float>()));
  // The lane of a tap's column is taken modulo lanes with a mask (GatherPeriodicRows), so the
  // lanes must be a power of two (SVE allows other multiples of four).
  if ((lanes & (lanes - 1)) != 0 || axis.periodic_vectors < 1) return nullptr;
  if constexpr (kHasHalfPeriodic) {
    if (axis.periodic_lanes == lanes / 2) {
      // Half vectors whose whole-vector loads reach beyond two (the plan keeps them only where
      // whole vectors reach too far: PeriodicRowsInHalfVectors).
      static constexpr std::array<std::array<PeriodicRowFunction, kMaxPeriodicTaps>, 2> kHalf = {
          HalfPeriodicRowsForLoads<3>(Taps()), HalfPeriodicRowsForLoads<4>(Taps())};
      const int32_t loads = PeriodicLoads(axis.periodic_span, axis.periodic_taps, lanes);
      if (loads < 3) return nullptr;
      return kHalf[static_cast<size_t>(loads - 3)][static_cast<size_t>(axis.periodic_taps - 1)];
    }
  }
  if (axis.periodic_lanes != lanes) return nullptr;
  const int32_t loads = PeriodicLoads(axis.periodic_span, axis.periodic_taps, lanes);
  if (loads == 0) return nullptr;
  return kTable[static_cast<size_t>(loads - 1)][static_cast<size_t>(axis.periodic_taps - 1)];
}

bool PeriodicRowsInHalfVectorsImpl() { return kHasHalfPeriodic; }

using UniformRowFunction = void (*)(const GatherAxis&, size_t, const float*, ptrdiff_t, float*,
                                    ptrdiff_t);

template <int kStride, int... kTaps>
constexpr std::array<UniformRowFunction, sizeof...(kTaps)> UniformRowsForStride(
    std::integer_sequence<int, kTaps...>) {
  return {&GatherUniformRows<kStride, kTaps + 1>...};
}

// The row function for the axis's stride and tap count, or nullptr.
UniformRowFunction SelectUniformRow(const GatherAxis& axis) {
  using Taps = std::make_integer_sequence<int, kMaxUniformTaps>;
  static_assert(kMaxUniformStride == 4, "one row of kTable per stride");
  static constexpr std::array<std::array<UniformRowFunction, kMaxUniformTaps>, 4> kTable = {
      UniformRowsForStride<1>(Taps()), UniformRowsForStride<2>(Taps()),
      UniformRowsForStride<3>(Taps()), UniformRowsForStride<4>(Taps())};
  if (axis.uniform_stride < 1 || axis.uniform_stride > kMaxUniformStride ||
      axis.uniform_count < 1 || axis.uniform_count > kMaxUniformTaps) {
    return nullptr;
  }
  return kTable[axis.uniform_stride - 1][axis.uniform_count - 1];
}

using SplitRowFunction = void (*)(const GatherAxis&, size_t, const float*, ptrdiff_t, size_t,
                                  float*, ptrdiff_t);

template <int kStride, int... kTaps>
constexpr std::array<SplitRowFunction, sizeof...(kTaps)> SplitRowsForStride(
    std::integer_sequence<int, kTaps...>) {
  return {&GatherUniformSplitRows<kStride, kTaps + 1>...};
}

// The split-row function for the axis's stride (2 or 4, the strides RowSink splits by) and tap
// count, or nullptr: other strides keep natural rows.
SplitRowFunction SelectSplitRow(const GatherAxis& axis) {
  using Taps = std::make_integer_sequence<int, kMaxUniformTaps>;
  static constexpr std::array<std::array<SplitRowFunction, kMaxUniformTaps>, 2> kTable = {
      SplitRowsForStride<2>(Taps()), SplitRowsForStride<4>(Taps())};
  if ((axis.uniform_stride != 2 && axis.uniform_stride != 4) || axis.uniform_count < 1 ||
      axis.uniform_count > kMaxUniformTaps) {
    return nullptr;
  }
  return kTable[axis.uniform_stride / 2 - 1][axis.uniform_count - 1];
}

// Rows the blocked form runs at once. Each row's sum over a block's window is one chain of
// dependent MulAdds (the exact runs' order), so 4 rows kept only 4 chains in flight, half of
// what two FMA pipes with a 4-cycle latency take; 8 fill them and still fit AVX2's 16 registers
// (8 sums, the weights, a broadcast).
inline constexpr size_t kBlockedRows = 8;

// Stores a block's sums `acc` of one row (those of the `valid` lanes that fall in the row) and
// returns whether they are all finite (x - x is 0 for finite x and NaN otherwise).
template <class D, class V>
HWY_INLINE bool StoreBlock(D d, V acc, float* HWY_RESTRICT dst, size_t valid) {
  if (valid == hn::Lanes(d)) {
    hn::StoreU(acc, d, dst);
  } else {
    HWY_ALIGN float buffer[HWY_MAX_BYTES / sizeof(float)];
    hn::Store(acc, d, buffer);
    for (size_t t = 0; t < valid; ++t) dst[t] = buffer[t];
  }
  return hn::AllTrue(d, hn::Eq(hn::Sub(acc, acc), hn::Zero(d)));
}

// The blocked form over `kRows` rows at once (at most kBlockedRows): a block's weights are
// loaded once per window column and reused for every row. Returns a bit per row whose results
// are not all finite: only there can the window's zero weights have met a NaN or Inf (0 * Inf
// is NaN), since every lane of a block sums every column of its window, so a non-finite column
// leaves every lane non-finite; the caller redoes those rows by their exact runs. Finite
// results are the exact runs' bits. Checked in registers, where checking the source rows first
// cost a pass over them (10-18 % of the samples of the 256 <-> 224 bicubic AA cases 9 and 23).
//
// `next_rows` holds the rows of the next call, prefetched evenly over this call's blocks: a sum's
// chain waits on each of its loads, so rows read from memory (a W-first pass over the source)
// must arrive ahead; issued at once they would stall the core on the full miss queues.
template <class D, size_t kRows>
unsigned GatherRowsBlocked(const GatherAxis& axis, const float* const* src, float* const* dst,
                           LinePrefetchQueue* next_rows) {
  static_assert(kRows >= 1 && kRows <= kBlockedRows, "");
  const D d;
  const size_t lanes = hn::Lanes(d);
  const size_t num_blocks = (axis.length + lanes - 1) / lanes;
  const size_t quota = next_rows->QuotaFor(num_blocks);
  unsigned nonfinite_rows = 0;
  for (size_t b = 0; b < num_blocks; ++b) {
    next_rows->Issue(quota);
    const float* w = axis.block_weights + axis.block_offset[b];
    const size_t window =
        static_cast<size_t>(axis.block_offset[b + 1] - axis.block_offset[b]) / lanes;
    const int32_t begin = axis.window_begin[b];
    // Named accumulators rather than an array: arrays of vectors are not portable to SVE.
    auto acc0 = hn::Zero(d), acc1 = hn::Zero(d), acc2 = hn::Zero(d), acc3 = hn::Zero(d);
    auto acc4 = hn::Zero(d), acc5 = hn::Zero(d), acc6 = hn::Zero(d), acc7 = hn::Zero(d);
    for (size_t j = 0; j < window; ++j) {
      const auto wj = hn::LoadU(d, w + j * lanes);
      acc0 = hn::MulAdd(wj, hn::Set(d, src[0][begin + j]), acc0);
      if constexpr (kRows > 1) acc1 = hn::MulAdd(wj, hn::Set(d, src[1][begin + j]), acc1);
      if constexpr (kRows > 2) acc2 = hn::MulAdd(wj, hn::Set(d, src[2][begin + j]), acc2);
      if constexpr (kRows > 3) acc3 = hn::MulAdd(wj, hn::Set(d, src[3][begin + j]), acc3);
      if constexpr (kRows > 4) acc4 = hn::MulAdd(wj, hn::Set(d, src[4][begin + j]), acc4);
      if constexpr (kRows > 5) acc5 = hn::MulAdd(wj, hn::Set(d, src[5][begin + j]), acc5);
      if constexpr (kRows > 6) acc6 = hn::MulAdd(wj, hn::Set(d, src[6][begin + j]), acc6);
      if constexpr (kRows > 7) acc7 = hn::MulAdd(wj, hn::Set(d, src[7][begin + j]), acc7);
    }
    const size_t start = b * lanes;
    const size_t valid = std::min(lanes, axis.length - start);
    unsigned finite = StoreBlock(d, acc0, dst[0] + start, valid) ? 1u : 0u;
    if constexpr (kRows > 1) finite |= StoreBlock(d, acc1, dst[1] + start, valid) ? 2u : 0u;
    if constexpr (kRows > 2) finite |= StoreBlock(d, acc2, dst[2] + start, valid) ? 4u : 0u;
    if constexpr (kRows > 3) finite |= StoreBlock(d, acc3, dst[3] + start, valid) ? 8u : 0u;
    if constexpr (kRows > 4) finite |= StoreBlock(d, acc4, dst[4] + start, valid) ? 16u : 0u;
    if constexpr (kRows > 5) finite |= StoreBlock(d, acc5, dst[5] + start, valid) ? 32u : 0u;
    if constexpr (kRows > 6) finite |= StoreBlock(d, acc6, dst[6] + start, valid) ? 64u : 0u;
    if constexpr (kRows > 7) finite |= StoreBlock(d, acc7, dst[7] + start, valid) ? 128u : 0u;
    nonfinite_rows |= ~finite & ((1u << kRows) - 1u);
  }
  return nonfinite_rows;
}

using BlockedRowsFunction = unsigned (*)(const GatherAxis&, const float* const*, float* const*,
                                         LinePrefetchQueue*);

template <class D, size_t... kRows>
constexpr std::array<BlockedRowsFunction, sizeof...(kRows)> BlockedRowsFunctions(
    std::index_sequence<kRows...>) {
  return {&GatherRowsBlocked<D, kRows + 1>...};
}

// The blocked functions for the axis's block lanes: this target's vectors, or on AVX-512 half of
// them where the plan blocked the axis so (BlockedInHalfVectors, plan.cc); nullptr for others.
const BlockedRowsFunction* SelectBlockedRows(const GatherAxis& axis) {
  using Full = hn::ScalableTag<float>;
  static constexpr std::array<BlockedRowsFunction, kBlockedRows> kFull =
      BlockedRowsFunctions<Full>(std::make_index_sequence<kBlockedRows>());
  if (axis.block_lanes == hn::Lanes(Full())) return kFull.data();
#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE
  if constexpr (hn::MaxLanes(Full()) > 8) {
    using Half = hn::CappedTag<float, 8>;
    static constexpr std::array<BlockedRowsFunction, kBlockedRows> kHalf =
        BlockedRowsFunctions<Half>(std::make_index_sequence<kBlockedRows>());
    if (axis.block_lanes == hn::Lanes(Half())) return kHalf.data();
  }
#endif
  return nullptr;
}

// The gathered form (GatherAxis::gathered_taps): a vector of consecutive elements gathers tap k
// of each element's run, column first[i] + k, from every row, and takes it where k < count, in
// GatherExact's operations and order (a product for the first tap, then MulAdds), so its bits
// are the exact runs'. The axes that take it have no vector form of contiguous loads: runs of
// few taps further apart than two vectors span (a bilinear downscale by more than two that is not
// an integer factor of at most 4), where each element took a scalar loop of its own. A vector's
// runs, counts and weights are loaded once for all the rows of the call. Columns past a run are
// clamped into the row and their products dropped, so no value outside a run reaches a result.
template <class D>
void GatherRowsGathered(D d, const GatherAxis& axis, size_t rows, const float* HWY_RESTRICT src,
                        ptrdiff_t src_stride, float* HWY_RESTRICT dst, ptrdiff_t dst_stride) {
  const hn::RebindToSigned<D> di;
  const size_t lanes = hn::Lanes(d), n = axis.length;
  const auto taps = static_cast<size_t>(axis.gathered_taps);
  const auto columns = static_cast<int32_t>(axis.source_length);
  const auto last_column = hn::Set(di, columns - 1);
  // Tap k of every lane: the product where k < count, else the sum so far.
  const auto take = [&](size_t k, hn::Vec<decltype(di)> count, hn::Vec<D> weight, hn::Vec<D> value,
                        hn::Vec<D> acc) {
    const auto takes = hn::RebindMask(d, hn::Gt(count, hn::Set(di, static_cast<int32_t>(k))));
    return k == 0 ? hn::IfThenElseZero(takes, hn::Mul(weight, value))
                  : hn::IfThenElse(takes, hn::MulAdd(weight, value, acc), acc);
  };
  const auto vector_at = [&](size_t i) {
    const auto count =
        hn::Sub(hn::LoadU(di, axis.weight_offset + i + 1), hn::LoadU(di, axis.weight_offset + i));
    // A run without taps may name any column; it reads column 0 and keeps none of it.
    const auto first =
        hn::IfThenElseZero(hn::Gt(count, hn::Zero(di)), hn::LoadU(di, axis.first + i));
    const float* const weights = axis.gathered_weights + i;
#if HWY_HAVE_FLOAT64 && HWY_TARGET != HWY_SCALAR
    // Taps 2p and 2p + 1 of a lane in one 64-bit gather (two adjacent floats), half the
    // elements of two 32-bit gathers, where every lane's pairs stay inside the row: the gathers
    // cost by the element (a 2-tap row took 70 % of its samples on the instruction after the
    // 32-bit gather), and a row's last vectors, whose pairs could pass its end, take those.
    const size_t pairs = (taps + 1) / 2;
    const auto last_pair_column = hn::Add(first, hn::Set(di, static_cast<int32_t>(2 * pairs - 1)));
    if (hn::AllTrue(di, hn::Lt(last_pair_column, hn::Set(di, columns)))) {
      const hn::Repartition<double, D> dd;
      const hn::RebindToSigned<decltype(dd)> di64;
      const hn::Half<decltype(di)> di_half;
      const auto bytes = hn::ShiftLeft<2>(first);  // a float column's byte offset
      for (size_t row = 0; row < rows; ++row) {
        const double* const x =
            reinterpret_cast<const double*>(src + static_cast<ptrdiff_t>(row) * src_stride);
        auto acc = hn::Zero(d);
        for (size_t p = 0; p < pairs; ++p) {
          const auto pair_bytes = hn::Add(bytes, hn::Set(di, static_cast<int32_t>(8 * p)));
          const auto low = hn::BitCast(
              d, hn::GatherOffset(dd, x, hn::PromoteTo(di64, hn::LowerHalf(di_half, pair_bytes))));
          const auto high = hn::BitCast(
              d, hn::GatherOffset(dd, x, hn::PromoteTo(di64, hn::UpperHalf(di_half, pair_bytes))));
          acc = take(2 * p, count, hn::LoadU(d, weights + 2 * p * n), hn::ConcatEven(d, high, low),
                     acc);
          if (2 * p + 1 < taps) {
            acc = take(2 * p + 1, count, hn::LoadU(d, weights + (2 * p + 1) * n),
                       hn::ConcatOdd(d, high, low), acc);
          }
        }
        hn::StoreU(acc, d, dst + static_cast<ptrdiff_t>(row) * dst_stride + i);
      }
      return;
    }
#endif
    for (size_t row = 0; row < rows; ++row) {
      const float* const x = src + static_cast<ptrdiff_t>(row) * src_stride;
      auto acc = hn::Zero(d);
      for (size_t k = 0; k < taps; ++k) {
        const auto column =
            hn::Min(hn::Add(first, hn::Set(di, static_cast<int32_t>(k))), last_column);
        acc = take(k, count, hn::LoadU(d, weights + k * n), hn::GatherIndex(d, x, column), acc);
      }
      hn::StoreU(acc, d, dst + static_cast<ptrdiff_t>(row) * dst_stride + i);
    }
  };
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) vector_at(i);
  if (i == n) return;
  if (n >= lanes) {
    vector_at(n - lanes);  // overlapping the one before: the same bits again
    return;
  }
  for (size_t row = 0; row < rows; ++row) {
    GatherExact(axis, src + static_cast<ptrdiff_t>(row) * src_stride,
                dst + static_cast<ptrdiff_t>(row) * dst_stride, i, n);
  }
}

void GatherRowsImpl(const GatherAxis& axis, size_t rows, const float* src, ptrdiff_t src_stride,
                    float* dst, ptrdiff_t dst_stride) {
  if (const UniformRowFunction uniform_rows = SelectUniformRow(axis)) {
    uniform_rows(axis, rows, src, src_stride, dst, dst_stride);
    return;
  }
  if (const PeriodicRowFunction periodic_rows = SelectPeriodicRow(axis)) {
    periodic_rows(axis, rows, src, src_stride, dst, dst_stride);
    const auto begin = static_cast<size_t>(axis.periodic_begin);
    const size_t end =
        begin +
        static_cast<size_t>(axis.periodic_vectors) * static_cast<size_t>(axis.periodic_lanes) +
        static_cast<size_t>(axis.periodic_overhang);
    GatherExactRows(axis, rows, src, src_stride, dst, dst_stride, 0, begin, NaturalColumns());
    GatherExactRows(axis, rows, src, src_stride, dst, dst_stride, end, axis.length,
                    NaturalColumns());
    return;
  }
  const BlockedRowsFunction* const blocked_rows = SelectBlockedRows(axis);
#if HWY_TARGET != HWY_SCALAR
  if (blocked_rows == nullptr && axis.gathered_taps > 0) {
    GatherRowsGathered(hn::ScalableTag<float>(), axis, rows, src, src_stride, dst, dst_stride);
    return;
  }
#endif
  if (blocked_rows == nullptr) {
    for (size_t row = 0; row < rows; ++row) {
      GatherExact(axis, src + static_cast<ptrdiff_t>(row) * src_stride,
                  dst + static_cast<ptrdiff_t>(row) * dst_stride, 0, axis.length);
    }
    return;
  }
  // The stride in bytes only where a second group exists: a single row's stride may be anything
  // (an axis of size 1, fuzz/regressions bug3), and the product would overflow; rows that the
  // loop below reaches lie within the tensor, so theirs cannot.
  const ptrdiff_t row_bytes =
      rows > kBlockedRows ? src_stride * static_cast<ptrdiff_t>(sizeof(float)) : 0;
  LinePrefetchQueue next_rows(row_bytes, axis.source_length * sizeof(float));
  for (size_t row = 0; row < rows; row += kBlockedRows) {
    const size_t group = std::min(kBlockedRows, rows - row);
    next_rows.Clear();
    if (row + group < rows) {
      next_rows.Append(
          reinterpret_cast<const char*>(src + static_cast<ptrdiff_t>(row + group) * src_stride),
          std::min(kBlockedRows, rows - row - group));
    }
    const float* group_src[kBlockedRows];
    float* group_dst[kBlockedRows];
    for (size_t r = 0; r < group; ++r) {
      group_src[r] = src + static_cast<ptrdiff_t>(row + r) * src_stride;
      group_dst[r] = dst + static_cast<ptrdiff_t>(row + r) * dst_stride;
    }
    const unsigned nonfinite_rows = blocked_rows[group - 1](axis, group_src, group_dst, &next_rows);
    for (size_t r = 0; r < group; ++r) {
      if ((nonfinite_rows >> r) & 1u) GatherExact(axis, group_src[r], group_dst[r], 0, axis.length);
    }
  }
}

// Elements [from, to) of a row of `channels`-channel pixels by their exact runs: element e is
// channel e % channels of index e / channels, whose taps are that channel of consecutive
// pixels. The same operations in the same order as GatherExact.
void GatherPixelElementsExact(const GatherAxis& axis, size_t channels,
                              const float* HWY_RESTRICT src, float* HWY_RESTRICT dst, size_t from,
                              size_t to) {
  // i and c kept step by step: two divisions per element had cost more than its taps.
  size_t i = from / channels, c = from % channels;
  for (size_t e = from; e < to; ++e) {
    const int32_t begin = axis.weight_offset[i];
    const int32_t count = axis.weight_offset[i + 1] - begin;
    const float* x = src + static_cast<size_t>(count > 0 ? axis.first[i] : 0) * channels + c;
    const float* w = axis.weights + begin;
    float acc = count > 0 ? w[0] * x[0] : 0.0f;
    for (int32_t k = 1; k < count; ++k) {
      acc = MulAddLikeVectors(w[k], x[static_cast<size_t>(k) * channels], acc);
    }
    dst[e] = acc;
    if (++c == channels) {
      c = 0;
      ++i;
    }
  }
}

// Pixels [from, to) of a row of `channels`-channel pixels by their exact runs, a pixel's run
// looked up once for all its channels: each element with GatherPixelElementsExact's operations.
void GatherWholePixelsExact(const GatherAxis& axis, size_t channels, const float* HWY_RESTRICT src,
                            float* HWY_RESTRICT dst, size_t from, size_t to) {
  for (size_t i = from; i < to; ++i) {
    const int32_t begin = axis.weight_offset[i];
    const int32_t count = axis.weight_offset[i + 1] - begin;
    float* const out = dst + i * channels;
    if (count == 0) {
      for (size_t c = 0; c < channels; ++c) out[c] = 0.0f;
      continue;
    }
    const float* const x = src + static_cast<size_t>(axis.first[i]) * channels;
    const float* const w = axis.weights + begin;
    for (size_t c = 0; c < channels; ++c) {
      float acc = w[0] * x[c];
      for (int32_t k = 1; k < count; ++k) {
        acc = MulAddLikeVectors(w[k], x[static_cast<size_t>(k) * channels + c], acc);
      }
      out[c] = acc;
    }
  }
}

// Pixel rows split by pixel phase, for a uniform interior of stride kStride (2 or 4) over
// interleaved pixels: phase row p holds pixels p, p + S, p + 2S, ... with their channels still
// interleaved (element m * C + c of row p is element (m * S + p) * C + c of the pixel row).
// Then tap k of result element e = i * C + c, source pixel S * i + shift + k, is element
// e + q * C of phase row (shift + k) mod S, with q = floor((shift + k) / S): one unaligned load
// per tap for a whole vector of elements, and the sums are stored in the pixel order the result
// wants. Against splitting by channel and phase (Deinterleave, about three permutes per input
// vector) and interleaving the result back, this moves each input vector once through a single
// permute and the result not at all.
//
// The columns, in the window of the pixel row that starts at the source element of phase
// element f0, of lanes f0 .. f0 + lanes - 1: they depend only on r = f0 % C, so there are C
// index vectors (PixelPhaseColumnsFor works them out once per target, channel count and stride).
struct PixelPhaseColumns {
  static constexpr size_t kMaxLanes = HWY_MAX_BYTES / sizeof(float);
  HWY_ALIGN int32_t column[kMaxInterleavedChannels][kMaxLanes];
  int32_t loads = 0;  // vectors of the window a vector reads; 0: more than kMaxPeriodicLoads

  PixelPhaseColumns() = default;
  PixelPhaseColumns(size_t channels, int stride, size_t lanes) {
    const auto c = static_cast<int32_t>(channels);
    int32_t span = 0;
    for (int32_t r = 0; r < c; ++r) {
      for (size_t l = 0; l < lanes; ++l) {
        const int32_t t = r + static_cast<int32_t>(l);
        column[r][l] = t / c * stride * c + t % c - r;
        span = std::max(span, column[r][l] + 1);
      }
    }
    const auto lanes32 = static_cast<int32_t>(lanes);
    loads = (span + lanes32 - 1) / lanes32;
    if (loads > kMaxPeriodicLoads) loads = 0;
  }
};

// Splits `pixels` pixels of kChannels channels into `stride` phase rows phase_stride floats
// apart (phase_stride >= ceil(pixels / stride) * kChannels), kChannels vectors of phase elements
// (lanes pixels) at a time, each from kLoads loads and one permute (SelectColumns): after
// kChannels vectors the lane patterns repeat, so theirs stay in registers and the loop carries
// nothing but its position. The vectors whose window would pass the row's end load the row's
// last elements instead (rows shorter than one window go an element at a time), and the last
// elements short of a whole step go an element at a time.
template <size_t kChannels, int kLoads>
void SplitPixelPhases(const float* HWY_RESTRICT src, size_t pixels, int stride,
                      const PixelPhaseColumns& columns, float* HWY_RESTRICT dst,
                      size_t phase_stride) {
  const hn::ScalableTag<float> d;
  const hn::RebindToSigned<decltype(d)> di;
  const size_t lanes = hn::Lanes(d);
  const auto lane_of = hn::Set(di, static_cast<int32_t>(lanes - 1));
  const auto lanes_v = hn::Set(di, static_cast<int32_t>(lanes));
  const auto step = static_cast<size_t>(stride);
  const size_t total = pixels * kChannels;
  // Where vector j of a step starts in the pixel row, from the step's first pixel's element
  // (phase p's pixel m0 * stride + p), and its lanes' columns from there.
  size_t window[kChannels];
  for (size_t j = 0; j < kChannels; ++j) {
    const size_t f = j * lanes;
    window[j] = f / kChannels * step * kChannels + f % kChannels;
  }
  const auto column0 = hn::Load(di, columns.column[0]);
  const auto column1 = hn::Load(di, columns.column[kChannels > 1 ? lanes % kChannels : 0]);
  const auto column2 = hn::Load(di, columns.column[kChannels > 2 ? 2 * lanes % kChannels : 0]);
  const auto vector_at = [&](const float* s, decltype(column0) column, float* to) {
    const auto v0 = hn::LoadU(d, s);
    const auto v1 = kLoads > 1 ? hn::LoadU(d, s + lanes) : v0;
    const auto v2 = kLoads > 2 ? hn::LoadU(d, s + 2 * lanes) : v0;
    const auto v3 = kLoads > 3 ? hn::LoadU(d, s + 3 * lanes) : v0;
    hn::StoreU(SelectColumns<kLoads>(d, v0, v1, v2, v3, column, lane_of, lanes_v), d, to);
  };
  // The window of the step's last vector ends here, past its first pixel's element.
  const size_t reach = window[kChannels - 1] + kLoads * lanes;
  const size_t loaded = kLoads * lanes;
  // A vector whose window would pass the row's end loads the row's last `loaded` elements
  // instead, its columns moved up by as much: its own elements are all in the row, so its
  // columns stay inside those loads. Element by element, as they went before, the last step
  // of every phase row but the first cost the channels-last RGB 2x downscales 5-12 % of their
  // time on the Zen 4 VM (session 43: 64 <- 128 bilinear gradient 1.07x faster, 256 -> 128
  // forward 1.13x, 512 -> 128 bicubic AA bfloat16 forward 1.06x, RGBA 512 -> 256 1.06x).
  const auto vector_in_row = [&](size_t start, decltype(column0) column, float* to) {
    if (start + loaded <= total) {
      vector_at(src + start, column, to);
      return;
    }
    const size_t moved = total - loaded;
    vector_at(src + moved, hn::Add(column, hn::Set(di, static_cast<int32_t>(start - moved))), to);
  };
  for (size_t p = 0; p < step && p < pixels; ++p) {
    float* const row = dst + p * phase_stride;
    const size_t n = (pixels - p + step - 1) / step * kChannels;
    size_t f = 0, m = 0;  // f = m * kChannels: whole steps of lanes pixels
    for (; f + kChannels * lanes <= n; f += kChannels * lanes, m += lanes) {
      const size_t base = (m * step + p) * kChannels;
      if (base + reach > total) {
        if (total < loaded) break;
        for (size_t j = 0; j < kChannels; ++j) {
          vector_in_row(base + window[j], hn::Load(di, columns.column[j * lanes % kChannels]),
                        row + f + j * lanes);
        }
        continue;
      }
      vector_at(src + base + window[0], column0, row + f);
      if constexpr (kChannels > 1) vector_at(src + base + window[1], column1, row + f + lanes);
      if constexpr (kChannels > 2) vector_at(src + base + window[2], column2, row + f + 2 * lanes);
      for (size_t j = 3; j < kChannels; ++j) {
        vector_at(src + base + window[j], hn::Load(di, columns.column[j * lanes % kChannels]),
                  row + f + j * lanes);
      }
    }
    for (; f < n; ++m) {
      for (size_t c = 0; c < kChannels && f < n; ++c, ++f) {
        row[f] = src[(m * step + p) * kChannels + c];
      }
    }
  }
}

using SplitPixelPhasesFunction = void (*)(const float*, size_t, int, const PixelPhaseColumns&,
                                          float*, size_t);

template <size_t kChannels>
constexpr std::array<SplitPixelPhasesFunction, kMaxPeriodicLoads> SplitPixelPhasesByLoads() {
  return {&SplitPixelPhases<kChannels, 1>, &SplitPixelPhases<kChannels, 2>,
          &SplitPixelPhases<kChannels, 3>, &SplitPixelPhases<kChannels, 4>};
}
static_assert(kMinInterleavedChannels == 2 && kMaxInterleavedChannels == 7,
              "one row of kSplitPixelPhases per channel count");
constexpr std::array<std::array<SplitPixelPhasesFunction, kMaxPeriodicLoads>, 6> kSplitPixelPhases =
    {SplitPixelPhasesByLoads<2>(), SplitPixelPhasesByLoads<3>(), SplitPixelPhasesByLoads<4>(),
     SplitPixelPhasesByLoads<5>(), SplitPixelPhasesByLoads<6>(), SplitPixelPhasesByLoads<7>()};

// The W pass of one pixel row from its phase rows (SplitPixelPhases): the uniform interior's
// elements a vector at a time, one unaligned load per tap, with GatherExact's operations in its
// order; the pixels outside it, and all of them where no whole vector fits, by their exact runs
// from the pixel row itself. Cached (`staging` null), after the first vector the stores start
// where dst is aligned to a whole vector (GatherUniform says why). Streamed, the vectors on
// dst's vector boundaries inside the interior are streamed, and the elements before and after
// them, which the edges' single elements and the interior's unaligned first and last vectors
// write, are put together in `staging` (a row of result elements in L1) and streamed from
// there: a line that took a cached store and streamed ones, or a cached store after a streamed
// one, waits for the line's trip to memory (stored in place, that ran a channels-last RGB 2x
// downscale 1.3x slower than not streaming).
// The uniform interior of a pixel row read from its phase rows (SplitPixelPhases): result
// elements [begin, end) are sums of kTaps loads from there, with GatherExact's operations in its
// order; the pixels before `first` and from `last` on take their exact runs.
template <int kTaps>
struct PixelPhaseInterior {
  // Locals, so the compiler knows the stores to dst cannot change them.
  float weights[kTaps];
  int64_t tap_offset[kTaps];
  int64_t first, last, begin, end;
  int64_t elements;  // the result row's

  PixelPhaseInterior(const GatherAxis& axis, size_t channels, size_t phase_stride)
      : elements(static_cast<int64_t>(axis.length * channels)) {
    const int64_t stride = axis.uniform_stride, shift = axis.uniform_shift;
    const auto c = static_cast<int64_t>(channels);
    for (int k = 0; k < kTaps; ++k) {
      weights[k] = axis.uniform_weights[k];
      const int64_t column = shift + k;
      const int64_t phase = column & (stride - 1);  // two's complement: the floor's remainder
      tap_offset[k] = phase * static_cast<int64_t>(phase_stride) + (column - phase) / stride * c;
    }
    // Pixels whose taps all lie in the row: stride * i + shift >= 0 and
    // stride * i + shift + kTaps - 1 < source_length.
    first = std::max<int64_t>(axis.uniform_begin, (-shift + stride - 1) / stride);
    const int64_t past_last = static_cast<int64_t>(axis.source_length) - shift - kTaps;
    last = std::min<int64_t>(axis.uniform_end, past_last < 0 ? 0 : past_last / stride + 1);
    begin = first * c;
    end = last * c;
  }

  template <class D>
  HWY_INLINE hn::Vec<D> SumAt(D d, const float* HWY_RESTRICT phases, int64_t e) const {
    auto acc = hn::Mul(hn::Set(d, weights[0]), hn::LoadU(d, phases + tap_offset[0] + e));
    for (int k = 1; k < kTaps; ++k) {
      acc = hn::MulAdd(hn::Set(d, weights[k]), hn::LoadU(d, phases + tap_offset[k] + e), acc);
    }
    return acc;
  }
};

// The W pass of one pixel row from its phase rows (SplitPixelPhases): the uniform interior's
// elements a vector at a time, one unaligned load per tap (PixelPhaseInterior); the pixels
// outside it, and all of them where no whole vector fits, by their exact runs from the pixel row
// itself. Cached (`staging` null), after the first vector the stores start where dst is aligned
// to a whole vector (GatherUniform says why). Streamed, the vectors on dst's vector boundaries
// inside the interior are streamed, and the elements before and after them, which the edges'
// single elements and the interior's unaligned first and last vectors write, are put together in
// `staging` (a row of result elements in L1) and streamed from there: a line that took a cached
// store and streamed ones, or a cached store after a streamed one, waits for the line's trip to
// memory (stored in place, that ran a channels-last RGB 2x downscale 1.3x slower than not
// streaming).
template <int kTaps>
void GatherUniformPixelPhases(const GatherAxis& axis, size_t channels,
                              const float* HWY_RESTRICT phases, size_t phase_stride,
                              const float* HWY_RESTRICT pixels, float* HWY_RESTRICT dst,
                              float* HWY_RESTRICT staging) {
  const hn::ScalableTag<float> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  const PixelPhaseInterior<kTaps> interior(axis, channels, phase_stride);
  const int64_t begin = interior.begin, end = interior.end, elements = interior.elements;
  // Streamed: the interior's vectors on whole vector boundaries of dst (aligned to one).
  const int64_t aligned_begin = (begin + lanes - 1) / lanes * lanes;
  const int64_t aligned_end = end / lanes * lanes;
  if (staging != nullptr && aligned_end - aligned_begin < lanes) {
    // No such vector: the whole row through staging.
    GatherUniformPixelPhases<kTaps>(axis, channels, phases, phase_stride, pixels, staging, nullptr);
    int64_t e = 0;
    for (; e + lanes <= elements; e += lanes) hn::Stream(hn::LoadU(d, staging + e), d, dst + e);
    for (; e < elements; ++e) dst[e] = staging[e];
    return;
  }
  if (end - begin < lanes) {
    GatherWholePixelsExact(axis, channels, pixels, dst, 0, axis.length);
    return;
  }
  const auto sum_at = [&](int64_t e) { return interior.SumAt(d, phases, e); };
  const auto first_pixels = static_cast<size_t>(interior.first);
  const auto last_pixel = static_cast<size_t>(interior.last);
  if (staging == nullptr) {
    hn::StoreU(sum_at(begin), d, dst + begin);
    const auto offset = static_cast<int64_t>(reinterpret_cast<uintptr_t>(dst + begin) /
                                             sizeof(float) % static_cast<uintptr_t>(lanes));
    int64_t e = begin + lanes - offset;
    for (; e + lanes <= end; e += lanes) hn::StoreU(sum_at(e), d, dst + e);
    if (e < end) hn::StoreU(sum_at(end - lanes), d, dst + end - lanes);
    GatherWholePixelsExact(axis, channels, pixels, dst, 0, first_pixels);
    GatherWholePixelsExact(axis, channels, pixels, dst, last_pixel, axis.length);
    return;
  }
  // The head [0, aligned_begin) and the tail [aligned_end, elements) in staging, at their own
  // element indices; the vectors between streamed straight into dst.
  GatherWholePixelsExact(axis, channels, pixels, staging, 0, first_pixels);
  hn::StoreU(sum_at(begin), d, staging + begin);
  for (int64_t e = aligned_begin; e < aligned_end; e += lanes) hn::Stream(sum_at(e), d, dst + e);
  hn::StoreU(sum_at(end - lanes), d, staging + end - lanes);
  GatherWholePixelsExact(axis, channels, pixels, staging, last_pixel, axis.length);
  for (int64_t e = 0; e < aligned_begin; e += lanes) {
    hn::Stream(hn::LoadU(d, staging + e), d, dst + e);
  }
  int64_t e = aligned_end;
  for (; e + lanes <= elements; e += lanes) hn::Stream(hn::LoadU(d, staging + e), d, dst + e);
  for (; e < elements; ++e) dst[e] = staging[e];
}

// GatherUniformPixelPhases into a 16-bit dtype, each interior vector rounded as it is stored
// (StoreRounded16, cached), the edges' exact pixels through `staging` (a float row of result
// elements) and rounded from there: StoreFromFloat's bits, without the float row's store, reload
// and second pass.
template <int kTaps, DType kType>
void GatherUniformPixelPhasesRounded(const GatherAxis& axis, size_t channels,
                                     const float* HWY_RESTRICT phases, size_t phase_stride,
                                     const float* HWY_RESTRICT pixels, float* HWY_RESTRICT staging,
                                     uint16_t* HWY_RESTRICT dst) {
  const hn::ScalableTag<float> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  const PixelPhaseInterior<kTaps> interior(axis, channels, phase_stride);
  const int64_t begin = interior.begin, end = interior.end, elements = interior.elements;
  const auto round_from_staging = [&](int64_t from, int64_t to) {
    for (int64_t e = from; e < to; ++e) dst[e] = DTypeTraits<kType>::FromFloat(staging[e]);
  };
  if (end - begin < lanes) {
    GatherWholePixelsExact(axis, channels, pixels, staging, 0, axis.length);
    round_from_staging(0, elements);
    return;
  }
  int64_t e = begin;
  for (; e + lanes <= end; e += lanes)
    StoreRounded16<kType>(d, interior.SumAt(d, phases, e), dst + e);
  if (e < end) StoreRounded16<kType>(d, interior.SumAt(d, phases, end - lanes), dst + end - lanes);
  GatherWholePixelsExact(axis, channels, pixels, staging, 0, static_cast<size_t>(interior.first));
  GatherWholePixelsExact(axis, channels, pixels, staging, static_cast<size_t>(interior.last),
                         axis.length);
  round_from_staging(0, begin);
  round_from_staging(end, elements);
}

using PixelPhaseRowFunction = void (*)(const GatherAxis&, size_t, const float*, size_t,
                                       const float*, float*, float*);

template <int... kTaps>
constexpr std::array<PixelPhaseRowFunction, sizeof...(kTaps)> PixelPhaseRows(
    std::integer_sequence<int, kTaps...>) {
  return {&GatherUniformPixelPhases<kTaps + 1>...};
}

// The split's lane patterns for pixel rows of `channels` channels and a uniform interior of
// `stride`, where this target splits them by pixel phase (else nullptr): strides 2 and 4, a
// split's window of at most kMaxPeriodicLoads vectors (with AVX-512's two-table
// permutes), or two vectors of at least three channels (other targets). Against Deinterleave by
// column phase, GatherRows and Interleave, on the Emerald Rapids VM at 2 threads (bench/RESULTS.md,
// session 38): AVX-512 1.06-1.27x faster over 2 to 7 channels, strides 2 and 4. AVX2 and
// SSE4: 1.06-1.31x for 5 to 7 channels (which Deinterleave moves through 8x8 transposes)
// and 1.08-1.14x for RGBA from two loads; with Highway's interleaved loads of 2 to 4 channels to
// beat, two channels ran 0.95-0.96x, and three or four loads (RGB on AVX2, 4x downscales)
// 0.91-0.99x, so those keep the planar rows.
const PixelPhaseColumns* PixelPhaseColumnsFor(size_t channels, int stride) {
  if ((stride != 2 && stride != 4) || channels < kMinInterleavedChannels ||
      channels > kMaxInterleavedChannels) {
    return nullptr;
  }
  // Worked out once per target, for every channel count and both strides.
  using Table = std::array<PixelPhaseColumns, 2 * (kMaxInterleavedChannels + 1)>;
  static const Table kColumns = [] {
    Table table;
    const size_t lanes = hn::Lanes(hn::ScalableTag<float>());
    for (size_t c = kMinInterleavedChannels; c <= kMaxInterleavedChannels; ++c) {
      table[2 * c] = PixelPhaseColumns(c, 2, lanes);
      table[2 * c + 1] = PixelPhaseColumns(c, 4, lanes);
    }
    return table;
  }();
  const PixelPhaseColumns& columns = kColumns[2 * channels + (stride == 4 ? 1 : 0)];
  if (columns.loads == 0) return nullptr;
  if (!kTwoTablePermutes && channels <= 4 && (columns.loads > 2 || channels < 3)) return nullptr;
  return &columns;
}

bool SplitsPixelPhasesImpl(size_t channels, int stride) {
  return PixelPhaseColumnsFor(channels, stride) != nullptr;
}

// Splits the pixel row into `phase_rows` where this target takes the pixel-phase form for the
// axis's uniform interior (PixelPhaseColumnsFor) and returns the phase rows' stride; 0, and
// nothing done, otherwise.
size_t SplitIntoPixelPhases(const GatherAxis& axis, size_t channels, const float* pixels,
                            float* phase_rows) {
  // PixelPhaseColumnsFor takes strides 2 and 4 only (none where the axis has no uniform interior).
  const PixelPhaseColumns* const columns = PixelPhaseColumnsFor(channels, axis.uniform_stride);
  if (columns == nullptr || axis.uniform_count < 1 || axis.uniform_count > kMaxUniformTaps) {
    return 0;
  }
  const auto stride = static_cast<size_t>(axis.uniform_stride);
  const size_t n = axis.source_length;
  const size_t phase_stride = (n + stride - 1) / stride * channels;
  kSplitPixelPhases[channels - kMinInterleavedChannels][static_cast<size_t>(columns->loads - 1)](
      pixels, n, axis.uniform_stride, *columns, phase_rows, phase_stride);
  return phase_stride;
}

// The W pass through pixel phase rows where this target takes them; false otherwise, and
// nothing done.
bool GatherThroughPixelPhases(const GatherAxis& axis, size_t channels, const float* pixels,
                              float* phase_rows, float* gathered, float* dst, ResultStores stores) {
  const size_t phase_stride = SplitIntoPixelPhases(axis, channels, pixels, phase_rows);
  if (phase_stride == 0) return false;
  const hn::ScalableTag<float> d;
  static constexpr std::array<PixelPhaseRowFunction, kMaxUniformTaps> kRows =
      PixelPhaseRows(std::make_integer_sequence<int, kMaxUniformTaps>());
  const size_t lanes = hn::Lanes(d);
  const bool stream = HWY_TARGET != HWY_SCALAR && stores == ResultStores::kStreamed &&
                      reinterpret_cast<uintptr_t>(dst) % (lanes * sizeof(float)) == 0;
  kRows[static_cast<size_t>(axis.uniform_count - 1)](axis, channels, phase_rows, phase_stride,
                                                     pixels, dst, stream ? gathered : nullptr);
  return true;
}

void GatherThroughPlanarRowsImpl(const GatherAxis& axis, size_t channels, const float* pixels,
                                 float* planar, float* gathered, float* dst, ResultStores stores) {
  const size_t n = axis.source_length;
  const size_t row_floats = GroupRowFloats(n);
  const auto planar_stride = static_cast<ptrdiff_t>(row_floats);
  const auto gathered_stride = static_cast<ptrdiff_t>(axis.length);
  if (GatherThroughPixelPhases(axis, channels, pixels, planar, gathered, dst, stores)) return;
  if (const SplitRowFunction split_rows = SelectSplitRow(axis)) {
    const int phases = axis.uniform_stride;
    const size_t phase_length = (n + static_cast<size_t>(phases) - 1) / static_cast<size_t>(phases);
    Deinterleave(pixels, n, channels, planar, row_floats, phases, phase_length);
    split_rows(axis, channels, planar, planar_stride, phase_length, gathered, gathered_stride);
  } else {
    Deinterleave(pixels, n, channels, planar, row_floats);
    GatherRowsImpl(axis, channels, planar, planar_stride, gathered, gathered_stride);
  }
  Interleave(gathered, axis.length, axis.length, channels, dst, stores);
}

using PixelPhaseRoundedFunction = void (*)(const GatherAxis&, size_t, const float*, size_t,
                                           const float*, float*, uint16_t*);

template <DType kType, int... kTaps>
constexpr std::array<PixelPhaseRoundedFunction, sizeof...(kTaps)> PixelPhaseRoundedRows(
    std::integer_sequence<int, kTaps...>) {
  return {&GatherUniformPixelPhasesRounded<kTaps + 1, kType>...};
}

// GatherThroughPlanarRows into 16-bit pixels: rounded as the pixel-phase form stores its
// vectors where this target takes that form and rounds kType cheaply (RoundsVectorsCheaply),
// else into `row` and converted from there.
template <DType kType>
void GatherThroughPlanarRowsRoundedAs(const GatherAxis& axis, size_t channels, const float* pixels,
                                      float* planar, float* gathered, float* row, uint16_t* dst) {
  if (RoundsVectorsCheaply<kType>(hn::ScalableTag<float>())) {
    const size_t phase_stride = SplitIntoPixelPhases(axis, channels, pixels, planar);
    if (phase_stride != 0) {
      static constexpr std::array<PixelPhaseRoundedFunction, kMaxUniformTaps> kRows =
          PixelPhaseRoundedRows<kType>(std::make_integer_sequence<int, kMaxUniformTaps>());
      kRows[static_cast<size_t>(axis.uniform_count - 1)](axis, channels, planar, phase_stride,
                                                         pixels, row, dst);
      return;
    }
  }
  GatherThroughPlanarRowsImpl(axis, channels, pixels, planar, gathered, row, ResultStores::kCached);
  StoreFromFloat(kType, row, axis.length * channels, dst, 1);
}

void GatherThroughPlanarRowsRoundedImpl(const GatherAxis& axis, size_t channels,
                                        const float* pixels, float* planar, float* gathered,
                                        float* row, DType dtype, uint16_t* dst) {
  if (dtype == DType::kBFloat16) {
    GatherThroughPlanarRowsRoundedAs<DType::kBFloat16>(axis, channels, pixels, planar, gathered,
                                                       row, dst);
  } else {
    GatherThroughPlanarRowsRoundedAs<DType::kFloat16>(axis, channels, pixels, planar, gathered, row,
                                                      dst);
  }
}

void GatherPixelRowsImpl(const GatherAxis& axis, size_t channels, size_t rows, const float* src,
                         ptrdiff_t src_stride, float* dst, ptrdiff_t dst_stride) {
  const hn::ScalableTag<float> d;
  // The periodic form sees the pixel row as a row of elements.
  GatherAxis elements = axis;
  elements.length = axis.length * channels;
  elements.source_length = axis.source_length * channels;
  size_t begin = elements.length, end = elements.length;
  if (const PeriodicRowFunction periodic_rows = SelectPeriodicRow(elements)) {
    periodic_rows(elements, rows, src, src_stride, dst, dst_stride);
    begin = static_cast<size_t>(axis.periodic_begin);
    end = begin + static_cast<size_t>(axis.periodic_vectors) * hn::Lanes(d) +
          static_cast<size_t>(axis.periodic_overhang);
  }
  for (size_t row = 0; row < rows; ++row) {
    const float* src_row = src + static_cast<ptrdiff_t>(row) * src_stride;
    float* dst_row = dst + static_cast<ptrdiff_t>(row) * dst_stride;
    GatherPixelElementsExact(axis, channels, src_row, dst_row, 0, begin);
    GatherPixelElementsExact(axis, channels, src_row, dst_row, end, elements.length);
  }
}

// Whether CombineGroupAs pairs rows whose runs have `count` taps (more than 4) and share source
// rows through TryCombineManyTapPair, which loads the union of the two runs once per block (a 4x
// anti-aliased downscale's 16-tap runs 4 rows apart: 20 rows for two sums, where alone they take
// 32) and keeps eight independent sums. On the Zen 4 VM (session 46, in-process, both orders):
// - bfloat16 rows split by phase (which have no sweep form): the 4x bicubic AA forward of 512-wide
//   planes (case 26) 1.06-1.09x faster at one thread, 1.03-1.09x at two (AVX2 1.04-1.09, SSE4
//   1.00-1.05), 640-1024 wide 1.03-1.08x, the 2x one 1.08-1.09x; but 1280-1792 wide 0.90-0.96
//   (2048 wide 1.2x): rows of at most 2 KiB pair. Wider rows pair where they lie a whole number of
//   L1 ways apart (kL1WayBytes): then every row of a run falls in one L1 set, more rows than the
//   set has ways, so a row's pass finds its lines gone, and a pair makes half the passes. Session
//   48 (in-process, both orders, 2 threads), paired over alone: the 4x bicubic AA forward of 2048,
//   4096 and 6144-wide planes 1.30-1.34, 1.31 and 1.20x faster (AVX2 1.22, 1.18; SSE4 1.22,
//   1.21), the 2x one 1.08-1.10x (AVX2 1.11, SSE4 1.02); the 8x one and the 4x bilinear AA
//   0.99-1.01x; off the way, 1984 and 2112 wide read 1.01-1.02 and 3072 (6 KiB: two sets) 1.00.
// - float32 rows of the many-tap form (UseManyTapForm) keep its sweeps, which read one row at a
//   time. Paired in whole vectors on AVX-512 (session 46) they ran case 22 1.04-1.05x faster on 4
//   KiB pages, but with the tensors on huge pages (session 47, aclrtMalloc) the sweeps streamed
//   better: paired, case 3 (the 8x align-corners bilinear gradient: 16-tap runs of 512-wide rows)
//   ran 1.06-1.08x slower at two threads and 1.14 at one, case 22 1.08-1.12x and 1.20x (on 4 KiB
//   pages case 3 1.05x and 1.16x, case 22 0.99x and 1.04x); only planes in cache gained (one 256 x
//   256 -> 64 x 64 plane 0.85-0.94). On AVX2 (16 registers) paired rows had run case 22 0.82.
// - float16 rows pair at any width, split by phase or not, except on AVX2: their form alone is
//   the many-tap sweep, which converts each source vector once per tap (in software on SSE4 and
//   SSSE3, which lack F16C), where a pair converts each row of the union once per block. Session
//   49 (in-process, both orders, 2 threads), paired over alone: the 4x bicubic AA forward of
//   512-wide planes (case 26's shape) 1.06-1.10x faster on AVX-512, 1.26x on SSE4, 1.29x on SSSE3;
//   1024-4096 wide 1.06-1.20x (SSE4 1.20-1.27); the 2x one 1.07-1.11x (SSE4 1.25); H only (512 ->
//   128 rows of 512 and 1024) 1.07-1.08x (SSE4 1.18-1.22); the 8x one 1.00-1.01x, the 4x bilinear
//   AA 1.00 (SSE4 1.10). On AVX2 (16 registers, F16C) the same cases ran 0.94-0.99x, H only
//   1.01-1.03x.
inline constexpr size_t kManyTapPairMaxRowBytes = 2048;
// One way of the L1 data cache: 64 sets of 64-byte lines on every x86 core of this decade (Zen 2-5
// 32 KiB in 8 ways, Intel since Sunny Cove 48 KiB in 12), so addresses this many bytes apart
// share a set. Other CPUs take the same line unmeasured (a pair costs no bits, only its speed).
inline constexpr size_t kL1WayBytes = 4096;

// Whether kType rows split by kPhases pair through the many-tap pair on this target at all (the
// list above; PairsManyTapRows says which shapes): where not, CombineGroupAs does not compile the
// pair. Nor does the portable target (EMU128), which runs only when pinned, pair float16: its
// float16 conversion (a dozen emulated operations, each a loop over the lanes) inlined into the
// pair's blocks and the sweeps took clang (the fuzz build, -O1 with ASan) over four minutes in
// CombineGroupAs alone, most of it in IndVarSimplify.
template <DType kType, int kPhases>
inline constexpr bool kPairsManyTapRowsOf =
    kType == DType::kFloat16 ? !(HWY_ARCH_X86 && HWY_TARGET == HWY_AVX2) && HWY_TARGET != HWY_EMU128
                             : kType == DType::kBFloat16 && kPhases > 1;

// Of the rows kPairsManyTapRowsOf admits, those CombineGroupAs pairs. bfloat16 rows split by
// phase take whole vectors on every target (PairTakesWholeVectors), so once the prefetcher has
// been asked for the second row's lines, TryCombineManyTapPair refuses them only when shorter
// than one column block; float16 rows also when they lie off a whole vector's load on AVX-512
// (the caller then issues the second row's lines at once). `src_stride`: elements from one source
// row to the next.
template <DType kType>
bool PairsManyTapRows(size_t n, size_t count, size_t shift, ptrdiff_t src_stride) {
  using Storage = typename DTypeTraits<kType>::Storage;
  if (count <= 4 || shift < 1) return false;
  if constexpr (kType == DType::kFloat16) return true;
  // Unsigned, so that no stride overflows; modulo 2^64 is exact modulo kL1WayBytes.
  const size_t stride_bytes = static_cast<size_t>(src_stride) * sizeof(Storage);
  return n * sizeof(Storage) <= kManyTapPairMaxRowBytes || stride_bytes % kL1WayBytes == 0;
}

// The H pass of a row group of CombineThenGatherRows: result rows [begin, begin + rows) into
// `scratch` (rows row_floats apart, split by kPhases column phases of phase_length each). The
// loop over the rows is inside the kernel, where an indirect call per row had been: on rows of
// 128 columns the call is a fair share of a row's work (on the Zen 4 VM, AVX-512, the float32 2x
// gradients of 64 x 64 planes, cases 1 and 28, ran 1.04-1.05x faster, in cache 1.03-1.06x;
// bfloat16 and AVX2 0.99-1.02).
// Consecutive rows whose runs have the same count and start at most two rows apart (the 2x
// gradients' rows: 4 taps, 2 apart) go as pairs (TryCombineRowPair), each source row loaded once
// for both. On x86 only on AVX-512: the two sums' eight vectors, a row's four and up to eight
// weights want its 32 registers; with 16 (AVX2) the 2x bfloat16 gradients ran 1.03-1.05x slower in
// cache paired. Rows that share no source row (a 2x nearest gradient's: 2 taps, 2 apart) go
// alone: paired they ran 1.10x slower in cache on AVX-512 (session 46; cases 30 and 33 from
// memory 1.00-1.04). Float32 rows go alone too: with the tensors on huge pages (session 47,
// in-process, both orders) paired 2x bilinear gradients and AA forwards of 256-1024-wide rows ran
// 1.03-1.15x slower at two threads than alone (case 36 1.15x, at one thread 1.19x), 96 wide
// 1.05x; only 128 wide (cases 1, 28) gained, 1-4 %. 16-bit rows paired ran 0.92-0.97x of their
// time alone up to 512-byte rows (cases 5, 6), 0.97-1.02x at 1-2 KiB. Runs of more taps pair
// where PairsManyTapRows says.
template <DType kType, int kPhases>
void CombineGroupAs(const RowRuns& runs, size_t begin, size_t rows, const void* src,
                    ptrdiff_t src_stride, int64_t src_row0, size_t n, size_t phase_length,
                    float* HWY_RESTRICT scratch, size_t row_floats, SourcePrefetcher& prefetcher) {
  using Storage = typename DTypeTraits<kType>::Storage;
  const Storage* const rows0 = static_cast<const Storage*>(src);
  for (size_t r = 0; r < rows; ++r) {
    const size_t i = begin + r;
    const int32_t count = runs.count(i);
    LinePrefetchQueue* const prefetch = count > 0 ? prefetcher.Ahead(i) : nullptr;
    const int64_t row = count > 0 ? runs.first[i] - src_row0 : 0;
    const Storage* const run_rows = rows0 + row * src_stride;
    const RowSink<kPhases> sink{scratch + r * row_floats, phase_length};
    const float* const weights = runs.weights_of(i);
#if HWY_TARGET != HWY_SCALAR
    // Row i + 1 with as many taps, its run starting within row i's (float32 rows go alone).
    const int64_t overlap =
        kType != DType::kFloat32 && r + 1 < rows ? runs.OverlappingRunShift(i) : -1;
    if (overlap >= 0) {
      const auto taps = static_cast<size_t>(count);
      const auto shift = static_cast<size_t>(overlap);
      const RowSink<kPhases> next_sink{scratch + (r + 1) * row_floats, phase_length};
      const float* const next_weights = runs.weights_of(i + 1);
      if constexpr (kPairsManyTapRowsOf<kType, kPhases>) {
        if (PairsManyTapRows<kType>(n, taps, shift, src_stride)) {
          // The queue of row i + 1's rows is row i's, extended.
          LinePrefetchQueue* const next = prefetcher.Ahead(i + 1);
          if (TryCombineManyTapPair<kType>(sink, next_sink, n, run_rows, src_stride, weights,
                                           next_weights, taps, shift,
                                           prefetch != nullptr ? prefetch : next)) {
            ++r;
            continue;
          }
          if (next != nullptr) next->IssueAll();
        }
      }
#if !HWY_ARCH_X86 || HWY_TARGET <= HWY_AVX3
      if (prefetch == nullptr && TryCombineRowPair<kType>(sink, next_sink, n, run_rows, src_stride,
                                                          weights, next_weights, taps, shift)) {
        LinePrefetchQueue* const next = prefetcher.Ahead(i + 1);
        if (next != nullptr) next->IssueAll();
        ++r;
        continue;
      }
#endif
    }
#endif
    Combine<kType>(sink, n, run_rows, src_stride, weights, static_cast<size_t>(count), prefetch);
  }
}

using CombineGroupFunction = void (*)(const RowRuns&, size_t, size_t, const void*, ptrdiff_t,
                                      int64_t, size_t, size_t, float*, size_t, SourcePrefetcher&);

template <int kPhases>
CombineGroupFunction SelectCombineGroupForPhases(DType dtype) {
  switch (dtype) {
    case DType::kFloat16:
      return &CombineGroupAs<DType::kFloat16, kPhases>;
    case DType::kBFloat16:
      return &CombineGroupAs<DType::kBFloat16, kPhases>;
    case DType::kFloat32:
      break;
  }
  return &CombineGroupAs<DType::kFloat32, kPhases>;
}

CombineGroupFunction SelectCombineGroup(DType dtype, int phases) {
  if (phases == 2) return SelectCombineGroupForPhases<2>(dtype);
  if (phases == 4) return SelectCombineGroupForPhases<4>(dtype);
  return SelectCombineGroupForPhases<1>(dtype);
}

// Result rows [first, first + rows) of the band, from float rows axis.length apart in staging.
void StoreStagedRows(const RowGroupResult& result, size_t first, size_t rows, size_t length) {
  const size_t elem = DTypeSize(result.dtype);
  char* const dst = static_cast<char*>(result.dst) + static_cast<ptrdiff_t>(first) *
                                                         result.dst_stride *
                                                         static_cast<ptrdiff_t>(elem);
  if (result.column_stride == 1 && result.dst_stride == static_cast<ptrdiff_t>(length)) {
    // One run, so that lines across two rows stream too.
    StoreFromFloat(result.dtype, result.staging, rows * length, dst, 1, result.stores);
    return;
  }
  for (size_t r = 0; r < rows; ++r) {
    StoreFromFloat(
        result.dtype, result.staging + r * length, length,
        dst + static_cast<ptrdiff_t>(r) * result.dst_stride * static_cast<ptrdiff_t>(elem),
        result.column_stride, result.stores);
  }
}

void CombineThenGatherRowsImpl(const RowRuns& runs, size_t row_begin, size_t row_end,
                               size_t group_rows, DType dtype, const void* src,
                               ptrdiff_t src_stride, int64_t src_row0, SourceReads reads,
                               const GatherAxis& axis, float* scratch,
                               const RowGroupResult& result) {
  const size_t n = axis.source_length;
  const SplitRowFunction split_rows = SelectSplitRow(axis);
  const int phases = split_rows != nullptr ? axis.uniform_stride : 1;
  const size_t phase_length = (n + static_cast<size_t>(phases) - 1) / static_cast<size_t>(phases);
  const CombineGroupFunction combine_group = SelectCombineGroup(dtype, phases);
  const size_t row_floats = GroupRowFloats(n);
  SourcePrefetcher prefetcher(runs, row_begin, row_end, src, src_stride, DTypeSize(dtype), src_row0,
                              n, reads);
  const bool staged = result.staging != nullptr;
  const ptrdiff_t out_stride = staged ? static_cast<ptrdiff_t>(axis.length) : result.dst_stride;
  for (size_t group_begin = row_begin; group_begin < row_end; group_begin += group_rows) {
    const size_t group = std::min(group_rows, row_end - group_begin);
    combine_group(runs, group_begin, group, src, src_stride, src_row0, n, phase_length, scratch,
                  row_floats, prefetcher);
    float* out = staged ? result.staging
                        : static_cast<float*>(result.dst) +
                              static_cast<ptrdiff_t>(group_begin - row_begin) * result.dst_stride;
    if (split_rows != nullptr) {
      split_rows(axis, group, scratch, static_cast<ptrdiff_t>(row_floats), phase_length, out,
                 out_stride);
    } else {
      GatherRowsImpl(axis, group, scratch, static_cast<ptrdiff_t>(row_floats), out, out_stride);
    }
    if (staged) StoreStagedRows(result, group_begin - row_begin, group, axis.length);
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
HWY_EXPORT(GatherPixelRowsImpl);
HWY_EXPORT(GatherThroughPlanarRowsImpl);
HWY_EXPORT(GatherThroughPlanarRowsRoundedImpl);
HWY_EXPORT(CombineThenGatherRowsImpl);
HWY_EXPORT(FloatLanesImpl);
HWY_EXPORT(PeriodicRowsInHalfVectorsImpl);
HWY_EXPORT(SplitsPixelPhasesImpl);
HWY_EXPORT(ActiveTargetNameImpl);

void GatherRows(const GatherAxis& axis, size_t rows, const float* src, ptrdiff_t src_stride,
                float* dst, ptrdiff_t dst_stride) {
  HWY_DYNAMIC_DISPATCH(GatherRowsImpl)(axis, rows, src, src_stride, dst, dst_stride);
}

void GatherThroughPlanarRows(const GatherAxis& axis, size_t channels, const float* pixels,
                             float* planar, float* gathered, float* dst, ResultStores stores) {
  HWY_DYNAMIC_DISPATCH(GatherThroughPlanarRowsImpl)
  (axis, channels, pixels, planar, gathered, dst, stores);
}

void GatherThroughPlanarRowsRounded(const GatherAxis& axis, size_t channels, const float* pixels,
                                    float* planar, float* gathered, float* row, DType dtype,
                                    uint16_t* dst) {
  HWY_DYNAMIC_DISPATCH(GatherThroughPlanarRowsRoundedImpl)
  (axis, channels, pixels, planar, gathered, row, dtype, dst);
}

void GatherPixelRows(const GatherAxis& axis, size_t channels, size_t rows, const float* src,
                     ptrdiff_t src_stride, float* dst, ptrdiff_t dst_stride) {
  HWY_DYNAMIC_DISPATCH(GatherPixelRowsImpl)(axis, channels, rows, src, src_stride, dst, dst_stride);
}

void CombineThenGatherRows(const RowRuns& runs, size_t row_begin, size_t row_end, size_t group_rows,
                           DType dtype, const void* src, ptrdiff_t src_stride, int64_t src_row0,
                           SourceReads reads, const GatherAxis& axis, float* scratch,
                           const RowGroupResult& result) {
  HWY_DYNAMIC_DISPATCH(CombineThenGatherRowsImpl)
  (runs, row_begin, row_end, group_rows, dtype, src, src_stride, src_row0, reads, axis, scratch,
   result);
}

bool SplitsPixelPhases(size_t channels, int stride) {
  ApplySimdOverrideOnce();
  return HWY_DYNAMIC_DISPATCH(SplitsPixelPhasesImpl)(channels, stride);
}

size_t FloatLanes() {
  ApplySimdOverrideOnce();
  return HWY_DYNAMIC_DISPATCH(FloatLanesImpl)();
}

bool PeriodicRowsInHalfVectors() {
  ApplySimdOverrideOnce();
  return HWY_DYNAMIC_DISPATCH(PeriodicRowsInHalfVectorsImpl)();
}

const char* ActiveTargetName() { return HWY_DYNAMIC_DISPATCH(ActiveTargetNameImpl)(); }

}  // namespace kernels
}  // namespace aclnn_upsample
#endif  // HWY_ONCE
