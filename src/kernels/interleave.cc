// Pixels to and from planes, both ways a layout is traded for a faster one (kernels.h):
//  - channels-last rows with few channels (RGB, RGBA images and up to 7 channels) to and from
//    one planar row per channel, so that their W pass runs the planar gather kernels with all
//    their vector forms instead of combining C-vectors of 3 to 7 floats (Deinterleave,
//    Interleave);
//  - a group of small planes to and from pixels of kPlaneGroup channels, so that many small
//    planes run the channels-last passes, one whole vector per pixel, instead of rows too short
//    for the planar forms (PlanesToPixels, PixelsToPlanes).
#include <cstddef>
#include <cstdint>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/interleave.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/combine-inl.h"
#include "kernels/dtype_vectors-inl.h"
#include "kernels/kernels.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_upsample {
namespace kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR
// A 4x4 transpose inside every 128-bit block: with lanes of four planes in v0..v3, afterwards
// block k of v_i holds pixel 4k + i of the four planes, and the other way round (it is its own
// inverse). Blocks never mix, so the same code serves every vector width.
template <class D, class V = hn::Vec<D>>
HWY_INLINE void TransposeBlocks4x4(D d, V& v0, V& v1, V& v2, V& v3) {
  const hn::Repartition<uint64_t, D> d64;
  const auto lo01 = hn::BitCast(d64, hn::InterleaveLower(d, v0, v1));  // 0a 1a 0b 1b
  const auto hi01 = hn::BitCast(d64, hn::InterleaveUpper(d, v0, v1));  // 0c 1c 0d 1d
  const auto lo23 = hn::BitCast(d64, hn::InterleaveLower(d, v2, v3));
  const auto hi23 = hn::BitCast(d64, hn::InterleaveUpper(d, v2, v3));
  v0 = hn::BitCast(d, hn::InterleaveLower(d64, lo01, lo23));  // 0a 1a 2a 3a
  v1 = hn::BitCast(d, hn::InterleaveUpper(d64, lo01, lo23));
  v2 = hn::BitCast(d, hn::InterleaveLower(d64, hi01, hi23));
  v3 = hn::BitCast(d, hn::InterleaveUpper(d64, hi01, hi23));
}

// An 8x8 transpose of eight vectors of eight lanes: afterwards lane j of v_i is the former lane i
// of v_j (its own inverse). The 4x4 block transposes of v0-v3 and of v4-v7 leave element 4k + i
// of rows 0-3 in block k of v_i and of rows 4-7 in block k of v_{4+i}; joining those blocks
// makes the columns.
template <class D, class V = hn::Vec<D>>
HWY_INLINE void Transpose8x8(D d, V& v0, V& v1, V& v2, V& v3, V& v4, V& v5, V& v6, V& v7) {
  TransposeBlocks4x4(d, v0, v1, v2, v3);
  TransposeBlocks4x4(d, v4, v5, v6, v7);
  const V c0 = hn::ConcatLowerLower(d, v4, v0), c4 = hn::ConcatUpperUpper(d, v4, v0);
  const V c1 = hn::ConcatLowerLower(d, v5, v1), c5 = hn::ConcatUpperUpper(d, v5, v1);
  const V c2 = hn::ConcatLowerLower(d, v6, v2), c6 = hn::ConcatUpperUpper(d, v6, v2);
  const V c3 = hn::ConcatLowerLower(d, v7, v3), c7 = hn::ConcatUpperUpper(d, v7, v3);
  v0 = c0, v1 = c1, v2 = c2, v3 = c3, v4 = c4, v5 = c5, v6 = c6, v7 = c7;
}

// Five to seven channels, past Highway's interleaved loads and stores (two to four): eight pixels
// at a time through an 8x8 transpose, each pixel loaded or stored as a vector of eight floats
// that runs into the next pixel (the extra lanes ignored when loading; when storing, overwritten
// by the next pixel's store). Only blocks with a pixel after them take this form, so nothing
// past the row is read or written. Targets whose vectors hold eight floats (AVX2, AVX-512 at
// half width); an element at a time, these moves took a third of a channels-last RGB-and-more
// forward's time.
using EightLanes = hn::CappedTag<float, 8>;
// Eight lanes known at compile time: not on the scalable targets (SVE, RVV), whose MaxLanes is
// only a bound.
constexpr bool kEightLaneTransposes = !HWY_HAVE_SCALABLE && hn::MaxLanes(EightLanes()) == 8;
#endif

