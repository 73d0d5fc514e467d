// Per-target core of the H pass, shared by the kernel families: a row is a weighted sum of whole
// source rows, in any dtype, stored through a sink that decides the row's layout in scratch.
// A Highway "-inl" header (see dtype_vectors-inl.h for the toggled guard).
#if defined(ACLNN_UPSAMPLE_KERNELS_COMBINE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_UPSAMPLE_KERNELS_COMBINE_INL_H_
#undef ACLNN_UPSAMPLE_KERNELS_COMBINE_INL_H_
#else
#define ACLNN_UPSAMPLE_KERNELS_COMBINE_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "hwy/highway.h"
#include "kernels/dtype_vectors-inl.h"
#include "kernels/source_prefetch.h"

// For the lambdas a loop over column blocks calls once a block: called as functions rather than
// inlined (GCC's choice for the bfloat16 sinks' stores), they made the loop keep its weights and
// sums on the stack around every call.
#ifndef ACLNN_UPSAMPLE_INLINE_LAMBDA
#define ACLNN_UPSAMPLE_INLINE_LAMBDA __attribute__((always_inline))
#endif

HWY_BEFORE_NAMESPACE();
namespace aclnn_upsample {
namespace kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Where column j of a row lies when it is split by column phase modulo kPhases (below).
template <int kPhases>
HWY_INLINE size_t SplitIndex(size_t j, size_t phase_length) {
  return (j % kPhases) * phase_length + j / kPhases;
}

// Where a combined row goes. kPhases == 1: in natural order. kPhases == 2 or 4: split by column
// phase, column j at dst[(j % kPhases) * phase_length + j / kPhases], so that a W pass with
// that stride reads each of its taps with one plain unaligned load: the de-interleaving is
// paid once per element, in registers, instead of once per tap.
template <int kPhases>
struct RowSink {
  static_assert(kPhases == 1 || kPhases == 2 || kPhases == 4, "");
  static constexpr int kPhaseCount = kPhases;
  float* HWY_RESTRICT dst;
  size_t phase_length;  // unused for natural order

  void StoreScalar(size_t column, float value) const {
    dst[SplitIndex<kPhases>(column, phase_length)] = value;
  }

  // Columns [column, column + valid) from the first `valid` lanes of v.
  template <class D, class V>
  HWY_INLINE void StorePartial(D d, size_t column, V v, size_t valid) const {
    if (kPhases == 1 && valid == hn::Lanes(d)) {
      hn::StoreU(v, d, dst + column);
      return;
    }
    HWY_ALIGN float buffer[HWY_MAX_BYTES / sizeof(float)] = {};  // (GCC cannot see Store fill it)
    hn::Store(v, d, buffer);
    for (size_t t = 0; t < valid; ++t) StoreScalar(column + t, buffer[t]);
  }

  // A row's last whole vector, overlapping columns already stored (Combine's tail): natural
  // order only.
  template <class D, class V>
  HWY_INLINE void StoreOverlapping(D d, size_t column, V v) const {
    static_assert(kPhases == 1, "");
    hn::StoreU(v, d, dst + column);
  }

  // 4 * lanes columns from `column`, a multiple of 4 * lanes.
  template <class D, class V>
  HWY_INLINE void Store4(D d, size_t column, V a0, V a1, V a2, V a3) const {
    const size_t lanes = hn::Lanes(d);
#if HWY_TARGET == HWY_SCALAR  // one lane: nothing to de-interleave
    if (kPhases > 1) {
      StoreScalar(column, hn::GetLane(a0));
      StoreScalar(column + 1, hn::GetLane(a1));
      StoreScalar(column + 2, hn::GetLane(a2));
      StoreScalar(column + 3, hn::GetLane(a3));
      return;
    }
#endif
    if constexpr (kPhases == 1) {
      hn::StoreU(a0, d, dst + column);
      hn::StoreU(a1, d, dst + column + lanes);
      hn::StoreU(a2, d, dst + column + 2 * lanes);
      hn::StoreU(a3, d, dst + column + 3 * lanes);
    } else {
#if HWY_TARGET != HWY_SCALAR
      const auto even01 = hn::ConcatEven(d, a1, a0), odd01 = hn::ConcatOdd(d, a1, a0);
      const auto even23 = hn::ConcatEven(d, a3, a2), odd23 = hn::ConcatOdd(d, a3, a2);
      if constexpr (kPhases == 2) {
        float* phase0 = dst + column / 2;
        hn::StoreU(even01, d, phase0);
        hn::StoreU(even23, d, phase0 + lanes);
        hn::StoreU(odd01, d, phase0 + phase_length);
        hn::StoreU(odd23, d, phase0 + phase_length + lanes);
      } else {
        // Evens of the evens are columns 0 mod 4, odds of the evens 2 mod 4, and so on.
        float* phase0 = dst + column / 4;
        hn::StoreU(hn::ConcatEven(d, even23, even01), d, phase0);
        hn::StoreU(hn::ConcatEven(d, odd23, odd01), d, phase0 + phase_length);
        hn::StoreU(hn::ConcatOdd(d, even23, even01), d, phase0 + 2 * phase_length);
        hn::StoreU(hn::ConcatOdd(d, odd23, odd01), d, phase0 + 3 * phase_length);
      }
#endif
    }
  }
};

// Natural-order columns written with non-temporal (streaming) stores where a whole vector is
// stored: a result that is not read again soon then costs no read-for-ownership of its lines,
// which is a sixth of the memory traffic of a channels-last 2x backward. `dst` and every
// vector's column must be aligned to the vector (the caller checks); the caller also calls
// FlushStreamedStores before the result is published to another thread.
struct StreamingSink {
  float* HWY_RESTRICT dst;

  void StoreScalar(size_t column, float value) const { dst[column] = value; }

  template <class D, class V>
  HWY_INLINE void StorePartial(D d, size_t column, V v, size_t valid) const {
    if (valid == hn::Lanes(d)) {
      hn::Stream(v, d, dst + column);
      return;
    }
    RowSink<1>{dst, 0}.StorePartial(d, column, v, valid);
  }

  template <class D, class V>
  HWY_INLINE void Store4(D d, size_t column, V a0, V a1, V a2, V a3) const {
    const size_t lanes = hn::Lanes(d);
    hn::Stream(a0, d, dst + column);
    hn::Stream(a1, d, dst + column + lanes);
    hn::Stream(a2, d, dst + column + 2 * lanes);
    hn::Stream(a3, d, dst + column + 3 * lanes);
  }
};

// Natural-order columns of a 16-bit result, rounded as they are stored (StoreRounded16): a
// 16-bit result row needs no float copy in scratch and no second pass over it, and its bits are
// those of the float row rounded by StoreFromFloat. Whole vectors are streamed where `stream`
// says (the caller checks that `dst` is aligned to a 16-bit vector).
template <DType kType>
struct RoundingSink {
  uint16_t* HWY_RESTRICT dst;
  bool stream;

  void StoreScalar(size_t column, float value) const {
    dst[column] = DTypeTraits<kType>::FromFloat(value);
  }

