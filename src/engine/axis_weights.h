// The 1-D resampling matrix of one axis, in the two forms the library needs.
//
// An operator's weight builder fills a ForwardAxis: for each forward output index o, the taps
// of the forward interpolation (first input index and weights), computed in float64. The engine
// only ever gathers, so Transpose() turns it into a AxisRuns: for each input index i, the
// contiguous run of output indices o whose forward taps include i, with A[o, i] rounded once to
// float32. Every tap the formula enumerates is kept, even one of weight 0, so that a NaN or Inf
// in gradOut reaches exactly the elements the forward formula ties it to.
#ifndef ACLNN_UPSAMPLE_ENGINE_AXIS_WEIGHTS_H_
#define ACLNN_UPSAMPLE_ENGINE_AXIS_WEIGHTS_H_

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace aclnn_upsample {

// What a weight builder needs to know about one axis.
struct AxisSpec {
  int64_t in_size = 0;   // forward input length
  int64_t out_size = 0;  // forward output length
  bool align_corners = false;
  double scale = 0.0;  // the caller's scales value for this axis (0: not given)
};

struct ForwardAxis {
  int64_t in_size = 0;
  int64_t out_size = 0;
  std::vector<int64_t> first;  // per output o: first input index of its taps
  // per output o: its taps are weights[weight_offset[o] .. weight_offset[o + 1])
  std::vector<int64_t> weight_offset;
  std::vector<double> weights;  // concatenated taps; taps at one index are summed by Transpose

  void AddRow(int64_t first_input, const double* taps, int64_t count);
};

struct AxisRuns {
  int32_t result_size = 0;     // indices of the result along this axis (one run each)
  int32_t source_size = 0;     // indices of the source the runs read
  bool identity = false;       // A is the identity: the pass along this axis is skipped
  int32_t max_count = 0;       // largest run length, for workspace sizing
  std::vector<int32_t> first;  // per result index i: first source index of its run
  // per result index i: its run's weights are weights[weight_offset[i] .. weight_offset[i + 1])
  std::vector<int32_t> weight_offset;
  std::vector<float> weights;  // run i's weight k multiplies source index first[i] + k

  int32_t count(int64_t i) const { return weight_offset[i + 1] - weight_offset[i]; }
};

// The two ways one 1-D matrix A (ForwardAxis) is run, both as gather runs per result index:
// Transpose gives A^T (a backward operator: each forward input index gathers the outputs whose
// taps include it); AsGather gives A itself (a forward operator: each forward output index
// gathers its own taps). Both round every entry of A once to float32 after summing the taps that
// land on one index in float64, so a forward and a backward call of the same axis apply exactly
// transposed float matrices.
AxisRuns Transpose(const ForwardAxis& forward);
AxisRuns AsGather(const ForwardAxis& forward);

// Storage for the arrays the W kernels load whole vectors from: aligned to a cache line (and
// an AVX-512 vector), so that no vector load splits a line. From malloc's 16-byte alignment
// every 64-byte load of blocked weights stored 32 bytes past a line split it (the 32-byte AVX2
// loads of the same array never did), and AVX-512 ran behind AVX2 on those plans.
template <class T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlignment{64};
  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}  // NOLINT: implicit, as allocators are
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlignment)); }
  void deallocate(T* p, size_t) { ::operator delete(p, kAlignment); }
  template <class U>
  bool operator==(const CacheLineAllocator<U>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const CacheLineAllocator<U>&) const {
    return false;
  }
};
template <class T>
using VectorData = std::vector<T, CacheLineAllocator<T>>;

// The same matrix cut into blocks of `lanes` consecutive input indices, each with one dense
// window of output indices and lane-interleaved weights (zero where an index is outside a
// run), for the vectorised W pass (kernels::GatherAxis describes the layout).
struct BlockedAxis {
  int32_t lanes = 0;  // 0: not blocked (too costly or too large); the exact runs are used
  std::vector<int32_t> window_begin;  // per block
  std::vector<int32_t> block_offset;  // per block, into weights; window = difference / lanes
  // Aligned to a cache line, with every block's offset a multiple of lanes: every vector of
  // weights lies in whole lines.
  VectorData<float> weights;
  int64_t window_steps = 0;  // sum of window lengths: vector steps per row
};

// Blocks `axis` for `lanes`-wide vectors, or returns lanes == 0 when dense windows would cost
// more vector steps than the exact runs take scalar steps, or would exceed `max_floats`.
BlockedAxis BlockAxis(const AxisRuns& axis, int32_t lanes, size_t max_floats);

// The runs laid out by tap for the gathered W form (kernels::GatherAxis::gathered_taps):
// weights[k * result_size + i] is run i's k-th weight, 0 where k is past its count.
struct TapTable {
  int32_t taps = 0;  // 0: none (the exact runs are used)
  VectorData<float> weights;
};

// The tap table of `axis`, or taps == 0 where a run has more than `max_taps` taps, no run has
// any, or the table would exceed `max_floats`.
TapTable MakeTapTable(const AxisRuns& axis, int32_t max_taps, size_t max_floats);

// The widest range of input indices whose runs are one shared set of weights shifted by a
// constant stride (first[i] = stride * i + shift): the interior of an integer upsampling
// factor. The W pass then vectorises over i with de-interleaved loads.
struct UniformInterior {
  int32_t stride = 0;  // 1..4; 0: none found
  int32_t begin = 0, end = 0;
  int32_t shift = 0;
  std::vector<float> weights;
};

