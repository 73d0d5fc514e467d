// The H pass: a result row is a weighted sum of whole source rows, vectorised along the row, read
// in any dtype or written in any dtype.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/combine_rows.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/combine-inl.h"
#include "kernels/kernels.h"
#include "kernels/source_prefetch.h"

HWY_BEFORE_NAMESPACE();
namespace aclnn_upsample {
namespace kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

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

// Whether a 16-bit result row's whole vectors are streamed: where asked and the row starts on a
// vector, since streamed stores need every 16-bit vector aligned (the row's partial last one is
// stored normally).
HWY_INLINE bool StreamsRoundedRow(const void* dst, ResultStores stores) {
  const hn::ScalableTag<float> d;
  return stores == ResultStores::kStreamed &&
         reinterpret_cast<uintptr_t>(dst) % (hn::Lanes(d) * sizeof(uint16_t)) == 0;
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
    Combine<DType::kFloat32>(
        RoundingSink<kResult>{static_cast<uint16_t*>(dst), StreamsRoundedRow(dst, stores)}, n, src,
        src_stride, weights, count);
  }
}

// Result row i's run: its first source row, its weights and their count (a row with no run reads
// nothing).
struct RowRun {
  const float* rows;
  const float* weights;
  size_t count;
};

HWY_INLINE RowRun RunOf(const RowRuns& runs, size_t i, const float* src, ptrdiff_t src_stride,
                        size_t src_row0) {
  const auto count = static_cast<size_t>(runs.count(i));
  const float* const rows =
      count > 0 ? src + (static_cast<ptrdiff_t>(runs.first[i]) - static_cast<ptrdiff_t>(src_row0)) *
                            src_stride
                : src;
  return RowRun{rows, runs.weights_of(i), count};
}

// Result rows of a band that follow each other in memory (dst_stride == n), streamed through a
// line-aligned staging buffer in L1 when a row is not a whole number of cache lines: each row is
// combined into the buffer at its line offset, every whole line then goes out with streaming
// stores, and the partial line left at the end moves to the buffer's front for the next row to
// complete. Only the band's first and last partial lines are stored cached. Streaming each row's
// own whole lines (CombineRowsImpl) stores two lines per row cached next to streamed ones; with
// the staging buffer a 64 -> 127 forward ran in 0.73-0.77 of the time in fp32 and 0.64-0.74 in
// bf16 (whose rows streamed only where they started on a vector), 0.69 in fp16; 255-wide rows
// 0.85-1.00 (fp32) and 0.71-0.77 (bf16), 511-wide bf16 rows 0.79-0.85 (AVX2, 2 threads, medians
// of 4 solo runs, two runs). Wider rows gain nothing: 511-wide fp32 rows ran 1.27x slower staged
// (line split: 1 line in 16 cached), 1001-wide 1.18x (fp32) and 0.97 (bf16). Hence the limit.
template <DType kResult>
bool CanStageBand(size_t n, ptrdiff_t dst_stride, const void* dst, ResultStores stores) {
  using Storage = typename DTypeTraits<kResult>::Storage;
  const hn::ScalableTag<uint32_t> du;
  const size_t row_bytes = n * sizeof(Storage);
  return stores == ResultStores::kStreamed && dst_stride == static_cast<ptrdiff_t>(n) &&
         row_bytes % kCacheLineBytes != 0 && row_bytes <= kMaxStagedRowBytes &&
         kCacheLineBytes % (hn::Lanes(du) * sizeof(uint32_t)) == 0 &&
         reinterpret_cast<uintptr_t>(dst) % sizeof(Storage) == 0;
}

