// Software prefetch of the source rows an H pass reads next: which rows, how far ahead, and
// whether they are issued at once or spread over the H pass's column blocks. Target-independent.
#ifndef ACLNN_UPSAMPLE_KERNELS_SOURCE_PREFETCH_H_
#define ACLNN_UPSAMPLE_KERNELS_SOURCE_PREFETCH_H_

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>

#include "hwy/cache_control.h"
#include "kernels/kernels.h"

namespace aclnn_upsample {
namespace kernels {

// Combine's many-tap form (combine-inl.h) takes runs of at least kManyTaps rows spanning at
// least kManyTapsMinSpanBytes.
inline constexpr size_t kManyTaps = 16;
inline constexpr size_t kManyTapsMinSpanBytes = 16 * 1024;

// Whether Combine takes the many-tap form for a run of `count` rows of `element_bytes` elements,
// `src_stride` elements apart: count * |src_stride| * element_bytes >= kManyTapsMinSpanBytes,
// compared by a division, since a view's stride may be any ptrdiff_t (the API fuzzer passed
// 2^62) and the product would overflow.
inline bool UseManyTapForm(size_t count, ptrdiff_t src_stride, size_t element_bytes) {
  if (count < kManyTaps) return false;
  const size_t stride = src_stride < 0 ? size_t{0} - static_cast<size_t>(src_stride)
                                       : static_cast<size_t>(src_stride);
  const size_t run_element_bytes = count * element_bytes;
  return stride >= (kManyTapsMinSpanBytes + run_element_bytes - 1) / run_element_bytes;
}

// One line a kernel will read, asked for ahead: into L1, or into L2 where the CPU's tuning says
// so (KernelTuning). No fault for any address.
inline void PrefetchSourceLine(const void* at, bool into_l2) {
  if (into_l2) {
    __builtin_prefetch(at, /*rw=*/0, /*locality=*/2);  // prefetcht1 on x86
  } else {
    hwy::Prefetch(at);
  }
}

// A queue of consecutive source rows (each `span` bytes used, `stride` bytes apart) whose lines
// are still to be prefetched (also the blocked W form's next rows, gather_rows.cc). A result row
// of a downscale begins several new source rows (4 for 4x), and prefetching all their lines when
// the row begins stalled the core on the full miss queues: on the Zen 3 VM a 512 -> 128 bicubic
// AA forward had 16 % of its samples on that loop, with the memory idle while the row's
// arithmetic ran. Issued a few lines per column block instead, the misses overlap the
// arithmetic: that case ran in 0.77-0.80 of its time, a 16-tap gradient 0.83-0.92
// (bench/RESULTS.md, session 16).
class LinePrefetchQueue {
 public:
  static constexpr size_t kLineBytes = kCacheLineBytes;

  LinePrefetchQueue(ptrdiff_t stride, size_t span)
      : stride_(stride), span_(span), into_l2_(TuningForCpu().into_l2) {}

  void set_into_l2(bool into_l2) { into_l2_ = into_l2; }

  // Drops the queued rows.
  void Clear() {
    rows_ = 0;
    offset_ = 0;
  }

  // Queues `rows` rows from `row`, which continues the queued rows (if any).
  void Append(const char* row, size_t rows) {
    if (rows == 0) return;
    if (rows_ == 0) {
      next_row_ = row;
      offset_ = 0;
    }
    assert(rows_ == 0 || row == next_row_ + static_cast<ptrdiff_t>(rows_) * stride_);
    rows_ += rows;
  }

  size_t PendingLines() const {
    const size_t lines_per_row = (span_ + kLineBytes - 1) / kLineBytes;
    return rows_ * lines_per_row - offset_ / kLineBytes;
  }

  // How many lines to issue per block for the queue to empty over `blocks` blocks.
  size_t QuotaFor(size_t blocks) const {
    const size_t pending = PendingLines();
    return blocks == 0 ? pending : (pending + blocks - 1) / blocks;
  }

  // Prefetches the next `lines` queued lines (fewer if fewer are queued).
  void Issue(size_t lines) {
    for (; lines > 0 && rows_ > 0; --lines) {
      PrefetchSourceLine(next_row_ + offset_, into_l2_);
      offset_ += kLineBytes;
      if (offset_ >= span_) {
        offset_ = 0;
        next_row_ += stride_;
        --rows_;
      }
    }
  }