  template <class D, class V>
  HWY_INLINE void StorePartial(D d, size_t column, V v, size_t valid) const {
    if (valid == hn::Lanes(d)) {
      StoreRounded16<kType>(d, v, dst + column, stream);
      return;
    }
    HWY_ALIGN float buffer[HWY_MAX_BYTES / sizeof(float)] = {};
    hn::Store(v, d, buffer);
    for (size_t t = 0; t < valid; ++t) StoreScalar(column + t, buffer[t]);
  }

  // Cached: the overlapping vector need not be aligned.
  template <class D, class V>
  HWY_INLINE void StoreOverlapping(D d, size_t column, V v) const {
    StoreRounded16<kType>(d, v, dst + column, /*stream=*/false);
  }

  template <class D, class V>
  HWY_INLINE void Store4(D d, size_t column, V a0, V a1, V a2, V a3) const {
#if HWY_TARGET != HWY_SCALAR
    if constexpr (kType == DType::kBFloat16) {
      StoreRoundedBFloat16x4(d, a0, a1, a2, a3, dst + column, stream);
      return;
    }
#endif
    const size_t lanes = hn::Lanes(d);
    StoreRounded16<kType>(d, a0, dst + column, stream);
    StoreRounded16<kType>(d, a1, dst + column + lanes, stream);
    StoreRounded16<kType>(d, a2, dst + column + 2 * lanes, stream);
    StoreRounded16<kType>(d, a3, dst + column + 3 * lanes, stream);
  }
};

// 2 * lanes bfloat16 columns from `at` as floats: a bfloat16 pair is a float's upper half, so the
// 32-bit lanes of the 16-bit load shifted left by 16 are the even columns and masked to their
// upper half the odd ones, with no shuffle. (The caller's loops hoist the mask's broadcast.)
template <class D, class V = hn::Vec<D>>
HWY_INLINE void LoadBFloat16EvenOdd(D d, const uint16_t* HWY_RESTRICT at, V& even, V& odd) {
  const hn::RebindToUnsigned<D> du32;
  const auto pairs = hn::BitCast(du32, hn::LoadU(hn::Repartition<uint16_t, D>(), at));
  even = hn::BitCast(d, hn::ShiftLeft<16>(pairs));
  odd = hn::BitCast(d, hn::And(pairs, hn::Set(du32, 0xFFFF0000u)));
}

#if HWY_TARGET != HWY_SCALAR
// The sums of columns [j, j + 4 * lanes) as even and odd columns of the block's two halves (as
// LoadBFloat16EvenOdd reads them) into a sink split by kPhases (2 or 4) column phases.
template <int kPhases, class D, class V = hn::Vec<D>>
HWY_INLINE void StoreEvenOddPhases(D d, const RowSink<kPhases>& sink, size_t j, V even0, V odd0,
                                   V even1, V odd1) {
  const size_t lanes = hn::Lanes(d);
  const size_t length = sink.phase_length;
  if constexpr (kPhases == 2) {
    float* const phase0 = sink.dst + j / 2;
    hn::StoreU(even0, d, phase0);
    hn::StoreU(even1, d, phase0 + lanes);
    hn::StoreU(odd0, d, phase0 + length);
    hn::StoreU(odd1, d, phase0 + length + lanes);
  } else {
    // The even columns are phases 0 and 2 alternately, the odd ones 1 and 3.
    float* const phase0 = sink.dst + j / 4;
    hn::StoreU(hn::ConcatEven(d, even1, even0), d, phase0);
    hn::StoreU(hn::ConcatEven(d, odd1, odd0), d, phase0 + length);
    hn::StoreU(hn::ConcatOdd(d, even1, even0), d, phase0 + 2 * length);
    hn::StoreU(hn::ConcatOdd(d, odd1, odd0), d, phase0 + 3 * length);
  }
}
#endif

// Combine's body for bfloat16 rows split by column phase (kPhases 2 or 4), 4 * lanes columns at
// a time; returns the columns done. A load's even and odd columns (LoadBFloat16EvenOdd) are the
// split by phase 2 already, where converting each half of the load and de-interleaving the sums
// cost two conversion shuffles per load and one per stored vector.
template <int kPhases>
HWY_INLINE size_t CombineBFloat16Phases(const RowSink<kPhases>& sink, size_t n,
                                        const uint16_t* HWY_RESTRICT src, ptrdiff_t src_stride,
                                        const float* HWY_RESTRICT weights, size_t count,
                                        LinePrefetchQueue* prefetch) {
  size_t j = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const size_t lanes = hn::Lanes(d);
  const size_t quota = prefetch != nullptr ? prefetch->QuotaFor(n / (4 * lanes)) : 0;
  for (; j + 4 * lanes <= n; j += 4 * lanes) {
    if (prefetch != nullptr) prefetch->Issue(quota);
    const uint16_t* row = src + j;
    V even0, odd0, even1, odd1;
    LoadBFloat16EvenOdd(d, row, even0, odd0);
    LoadBFloat16EvenOdd(d, row + 2 * lanes, even1, odd1);
    const auto w0 = hn::Set(d, weights[0]);
    auto acc_even0 = hn::Mul(w0, even0), acc_odd0 = hn::Mul(w0, odd0);
    auto acc_even1 = hn::Mul(w0, even1), acc_odd1 = hn::Mul(w0, odd1);
    for (size_t k = 1; k < count; ++k) {
      row += src_stride;
      LoadBFloat16EvenOdd(d, row, even0, odd0);
      LoadBFloat16EvenOdd(d, row + 2 * lanes, even1, odd1);
      const auto w = hn::Set(d, weights[k]);
      acc_even0 = hn::MulAdd(w, even0, acc_even0);
      acc_odd0 = hn::MulAdd(w, odd0, acc_odd0);
      acc_even1 = hn::MulAdd(w, even1, acc_even1);
      acc_odd1 = hn::MulAdd(w, odd1, acc_odd1);
    }
    StoreEvenOddPhases(d, sink, j, acc_even0, acc_odd0, acc_even1, acc_odd1);
  }
#else
  (void)sink, (void)n, (void)src, (void)src_stride, (void)weights, (void)count, (void)prefetch;
#endif
  return j;
}

// Sinks that take columns in natural order (not split by phase), which bfloat16 rows may reach
// through even and odd sums (kBFloat16EvenOdd).
template <class Sink>
struct NaturalOrder : std::true_type {};
template <>
struct NaturalOrder<RowSink<2>> : std::false_type {};
template <>
struct NaturalOrder<RowSink<4>> : std::false_type {};

// Whether 512-bit vectors zip with one two-table permute each (ZipEvenOdd).
inline constexpr bool kZipsWideVectors = HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL;

// Whether bfloat16 rows combined into a `Sink` in D's vectors (ColumnBlocks: the many-tap sweeps
// and the blocks of four vectors) read each load as its even and odd columns (LoadBFloat16EvenOdd,
// as CombineBFloat16Phases does), and zip the sums back into order at the store: two
// shuffles per two vectors once, where converting each half of a load took a shuffle per vector
// per tap. A 4x bicubic AA downscale of channels-last RGB (17 taps a row) ran 1.13x faster on
// AVX-512, 1.11x on AVX2 and 1.18x on SSE4; a 2x AA one (4 taps) 1.02-1.09x (bench/RESULTS.md,
// session 39).
template <DType kType, class D, class Sink>
inline constexpr bool kBFloat16EvenOdd = HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE &&
                                         (kType == DType::kBFloat16) && NaturalOrder<Sink>::value &&
                                         (hn::MaxLanes(D()) == 4 || hn::MaxLanes(D()) == 8 ||
                                          (hn::MaxLanes(D()) == 16 && kZipsWideVectors));

// even[m] and odd[m] as columns 2m and 2m + 1 of a run of 2 * lanes: the first lanes columns into
// `low`, the rest into `high`. For the vectors kBFloat16EvenOdd admits.
template <class D, class V = hn::Vec<D>>
HWY_INLINE void ZipEvenOdd(D d, V even, V odd, V& low, V& high) {
  if constexpr (hn::MaxLanes(D()) == 16) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    alignas(64) static constexpr int32_t kLow[16] = {0, 16, 1, 17, 2, 18, 3, 19,
                                                     4, 20, 5, 21, 6, 22, 7, 23};
    alignas(64) static constexpr int32_t kHigh[16] = {8,  24, 9,  25, 10, 26, 11, 27,
                                                      12, 28, 13, 29, 14, 30, 15, 31};
    low = V{_mm512_permutex2var_ps(even.raw, _mm512_load_si512(kLow), odd.raw)};
    high = V{_mm512_permutex2var_ps(even.raw, _mm512_load_si512(kHigh), odd.raw)};
#endif
  } else {
#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE  // (kBFloat16EvenOdd excludes those)
    // Within each 128-bit block: the columns of its lower and of its upper pairs of lanes.
    const V lower_pairs = hn::InterleaveLower(d, even, odd);
    const V upper_pairs = hn::InterleaveUpper(d, even, odd);
    if constexpr (hn::MaxLanes(D()) == 4) {
      low = lower_pairs;
      high = upper_pairs;
    } else {
      low = hn::ConcatLowerLower(d, upper_pairs, lower_pairs);
      high = hn::ConcatUpperUpper(d, upper_pairs, lower_pairs);
    }
#endif
  }
}

