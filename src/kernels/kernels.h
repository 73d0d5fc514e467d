// The arithmetic of the two separable passes, one kernel family per file, vectorised with
// Highway and dispatched at run time to the best target the CPU supports (the portable targets
// are always built and tested):
//   combine_rows.cc  a row is a weighted sum of whole rows (the H pass)
//   gather_rows.cc   each element gathers a short run of its row (the planar W pass, and the
//                    planar H-first row group that feeds it)
//   gather_pixels.cc each pixel gathers a run of whole C-vectors (the channels-last W pass)
//   interleave.cc    pixels to and from planar rows: few-channel pixels (the interleaved W
//                    pass), groups of small planes (the plane-group layout)
//   convert.cc       float16 / bfloat16 / float32 rows to and from float32 scratch
//
// Determinism: an output element is computed by the same operations wherever it lies in a row
// and however rows are grouped, so results do not depend on how work is split into tasks.
#ifndef ACLNN_UPSAMPLE_KERNELS_KERNELS_H_
#define ACLNN_UPSAMPLE_KERNELS_KERNELS_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/dtype.h"

namespace aclnn_upsample {
namespace kernels {

// How a kernel writes its result. kStreamed asks for non-temporal stores, for results too big
// to be read back from cache: they skip the read-for-ownership of every line written. A kernel
// streams only where every vector it stores is aligned and whole, and stores normally
// otherwise; the values are the same either way. After streamed stores, and before the result
// is handed to another thread, call FlushStreamedStores.
enum class ResultStores { kCached, kStreamed };

// The cache line of every x86 and Arm server core this runs on: streamed stores pay where they
// write whole lines.
inline constexpr size_t kCacheLineBytes = 64;

// dst[j] = sum_{k < count} weights[k] * src[k * src_stride + j] for j < n, summed in k order.
// count == 0 writes zeros. kStreamed streams the whole cache lines inside the row (where the
// row holds one beside pieces of at least a vector at either end) and stores the rest cached.
void CombineRows(float* dst, size_t n, const float* src, ptrdiff_t src_stride, const float* weights,
                 size_t count, ResultStores stores = ResultStores::kCached);

// CombineRows over source rows of `dtype` (src_stride in elements), converted exactly in
// registers; the same bits as converting the rows to float first and calling CombineRows.
void CombineRowsFrom(DType dtype, float* dst, size_t n, const void* src, ptrdiff_t src_stride,
                     const float* weights, size_t count);

// Two CombineRowsFrom calls at once, for result rows whose runs overlap (consecutive rows of an
// H pass): dst0 from count0 rows at src with weights0, dst1 from count1 rows at src + shift1
// rows with weights1, where shift1 < count0 <= shift1 + count1. Each source row is loaded once
// for both; the bits are the two calls'.
void CombineRowPairFrom(DType dtype, float* dst0, float* dst1, size_t n, const void* src,
                        ptrdiff_t src_stride, const float* weights0, size_t count0, size_t shift1,
                        const float* weights1, size_t count1);

// The uniform interiors the W kernels carry compiled forms for (see GatherAxis); a plan keeps a
// uniform interior only within these, and otherwise uses the blocked form. Sixteen taps cover
// bicubic upsampling by 4.
inline constexpr int32_t kMaxUniformStride = 4;
inline constexpr int32_t kMaxUniformTaps = 16;
// The periodic interiors the W kernels carry: runs of up to 8 taps (bicubic AA at ratios near
// 1 has about 6) whose vector's taps lie within four vectors of columns from its base:
// downscales by 2 to about 3.9 (an image resized from 500 or 640 to 224: bilinear, bicubic and
// bilinear AA's runs of 5 and 6 taps; the gradients of upscales by as much), whose lanes
// otherwise took a gather per tap or the blocked form. Plans take runs of more than
// KernelTuning::wide_periodic_taps taps from two loads at most.
inline constexpr int32_t kMaxPeriodicTaps = 8;
inline constexpr int32_t kMaxPeriodicLoads = 4;

// The vectors of columns a periodic vector loads from its base for `span` columns, or 0 where
// the kernels carry no form for that span and tap count.
inline int32_t PeriodicLoads(int32_t span, int32_t taps, int32_t lanes) {
  if (span < 1 || taps < 1 || taps > kMaxPeriodicTaps || lanes < 1) return 0;
  const int32_t loads = (span + lanes - 1) / lanes;
  if (loads > kMaxPeriodicLoads) return 0;
  return loads;
}

// One axis of the W pass, as pointers into plan data.
//  - Exact runs: element i is sum_k weights[weight_offset[i] + k] * src[first[i] + k].
//  - Optionally the same matrix cut into blocks of `block_lanes` consecutive elements, each a
//    dense window of source columns: block b reads src[window_begin[b] + j] for
//    j < (block_offset[b+1] - block_offset[b]) / block_lanes, with lane weights
//    block_weights[block_offset[b] + j * block_lanes + lane] (0 outside an element's run).
//    One broadcast-FMA then serves a whole vector of elements.
//  - Optionally a uniform interior: for begin <= i < end, element i is
//    sum_{k < count} uniform_weights[k] * src[stride * i + uniform_shift + k] (the same runs,
//    written once), with stride 1 to kMaxUniformStride and at most kMaxUniformTaps taps.
//  - Optionally a periodic interior, for vectors of exactly periodic_lanes elements: vector m
//    covers elements periodic_begin + m * lanes + l (l < lanes, m < periodic_vectors) with one
//    of periodic_patterns lane patterns, reading source columns from its base. Vector 0 has
//    pattern 0 and base periodic_base; a vector of pattern t is followed by one of pattern
//    periodic_next_pattern[t] whose base is periodic_base_step[t] columns further. Pattern t's
//    lane l's tap k (k < periodic_counts[t * lanes + l]) is column
//    periodic_index[(t * taps + k) * lanes + l] from the base, with weight
//    periodic_weights[(t * taps + k) * lanes + l]. Taps and columns as PeriodicLoads allows
//    (periodic_span columns from the base, one to four vectors). With periodic_overhang > 0, one
//    more vector covers elements periodic_overhang after the last one's, with pattern
//    periodic_overhang_pattern and base periodic_overhang_base.
struct GatherAxis {
  size_t length = 0;         // elements per result row
  size_t source_length = 0;  // elements per source row
  const int32_t* first = nullptr;
  const int32_t* weight_offset = nullptr;
  const float* weights = nullptr;
  int32_t uniform_stride = 0;  // 0: no uniform interior
  int32_t uniform_begin = 0, uniform_end = 0;
  int32_t uniform_shift = 0, uniform_count = 0;
  const float* uniform_weights = nullptr;
  int32_t periodic_lanes = 0;  // 0: no periodic interior
  int32_t periodic_begin = 0, periodic_vectors = 0, periodic_patterns = 0;
  int32_t periodic_overhang = 0, periodic_overhang_pattern = 0, periodic_overhang_base = 0;
  int32_t periodic_base = 0;
  int32_t periodic_taps = 0, periodic_span = 0;
  const int32_t* periodic_next_pattern = nullptr;
  const int32_t* periodic_base_step = nullptr;
  const int32_t* periodic_counts = nullptr;
  const int32_t* periodic_index = nullptr;
  const float* periodic_weights = nullptr;
  // The gathered form: runs of at most gathered_taps taps, their weights by tap,
  // gathered_weights[k * length + i] (0 where k >= the run's count).
  int32_t gathered_taps = 0;  // 0: no gathered form
  const float* gathered_weights = nullptr;
  size_t block_lanes = 0;  // 0: no blocked form
  const int32_t* window_begin = nullptr;
  const int32_t* block_offset = nullptr;
  const float* block_weights = nullptr;
};

// The W pass of `rows` rows: dst row r = gather of src row r. With a uniform or periodic
// interior (for this target's lanes) every row takes it (bit-identical to the exact runs).
// Otherwise rows take the blocked form when it matches this target's lanes (or half of them on
// AVX-512), up to 8 rows at a time, and a row whose results there are not all finite is redone by
// the exact runs, so that a non-finite value reaches exactly the elements whose formula includes
// it; else the gathered form where the axis has one (one lane: none), else the exact runs.
void GatherRows(const GatherAxis& axis, size_t rows, const float* src, ptrdiff_t src_stride,
                float* dst, ptrdiff_t dst_stride);

// The W pass of `rows` rows of pixels of `channels` interleaved channels (channels-last RGB
// rows: element i * channels + c of a row is channel c of pixel i), where the axis's periodic
// interior indexes elements of such rows (FindPeriodicInterior with `channels`): its vectors
// run that form, whose taps pick one channel of consecutive pixels, and the elements outside it
// their exact runs, so that no row is deinterleaved into planes and back. `axis`'s lengths and
// runs count pixels. Bit-identical to Deinterleave, GatherRows over the exact runs and
// Interleave.
void GatherPixelRows(const GatherAxis& axis, size_t channels, size_t rows, const float* src,
                     ptrdiff_t src_stride, float* dst, ptrdiff_t dst_stride);

// The W pass of one row of `channels`-channel pixels (2 to 7) through one planar row per
// channel: the row is deinterleaved into `planar` (rows GroupRowFloats(axis.source_length)
// apart, split by column phase where the axis has a uniform interior of stride 2 or 4, so that
// its taps need no shuffles), each channel's row gathered into `gathered` (rows axis.length
// apart), and the results interleaved into dst (streamed as Interleave streams where `stores`
// says). Except where SplitsPixelPhases: then `planar` holds the row split by pixel phase (the
// pixels stride * m + p, still interleaved, in row p), every tap of the uniform interior is one
// load from there and its sums go straight into dst (the edges through `gathered` where
// streamed). The same bits as Deinterleave, GatherRows and Interleave either way.
void GatherThroughPlanarRows(const GatherAxis& axis, size_t channels, const float* pixels,
                             float* planar, float* gathered, float* dst,
                             ResultStores stores = ResultStores::kCached);

// GatherThroughPlanarRows into `dtype` (bfloat16 or float16) pixels at dst, StoreFromFloat's
// bits: where the row splits by pixel phase and this target rounds a vector in a few
// instructions, each vector of the interior is rounded as it is stored (the edges through `row`,
// axis.length * channels floats of scratch); elsewhere the row is gathered into `row` and
// converted from there. Cached stores.
void GatherThroughPlanarRowsRounded(const GatherAxis& axis, size_t channels, const float* pixels,
                                    float* planar, float* gathered, float* row, DType dtype,
                                    uint16_t* dst);

// Rows the planar passes hand from one to the other at once (the H-first pass's group of H-pass
// rows, the W-first pass's group of converted source rows for the blocked W form): the plan
// chooses between these (plan.cc, PlanarRowGroup).
inline constexpr size_t kMinRowGroup = 8;
inline constexpr size_t kMaxRowGroup = 32;

// Floats one H-pass row of `n` columns takes in CombineThenGatherRows's scratch, in whichever
// layout it chooses (natural, or split by a column phase of 2 or 4).
inline constexpr size_t GroupRowFloats(size_t n) { return (n + 3) / 4 * 4; }

// The H runs of a planar pass, as pointers into plan data: result row i combines source rows
// first[i] .. first[i] + count - 1 with weights[weight_offset[i] .. weight_offset[i + 1]).
struct RowRuns {
  const int32_t* first = nullptr;
  const int32_t* weight_offset = nullptr;
  const float* weights = nullptr;