// Channel c of pixel i to row c (rows dst_stride apart), at the column RowSink<kPhases> stores
// column i at: i itself, or split by phase (kernels.h, Deinterleave). Four vectors of pixels at
// a time, so that each channel's block splits by phase in registers.
template <size_t kChannels, int kPhases>
void DeinterleaveFixed(const float* HWY_RESTRICT src, size_t pixels, float* HWY_RESTRICT dst,
                       size_t dst_stride, size_t phase_length) {
  const auto sink = [&](size_t c) { return RowSink<kPhases>{dst + c * dst_stride, phase_length}; };
  size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  using V = hn::Vec<decltype(d)>;
  const size_t step = lanes * kChannels;
  // Highway loads two to four interleaved channels; more take the element loop below.
  for (; kChannels <= 4 && i + 4 * lanes <= pixels; i += 4 * lanes) {
    // Named vectors: arrays of vectors are not portable to SVE.
    V a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2, c3, e0, e1, e2, e3;
    const float* s = src + i * kChannels;
    if constexpr (kChannels == 2) {
      hn::LoadInterleaved2(d, s, a0, b0);
      hn::LoadInterleaved2(d, s + step, a1, b1);
      hn::LoadInterleaved2(d, s + 2 * step, a2, b2);
      hn::LoadInterleaved2(d, s + 3 * step, a3, b3);
    } else if constexpr (kChannels == 3) {
      hn::LoadInterleaved3(d, s, a0, b0, c0);
      hn::LoadInterleaved3(d, s + step, a1, b1, c1);
      hn::LoadInterleaved3(d, s + 2 * step, a2, b2, c2);
      hn::LoadInterleaved3(d, s + 3 * step, a3, b3, c3);
    } else if constexpr (kChannels == 4) {
      hn::LoadInterleaved4(d, s, a0, b0, c0, e0);
      hn::LoadInterleaved4(d, s + step, a1, b1, c1, e1);
      hn::LoadInterleaved4(d, s + 2 * step, a2, b2, c2, e2);
      hn::LoadInterleaved4(d, s + 3 * step, a3, b3, c3, e3);
    }
    sink(0).Store4(d, i, a0, a1, a2, a3);
    sink(1).Store4(d, i, b0, b1, b2, b3);
    if constexpr (kChannels > 2) sink(2).Store4(d, i, c0, c1, c2, c3);
    if constexpr (kChannels > 3) sink(3).Store4(d, i, e0, e1, e2, e3);
  }
  if constexpr (kChannels > 4 && kEightLaneTransposes) {
    const EightLanes d8;
    using V8 = hn::Vec<decltype(d8)>;
    // Eight pixels from pixel j into v0..v7 (lane c of v_k: channel c of pixel j + k), transposed
    // into channels (lane k of v_c: pixel j + k).
    const auto load_block = [&](size_t j, V8& v0, V8& v1, V8& v2, V8& v3, V8& v4, V8& v5, V8& v6,
                                V8& v7) {
      const float* const s = src + j * kChannels;
      v0 = hn::LoadU(d8, s), v1 = hn::LoadU(d8, s + kChannels);
      v2 = hn::LoadU(d8, s + 2 * kChannels), v3 = hn::LoadU(d8, s + 3 * kChannels);
      v4 = hn::LoadU(d8, s + 4 * kChannels), v5 = hn::LoadU(d8, s + 5 * kChannels);
      v6 = hn::LoadU(d8, s + 6 * kChannels), v7 = hn::LoadU(d8, s + 7 * kChannels);
      Transpose8x8(d8, v0, v1, v2, v3, v4, v5, v6, v7);
    };
    if constexpr (kPhases == 1) {
      for (; i + 8 < pixels; i += 8) {
        V8 v0, v1, v2, v3, v4, v5, v6, v7;
        load_block(i, v0, v1, v2, v3, v4, v5, v6, v7);
        hn::StoreU(v0, d8, dst + i);
        hn::StoreU(v1, d8, dst + dst_stride + i);
        hn::StoreU(v2, d8, dst + 2 * dst_stride + i);
        hn::StoreU(v3, d8, dst + 3 * dst_stride + i);
        hn::StoreU(v4, d8, dst + 4 * dst_stride + i);
        if constexpr (kChannels > 5) hn::StoreU(v5, d8, dst + 5 * dst_stride + i);
        if constexpr (kChannels > 6) hn::StoreU(v6, d8, dst + 6 * dst_stride + i);
      }
    } else {
      // A split row takes four vectors of a channel at once: 32 pixels, their channels gathered
      // in a small buffer first.
      HWY_ALIGN float channel_rows[kChannels][32];
      for (; i + 32 < pixels; i += 32) {
        for (size_t b = 0; b < 32; b += 8) {
          V8 v0, v1, v2, v3, v4, v5, v6, v7;
          load_block(i + b, v0, v1, v2, v3, v4, v5, v6, v7);
          hn::Store(v0, d8, channel_rows[0] + b);
          hn::Store(v1, d8, channel_rows[1] + b);
          hn::Store(v2, d8, channel_rows[2] + b);
          hn::Store(v3, d8, channel_rows[3] + b);
          hn::Store(v4, d8, channel_rows[4] + b);
          if constexpr (kChannels > 5) hn::Store(v5, d8, channel_rows[5] + b);
          if constexpr (kChannels > 6) hn::Store(v6, d8, channel_rows[6] + b);
        }
        for (size_t c = 0; c < kChannels; ++c) {
          sink(c).Store4(d8, i, hn::Load(d8, channel_rows[c]), hn::Load(d8, channel_rows[c] + 8),
                         hn::Load(d8, channel_rows[c] + 16), hn::Load(d8, channel_rows[c] + 24));
        }
      }
    }
  }
  // Natural order takes the rest a vector at a time too; a split block needs all four.
  for (; kChannels <= 4 && kPhases == 1 && i + lanes <= pixels; i += lanes) {
    V v0, v1, v2, v3;
    const float* s = src + i * kChannels;
    if constexpr (kChannels == 2) {
      hn::LoadInterleaved2(d, s, v0, v1);
    } else if constexpr (kChannels == 3) {
      hn::LoadInterleaved3(d, s, v0, v1, v2);
    } else if constexpr (kChannels == 4) {
      hn::LoadInterleaved4(d, s, v0, v1, v2, v3);
    }
    hn::StoreU(v0, d, dst + i);
    hn::StoreU(v1, d, dst + dst_stride + i);
    if constexpr (kChannels > 2) hn::StoreU(v2, d, dst + 2 * dst_stride + i);
    if constexpr (kChannels > 3) hn::StoreU(v3, d, dst + 3 * dst_stride + i);
  }
#endif
  for (; i < pixels; ++i) {
    for (size_t c = 0; c < kChannels; ++c) sink(c).StoreScalar(i, src[i * kChannels + c]);
  }
}

template <int kPhases>
void DeinterleaveAs(const float* HWY_RESTRICT src, size_t pixels, size_t channels,
                    float* HWY_RESTRICT dst, size_t dst_stride, size_t phase_length) {
  switch (channels) {
    case 2:
      return DeinterleaveFixed<2, kPhases>(src, pixels, dst, dst_stride, phase_length);
    case 3:
      return DeinterleaveFixed<3, kPhases>(src, pixels, dst, dst_stride, phase_length);
    case 4:
      return DeinterleaveFixed<4, kPhases>(src, pixels, dst, dst_stride, phase_length);
    case 5:
      return DeinterleaveFixed<5, kPhases>(src, pixels, dst, dst_stride, phase_length);
    case 6:
      return DeinterleaveFixed<6, kPhases>(src, pixels, dst, dst_stride, phase_length);
    default:
      return DeinterleaveFixed<7, kPhases>(src, pixels, dst, dst_stride, phase_length);
  }
}

// Vectors of kChannels channels interleaved into `o` (kChannels whole vectors).
template <size_t kChannels, class D, class V = hn::Vec<D>>
HWY_INLINE void StoreInterleavedFixed(D d, V v0, V v1, V v2, V v3, float* HWY_RESTRICT o) {
  if constexpr (kChannels == 2) {
    hn::StoreInterleaved2(v0, v1, d, o);
  } else if constexpr (kChannels == 3) {
    hn::StoreInterleaved3(v0, v1, v2, d, o);
  } else if constexpr (kChannels == 4) {
    hn::StoreInterleaved4(v0, v1, v2, v3, d, o);
  }
}