// A block of 4 * lanes columns of a source row of kType as four vectors (Load), and the block's
// sums into a sink (Store): in column order; or, where kBFloat16EvenOdd, as the even and odd
// columns of the block's two halves (a0 and a1 the first half's, a2 and a3 the second's), zipped
// back into order at the store. Every column sums the same exactly converted values either way.
// (Stateless: SVE's vectors cannot be members.)
template <DType kType, class D, class Sink>
struct ColumnBlocks {
  using Storage = typename DTypeTraits<kType>::Storage;
  using V = hn::Vec<D>;
  static constexpr bool kEvenOdd = kBFloat16EvenOdd<kType, D, Sink>;

  static HWY_INLINE void Load(D d, const Storage* HWY_RESTRICT at, V& x0, V& x1, V& x2, V& x3) {
    const size_t lanes = hn::Lanes(d);
    if constexpr (kEvenOdd) {
      LoadBFloat16EvenOdd(d, at, x0, x1);
      LoadBFloat16EvenOdd(d, at + 2 * lanes, x2, x3);
    } else {
      x0 = LoadAs<kType>(d, at);
      x1 = LoadAs<kType>(d, at + lanes);
      x2 = LoadAs<kType>(d, at + 2 * lanes);
      x3 = LoadAs<kType>(d, at + 3 * lanes);
    }
  }

  static HWY_INLINE void Store(D d, const Sink& sink, size_t column, V a0, V a1, V a2, V a3) {
    if constexpr (kEvenOdd) {
      V n0, n1, n2, n3;
      ZipEvenOdd(d, a0, a1, n0, n1);
      ZipEvenOdd(d, a2, a3, n2, n3);
      sink.Store4(d, column, n0, n1, n2, n3);
    } else {
      sink.Store4(d, column, a0, a1, a2, a3);
    }
  }
};

// Combine's form for long runs of distant rows (anti-aliased downscales by 4 and more: 16-33
// taps). The column-block loop below reads all `count` rows at once, a line or two of each per
// block, and with rows a page or more apart no hardware prefetcher follows that many streams
// (each row is a new page to train on): on the Zen 3 VM a 1024 -> 128 bicubic AA forward had
// 60 % of its samples in that loop, nearly all on the loads. This form sweeps a strip of columns
// kTapsPerPass rows at a time instead, keeping the partial sums of the strip in a stack buffer
// between sweeps: each sweep reads kTapsPerPass rows sequentially, and every element still sees
// its taps' products summed in k order, the bits of the loop below. That case ran in 0.78-0.82
// of its former time, 4x downscales (16-17 taps) in 0.90-0.98 (bench/RESULTS.md); with fewer
// taps the old loop keeps up and the form's partial sums cost 3-8 % (2x, 3x and 6x AA downscales
// of 1024-1536-wide rows: 9-13 taps), as does a run within L1, hence the two thresholds of
// UseManyTapForm (source_prefetch.h). Sweeps of 8 rows (8 weights and 4 sums still fit AVX2's
// registers) ran 0.92-0.94 of the time of 4 in cache, but 1.01-1.08 on the suite's 4x and 8x
// bicubic AA forwards from memory (cases 22 and 25, session 20).
inline constexpr size_t kTapsPerPass = 4;
inline constexpr size_t kStripFloats = 1024;  // 4 KiB of partial sums, in L1 between sweeps