template <DType kResult>
void CombineBandStaged(const RowRuns& runs, size_t row_begin, size_t row_end,
                       const float* HWY_RESTRICT src, ptrdiff_t src_stride, size_t src_row0,
                       size_t n, void* HWY_RESTRICT dst) {
  using Storage = typename DTypeTraits<kResult>::Storage;
  constexpr size_t kLineElements = kCacheLineBytes / sizeof(Storage);
  // A partial line, a row, and room to move the row's last partial line as a whole line.
  alignas(kCacheLineBytes)
      Storage staging[kMaxStagedRowBytes / sizeof(Storage) + 2 * kLineElements];
  const hn::ScalableTag<uint32_t> du;
  const size_t lanes = hn::Lanes(du);
  // staging[k] is line[k] for k < held; the first `skip` elements of the band's first line are
  // not the band's (dst is aligned to its elements: CanStageBand).
  size_t skip = reinterpret_cast<uintptr_t>(dst) % kCacheLineBytes / sizeof(Storage);
  Storage* line = static_cast<Storage*>(dst) - skip;
  size_t held = skip;
  for (size_t i = row_begin; i < row_end; ++i) {
    const RowRun run = RunOf(runs, i, src, src_stride, src_row0);
    CombineRowTo<kResult>(staging + held, n, run.rows, src_stride, run.weights, run.count,
                          ResultStores::kCached);
    held += n;
    const size_t whole = held / kLineElements * kLineElements;
    if (whole == 0) continue;
    size_t k = 0;
    if (skip > 0) {  // partly another band's: cached
      std::copy(staging + skip, staging + kLineElements, line + skip);
      k = kLineElements;
      skip = 0;
    }
    for (; k < whole; k += lanes * sizeof(uint32_t) / sizeof(Storage)) {
      hn::Stream(hn::Load(du, reinterpret_cast<const uint32_t*>(staging + k)), du,
                 reinterpret_cast<uint32_t*>(line + k));
    }
    // The partial line left goes to the front as a whole line: a fixed-size copy, where one of
    // its length was a memmove call.
    std::memcpy(staging, staging + whole, kCacheLineBytes);
    line += whole;
    held -= whole;
  }
  std::copy(staging + skip, staging + held, line + skip);
}

#if HWY_TARGET != HWY_SCALAR  // one lane: Combine's four accumulators keep more FMAs in flight
// Result rows `first` and `second` (runs of the same count, the second's starting 0 or 1 rows
// after the first's) combined together where both take whole vectors into sinks of one kind
// (TryCombineRowPair); false, with nothing written, where they do not. Float32 rows stream only
// where every line of the row is whole (else CombineRowsImpl splits it); 16-bit rows are stored
// as CombineRowTo stores them.
template <DType kResult>
HWY_INLINE bool CombineRowPair(const RowRun& first, const RowRun& second, ptrdiff_t src_stride,
                               size_t n, typename DTypeTraits<kResult>::Storage* row0,
                               typename DTypeTraits<kResult>::Storage* row1, ResultStores stores) {
  const ptrdiff_t apart = second.rows - first.rows;
  if (first.count != second.count || (apart != 0 && apart != src_stride)) return false;
  const auto pair = [&](const auto& sink0, const auto& sink1) {
    return TryCombineRowPair<DType::kFloat32>(sink0, sink1, n, first.rows, src_stride,
                                              first.weights, second.weights, first.count,
                                              apart == 0 ? 0 : 1);
  };
  if constexpr (kResult == DType::kFloat32) {
    if (stores == ResultStores::kCached) return pair(RowSink<1>{row0, 0}, RowSink<1>{row1, 0});
    const size_t lanes = hn::Lanes(hn::ScalableTag<float>());
    const auto whole_lines = [&](const float* row) {
      const LineSplit split = SplitAtLines(row, n, lanes);
      return split.head == 0 && split.body == n;
    };
    if (!whole_lines(row0) || !whole_lines(row1)) return false;
    return pair(StreamingSink{row0}, StreamingSink{row1});
  } else {
    return pair(RoundingSink<kResult>{row0, StreamsRoundedRow(row0, stores)},
                RoundingSink<kResult>{row1, StreamsRoundedRow(row1, stores)});
  }
}
#endif