// kStream: the interleaved vectors are streamed (dst on a vector boundary, so that each of them
// is), through an L1 buffer, since Highway's interleaving stores write in place. Cached, every
// result line was read before it was written. In-process on the Zen 4 VM, the float32 H-first
// downscales of RGB and RGBA images ran 1.16-1.25x faster streamed (2x bilinear backward, 2x
// bilinear AA forward, 1024 -> 512 bilinear forward; AVX2 1.17-1.27, SSE4 1.14), the 4x bicubic
// AA forward, whose results are a sixteenth of its bytes, 1.03-1.06x.
template <size_t kChannels, bool kStream>
void InterleaveFixed(const float* HWY_RESTRICT src, size_t src_stride, size_t pixels,
                     float* HWY_RESTRICT dst) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  const float* const p0 = src;
  const float* const p1 = src + src_stride;
  const float* const p2 = src + 2 * src_stride;
  const float* const p3 = src + 3 * src_stride;
  size_t i = 0;
  for (; kChannels <= 4 && i + lanes <= pixels; i += lanes) {
    float* o = dst + i * kChannels;
    const auto v0 = hn::LoadU(d, p0 + i), v1 = hn::LoadU(d, p1 + i);
    const auto v2 = kChannels > 2 ? hn::LoadU(d, p2 + i) : v0;
    const auto v3 = kChannels > 3 ? hn::LoadU(d, p3 + i) : v0;
    if constexpr (kStream) {
      HWY_ALIGN float interleaved[4 * HWY_MAX_BYTES / sizeof(float)];
      StoreInterleavedFixed<kChannels>(d, v0, v1, v2, v3, interleaved);
      for (size_t v = 0; v < kChannels; ++v) {
        hn::Stream(hn::Load(d, interleaved + v * lanes), d, o + v * lanes);
      }
    } else {
      StoreInterleavedFixed<kChannels>(d, v0, v1, v2, v3, o);
    }
  }
#if HWY_TARGET != HWY_SCALAR
  if constexpr (kChannels > 4 && kEightLaneTransposes) {
    const EightLanes d8;
    using V8 = hn::Vec<decltype(d8)>;
    const float* const p4 = src + 4 * src_stride;
    const float* const p5 = src + 5 * src_stride;
    const float* const p6 = src + 6 * src_stride;
    for (; i + 8 < pixels; i += 8) {
      V8 v0 = hn::LoadU(d8, p0 + i), v1 = hn::LoadU(d8, p1 + i);
      V8 v2 = hn::LoadU(d8, p2 + i), v3 = hn::LoadU(d8, p3 + i);
      V8 v4 = hn::LoadU(d8, p4 + i);
      V8 v5 = kChannels > 5 ? hn::LoadU(d8, p5 + i) : hn::Zero(d8);
      V8 v6 = kChannels > 6 ? hn::LoadU(d8, p6 + i) : hn::Zero(d8);
      V8 v7 = hn::Zero(d8);
      Transpose8x8(d8, v0, v1, v2, v3, v4, v5, v6, v7);
      float* const o = dst + i * kChannels;
      // In order: each store's lanes past its pixel are rewritten by the next.
      hn::StoreU(v0, d8, o);
      hn::StoreU(v1, d8, o + kChannels);
      hn::StoreU(v2, d8, o + 2 * kChannels);
      hn::StoreU(v3, d8, o + 3 * kChannels);
      hn::StoreU(v4, d8, o + 4 * kChannels);
      hn::StoreU(v5, d8, o + 5 * kChannels);
      hn::StoreU(v6, d8, o + 6 * kChannels);
      hn::StoreU(v7, d8, o + 7 * kChannels);
    }
  }
#endif
  for (; i < pixels; ++i) {
    for (size_t c = 0; c < kChannels; ++c) dst[i * kChannels + c] = src[c * src_stride + i];
  }
}

void DeinterleaveImpl(const float* HWY_RESTRICT src, size_t pixels, size_t channels,
                      float* HWY_RESTRICT dst, size_t dst_stride, int phases, size_t phase_length) {
  switch (phases) {
    case 2:
      return DeinterleaveAs<2>(src, pixels, channels, dst, dst_stride, phase_length);
    case 4:
      return DeinterleaveAs<4>(src, pixels, channels, dst, dst_stride, phase_length);
    default:
      return DeinterleaveAs<1>(src, pixels, channels, dst, dst_stride, 0);
  }
}

void InterleaveImpl(const float* HWY_RESTRICT src, size_t src_stride, size_t pixels,
                    size_t channels, float* HWY_RESTRICT dst, ResultStores stores) {
  const size_t vector_bytes = hn::Lanes(hn::ScalableTag<float>()) * sizeof(float);
  const bool stream = HWY_TARGET != HWY_SCALAR && stores == ResultStores::kStreamed &&
                      reinterpret_cast<uintptr_t>(dst) % vector_bytes == 0;
  switch (channels) {
    case 2:
      return stream ? InterleaveFixed<2, true>(src, src_stride, pixels, dst)
                    : InterleaveFixed<2, false>(src, src_stride, pixels, dst);
    case 3:
      return stream ? InterleaveFixed<3, true>(src, src_stride, pixels, dst)
                    : InterleaveFixed<3, false>(src, src_stride, pixels, dst);
    case 4:
      return stream ? InterleaveFixed<4, true>(src, src_stride, pixels, dst)
                    : InterleaveFixed<4, false>(src, src_stride, pixels, dst);
    case 5:
      return InterleaveFixed<5, false>(src, src_stride, pixels, dst);
    case 6:
      return InterleaveFixed<6, false>(src, src_stride, pixels, dst);
    default:
      return InterleaveFixed<7, false>(src, src_stride, pixels, dst);
  }
}

// At most kPlaneGroup lanes, so that a vector never spans two pixels of a group.
using PlaneGroupTag = hn::CappedTag<float, kPlaneGroup>;

// Where plane p of a group is read (PlanesToPixels): planes past the last one read plane 0 again,
// so that every pixel is whole and holds only values of the input (the passes run on them and
// PixelsToPlanes drops them).
template <class Storage>
HWY_INLINE const Storage* GroupPlane(const Storage* src, ptrdiff_t plane_stride, size_t planes,
                                     size_t p) {
  return src + static_cast<ptrdiff_t>(p < planes ? p : 0) * plane_stride;
}

// Pixel j's channels from the planes' element j, and back, one element at a time (the one-lane
// target, and every target's last elements short of a vector), converted as LoadAsFloat and
// StoreFromFloat convert.
template <DType kType>
void PlanesToPixelsExact(const typename DTypeTraits<kType>::Storage* const* plane, size_t from,
                         size_t n, float* HWY_RESTRICT dst) {
  for (size_t j = from; j < n; ++j) {
    for (size_t p = 0; p < kPlaneGroup; ++p) {
      dst[j * kPlaneGroup + p] = DTypeTraits<kType>::ToFloat(plane[p][j]);
    }
  }
}

