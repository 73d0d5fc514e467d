// The channels-last W pass: each result pixel gathers a run of source pixels, whole C-vectors at
// a time (kernels.h, GatherPixels), optionally with streaming stores; and its arithmetic-free
// form for nearest, pixels copied as bytes (CopyPixels).
#include <cstdint>
#include <type_traits>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/gather_pixels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/combine-inl.h"
#include "kernels/kernels.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_upsample {
namespace kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// How a W pass stores a vector of a result pixel: as float32, streamed (non-temporal) if kStream,
// or rounded into a 16-bit dtype (StoreRounded16, StoreFromFloat's bits), cached.
template <bool kStream>
struct FloatStores {
  using Element = float;
  template <class D>
  HWY_INLINE void operator()(D d, hn::Vec<D> v, float* HWY_RESTRICT to) const {
    if constexpr (kStream) {
      hn::Stream(v, d, to);
    } else {
      hn::StoreU(v, d, to);
    }
  }
};

template <DType kType>
struct RoundedStores {
  using Element = uint16_t;
  template <class D>
  HWY_INLINE void operator()(D d, hn::Vec<D> v, uint16_t* HWY_RESTRICT to) const {
    StoreRounded16<kType>(d, v, to);
  }
};

// Calls pixel_run(pixel, x, w, count) for each result pixel of a row: where it goes, its run's
// first source pixel, weights and tap count. The axis's tables are read through locals: through
// `axis` the compiler reloaded each pointer after every store, since a float store might have
// changed them.
template <class Element, class PixelRun>
HWY_INLINE void ForEachPixelRun(const GatherAxis& axis, const float* HWY_RESTRICT src,
                                ptrdiff_t src_pixel_stride, Element* HWY_RESTRICT dst,
                                ptrdiff_t dst_pixel_stride, const PixelRun& pixel_run) {
  const int32_t* HWY_RESTRICT const first = axis.first;
  const int32_t* HWY_RESTRICT const weight_offset = axis.weight_offset;
  const float* HWY_RESTRICT const weights = axis.weights;
  const size_t length = axis.length;
  int32_t begin = length > 0 ? weight_offset[0] : 0;
  for (size_t i = 0; i < length; ++i) {
    const int32_t end = weight_offset[i + 1];
    pixel_run(dst + static_cast<ptrdiff_t>(i) * dst_pixel_stride, src + first[i] * src_pixel_stride,
              weights + begin, end - begin);
    begin = end;
  }
}

// Pixels of exactly kVectors whole vectors (plane groups: 16 channels are one AVX-512 vector, two
// AVX2 ones), with Combine's operations per element but none of its per-row set-up, which cost
// more than the two FMAs of a bilinear pixel (40 % of a small-plane forward's samples sat in
// Combine's loop control around them). FloatStores<true>: streaming stores (dst and its pixel
// stride on vector boundaries); through Combine, a streamed channels-last forward of 8 channels
// spent 86 % of its time in this pass and moved 9 GB/s.
template <size_t kVectors, class Stores, class D>
void GatherWholeVectorPixels(D d, Stores store, const GatherAxis& axis,
                             const float* HWY_RESTRICT src, ptrdiff_t src_pixel_stride,
                             typename Stores::Element* HWY_RESTRICT dst,
                             ptrdiff_t dst_pixel_stride) {
  using Element = typename Stores::Element;
  const size_t lanes = hn::Lanes(d);
  // Called once a pixel: inlined, or the call costs as much as a bilinear pixel's arithmetic.
  const auto sum_pixel = [&](Element* pixel, const float* x, const float* w,
                             int32_t count) ACLNN_UPSAMPLE_INLINE_LAMBDA {
    if (count == 0) {
      for (size_t v = 0; v < kVectors; ++v) store(d, hn::Zero(d), pixel + v * lanes);
      return;
    }
    const auto w0 = hn::Set(d, w[0]);
    auto acc0 = hn::Mul(w0, hn::LoadU(d, x));
    auto acc1 = kVectors > 1 ? hn::Mul(w0, hn::LoadU(d, x + lanes)) : acc0;
    if (count == 2) {  // bilinear's pixels, without the loop's set-up (the same operations)
      const float* const row = x + src_pixel_stride;
      const auto w1 = hn::Set(d, w[1]);
      store(d, hn::MulAdd(w1, hn::LoadU(d, row), acc0), pixel);
      if (kVectors > 1) {
        store(d, hn::MulAdd(w1, hn::LoadU(d, row + lanes), acc1), pixel + lanes);
      }
      return;
    }
    for (int32_t k = 1; k < count; ++k) {
      const float* const row = x + k * src_pixel_stride;
      const auto wk = hn::Set(d, w[k]);
      acc0 = hn::MulAdd(wk, hn::LoadU(d, row), acc0);
      if (kVectors > 1) acc1 = hn::MulAdd(wk, hn::LoadU(d, row + lanes), acc1);
    }
    store(d, acc0, pixel);
    if (kVectors > 1) store(d, acc1, pixel + lanes);
  };
  ForEachPixelRun(axis, src, src_pixel_stride, dst, dst_pixel_stride, sum_pixel);
}

