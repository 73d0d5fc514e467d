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

// n floats rounded into 16-bit elements dst[0], dst[stride], ...: whole vectors where the row is
// contiguous (StoreRounded16 decides per target how a vector rounds), element by element
// otherwise, with the same bits.
template <DType kType>
void StoreRounded16Row(const float* HWY_RESTRICT src, size_t n, uint16_t* out, ptrdiff_t stride) {
  const hn::ScalableTag<float> df;
  const size_t lanes = hn::Lanes(df);
  size_t j = 0;
  if (stride == 1) {
#if HWY_TARGET != HWY_SCALAR
    if constexpr (kType == DType::kBFloat16) {
      for (; j + 4 * lanes <= n; j += 4 * lanes) {
        StoreRoundedBFloat16x4(df, hn::LoadU(df, src + j), hn::LoadU(df, src + j + lanes),
                               hn::LoadU(df, src + j + 2 * lanes),
                               hn::LoadU(df, src + j + 3 * lanes), out + j, /*stream=*/false);
      }
    }
#endif
    for (; j + lanes <= n; j += lanes) StoreRounded16<kType>(df, hn::LoadU(df, src + j), out + j);
  }
  for (; j < n; ++j) {
    out[static_cast<ptrdiff_t>(j) * stride] = DTypeTraits<kType>::FromFloat(src[j]);
  }
}

void StoreFromFloatImpl(DType dtype, const float* HWY_RESTRICT src, size_t n, void* dst,
                        ptrdiff_t stride) {
  switch (dtype) {
    case DType::kFloat32: {
      const hn::ScalableTag<float> df;
      const size_t lanes = hn::Lanes(df);
      float* out = static_cast<float*>(dst);
      size_t j = 0;
      if (stride == 1) {
        for (; j + lanes <= n; j += lanes) hn::StoreU(hn::LoadU(df, src + j), df, out + j);
      }
      for (; j < n; ++j) out[static_cast<ptrdiff_t>(j) * stride] = src[j];
      return;
    }
    case DType::kFloat16:
      return StoreRounded16Row<DType::kFloat16>(src, n, static_cast<uint16_t*>(dst), stride);
    case DType::kBFloat16:
      return StoreRounded16Row<DType::kBFloat16>(src, n, static_cast<uint16_t*>(dst), stride);
  }
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