template <DType kType>
void PixelsToPlanesExact(const float* HWY_RESTRICT src, size_t planes, size_t from, size_t n,
                         typename DTypeTraits<kType>::Storage* HWY_RESTRICT dst,
                         ptrdiff_t plane_stride) {
  for (size_t j = from; j < n; ++j) {
    for (size_t p = 0; p < planes; ++p) {
      dst[static_cast<ptrdiff_t>(p) * plane_stride + static_cast<ptrdiff_t>(j)] =
          DTypeTraits<kType>::FromFloat(src[j * kPlaneGroup + p]);
    }
  }
}

#if HWY_TARGET == HWY_SCALAR
template <DType kType>
void PlanesToPixelsOf(const void* src, ptrdiff_t plane_stride, size_t planes, size_t n,
                      float* HWY_RESTRICT dst) {
  using Storage = typename DTypeTraits<kType>::Storage;
  const Storage* plane[kPlaneGroup];
  for (size_t p = 0; p < kPlaneGroup; ++p) {
    plane[p] = GroupPlane(static_cast<const Storage*>(src), plane_stride, planes, p);
  }
  PlanesToPixelsExact<kType>(plane, 0, n, dst);
}

template <DType kType>
void PixelsToPlanesOf(const float* HWY_RESTRICT src, size_t planes, size_t n, void* dst,
                      ptrdiff_t plane_stride, ResultStores /*stores*/) {
  PixelsToPlanesExact<kType>(src, planes, 0, n,
                             static_cast<typename DTypeTraits<kType>::Storage*>(dst), plane_stride);
}
#else
// Block k of v to dst + k * block_stride, and back.
template <class D>
HWY_INLINE void StoreBlocks(D d, hn::Vec<D> v, float* HWY_RESTRICT dst, size_t block_stride) {
  if constexpr (hn::MaxLanes(D()) <= 4) {
    hn::StoreU(v, d, dst);
  } else {
    const hn::Half<D> half;
    StoreBlocks(half, hn::LowerHalf(half, v), dst, block_stride);
    StoreBlocks(half, hn::UpperHalf(half, v), dst + hn::MaxLanes(half) / 4 * block_stride,
                block_stride);
  }
}

template <class D>
HWY_INLINE hn::Vec<D> LoadBlocks(D d, const float* HWY_RESTRICT src, size_t block_stride) {
  if constexpr (hn::MaxLanes(D()) <= 4) {
    return hn::LoadU(d, src);
  } else {
    const hn::Half<D> half;
    return hn::Combine(d,
                       LoadBlocks(half, src + hn::MaxLanes(half) / 4 * block_stride, block_stride),
                       LoadBlocks(half, src, block_stride));
  }
}

// Where a group's pixel is as wide as one vector (AVX-512: 16 planes of float32) or two (AVX2),
// the blocks of four planes are moved between vectors too, so that each pixel is stored or
// loaded whole: one 64-byte access per pixel instead of four of 16 bytes. Alone, on 16 planes of
// 28 x 28 in L2, PlanesToPixels went from 7.0-7.2 to 5.3 cycles a pixel on AVX-512 (every dtype)
// and from 7.4 to 5.5 on AVX2, PixelsToPlanes of float32 from 6.2 to 5.0-5.8 on AVX-512.
template <class D>
constexpr size_t kVectorsPerPixel = HWY_ARCH_X86 &&
                                            (hn::MaxLanes(D()) == 16 || hn::MaxLanes(D()) == 8)
                                        ? kPlaneGroup / hn::MaxLanes(D())
                                        : 0;

// 512-bit vectors: a 4x4 transpose of 128-bit blocks (afterwards block k of the i-th vector is
// the former block i of the k-th), its own inverse.
template <class D, class V = hn::Vec<D>>
HWY_INLINE void TransposeBlockQuads(D d, V& v0, V& v1, V& v2, V& v3) {
  const V low02 = hn::ConcatLowerLower(d, v2, v0);  // v0 blocks 0 1, v2 blocks 0 1
  const V high02 = hn::ConcatUpperUpper(d, v2, v0);
  const V low13 = hn::ConcatLowerLower(d, v3, v1);
  const V high13 = hn::ConcatUpperUpper(d, v3, v1);
  v0 = hn::OddEvenBlocks(hn::SwapAdjacentBlocks(low13), low02);  // v0 v1 v2 v3 block 0
  v1 = hn::OddEvenBlocks(low13, hn::SwapAdjacentBlocks(low02));
  v2 = hn::OddEvenBlocks(hn::SwapAdjacentBlocks(high13), high02);
  v3 = hn::OddEvenBlocks(high13, hn::SwapAdjacentBlocks(high02));
}

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// Pixels p0 and p1 (16 planes each) rounded to 16 bits as StoreRounded16 rounds, in one vector:
// p0's planes in words 0-15, p1's in words 16-31. `native`: NativeBFloat16Rounding(), read once
// per call by the caller.
template <DType kType>
HWY_INLINE __m512i RoundedPixelPair(hn::Vec512<float> p0, hn::Vec512<float> p1, bool native) {
  const hn::Full512<uint16_t> du16;
  if constexpr (kType == DType::kBFloat16) {
    if (native && !AnyDenormal(p0, p1)) {
      return NativeBFloat16Pair(p0, p1).raw;
    }
    // The upper halves of the 32-bit lanes are the odd 16-bit ones.
    const hn::Full512<float> d;
    return hn::ConcatOdd(du16, hn::BitCast(du16, RoundedBFloat16InUpperHalf(d, p1)),
                         hn::BitCast(du16, RoundedBFloat16InUpperHalf(d, p0)))
        .raw;
  } else {
    const hn::Full256<hwy::float16_t> df16;
    const __m256i low = hn::BitCast(hn::Full256<uint16_t>(), hn::DemoteTo(df16, p0)).raw;
    const __m256i high = hn::BitCast(hn::Full256<uint16_t>(), hn::DemoteTo(df16, p1)).raw;
    return _mm512_inserti64x4(_mm512_castsi256_si512(low), high, 1);
  }
}

