// Per-target vector conversions between the operators' dtypes and float32, shared by the kernel
// families. A Highway "-inl" header: included once per target from inside HWY_NAMESPACE by files
// that foreach_target.h re-includes, hence the toggled guard instead of a plain one.
#if defined(ACLNN_UPSAMPLE_KERNELS_DTYPE_VECTORS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_UPSAMPLE_KERNELS_DTYPE_VECTORS_INL_H_
#undef ACLNN_UPSAMPLE_KERNELS_DTYPE_VECTORS_INL_H_
#else
#define ACLNN_UPSAMPLE_KERNELS_DTYPE_VECTORS_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "engine/dtype.h"
#include "hwy/highway.h"
#include "kernels/kernels.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_upsample {
namespace kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Where a streamed row streams: the whole cache lines inside it, `body` elements from `head`
// on; the rest is stored cached. Streaming each row whole only where it started on a vector
// streamed one row in 16 of a 127-float result, and the lines that row shared with its cached
// neighbours, written partly each way, made a forward to 127x127 1.5x slower than storing every
// row cached. The cached pieces at either end are at least a vector long where not empty: a
// shorter piece goes through Combine's buffer, whose loads wait for the stores that filled it,
// and cost more than streaming its line saved.
struct LineSplit {
  size_t head = 0, body = 0;
};

template <class T>
LineSplit SplitAtLines(const T* row, size_t n, size_t lanes) {
  constexpr size_t kLineElements = kCacheLineBytes / sizeof(T);
  const auto address = reinterpret_cast<uintptr_t>(row);
  if (address % sizeof(T) != 0) return LineSplit{};
  LineSplit split;
  split.head = (kCacheLineBytes - address % kCacheLineBytes) % kCacheLineBytes / sizeof(T);
  while (split.head > 0 && split.head < lanes) split.head += kLineElements;
  if (split.head >= n) return LineSplit{};
  split.body = (n - split.head) / kLineElements * kLineElements;
  const auto tail = [&] { return n - split.head - split.body; };
  while (split.body > 0 && tail() > 0 && tail() < lanes) split.body -= kLineElements;
  return split;
}

// A float's bits rounded to bfloat16, nearest even, in the upper 16 bits of each lane (the lower
// ones are garbage). Right for every value but NaN, whose payload may carry into the exponent.
template <class DU>
HWY_INLINE hn::Vec<DU> RoundedBFloat16BitsUnlessNaN(DU du32, hn::Vec<DU> bits) {
  const auto lsb = hn::And(hn::ShiftRight<16>(bits), hn::Set(du32, 1u));
  return hn::Add(bits, hn::Add(hn::Set(du32, 0x7FFFu), lsb));
}

// float32 -> bfloat16 with round-to-nearest-even, the result in the upper 16 bits of each lane
// (the lower ones are garbage).
template <class DF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> RoundedBFloat16InUpperHalf(DF /*df*/, hn::Vec<DF> v) {
  const hn::RebindToUnsigned<DF> du32;
  const auto bits = hn::BitCast(du32, v);
  const auto rounded = RoundedBFloat16BitsUnlessNaN(du32, bits);
  const auto quiet_nan = hn::Or(bits, hn::Set(du32, 0x00400000u));
  // Not Ne(v, v): Highway 1.0's x86 Ne compares ordered, which is false for NaN, so a NaN whose
  // payload carried into the exponent when rounded came out as a zero of either sign.
  const auto is_nan = hn::RebindMask(du32, hn::IsNaN(v));
  return hn::IfThenElse(is_nan, quiet_nan, rounded);
}

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// AVX512_BF16's conversions, where NativeBFloat16Rounding() says the CPU has them. Inline
// assembly, because Highway 1.0 has no target with them and GCC does not inline an intrinsic
// into a function compiled for a different instruction set. They round to nearest even as
// RoundedBFloat16InUpperHalf does, and turn a NaN into its upper half with the quiet bit set as
// it does, but a denormal comes out as a zero of its sign (whatever MXCSR says): a caller rounds
// a vector holding one the integer way (Denormals).
HWY_INLINE hn::Vec512<uint16_t> NativeBFloat16Pair(hn::Vec512<float> low, hn::Vec512<float> high) {
  hn::Vec512<float> out;
  // AT&T order: the last source (low) fills the lower 16 lanes of the result.
  asm("vcvtne2ps2bf16 %1, %2, %0" : "=v"(out.raw) : "v"(low.raw), "v"(high.raw));
  return hn::BitCast(hn::Full512<uint16_t>(), out);
}
HWY_INLINE hn::Vec256<uint16_t> NativeBFloat16(hn::Vec512<float> v) {
  __m256i out;
  asm("vcvtneps2bf16 %1, %0" : "=v"(out) : "v"(v.raw));
  return hn::Vec256<uint16_t>{out};
}
// Mask of the lanes holding a denormal (fpclass category 0x20).
HWY_INLINE __mmask16 Denormals(hn::Vec512<float> v) { return _mm512_fpclass_ps_mask(v.raw, 0x20); }
// Whether a lane of any of the vectors holds a denormal. The masks are joined and tested in mask
// registers: compared as integers, GCC moved each mask to a general register first, and those
// moves, the ors and the test took a quarter of a bfloat16 H pass's samples in cache.
HWY_INLINE bool AnyDenormal(hn::Vec512<float> v0, hn::Vec512<float> v1) {
  return !_kortestz_mask16_u8(Denormals(v0), Denormals(v1));
}
HWY_INLINE bool AnyDenormal(hn::Vec512<float> v0, hn::Vec512<float> v1, hn::Vec512<float> v2,
                            hn::Vec512<float> v3) {
  return !_kortestz_mask16_u8(_kor_mask16(Denormals(v0), Denormals(v1)),
                              _kor_mask16(Denormals(v2), Denormals(v3)));
}
#endif

