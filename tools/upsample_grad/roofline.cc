// The memory roofline: streaming copy, read-only and write-only rates (see roofline.h).
#include "roofline.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "median.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#define UPSAMPLE_GRAD_STREAMING_STORES 1
#else
#define UPSAMPLE_GRAD_STREAMING_STORES 0
#endif

namespace upsample_grad {
namespace {

constexpr size_t kLineFloats = 16;  // one 64-byte cache line; every share is whole lines
constexpr size_t kLineBytes = kLineFloats * sizeof(float);
constexpr size_t kAlignment = 4096;

// A sum nobody reads could be optimised away with the loads that feed it.
volatile uint32_t read_sink = 0;

// A core's memory bandwidth is bounded by the misses it keeps in flight (Little's law), and one
// sequential stream leaves the hardware prefetchers short of that bound: on the project's VM one
// stream read 14 GB/s on 2 threads, four 22-25 GB/s. So each thread walks kStreams parts of its
// share at once and prefetches a page ahead, as glibc's large memcpy does (it interleaves 4 pages).
constexpr size_t kStreams = 4;
constexpr size_t kPrefetchFloats = 4096 / sizeof(float);

// Calls `line(offset)` for every line of `floats` (whole lines), kStreams lines of kStreams parts
// at a time, then the lines that do not fill the parts.
//
// The parts are an odd number of lines long. Parts a power of two apart (a share of 2^k lines
// split in four) put the kStreams lines in flight, and the lines prefetched ahead of them, in the
// same cache sets: on an AMD EPYC (Zen 3) VM that copy ran at 8-15 GB/s, where odd parts ran at
// 32-37 and one stream at 35-40 (the Ice Lake VM never showed it).
template <typename Line>
void ForEachLineInStreams(size_t floats, const Line& line) {
  size_t part_lines = floats / kLineFloats / kStreams;
  if (part_lines % 2 == 0 && part_lines > 0) --part_lines;
  const size_t part = part_lines * kLineFloats;
  for (size_t i = 0; i < part; i += kLineFloats) {
    for (size_t stream = 0; stream < kStreams; ++stream) line(stream * part + i);
  }
  for (size_t i = kStreams * part; i < floats; i += kLineFloats) line(i);
}

#if UPSAMPLE_GRAD_STREAMING_STORES
// SSE2 intrinsics rather than a Highway-dispatched kernel: SSE2 is part of x86-64, so they need
// no run-time check, and they do not follow the library's SIMD pin (ACLNN_UPSAMPLE_SIMD=portable
// pins Highway's dispatch for the whole process, and the portable target's Stream is an ordinary
// store). 16-byte streaming stores fill the same write-combining buffers as 64-byte ones; on the
// project's AVX-512 VM, AVX-512 loads and stores measured within the noise (10 %) of these.

void CopyLines(const float* source, float* destination, size_t floats) {
  ForEachLineInStreams(floats, [=](size_t i) {
    _mm_prefetch(reinterpret_cast<const char*>(source + i + kPrefetchFloats), _MM_HINT_T0);
    const __m128 a = _mm_load_ps(source + i);
    const __m128 b = _mm_load_ps(source + i + 4);
    const __m128 c = _mm_load_ps(source + i + 8);
    const __m128 d = _mm_load_ps(source + i + 12);
    _mm_stream_ps(destination + i, a);
    _mm_stream_ps(destination + i + 4, b);
    _mm_stream_ps(destination + i + 8, c);
    _mm_stream_ps(destination + i + 12, d);
  });
  // Streaming stores are weakly ordered: drain them before the thread reports its share done.
  _mm_sfence();
}

// Integer adds have one cycle of latency, so the loop is bound by memory, not by a chain of adds.
uint32_t SumLines(const float* source, size_t floats) {
  __m128i sum = _mm_setzero_si128();
  ForEachLineInStreams(floats, [&](size_t i) {
    _mm_prefetch(reinterpret_cast<const char*>(source + i + kPrefetchFloats), _MM_HINT_T0);
    const __m128i a = _mm_castps_si128(_mm_load_ps(source + i));
    const __m128i b = _mm_castps_si128(_mm_load_ps(source + i + 4));
    const __m128i c = _mm_castps_si128(_mm_load_ps(source + i + 8));
    const __m128i d = _mm_castps_si128(_mm_load_ps(source + i + 12));
    sum = _mm_add_epi32(sum, _mm_add_epi32(_mm_add_epi32(a, b), _mm_add_epi32(c, d)));
  });
  uint32_t lanes[4];
  _mm_storeu_si128(reinterpret_cast<__m128i*>(lanes), sum);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}

void WriteLines(float* destination, size_t floats) {
  const __m128 value = _mm_set1_ps(1.0f);
  ForEachLineInStreams(floats, [=](size_t i) {
    _mm_stream_ps(destination + i, value);
    _mm_stream_ps(destination + i + 4, value);
    _mm_stream_ps(destination + i + 8, value);
    _mm_stream_ps(destination + i + 12, value);
  });
  _mm_sfence();
}

#else  // no streaming stores here: ordinary ones, and the header says so

void CopyLines(const float* source, float* destination, size_t floats) {
  std::memcpy(destination, source, floats * sizeof(float));
}

uint32_t SumLines(const float* source, size_t floats) {
  uint32_t sum = 0;
  for (size_t i = 0; i < floats; ++i) {
    uint32_t bits;
    std::memcpy(&bits, source + i, sizeof(bits));
    sum += bits;
  }
  return sum;
}

void WriteLines(float* destination, size_t floats) {
  std::fill(destination, destination + floats, 1.0f);
}

#endif

// Runs `work(first_float, floats)` for each thread's share of `floats` (whole lines) on `threads`
// threads, the calling one among them, and returns the wall time. Starting the threads costs tens
// of microseconds against the milliseconds a pass over a buffer beyond the cache takes.
template <typename Work>
double ParallelPass(size_t floats, int threads, const Work& work) {
  const size_t lines = floats / kLineFloats;
  const size_t lines_per_thread = (lines + threads - 1) / threads;
  auto share = [&](int t) {
    const size_t begin = std::min(lines, lines_per_thread * static_cast<size_t>(t));
    const size_t end = std::min(lines, begin + lines_per_thread);
    if (end > begin) work(begin * kLineFloats, (end - begin) * kLineFloats, t);
  };
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  workers.reserve(static_cast<size_t>(threads - 1));
  for (int t = 1; t < threads; ++t) workers.emplace_back(share, t);
  share(0);
  for (std::thread& worker : workers) worker.join();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Through aclrtMalloc with the policy the cases' tensors take (acl_runner.cc), so that the copy
// runs on the same kind of pages as the operators it is the yardstick for (huge pages where the
// kernel gives them: a copy on 4 KiB pages measured 13-18 % slower on the Zen 4 VM).
float* AllocateAligned(size_t bytes) {
  void* data = nullptr;
  if (aclrtMalloc(&data, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) throw std::bad_alloc();
  return static_cast<float*>(data);
}

// Where the destination's lines start in its allocation: half a page in, so that the line a copy
// stores and the line it loads next never share their address bits below the page (4K aliasing,
// which makes a load wait on an unrelated store). On the Zen 3 VM it raised the copy from 32-37 to
// 38-42 GB/s.
constexpr size_t kDestinationOffsetFloats = kAlignment / 2 / sizeof(float);

}  // namespace

bool RooflineStoresStream() { return UPSAMPLE_GRAD_STREAMING_STORES != 0; }

void RooflineProbe::AlignedFree::operator()(float* data) const { aclrtFree(data); }

RooflineProbe::RooflineProbe(size_t bytes, int threads)
    // Whole pages, so that every share is whole lines.
    : bytes_((std::max(bytes, kLineBytes) + kAlignment - 1) / kAlignment * kAlignment),
      threads_(std::max(1, threads)),
      source_(AllocateAligned(bytes_)),
      destination_allocation_(AllocateAligned(bytes_ + kAlignment)),
      destination_(destination_allocation_.get() + kDestinationOffsetFloats) {
  // Each thread first-touches the share it will stream, so that no timed pass measures page
  // faults, and on a NUMA machine the pages lie near the thread that uses them.
  ParallelPass(bytes_ / sizeof(float), threads_, [this](size_t first, size_t floats, int) {
    std::fill(source_.get() + first, source_.get() + first + floats, 1.0f);
    std::fill(destination_ + first, destination_ + first + floats, 0.0f);
  });
}

RooflineProbe::~RooflineProbe() = default;

double RooflineProbe::Run(RooflineTraffic traffic) {
  const size_t floats = bytes_ / sizeof(float);
  switch (traffic) {
    case RooflineTraffic::kStreamingCopy:
      return ParallelPass(floats, threads_, [this](size_t first, size_t count, int) {
        CopyLines(source_.get() + first, destination_ + first, count);
      });
    case RooflineTraffic::kRead: {
      std::vector<uint32_t> sums(static_cast<size_t>(threads_));
      const double seconds =
          ParallelPass(floats, threads_, [this, &sums](size_t first, size_t count, int t) {
            sums[static_cast<size_t>(t)] = SumLines(source_.get() + first, count);
          });
      uint32_t total = 0;
      for (uint32_t sum : sums) total += sum;
      read_sink = total;
      return seconds;
    }
    case RooflineTraffic::kWrite:
      return ParallelPass(floats, threads_, [this](size_t first, size_t count, int) {
        WriteLines(destination_ + first, count);
      });
  }
  return 0;
}

int64_t RooflineProbe::Bytes(RooflineTraffic traffic) const {
  const int64_t bytes = static_cast<int64_t>(bytes_);
  return traffic == RooflineTraffic::kStreamingCopy ? 2 * bytes : bytes;
}

double RooflineProbe::Rate(RooflineTraffic traffic, int repetitions) {
  std::vector<double> rates;
  for (int repetition = 0; repetition < std::max(1, repetitions); ++repetition) {
    rates.push_back(static_cast<double>(Bytes(traffic)) / Run(traffic) / 1e9);
  }
  return Median(rates);
}

RooflineRates RooflineProbe::Measure(int repetitions) {
  constexpr RooflineTraffic kKinds[] = {RooflineTraffic::kStreamingCopy, RooflineTraffic::kRead,
                                        RooflineTraffic::kWrite};
  std::vector<double> rates[3];
  for (int repetition = 0; repetition < std::max(1, repetitions); ++repetition) {
    for (int kind = 0; kind < 3; ++kind) {
      const double seconds = Run(kKinds[kind]);
      rates[kind].push_back(static_cast<double>(Bytes(kKinds[kind])) / seconds / 1e9);
    }
  }
  return {Median(rates[0]), Median(rates[1]), Median(rates[2])};
}

std::string DescribeRoofline(const RooflineRates& rates, const RooflineProbe& probe,
                             int repetitions) {
  char text[320];
  std::snprintf(text, sizeof(text),
                "streaming copy %.2f GB/s (read + write), read %.2f GB/s, write %.2f GB/s (%zu MiB "
                "buffers, median of %d, %d threads%s)",
                rates.copy, rates.read, rates.write, probe.buffer_bytes() >> 20, repetitions,
                probe.threads(),
                RooflineStoresStream() ? "" : "; ordinary stores: this CPU has no streaming ones");
  return text;
}

}  // namespace upsample_grad