// A 16 x 16 matrix of 16-bit words transposed: rows[r] holds row r in its lower half and row
// r + 8 in its upper one (blocks 0 1 and 2 3: 128 bits, eight words each); afterwards rows[c]
// holds column c in its lower half and column c + 8 in its upper one. Each 128-bit block of the
// eight vectors is an 8 x 8 sub-matrix, transposed in place by three rounds of unpacks (words of
// rows 2m and 2m + 1 paired, then dwords of four rows, then qwords of eight), which leaves
// sub-matrices 01 and 10 in each other's place: one block shuffle per vector puts them back.
// 32 shuffles, all but the last eight within 128-bit blocks.
HWY_INLINE void TransposeWords16x16(__m512i (&rows)[8]) {
  __m512i pairs[8], quads[8];
  for (size_t m = 0; m < 4; ++m) {
    pairs[2 * m] = _mm512_unpacklo_epi16(rows[2 * m], rows[2 * m + 1]);      // columns 0-3
    pairs[2 * m + 1] = _mm512_unpackhi_epi16(rows[2 * m], rows[2 * m + 1]);  // columns 4-7
  }
  for (size_t half = 0; half < 2; ++half) {  // rows 0-3, then 4-7
    const __m512i* a = pairs + 4 * half;
    __m512i* b = quads + 4 * half;
    b[0] = _mm512_unpacklo_epi32(a[0], a[2]);  // columns 0, 1
    b[1] = _mm512_unpackhi_epi32(a[0], a[2]);  // columns 2, 3
    b[2] = _mm512_unpacklo_epi32(a[1], a[3]);  // columns 4, 5
    b[3] = _mm512_unpackhi_epi32(a[1], a[3]);  // columns 6, 7
  }
  for (size_t q = 0; q < 4; ++q) {
    // Blocks: column c of rows 0-7, of rows 0-7 past column 8, of rows 8-15, of rows 8-15 past
    // column 8 (c = 2q, then 2q + 1); blocks 0 2 1 3 are columns c and c + 8 whole.
    const __m512i even = _mm512_unpacklo_epi64(quads[q], quads[q + 4]);
    const __m512i odd = _mm512_unpackhi_epi64(quads[q], quads[q + 4]);
    rows[2 * q] = _mm512_shuffle_i32x4(even, even, 0xD8);
    rows[2 * q + 1] = _mm512_shuffle_i32x4(odd, odd, 0xD8);
  }
}

// 16 pixels of a group (16 planes of float32 each) into the first `planes` planes, 16 elements
// of 16 bits each, rounded first so that the transpose moves half the bytes: pixels r and r + 8
// rounded into one vector are row r of the words' matrix. 40 shuffles for 16 pixels where
// transposing float32 and rounding each plane's vector took about 110: the bfloat16 transposes
// back had taken 40 % of a 4096-plane 28 x 28 -> 14 x 14 bfloat16 backward (case 44).
template <DType kType>
HWY_INLINE void SixteenPixelsToSixteenBitPlanes(const float* HWY_RESTRICT pixels, size_t planes,
                                                uint16_t* HWY_RESTRICT out, ptrdiff_t plane_stride,
                                                bool native) {
  static_assert(kPlaneGroup == 16, "");
  const hn::Full512<float> d;
  // Unrolled, so that every vector stays in a register (the loop kept them on the stack).
  __m512i words[8];
#pragma GCC unroll 8
  for (size_t r = 0; r < 8; ++r) {
    words[r] = RoundedPixelPair<kType>(hn::LoadU(d, pixels + r * kPlaneGroup),
                                       hn::LoadU(d, pixels + (r + 8) * kPlaneGroup), native);
  }
  TransposeWords16x16(words);
  for (size_t c = 0; c < 8; ++c) {
    if (c < planes) {
      _mm256_storeu_si256(
          reinterpret_cast<__m256i*>(out + static_cast<ptrdiff_t>(c) * plane_stride),
          _mm512_castsi512_si256(words[c]));
    }
    if (c + 8 < planes) {
      _mm256_storeu_si256(
          reinterpret_cast<__m256i*>(out + static_cast<ptrdiff_t>(c + 8) * plane_stride),
          _mm512_extracti64x4_epi64(words[c], 1));
    }
  }
}

// 16 elements of float16 from each of 16 planes (planes[p] + j) into 16 pixels of float32,
// converted exactly as LoadAs converts: the planes' words transposed first (plane r and r + 8
// make row r), then each pixel's 16 halves converted. 48 shuffles (the upper halves' extracts
// included) and 16 conversions for 16 pixels, where converting each plane's vector and
// transposing float32 took about 90. Cases 40 and 45, whose source reads dominate, ran in
// 0.96-0.97 when both 16-bit types took this form; bfloat16 now widens with an unpack instead
// (BFloat16PlanesToEightPixels).
HWY_INLINE void Float16PlanesToSixteenPixels(const uint16_t* const (&planes)[kPlaneGroup], size_t j,
                                             float* HWY_RESTRICT pixels) {
  static_assert(kPlaneGroup == 16, "");
  const hn::Full512<float> d;
  const auto load = [&](size_t p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(planes[p] + j));
  };
  __m512i words[8];
  for (size_t r = 0; r < 8; ++r) {
    words[r] = _mm512_inserti64x4(_mm512_castsi256_si512(load(r)), load(r + 8), 1);
  }
  TransposeWords16x16(words);
  const auto widen = [&](__m256i pixel) {
    return hn::PromoteTo(d,
                         hn::BitCast(hn::Full256<hwy::float16_t>(), hn::Vec256<uint16_t>{pixel}));
  };
  for (size_t c = 0; c < 8; ++c) {
    hn::StoreU(widen(_mm512_castsi512_si256(words[c])), d, pixels + c * kPlaneGroup);
    hn::StoreU(widen(_mm512_extracti64x4_epi64(words[c], 1)), d, pixels + (c + 8) * kPlaneGroup);
  }
}

// 8 elements of bfloat16 from each of 16 planes (planes[p] + j) into 8 pixels of float32,
// converted exactly: vector a[q] holds plane 4i + q's eight words in its block i, so two rounds
// of unpacks within blocks leave, in each block of u[k], the four planes 4i..4i+3 of pixel 2k in
// its low quadword and of pixel 2k + 1 in its high one; an unpack with zero words then widens
// each pixel whole (a bfloat16 is its float's upper half): per 16 pixels 32 unpacks and 24
// inserts, where the 16 x 16 word transpose took 48 shuffles and 16 widenings with shifts. On the
// Zen 4 VM (session 43, in-process, both orders) the 4096-plane bfloat16 cases ran 1.01-1.06x
// faster (40, 41, 45) and 44 0.99-1.03; float16's widening is a conversion, and stays there.
HWY_INLINE void BFloat16PlanesToEightPixels(const uint16_t* const (&planes)[kPlaneGroup], size_t j,
                                            float* HWY_RESTRICT pixels) {
  static_assert(kPlaneGroup == 16, "");
  const auto load = [&](size_t p) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(planes[p] + j));
  };
  __m512i a[4];
  for (size_t q = 0; q < 4; ++q) {
    a[q] = _mm512_castsi128_si512(load(q));
    a[q] = _mm512_inserti32x4(a[q], load(4 + q), 1);
    a[q] = _mm512_inserti32x4(a[q], load(8 + q), 2);
    a[q] = _mm512_inserti32x4(a[q], load(12 + q), 3);
  }
  const __m512i t0 = _mm512_unpacklo_epi16(a[0], a[1]);  // pixels 0-3, planes 4i, 4i + 1
  const __m512i t1 = _mm512_unpackhi_epi16(a[0], a[1]);  // pixels 4-7
  const __m512i t2 = _mm512_unpacklo_epi16(a[2], a[3]);  // pixels 0-3, planes 4i + 2, 4i + 3
  const __m512i t3 = _mm512_unpackhi_epi16(a[2], a[3]);
  const __m512i u[4] = {_mm512_unpacklo_epi32(t0, t2), _mm512_unpackhi_epi32(t0, t2),
                        _mm512_unpacklo_epi32(t1, t3), _mm512_unpackhi_epi32(t1, t3)};
  const __m512i zero = _mm512_setzero_si512();
  for (size_t k = 0; k < 4; ++k) {
    _mm512_storeu_si512(pixels + 2 * k * kPlaneGroup, _mm512_unpacklo_epi16(zero, u[k]));
    _mm512_storeu_si512(pixels + (2 * k + 1) * kPlaneGroup, _mm512_unpackhi_epi16(zero, u[k]));
  }
}
#endif