// Pixels of any other width of at least one vector (a segmentation head's 19 or 21 classes):
// the whole vectors from each pixel's start and, where `channels` is not a multiple of the lanes,
// one more ending at the pixel's end, overlapping the one before it. The overlapped channels are
// computed twice by the same operations in the same order, so both stores write the same bits.
// Through Combine, whose set-up per pixel costs more than a bilinear pixel's arithmetic, a
// channels-last forward of 17 float32 channels spent 82 % of its time in this pass and took twice
// as long as one of 16. Pixels of exactly one or two vectors keep GatherWholeVectorPixels: through
// this loop the plane groups' 16 channels ran 4-15 % slower. FloatStores<true>: streaming stores,
// for whole vectors on vector boundaries only.
template <class Stores, class D>
void GatherPixelVectors(D d, Stores store, const GatherAxis& axis, size_t channels,
                        const float* HWY_RESTRICT src, ptrdiff_t src_pixel_stride,
                        typename Stores::Element* HWY_RESTRICT dst, ptrdiff_t dst_pixel_stride) {
  using Element = typename Stores::Element;
  const size_t lanes = hn::Lanes(d);
  const size_t last = channels - lanes;  // where each pixel's last vector starts
  // Each vector of a pixel: at channels 0, lanes, ... before `last`, then at `last`.
  const auto for_each_vector = [last, lanes](auto vector_at) {
    for (size_t c = 0; c < last; c += lanes) vector_at(c);
    vector_at(last);
  };
  ForEachPixelRun(
      axis, src, src_pixel_stride, dst, dst_pixel_stride,
      [&](Element* pixel, const float* x, const float* w, int32_t count) {
        if (count == 0) {
          for_each_vector([&](size_t c) { store(d, hn::Zero(d), pixel + c); });
          return;
        }
        const auto w0 = hn::Set(d, w[0]);
        if (count == 2) {  // bilinear's pixels, without the loop's set-up (the same operations)
          const float* const row = x + src_pixel_stride;
          const auto w1 = hn::Set(d, w[1]);
          for_each_vector([&](size_t c) {
            store(d, hn::MulAdd(w1, hn::LoadU(d, row + c), hn::Mul(w0, hn::LoadU(d, x + c))),
                  pixel + c);
          });
          return;
        }
        for_each_vector([&](size_t c) {
          auto acc = hn::Mul(w0, hn::LoadU(d, x + c));
          for (int32_t k = 1; k < count; ++k) {
            acc = hn::MulAdd(hn::Set(d, w[k]), hn::LoadU(d, x + k * src_pixel_stride + c), acc);
          }
          store(d, acc, pixel + c);
        });
      });
}

// The streamed forms kept out of line: inlined into GatherPixelsImpl next to the cached ones,
// they made the cached ones 5-12 % slower (channels-last forwards of 8 channels, float32 and
// bfloat16).
template <size_t kVectors, class D>
HWY_NOINLINE void StreamWholeVectorPixels(D d, const GatherAxis& axis,
                                          const float* HWY_RESTRICT src, ptrdiff_t src_pixel_stride,
                                          float* HWY_RESTRICT dst, ptrdiff_t dst_pixel_stride) {
  GatherWholeVectorPixels<kVectors>(d, FloatStores<true>(), axis, src, src_pixel_stride, dst,
                                    dst_pixel_stride);
}

template <class D>
HWY_NOINLINE void StreamPixelVectors(D d, const GatherAxis& axis, size_t channels,
                                     const float* HWY_RESTRICT src, ptrdiff_t src_pixel_stride,
                                     float* HWY_RESTRICT dst, ptrdiff_t dst_pixel_stride) {
  GatherPixelVectors(d, FloatStores<true>(), axis, channels, src, src_pixel_stride, dst,
                     dst_pixel_stride);
}

