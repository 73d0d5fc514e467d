// The H pass (and both passes of channels-last tensors): a result row is a weighted sum of
// whole source rows, vectorised along the row.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/combine_rows.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/dtype_vectors-inl.h"
#include "kernels/kernels.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_upsample {
namespace kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Source rows of any dtype are converted in registers (exactly), so 16-bit gradients need no
// float copy in scratch first.
template <DType kType>
HWY_INLINE void Combine(float* HWY_RESTRICT dst, size_t n, const void* HWY_RESTRICT source,
                        ptrdiff_t src_stride, const float* HWY_RESTRICT weights, size_t count) {
  using Storage = typename DTypeTraits<kType>::Storage;
  const Storage* src = static_cast<const Storage*>(source);
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  if (count == 0) {
    for (size_t j = 0; j < n; ++j) dst[j] = 0.0f;
    return;
  }
  size_t j = 0;
  // Four independent accumulators hide the FMA latency.
  for (; j + 4 * lanes <= n; j += 4 * lanes) {
    const Storage* row = src + j;
    const auto w0 = hn::Set(d, weights[0]);
    auto acc0 = hn::Mul(w0, LoadAs<kType>(d, row));
    auto acc1 = hn::Mul(w0, LoadAs<kType>(d, row + lanes));
    auto acc2 = hn::Mul(w0, LoadAs<kType>(d, row + 2 * lanes));
    auto acc3 = hn::Mul(w0, LoadAs<kType>(d, row + 3 * lanes));
    for (size_t k = 1; k < count; ++k) {
      row += src_stride;
      const auto w = hn::Set(d, weights[k]);
      acc0 = hn::MulAdd(w, LoadAs<kType>(d, row), acc0);
      acc1 = hn::MulAdd(w, LoadAs<kType>(d, row + lanes), acc1);
      acc2 = hn::MulAdd(w, LoadAs<kType>(d, row + 2 * lanes), acc2);
      acc3 = hn::MulAdd(w, LoadAs<kType>(d, row + 3 * lanes), acc3);
    }
    hn::StoreU(acc0, d, dst + j);
    hn::StoreU(acc1, d, dst + j + lanes);
    hn::StoreU(acc2, d, dst + j + 2 * lanes);
    hn::StoreU(acc3, d, dst + j + 3 * lanes);
  }
  for (; j + lanes <= n; j += lanes) {
    const Storage* row = src + j;
    auto acc = hn::Mul(hn::Set(d, weights[0]), LoadAs<kType>(d, row));
    for (size_t k = 1; k < count; ++k) {
      row += src_stride;
      acc = hn::MulAdd(hn::Set(d, weights[k]), LoadAs<kType>(d, row), acc);
    }
    hn::StoreU(acc, d, dst + j);
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
    hn::Store(acc, d, buffer);
    for (size_t t = 0; t < rest; ++t) dst[j + t] = buffer[t];
  }
}

void CombineRowsImpl(float* HWY_RESTRICT dst, size_t n, const float* HWY_RESTRICT src,
                     ptrdiff_t src_stride, const float* HWY_RESTRICT weights, size_t count) {
  Combine<DType::kFloat32>(dst, n, src, src_stride, weights, count);
}

void CombineRowsFromImpl(DType dtype, float* HWY_RESTRICT dst, size_t n, const void* src,
                         ptrdiff_t src_stride, const float* HWY_RESTRICT weights, size_t count) {
  switch (dtype) {
    case DType::kFloat32:
      return Combine<DType::kFloat32>(dst, n, src, src_stride, weights, count);
    case DType::kFloat16:
      return Combine<DType::kFloat16>(dst, n, src, src_stride, weights, count);
    case DType::kBFloat16:
      return Combine<DType::kBFloat16>(dst, n, src, src_stride, weights, count);
  }
}

void CombinePixelRunsImpl(const GatherAxis& axis, size_t channels, const float* src,
                          ptrdiff_t src_pixel_stride, float* dst, ptrdiff_t dst_pixel_stride) {
  for (size_t i = 0; i < axis.length; ++i) {
    const int32_t begin = axis.offset[i];
    const int32_t count = axis.offset[i + 1] - begin;
    const float* first = count > 0 ? src + axis.first[i] * src_pixel_stride : src;
    Combine<DType::kFloat32>(dst + static_cast<ptrdiff_t>(i) * dst_pixel_stride, channels, first,
                             src_pixel_stride, axis.weights + begin, static_cast<size_t>(count));
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
HWY_EXPORT(CombineRowsFromImpl);
HWY_EXPORT(CombinePixelRunsImpl);

void CombineRows(float* dst, size_t n, const float* src, ptrdiff_t src_stride, const float* weights,
                 size_t count) {
  HWY_DYNAMIC_DISPATCH(CombineRowsImpl)(dst, n, src, src_stride, weights, count);
}

void CombineRowsFrom(DType dtype, float* dst, size_t n, const void* src, ptrdiff_t src_stride,
                     const float* weights, size_t count) {
  HWY_DYNAMIC_DISPATCH(CombineRowsFromImpl)(dtype, dst, n, src, src_stride, weights, count);
}

void CombinePixelRuns(const GatherAxis& axis, size_t channels, const float* src,
                      ptrdiff_t src_pixel_stride, float* dst, ptrdiff_t dst_pixel_stride) {
  HWY_DYNAMIC_DISPATCH(CombinePixelRunsImpl)
  (axis, channels, src, src_pixel_stride, dst, dst_pixel_stride);
}

}  // namespace kernels
}  // namespace aclnn_upsample
#endif  // HWY_ONCE