// float32 -> bfloat16 bits with round-to-nearest-even (Highway's DemoteTo truncates).
template <class DF>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DF>> FloatToBFloat16Bits(DF df, hn::Vec<DF> v) {
  const hn::RebindToSigned<DF> di32;
  const hn::Rebind<uint16_t, DF> du16;
  const auto chosen = hn::ShiftRight<16>(RoundedBFloat16InUpperHalf(df, v));
  return hn::DemoteTo(du16, hn::BitCast(di32, chosen));
}

// Two vectors rounded to bfloat16 as FloatToBFloat16Bits rounds, interleaved into one vector of
// twice the lanes: lane 2m is even[m], lane 2m + 1 is odd[m]. A shift and a blend merge them,
// where narrowing each vector costs shuffles (two on AVX-512: a pack and a lane permute).
template <class DF>
HWY_INLINE hn::Vec<hn::Repartition<uint16_t, DF>> InterleavedBFloat16Bits(DF df, hn::Vec<DF> even,
                                                                          hn::Vec<DF> odd) {
  const hn::Repartition<uint16_t, DF> du16;
  const auto odd_bits = hn::BitCast(du16, RoundedBFloat16InUpperHalf(df, odd));
  const auto even_bits =
      hn::BitCast(du16, hn::ShiftRight<16>(RoundedBFloat16InUpperHalf(df, even)));
  return hn::OddEven(odd_bits, even_bits);
}

// float16 -> float32, exactly. F16C targets use the instruction; Highway 1.0's emulation on
// the others turns Inf into 65536, so there the fields are decoded with integer operations.
template <class DF>
HWY_INLINE hn::Vec<DF> LoadFloat16(DF df, const uint16_t* HWY_RESTRICT src) {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  const hn::Rebind<hwy::float16_t, DF> df16;
  return hn::PromoteTo(df, hn::LoadU(df16, reinterpret_cast<const hwy::float16_t*>(src)));
#elif HWY_TARGET == HWY_SCALAR
  // One lane: the scalar decoder's branches (normal numbers almost always) are cheaper than
  // computing every case and selecting.
  return hn::Set(df, Float16ToFloat(*src));
#elif HWY_TARGET == HWY_EMU128
  // Lane by lane, as on SCALAR: the emulated vector decode below is a loop per operation, and its
  // dozen loops inlined into every float16 combine took clang minutes to compile (IndVarSimplify).
  alignas(16) float lanes[hn::MaxLanes(df)];
  for (size_t t = 0; t < hn::Lanes(df); ++t) lanes[t] = Float16ToFloat(src[t]);
  return hn::Load(df, lanes);
#else
  const hn::RebindToUnsigned<DF> du32;
  const hn::RebindToSigned<DF> di32;
  const hn::Rebind<uint16_t, DF> du16;
  const auto bits = hn::PromoteTo(du32, hn::LoadU(du16, src));
  const auto sign = hn::ShiftLeft<16>(hn::And(bits, hn::Set(du32, 0x8000u)));
  const auto exponent = hn::And(hn::ShiftRight<10>(bits), hn::Set(du32, 0x1Fu));
  const auto mantissa = hn::And(bits, hn::Set(du32, 0x3FFu));
  const auto normal = hn::Or(hn::ShiftLeft<23>(hn::Add(exponent, hn::Set(du32, 112u))),
                             hn::ShiftLeft<13>(mantissa));
  const auto special = hn::Or(hn::Set(du32, 0x7F800000u), hn::ShiftLeft<13>(mantissa));
  // Zero and subnormals: mantissa * 2^-24 is exact in float32.
  const auto tiny = hn::BitCast(
      du32, hn::Mul(hn::ConvertTo(df, hn::BitCast(di32, mantissa)), hn::Set(df, 0x1p-24f)));
  auto magnitude = hn::IfThenElse(hn::Eq(exponent, hn::Set(du32, 31u)), special, normal);
  magnitude = hn::IfThenElse(hn::Eq(exponent, hn::Zero(du32)), tiny, magnitude);
  return hn::BitCast(df, hn::Or(sign, magnitude));
#endif
}