  // The next line Issue prefetches, or null when none is queued.
  const char* NextLine() const { return rows_ > 0 ? next_row_ + offset_ : nullptr; }

  // The loop runs on locals: on the members, each prefetch took five more instructions to load
  // and store them (GCC 12 cannot keep them in registers across the prefetch), 10 % of the
  // instructions of a bfloat16 2x backward's H pass.
  void IssueAll() {
    const char* row = next_row_;
    size_t begin = offset_;
    const bool into_l2 = into_l2_;
    for (size_t r = rows_; r > 0; --r, row += stride_, begin = 0) {
      for (size_t b = begin; b < span_; b += kLineBytes) PrefetchSourceLine(row + b, into_l2);
    }
    Clear();
  }

 private:
  const ptrdiff_t stride_;
  const size_t span_;
  bool into_l2_;
  const char* next_row_ = nullptr;
  size_t rows_ = 0;
  size_t offset_ = 0;  // bytes of next_row_ already issued
};

// The last source row result row i's run reads; -1 where it has no taps.
inline int64_t LastRowRead(const RowRuns& runs, size_t i) {
  const int32_t count = runs.count(i);
  return count > 0 ? int64_t{runs.first[i]} + count - 1 : -1;
}

// The source rows result rows [begin, end) read that result row begin - 1 does not: rows
// [first, last], none where last < first. Consecutive result rows' runs move forward, so these
// are the rows the group is the first to read, which come from memory.
struct NewSourceRows {
  int64_t first = 0, last = -1;
  int64_t count() const { return last >= first ? last - first + 1 : 0; }
};

inline NewSourceRows NewSourceRowsOf(const RowRuns& runs, size_t begin, size_t end) {
  NewSourceRows rows;
  int64_t lowest = INT64_MAX;
  for (size_t i = begin; i < end; ++i) {
    if (runs.count(i) > 0) {
      lowest = std::min<int64_t>(lowest, runs.first[i]);
      rows.last = std::max(rows.last, LastRowRead(runs, i));
    }
  }
  rows.first = std::max(lowest, begin > 0 ? LastRowRead(runs, begin - 1) + 1 : int64_t{0});
  return rows;
}

// Whether the runs of result rows [begin, end) leave source rows between them that none reads
// (runs are monotone): downscales by more than their taps (a bilinear 1024 -> 256 reads 2 of
// every 4 rows).
inline bool RunsSkipRows(const RowRuns& runs, size_t begin, size_t end) {
  int64_t read_through = -1;  // the last row the runs so far read (none yet)
  for (size_t i = begin; i < end; ++i) {
    const int64_t last = LastRowRead(runs, i);
    if (last < 0) continue;
    if (read_through >= 0 && runs.first[i] > read_through + 1) return true;
    read_through = std::max(read_through, last);
  }
  return false;
}

// Software prefetch of the source rows a little ahead of the H pass, a row at a time. Planar
// rows are short (a few hundred bytes), so the H pass reads several rows at once
// within a small window, a pattern the hardware prefetchers follow poorly: a plain H pass over
// 128-column planes streamed at about 12 GB/s on one core of the development VM, and at
// 16-19 GB/s with rows prefetched 2-8 KiB ahead. Issuing a whole row group's rows at once
// instead gained nothing (the miss queues overflow), and in the library 1, 2 and 4 KiB ahead
// measured alike, 5-20 % faster than none on cases 1 and 2 (bench/RESULTS.md). A downscale
// reads several new rows per result row (4 for 4x), so the distance adds the rows one result
// row advances by: at 2 KiB alone, 4x bicubic AA forward (case 22) found 3 of every 4 new rows
// unfetched, and ran 20 % slower. Issued at once, the rows are asked for
// KernelTuning::at_once_bytes (at least a row) past the advance, spread
// KernelTuning::spread_bytes ahead: distances chosen for the CPU (kernels.h). Where the CPU's
// tuning says so (KernelTuning::prefetch_rows_at_once: on Intel), rows that would be issued at
// once are not asked for at all, unless they come from memory (SourceReads::kFromMemory, rows of
// at most kFromMemoryAtOnceMaxRowBytes: KernelTuning::from_memory_at_once_bytes ahead, into L2).
//
// Where the H pass takes Combine's many-tap form, the rows are queued instead (LinePrefetchQueue)
// and that form (or the bfloat16 form for rows split by phase, given as many taps) issues them a
// few lines per column block.
class SourcePrefetcher {
 public:
  SourcePrefetcher(const RowRuns& runs, size_t row_begin, size_t row_end, const void* src,
                   ptrdiff_t src_stride, size_t element_bytes, int64_t src_row0,
                   size_t row_elements, SourceReads reads = SourceReads::kFromCache)
      : src_(static_cast<const char*>(src)),
        row_bytes_(src_stride * static_cast<ptrdiff_t>(element_bytes)),
        src_row0_(src_row0),
        queue_(row_bytes_, row_elements * element_bytes),
        runs_(runs) {
    // The band's first and last source rows (nothing past the last is touched), the rows a
    // result row advances by on average, and whether any result row takes the many-tap form.
    size_t first_i = row_begin, last_i = row_end;
    while (first_i < row_end && runs.count(first_i) == 0) ++first_i;
    while (last_i > first_i && runs.count(last_i - 1) == 0) --last_i;
    if (first_i == row_end) return;  // no row reads the source
    cursor_ = first_i;
    end_i_ = last_i;
    --last_i;
    const int64_t first_row = runs.first[first_i];
    last_row_ = LastRowRead(runs, last_i);
    // UseManyTapForm only grows with the count: the band's longest run decides.
    int32_t longest = 0;
    for (size_t i = first_i; i <= last_i; ++i) longest = std::max(longest, runs.count(i));
    skips_rows_ = RunsSkipRows(runs, first_i, last_i + 1);
    spread_ = UseManyTapForm(static_cast<size_t>(longest), src_stride, element_bytes);
    // Rows from memory asked for at once where the tuning says so, into L2; spread rows as from
    // cache.
    if (!spread_) {
      from_memory_at_once_ = FromMemoryAtOnceBytes(reads, row_elements * element_bytes);
      if (from_memory_at_once_ > 0) queue_.set_into_l2(true);
    }
    silent_ = !spread_ && !TuningForCpu().prefetch_rows_at_once && from_memory_at_once_ == 0;
    if (silent_) return;
    const int64_t advance =
        last_i > first_i
            ? (runs.first[last_i] - first_row + static_cast<int64_t>(last_i - first_i) - 1) /
                  static_cast<int64_t>(last_i - first_i)
            : 0;
    // At most kMaxPrefetchBytes ahead when issued at once: prefetcht0 lands in L1, and 36 KiB
    // ahead (8x downscale, 4 KiB rows) evicted the rows in use (case 25, 19 % slower).
    const auto row_span = static_cast<int64_t>(row_elements * element_bytes);
    if (row_span > 0) {
      const KernelTuning& tuning = TuningForCpu();
      const auto bytes = static_cast<int64_t>(spread_                    ? tuning.spread_bytes
                                              : from_memory_at_once_ > 0 ? from_memory_at_once_
                                                                         : tuning.at_once_bytes);
      const int64_t rows = (bytes + row_span - 1) / row_span;  // at least one
      rows_ahead_ = std::min(rows + std::max<int64_t>(advance, 0),
                             std::max<int64_t>(1, kMaxPrefetchBytes / row_span));
    }
    // Spread, they may look a whole result row's advance and one row more ahead, past
    // kMaxPrefetchBytes: that limit is for prefetches issued at once, which evict the rows in use
    // from L1, where spread ones arrive as the row's sweeps move on.
    if (spread_) rows_ahead_ = std::max(rows_ahead_, advance + 1);
  }