// Asks for the cache line at `at` ahead of a store into it (no fault for any address). Every
// AVX-512 CPU has PREFETCHW, which asks for the line to own, as the store will need it; for
// __builtin_prefetch's write hint GCC emits prefetcht0, a read's request, unless built for
// -mprfchw. On the transposes into the planes (16 planes' lines wanted at once), PREFETCHW made
// the 14 x 14 -> 28 x 28 forwards 9-15 % faster (bench/RESULTS.md, session 27). Other targets keep
// the portable hint: the AVX2 target's transposes (two vectors a pixel) ran 2-8 % slower with
// PREFETCHW on the same CPU, and not every AVX2 CPU lists it.
HWY_INLINE void PrefetchForWrite(const void* at) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  asm volatile("prefetchw (%0)" : : "r"(at));
#else
  __builtin_prefetch(at, /*rw=*/1, /*locality=*/3);
#endif
}

// How far ahead of its stores PixelsToPlanes prefetches each plane: one whole-vector step of the
// group's pixels (a cache line of float32). With PREFETCHW (AVX-512), asking for the lines the
// step is about to store, or the next step's, ran the 14 x 14 <-> 28 x 28 groups in 0.94-0.97 of
// the time that four lines ahead took, and 8 or 16 lines ahead 1.05-1.16; the AVX2 target, with
// prefetcht0, measured 0.99-1.01 for one line against four.
constexpr size_t kPrefetchElements = kPlaneGroup;

// A vector of pixels at a time: each quad of planes is loaded (16-bit elements converted in
// registers) and transposed by blocks, so that block k of its i-th vector holds pixel 4k + i of
// the quad; every plane is read in order and each pixel's line is written whole before the next
// (the other loop order, a quad of planes over the whole run before the next quad, ran 20-40 %
// slower on AVX-512).
template <DType kType>
void PlanesToPixelsOf(const void* src, ptrdiff_t plane_stride, size_t planes, size_t n,
                      float* HWY_RESTRICT dst) {
  using Storage = typename DTypeTraits<kType>::Storage;
  const PlaneGroupTag d;
  using V = hn::Vec<decltype(d)>;
  const size_t lanes = hn::Lanes(d);
  const Storage* plane[kPlaneGroup];
  for (size_t p = 0; p < kPlaneGroup; ++p) {
    plane[p] = GroupPlane(static_cast<const Storage*>(src), plane_stride, planes, p);
  }
  size_t j = 0;
  const auto load_quad = [&](size_t q, V& v0, V& v1, V& v2, V& v3) {
    v0 = LoadAs<kType>(d, plane[q] + j);
    v1 = LoadAs<kType>(d, plane[q + 1] + j);
    v2 = LoadAs<kType>(d, plane[q + 2] + j);
    v3 = LoadAs<kType>(d, plane[q + 3] + j);
    TransposeBlocks4x4(d, v0, v1, v2, v3);
  };
  // Up to 16 source planes are read at once, a vector each: as for PixelsToPlanes' stores, the
  // hardware prefetchers follow them poorly. Asking for each distinct plane's line two lines
  // ahead, once per line, made the 4096-plane 14x14 and 28x28 cases (38-45) 5-10 % faster
  // (in-process A/B, 2 threads, AVX2); one line ahead gained less, three and more less again.
  // Planes of 64 x 64 (case 2), which read at the memory's read rate already, were unchanged.
  constexpr size_t kLineElements = kCacheLineBytes / sizeof(Storage);
  constexpr size_t kLoadPrefetchElements = 2 * kLineElements;
  const size_t distinct_planes = planes < kPlaneGroup ? planes : kPlaneGroup;
  const auto prefetch_planes = [&]() {
    if (j % kLineElements < lanes) {
      for (size_t p = 0; p < distinct_planes; ++p) {
        __builtin_prefetch(plane[p] + j + kLoadPrefetchElements, /*rw=*/0, /*locality=*/3);
      }
    }
  };
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (kType == DType::kBFloat16 && hn::MaxLanes(d) == kPlaneGroup) {
    for (; j + 8 <= n; j += 8) {
      if (j % lanes == 0) prefetch_planes();  // as often as the vector steps below ask
      BFloat16PlanesToEightPixels(plane, j, dst + j * kPlaneGroup);
    }
  } else if constexpr (kType == DType::kFloat16 && hn::MaxLanes(d) == kPlaneGroup) {
    for (; j + kPlaneGroup <= n; j += kPlaneGroup) {
      prefetch_planes();
      Float16PlanesToSixteenPixels(plane, j, dst + j * kPlaneGroup);
    }
  }
#endif
  for (; j + lanes <= n; j += lanes) {
    prefetch_planes();
    float* const pixels = dst + j * kPlaneGroup;
    // Named vectors: arrays of vectors are not portable to SVE.
    V a0, a1, a2, a3, b0, b1, b2, b3;
    if constexpr (kVectorsPerPixel<decltype(d)> == 1) {
      V c0, c1, c2, c3, e0, e1, e2, e3;
      load_quad(0, a0, a1, a2, a3);
      load_quad(4, b0, b1, b2, b3);
      load_quad(8, c0, c1, c2, c3);
      load_quad(12, e0, e1, e2, e3);
      // Block k of quad q's i-th vector becomes block q of pixel 4k + i.
      const auto store_pixels = [&](size_t i, V& v0, V& v1, V& v2, V& v3) {
        TransposeBlockQuads(d, v0, v1, v2, v3);
        hn::StoreU(v0, d, pixels + i * kPlaneGroup);
        hn::StoreU(v1, d, pixels + (4 + i) * kPlaneGroup);
        hn::StoreU(v2, d, pixels + (8 + i) * kPlaneGroup);
        hn::StoreU(v3, d, pixels + (12 + i) * kPlaneGroup);
      };
      store_pixels(0, a0, b0, c0, e0);
      store_pixels(1, a1, b1, c1, e1);
      store_pixels(2, a2, b2, c2, e2);
      store_pixels(3, a3, b3, c3, e3);
    } else if constexpr (kVectorsPerPixel<decltype(d)> == 2) {
      // Planes [q, q + 8) are one vector of each pixel: block k of quads q and q + 4 together.
      for (size_t q = 0; q < kPlaneGroup; q += 8) {
        load_quad(q, a0, a1, a2, a3);
        load_quad(q + 4, b0, b1, b2, b3);
        const auto store_pixels = [&](size_t i, V v0, V v1) {
          hn::StoreU(hn::ConcatLowerLower(d, v1, v0), d, pixels + i * kPlaneGroup + q);
          hn::StoreU(hn::ConcatUpperUpper(d, v1, v0), d, pixels + (4 + i) * kPlaneGroup + q);
        };
        store_pixels(0, a0, b0);
        store_pixels(1, a1, b1);
        store_pixels(2, a2, b2);
        store_pixels(3, a3, b3);
      }
    } else {
      for (size_t q = 0; q < kPlaneGroup; q += 4) {
        load_quad(q, a0, a1, a2, a3);
        StoreBlocks(d, a0, pixels + q, 4 * kPlaneGroup);
        StoreBlocks(d, a1, pixels + kPlaneGroup + q, 4 * kPlaneGroup);
        StoreBlocks(d, a2, pixels + 2 * kPlaneGroup + q, 4 * kPlaneGroup);
        StoreBlocks(d, a3, pixels + 3 * kPlaneGroup + q, 4 * kPlaneGroup);
      }
    }
  }
  PlanesToPixelsExact<kType>(plane, j, n, dst);
}