template <DType kResult>
void CombineRowRunsOf(const RowRuns& runs, size_t row_begin, size_t row_end,
                      const float* HWY_RESTRICT src, ptrdiff_t src_stride, size_t src_row0,
                      size_t n, void* HWY_RESTRICT dst, ptrdiff_t dst_stride, ResultStores stores) {
  using Storage = typename DTypeTraits<kResult>::Storage;
  if (CanStageBand<kResult>(n, dst_stride, dst, stores)) {
    CombineBandStaged<kResult>(runs, row_begin, row_end, src, src_stride, src_row0, n, dst);
    return;
  }
  const auto row_at = [&](size_t i) {
    return static_cast<Storage*>(dst) + static_cast<ptrdiff_t>(i - row_begin) * dst_stride;
  };
  for (size_t i = row_begin; i < row_end; ++i) {
    const RowRun run = RunOf(runs, i, src, src_stride, src_row0);
#if HWY_TARGET != HWY_SCALAR
    if (i + 1 < row_end) {
      const RowRun next = RunOf(runs, i + 1, src, src_stride, src_row0);
      // Where the next two rows read the same rows (a 2x upsample's 2i + 1 and 2i + 2), this
      // row goes alone so that they pair, rather than this one with the next a row apart.
      const bool next_pairs_closer = [&] {
        if (next.rows == run.rows || i + 2 >= row_end) return false;
        const RowRun after = RunOf(runs, i + 2, src, src_stride, src_row0);
        return after.rows == next.rows && after.count == next.count;
      }();
      if (!next_pairs_closer &&
          CombineRowPair<kResult>(run, next, src_stride, n, row_at(i), row_at(i + 1), stores)) {
        ++i;
        continue;
      }
    }
#endif
    CombineRowTo<kResult>(row_at(i), n, run.rows, src_stride, run.weights, run.count, stores);
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

// Whether CombineRowGroupOf combines result rows i and i + 1 of a chunk together where their
// runs have the same count (more than 4) and overlap (TryCombineManyTapPair: each source row of
// the union loaded, and converted, once per column block for both sums). On the Zen 4 VM (session
// 49, in-process, both orders, 2 threads), paired over alone, channels-last 4x bicubic AA
// forwards (8 RGB, 8 RGBA, 2 x 16 channels of 512 x 512) on AVX-512: float16 1.16-1.36x faster,
// bfloat16 1.17-1.26x, float32 1.07-1.10x (case 27); 2x: float16 1.13x, bfloat16 1.06x, float32
// 0.99; 256 -> 224 and the 4x bilinear AA (8 taps) in float32 1.00. AVX2: float32 1.10-1.12x (2x
// 1.01), bfloat16 1.02-1.10x, float16 0.99-1.06x. SSE4 (16 registers of 4 lanes): float16
// 1.24-1.29x (converted in software: no F16C), but float32 0.91-0.94x and bfloat16 0.83-0.96x, so
// there only float16 pairs. The portable target (EMU128), which runs only when pinned, does not
// pair, as in CombineGroupAs (gather_rows.cc), where its float16 pair cost clang minutes to
// compile.
template <DType kType>
inline constexpr bool kPairsRowGroupRuns = HWY_TARGET != HWY_EMU128 &&
                                           (!(HWY_ARCH_X86 && HWY_TARGET >= HWY_SSE4) ||
                                            kType == DType::kFloat16);

template <DType kType>
void CombineRowGroupOf(const RowRuns& runs, size_t row_begin, size_t row_end, const void* src,
                       ptrdiff_t src_stride, int64_t src_row0, size_t n, float* HWY_RESTRICT dst,
                       ptrdiff_t dst_stride, size_t next_row_end) {
  using Storage = typename DTypeTraits<kType>::Storage;
  // Every element's sum is its own chain of operations in tap order, so the chunks change no
  // bits; each chunk starts a whole number of vectors into its row, keeping the row's alignment.
  constexpr size_t kChunk = kRowChunkBytes / sizeof(Storage);
  // While a chunk is combined, the group's new rows are prefetched over the next chunk's
  // columns, and during the last chunk the next group's new rows over the first chunk's
  // (KernelTuning::prefetch_row_group_chunks says why, PrefetchesRowGroupChunks where,
  // RowGroupAhead which rows).
  const ptrdiff_t row_bytes = src_stride * static_cast<ptrdiff_t>(sizeof(Storage));
  RowGroupAhead group_ahead, next_group_ahead;
  const bool prefetches = PrefetchesRowGroupChunks(row_bytes);
  if (prefetches) {
    const bool skips = RunsSkipRows(runs, row_begin, std::max(row_end, next_row_end));
    group_ahead = RowGroupAhead(runs, row_begin, row_end, -1, skips);
    if (next_row_end > row_end) {
      next_group_ahead = RowGroupAhead(runs, row_end, next_row_end, group_ahead.last_row(), skips);
    }
  }
  const size_t group = row_end - row_begin;
  for (size_t column = 0; column < n; column += kChunk) {
    const size_t columns = std::min(kChunk, n - column);
    const bool last_chunk = column + kChunk >= n;
    const RowGroupAhead& ahead = last_chunk ? next_group_ahead : group_ahead;
    const size_t ahead_column = last_chunk ? 0 : column + kChunk;
    const size_t ahead_bytes = std::min(kChunk, n - ahead_column) * sizeof(Storage);
    // Row `first` of the source at the ahead column.
    const auto ahead_at = [&](int64_t first) {
      return static_cast<const char*>(src) + (first - src_row0) * row_bytes +
             static_cast<ptrdiff_t>(ahead_column * sizeof(Storage));
    };
    LinePrefetchQueue queue(row_bytes, ahead_bytes);
    for (size_t i = row_begin; i < row_end; ++i) {
      const auto count = static_cast<size_t>(runs.count(i));
      const float* const weights = runs.weights_of(i);
      const int64_t row = count > 0 ? runs.first[i] - src_row0 : 0;
      const Storage* const rows = static_cast<const Storage*>(src) + row * src_stride + column;
      float* const out = dst + static_cast<ptrdiff_t>(i - row_begin) * dst_stride + column;
      // Each result row of the chunk issues its share of the rows ahead: one stretch, spread
      // over its column blocks where it takes the many-tap form, else after it; the stretches
      // of runs that skip rows after it, one at a time. A row with no share (every row where
      // the tuning is off) combines as it did without the prefetch.
      const size_t r = i - row_begin;
      if (ahead.skips()) {
        CombineInto<kType>(out, columns, rows, src_stride, weights, count);
        ahead.ForShare(runs, r, group, [&](int64_t first, size_t stretch) {
          queue.Append(ahead_at(first), stretch);
          queue.IssueAll();
        });
        continue;
      }
      ahead.ForShare(runs, r, group, [&](int64_t first, size_t stretch) {
        queue.Append(ahead_at(first), stretch);
      });
      if (queue.PendingLines() == 0) {
#if HWY_TARGET != HWY_SCALAR
        // Pairs only where no row asks for rows ahead, so that a row's share is never skipped.
        if constexpr (kPairsRowGroupRuns<kType>) {
          const int64_t shift =
              !prefetches && count > 4 && i + 1 < row_end ? runs.OverlappingRunShift(i) : -1;
          if (shift >= 1 &&
              TryCombineManyTapPair<kType>(
                  RowSink<1>{out, 0}, RowSink<1>{out + dst_stride, 0}, columns, rows, src_stride,
                  weights, runs.weights_of(i + 1), count, static_cast<size_t>(shift), nullptr)) {
            ++i;
            continue;
          }
        }
#endif
        CombineInto<kType>(out, columns, rows, src_stride, weights, count);
        continue;
      }
      CombineInto<kType>(out, columns, rows, src_stride, weights, count, &queue);
      queue.IssueAll();
    }
  }
}

void CombineRowGroupFromImpl(const RowRuns& runs, size_t row_begin, size_t row_end, DType dtype,
                             const void* src, ptrdiff_t src_stride, int64_t src_row0, size_t n,
                             float* HWY_RESTRICT dst, ptrdiff_t dst_stride, size_t next_row_end) {
  switch (dtype) {
    case DType::kFloat32:
      return CombineRowGroupOf<DType::kFloat32>(runs, row_begin, row_end, src, src_stride, src_row0,
                                                n, dst, dst_stride, next_row_end);
    case DType::kFloat16:
      return CombineRowGroupOf<DType::kFloat16>(runs, row_begin, row_end, src, src_stride, src_row0,
                                                n, dst, dst_stride, next_row_end);
    case DType::kBFloat16:
      return CombineRowGroupOf<DType::kBFloat16>(runs, row_begin, row_end, src, src_stride,
                                                 src_row0, n, dst, dst_stride, next_row_end);
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
HWY_EXPORT(CombineRowGroupFromImpl);

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

void CombineRowGroupFrom(const RowRuns& runs, size_t row_begin, size_t row_end, DType dtype,
                         const void* src, ptrdiff_t src_stride, int64_t src_row0, size_t n,
                         float* dst, ptrdiff_t dst_stride, size_t next_row_end) {
  HWY_DYNAMIC_DISPATCH(CombineRowGroupFromImpl)
  (runs, row_begin, row_end, dtype, src, src_stride, src_row0, n, dst, dst_stride, next_row_end);
}

}  // namespace kernels
}  // namespace aclnn_upsample
#endif  // HWY_ONCE