// The shortest uniform W interior a planar plan keeps, in elements: one vector of the target.
// Two vectors (the earlier rule) left 16-lane AVX-512 without the form on 32-wide rows (interior
// 30), which then fell back to blocked windows and ran 20 % slower than AVX2 on 32x32 planes;
// with one vector both targets keep it and ran alike (bench/RESULTS.md).
inline int32_t MinUniformInteriorLength(size_t lanes) { return static_cast<int32_t>(lanes); }

// Finds the uniform interior around the middle of the axis, if it spans at least `min_length`
// indices with a stride of at most `max_stride` (and at most 4) and at most `max_taps` taps
// (the forms the kernels carry).
UniformInterior FindUniformInterior(const AxisRuns& axis, int32_t min_length, int32_t max_stride,
                                    int32_t max_taps);

// Where runs repeat with a period of `period` input indices, shifted by `shift` output indices
// per period: the interior of a rational resampling ratio such as 256/224 = 8/7 (period 8 in a
// backward pass, 7 in the forward one), or downsampling by 2. A vector of `lanes` consecutive
// input indices from `begin` has one of `patterns` lane patterns, fixed by where it starts
// within the period: one pattern where the period divides the lanes, else one per start a
// multiple of gcd(period, lanes) (7 for 7 on 16 lanes). Pattern t's lane l's tap k is output
// index base + index[(t * taps + k) * lanes + l] with weight weights[(t * taps + k) * lanes + l],
// for taps k below counts[t * lanes + l] (0 past a lane's run). Vector 0 has pattern 0 and base
// `base`; a vector of pattern t is followed by one of pattern next_pattern[t] whose base is
// base_step[t] further on. A vector reads `span` output indices from its base, at most two
// vectors' worth.
struct PeriodicInterior {
  int32_t lanes = 0;  // 0: none found
  int32_t period = 0, shift = 0;
  int32_t begin = 0, vectors = 0;
  int32_t patterns = 0;
  // Where the interior runs `overhang` elements (less than `lanes`) past the whole vectors, one
  // more vector ends there, overlapping the last whole one: its elements start `overhang` after
  // the last whole vector's, with pattern overhang_pattern and base overhang_base (an output
  // index). Without it, up to lanes - 1 elements of each row went to the scalar exact gather:
  // 15 of 128 on AVX-512 (8/7 and 2x ratios), twice AVX2's 7, and AVX-512 ran behind AVX2 on
  // those cases.
  int32_t overhang = 0, overhang_pattern = 0, overhang_base = 0;
  int32_t base = 0;
  int32_t taps = 0, span = 0;
  std::vector<int32_t> next_pattern;  // per pattern
  std::vector<int32_t> base_step;     // per pattern
  VectorData<int32_t> counts;         // patterns x lanes
  VectorData<int32_t> index;          // patterns x taps x lanes
  VectorData<float> weights;          // patterns x taps x lanes (0 past a lane's run)
};

// The longest period FindPeriodicInterior looks for, and the most lane patterns it keeps:
// every pattern's tables are loaded per vector, so their size (patterns x taps x lanes x 8
// bytes: 4.4 KiB for the forward 8/7 bicubic AA axis on AVX-512, 7 patterns of 5 taps) must
// stay well inside L1.
inline constexpr int32_t kMaxPeriod = 16;
inline constexpr int32_t kMaxPeriodicPatterns = 24;

// How far a periodic vector's taps may lie from its base: within `loads` vectors of columns
// (at most what the kernels carry: kernels::PeriodicLoads), and within two where a run has more
// than `wide_taps` taps (plans take the CPU's KernelTuning::wide_periodic_taps). The default is
// two vectors for every run.
struct PeriodicReach {
  int32_t loads = 2;
  int32_t wide_taps = 0;

  bool Allows(int32_t span, int32_t taps, int32_t lanes) const {
    const int32_t limit = taps <= wide_taps ? loads : 2;
    return int64_t{span} <= int64_t{limit} * lanes;
  }
};

// Finds the periodic interior around the middle of the axis for `lanes`-wide vectors (a power
// of two, else none), with a period of at most kMaxPeriod, at most `max_taps` taps per run and
// at least `min_vectors` whole vectors; the period with the most vectors wins. With `channels`
// > 1 the interior is one of rows of pixels of that many interleaved channels (channels-last
// RGB rows): element e = i * channels + c is channel c of index i, its taps are `channels`
// elements apart, and every field (period, shift, begin, base, index, span, overhang) counts
// elements, so the kernels run it as they run a planar interior.
PeriodicInterior FindPeriodicInterior(const AxisRuns& axis, int32_t lanes, int32_t max_taps,
                                      int32_t min_vectors, int32_t channels = 1,
                                      PeriodicReach reach = {});

// The periodic form's tables for a row whose runs do not repeat (odd sizes such as 64 -> 127):
// every vector of the interior (the indices around the middle with at most `max_taps` taps) is a
// pattern of its own, vector t followed by vector t + 1, and an overhanging last vector one more.
// None (lanes == 0) where a vector has no tap in any lane, its taps reach further than `reach`
// allows, fewer than `min_vectors` fit, or the tables (patterns x taps x lanes x 8 bytes) would
// exceed `max_table_bytes`. With `channels` > 1 the row is one of pixels of that many interleaved
// channels, every field counting elements, as FindPeriodicInterior counts them.
PeriodicInterior FindRowTableInterior(const AxisRuns& axis, int32_t lanes, int32_t max_taps,
                                      int32_t min_vectors, size_t max_table_bytes,
                                      PeriodicReach reach = {}, int32_t channels = 1);

// Sum of run lengths: the matrix's number of taps.
int64_t TapCount(const AxisRuns& axis);

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_ENGINE_AXIS_WEIGHTS_H_