// The reverse: each quad of planes gathered into four vectors by blocks (block k of the i-th
// holds pixel 4k + i), transposed back into lanes of four planes, and stored in each plane in
// order (16-bit ones rounded in registers; float32 streamed where asked and aligned).
template <DType kType>
void PixelsToPlanesOf(const float* HWY_RESTRICT src, size_t planes, size_t n, void* dst,
                      ptrdiff_t plane_stride, ResultStores stores) {
  using Storage = typename DTypeTraits<kType>::Storage;
  Storage* const out = static_cast<Storage*>(dst);
  const PlaneGroupTag d;
  using V = hn::Vec<decltype(d)>;
  const size_t lanes = hn::Lanes(d);
  const bool stream = kType == DType::kFloat32 && stores == ResultStores::kStreamed;
  // Whether a vector of a plane streams. Every vector of a plane does or none does: j advances
  // by whole vectors.
  const auto streams_at = [&](const Storage* at) {
    return stream && reinterpret_cast<uintptr_t>(at) % (lanes * sizeof(float)) == 0;
  };
  size_t j = 0;
  const auto store = [&](V v, size_t p) {
    if (p >= planes) return;
    Storage* const at = out + static_cast<ptrdiff_t>(p) * plane_stride + static_cast<ptrdiff_t>(j);
    if constexpr (kType == DType::kFloat32) {
      if (streams_at(at)) {
        hn::Stream(v, d, at);
      } else {
        hn::StoreU(v, d, at);
      }
    } else {
      StoreRounded16<kType>(d, v, at);
    }
  };
  const auto store_quad = [&](size_t q, V& v0, V& v1, V& v2, V& v3) {
    TransposeBlocks4x4(d, v0, v1, v2, v3);
    store(v0, q);
    store(v1, q + 1);
    store(v2, q + 2);
    store(v3, q + 3);
  };
  const auto prefetch_planes = [&]() {
    // Up to 16 result planes are written at once, a vector each, which the hardware prefetchers
    // follow poorly: each store waited for its line (70 % of this kernel's samples sat on the
    // stores). Asking for each plane's line kPrefetchElements ahead, for writing, made a 4096-plane
    // 14x14 -> 28x28 forward 17 % faster (1.18-1.23 ms against 1.38-1.50, 2 threads, AVX3).
    // Planes that stream are not asked for: on Zen 4 a line fetched for writing and then
    // streamed into cost more than either (16 planes written a 64-byte vector each in turn, 16
    // MiB in all: 3.2 ms so, 0.6 ms streamed alone, 1.1 ms cached and prefetched), and a
    // 4096-plane bicubic AA backward onto 32x32 planes ran 1.6x slower on AVX-512 than on AVX2.
    const Storage* at = out + static_cast<ptrdiff_t>(j + kPrefetchElements);
    for (size_t p = 0; p < planes; ++p, at += plane_stride) {
      if (!streams_at(at)) PrefetchForWrite(at);
    }
  };
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (kType != DType::kFloat32 && hn::MaxLanes(d) == kPlaneGroup) {
    const bool native = NativeBFloat16Rounding();
    for (; j + kPlaneGroup <= n; j += kPlaneGroup) {
      prefetch_planes();
      SixteenPixelsToSixteenBitPlanes<kType>(src + j * kPlaneGroup, planes,
                                             reinterpret_cast<uint16_t*>(out) + j, plane_stride,
                                             native);
    }
  }
#endif
  if constexpr (kType == DType::kBFloat16) {
    // Two vectors of pixels at a time, the even pixels in one and the odd in the other, so that
    // each plane's two rounded vectors merge into one without a shuffle (InterleavedBFloat16Bits):
    // block k of the t-th vector loaded holds pixel 8k + 2t (even) or 8k + 2t + 1 (odd), so after
    // the transpose lane m of a plane's pair is its pixels 2m and 2m + 1, which drops the pack
    // each plane's vector took. AVX-512 has transposed every whole vector of pixels above, as
    // words, by the time it gets here.
    const hn::Repartition<uint16_t, decltype(d)> du16;
    const auto store_pair = [&](V even, V odd, size_t p) {
      if (p >= planes) return;
      hn::StoreU(InterleavedBFloat16Bits(d, even, odd), du16,
                 reinterpret_cast<uint16_t*>(out) + static_cast<ptrdiff_t>(p) * plane_stride +
                     static_cast<ptrdiff_t>(j));
    };
    constexpr size_t kStride = 8 * kPlaneGroup;
    for (; j + 2 * lanes <= n; j += 2 * lanes) {
      const float* const pixels = src + j * kPlaneGroup;
      prefetch_planes();
      for (size_t q = 0; q < planes; q += 4) {
        V e0 = LoadBlocks(d, pixels + q, kStride);
        V e1 = LoadBlocks(d, pixels + 2 * kPlaneGroup + q, kStride);
        V e2 = LoadBlocks(d, pixels + 4 * kPlaneGroup + q, kStride);
        V e3 = LoadBlocks(d, pixels + 6 * kPlaneGroup + q, kStride);
        V o0 = LoadBlocks(d, pixels + kPlaneGroup + q, kStride);
        V o1 = LoadBlocks(d, pixels + 3 * kPlaneGroup + q, kStride);
        V o2 = LoadBlocks(d, pixels + 5 * kPlaneGroup + q, kStride);
        V o3 = LoadBlocks(d, pixels + 7 * kPlaneGroup + q, kStride);
        TransposeBlocks4x4(d, e0, e1, e2, e3);
        TransposeBlocks4x4(d, o0, o1, o2, o3);
        store_pair(e0, o0, q);
        store_pair(e1, o1, q + 1);
        store_pair(e2, o2, q + 2);
        store_pair(e3, o3, q + 3);
      }
    }
  }
  for (; j + lanes <= n; j += lanes) {
    const float* const pixels = src + j * kPlaneGroup;
    prefetch_planes();
    V a0, a1, a2, a3, b0, b1, b2, b3;
    if constexpr (kVectorsPerPixel<decltype(d)> == 1) {
      V c0, c1, c2, c3, e0, e1, e2, e3;
      // Pixels i, 4 + i, 8 + i and 12 + i give block i of every quad's vectors.
      const auto load_pixels = [&](size_t i, V& v0, V& v1, V& v2, V& v3) {
        v0 = hn::LoadU(d, pixels + i * kPlaneGroup);
        v1 = hn::LoadU(d, pixels + (4 + i) * kPlaneGroup);
        v2 = hn::LoadU(d, pixels + (8 + i) * kPlaneGroup);
        v3 = hn::LoadU(d, pixels + (12 + i) * kPlaneGroup);
        TransposeBlockQuads(d, v0, v1, v2, v3);
      };
      load_pixels(0, a0, b0, c0, e0);
      load_pixels(1, a1, b1, c1, e1);
      load_pixels(2, a2, b2, c2, e2);
      load_pixels(3, a3, b3, c3, e3);
      store_quad(0, a0, a1, a2, a3);
      if (planes > 4) store_quad(4, b0, b1, b2, b3);
      if (planes > 8) store_quad(8, c0, c1, c2, c3);
      if (planes > 12) store_quad(12, e0, e1, e2, e3);
    } else if constexpr (kVectorsPerPixel<decltype(d)> == 2) {
      for (size_t q = 0; q < planes; q += 8) {
        const auto load_pixels = [&](size_t i, V& v0, V& v1) {
          const V low = hn::LoadU(d, pixels + i * kPlaneGroup + q);
          const V high = hn::LoadU(d, pixels + (4 + i) * kPlaneGroup + q);
          v0 = hn::ConcatLowerLower(d, high, low);
          v1 = hn::ConcatUpperUpper(d, high, low);
        };
        load_pixels(0, a0, b0);
        load_pixels(1, a1, b1);
        load_pixels(2, a2, b2);
        load_pixels(3, a3, b3);
        store_quad(q, a0, a1, a2, a3);
        if (planes > q + 4) store_quad(q + 4, b0, b1, b2, b3);
      }
    } else {
      for (size_t q = 0; q < planes; q += 4) {
        a0 = LoadBlocks(d, pixels + q, 4 * kPlaneGroup);
        a1 = LoadBlocks(d, pixels + kPlaneGroup + q, 4 * kPlaneGroup);
        a2 = LoadBlocks(d, pixels + 2 * kPlaneGroup + q, 4 * kPlaneGroup);
        a3 = LoadBlocks(d, pixels + 3 * kPlaneGroup + q, 4 * kPlaneGroup);
        store_quad(q, a0, a1, a2, a3);
      }
    }
  }
  PixelsToPlanesExact<kType>(src, planes, j, n, out, plane_stride);
}
#endif  // HWY_TARGET == HWY_SCALAR

