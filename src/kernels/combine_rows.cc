// The H pass: a result row is a weighted sum of whole source rows, vectorised along the row, read
// in any dtype or written in any dtype.
#include <cstdint>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/combine_rows.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/combine-inl.h"
#include "kernels/kernels.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_upsample {
namespace kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void CombineRowsImpl(float* HWY_RESTRICT dst, size_t n, const float* HWY_RESTRICT src,
                     ptrdiff_t src_stride, const float* HWY_RESTRICT weights, size_t count,
                     ResultStores stores) {
  const hn::ScalableTag<float> d;
  // Streamed stores need every vector aligned; the row's partial last vector is stored normally.
  if (stores == ResultStores::kStreamed &&
      reinterpret_cast<uintptr_t>(dst) % (hn::Lanes(d) * sizeof(float)) == 0) {
    Combine<DType::kFloat32>(StreamingSink{dst}, n, src, src_stride, weights, count);
    return;
  }
  CombineInto<DType::kFloat32>(dst, n, src, src_stride, weights, count);
}

void CombineRowsToImpl(DType dtype, void* HWY_RESTRICT dst, size_t n, const float* HWY_RESTRICT src,
                       ptrdiff_t src_stride, const float* HWY_RESTRICT weights, size_t count,
                       ResultStores stores) {
  if (dtype == DType::kFloat32) {
    return CombineRowsImpl(static_cast<float*>(dst), n, src, src_stride, weights, count, stores);
  }
  // Streamed stores need every 16-bit vector aligned; the row's partial last one is stored
  // normally.
  const hn::ScalableTag<float> d;
  const bool stream = stores == ResultStores::kStreamed &&
                      reinterpret_cast<uintptr_t>(dst) % (hn::Lanes(d) * sizeof(uint16_t)) == 0;
  uint16_t* const out = static_cast<uint16_t*>(dst);
  if (dtype == DType::kFloat16) {
    return Combine<DType::kFloat32>(RoundingSink<DType::kFloat16>{out, stream}, n, src, src_stride,
                                    weights, count);
  }
  Combine<DType::kFloat32>(RoundingSink<DType::kBFloat16>{out, stream}, n, src, src_stride, weights,
                           count);
}

void CombineRowsFromImpl(DType dtype, float* HWY_RESTRICT dst, size_t n, const void* src,
                         ptrdiff_t src_stride, const float* HWY_RESTRICT weights, size_t count) {
  switch (dtype) {
    case DType::kFloat32:
      return CombineInto<DType::kFloat32>(dst, n, src, src_stride, weights, count);
    case DType::kFloat16:
      return CombineInto<DType::kFloat16>(dst, n, src, src_stride, weights, count);
    case DType::kBFloat16:
      return CombineInto<DType::kBFloat16>(dst, n, src, src_stride, weights, count);
  }
}

void CombineRowPairFromImpl(DType dtype, float* HWY_RESTRICT dst0, float* HWY_RESTRICT dst1,
                            size_t n, const void* src, ptrdiff_t src_stride,
                            const float* HWY_RESTRICT weights0, size_t count0, size_t shift1,
                            const float* HWY_RESTRICT weights1, size_t count1) {
  switch (dtype) {
    case DType::kFloat32:
      return CombinePair<DType::kFloat32>(dst0, dst1, n, src, src_stride, weights0, count0, shift1,
                                          weights1, count1);
    case DType::kFloat16:
      return CombinePair<DType::kFloat16>(dst0, dst1, n, src, src_stride, weights0, count0, shift1,
                                          weights1, count1);
    case DType::kBFloat16:
      return CombinePair<DType::kBFloat16>(dst0, dst1, n, src, src_stride, weights0, count0, shift1,
                                           weights1, count1);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace aclnn_upsample
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace aclnn_upsample {
namespace kernels {

HWY_EXPORT(CombineRowsImpl);
HWY_EXPORT(CombineRowsToImpl);
HWY_EXPORT(CombineRowsFromImpl);
HWY_EXPORT(CombineRowPairFromImpl);

void CombineRows(float* dst, size_t n, const float* src, ptrdiff_t src_stride, const float* weights,
                 size_t count, ResultStores stores) {
  HWY_DYNAMIC_DISPATCH(CombineRowsImpl)(dst, n, src, src_stride, weights, count, stores);
}

void CombineRowsTo(DType dtype, void* dst, size_t n, const float* src, ptrdiff_t src_stride,
                   const float* weights, size_t count, ResultStores stores) {
  HWY_DYNAMIC_DISPATCH(CombineRowsToImpl)(dtype, dst, n, src, src_stride, weights, count, stores);
}

void CombineRowsFrom(DType dtype, float* dst, size_t n, const void* src, ptrdiff_t src_stride,
                     const float* weights, size_t count) {
  HWY_DYNAMIC_DISPATCH(CombineRowsFromImpl)(dtype, dst, n, src, src_stride, weights, count);
}

void CombineRowPairFrom(DType dtype, float* dst0, float* dst1, size_t n, const void* src,
                        ptrdiff_t src_stride, const float* weights0, size_t count0, size_t shift1,
                        const float* weights1, size_t count1) {
  HWY_DYNAMIC_DISPATCH(CombineRowPairFromImpl)
  (dtype, dst0, dst1, n, src, src_stride, weights0, count0, shift1, weights1, count1);
}

}  // namespace kernels
}  // namespace aclnn_upsample
#endif  // HWY_ONCE