// bfloat16 -> float32, exactly: the 16 bits are the float's upper half.
template <class DF>
HWY_INLINE hn::Vec<DF> LoadBFloat16(DF df, const uint16_t* HWY_RESTRICT src) {
  const hn::RebindToUnsigned<DF> du32;
  const hn::Rebind<uint16_t, DF> du16;
  return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du32, hn::LoadU(du16, src))));
}

// One vector of floats from `src` elements of a dtype known at compile time.
template <DType kType, class DF>
HWY_INLINE hn::Vec<DF> LoadAs(DF df, const void* HWY_RESTRICT src) {
  if constexpr (kType == DType::kFloat32) {
    return hn::LoadU(df, static_cast<const float*>(src));
  } else if constexpr (kType == DType::kBFloat16) {
    return LoadBFloat16(df, static_cast<const uint16_t*>(src));
  } else {
    return LoadFloat16(df, static_cast<const uint16_t*>(src));
  }
}

// One vector of floats rounded to nearest even into 16-bit elements of a dtype known at compile
// time (StoreFromFloat's bits), streamed (non-temporal) if asked where the 16-bit vector is at
// least 128 bits (`dst` then aligned to it; narrower vectors are stored normally). F16C targets
// round float16 with the instruction; the others' emulations are not relied on, so there each
// lane goes through the scalar rounding.
template <DType kType, class DF>
HWY_INLINE void StoreRounded16(DF df, hn::Vec<DF> v, uint16_t* HWY_RESTRICT dst,
                               bool stream = false) {
  static_assert(kType != DType::kFloat32, "");
  const hn::Rebind<uint16_t, DF> du16;
  const auto store = [&](hn::Vec<decltype(du16)> bits) {
    if constexpr (hn::MaxLanes(decltype(du16)()) * sizeof(uint16_t) >= 16) {
      if (stream) {
        hn::Stream(bits, du16, dst);
        return;
      }
    }
    hn::StoreU(bits, du16, dst);
  };
  if constexpr (kType == DType::kBFloat16) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    if constexpr (hn::MaxLanes(DF()) == 16) {
      if (NativeBFloat16Rounding() && Denormals(v) == 0) {
        store(NativeBFloat16(v));
        return;
      }
    }
#endif
    store(FloatToBFloat16Bits(df, v));
  } else {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    store(hn::BitCast(du16, hn::DemoteTo(hn::Rebind<hwy::float16_t, DF>(), v)));
#else
    HWY_ALIGN float lanes[HWY_MAX_BYTES / sizeof(float)];
    hn::Store(v, df, lanes);
    for (size_t t = 0; t < hn::Lanes(df); ++t) dst[t] = FloatToFloat16(lanes[t]);
#endif
  }
}

// Whether d's vectors round into kType in a few instructions: float16 through F16C's
// conversion, bfloat16 through AVX512_BF16's on whole AVX-512 vectors (StoreRounded16). Elsewhere
// a vector rounds by integer arithmetic or lane by lane, and a row of them rounds for less in
// StoreFromFloat (bfloat16 four vectors at a time), so a kernel that could round its vectors as
// it stores them keeps a float row there: on AVX2, channels-last 16-channel bfloat16 pixels
// rounded a vector at a time ran 1.09x slower, and on SSE4 64- and 24-channel float16 ones
// 1.07-1.08x.
template <DType kType, class D>
HWY_INLINE bool RoundsVectorsCheaply(D /*d*/) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (kType == DType::kBFloat16) {
    return hn::MaxLanes(D()) == 16 && NativeBFloat16Rounding();
  }
  return true;
#elif HWY_TARGET == HWY_AVX2
  return kType == DType::kFloat16;
#else
  return false;
#endif
}

#if HWY_TARGET != HWY_SCALAR
// A whole vector of 16-bit bits stored, or streamed (dst aligned to it) where asked.
template <class DU16>
HWY_INLINE void StoreMaybeStreamed(DU16 du16, hn::Vec<DU16> bits, uint16_t* HWY_RESTRICT dst,
                                   bool stream) {
  if (stream) {
    hn::Stream(bits, du16, dst);
  } else {
    hn::StoreU(bits, du16, dst);
  }
}

// Whether a stream asked for at dst misses the alignment of a merged pair (two vectors of df
// rounded into one 16-bit vector): twice the half-width vector StoreRounded16 streams.
template <class DF>
HWY_INLINE bool MisalignedPairStream(DF df, const uint16_t* dst, bool stream) {
  return stream && reinterpret_cast<uintptr_t>(dst) % (2 * hn::Lanes(df) * sizeof(uint16_t)) != 0;
}

