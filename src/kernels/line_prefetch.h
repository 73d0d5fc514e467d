// Source lines the H pass has yet to prefetch, issued a few at a time between its column blocks.
#ifndef ACLNN_UPSAMPLE_KERNELS_LINE_PREFETCH_H_
#define ACLNN_UPSAMPLE_KERNELS_LINE_PREFETCH_H_

#include <cassert>
#include <cstddef>
#include <cstdint>

#include "hwy/cache_control.h"

namespace aclnn_upsample {
namespace kernels {

// A queue of consecutive source rows (each `span` bytes used, `stride` bytes apart) whose lines
// are still to be prefetched. A result row of a downscale begins several new source rows (4 for
// 4x), and prefetching all their lines when the row begins stalled the core on the full miss
// queues: on the Zen 3 VM a 512 -> 128 bicubic AA forward had 16 % of its samples on that loop,
// with the memory idle while the row's arithmetic ran. Issued a few lines per column block,
// across the row's arithmetic, the same lines arrive in the same time with the core running.
class LinePrefetchQueue {
 public:
  static constexpr size_t kLineBytes = 64;

  LinePrefetchQueue(ptrdiff_t stride, size_t span) : stride_(stride), span_(span) {}

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
      hwy::Prefetch(next_row_ + offset_);
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

  void IssueAll() {
    for (; rows_ > 0; --rows_, next_row_ += stride_, offset_ = 0) {
      for (size_t b = offset_; b < span_; b += kLineBytes) hwy::Prefetch(next_row_ + b);
    }
  }

 private:
  const ptrdiff_t stride_;
  const size_t span_;
  const char* next_row_ = nullptr;
  size_t rows_ = 0;
  size_t offset_ = 0;  // bytes of next_row_ already issued
};

}  // namespace kernels
}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_KERNELS_LINE_PREFETCH_H_
