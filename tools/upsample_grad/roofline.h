// The memory roofline the benchmarks divide by: what the memory of this machine moves at all, at
// a given thread count, measured in the same run as the cases. Shared by `upsample-grad bench`
// and bench/upsample_bench.cc, so that both print fractions of the same yardstick.
//
// A cached copy is not that yardstick: every line it writes is first read for ownership, so it
// moves three bytes per two it counts (on the project's AMD VM memcpy measured 22.7 GB/s where a
// streaming copy measured 43-46), and whether memcpy streams depends on the C library and its
// size thresholds. The copy here stores with non-temporal (streaming) stores, which write whole
// lines without reading them, over several streams per thread (one sequential stream per core
// falls short of what the memory can do), and counts the bytes read and written, as the
// operators' GB/s does. Read-only and write-only rates come with it, since a case that reads
// much more than it writes (the backward of an upscale) or the opposite is bounded by those
// rather than by the copy alone.
#ifndef UPSAMPLE_GRAD_ROOFLINE_H_
#define UPSAMPLE_GRAD_ROOFLINE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace upsample_grad {

enum class RooflineTraffic {
  kStreamingCopy,  // load + streaming store; read + write bytes counted
  kRead,           // sum of the buffer; its bytes counted once
  kWrite,          // streaming stores of a constant; its bytes counted once
};

// The memory of a shared VM swings by a third and more within seconds, so the benchmarks divide
// each case by the streaming copy measured just before and just after it: the mean of the medians
// of this many passes on either side.
inline constexpr int kRooflinePassesAroundACase = 3;

// Medians, in GB/s (1e9 bytes per second).
struct RooflineRates {
  double copy = 0;
  double read = 0;
  double write = 0;
};

// False where this build has no streaming stores (not x86-64): the rates then come from ordinary
// stores and understate the peak, which the benchmarks say in their header.
bool RooflineStoresStream();

// Two buffers of `bytes` each (well beyond the last-level cache, so that memory and not a cache
// is measured), each split across `threads` threads, which first-touch their own share.
class RooflineProbe {
 public:
  RooflineProbe(size_t bytes, int threads);
  ~RooflineProbe();
  RooflineProbe(const RooflineProbe&) = delete;
  RooflineProbe& operator=(const RooflineProbe&) = delete;

  // One parallel pass; returns its wall time in seconds.
  double Run(RooflineTraffic traffic);
  // The bytes one pass of `traffic` moves.
  int64_t Bytes(RooflineTraffic traffic) const;
  // The median rate of `repetitions` passes of `traffic`, in GB/s.
  double Rate(RooflineTraffic traffic, int repetitions);
  // The median of `repetitions` passes of each kind, interleaved (copy, read, write, copy, ...)
  // so that a burst of other work on a shared machine hits the three alike. The median, not the
  // best: the cases report medians too, and a fraction of a lucky outlier would be too low.
  RooflineRates Measure(int repetitions);

  size_t buffer_bytes() const { return bytes_; }
  int threads() const { return threads_; }

 private:
  struct AlignedFree {
    void operator()(float* data) const;
  };

  size_t bytes_;
  int threads_;
  std::unique_ptr<float[], AlignedFree> source_;
  std::unique_ptr<float[], AlignedFree> destination_allocation_;
  float* destination_;  // bytes_ of it, inside destination_allocation_ (roofline.cc says where)
};

// "streaming copy X GB/s (read + write), read Y GB/s, write Z GB/s (256 MiB buffers, median of 7,
// 2 threads)", the same words in every benchmark's header.
std::string DescribeRoofline(const RooflineRates& rates, const RooflineProbe& probe,
                             int repetitions);

}  // namespace upsample_grad

#endif  // UPSAMPLE_GRAD_ROOFLINE_H_