// Whether a row of pixels streams: every pixel must start on a vector boundary and be whole
// vectors; a line written partly streamed and partly cached would cost more than either.
bool StreamsWholeVectors(ResultStores stores, const void* dst, size_t pixel_bytes,
                         size_t pixel_stride_bytes, size_t vector_bytes) {
  return stores == ResultStores::kStreamed && pixel_bytes % vector_bytes == 0 &&
         reinterpret_cast<uintptr_t>(dst) % vector_bytes == 0 &&
         pixel_stride_bytes % vector_bytes == 0;
}

// Whether pixels of `channels` take d's per-pixel forms (one to `max_vectors` of its vectors,
// the last one partly).
template <class D>
bool TakesFewVectorForms(D d, size_t channels, size_t max_vectors) {
  const size_t lanes = hn::Lanes(d);
  // From four vectors on, Combine's body of four vectors at a time outruns GatherPixelVectors'
  // one (64 float32 channels, AVX2: 5-10 % faster), and its set-up weighs less.
  return channels >= lanes && channels / lanes < max_vectors;
}

// The cached per-pixel forms, through `store`.
template <class Stores, class D>
void GatherFewVectorPixels(D d, Stores store, const GatherAxis& axis, size_t channels,
                           const float* src, ptrdiff_t src_pixel_stride,
                           typename Stores::Element* dst, ptrdiff_t dst_pixel_stride) {
  const size_t lanes = hn::Lanes(d);
  if (channels == lanes) {
    GatherWholeVectorPixels<1>(d, store, axis, src, src_pixel_stride, dst, dst_pixel_stride);
  } else if (channels == 2 * lanes) {
    GatherWholeVectorPixels<2>(d, store, axis, src, src_pixel_stride, dst, dst_pixel_stride);
  } else {
    GatherPixelVectors(d, store, axis, channels, src, src_pixel_stride, dst, dst_pixel_stride);
  }
}

// Pixels of one to `max_vectors` of d's vectors through the per-pixel forms above; false where
// `channels` is outside that range.
template <class D>
bool GatherPixelsOfFewVectors(D d, const GatherAxis& axis, size_t channels, const float* src,
                              ptrdiff_t src_pixel_stride, float* dst, ptrdiff_t dst_pixel_stride,
                              ResultStores stores, size_t max_vectors = 4) {
  if (!TakesFewVectorForms(d, channels, max_vectors)) return false;
  const size_t lanes = hn::Lanes(d);
  const bool streamed = StreamsWholeVectors(stores, dst, channels * sizeof(float),
                                            static_cast<size_t>(dst_pixel_stride) * sizeof(float),
                                            lanes * sizeof(float));
  if (!streamed) {
    GatherFewVectorPixels(d, FloatStores<false>(), axis, channels, src, src_pixel_stride, dst,
                          dst_pixel_stride);
  } else if (channels == lanes) {
    StreamWholeVectorPixels<1>(d, axis, src, src_pixel_stride, dst, dst_pixel_stride);
  } else if (channels == 2 * lanes) {
    StreamWholeVectorPixels<2>(d, axis, src, src_pixel_stride, dst, dst_pixel_stride);
  } else {
    StreamPixelVectors(d, axis, channels, src, src_pixel_stride, dst, dst_pixel_stride);
  }
  return true;
}

// On AVX-512, pixels of 8 to 31 float32 channels that are not whole vectors, and pixels of any
// odd number of half vectors (40, 72, 136 channels), take half vectors (AVX2's width), as on
// AVX2. Through Combine's buffer, a channels-last forward of 8 channels ran 7-10x slower on
// AVX-512 than on AVX2 (Zen 4), its set-up and buffer paid per pixel; in 16-lane vectors ending
// in an overlapping one, 21 and 24 channels ran 1.2x and 1.6x slower, computing and storing 32
// lanes a pixel, across lines; and pixels of 40 to 200 channels ran 1.3-2.0x slower, cached where
// AVX2's whole 8-lane vectors stream. Streamed, one half vector at a time measured as fast as
// Combine's body of four whole vectors, cached.
bool TakesHalfVectors(size_t channels) {
  const size_t lanes = hn::Lanes(hn::ScalableTag<float>());
  return lanes > 8 && channels % lanes != 0 && (channels < 32 || channels % 8 == 0) &&
         channels >= 8;
}

