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
// otherwise, with the same bits. `stream`: the row is contiguous, starts on a cache line and
// holds whole lines (StoreFromFloatImpl splits it so), and its vectors are streamed.
template <DType kType>
void StoreRounded16Row(const float* HWY_RESTRICT src, size_t n, uint16_t* out, ptrdiff_t stride,
                       bool stream) {
  const hn::ScalableTag<float> df;
  const size_t lanes = hn::Lanes(df);
  size_t j = 0;
  if (stride == 1) {
#if HWY_TARGET != HWY_SCALAR
    if constexpr (kType == DType::kBFloat16) {
      for (; j + 4 * lanes <= n; j += 4 * lanes) {
        StoreRoundedBFloat16x4(df, hn::LoadU(df, src + j), hn::LoadU(df, src + j + lanes),
                               hn::LoadU(df, src + j + 2 * lanes),
                               hn::LoadU(df, src + j + 3 * lanes), out + j, stream);
      }
    }
#endif
    for (; j + lanes <= n; j += lanes) {
      StoreRounded16<kType>(df, hn::LoadU(df, src + j), out + j, stream);
    }
  }
  for (; j < n; ++j) {
    out[static_cast<ptrdiff_t>(j) * stride] = DTypeTraits<kType>::FromFloat(src[j]);
  }
}

// n floats into dst[0], dst[stride], ... of `dtype`, with cached stores.
void StoreRowCached(DType dtype, const float* HWY_RESTRICT src, size_t n, void* dst,
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
      return StoreRounded16Row<DType::kFloat16>(src, n, static_cast<uint16_t*>(dst), stride,
                                                /*stream=*/false);
    case DType::kBFloat16:
      return StoreRounded16Row<DType::kBFloat16>(src, n, static_cast<uint16_t*>(dst), stride,
                                                 /*stream=*/false);
  }
}

// The whole cache lines of a contiguous row, streamed: n elements of `dtype` from a line
// boundary, a whole number of lines.
void StreamLines(DType dtype, const float* HWY_RESTRICT src, size_t n, void* dst) {
  const hn::ScalableTag<float> df;
  const size_t lanes = hn::Lanes(df);
  switch (dtype) {
    case DType::kFloat32: {
      float* out = static_cast<float*>(dst);
      for (size_t j = 0; j < n; j += lanes) hn::Stream(hn::LoadU(df, src + j), df, out + j);
      return;
    }
    case DType::kFloat16:
      return StoreRounded16Row<DType::kFloat16>(src, n, static_cast<uint16_t*>(dst), 1,
                                                /*stream=*/true);
    case DType::kBFloat16:
      return StoreRounded16Row<DType::kBFloat16>(src, n, static_cast<uint16_t*>(dst), 1,
                                                 /*stream=*/true);
  }
}

// Streamed: a contiguous row's whole cache lines go out with streaming stores where every vector
// of them fills part of one line (a vector of floats, or the half vector of 16-bit elements that
// a vector of floats rounds into, divides a line), the pieces at either end cached.
void StoreFromFloatImpl(DType dtype, const float* HWY_RESTRICT src, size_t n, void* dst,
                        ptrdiff_t stride, ResultStores stores) {
  const size_t lanes = hn::Lanes(hn::ScalableTag<float>());
  const size_t elem = DTypeSize(dtype);
  if (stores == ResultStores::kCached || stride != 1 || kCacheLineBytes % (lanes * elem) != 0) {
    StoreRowCached(dtype, src, n, dst, stride);
    return;
  }
  const LineSplit split = elem == sizeof(float)
                              ? SplitAtLines(static_cast<const float*>(dst), n, lanes)
                              : SplitAtLines(static_cast<const uint16_t*>(dst), n, lanes);
  if (split.body == 0) {
    StoreRowCached(dtype, src, n, dst, 1);
    return;
  }
  char* const out = static_cast<char*>(dst);
  StoreRowCached(dtype, src, split.head, out, 1);
  StreamLines(dtype, src + split.head, split.body, out + split.head * elem);
  const size_t tail = split.head + split.body;
  StoreRowCached(dtype, src + tail, n - tail, out + tail * elem, 1);
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

void StoreFromFloat(DType dtype, const float* src, size_t n, void* dst, ptrdiff_t stride,
                    ResultStores stores) {
  HWY_DYNAMIC_DISPATCH(StoreFromFloatImpl)(dtype, src, n, dst, stride, stores);
}

}  // namespace kernels
}  // namespace aclnn_upsample
#endif  // HWY_ONCE
