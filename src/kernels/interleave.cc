// Channels-last rows with few channels (RGB, RGBA images: C of 2 to 4) to and from one planar row
// per channel, so that their W pass runs the planar gather kernels with all their vector forms
// instead of combining C-vectors of 3 or 4 floats (kernels.h, Deinterleave and Interleave).
#include <cstddef>
#include <cstdint>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/interleave.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/kernels.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_upsample {
namespace kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <size_t kChannels>
void DeinterleaveFixed(const float* HWY_RESTRICT src, size_t pixels, float* HWY_RESTRICT dst,
                       size_t dst_stride) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  float* const p0 = dst;
  float* const p1 = dst + dst_stride;
  float* const p2 = dst + 2 * dst_stride;
  float* const p3 = dst + 3 * dst_stride;
  size_t i = 0;
  for (; i + lanes <= pixels; i += lanes) {
    const float* s = src + i * kChannels;
    if constexpr (kChannels == 2) {
      hn::Vec<decltype(d)> v0, v1;
      hn::LoadInterleaved2(d, s, v0, v1);
      hn::StoreU(v0, d, p0 + i);
      hn::StoreU(v1, d, p1 + i);
    } else if constexpr (kChannels == 3) {
      hn::Vec<decltype(d)> v0, v1, v2;
      hn::LoadInterleaved3(d, s, v0, v1, v2);
      hn::StoreU(v0, d, p0 + i);
      hn::StoreU(v1, d, p1 + i);
      hn::StoreU(v2, d, p2 + i);
    } else {
      hn::Vec<decltype(d)> v0, v1, v2, v3;
      hn::LoadInterleaved4(d, s, v0, v1, v2, v3);
      hn::StoreU(v0, d, p0 + i);
      hn::StoreU(v1, d, p1 + i);
      hn::StoreU(v2, d, p2 + i);
      hn::StoreU(v3, d, p3 + i);
    }
  }
  for (; i < pixels; ++i) {
    for (size_t c = 0; c < kChannels; ++c) dst[c * dst_stride + i] = src[i * kChannels + c];
  }
}

template <size_t kChannels>
void InterleaveFixed(const float* HWY_RESTRICT src, size_t src_stride, size_t pixels,
                     float* HWY_RESTRICT dst) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  const float* const p0 = src;
  const float* const p1 = src + src_stride;
  const float* const p2 = src + 2 * src_stride;
  const float* const p3 = src + 3 * src_stride;
  size_t i = 0;
  for (; i + lanes <= pixels; i += lanes) {
    float* o = dst + i * kChannels;
    if constexpr (kChannels == 2) {
      hn::StoreInterleaved2(hn::LoadU(d, p0 + i), hn::LoadU(d, p1 + i), d, o);
    } else if constexpr (kChannels == 3) {
      hn::StoreInterleaved3(hn::LoadU(d, p0 + i), hn::LoadU(d, p1 + i), hn::LoadU(d, p2 + i), d, o);
    } else {
      hn::StoreInterleaved4(hn::LoadU(d, p0 + i), hn::LoadU(d, p1 + i), hn::LoadU(d, p2 + i),
                            hn::LoadU(d, p3 + i), d, o);
    }
  }
  for (; i < pixels; ++i) {
    for (size_t c = 0; c < kChannels; ++c) dst[i * kChannels + c] = src[c * src_stride + i];
  }
}

void DeinterleaveImpl(const float* HWY_RESTRICT src, size_t pixels, size_t channels,
                      float* HWY_RESTRICT dst, size_t dst_stride) {
  switch (channels) {
    case 2:
      return DeinterleaveFixed<2>(src, pixels, dst, dst_stride);
    case 3:
      return DeinterleaveFixed<3>(src, pixels, dst, dst_stride);
    default:
      return DeinterleaveFixed<4>(src, pixels, dst, dst_stride);
  }
}

void InterleaveImpl(const float* HWY_RESTRICT src, size_t src_stride, size_t pixels,
                    size_t channels, float* HWY_RESTRICT dst) {
  switch (channels) {
    case 2:
      return InterleaveFixed<2>(src, src_stride, pixels, dst);
    case 3:
      return InterleaveFixed<3>(src, src_stride, pixels, dst);
    default:
      return InterleaveFixed<4>(src, src_stride, pixels, dst);
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

void Deinterleave(const float* src, size_t pixels, size_t channels, float* dst, size_t dst_stride) {
  HWY_DYNAMIC_DISPATCH(DeinterleaveImpl)(src, pixels, channels, dst, dst_stride);
}

void Interleave(const float* src, size_t src_stride, size_t pixels, size_t channels, float* dst) {
  HWY_DYNAMIC_DISPATCH(InterleaveImpl)(src, src_stride, pixels, channels, dst);
}

}  // namespace kernels
}  // namespace aclnn_upsample
#endif  // HWY_ONCE
