// Google Benchmark over the kernels alone, on the dispatched target, with every row in L1/L2:
// what one row of each kernel family costs, apart from memory traffic and threading. The rows
// are shaped like the standard suite's (bilinear 2x: stride-2 uniform interior of 4 taps;
// bicubic AA downsampling: blocked windows; bilinear 256 -> 224: periodic interior). Reports
// elements per second of the kernel's output; use --benchmark_filter to pick a family.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "engine/axis_weights.h"
#include "engine/dtype.h"
#include "engine/gather_view.h"
#include "hwy/aligned_allocator.h"
#include "kernels/kernels.h"
#include "ops/upsample_bicubic2d_aa/bicubic_aa_weights.h"
#include "ops/upsample_bilinear2d/bilinear_weights.h"

namespace aclnn_upsample {
namespace {

std::vector<float> RandomFloats(size_t n) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

// One W axis with whatever vector forms the plan would give it.
struct WidthAxis {
  AxisRuns exact;
  UniformInterior uniform;
  PeriodicInterior periodic;
  BlockedAxis blocked;
  kernels::GatherAxis view;

  // Uniform or periodic interiors where allowed and found, else the blocked form. The axis of a
  // backward pass (the transpose), or of a forward one (`as_gather`).
  WidthAxis(const ForwardAxis& forward, bool allow_uniform, bool allow_periodic = false,
            bool as_gather = false)
      : exact(as_gather ? AsGather(forward) : Transpose(forward)) {
    const auto lanes = static_cast<int32_t>(kernels::FloatLanes());
    if (allow_uniform) {
      uniform = FindUniformInterior(exact, MinUniformInteriorLength(lanes),
                                    kernels::kMaxUniformStride, kernels::kMaxUniformTaps);
    }
    if (allow_periodic && uniform.stride == 0) {
      periodic = FindPeriodicInterior(exact, lanes, kernels::kMaxPeriodicTaps, 2);
    }
    if (uniform.stride == 0 && periodic.lanes == 0) {
      blocked = BlockAxis(exact, lanes, size_t{8} << 20);
    }
    view = MakeGatherAxis(exact, &uniform, &blocked, &periodic);
  }
};

ForwardAxis Bilinear(int64_t in, int64_t out) {
  return BuildBilinearAxis(AxisSpec{in, out, false, 0.0});
}
ForwardAxis BicubicAA(int64_t in, int64_t out) {
  return BuildBicubicAAAxis(AxisSpec{in, out, false, 0.0});
}

// The H pass: one result row from four source rows of `width` floats.
void BM_CombineRows(benchmark::State& state) {
  const auto width = static_cast<size_t>(state.range(0));
  const std::vector<float> src = RandomFloats(4 * width);
  const std::vector<float> weights = {0.25f, 0.75f, 0.75f, 0.25f};
  std::vector<float> dst(width);
  for (auto _ : state) {
    kernels::CombineRows(dst.data(), width, src.data(), static_cast<ptrdiff_t>(width),
                         weights.data(), weights.size());
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(width));
}
BENCHMARK(BM_CombineRows)->Arg(64)->Arg(128)->Arg(512);

// The H pass of an anti-aliased downscale over a row group: kMinRowGroup result rows of `taps`
// source rows of `width` floats each, consecutive runs `step` rows apart (17 taps by 4: 4x bicubic
// AA, as case 22; 33 by 8: 8x, as case 25). Rows a row apart are far enough for Combine's
// many-tap form; the group's source rows stay in L2 between iterations.
void BM_CombineRowsManyTaps(benchmark::State& state) {
  const auto taps = static_cast<size_t>(state.range(0));
  const auto width = static_cast<size_t>(state.range(1));
  const auto step = static_cast<size_t>(state.range(2));
  const size_t rows = kernels::kMinRowGroup;
  const std::vector<float> src = RandomFloats((taps + (rows - 1) * step) * width);
  std::vector<float> weights(taps);
  for (size_t k = 0; k < taps; ++k) weights[k] = 1.0f / static_cast<float>(taps + k);
  std::vector<float> dst(rows * width);
  for (auto _ : state) {
    for (size_t i = 0; i < rows; ++i) {
      kernels::CombineRows(dst.data() + i * width, width, src.data() + i * step * width,
                           static_cast<ptrdiff_t>(width), weights.data(), taps);
    }
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(rows * width));
}
BENCHMARK(BM_CombineRowsManyTaps)->Args({17, 512, 4})->Args({33, 1024, 8});

// The W pass over kMinRowGroup rows of a forward in -> out axis.
void GatherBench(benchmark::State& state, const ForwardAxis& forward, bool allow_uniform,
                 bool allow_periodic = false, bool as_gather = false) {
  const WidthAxis axis(forward, allow_uniform, allow_periodic, as_gather);
  const size_t rows = kernels::kMinRowGroup;
  const std::vector<float> src = RandomFloats(rows * axis.view.source_length);
  std::vector<float> dst(rows * axis.view.length);
  for (auto _ : state) {
    kernels::GatherRows(axis.view, rows, src.data(),
                        static_cast<ptrdiff_t>(axis.view.source_length), dst.data(),
                        static_cast<ptrdiff_t>(axis.view.length));
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(rows * axis.view.length));
}

void BM_GatherRowsUniform2x(benchmark::State& state) {
  GatherBench(state, Bilinear(state.range(0), 2 * state.range(0)), true);
}
BENCHMARK(BM_GatherRowsUniform2x)->Arg(32)->Arg(64);

void BM_GatherRowsExact2x(benchmark::State& state) {
  GatherBench(state, Bilinear(state.range(0), 2 * state.range(0)), false);
}
BENCHMARK(BM_GatherRowsExact2x)->Arg(32)->Arg(64);

// The W pass of the 2x bilinear forwards (cases 15 and 16: 64 -> 128 and 32 -> 64), in the
// periodic form their plans take, and in the blocked form it replaced. (The Uniform2x and
// Exact2x benchmarks above time the backward's W pass, the transpose.)
void BM_GatherRowsPeriodic2x(benchmark::State& state) {
  GatherBench(state, Bilinear(state.range(0), 2 * state.range(0)), false, true, true);
}
BENCHMARK(BM_GatherRowsPeriodic2x)->Arg(32)->Arg(64);

void BM_GatherRowsBlocked2x(benchmark::State& state) {
  GatherBench(state, Bilinear(state.range(0), 2 * state.range(0)), false, false, true);
}
BENCHMARK(BM_GatherRowsBlocked2x)->Arg(32)->Arg(64);

void BM_GatherRowsBlockedBicubicAA4x(benchmark::State& state) {
  GatherBench(state, BicubicAA(state.range(0), state.range(0) / 4), false);
}
BENCHMARK(BM_GatherRowsBlockedBicubicAA4x)->Arg(512);

// Case 4's W pass (bilinear 256 -> 224, runs repeating every 8 results): the periodic form
// against the blocked form it replaces (the periodic one needs a period that fits the lanes).
void BM_GatherRowsPeriodicEightSevenths(benchmark::State& state) {
  GatherBench(state, Bilinear(state.range(0), state.range(0) * 7 / 8), false, true);
}
BENCHMARK(BM_GatherRowsPeriodicEightSevenths)->Arg(256);

void BM_GatherRowsBlockedEightSevenths(benchmark::State& state) {
  GatherBench(state, Bilinear(state.range(0), state.range(0) * 7 / 8), false);
}
BENCHMARK(BM_GatherRowsBlockedEightSevenths)->Arg(256);

// Cases 18 and 23's W pass (forward 256 -> 224, bilinear and bicubic AA: runs repeating every
// 7 results, a lane pattern per vector start): the periodic form against the blocked one.
// Arguments: the input width, and 1 for bicubic AA.
ForwardAxis SevenEighths(const benchmark::State& state) {
  const int64_t in = state.range(0), out = state.range(0) * 7 / 8;
  return state.range(1) != 0 ? BicubicAA(in, out) : Bilinear(in, out);
}

void BM_GatherRowsPeriodicSevenEighths(benchmark::State& state) {
  GatherBench(state, SevenEighths(state), false, true, true);
}
BENCHMARK(BM_GatherRowsPeriodicSevenEighths)->Args({256, 0})->Args({256, 1});

void BM_GatherRowsBlockedSevenEighths(benchmark::State& state) {
  GatherBench(state, SevenEighths(state), false, false, true);
}
BENCHMARK(BM_GatherRowsBlockedSevenEighths)->Args({256, 0})->Args({256, 1});

// The planar H-first pass over a plane in row groups of kMaxRowGroup (the plan's choice for 2x
// gradients of planes up to 128 wide): H pass of a group, then its W pass, for bilinear 2x
// (forward in -> 2 * in on both axes) from `dtype` source rows.
void CombineThenGatherBench(benchmark::State& state, DType dtype) {
  const int64_t in = state.range(0), out = 2 * in;
  const AxisRuns height = Transpose(Bilinear(in, out));
  const WidthAxis width(Bilinear(in, out), true);
  const std::vector<float> floats = RandomFloats(static_cast<size_t>(out * out));
  std::vector<uint16_t> halves(floats.size());
  for (size_t i = 0; i < floats.size(); ++i) halves[i] = FloatToBFloat16(floats[i]);
  const void* src = dtype == DType::kFloat32 ? static_cast<const void*>(floats.data())
                                             : static_cast<const void*>(halves.data());
  std::vector<float> scratch(kernels::kMaxRowGroup * kernels::GroupRowFloats(out));
  std::vector<float> dst(static_cast<size_t>(in * in));
  const kernels::RowRuns runs{height.first.data(), height.weight_offset.data(),
                              height.weights.data()};
  for (auto _ : state) {
    kernels::CombineThenGatherRows(runs, 0, static_cast<size_t>(in), kernels::kMaxRowGroup, dtype,
                                   src, out, 0, kernels::SourceReads::kFromCache, width.view,
                                   scratch.data(), kernels::RowGroupResult{dst.data(), in});
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  // Items: gradOut elements read, one plane per iteration.
  state.SetItemsProcessed(state.iterations() * out * out);
}

void BM_CombineThenGatherRowsF32(benchmark::State& state) {
  CombineThenGatherBench(state, DType::kFloat32);
}
BENCHMARK(BM_CombineThenGatherRowsF32)->Arg(32)->Arg(64);

void BM_CombineThenGatherRowsBF16(benchmark::State& state) {
  CombineThenGatherBench(state, DType::kBFloat16);
}
BENCHMARK(BM_CombineThenGatherRowsBF16)->Arg(64);

// The planar W-first forward over one plane (the suite's cases 15, 19 and 20): the W pass of the
// `in` source rows into float rows of the tile, then the H pass writes the 2 * in result rows
// in `dtype` (cached stores), for bilinear 2x on both axes; Arg(1) 1 or 2 runs only the W or
// only the H pass. Items: result elements.
void WidthFirstForwardBench(benchmark::State& state, DType dtype) {
  const int64_t in = state.range(0), out = 2 * in, passes = state.range(1);
  const AxisRuns height = AsGather(Bilinear(in, out));
  const WidthAxis width(Bilinear(in, out), true, true, /*as_gather=*/true);
  const std::vector<float> src = RandomFloats(static_cast<size_t>(in * in));
  // Aligned as the engine's scratch and tensors are: rows off a vector take other forms.
  const auto tile = hwy::AllocateAligned<float>(static_cast<size_t>(in * out));
  const auto dst = hwy::AllocateAligned<float>(static_cast<size_t>(out * out));
  const kernels::RowRuns runs{height.first.data(), height.weight_offset.data(),
                              height.weights.data()};
  for (auto _ : state) {
    if (passes != 2) {
      kernels::GatherRows(width.view, static_cast<size_t>(in), src.data(), in, tile.get(), out);
    }
    if (passes != 1) {
      kernels::CombineRowRunsTo(runs, 0, static_cast<size_t>(out), tile.get(), out, 0,
                                static_cast<size_t>(out), dtype, dst.get(), out,
                                kernels::ResultStores::kCached);
    }
    benchmark::DoNotOptimize(dst.get());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * out * out);
}

void BM_WidthFirstForwardF32(benchmark::State& state) {
  WidthFirstForwardBench(state, DType::kFloat32);
}
BENCHMARK(BM_WidthFirstForwardF32)->Args({64, 0})->Args({64, 1})->Args({64, 2});

void BM_WidthFirstForwardBF16(benchmark::State& state) {
  WidthFirstForwardBench(state, DType::kBFloat16);
}
BENCHMARK(BM_WidthFirstForwardBF16)->Args({64, 0})->Args({64, 2});

// The nearest copy of one row of channels-last pixels (a 2x upsample: each source pixel twice),
// Arg(0) bytes per pixel, Arg(1) 1 to stream; 512 result pixels. Items: result bytes.
void BM_CopyPixels(benchmark::State& state) {
  const auto pixel_bytes = static_cast<size_t>(state.range(0));
  const auto stores =
      state.range(1) != 0 ? kernels::ResultStores::kStreamed : kernels::ResultStores::kCached;
  constexpr size_t kPixels = 512;
  std::vector<int32_t> first(kPixels), weight_offset(kPixels + 1);
  for (size_t i = 0; i < kPixels; ++i) first[i] = static_cast<int32_t>(i / 2);
  for (size_t i = 0; i <= kPixels; ++i) weight_offset[i] = static_cast<int32_t>(i);
  std::vector<uint8_t> src(kPixels / 2 * pixel_bytes, 7);
  // 64-byte aligned, so that whole vectors stream.
  std::vector<uint8_t> storage(kPixels * pixel_bytes + 64);
  uint8_t* const dst =
      storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64;
  for (auto _ : state) {
    kernels::CopyPixels(first.data(), weight_offset.data(), kPixels, src.data(),
                        static_cast<ptrdiff_t>(pixel_bytes), dst,
                        static_cast<ptrdiff_t>(pixel_bytes), pixel_bytes, stores);
    benchmark::DoNotOptimize(dst);
    benchmark::ClobberMemory();
  }
  kernels::FlushStreamedStores();
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(kPixels * pixel_bytes));
}
BENCHMARK(BM_CopyPixels)
    ->Args({8, 0})
    ->Args({16, 0})
    ->Args({16, 1})
    ->Args({24, 0})
    ->Args({48, 1})
    ->Args({64, 1});

// The channels-last W pass (GatherPixels) over kRows rows of Arg(0)-channel float32 pixels, 28
// -> 14 (bicubic AA 2x down, 6-8 taps: the plane groups' case 42) or 14 -> 28 (bilinear 2x up, 2
// taps: case 39) as Arg(1) is 0 or 1, Arg(2) 1 to go a row at a time, 0 as one band
// (GatherPixelBand). In L1/L2: the per-pixel arithmetic and look-ups alone. Items: result
// elements.
void BM_GatherPixelRows(benchmark::State& state) {
  const auto channels = static_cast<size_t>(state.range(0));
  const bool upsample = state.range(1) != 0;
  const bool row_at_a_time = state.range(2) != 0;
  constexpr size_t kRows = 16;
  const WidthAxis axis(upsample ? Bilinear(14, 28) : BicubicAA(28, 14), /*allow_uniform=*/false,
                       /*allow_periodic=*/false, /*as_gather=*/true);
  const kernels::GatherAxis& view = axis.view;
  const auto pixel_stride = static_cast<ptrdiff_t>(channels);
  const auto src_row = static_cast<ptrdiff_t>(view.source_length * channels);
  const auto dst_row = static_cast<ptrdiff_t>(view.length * channels);
  const std::vector<float> src = RandomFloats(kRows * static_cast<size_t>(src_row));
  std::vector<float> dst(kRows * static_cast<size_t>(dst_row));
  for (auto _ : state) {
    if (row_at_a_time) {
      for (size_t r = 0; r < kRows; ++r) {
        const auto row = static_cast<ptrdiff_t>(r);
        kernels::GatherPixels(view, channels, src.data() + row * src_row, pixel_stride,
                              dst.data() + row * dst_row, pixel_stride);
      }
    } else {
      kernels::GatherPixelBand(view, channels, kRows, src.data(), pixel_stride, src_row, dst.data(),
                               pixel_stride, dst_row);
    }
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(dst.size()));
}
BENCHMARK(BM_GatherPixelRows)
    ->ArgsProduct({{8, 16, 32}, {0, 1}, {0, 1}})
    ->ArgNames({"channels", "upsample", "row_at_a_time"});

// A row of Arg(0)-channel pixels to planar rows and back (the interleaved layout's W pass
// around its gather), 256 pixels. Items: elements moved each way.
void BM_DeinterleaveInterleave(benchmark::State& state) {
  const auto channels = static_cast<size_t>(state.range(0));
  constexpr size_t kPixels = 256;
  const std::vector<float> pixels = RandomFloats(kPixels * channels);
  std::vector<float> planar(channels * kPixels), back(kPixels * channels);
  for (auto _ : state) {
    kernels::Deinterleave(pixels.data(), kPixels, channels, planar.data(), kPixels);
    kernels::Interleave(planar.data(), kPixels, kPixels, channels, back.data());
    benchmark::DoNotOptimize(back.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kPixels * channels));
}
BENCHMARK(BM_DeinterleaveInterleave)->Arg(3)->Arg(4)->Arg(5)->Arg(6)->Arg(7);

// The interleaved layout's W pass of one row of Arg(0)-channel pixels (GatherThroughPlanarRows),
// for the 2x bilinear gradient's axis (512 -> 256 pixels, a uniform interior of stride 2: split
// by pixel phase where the target does that). Items: result elements.
void BM_GatherThroughPlanarRows(benchmark::State& state) {
  const auto channels = static_cast<size_t>(state.range(0));
  const WidthAxis axis(Bilinear(256, 512), /*allow_uniform=*/true);
  const kernels::GatherAxis& view = axis.view;
  const std::vector<float> pixels = RandomFloats(view.source_length * channels);
  VectorData<float> planar(channels * kernels::GroupRowFloats(view.source_length));
  VectorData<float> gathered(channels * view.length), dst(channels * view.length);
  for (auto _ : state) {
    kernels::GatherThroughPlanarRows(view, channels, pixels.data(), planar.data(), gathered.data(),
                                     dst.data());
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(view.length * channels));
}
BENCHMARK(BM_GatherThroughPlanarRows)->Arg(2)->Arg(3)->Arg(4)->Arg(7);

// A buffer of `buffer_bytes` (0: one group) of groups of kPlaneGroup planes of `dtype`, `stride`
// elements apart, holding ones, and one group's pixels (`plane` of them) on a cache line, as the
// plan's scratch is: from a std::vector's 16-byte alignment every 64-byte store split a line,
// and one build's runs read 1.2 or 2.3 us (bfloat16, 784 pixels, in L2).
struct PlaneGroupBuffers {
  PlaneGroupBuffers(DType dtype, size_t plane, size_t stride, size_t buffer_bytes)
      : elem(DTypeSize(dtype)),
        group_elements(kernels::kPlaneGroup * stride),
        groups(std::max<size_t>(1, buffer_bytes / elem / group_elements)),
        planes(groups * group_elements * elem),
        pixels(kernels::kPlaneGroup * plane) {
    const std::vector<float> ones(groups * group_elements, 1.0f);
    kernels::StoreFromFloat(dtype, ones.data(), ones.size(), planes.data(), 1);
    std::fill(pixels.data(), pixels.data() + kernels::kPlaneGroup * plane, 1.5f);
  }
  uint8_t* Group(size_t group) { return planes.data() + group * group_elements * elem; }