  // Called before the H pass reads result row i's run (which must have taps), up to source row
  // `row`: prefetches the rows ahead of it, or, where the H pass spreads them, queues them and
  // returns the queue to pass to Combine. Where the band's runs skip rows (a bilinear downscale
  // by more than two: 1000 -> 224 reads 2 of every 4.5), only rows that a run reads are asked
  // for, and at least the next result row's: the distance in source rows, capped at
  // kMaxPrefetchBytes (two 4000-byte rows), had asked for just the skipped rows between two runs,
  // twice the bytes the pass reads and none of use. In-process on the Zen 4 VM (session 32 in
  // bench/RESULTS.md): 1000 -> 224 bilinear forward 1.11-1.49x faster, 64 planes of 200 -> 56
  // 1.13-1.25. Bands without gaps keep the rows in one stretch: walked run by run, the 2x
  // downscales' calls in cache ran 10-15 % slower.
  LinePrefetchQueue* Ahead(size_t i) {
    if (silent_) return nullptr;
    const int64_t row = LastRowRead(runs_, i);
    if (!spread_ && skips_rows_) {
      AheadOnRuns(i, row);
      return nullptr;
    }
    const int64_t target = std::min(last_row_, row + rows_ahead_);
    const int64_t first = std::max(done_ + 1, row + 1);
    // A run that reaches past the rows prefetched so far (a jump longer than the distance) reads
    // the rows still queued now: they are dropped, and the queue starts again after the run.
    const bool past_queued = first > done_ + 1;
    done_ = std::max(done_, target);
    if (past_queued) queue_.Clear();
    if (first <= target) {
      queue_.Append(src_ + (first - src_row0_) * row_bytes_,
                    static_cast<size_t>(target - first + 1));
    }
    if (!spread_) {
      queue_.IssueAll();
      return nullptr;
    }
    return &queue_;
  }