void PlanesToPixelsImpl(DType dtype, const void* src, ptrdiff_t plane_stride, size_t planes,
                        size_t n, float* HWY_RESTRICT dst) {
  switch (dtype) {
    case DType::kFloat32:
      return PlanesToPixelsOf<DType::kFloat32>(src, plane_stride, planes, n, dst);
    case DType::kFloat16:
      return PlanesToPixelsOf<DType::kFloat16>(src, plane_stride, planes, n, dst);
    case DType::kBFloat16:
      return PlanesToPixelsOf<DType::kBFloat16>(src, plane_stride, planes, n, dst);
  }
}

void PixelsToPlanesImpl(DType dtype, const float* HWY_RESTRICT src, size_t planes, size_t n,
                        void* dst, ptrdiff_t plane_stride, ResultStores stores) {
  switch (dtype) {
    case DType::kFloat32:
      return PixelsToPlanesOf<DType::kFloat32>(src, planes, n, dst, plane_stride, stores);
    case DType::kFloat16:
      return PixelsToPlanesOf<DType::kFloat16>(src, planes, n, dst, plane_stride, stores);
    case DType::kBFloat16:
      return PixelsToPlanesOf<DType::kBFloat16>(src, planes, n, dst, plane_stride, stores);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace aclnn_upsample
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace aclnn_upsample {
namespace kernels {

HWY_EXPORT(DeinterleaveImpl);
HWY_EXPORT(InterleaveImpl);
HWY_EXPORT(PlanesToPixelsImpl);
HWY_EXPORT(PixelsToPlanesImpl);

void Deinterleave(const float* src, size_t pixels, size_t channels, float* dst, size_t dst_stride,
                  int phases, size_t phase_length) {
  HWY_DYNAMIC_DISPATCH(DeinterleaveImpl)
  (src, pixels, channels, dst, dst_stride, phases, phase_length);
}

void Interleave(const float* src, size_t src_stride, size_t pixels, size_t channels, float* dst,
                ResultStores stores) {
  HWY_DYNAMIC_DISPATCH(InterleaveImpl)(src, src_stride, pixels, channels, dst, stores);
}

void PlanesToPixels(DType dtype, const void* src, ptrdiff_t plane_stride, size_t planes, size_t n,
                    float* dst) {
  HWY_DYNAMIC_DISPATCH(PlanesToPixelsImpl)(dtype, src, plane_stride, planes, n, dst);
}

void PixelsToPlanes(DType dtype, const float* src, size_t planes, size_t n, void* dst,
                    ptrdiff_t plane_stride, ResultStores stores) {
  HWY_DYNAMIC_DISPATCH(PixelsToPlanesImpl)(dtype, src, planes, n, dst, plane_stride, stores);
}

}  // namespace kernels
}  // namespace aclnn_upsample
#endif  // HWY_ONCE