// One sweep of the many-tap form: kTaps <= kTapsPerPass rows (`rows` is the first, at the
// strip's column 0) with weights[0, kTaps), over the strip's column blocks of 4 * lanes, from the
// first tap's products (kFirst) or from the partial sums, to the sink at column `column` (where
// `last`) or to the partial sums.
//
// In cache the many-tap form ran at about 4.7 instructions a cycle on the Zen 3 VM (callgrind's
// count against its time), so what it costs is its instruction count. The taps are unrolled,
// their weights broadcast once per sweep rather than once per block, and each row is a pointer
// of its own: a tap is four FMAs with their loads folded in, where the loop over runtime taps
// took 11 instructions for them (the row's address by a multiply, the broadcast, the counter).
// A 512 -> 128 bicubic AA forward plane's H pass went from 789 K to 544 K instructions (464 K in
// sweeps of 8). The sink is copied: through the reference, every store reloaded its pointer
// (a further 0.95 of the time in cache).
template <int kTaps, bool kFirst, DType kType, class D, class Sink>
HWY_INLINE void SweepTaps(D d, const Sink& sink_ref, size_t column, size_t strip,
                          const typename DTypeTraits<kType>::Storage* HWY_RESTRICT rows,
                          ptrdiff_t src_stride, const float* HWY_RESTRICT weights, bool last,
                          float* HWY_RESTRICT partial, LinePrefetchQueue* prefetch, size_t quota) {
  static_assert(kTaps >= 1 && kTaps <= 4 && kTapsPerPass == 4, "");
  using Storage = typename DTypeTraits<kType>::Storage;
  const Sink sink = sink_ref;
  using V = hn::Vec<D>;
  const size_t lanes = hn::Lanes(d);
  const size_t block = 4 * lanes;
  // Named rows and weights rather than arrays: arrays of vectors are not portable to SVE. Taps
  // past kTaps repeat the last one and are never used.
  const auto row_of = [&](int k) {
    return rows + static_cast<ptrdiff_t>(k < kTaps ? k : kTaps - 1) * src_stride;
  };
  const auto weight_of = [&](int k) { return hn::Set(d, weights[k < kTaps ? k : kTaps - 1]); };
  const Storage *r0 = row_of(0), *r1 = row_of(1), *r2 = row_of(2), *r3 = row_of(3);
  const V w0 = weight_of(0), w1 = weight_of(1), w2 = weight_of(2), w3 = weight_of(3);
  using Blocks = ColumnBlocks<kType, D, Sink>;
  for (size_t v = 0; v < strip; v += block) {
    V a0, a1, a2, a3;
    const auto tap = [&](const Storage* HWY_RESTRICT row, V w) {
      V x0, x1, x2, x3;
      Blocks::Load(d, row + v, x0, x1, x2, x3);
      a0 = hn::MulAdd(w, x0, a0);
      a1 = hn::MulAdd(w, x1, a1);
      a2 = hn::MulAdd(w, x2, a2);
      a3 = hn::MulAdd(w, x3, a3);
    };
    if constexpr (kFirst) {
      Blocks::Load(d, r0 + v, a0, a1, a2, a3);
      a0 = hn::Mul(w0, a0);
      a1 = hn::Mul(w0, a1);
      a2 = hn::Mul(w0, a2);
      a3 = hn::Mul(w0, a3);
    } else {
      a0 = hn::Load(d, partial + v);
      a1 = hn::Load(d, partial + v + lanes);
      a2 = hn::Load(d, partial + v + 2 * lanes);
      a3 = hn::Load(d, partial + v + 3 * lanes);
      tap(r0, w0);
    }
    if constexpr (kTaps > 1) tap(r1, w1);
    if constexpr (kTaps > 2) tap(r2, w2);
    if constexpr (kTaps > 3) tap(r3, w3);
    if (prefetch != nullptr) prefetch->Issue(quota);
    if (last) {
      Blocks::Store(d, sink, column + v, a0, a1, a2, a3);
    } else {
      hn::Store(a0, d, partial + v);
      hn::Store(a1, d, partial + v + lanes);
      hn::Store(a2, d, partial + v + 2 * lanes);
      hn::Store(a3, d, partial + v + 3 * lanes);
    }
  }
}

// The many-tap form over whole blocks of 4 * lanes columns from column 0; returns the columns
// done (Combine's loops finish the rest, in the same operations). Not inlined: a call is a whole
// row of many taps, and inlined it doubled the size of every H-pass kernel around Combine's
// common loops.
template <DType kType, class D, class Sink>
HWY_NOINLINE size_t CombineManyTaps(D d, const Sink& sink, size_t n,
                                    const typename DTypeTraits<kType>::Storage* HWY_RESTRICT src,
                                    ptrdiff_t src_stride, const float* HWY_RESTRICT weights,
                                    size_t count, LinePrefetchQueue* prefetch) {
  const size_t lanes = hn::Lanes(d);
  const size_t block = 4 * lanes;
  // The queued prefetches, spread evenly over the column blocks of every sweep; what remains
  // (a row without a whole block) is issued on the way out.
  const size_t sweeps = (count + kTapsPerPass - 1) / kTapsPerPass;
  const size_t quota = prefetch != nullptr ? prefetch->QuotaFor(sweeps * (n / block)) : 0;
  if (block > kStripFloats) {  // vectors wider than the strip: Combine's loop does all
    if (prefetch != nullptr) prefetch->IssueAll();
    return 0;
  }
  HWY_ALIGN float partial[kStripFloats];
  size_t j = 0;
  while (n - j >= block) {
    const size_t strip = std::min(kStripFloats / block, (n - j) / block) * block;
    for (size_t k0 = 0; k0 < count; k0 += kTapsPerPass) {
      const auto* const rows = src + j + static_cast<ptrdiff_t>(k0) * src_stride;
      const bool last = k0 + kTapsPerPass >= count;
      static_assert(kManyTaps > kTapsPerPass, "the first sweep is always a whole one");
      if (k0 == 0) {  // count >= kManyTaps (UseManyTapForm): a whole sweep
        SweepTaps<kTapsPerPass, true, kType>(d, sink, j, strip, rows, src_stride, weights, last,
                                             partial, prefetch, quota);
        continue;
      }
      const auto sweep = [&](auto taps) {
        SweepTaps<decltype(taps)::value, false, kType>(
            d, sink, j, strip, rows, src_stride, weights + k0, last, partial, prefetch, quota);
      };
      switch (std::min(count - k0, kTapsPerPass)) {
        case 1:
          sweep(std::integral_constant<int, 1>());
          break;
        case 2:
          sweep(std::integral_constant<int, 2>());
          break;
        case 3:
          sweep(std::integral_constant<int, 3>());
          break;
        default:
          sweep(std::integral_constant<int, 4>());
          break;
      }
    }
    j += strip;
  }
  if (prefetch != nullptr) prefetch->IssueAll();
  return j;
}

// The sinks whose rows may end in a vector overlapping the one before it (StoreOverlapping):
// natural-order rows, float32 or rounded to 16 bits.
// (A class template: explicit specialisations of a variable template in a header are not
// inline before C++20 for Clang, which then defines one per translation unit.)
template <class Sink>
struct OverlapsTail : std::false_type {};
template <>
struct OverlapsTail<RowSink<1>> : std::true_type {};
template <DType kType>
struct OverlapsTail<RoundingSink<kType>> : std::true_type {};