void GatherPixelsImpl(const GatherAxis& axis, size_t channels, const float* src,
                      ptrdiff_t src_pixel_stride, float* dst, ptrdiff_t dst_pixel_stride,
                      ResultStores stores) {
  const hn::ScalableTag<float> d;
#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE
  if (TakesHalfVectors(channels)) {
    GatherPixelsOfFewVectors(hn::CappedTag<float, 8>(), axis, channels, src, src_pixel_stride, dst,
                             dst_pixel_stride, stores, /*max_vectors=*/SIZE_MAX);
    return;
  }
#endif
  if (GatherPixelsOfFewVectors(d, axis, channels, src, src_pixel_stride, dst, dst_pixel_stride,
                               stores)) {
    return;
  }
  const bool streamed = StreamsWholeVectors(stores, dst, channels * sizeof(float),
                                            static_cast<size_t>(dst_pixel_stride) * sizeof(float),
                                            hn::Lanes(d) * sizeof(float));
  // Pixels narrower than a vector (fewer than 8 channels only where the planner sends them
  // here: it sends them to the interleaved passes) and pixels of four vectors or more, through
  // Combine (its buffer a vector wide for the narrow ones).
  for (size_t i = 0; i < axis.length; ++i) {
    const int32_t begin = axis.weight_offset[i];
    const int32_t count = axis.weight_offset[i + 1] - begin;
    const float* first = count > 0 ? src + axis.first[i] * src_pixel_stride : src;
    float* pixel = dst + static_cast<ptrdiff_t>(i) * dst_pixel_stride;
    if (streamed) {
      Combine<DType::kFloat32>(StreamingSink{pixel}, channels, first, src_pixel_stride,
                               axis.weights + begin, static_cast<size_t>(count));
    } else {
      CombineInto<DType::kFloat32>(pixel, channels, first, src_pixel_stride, axis.weights + begin,
                                   static_cast<size_t>(count));
    }
  }
}

// The rounded forms, chosen as GatherPixelsImpl chooses its cached ones: few(d) with the tag of
// the per-pixel forms pixels of `channels` take (half vectors on AVX-512, else whole ones), or
// combine() where they go through Combine. One choice for RoundsPixelsCheaply and
// GatherPixelsRoundedAs, so the check always describes the form that runs.
template <class Few, class Whole>
auto WithRoundedPixelForm(size_t channels, const Few& few, const Whole& combine) {
#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE
  if (TakesHalfVectors(channels)) return few(hn::CappedTag<float, 8>());
#endif
  const hn::ScalableTag<float> d;
  if (TakesFewVectorForms(d, channels, 4)) return few(d);
  return combine();
}

// Whether pixels of `channels` round cheaply in the form GatherPixelsRoundedAs takes for them.
// Combine rounds bfloat16 four vectors at a time as StoreFromFloat does, on every target.
template <DType kType>
bool RoundsPixelsCheaply(size_t channels) {
  return WithRoundedPixelForm(
      channels, [](auto d) { return RoundsVectorsCheaply<kType>(d); },
      [] {
        return kType == DType::kBFloat16 || RoundsVectorsCheaply<kType>(hn::ScalableTag<float>());
      });
}

bool RoundsPixelsInRegistersImpl(DType dtype, size_t channels) {
  if (dtype == DType::kBFloat16) return RoundsPixelsCheaply<DType::kBFloat16>(channels);
  return dtype == DType::kFloat16 && RoundsPixelsCheaply<DType::kFloat16>(channels);
}

// GatherPixelsImpl's cached forms with each vector rounded into a 16-bit dtype as it is stored.
template <DType kType>
void GatherPixelsRoundedAs(const GatherAxis& axis, size_t channels, const float* src,
                           ptrdiff_t src_pixel_stride, uint16_t* dst, ptrdiff_t dst_pixel_stride) {
  WithRoundedPixelForm(
      channels,
      [&](auto d) {
        GatherFewVectorPixels(d, RoundedStores<kType>(), axis, channels, src, src_pixel_stride, dst,
                              dst_pixel_stride);
      },
      [&] {
        for (size_t i = 0; i < axis.length; ++i) {
          const int32_t begin = axis.weight_offset[i];
          const int32_t count = axis.weight_offset[i + 1] - begin;
          const float* first = count > 0 ? src + axis.first[i] * src_pixel_stride : src;
          Combine<DType::kFloat32>(
              RoundingSink<kType>{dst + static_cast<ptrdiff_t>(i) * dst_pixel_stride, false},
              channels, first, src_pixel_stride, axis.weights + begin, static_cast<size_t>(count));
        }
      });
}