  // Rows asked for run by run so far (where the runs skip rows; for tests).
  int64_t issued_rows() const { return issued_rows_; }

 private:
  // The rows of runs from cursor_ on, within the distance or through run i + 1's, past `row` and
  // any already asked for, issued a run's stretch at a time. Runs are monotone (each starts and
  // ends no earlier than the one before), so rows that no run reads are passed over; were they
  // not, a row missed here is only a prefetch missed.
  void AheadOnRuns(size_t i, int64_t row) {
    int64_t target = row + rows_ahead_;
    if (i + 1 < end_i_ && runs_.count(i + 1) > 0) {
      target = std::max<int64_t>(target, LastRowRead(runs_, i + 1));
    }
    target = std::min(last_row_, target);
    int64_t next = std::max(done_ + 1, row + 1);
    while (next <= target) {
      while (cursor_ < end_i_ && LastRowRead(runs_, cursor_) < next) {  // -1 (no taps) < next
        ++cursor_;
      }
      if (cursor_ == end_i_ || runs_.first[cursor_] > target) break;
      const int64_t from = std::max<int64_t>(next, runs_.first[cursor_]);
      const int64_t to = std::min<int64_t>(target, LastRowRead(runs_, cursor_));
      queue_.Append(src_ + (from - src_row0_) * row_bytes_, static_cast<size_t>(to - from + 1));
      queue_.IssueAll();
      issued_rows_ += to - from + 1;
      next = to + 1;
    }
    done_ = std::max(done_, target);
  }

  // KernelTuning::from_memory_at_once_bytes where it applies to this pass, else 0.
  static size_t FromMemoryAtOnceBytes(SourceReads reads, size_t row_span) {
    return reads == SourceReads::kFromMemory && row_span <= kFromMemoryAtOnceMaxRowBytes
               ? TuningForCpu().from_memory_at_once_bytes
               : 0;
  }