// Combine's columns [j, n) in d's vectors: four at a time, then one, then the tail.
template <DType kType, class D, class Sink>
HWY_INLINE void CombineColumns(D d, const Sink& sink, size_t j, size_t n,
                               const typename DTypeTraits<kType>::Storage* HWY_RESTRICT src,
                               ptrdiff_t src_stride, const float* HWY_RESTRICT weights,
                               size_t count) {
  using Storage = typename DTypeTraits<kType>::Storage;
  const size_t lanes = hn::Lanes(d);
  // Four independent accumulators hide the FMA latency.
  using Blocks = ColumnBlocks<kType, D, Sink>;
  for (; j + 4 * lanes <= n; j += 4 * lanes) {
    const Storage* row = src + j;
    const auto w0 = hn::Set(d, weights[0]);
    hn::Vec<D> acc0, acc1, acc2, acc3;
    Blocks::Load(d, row, acc0, acc1, acc2, acc3);
    acc0 = hn::Mul(w0, acc0);
    acc1 = hn::Mul(w0, acc1);
    acc2 = hn::Mul(w0, acc2);
    acc3 = hn::Mul(w0, acc3);
    for (size_t k = 1; k < count; ++k) {
      row += src_stride;
      const auto w = hn::Set(d, weights[k]);
      hn::Vec<D> x0, x1, x2, x3;
      Blocks::Load(d, row, x0, x1, x2, x3);
      acc0 = hn::MulAdd(w, x0, acc0);
      acc1 = hn::MulAdd(w, x1, acc1);
      acc2 = hn::MulAdd(w, x2, acc2);
      acc3 = hn::MulAdd(w, x3, acc3);
    }
    Blocks::Store(d, sink, j, acc0, acc1, acc2, acc3);
  }
  // The vector of columns [at, at + lanes).
  const auto combine_vector = [&](size_t at) {
    const Storage* row = src + at;
    auto acc = hn::Mul(hn::Set(d, weights[0]), LoadAs<kType>(d, row));
    for (size_t k = 1; k < count; ++k) {
      row += src_stride;
      acc = hn::MulAdd(hn::Set(d, weights[k]), LoadAs<kType>(d, row), acc);
    }
    return acc;
  };
  for (; j + lanes <= n; j += lanes) sink.StorePartial(d, j, combine_vector(j), lanes);
  if constexpr (OverlapsTail<Sink>::value) {
    if (j < n && n >= lanes) {
      // The tail as the row's last whole vector, overlapping the body: its first lanes are
      // recomputed with the same operations, so they store the bits already there. Row after row
      // of C-vectors that are not whole vectors (channels-last images of 9 to 21 channels) went
      // through the buffer below at 0.6x PyTorch's speed; 16-bit rows of 127 spent a third of
      // their H pass waiting on the buffer's loads.
      sink.StoreOverlapping(d, n - lanes, combine_vector(n - lanes));
      return;
    }
  }
  if (j < n) {
    // The tail goes through a full vector too, so its elements see the same operations (and
    // the same FMA contraction) as the body's.
    const size_t rest = n - j;
    HWY_ALIGN float buffer[HWY_MAX_BYTES / sizeof(float)] = {};
    const Storage* row = src + j;
    for (size_t t = 0; t < rest; ++t) buffer[t] = DTypeTraits<kType>::ToFloat(row[t]);
    auto acc = hn::Mul(hn::Set(d, weights[0]), hn::Load(d, buffer));
    for (size_t k = 1; k < count; ++k) {
      row += src_stride;
      for (size_t t = 0; t < rest; ++t) buffer[t] = DTypeTraits<kType>::ToFloat(row[t]);
      acc = hn::MulAdd(hn::Set(d, weights[k]), hn::Load(d, buffer), acc);
    }
    sink.StorePartial(d, j, acc, rest);
  }
}

// The weights of a pair of kCount-tap runs broadcast into named vectors (arrays of vectors are
// not portable to SVE); those past kCount repeat the first and go unused.
template <int kCount, class D, class V = hn::Vec<D>>
HWY_INLINE void BroadcastPairWeights(D d, const float* HWY_RESTRICT weights0,
                                     const float* HWY_RESTRICT weights1, V& u0, V& u1, V& u2, V& u3,
                                     V& v0, V& v1, V& v2, V& v3) {
  u0 = hn::Set(d, weights0[0]);
  u1 = hn::Set(d, weights0[kCount > 1 ? 1 : 0]);
  u2 = hn::Set(d, weights0[kCount > 2 ? 2 : 0]);
  u3 = hn::Set(d, weights0[kCount > 3 ? 3 : 0]);
  v0 = hn::Set(d, weights1[0]);
  v1 = hn::Set(d, weights1[kCount > 1 ? 1 : 0]);
  v2 = hn::Set(d, weights1[kCount > 2 ? 2 : 0]);
  v3 = hn::Set(d, weights1[kCount > 3 ? 3 : 0]);
}

// How the pair loops below read and write, one struct per form: Load(j, r, x0..x3) reads source
// row r's four vectors of the column block at j, Store(j, a0..a3, b0..b3) writes the two rows'
// sums. Combine's blocks (ColumnBlocks) into two sinks:
template <DType kType, class D, class Sink>
struct BlockPairAccess {
  using Blocks = ColumnBlocks<kType, D, Sink>;
  using V = hn::Vec<D>;
  D d;
  const typename DTypeTraits<kType>::Storage* HWY_RESTRICT rows;
  ptrdiff_t src_stride;
  const Sink& sink0;
  const Sink& sink1;

  HWY_INLINE void Load(size_t j, size_t r, V& x0, V& x1, V& x2, V& x3) const {
    Blocks::Load(d, rows + j + static_cast<ptrdiff_t>(r) * src_stride, x0, x1, x2, x3);
  }
  HWY_INLINE void Store(size_t j, V a0, V a1, V a2, V a3, V b0, V b1, V b2, V b3) const {
    Blocks::Store(d, sink0, j, a0, a1, a2, a3);
    Blocks::Store(d, sink1, j, b0, b1, b2, b3);
  }
};

#if HWY_TARGET != HWY_SCALAR
// bfloat16 source rows into sinks split by column phase, each load read as its even and odd
// columns as CombineBFloat16Phases reads it.
template <class D, int kPhases>
struct BFloat16PhasesPairAccess {
  using V = hn::Vec<D>;
  D d;
  const uint16_t* HWY_RESTRICT rows;
  ptrdiff_t src_stride;
  const RowSink<kPhases>& sink0;
  const RowSink<kPhases>& sink1;

  HWY_INLINE void Load(size_t j, size_t r, V& even0, V& odd0, V& even1, V& odd1) const {
    const uint16_t* const row = rows + j + static_cast<ptrdiff_t>(r) * src_stride;
    LoadBFloat16EvenOdd(d, row, even0, odd0);
    LoadBFloat16EvenOdd(d, row + 2 * hn::Lanes(d), even1, odd1);
  }
  HWY_INLINE void Store(size_t j, V a0, V a1, V a2, V a3, V b0, V b1, V b2, V b3) const {
    StoreEvenOddPhases(d, sink0, j, a0, a1, a2, a3);
    StoreEvenOddPhases(d, sink1, j, b0, b1, b2, b3);
  }
};
#endif

// Whether a pair of kType rows into Sinks is bfloat16 read by phase (BFloat16PhasesPairAccess).
template <DType kType, class Sink>
inline constexpr bool kPhasedBFloat16Pair = kType == DType::kBFloat16 &&
                                            (std::is_same_v<Sink, RowSink<2>> ||
                                             std::is_same_v<Sink, RowSink<4>>);

#if HWY_TARGET != HWY_SCALAR  // the pairs' only callers (TryCombineRowPair, TryCombineManyTapPair)
// The access of a pair of result rows into sink0 and sink1 from `rows`, src_stride apart.
template <DType kType, class D, class Sink>
HWY_INLINE auto PairAccess(D d, const Sink& sink0, const Sink& sink1,
                           const typename DTypeTraits<kType>::Storage* HWY_RESTRICT rows,
                           ptrdiff_t src_stride) {
  if constexpr (kPhasedBFloat16Pair<kType, Sink>) {
    return BFloat16PhasesPairAccess<D, Sink::kPhaseCount>{d, rows, src_stride, sink0, sink1};
  } else {
    return BlockPairAccess<kType, D, Sink>{d, rows, src_stride, sink0, sink1};
  }
}
#endif