  size_t elem, group_elements, groups;
  std::vector<uint8_t> planes;
  VectorData<float> pixels;
};

// A group of kPlaneGroup planes of Arg(0) elements each, Arg(1) elements apart, transposed into
// pixels (the plane groups' first step), float32 or bfloat16 (Arg(3): 32 or 16 bits). The groups
// lie one after another through Arg(2) MiB (0: one group, which stays in L2), so that they come
// from L3 or memory as the buffer's size decides. Items: elements read. Planes 16 KiB apart put a
// vector's 16 lines in one L1 set: on the Emerald Rapids VM (12-way L1) one group in L2 took 1.16x
// the time of planes 64 bytes further apart, from L3 1.05-1.11x (session 35 in bench/RESULTS.md;
// session 34's 2.1x had pixels off a cache line).
void BM_PlanesToPixels(benchmark::State& state) {
  const auto plane = static_cast<size_t>(state.range(0));
  const auto stride = static_cast<size_t>(state.range(1));
  const DType dtype = state.range(3) == 16 ? DType::kBFloat16 : DType::kFloat32;
  PlaneGroupBuffers buffers(dtype, plane, stride, static_cast<size_t>(state.range(2)) << 20);
  size_t group = 0;
  for (auto _ : state) {
    kernels::PlanesToPixels(dtype, buffers.Group(group), static_cast<ptrdiff_t>(stride),
                            kernels::kPlaneGroup, plane, buffers.pixels.data());
    benchmark::DoNotOptimize(buffers.pixels.data());
    benchmark::ClobberMemory();
    group = group + 1 == buffers.groups ? 0 : group + 1;
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kernels::kPlaneGroup * plane));
}
BENCHMARK(BM_PlanesToPixels)
    ->ArgsProduct({{4096}, {4096, 4096 + 16}, {0, 16, 256}, {32}})
    ->ArgsProduct({{784}, {784}, {0, 16}, {32, 16}})
    ->ArgNames({"plane", "stride", "MiB", "bits"});

// The way back: a group's pixels (in L1, as the plane groups' window keeps them) into its planes,
// 16-bit planes rounded on the way.
void BM_PixelsToPlanes(benchmark::State& state) {
  const auto plane = static_cast<size_t>(state.range(0));
  const DType dtype = state.range(2) == 16 ? DType::kBFloat16 : DType::kFloat32;
  PlaneGroupBuffers buffers(dtype, plane, plane, static_cast<size_t>(state.range(1)) << 20);
  size_t group = 0;
  for (auto _ : state) {
    kernels::PixelsToPlanes(dtype, buffers.pixels.data(), kernels::kPlaneGroup, plane,
                            buffers.Group(group), static_cast<ptrdiff_t>(plane),
                            kernels::ResultStores::kCached);
    benchmark::DoNotOptimize(buffers.planes.data());
    benchmark::ClobberMemory();
    group = group + 1 == buffers.groups ? 0 : group + 1;
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kernels::kPlaneGroup * plane));
}
BENCHMARK(BM_PixelsToPlanes)
    ->ArgsProduct({{196, 784}, {0, 16}, {32, 16}})
    ->ArgNames({"plane", "MiB", "bits"});

}  // namespace
}  // namespace aclnn_upsample

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  // ACLNN_UPSAMPLE_SIMD took effect when the program loaded.
  benchmark::AddCustomContext("simd_target", aclnn_upsample::kernels::ActiveTargetName());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