// Four vectors of consecutive values rounded to bfloat16 (StoreRounded16's bits) into dst, 4 *
// lanes elements, streamed if asked (dst then aligned to a half-width 16-bit vector, as for
// StoreRounded16), by the integer rounding. NaNs are rare, so they are looked for once for all
// four vectors, where testing and selecting per vector took a third of the rounding's
// operations; and each pair of vectors is narrowed by one concatenation of their upper halves
// instead of a pack and a lane permute per vector.
template <class DF>
HWY_INLINE void StoreRoundedBFloat16x4ByIntegers(DF df, hn::Vec<DF> v0, hn::Vec<DF> v1,
                                                 hn::Vec<DF> v2, hn::Vec<DF> v3,
                                                 uint16_t* HWY_RESTRICT dst, bool stream) {
  const size_t lanes = hn::Lanes(df);
  const hn::Repartition<uint16_t, DF> du16;
  const bool misaligned = MisalignedPairStream(df, dst, stream);
  const auto nan =
      hn::Or(hn::Or(hn::IsNaN(v0), hn::IsNaN(v1)), hn::Or(hn::IsNaN(v2), hn::IsNaN(v3)));
  if (HWY_UNLIKELY(!hn::AllFalse(df, nan) || misaligned)) {
    StoreRounded16<DType::kBFloat16>(df, v0, dst, stream);
    StoreRounded16<DType::kBFloat16>(df, v1, dst + lanes, stream);
    StoreRounded16<DType::kBFloat16>(df, v2, dst + 2 * lanes, stream);
    StoreRounded16<DType::kBFloat16>(df, v3, dst + 3 * lanes, stream);
    return;
  }
  const hn::RebindToUnsigned<DF> du32;
  const auto round = [&](hn::Vec<DF> v) {
    return hn::BitCast(du16, RoundedBFloat16BitsUnlessNaN(du32, hn::BitCast(du32, v)));
  };
  // The upper halves of the 32-bit lanes are the odd 16-bit ones.
  StoreMaybeStreamed(du16, hn::ConcatOdd(du16, round(v1), round(v0)), dst, stream);
  StoreMaybeStreamed(du16, hn::ConcatOdd(du16, round(v3), round(v2)), dst + 2 * lanes, stream);
}

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// The integer rounding where the native one does not apply (NaNs and denormals, a stream off a
// merged pair's alignment, a CPU without AVX512_BF16): rare, and out of line so that the native
// form stays small where the combine loops inline it (ACLNN_UPSAMPLE_INLINE_LAMBDA): whole, it
// made GCC call the pair loops' store (CombinePairBlocksWith) as a function.
template <class DF>
HWY_NOINLINE void StoreRoundedBFloat16x4Rarely(DF df, hn::Vec<DF> v0, hn::Vec<DF> v1,
                                               hn::Vec<DF> v2, hn::Vec<DF> v3,
                                               uint16_t* HWY_RESTRICT dst, bool stream) {
  StoreRoundedBFloat16x4ByIntegers(df, v0, v1, v2, v3, dst, stream);
}
#endif

// StoreRoundedBFloat16x4ByIntegers' bits, by AVX512_BF16's rounding where it gives them: two
// instructions for the integer rounding's fourteen, NaNs included: cases 12 and 19 (bfloat16
// results of 512 x 512 and 128 x 128 planes) ran 0.87-0.92x and 0.93-0.98x as long.
template <class DF>
HWY_INLINE void StoreRoundedBFloat16x4(DF df, hn::Vec<DF> v0, hn::Vec<DF> v1, hn::Vec<DF> v2,
                                       hn::Vec<DF> v3, uint16_t* HWY_RESTRICT dst, bool stream) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (hn::MaxLanes(DF()) == 16) {
    const size_t lanes = hn::Lanes(df);
    const hn::Repartition<uint16_t, DF> du16;
    if (HWY_LIKELY(NativeBFloat16Rounding() && !MisalignedPairStream(df, dst, stream) &&
                   !AnyDenormal(v0, v1, v2, v3))) {
      StoreMaybeStreamed(du16, NativeBFloat16Pair(v0, v1), dst, stream);
      StoreMaybeStreamed(du16, NativeBFloat16Pair(v2, v3), dst + 2 * lanes, stream);
    } else {
      StoreRoundedBFloat16x4Rarely(df, v0, v1, v2, v3, dst, stream);
    }
    return;
  }
#endif
  StoreRoundedBFloat16x4ByIntegers(df, v0, v1, v2, v3, dst, stream);
}
#endif

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace aclnn_upsample
HWY_AFTER_NAMESPACE();

#endif  // include guard