// Two result rows whose runs have kCount taps each, the second starting kShift rows after the
// first, over column blocks of 4 * lanes from column 0; returns the columns done. Every source row
// of the union is loaded once per block for both sums (access.Load), and each sum sees its run's
// operations in Combine's order, so its remaining columns go through CombineColumns for the same
// bits; access.Store takes the two rows' sums. The rows of a 2x upsample come in such pairs (shift
// 0: rows 2i + 1 and 2i + 2 read the same two rows), of its gradient too (shift 2), and a row of
// 128 floats cost more in set-up and loads than in arithmetic.
template <int kCount, int kShift, class D, class Access>
HWY_INLINE size_t CombinePairBlocksWith(D d, size_t n, const float* HWY_RESTRICT weights0,
                                        const float* HWY_RESTRICT weights1, const Access& access) {
  static_assert(kShift >= 0 && kCount >= 1 && kCount <= 4, "");
  const size_t lanes = hn::Lanes(d);
  hn::Vec<D> u0, u1, u2, u3, v0, v1, v2, v3;
  BroadcastPairWeights<kCount>(d, weights0, weights1, u0, u1, u2, u3, v0, v1, v2, v3);
  size_t j = 0;
  for (; j + 4 * lanes <= n; j += 4 * lanes) {
    auto a0 = hn::Zero(d), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
    for (int r = 0; r < kShift + kCount; ++r) {  // unrolled: kCount and kShift are constants
      hn::Vec<D> x0, x1, x2, x3;
      access.Load(j, static_cast<size_t>(r), x0, x1, x2, x3);
      if (r < kCount) {
        const auto u = r == 0 ? u0 : r == 1 ? u1 : r == 2 ? u2 : u3;
        a0 = r == 0 ? hn::Mul(u, x0) : hn::MulAdd(u, x0, a0);
        a1 = r == 0 ? hn::Mul(u, x1) : hn::MulAdd(u, x1, a1);
        a2 = r == 0 ? hn::Mul(u, x2) : hn::MulAdd(u, x2, a2);
        a3 = r == 0 ? hn::Mul(u, x3) : hn::MulAdd(u, x3, a3);
      }
      if (r >= kShift) {
        const int k = r - kShift;
        const auto v = k == 0 ? v0 : k == 1 ? v1 : k == 2 ? v2 : v3;
        b0 = k == 0 ? hn::Mul(v, x0) : hn::MulAdd(v, x0, b0);
        b1 = k == 0 ? hn::Mul(v, x1) : hn::MulAdd(v, x1, b1);
        b2 = k == 0 ? hn::Mul(v, x2) : hn::MulAdd(v, x2, b2);
        b3 = k == 0 ? hn::Mul(v, x3) : hn::MulAdd(v, x3, b3);
      }
    }
    access.Store(j, a0, a1, a2, a3, b0, b1, b2, b3);
  }
  return j;
}

// Two result rows whose runs have `count` taps (more than the pair loops above hold in
// registers: each tap's weights are broadcast as it comes), the second starting `shift` rows (1
// to count - 1) after the first, over whole blocks of 4 * lanes columns: each source row of the
// union is loaded once per block for both sums (access.Load), each sum sees its run's operations
// in Combine's order, access.Store takes both; `prefetch`, if given, is issued between the
// blocks. Returns the columns done.
template <class D, class Access>
HWY_INLINE size_t CombineManyTapPairWith(D d, size_t n, const float* HWY_RESTRICT weights0,
                                         const float* HWY_RESTRICT weights1, size_t count,
                                         size_t shift, LinePrefetchQueue* prefetch,
                                         const Access& access) {
  using V = hn::Vec<D>;
  const size_t block = 4 * hn::Lanes(d);
  const size_t quota = prefetch != nullptr ? prefetch->QuotaFor(n / block) : 0;
  size_t j = 0;
  for (; j + block <= n; j += block) {
    if (prefetch != nullptr) prefetch->Issue(quota);
    V x0, x1, x2, x3;
    access.Load(j, size_t{0}, x0, x1, x2, x3);
    const auto u0 = hn::Set(d, weights0[0]);
    V a0 = hn::Mul(u0, x0), a1 = hn::Mul(u0, x1), a2 = hn::Mul(u0, x2), a3 = hn::Mul(u0, x3);
    const auto add_to_first = [&](size_t r) ACLNN_UPSAMPLE_INLINE_LAMBDA {
      const auto u = hn::Set(d, weights0[r]);
      a0 = hn::MulAdd(u, x0, a0);
      a1 = hn::MulAdd(u, x1, a1);
      a2 = hn::MulAdd(u, x2, a2);
      a3 = hn::MulAdd(u, x3, a3);
    };
    size_t r = 1;
    for (; r < shift; ++r) {
      access.Load(j, r, x0, x1, x2, x3);
      add_to_first(r);
    }
    access.Load(j, shift, x0, x1, x2, x3);
    add_to_first(shift);
    const auto v0 = hn::Set(d, weights1[0]);
    V b0 = hn::Mul(v0, x0), b1 = hn::Mul(v0, x1), b2 = hn::Mul(v0, x2), b3 = hn::Mul(v0, x3);
    const auto add_to_second = [&](size_t r) ACLNN_UPSAMPLE_INLINE_LAMBDA {
      const auto v = hn::Set(d, weights1[r - shift]);
      b0 = hn::MulAdd(v, x0, b0);
      b1 = hn::MulAdd(v, x1, b1);
      b2 = hn::MulAdd(v, x2, b2);
      b3 = hn::MulAdd(v, x3, b3);
    };
    for (r = shift + 1; r < count; ++r) {
      access.Load(j, r, x0, x1, x2, x3);
      add_to_first(r);
      add_to_second(r);
    }
    for (; r < count + shift; ++r) {
      access.Load(j, r, x0, x1, x2, x3);
      add_to_second(r);
    }
    access.Store(j, a0, a1, a2, a3, b0, b1, b2, b3);
  }
  return j;
}

// Calls fn(count, shift) with both as integral constants, for a pair of runs of `count` taps (2
// to 4) whose second starts `shift` rows (0 to 2) after the first; returns what fn returns.
template <class Fn>
HWY_INLINE size_t ForRowPairShape(size_t count, size_t shift, const Fn& fn) {
  const auto with_shift = [&](auto taps) -> size_t {
    if (shift == 0) return fn(taps, std::integral_constant<int, 0>());
    if (shift == 1) return fn(taps, std::integral_constant<int, 1>());
    return fn(taps, std::integral_constant<int, 2>());
  };
  if (count == 2) return with_shift(std::integral_constant<int, 2>());
  if (count == 3) return with_shift(std::integral_constant<int, 3>());
  return with_shift(std::integral_constant<int, 4>());
}