void GatherPixelsRoundedImpl(const GatherAxis& axis, size_t channels, const float* src,
                             ptrdiff_t src_pixel_stride, DType dtype, uint16_t* dst,
                             ptrdiff_t dst_pixel_stride) {
  if (dtype == DType::kBFloat16) {
    GatherPixelsRoundedAs<DType::kBFloat16>(axis, channels, src, src_pixel_stride, dst,
                                            dst_pixel_stride);
  } else {
    GatherPixelsRoundedAs<DType::kFloat16>(axis, channels, src, src_pixel_stride, dst,
                                           dst_pixel_stride);
  }
}

// A band of rows of pixels of exactly kVectors whole vectors (the plane groups' 16 channels), a
// result pixel at a time down all the rows: each pixel's run is looked up and its weights
// broadcast once for the band, where a row at a time paid for them in every row (the table
// loads, the stride multiply and the broadcasts were 20 of a bilinear pixel's 25 instructions).
// Every element gets GatherWholeVectorPixels' operations in the same order.
template <size_t kVectors, class D>
void GatherWholeVectorPixelBand(D d, const GatherAxis& axis, size_t rows,
                                const float* HWY_RESTRICT src, ptrdiff_t src_pixel_stride,
                                ptrdiff_t src_row_stride, float* HWY_RESTRICT dst,
                                ptrdiff_t dst_pixel_stride, ptrdiff_t dst_row_stride) {
  const size_t lanes = hn::Lanes(d);
  const int32_t* HWY_RESTRICT const first = axis.first;
  const int32_t* HWY_RESTRICT const weight_offset = axis.weight_offset;
  const float* HWY_RESTRICT const weights = axis.weights;
  for (size_t i = 0; i < axis.length; ++i) {
    const int32_t begin = weight_offset[i];
    const int32_t count = weight_offset[i + 1] - begin;
    float* pixel = dst + static_cast<ptrdiff_t>(i) * dst_pixel_stride;
    if (count == 0) {
      for (size_t r = 0; r < rows; ++r, pixel += dst_row_stride) {
        for (size_t v = 0; v < kVectors; ++v) hn::StoreU(hn::Zero(d), d, pixel + v * lanes);
      }
      continue;
    }
    const float* x = src + first[i] * src_pixel_stride;
    const float* const w = weights + begin;
    const auto w0 = hn::Set(d, w[0]);
    if (count == 2) {  // bilinear's pixels, without the tap loop (the same operations)
      const auto w1 = hn::Set(d, w[1]);
      for (size_t r = 0; r < rows; ++r, x += src_row_stride, pixel += dst_row_stride) {
        for (size_t v = 0; v < kVectors; ++v) {
          const auto acc = hn::Mul(w0, hn::LoadU(d, x + v * lanes));
          hn::StoreU(hn::MulAdd(w1, hn::LoadU(d, x + src_pixel_stride + v * lanes), acc), d,
                     pixel + v * lanes);
        }
      }
      continue;
    }
    size_t r = 0;
    // Four rows at a time: four chains of dependent FMAs in flight instead of one, and each
    // weight broadcast once for them.
    for (; r + 4 <= rows; r += 4, x += 4 * src_row_stride, pixel += 4 * dst_row_stride) {
      for (size_t v = 0; v < kVectors; ++v) {
        const float* const x0 = x + v * lanes;
        auto acc0 = hn::Mul(w0, hn::LoadU(d, x0));
        auto acc1 = hn::Mul(w0, hn::LoadU(d, x0 + src_row_stride));
        auto acc2 = hn::Mul(w0, hn::LoadU(d, x0 + 2 * src_row_stride));
        auto acc3 = hn::Mul(w0, hn::LoadU(d, x0 + 3 * src_row_stride));
        for (int32_t k = 1; k < count; ++k) {
          const auto wk = hn::Set(d, w[k]);
          const float* const xk = x0 + k * src_pixel_stride;
          acc0 = hn::MulAdd(wk, hn::LoadU(d, xk), acc0);
          acc1 = hn::MulAdd(wk, hn::LoadU(d, xk + src_row_stride), acc1);
          acc2 = hn::MulAdd(wk, hn::LoadU(d, xk + 2 * src_row_stride), acc2);
          acc3 = hn::MulAdd(wk, hn::LoadU(d, xk + 3 * src_row_stride), acc3);
        }
        hn::StoreU(acc0, d, pixel + v * lanes);
        hn::StoreU(acc1, d, pixel + dst_row_stride + v * lanes);
        hn::StoreU(acc2, d, pixel + 2 * dst_row_stride + v * lanes);
        hn::StoreU(acc3, d, pixel + 3 * dst_row_stride + v * lanes);
      }
    }
    for (; r < rows; ++r, x += src_row_stride, pixel += dst_row_stride) {
      for (size_t v = 0; v < kVectors; ++v) {
        auto acc = hn::Mul(w0, hn::LoadU(d, x + v * lanes));
        for (int32_t k = 1; k < count; ++k) {
          acc =
              hn::MulAdd(hn::Set(d, w[k]), hn::LoadU(d, x + k * src_pixel_stride + v * lanes), acc);
        }
        hn::StoreU(acc, d, pixel + v * lanes);
      }
    }
  }
}

