// The H pass: a result row is a weighted sum of whole source rows, vectorised along the row, read
// in any dtype or written in any dtype.
#include <algorithm>
#include <cstddef>
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

void CombineRowsImpl(float* HWY_RESTRICT dst, size_t n, const float* HWY_RESTRICT src,
                     ptrdiff_t src_stride, const float* HWY_RESTRICT weights, size_t count,
                     ResultStores stores) {
  const hn::ScalableTag<float> d;
  const LineSplit split =
      stores == ResultStores::kStreamed ? SplitAtLines(dst, n, hn::Lanes(d)) : LineSplit{};
  if (split.body == 0) {
    CombineInto<DType::kFloat32>(dst, n, src, src_stride, weights, count);
    return;
  }
  if (split.head > 0) {
    CombineInto<DType::kFloat32>(dst, split.head, src, src_stride, weights, count);
  }
  Combine<DType::kFloat32>(StreamingSink{dst + split.head}, split.body, src + split.head,
                           src_stride, weights, count);
  const size_t tail = split.head + split.body;
  if (tail < n) {
    CombineInto<DType::kFloat32>(dst + tail, n - tail, src + tail, src_stride, weights, count);
  }
}

// One result row of kResult: float32 rows go through CombineRowsImpl, 16-bit rows are rounded in
// registers.
template <DType kResult>
HWY_INLINE void CombineRowTo(void* HWY_RESTRICT dst, size_t n, const float* HWY_RESTRICT src,
                             ptrdiff_t src_stride, const float* HWY_RESTRICT weights, size_t count,
                             ResultStores stores) {
  if constexpr (kResult == DType::kFloat32) {
    CombineRowsImpl(static_cast<float*>(dst), n, src, src_stride, weights, count, stores);
  } else {
    // Streamed stores need every 16-bit vector aligned; the row's partial last one is stored
    // normally.
    const hn::ScalableTag<float> d;
    const bool stream = stores == ResultStores::kStreamed &&
                        reinterpret_cast<uintptr_t>(dst) % (hn::Lanes(d) * sizeof(uint16_t)) == 0;
    Combine<DType::kFloat32>(RoundingSink<kResult>{static_cast<uint16_t*>(dst), stream}, n, src,
                             src_stride, weights, count);
  }
}

template <DType kResult>
void CombineRowRunsOf(const RowRuns& runs, size_t row_begin, size_t row_end,
                      const float* HWY_RESTRICT src, ptrdiff_t src_stride, size_t src_row0,
                      size_t n, void* HWY_RESTRICT dst, ptrdiff_t dst_stride, ResultStores stores) {
  using Storage = typename DTypeTraits<kResult>::Storage;
  for (size_t i = row_begin; i < row_end; ++i) {
    const int32_t begin = runs.weight_offset[i];
    const auto count = static_cast<size_t>(runs.weight_offset[i + 1] - begin);
    const float* const rows =
        count > 0
            ? src + (static_cast<ptrdiff_t>(runs.first[i]) - static_cast<ptrdiff_t>(src_row0)) *
                        src_stride
            : src;
    Storage* const row =
        static_cast<Storage*>(dst) + static_cast<ptrdiff_t>(i - row_begin) * dst_stride;
    CombineRowTo<kResult>(row, n, rows, src_stride, runs.weights + begin, count, stores);
  }
}

void CombineRowRunsToImpl(const RowRuns& runs, size_t row_begin, size_t row_end,
                          const float* HWY_RESTRICT src, ptrdiff_t src_stride, size_t src_row0,
                          size_t n, DType dtype, void* HWY_RESTRICT dst, ptrdiff_t dst_stride,
                          ResultStores stores) {
  switch (dtype) {
    case DType::kFloat32:
      return CombineRowRunsOf<DType::kFloat32>(runs, row_begin, row_end, src, src_stride, src_row0,
                                               n, dst, dst_stride, stores);
    case DType::kFloat16:
      return CombineRowRunsOf<DType::kFloat16>(runs, row_begin, row_end, src, src_stride, src_row0,
                                               n, dst, dst_stride, stores);
    case DType::kBFloat16:
      return CombineRowRunsOf<DType::kBFloat16>(runs, row_begin, row_end, src, src_stride, src_row0,
                                                n, dst, dst_stride, stores);
  }
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
HWY_EXPORT(CombineRowRunsToImpl);
HWY_EXPORT(CombineRowsFromImpl);
HWY_EXPORT(CombineRowPairFromImpl);

void CombineRows(float* dst, size_t n, const float* src, ptrdiff_t src_stride, const float* weights,
                 size_t count, ResultStores stores) {
  HWY_DYNAMIC_DISPATCH(CombineRowsImpl)(dst, n, src, src_stride, weights, count, stores);
}

void CombineRowRunsTo(const RowRuns& runs, size_t row_begin, size_t row_end, const float* src,
                      ptrdiff_t src_stride, size_t src_row0, size_t n, DType dtype, void* dst,
                      ptrdiff_t dst_stride, ResultStores stores) {
  HWY_DYNAMIC_DISPATCH(CombineRowRunsToImpl)
  (runs, row_begin, row_end, src, src_stride, src_row0, n, dtype, dst, dst_stride, stores);
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