// Whether every source row of a combine starts on a multiple of `bytes` (the bytes one vector
// loads, a cache line's or half of it), so that no load straddles two lines.
template <class Storage>
HWY_INLINE bool RowsStartOnMultiplesOf(size_t bytes, const Storage* src, ptrdiff_t src_stride,
                                       size_t count) {
  const bool first_on = reinterpret_cast<uintptr_t>(src) % bytes == 0;
  const bool stride_of =
      count < 2 || static_cast<size_t>(src_stride) * sizeof(Storage) % bytes == 0;
  return first_on && stride_of;
}

// Whether a pair of kType rows into Sinks, `rows` (row_count of them, src_stride apart) on, takes
// the whole vectors that Combine takes for each row alone: on AVX-512, rows off a whole vector's
// load take half vectors in Combine (bfloat16 rows split by phase excepted), so they do not pair.
template <DType kType, class Sink>
HWY_INLINE bool PairTakesWholeVectors(const typename DTypeTraits<kType>::Storage* rows,
                                      ptrdiff_t src_stride, size_t row_count) {
#if !HWY_HAVE_SCALABLE && HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<float> d;
  if constexpr (!kPhasedBFloat16Pair<kType, Sink> && hn::MaxLanes(d) > 8) {
    return RowsStartOnMultiplesOf(hn::Lanes(d) * sizeof(*rows), rows, src_stride, row_count);
  }
#endif
  (void)rows;
  (void)src_stride;
  (void)row_count;
  return true;
}

#if HWY_TARGET != HWY_SCALAR
// Two result rows whose runs have `count` taps (2 to 4), the second's starting `shift` rows (0 to
// 2) after the first's at `rows`, combined together into sink0 and sink1 where Combine would take
// whole vectors for both (PairTakesWholeVectors), through CombinePairBlocksWith and the form's
// PairAccess; the columns past the last whole block go row by row. The same bits as a Combine per
// row. False, with nothing written, where the rows take another form.
template <DType kType, class Sink>
HWY_INLINE bool TryCombineRowPair(const Sink& sink0, const Sink& sink1, size_t n,
                                  const typename DTypeTraits<kType>::Storage* HWY_RESTRICT rows,
                                  ptrdiff_t src_stride, const float* HWY_RESTRICT weights0,
                                  const float* HWY_RESTRICT weights1, size_t count, size_t shift) {
  const hn::ScalableTag<float> d;
  if (count < 2 || count > 4 || shift > 2 || n < 4 * hn::Lanes(d) || src_stride <= 0 ||
      !PairTakesWholeVectors<kType, Sink>(rows, src_stride, count + shift)) {
    return false;
  }
  const auto access = PairAccess<kType>(d, sink0, sink1, rows, src_stride);
  const size_t j = ForRowPairShape(count, shift, [&](auto taps, auto offset) -> size_t {
    return CombinePairBlocksWith<decltype(taps)::value, decltype(offset)::value>(d, n, weights0,
                                                                                 weights1, access);
  });
  CombineColumns<kType>(d, sink0, j, n, rows, src_stride, weights0, count);
  CombineColumns<kType>(d, sink1, j, n, rows + static_cast<ptrdiff_t>(shift) * src_stride,
                        src_stride, weights1, count);
  return true;
}
#endif

#if HWY_TARGET != HWY_SCALAR
// Two result rows whose runs have `count` taps (more than 4) and start `shift` rows apart (1 to
// count - 1), together where whole blocks allow (CombineManyTapPairWith, the form's PairAccess);
// the rest row by row. The same bits as a Combine per row. False, with
// nothing written, where the rows take another form.
template <DType kType, class Sink>
HWY_INLINE bool TryCombineManyTapPair(const Sink& sink0, const Sink& sink1, size_t n,
                                      const typename DTypeTraits<kType>::Storage* HWY_RESTRICT rows,
                                      ptrdiff_t src_stride, const float* HWY_RESTRICT weights0,
                                      const float* HWY_RESTRICT weights1, size_t count,
                                      size_t shift, LinePrefetchQueue* prefetch) {
  const hn::ScalableTag<float> d;
  if (count <= 4 || shift < 1 || shift >= count || n < 4 * hn::Lanes(d) || src_stride <= 0 ||
      !PairTakesWholeVectors<kType, Sink>(rows, src_stride, count + shift)) {
    return false;
  }
  const size_t j = CombineManyTapPairWith(d, n, weights0, weights1, count, shift, prefetch,
                                          PairAccess<kType>(d, sink0, sink1, rows, src_stride));
  if (prefetch != nullptr) prefetch->IssueAll();
  CombineColumns<kType>(d, sink0, j, n, rows, src_stride, weights0, count);
  CombineColumns<kType>(d, sink1, j, n, rows + static_cast<ptrdiff_t>(shift) * src_stride,
                        src_stride, weights1, count);
  return true;
}
#endif

// A row with no run: zeros, in whole vectors through the sink's own stores, so that a streaming
// sink streams them. Stored element by element, cached, each line read for ownership first, the
// empty rows (every other one) of nearest 2x downscales' gradients, 256 -> 128 on 8 x 64 planes,
// took 1.5x (legacy nearest) and 1.8x (nearest-exact) the time (Intel, bench/RESULTS.md).
template <class D, class Sink>
HWY_INLINE void CombineNothing(D d, const Sink& sink, size_t n) {
  const size_t lanes = hn::Lanes(d);
  const auto zero = hn::Zero(d);
  size_t j = 0;
  for (; j + 4 * lanes <= n; j += 4 * lanes) sink.Store4(d, j, zero, zero, zero, zero);
  for (; j + lanes <= n; j += lanes) sink.StorePartial(d, j, zero, lanes);
  if (j < n) sink.StorePartial(d, j, zero, n - j);
}

