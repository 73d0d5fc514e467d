// The channels-last W pass: each result pixel gathers a run of source pixels, whole C-vectors at
// a time (kernels.h, GatherPixels), optionally with streaming stores; and its arithmetic-free
// form for nearest, pixels copied as bytes (CopyPixels).
#include <cstdint>
#include <cstring>

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

// Pixels of exactly kVectors whole vectors (plane groups: 16 channels are one AVX-512 vector, two
// AVX2 ones), with Combine's operations per element but none of its per-row set-up, which cost
// more than the two FMAs of a bilinear pixel (40 % of a small-plane forward's samples sat in
// Combine's loop control around them).
template <size_t kVectors>
void GatherWholeVectorPixels(const GatherAxis& axis, const float* HWY_RESTRICT src,
                             ptrdiff_t src_pixel_stride, float* HWY_RESTRICT dst,
                             ptrdiff_t dst_pixel_stride) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  // The axis's tables in locals: through `axis` the compiler reloaded each pointer after every
  // store, since a float store might have changed them.
  const int32_t* HWY_RESTRICT const first = axis.first;
  const int32_t* HWY_RESTRICT const weight_offset = axis.weight_offset;
  const float* HWY_RESTRICT const weights = axis.weights;
  const size_t length = axis.length;
  int32_t begin = length > 0 ? weight_offset[0] : 0;
  for (size_t i = 0; i < length; ++i) {
    const int32_t end = weight_offset[i + 1];
    const int32_t count = end - begin;
    float* const pixel = dst + static_cast<ptrdiff_t>(i) * dst_pixel_stride;
    const float* const x = src + first[i] * src_pixel_stride;
    const float* const w = weights + begin;
    begin = end;
    if (count == 0) {
      for (size_t v = 0; v < kVectors; ++v) hn::StoreU(hn::Zero(d), d, pixel + v * lanes);
      continue;
    }
    const auto w0 = hn::Set(d, w[0]);
    auto acc0 = hn::Mul(w0, hn::LoadU(d, x));
    auto acc1 = kVectors > 1 ? hn::Mul(w0, hn::LoadU(d, x + lanes)) : acc0;
    if (count == 2) {  // bilinear's pixels, without the loop's set-up (the same operations)
      const float* const row = x + src_pixel_stride;
      const auto w1 = hn::Set(d, w[1]);
      hn::StoreU(hn::MulAdd(w1, hn::LoadU(d, row), acc0), d, pixel);
      if (kVectors > 1)
        hn::StoreU(hn::MulAdd(w1, hn::LoadU(d, row + lanes), acc1), d, pixel + lanes);
      continue;
    }
    for (int32_t k = 1; k < count; ++k) {
      const float* const row = x + k * src_pixel_stride;
      const auto wk = hn::Set(d, w[k]);
      acc0 = hn::MulAdd(wk, hn::LoadU(d, row), acc0);
      if (kVectors > 1) acc1 = hn::MulAdd(wk, hn::LoadU(d, row + lanes), acc1);
    }
    hn::StoreU(acc0, d, pixel);
    if (kVectors > 1) hn::StoreU(acc1, d, pixel + lanes);
  }
}

// Whether a row of pixels streams: every pixel must start on a vector boundary and be whole
// vectors; a line written partly streamed and partly cached would cost more than either.
bool StreamsWholeVectors(ResultStores stores, const void* dst, size_t pixel_bytes,
                         size_t pixel_stride_bytes, size_t vector_bytes) {
  return stores == ResultStores::kStreamed && pixel_bytes % vector_bytes == 0 &&
         reinterpret_cast<uintptr_t>(dst) % vector_bytes == 0 &&
         pixel_stride_bytes % vector_bytes == 0;
}

void GatherPixelsImpl(const GatherAxis& axis, size_t channels, const float* src,
                      ptrdiff_t src_pixel_stride, float* dst, ptrdiff_t dst_pixel_stride,
                      ResultStores stores) {
  const hn::ScalableTag<float> d;
  if (stores == ResultStores::kCached && channels == hn::Lanes(d)) {
    return GatherWholeVectorPixels<1>(axis, src, src_pixel_stride, dst, dst_pixel_stride);
  }
  if (stores == ResultStores::kCached && channels == 2 * hn::Lanes(d)) {
    return GatherWholeVectorPixels<2>(axis, src, src_pixel_stride, dst, dst_pixel_stride);
  }
  const bool streamed = StreamsWholeVectors(stores, dst, channels * sizeof(float),
                                            static_cast<size_t>(dst_pixel_stride) * sizeof(float),
                                            hn::Lanes(d) * sizeof(float));
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

void CopyPixelsImpl(const int32_t* HWY_RESTRICT first, const int32_t* HWY_RESTRICT weight_offset,
                    size_t length, const void* src, ptrdiff_t src_pixel_stride, void* dst,
                    ptrdiff_t dst_pixel_stride, size_t pixel_bytes, ResultStores stores) {
  const hn::ScalableTag<uint8_t> d;
  const size_t lanes = hn::Lanes(d);
  const auto* const source = static_cast<const uint8_t*>(src);
  auto* const result = static_cast<uint8_t*>(dst);
  const size_t whole = pixel_bytes / lanes * lanes;
  const bool streamed =
      StreamsWholeVectors(stores, dst, pixel_bytes, static_cast<size_t>(dst_pixel_stride), lanes);
  const auto zero = hn::Zero(d);
  for (size_t i = 0; i < length; ++i) {
    uint8_t* const to = result + static_cast<ptrdiff_t>(i) * dst_pixel_stride;
    const bool empty = weight_offset[i + 1] == weight_offset[i];
    const uint8_t* const from =
        source + static_cast<ptrdiff_t>(empty ? 0 : first[i]) * src_pixel_stride;
    if (streamed) {
      for (size_t b = 0; b < whole; b += lanes) {
        hn::Stream(empty ? zero : hn::LoadU(d, from + b), d, to + b);
      }
      continue;
    }
    if (empty) {
      std::memset(to, 0, pixel_bytes);
      continue;
    }
    for (size_t b = 0; b < whole; b += lanes) hn::StoreU(hn::LoadU(d, from + b), d, to + b);
    if (whole < pixel_bytes) std::memcpy(to + whole, from + whole, pixel_bytes - whole);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace aclnn_upsample
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace aclnn_upsample {
namespace kernels {

HWY_EXPORT(GatherPixelsImpl);
HWY_EXPORT(CopyPixelsImpl);

void GatherPixels(const GatherAxis& axis, size_t channels, const float* src,
                  ptrdiff_t src_pixel_stride, float* dst, ptrdiff_t dst_pixel_stride,
                  ResultStores stores) {
  HWY_DYNAMIC_DISPATCH(GatherPixelsImpl)
  (axis, channels, src, src_pixel_stride, dst, dst_pixel_stride, stores);
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