void GatherPixelBandImpl(const GatherAxis& axis, size_t channels, size_t rows, const float* src,
                         ptrdiff_t src_pixel_stride, ptrdiff_t src_row_stride, float* dst,
                         ptrdiff_t dst_pixel_stride, ptrdiff_t dst_row_stride) {
  const hn::ScalableTag<float> d;
  if (channels == hn::Lanes(d)) {
    return GatherWholeVectorPixelBand<1>(d, axis, rows, src, src_pixel_stride, src_row_stride, dst,
                                         dst_pixel_stride, dst_row_stride);
  }
  if (channels == 2 * hn::Lanes(d)) {
    return GatherWholeVectorPixelBand<2>(d, axis, rows, src, src_pixel_stride, src_row_stride, dst,
                                         dst_pixel_stride, dst_row_stride);
  }
  for (size_t r = 0; r < rows; ++r) {
    const auto row = static_cast<ptrdiff_t>(r);
    GatherPixelsImpl(axis, channels, src + row * src_row_stride, src_pixel_stride,
                     dst + row * dst_row_stride, dst_pixel_stride, ResultStores::kCached);
  }
}

// Which runs of a row have their tap: some (tested per pixel), all (for pure gathers,
// weight_offset[length] - weight_offset[0] == length) or none (a result row whose H run is
// empty, `source` null). Known per row, so that no pixel tests it where all or none do: the
// test's two loads and branch took more than half of a cached 16-byte pixel's time in L1.
enum class RowTaps { kSome, kAll, kNone };

// Where each result pixel of a row comes from: source pixel first[i], or zeros where run i is
// empty. Passed by value: through a reference, the compiler reloaded its members after every
// store, which might have changed them (a nearest backward 1.3x slower).
template <RowTaps kTaps>
struct RowPixels {
  const int32_t* HWY_RESTRICT first;
  const int32_t* HWY_RESTRICT weight_offset;
  const uint8_t* source;
  ptrdiff_t src_pixel_stride;

  // Whether pixel i is zeros.
  HWY_INLINE bool Empty(size_t i) const {
    if constexpr (kTaps == RowTaps::kSome) return weight_offset[i + 1] == weight_offset[i];
    return kTaps == RowTaps::kNone;
  }
  // Pixel i's bytes, where it is not empty.
  HWY_INLINE const uint8_t* At(size_t i) const {
    return source + static_cast<ptrdiff_t>(first[i]) * src_pixel_stride;
  }
};

// Copies pixel `i` of a row (or zeros) to `to` in vectors of d's lanes (bytes), which must not
// exceed pixel_bytes: whole vectors from the pixel's start and, where pixel_bytes is not a
// multiple of them, one more ending at the pixel's end, overlapping the one before it (those
// bytes copied twice, the same both times). A few vector loads and stores inlined in the loop: a
// 16-byte pixel (RGBA float32, eight bfloat16 channels) cost a memcpy call each, about 25
// cycles, and moved 5 GB/s.
template <bool kStream, class D, class Pixels>
HWY_INLINE void CopyPixel(D d, const Pixels pixels, size_t i, uint8_t* to, size_t pixel_bytes) {
  const size_t lanes = hn::Lanes(d);
  const auto write = [&](auto chunk) {
    if constexpr (kStream) {
      for (size_t b = 0; b < pixel_bytes; b += lanes) hn::Stream(chunk(b), d, to + b);
    } else {
      const size_t last = pixel_bytes - lanes;  // where the pixel's last vector starts
      for (size_t b = 0; b < last; b += lanes) hn::StoreU(chunk(b), d, to + b);
      hn::StoreU(chunk(last), d, to + last);
    }
  };
  if (pixels.Empty(i)) {
    write([d](size_t) { return hn::Zero(d); });
    return;
  }
  const uint8_t* const from = pixels.At(i);
  write([d, from](size_t b) { return hn::LoadU(d, from + b); });
}