  // Result row i's taps (0: the row has no run) and their weights.
  int32_t count(size_t i) const { return weight_offset[i + 1] - weight_offset[i]; }
  const float* weights_of(size_t i) const { return weights + weight_offset[i]; }

  // Where result rows i and i + 1 have runs of the same count (more than 0) and row i + 1's
  // starts within row i's: how many rows after (0 to count - 1); else -1. Such rows can be
  // combined as a pair, each source row of the two runs loaded once for both.
  int64_t OverlappingRunShift(size_t i) const {
    const int32_t taps = count(i);
    const int64_t shift = int64_t{first[i + 1]} - first[i];
    const bool pairs = taps > 0 && count(i + 1) == taps && shift >= 0 && shift < taps;
    return pairs ? shift : -1;
  }
};

// CombineRowsFrom for result rows [row_begin, row_end) at once: row i (n floats at dst +
// (i - row_begin) * dst_stride) from its run over source rows of `dtype` (source row o at src +
// (o - src_row0) * src_stride elements; a row with no run is zeros), the same bits as a
// CombineRowsFrom call per row. The rows are combined a chunk of kRowChunkBytes of source row at
// a time, every row of the group over one chunk before the next: consecutive result rows share
// most of their source rows, and over rows wider than a chunk those shared rows are still in L1
// when the next result row reads them, where a whole row per call had evicted them.
// `next_row_end` past row_end: the next group's rows [row_end, next_row_end), whose new source
// rows the last chunk prefetches (KernelTuning::prefetch_row_group_chunks).
void CombineRowGroupFrom(const RowRuns& runs, size_t row_begin, size_t row_end, DType dtype,
                         const void* src, ptrdiff_t src_stride, int64_t src_row0, size_t n,
                         float* dst, ptrdiff_t dst_stride, size_t next_row_end = 0);

// The source bytes of a row a CombineRowGroupFrom chunk reads: 256 float32 or 512 16-bit
// columns, multiples of every target's block of four vectors. 4x bicubic AA downscales (17 taps,
// groups of four rows) of channels-last RGB and 16-channel images ran 2-4 % faster at 256
// float32 columns than at 512 and alike at 128, and 13 % faster than whole rows (bfloat16: 4 %
// slower at 128 columns than at 512, alike at 256); 17 rows of 1 KiB leave room in a 32 KiB L1
// (Zen 3) for the next result row's reads (bench/RESULTS.md, session 23).
inline constexpr size_t kRowChunkBytes = 1024;

// The widest rows CombineRowRunsTo streams through its staging buffer (combine_rows.cc says why
// no wider).
inline constexpr size_t kMaxStagedRowBytes = 1024;

// The last H pass of result rows [row_begin, row_end), written in `dtype`, in one call (a call
// per row cost as much as the arithmetic of a 128-element row): row i (n elements at dst +
// (i - row_begin) * dst_stride elements) is CombineRows of its run over float rows, source row
// o at src + (o - src_row0) * src_stride (a row with no run is zeros), 16-bit sums rounded to
// nearest even in registers: the same bits as CombineRows into floats and StoreFromFloat.
// kStreamed streams float32 rows as CombineRows does, and the whole vectors of a 16-bit row that
// starts aligned to one (16-bit vectors of at least 128 bits); except that rows which follow each
// other in memory (dst_stride == n), of at most kMaxStagedRowBytes and not a whole number of
// cache lines, go through a staging buffer in L1 and stream every whole line of the band.
void CombineRowRunsTo(const RowRuns& runs, size_t row_begin, size_t row_end, const float* src,
                      ptrdiff_t src_stride, size_t src_row0, size_t n, DType dtype, void* dst,
                      ptrdiff_t dst_stride, ResultStores stores);

// Where a pass expects its source to come from: memory where the call moves more than the
// last-level cache holds (the plan decides), else cache. Prefetches may differ; bits do not.
enum class SourceReads { kFromCache, kFromMemory };

// Where CombineThenGatherRows puts result row i (of the band from row_begin): at dst +
// (i - row_begin) * dst_stride elements of `dtype`, its columns column_stride apart. Without
// `staging`, the W pass writes float32 rows of unit column stride there itself, cached. With it
// (group_rows rows of axis.length floats), each row group is gathered into staging and stored
// from there as StoreFromFloat stores it, in any dtype and column stride, the whole lines of
// contiguous rows streamed where `stores` says.
struct RowGroupResult {
  void* dst = nullptr;
  ptrdiff_t dst_stride = 0;
  ptrdiff_t column_stride = 1;
  DType dtype = DType::kFloat32;
  float* staging = nullptr;
  ResultStores stores = ResultStores::kCached;
};

// The planar H-first pass over result rows [row_begin, row_end), `group_rows` rows at a time: row
// i is the H pass of its run over source rows of `dtype` (source row o at src + (o - src_row0)
// * src_stride elements) followed by the W pass over `axis`, written to `result`. `scratch`
// holds group_rows * GroupRowFloats(axis.source_length) floats. The same bits as CombineRowsFrom
// into rows, GatherRows over them and StoreFromFloat; where the W pass has a uniform interior of
// stride 2 or 4 the H pass stores its rows split by column phase, so the W pass needs no
// shuffles.
void CombineThenGatherRows(const RowRuns& runs, size_t row_begin, size_t row_end, size_t group_rows,
                           DType dtype, const void* src, ptrdiff_t src_stride, int64_t src_row0,
                           SourceReads reads, const GatherAxis& axis, float* scratch,
                           const RowGroupResult& result);

// The W pass of a channels-last row (gather_pixels.cc): pixel i of dst (channels floats at dst +
// i * dst_pixel_stride) = sum_k weights[weight_offset[i] + k] * pixel first[i] + k of src, whole
// C-vectors at a time.
void GatherPixels(const GatherAxis& axis, size_t channels, const float* src,
                  ptrdiff_t src_pixel_stride, float* dst, ptrdiff_t dst_pixel_stride,
                  ResultStores stores = ResultStores::kCached);

// GatherPixels into a 16-bit `dtype` (bfloat16 or float16): each result vector rounded as it is
// stored, the bits of GatherPixels into floats and StoreFromFloat, without the float row and the
// second pass over it (channels-last bfloat16 and float16 2x gradients of 16-128 channels ran
// 1.09-1.19x faster on AVX-512). Cached stores. For the pixels where RoundsPixelsInRegisters:
// where this target rounds a vector of their form by more than a few instructions
// (gather_pixels.cc, RoundsCheaply), the float row and StoreFromFloat cost less.
bool RoundsPixelsInRegisters(DType dtype, size_t channels);
void GatherPixelsRounded(const GatherAxis& axis, size_t channels, const float* src,
                         ptrdiff_t src_pixel_stride, DType dtype, uint16_t* dst,
                         ptrdiff_t dst_pixel_stride);

// GatherPixels over `rows` rows (row r at src + r * src_row_stride, into dst + r * dst_row_stride),
// cached stores, the same bits. Pixels of one or two whole vectors go a result pixel at a time
// down all the rows, so that each pixel's run is looked up once for the band.
void GatherPixelBand(const GatherAxis& axis, size_t channels, size_t rows, const float* src,
                     ptrdiff_t src_pixel_stride, ptrdiff_t src_row_stride, float* dst,
                     ptrdiff_t dst_pixel_stride, ptrdiff_t dst_row_stride);

// A row of pixels copied from another, bit for bit (gather_pixels.cc): result pixel i
// (pixel_bytes at dst + i * dst_pixel_stride bytes) is source pixel first[i] (at src + first[i] *
// src_pixel_stride bytes) where run i has one tap, and zero bytes where it has none
// (weight_offset as in GatherAxis; every run must have one tap or none). For axes whose runs are
// all a single tap of weight 1 or empty (nearest), whatever the dtype: no arithmetic, so every
// value, signalling NaNs included, arrives unchanged. `src` null: every pixel zero (a result row
// whose H run is empty). kStreamed streams where the pixels are whole vectors on their
// boundaries, or back to back and a half, quarter or eighth of a vector (packed), or multiples
// of 16 bytes back to back; other pixels are stored cached.
void CopyPixels(const int32_t* first, const int32_t* weight_offset, size_t length, const void* src,
                ptrdiff_t src_pixel_stride, void* dst, ptrdiff_t dst_pixel_stride,
                size_t pixel_bytes, ResultStores stores = ResultStores::kCached);

// Few-channel channels-last rows (kMinInterleavedChannels to kMaxInterleavedChannels channels,
// pixels back to back) to and from one planar row per channel (interleave.cc). Deinterleave:
// channel c of pixel i goes to dst[c * dst_stride + i], or with `phases` of 2 or 4 to column
// (i % phases) * phase_length + i / phases of that row (split by phase, as the planar H pass
// stores rows for a uniform W interior of that stride; phase_length >= ceil(pixels / phases)).
// Interleave: the reverse of the natural order, from rows src_stride floats apart into
// dst[i * channels + c], for 2 to 4 channels streamed where `stores` says and dst is on a vector
// boundary (every vector it stores then is; others, and the rest, are stored cached). Pure
// moves: no value changes.
inline constexpr size_t kMinInterleavedChannels = 2;
inline constexpr size_t kMaxInterleavedChannels = 7;
void Deinterleave(const float* src, size_t pixels, size_t channels, float* dst, size_t dst_stride,
                  int phases = 1, size_t phase_length = 0);
void Interleave(const float* src, size_t src_stride, size_t pixels, size_t channels, float* dst,
                ResultStores stores = ResultStores::kCached);

// A group of small planes to and from pixels of kPlaneGroup float channels (interleave.cc), so
// that many small planes run the channels-last passes. PlanesToPixels: dst[j * kPlaneGroup + p] =
// src[p * plane_stride + j] (elements of `dtype`, converted exactly) for j < n and p <
// kPlaneGroup, where planes p >= `planes` repeat plane 0 (every pixel whole, every value one of
// the input's). PixelsToPlanes: the reverse for p < `planes`, dst[p * plane_stride + j] =
// src[j * kPlaneGroup + p] rounded to `dtype` as StoreFromFloat rounds.
inline constexpr size_t kPlaneGroup = 16;
void PlanesToPixels(DType dtype, const void* src, ptrdiff_t plane_stride, size_t planes, size_t n,
                    float* dst);
void PixelsToPlanes(DType dtype, const float* src, size_t planes, size_t n, void* dst,
                    ptrdiff_t plane_stride, ResultStores stores = ResultStores::kCached);

// Orders this thread's streamed stores before its later stores (an sfence on x86), so a thread
// that synchronises with it afterwards sees the streamed values.
void FlushStreamedStores();

// Applies ACLNN_UPSAMPLE_SIMD once per process: "best" (or unset), "portable", or the lower-case
// Highway name of a compiled target the CPU supports ("avx2", "sse4", ...). It already ran when
// the library loaded; FloatLanes calls it again for every plan, which puts the pin back if a
// call to hwy::SupportedTargets() undid it.
void ApplySimdOverrideOnce();

// What ACLNN_UPSAMPLE_SIMD=`request` selects among the `compiled` targets (HWY_TARGETS) given the
// CPU's `supported` ones (hwy::SupportedTargets() before any pin).
struct SimdSelection {
  int64_t disabled = 0;  // for hwy::DisableTargets: every target better than the pinned one
  std::string ignored;   // why the request is ignored (one line), empty when it is honoured
};
SimdSelection SelectSimdTarget(const char* request, int64_t compiled, int64_t supported);

// Whether the AVX3 kernels round float32 to bfloat16 with AVX512_BF16's conversions
// (VCVTNE2PS2BF16, VCVTNEPS2BF16) instead of integer operations: set when the library loads, where
// the CPU has them and ACLNN_UPSAMPLE_SIMD pins no target (a pin names a Highway target, and
// Highway 1.0's AVX3 has no AVX512_BF16). The bits are the same: a vector holding a denormal,
// which the instructions flush to zero, is rounded the integer way. A relaxed atomic, so that the
// kernels read it with a plain load.
bool CpuHasBFloat16Conversions();
extern std::atomic<bool> native_bfloat16_rounding;
inline bool NativeBFloat16Rounding() {
  return native_bfloat16_rounding.load(std::memory_order_relaxed);
}
// For the kernel tests, which run the AVX3 kernels both ways: `enabled` where the CPU has the
// instructions, else off.
void SetNativeBFloat16RoundingForTest(bool enabled);

// Choices of the kernels that measured differently on different CPUs of the same target, made for
// the CPU when first asked: how source rows are prefetched ahead of their reads
// (source_prefetch.h) and how wide the many-tap H pass's vectors are (combine-inl.h). All measured
// on 2-core VMs; bench/RESULTS.md has the numbers.
struct KernelTuning {
  // How far past a result row's advance the rows prefetched at once are asked for: 8 KiB on
  // AMD, 512 bytes elsewhere. On the Intel AVX-512 VM, 2 KiB ahead of 256-byte bfloat16 rows (ten
  // rows with the advance) ran the 2x bilinear backwards (cases 5, 6) 1.09-1.15x and case 1 1.03x
  // slower than 512 bytes; rows of 1-2 KiB measured alike at one row and the advance and at the
  // 2 KiB, and 1.05-1.08x slower at two rows (cases 35, 36; session 23). On the Zen 4 VM, with the
  // lines asked for into L2, 512 bytes ran 2x backwards streamed from memory 1.15-1.26x slower than
  // 2 KiB, and 2 KiB 1.00-1.24x slower than 4 KiB; 8 KiB measured 0.97-1.10x of 4 KiB (session 28).
  // There again in session 41 (in-process, geometric mean of both orders), 8 KiB (the most
  // SourcePrefetcher's kMaxPrefetchBytes lets a row ask for) ran the float32 2x
  // backwards 1.03-1.08x faster than 4 KiB on AVX-512 (cases 1, 28, 30, 33) and cases 30 and
  // 33 1.04-1.05 on AVX2; the rest of the suite's cases measured 0.98-1.02.
  size_t at_once_bytes;
  // Whether the rows an H pass does not spread over its column blocks (runs of fewer than
  // kManyTaps taps) are prefetched at all: on AMD. On the Emerald Rapids VM (Intel, family 6
  // model 207, session 34) each prefetcht0 that missed held one of L1's fill buffers, and a row
  // group's rows asked for at once stalled the H pass: 80 % of its prefetch loop's samples sat
  // right after the prefetch, a third of a 500 -> 224 bilinear forward's. Without them (the
  // hardware prefetchers then follow the rows), in-process at 2 threads: 2x bilinear backwards
  // 1.06-1.10x faster in bfloat16 and float16 (cases 5, 6), 1.02-1.03 in float32 (1, 28), 2x
  // bicubic backward 1.08-1.13 (35), 128 -> 256 bicubic AA backward 1.05-1.10 (10), 256 -> 224
  // bicubic AA forward 1.03-1.09 (23), 500 -> 224 bilinear and bilinear AA forwards 1.07-1.13;
  // the rest of the suite 0.97-1.03, and AVX2 on the same CPU alike. On AMD's Zen 3 none at all
  // had run cases 1 and 26 1.08-1.10x slower (session 13); the Intel VMs before had not been
  // measured without them.
  bool prefetch_rows_at_once;
  // How far ahead the rows are asked for where a many-tap H pass spreads them over its column
  // blocks: 2 KiB (at 512 bytes the 4x bicubic AA forwards ran 1.04-1.05x slower, session 23).
  size_t spread_bytes;
  // Whether the lines are asked for into L2 (prefetcht1) rather than L1 (prefetcht0): on AMD.
  // On Zen 4 a prefetcht0 that misses holds one of L1's few miss buffers until its line arrives,
  // and the H passes that ask for whole rows ahead waited on them (a quarter of a bicubic
  // backward's samples sat on the prefetch loop). Into L2, calls streamed from memory ran
  // 1.08-1.43x faster (the suite's cases 1, 22, 25, 28, 30, 33, 35, 36, and the 2x, 8/7 and AA
  // shapes at four times their batch); calls whose data stayed in the 32 MiB L3 measured 0.94-1.0x
  // (cases 9, 18; session 28). The Intel VMs were tuned with prefetcht0, and so is Zen 5 (family
  // 26: AMD from it on): on the EPYC VM of session 55 (48 KiB L1D, 1 MiB L2, 32 MiB L3),
  // in-process at 2 threads, both orders, L1 against L2 ran cases 28, 30, 33 and 36 1.08-1.12x
  // faster, 1 and 25 1.05-1.06, 20 and 22 1.04-1.05 (26 0.97), and the same on AVX2 (1.03-1.12);
  // the rest of the suite 0.97-1.03.
  bool into_l2;
  // Whether the many-tap H pass (CombineManyTaps, the anti-aliased downscales by 4 and more)
  // runs in 256-bit vectors on AVX-512 targets: on AMD. Zen 4 splits a 512-bit FMA or load into
  // two 256-bit halves, so the wider vectors buy no throughput there, and the 8x bicubic AA
  // forward (case 25) ran 0.90-1.02x of its time with whole vectors (median 0.98, nineteen
  // in-process runs), and 0.90-0.94x of the AVX2 target's where whole vectors ran 0.96-1.04x of
  // it; the 4x one (case 22) and the bfloat16 one (26) measured 0.95-1.08x, median 1.00 (session
  // 29). The bits are the same either way. Not bfloat16 rows read as even and odd columns
  // (Combine, combine-inl.h), whose whole vectors load whole lines. Zen 5's EPYC parts run
  // 512-bit FMAs whole, and there (session 55, in-process, 2 threads, both orders) whole vectors
  // ran case 22 1.13-1.17x faster, case 3's 8x bilinear gradient 1.14, 27 1.02-1.06 (with
  // prefetcht0 too: 22 1.08, 3 1.08, 27 1.04); half vectors had left case 22 on AVX-512
  // 1.02-1.03x slower than AVX2. But with prefetcht0 the 8x AA forwards from memory ran 1-7 %
  // faster in halves (case 25 0.97, 8 images 0.93), so case 25 runs 1.03-1.07x AVX2's time on
  // Zen 5 (bench/RESULTS.md, session 55). Zen 5's mobile parts, whose FMAs are 256 bits wide,
  // were not measured.
  bool many_taps_in_half_vectors;
  // Whether the H pass that combines a group of result rows a column chunk at a time
  // (CombineRowGroupFrom: pixel rows of a few channels, and channels-last rows wider than L1
  // holds) over rows more than a page apart (PrefetchesRowGroupChunks, source_prefetch.h)
  // prefetches the rows the group reads first over the next chunk's columns while it
  // combines a chunk, and the next group's over the first chunk's during the last: on AMD. Each
  // chunk reads 1 KiB of each of its rows, too short a run for the hardware prefetchers to follow
  // from memory, so without it every new row's lines arrived on demand. On the Zen 4 VM (session
  // 30, in-process against none): channels-last RGB 512 -> 128 bicubic AA forward (case 27)
  // 1.11-1.16x faster in five runs, 1024 -> 128 1.13, RGB 512 -> 256 bilinear AA 1.11-1.31, 2x
  // bilinear downscale 1.14, bfloat16 RGBA 2x bilinear AA 1.14, 16 channels 4x bicubic
  // AA 1.02-1.06; the 2x upscales and cases 7, 13, 14 and 21, which take other H passes, 0.96-1.03.
  // A chunk further ahead measured 0.96-0.99 of one. On the Emerald Rapids VM (Intel, session 34)
  // it ran case 27 in 1.09x its time and channels-last RGB and 64-channel shapes in 0.97-1.01x,
  // so Intel keeps it off.
  bool prefetch_row_group_chunks;
  // Whether the planar W pass's blocked form (dense windows, GatherRows) may run in 256-bit
  // vectors on AVX-512 targets: on AMD, where a 512-bit FMA takes both 256-bit pipes, so a
  // block of 16 lanes costs twice a block of 8 while its window (the source columns its lanes
  // read) is barely shorter where a downscale's stride makes up most of it. The plan takes half
  // vectors only there (BlockedInHalfVectors, plan.cc). The bits are the same either way.
  bool blocked_in_half_vectors;
  // Runs of how many taps at most plans take from three or four loads of columns (the periodic
  // W form, up to kMaxPeriodicTaps): 8 on Intel and AMD alike. Between 5 and 8 they are the
  // bilinear AA downscales by 2 to 3 and the gradients of bilinear upscales by 2 to 3.5, which
  // otherwise take the blocked form. On the Emerald Rapids VM (session 34, AVX-512,
  // in-process): a bilinear AA 500 -> 224 forward 1.16-1.17x faster (channels-last 1.42-1.46),
  // 640x480 -> 224 1.17-1.20, the 224 -> 500 bilinear gradient 1.08-1.09 and the 100 -> 250 one
  // 1.35-1.42, in cache and from memory alike; no plan of the suite moved (case 36 read 0.95-1.04).
  // On the Zen 4 VM (session 33) the channels-last AA forward gained 1.17-1.19 and the 100 ->
  // 250 gradient 1.34-1.39, but the 224 -> 500 gradient lost (0.935-0.944), so AMD kept 4 until
  // session 41, when on the same VM kind (in-process, geometric mean of both orders) 8 ran the
  // AA 500 -> 224 forward 1.09-1.11x faster on AVX-512 (channels-last 1.29-1.31), the 100 -> 250
  // gradient 1.25-1.26, the 224 -> 500 one 1.03-1.05 (bfloat16 0.96-1.00); AVX2 0.98-1.04, and
  // the suite's cases rerun both ways 0.96-1.04 (noise).
  int32_t wide_periodic_taps;
  // The window (bytes) into which plane groups, H first, transpose the source rows each step
  // reads, just before the step (plan.cc, GroupSourceWindowRows): 21 KiB on Intel, none (0: the
  // whole group's source transposed first) on AMD. On the Emerald Rapids VM (48 KiB L1D, session
  // 36) the window kept the transposed rows in L1 for the H pass: 28 x 28 -> 14 x 14 bilinear
  // backwards 1.01-1.03x faster (float32, case 38) and 1.06-1.18 (bfloat16, 40), the bicubic AA
  // forwards 1.00-1.04 (43) and 1.05-1.07 (45). On the Zen 4 VM (32 KiB L1D, 1 MiB L2; session
  // 41, in-process, the geometric mean of both orders, since target_ab's side A read up to 1.1x
  // slower than B on the bfloat16 cases whatever its tuning) the window ran these cases 1.03-1.19x
  // slower on AVX-512 (case 40 0.96-1.12) and 1.07-1.09 on AVX2, a bfloat16 32 x 32 -> 16 x 16
  // bicubic AA forward 1.10-1.12; windows of 16 and 28 KiB lost as well: there the moves cost more
  // than the L2 reads they save.
  size_t group_source_window_bytes;
  // How far ahead (bytes) the planar H-first pass asks for its source rows at once, into L2,
  // where they come from memory (SourceReads::kFromMemory) and a row is at most
  // kFromMemoryAtOnceMaxRowBytes; 0: as from cache. 4 KiB on Intel, 0 on AMD (whose at-once
  // prefetch runs anyway). On the Emerald Rapids VM (session 52, in-process, 2 threads, calls of
  // 335-377 MB) the 2x bilinear backward of 128-column planes ran 1.11x faster, nearest 1.12,
  // bicubic 1.16, bfloat16 and float16 ones 1.25-1.26, 2x downscale forwards 1.11 (bfloat16
  // 1.21), 192-column planes 1.08; 512-column planes (not prefetched) 1.03. Prefetched so, rows
  // of 2 KiB had run 0.97x and of 4 KiB 0.89x (the burst of lines outruns the fill buffers), hence
  // the limit; in L3 (the suite's case 1) 0.92-0.99x, hence only from memory.
  size_t from_memory_at_once_bytes;
  // The last-level cache the plans weigh a call against (bytes; 0: unknown, and no call is
  // judged to outgrow it): beyond it results smaller than their source stream and the source is
  // prefetched as from memory (plan.cc, OutgrowsLastLevelCache). Detected as the largest cache
  // Linux's cacheinfo lists for CPU 0, else glibc's sysconf; a tuning here so that benchmarks
  // and tests can weigh one call against either side of it.
  uint64_t last_level_cache_bytes;
};
// The widest rows KernelTuning::from_memory_at_once_bytes applies to.
inline constexpr size_t kFromMemoryAtOnceMaxRowBytes = 1024;
// The tuning in force: the CPU's (DefaultTuningForCpu) unless overridden.
const KernelTuning& TuningForCpu();
KernelTuning DefaultTuningForCpu();
// For benchmarks that time two tunings in one process (bench/target_ab.cc) and for tests that
// run every form: in force for the calls that begin after it returns; never while a call runs.
void OverrideTuning(const KernelTuning& tuning);

// Whether GatherThroughPlanarRows, on the dispatched target, splits rows of `channels` channels
// by pixel phase for a uniform interior of `stride` (for the plan's cost of that form).
bool SplitsPixelPhases(size_t channels, int stride);

// The number of float lanes of the dispatched target, for laying out blocked weights.
size_t FloatLanes();

// Whether the dispatched target runs periodic interiors of half its lanes (GatherAxis's
// periodic_lanes == FloatLanes() / 2): AVX-512, 8 results a vector from up to four whole
// 16-float loads, for runs of at most kMaxPeriodicTaps taps.
bool PeriodicRowsInHalfVectors();

// Converts n elements of `dtype` at src[0], src[stride], ... into contiguous floats.
void LoadAsFloat(DType dtype, const void* src, ptrdiff_t stride, size_t n, float* dst);

// Rounds n contiguous floats to `dtype` (nearest even) into dst[0], dst[stride], ... kStreamed
// streams the whole cache lines of a contiguous row (stride 1) and stores the pieces at either
// end cached; the bits are the same either way.
void StoreFromFloat(DType dtype, const float* src, size_t n, void* dst, ptrdiff_t stride,
                    ResultStores stores = ResultStores::kCached);

// The name of the target the dispatcher chose, e.g. "AVX2" or "EMU128".
const char* ActiveTargetName();

}  // namespace kernels
}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_KERNELS_KERNELS_H_