  static constexpr int64_t kMaxPrefetchBytes = 8192;
  const char* src_;
  const ptrdiff_t row_bytes_;
  const int64_t src_row0_;
  size_t from_memory_at_once_ = 0;  // bytes ahead, into L2; 0: the CPU's tuning as from cache
  LinePrefetchQueue queue_;
  const RowRuns runs_;
  size_t cursor_ = 0, end_i_ = 0;  // the first run not yet passed, and past the band's last
  int64_t rows_ahead_ = 0;
  int64_t issued_rows_ = 0;
  int64_t last_row_ = -1;
  int64_t done_ = -1;
  bool spread_ = false;      // whether any run of the band takes the many-tap form
  bool silent_ = false;      // whether no row is asked for (none spread, none at once)
  bool skips_rows_ = false;  // whether rows between the band's first and last go unread
};

// Whether a row group's H pass (CombineRowGroupFrom) asks for its rows ahead, where the CPU's
// tuning does (KernelTuning::prefetch_row_group_chunks): only over rows more than a page
// apart. Rows of a page or less lie back to back in a few pages, a stream the hardware
// prefetchers follow (they track streams within a page), and the prefetches only cost issue
// slots and miss buffers: on the Zen 4 VM (session 42, in-process, prefetch off / on, time)
// channels-last RGB and RGBA 4x bicubic AA forwards of 3-4 KiB rows ran 0.91-0.95 (float32 RGB
// 256 -> 64, 340 -> 85, bfloat16 and float16 RGB 512 -> 128, bfloat16 RGBA), 2x AA ones
// 0.96-0.98; rows of 4.5 KiB and more 1.01-1.25 (bfloat16 RGB 768 -> 128 1.08, 1024 -> 256 1.17,
// 1024 -> 128 1.18; float32 RGB 500 -> 224 bilinear AA 1.08, 1024 -> 128 bicubic AA 1.25).
inline constexpr ptrdiff_t kPageBytes = 4096;
inline bool PrefetchesRowGroupChunks(ptrdiff_t row_stride_bytes) {
  const ptrdiff_t apart = row_stride_bytes < 0 ? -row_stride_bytes : row_stride_bytes;
  return TuningForCpu().prefetch_row_group_chunks && apart > kPageBytes;
}

// The source rows a row group's H pass (CombineRowGroupFrom) asks for ahead: the new rows of
// result rows [begin, end) past row `floor`, shared among the `group` result rows of the call
// that asks. Where the runs read every row in between, one stretch (NewSourceRowsOf) split
// evenly. Where they skip rows, that stretch held the unread rows too, twice the lines a 4x
// bilinear downscale reads, of no use: each share is then the new rows of its result rows'
// runs, the result rows split evenly, a stretch each. On the Zen 4 VM (session 41) channels-last
// RGB and RGBA 1024 -> 256 bilinear forwards had run 1.28-1.30x faster with no prefetch at all.
class RowGroupAhead {
 public:
  RowGroupAhead() = default;  // asks for nothing
  RowGroupAhead(const RowRuns& runs, size_t begin, size_t end, int64_t floor, bool skips)
      : begin_(begin),
        end_(end),
        floor_(floor),
        skips_(skips),
        stretch_(NewSourceRowsOf(runs, begin, end)) {
    stretch_.first = std::max(stretch_.first, floor + 1);
  }

  bool skips() const { return skips_; }

  // The last row the result rows read (-1 where none does).
  int64_t last_row() const { return stretch_.last; }

  // Calls fn(first_row, rows) for each stretch of consecutive rows that result row r of the
  // asking group's `group` asks for, in order.
  template <class Fn>
  void ForShare(const RowRuns& runs, size_t r, size_t group, Fn&& fn) const {
    if (!skips_) {
      const auto count = static_cast<size_t>(stretch_.count());
      const size_t share_begin = count * r / group, share_end = count * (r + 1) / group;
      if (share_end > share_begin) {
        fn(stretch_.first + static_cast<int64_t>(share_begin), share_end - share_begin);
      }
      return;
    }
    const size_t rows = end_ - begin_;
    int64_t floor = floor_;
    for (size_t j = begin_ + rows * r / group; j < begin_ + rows * (r + 1) / group; ++j) {
      NewSourceRows own = NewSourceRowsOf(runs, j, j + 1);
      own.first = std::max(own.first, floor + 1);
      if (own.count() == 0) continue;
      fn(own.first, static_cast<size_t>(own.count()));
      floor = own.last;
    }
  }

 private:
  size_t begin_ = 0, end_ = 0;
  int64_t floor_ = -1;
  bool skips_ = false;
  // The group's new rows past floor_ as one stretch (asked for where the runs skip none); its
  // last is the last row the group reads either way.
  NewSourceRows stretch_;
};

}  // namespace kernels
}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_KERNELS_SOURCE_PREFETCH_H_