// Packing pixels into a vector needs its size at compile time: not the one-lane target, nor the
// scalable ones (SVE, RVV), whose Lanes() is known only when running.
#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE
// Pixels i, i + 1, ... i + kPixels - 1 of a row as one vector of d, the first in the lowest
// lanes: each pixel is Lanes(d) / kPixels bytes.
template <size_t kPixels, class D, class Pixels>
HWY_INLINE hn::Vec<D> PixelsAsOneVector(D d, const Pixels pixels, size_t i) {
  if constexpr (kPixels == 1) {
    return pixels.Empty(i) ? hn::Zero(d) : hn::LoadU(d, pixels.At(i));
  } else {
    const hn::Half<D> dh;
    constexpr size_t kHalf = kPixels / 2;
    return hn::Combine(d, PixelsAsOneVector<kHalf>(dh, pixels, i + kHalf),
                       PixelsAsOneVector<kHalf>(dh, pixels, i));
  }
}

// A streamed row of pixels back to back whose size is a whole vector's half, quarter or eighth
// (8 or 16 bytes on AVX2): kPixels pixels per streaming store of a whole vector, from the first
// pixel on a vector boundary; the pixels before it and after the last whole vector are stored
// alone (streamed where they are 16 bytes or more, else cached). Streaming each 16-byte pixel in
// its own store (movntdq xmm) moved half the bytes a second that whole-vector stores did on the
// development VM (AMD Zen 3).
template <size_t kPixels, class Pixels>
void StreamPackedPixels(const Pixels pixels, size_t length, uint8_t* result) {
  const hn::ScalableTag<uint8_t> d;
  const hn::CappedTag<uint8_t, hn::MaxLanes(d) / kPixels> d_pixel;
  const size_t pixel_bytes = hn::Lanes(d_pixel);
  const size_t lanes = hn::Lanes(d);
  const auto single = [&](size_t i) {
    CopyPixel<(hn::MaxLanes(d_pixel) >= 16)>(d_pixel, pixels, i, result + i * pixel_bytes,
                                             pixel_bytes);
  };
  size_t i = 0;
  for (; i < length && reinterpret_cast<uintptr_t>(result + i * pixel_bytes) % lanes != 0; ++i) {
    single(i);
  }
  for (; i + kPixels <= length; i += kPixels) {
    hn::Stream(PixelsAsOneVector<kPixels>(d, pixels, i), d, result + i * pixel_bytes);
  }
  for (; i < length; ++i) single(i);
}
#endif  // HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE

template <class Pixels>
void CopyRowPixels(const Pixels pixels, size_t length, uint8_t* result, ptrdiff_t dst_pixel_stride,
                   size_t pixel_bytes, ResultStores stores) {
  if (pixel_bytes == 0) return;
  const hn::ScalableTag<uint8_t> d_full;
  const size_t lanes = hn::Lanes(d_full);
  const hn::CappedTag<uint8_t, 32> d32;
  const hn::CappedTag<uint8_t, 16> d16;
  const hn::CappedTag<uint8_t, 8> d8;
  const auto copy_as = [&](auto d, auto stream) {
    for (size_t i = 0; i < length; ++i) {
      CopyPixel<decltype(stream)::value>(
          d, pixels, i, result + static_cast<ptrdiff_t>(i) * dst_pixel_stride, pixel_bytes);
    }
  };
  if (StreamsWholeVectors(stores, result, pixel_bytes, static_cast<size_t>(dst_pixel_stride),
                          lanes)) {
    return copy_as(d_full, std::true_type());
  }
#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE
  // Pixels back to back on their own size's boundaries, streamed too: two, four or eight to a
  // store where they are that part of a vector, else in 16-byte stores where they are multiples of
  // them (48-byte pixels so took 0.8-0.9 of the time of cached whole-vector copies; rows of them on
  // 16-byte boundaries only, streamed so, measured 1.04-1.26 slower, so they stay cached).
  if (stores == ResultStores::kStreamed && static_cast<size_t>(dst_pixel_stride) == pixel_bytes &&
      reinterpret_cast<uintptr_t>(result) % pixel_bytes == 0 && pixel_bytes >= 8) {
    if (2 * pixel_bytes == lanes) return StreamPackedPixels<2>(pixels, length, result);
    if (4 * pixel_bytes == lanes) return StreamPackedPixels<4>(pixels, length, result);
    if (8 * pixel_bytes == lanes) return StreamPackedPixels<8>(pixels, length, result);
    if (pixel_bytes % 16 == 0) return copy_as(d16, std::true_type());
  }
#endif
  // Cached, each pixel in the widest of a whole vector, 32, 16 and 8 bytes that it holds.
  const std::false_type cached;
  if (lanes <= pixel_bytes) return copy_as(d_full, cached);
  if (hn::Lanes(d32) <= pixel_bytes) return copy_as(d32, cached);
  if (hn::Lanes(d16) <= pixel_bytes) return copy_as(d16, cached);
  if (hn::Lanes(d8) <= pixel_bytes) return copy_as(d8, cached);
  // Pixels narrower than 8 bytes (which the plans do not copy: kMinCopiedChannels), a byte at
  // a time.
  copy_as(hn::CappedTag<uint8_t, 1>(), cached);
}