// sink gets column j = sum_{k < count} weights[k] * src[k * src_stride + j] for j < n, summed in
// k order; count == 0 gives zeros. Source rows of any dtype are converted in registers
// (exactly), so 16-bit gradients need no float copy in scratch first. `prefetch`, if given, is
// issued between the column blocks of runs that take the many-tap form (by that form, or by the
// bfloat16 form for rows split by phase); runs that do not leave it queued.
template <DType kType, class Sink>
HWY_INLINE void Combine(const Sink& sink, size_t n, const void* HWY_RESTRICT source,
                        ptrdiff_t src_stride, const float* HWY_RESTRICT weights, size_t count,
                        LinePrefetchQueue* prefetch = nullptr) {
  using Storage = typename DTypeTraits<kType>::Storage;
  const Storage* src = static_cast<const Storage*>(source);
  const hn::ScalableTag<float> d;
  if (count == 0) {
    CombineNothing(d, sink, n);
    return;
  }
  const bool many_taps = UseManyTapForm(count, src_stride, sizeof(Storage));
  size_t j = 0;
  if constexpr (kType == DType::kBFloat16 &&
                (std::is_same_v<Sink, RowSink<2>> || std::is_same_v<Sink, RowSink<4>>)) {
    j = CombineBFloat16Phases(sink, n, src, src_stride, weights, count,
                              many_taps ? prefetch : nullptr);
  }
  if (j == 0 && many_taps) {
    // In 256-bit vectors on AVX-512 where the CPU's tuning says so (KernelTuning, kernels.h),
    // with the same bits; except bfloat16 rows read as even and odd columns, which then load a
    // whole line per pair of vectors rather than half of one: on the Zen 4 VM (session 42)
    // bfloat16 4x and 8x AA forwards (channels-last RGB, RGBA, 16 channels, planar RGB) ran in
    // 0.92-0.97 of the half vectors' time; float16 ones 1.00-1.06, float32 1.07-1.13 (session 41).
    bool in_half_vectors = false;
#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE
    if constexpr (hn::MaxLanes(d) > 8) {
      in_half_vectors =
          TuningForCpu().many_taps_in_half_vectors && !kBFloat16EvenOdd<kType, decltype(d), Sink>;
      if (in_half_vectors) {
        j = CombineManyTaps<kType>(hn::CappedTag<float, 8>(), sink, n, src, src_stride, weights,
                                   count, prefetch);
      }
    }
#endif
    if (!in_half_vectors) {
      j = CombineManyTaps<kType>(d, sink, n, src, src_stride, weights, count, prefetch);
    }
  }
#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE
  // Rows that do not all start on a multiple of a vector's load (64 bytes of float32, 32 of a
  // 16-bit dtype), in half vectors on AVX-512: there many of their loads straddle two lines
  // (every one of a float32 row off a line). 2x AA downscales of 200-wide planes ran 1.10-1.15x
  // slower than on AVX2 in float32 and 1.34-1.57x in bfloat16 and float16; in half vectors
  // 0.96-1.05. Rows on those multiples keep whole vectors (float32 512 -> 256: 0.89-0.95 of
  // AVX2, 1.07 in halves).
  if constexpr (hn::MaxLanes(d) > 8) {
    if (!RowsStartOnMultiplesOf(hn::MaxLanes(d) * sizeof(Storage), src, src_stride, count)) {
      CombineColumns<kType>(hn::CappedTag<float, 8>(), sink, j, n, src, src_stride, weights, count);
      return;
    }
  }
#endif
  CombineColumns<kType>(d, sink, j, n, src, src_stride, weights, count);
}

// Natural-order rows, as CombineRows writes them.
template <DType kType>
HWY_INLINE void CombineInto(float* HWY_RESTRICT dst, size_t n, const void* HWY_RESTRICT source,
                            ptrdiff_t src_stride, const float* HWY_RESTRICT weights, size_t count,
                            LinePrefetchQueue* prefetch = nullptr) {
  Combine<kType>(RowSink<1>{dst, 0}, n, source, src_stride, weights, count, prefetch);
}

// Two result rows whose runs have kCount taps each, the second starting kShift rows after the
// first, with all weights held in registers: every source row of the union is loaded once per
// column for both sums. Each sum sees its run's operations in Combine's order.
template <DType kType, int kCount, int kShift>
HWY_INLINE void CombinePairFixed(float* HWY_RESTRICT dst0, float* HWY_RESTRICT dst1, size_t n,
                                 const typename DTypeTraits<kType>::Storage* HWY_RESTRICT src,
                                 ptrdiff_t src_stride, const float* HWY_RESTRICT weights0,
                                 const float* HWY_RESTRICT weights1, size_t* done) {
  static_assert(kShift > 0 && kShift < kCount && kCount <= 4, "");
  const hn::ScalableTag<float> d;
  using D = decltype(d);
  const size_t lanes = hn::Lanes(d);
  hn::Vec<D> u0, u1, u2, u3, v0, v1, v2, v3;
  BroadcastPairWeights<kCount>(d, weights0, weights1, u0, u1, u2, u3, v0, v1, v2, v3);
  size_t j = 0;
  for (; j + lanes <= n; j += lanes) {
    auto a = hn::Zero(d), b = hn::Zero(d);
    for (int r = 0; r < kShift + kCount; ++r) {  // unrolled: kCount and kShift are constants
      const auto x = LoadAs<kType>(d, src + j + r * src_stride);
      if (r < kCount) {
        const auto u = r == 0 ? u0 : r == 1 ? u1 : r == 2 ? u2 : u3;
        a = r == 0 ? hn::Mul(u, x) : hn::MulAdd(u, x, a);
      }
      if (r >= kShift) {
        const int k = r - kShift;
        const auto v = k == 0 ? v0 : k == 1 ? v1 : k == 2 ? v2 : v3;
        b = k == 0 ? hn::Mul(v, x) : hn::MulAdd(v, x, b);
      }
    }
    hn::StoreU(a, d, dst0 + j);
    hn::StoreU(b, d, dst1 + j);
  }
  *done = j;
}

// Two result rows at once whose runs overlap, as H passes of consecutive rows do: row 0
// combines count0 rows from `source` with weights0, row 1 count1 rows from `source` + shift1
// rows with weights1. The bits are two CombineInto calls'. The bilinear shapes have fused
// forms: 2x (4 taps shifted by 2, two of every four source rows shared; about 15 % faster on
// channels-last rows) and 1.5x (3 taps shifted by 1 or 2; a third fewer H-pass instructions on
// a channels-last 64 -> 96 image); other shapes run as the two calls.
template <DType kType>
HWY_INLINE void CombinePair(float* HWY_RESTRICT dst0, float* HWY_RESTRICT dst1, size_t n,
                            const void* HWY_RESTRICT source, ptrdiff_t src_stride,
                            const float* HWY_RESTRICT weights0, size_t count0, size_t shift1,
                            const float* HWY_RESTRICT weights1, size_t count1) {
  using Storage = typename DTypeTraits<kType>::Storage;
  const Storage* src = static_cast<const Storage*>(source);
  size_t j = 0;
#if HWY_TARGET != HWY_SCALAR  // one lane: Combine's four accumulators keep more FMAs in flight
  if (count0 == 4 && count1 == 4 && shift1 == 2) {
    CombinePairFixed<kType, 4, 2>(dst0, dst1, n, src, src_stride, weights0, weights1, &j);
  } else if (count0 == 3 && count1 == 3 && shift1 == 1) {
    CombinePairFixed<kType, 3, 1>(dst0, dst1, n, src, src_stride, weights0, weights1, &j);
  } else if (count0 == 3 && count1 == 3 && shift1 == 2) {
    CombinePairFixed<kType, 3, 2>(dst0, dst1, n, src, src_stride, weights0, weights1, &j);
  }
#endif
  if (j < n) {
    CombineInto<kType>(dst0 + j, n - j, src + j, src_stride, weights0, count0);
    CombineInto<kType>(dst1 + j, n - j, src + j + static_cast<ptrdiff_t>(shift1) * src_stride,
                       src_stride, weights1, count1);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace aclnn_upsample
HWY_AFTER_NAMESPACE();

#endif  // ACLNN_UPSAMPLE_KERNELS_COMBINE_INL_H_
