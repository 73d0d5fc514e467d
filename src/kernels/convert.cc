// The dtype layer: rows of float16 / bfloat16 / float32 in and out of float32 scratch.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/convert.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/dtype_vectors-inl.h"
#include "kernels/kernels.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_upsample {
namespace kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void LoadAsFloatImpl(DType dtype, const void* src, ptrdiff_t stride, size_t n,
                     float* HWY_RESTRICT dst) {
  const hn::ScalableTag<float> df;
  const size_t lanes = hn::Lanes(df);
  size_t j = 0;
  if (dtype == DType::kFloat32) {
    const float* s = static_cast<const float*>(src);
    if (stride == 1) {
      for (; j + lanes <= n; j += lanes) hn::StoreU(hn::LoadU(df, s + j), df, dst + j);
    }
    for (; j < n; ++j) dst[j] = s[static_cast<ptrdiff_t>(j) * stride];
    return;
  }
  const uint16_t* s = static_cast<const uint16_t*>(src);
  if (dtype == DType::kBFloat16) {
    const hn::Rebind<uint16_t, decltype(df)> du16;
    const hn::RebindToUnsigned<decltype(df)> du32;
    if (stride == 1) {
      for (; j + lanes <= n; j += lanes) {
        const auto wide = hn::ShiftLeft<16>(hn::PromoteTo(du32, hn::LoadU(du16, s + j)));
        hn::StoreU(hn::BitCast(df, wide), df, dst + j);
      }
    }
    for (; j < n; ++j) dst[j] = BFloat16ToFloat(s[static_cast<ptrdiff_t>(j) * stride]);
    return;
  }
  if (stride == 1) {
    for (; j + lanes <= n; j += lanes) hn::StoreU(LoadFloat16(df, s + j), df, dst + j);
  }
  for (; j < n; ++j) dst[j] = Float16ToFloat(s[static_cast<ptrdiff_t>(j) * stride]);
}

void StoreFromFloatImpl(DType dtype, const float* HWY_RESTRICT src, size_t n, void* dst,
                        ptrdiff_t stride) {
  const hn::ScalableTag<float> df;
  const size_t lanes = hn::Lanes(df);
  size_t j = 0;
  if (dtype == DType::kFloat32) {
    float* out = static_cast<float*>(dst);
    if (stride == 1) {
      for (; j + lanes <= n; j += lanes) hn::StoreU(hn::LoadU(df, src + j), df, out + j);
    }
    for (; j < n; ++j) out[static_cast<ptrdiff_t>(j) * stride] = src[j];
    return;
  }
  uint16_t* out = static_cast<uint16_t*>(dst);
  if (dtype == DType::kBFloat16) {
    if (stride == 1) {
      for (; j + lanes <= n; j += lanes) {
        StoreRounded16<DType::kBFloat16>(df, hn::LoadU(df, src + j), out + j);
      }
    }
    for (; j < n; ++j) out[static_cast<ptrdiff_t>(j) * stride] = FloatToBFloat16(src[j]);
    return;
  }
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  // Vectors only where the rounding is the instruction's (StoreRounded16).
  if (stride == 1) {
    for (; j + lanes <= n; j += lanes) {
      StoreRounded16<DType::kFloat16>(df, hn::LoadU(df, src + j), out + j);
    }
  }
#endif
  for (; j < n; ++j) out[static_cast<ptrdiff_t>(j) * stride] = FloatToFloat16(src[j]);
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace aclnn_upsample
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace aclnn_upsample {
namespace kernels {

HWY_EXPORT(LoadAsFloatImpl);
HWY_EXPORT(StoreFromFloatImpl);

void LoadAsFloat(DType dtype, const void* src, ptrdiff_t stride, size_t n, float* dst) {
  HWY_DYNAMIC_DISPATCH(LoadAsFloatImpl)(dtype, src, stride, n, dst);
}

void StoreFromFloat(DType dtype, const float* src, size_t n, void* dst, ptrdiff_t stride) {
  HWY_DYNAMIC_DISPATCH(StoreFromFloatImpl)(dtype, src, n, dst, stride);
}

}  // namespace kernels
}  // namespace aclnn_upsample
#endif  // HWY_ONCE