void CopyPixelsImpl(const int32_t* HWY_RESTRICT first, const int32_t* HWY_RESTRICT weight_offset,
                    size_t length, const void* src, ptrdiff_t src_pixel_stride, void* dst,
                    ptrdiff_t dst_pixel_stride, size_t pixel_bytes, ResultStores stores) {
  const auto* const source = static_cast<const uint8_t*>(src);
  auto* const result = static_cast<uint8_t*>(dst);
  const auto copy = [&](auto pixels) {
    CopyRowPixels(pixels, length, result, dst_pixel_stride, pixel_bytes, stores);
  };
  if (source == nullptr) {
    return copy(RowPixels<RowTaps::kNone>{first, weight_offset, source, src_pixel_stride});
  }
  // Runs are one tap or none, so they are all one tap where they count one tap each.
  if (static_cast<size_t>(weight_offset[length] - weight_offset[0]) == length) {
    return copy(RowPixels<RowTaps::kAll>{first, weight_offset, source, src_pixel_stride});
  }
  copy(RowPixels<RowTaps::kSome>{first, weight_offset, source, src_pixel_stride});
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace aclnn_upsample
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace aclnn_upsample {
namespace kernels {

HWY_EXPORT(GatherPixelsImpl);
HWY_EXPORT(GatherPixelsRoundedImpl);
HWY_EXPORT(RoundsPixelsInRegistersImpl);
HWY_EXPORT(GatherPixelBandImpl);
HWY_EXPORT(CopyPixelsImpl);

void GatherPixels(const GatherAxis& axis, size_t channels, const float* src,
                  ptrdiff_t src_pixel_stride, float* dst, ptrdiff_t dst_pixel_stride,
                  ResultStores stores) {
  HWY_DYNAMIC_DISPATCH(GatherPixelsImpl)
  (axis, channels, src, src_pixel_stride, dst, dst_pixel_stride, stores);
}

bool RoundsPixelsInRegisters(DType dtype, size_t channels) {
  return HWY_DYNAMIC_DISPATCH(RoundsPixelsInRegistersImpl)(dtype, channels);
}

void GatherPixelsRounded(const GatherAxis& axis, size_t channels, const float* src,
                         ptrdiff_t src_pixel_stride, DType dtype, uint16_t* dst,
                         ptrdiff_t dst_pixel_stride) {
  HWY_DYNAMIC_DISPATCH(GatherPixelsRoundedImpl)
  (axis, channels, src, src_pixel_stride, dtype, dst, dst_pixel_stride);
}

void GatherPixelBand(const GatherAxis& axis, size_t channels, size_t rows, const float* src,
                     ptrdiff_t src_pixel_stride, ptrdiff_t src_row_stride, float* dst,
                     ptrdiff_t dst_pixel_stride, ptrdiff_t dst_row_stride) {
  HWY_DYNAMIC_DISPATCH(GatherPixelBandImpl)
  (axis, channels, rows, src, src_pixel_stride, src_row_stride, dst, dst_pixel_stride,
   dst_row_stride);
}

void CopyPixels(const int32_t* first, const int32_t* weight_offset, size_t length, const void* src,
                ptrdiff_t src_pixel_stride, void* dst, ptrdiff_t dst_pixel_stride,
                size_t pixel_bytes, ResultStores stores) {
  HWY_DYNAMIC_DISPATCH(CopyPixelsImpl)
  (first, weight_offset, length, src, src_pixel_stride, dst, dst_pixel_stride, pixel_bytes, stores);
}

}  // namespace kernels
}  // namespace aclnn_upsample
#endif  // HWY_ONCE
