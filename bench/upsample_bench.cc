// Google Benchmark over the project's standard suite (tools/upsample_grad/bench_suite.h): every
// operator of the library's table that the suite names, backward and forward.
//
// Every case goes through the public C API only, the way a CANN application calls it: phase 1
// (GetWorkspaceSize) once with a repeatable executor and a workspace allocated once, then phase 2
// alone in the timed loop. Besides time, each case reports the bytes it must move (the source
// read + the result written, at the dtype's size) and `bw_fraction`, that rate over `peak_GBps`,
// the rate of a streaming copy by the same number of threads just before and after the case
// (tools/upsample_grad/roofline.h), i.e. how close the case comes to the memory roofline. The
// header gives the roofline's copy, read and write rates at start-up, and BM_Roofline/* time them
// again.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn_upsample/operators.h"
#include "aclnn_upsample/version.h"
#include "benchmark/benchmark.h"
#include "upsample_grad/bench_suite.h"
#include "upsample_grad/roofline.h"

namespace {

using upsample_grad::kBenchSuite;
using upsample_grad::SuiteCase;
using upsample_grad::SuiteLayout;

// Aborts with the library's message: a benchmark of a failing call would time nothing useful.
void Check(int status, const char* what) {
  if (status == 0) return;
  const char* message = aclGetRecentErrMsg();
  std::fprintf(stderr, "upsample_bench: %s failed with status %d: %s\n", what, status,
               message != nullptr ? message : "");
  std::exit(1);
}

// The library and the copy that sets the roofline run on the same number of threads: the one
// ACLNN_UPSAMPLE_NUM_THREADS names, or every core, which is then pinned for the library too.
int PinThreadCount() {
  const char* text = std::getenv("ACLNN_UPSAMPLE_NUM_THREADS");
  int threads = text != nullptr ? std::atoi(text) : 0;
  if (threads < 1) {
    threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    setenv("ACLNN_UPSAMPLE_NUM_THREADS", std::to_string(threads).c_str(), 1);
  }
  return threads;
}

// --- The memory roofline -------------------------------------------------------------------------

using upsample_grad::RooflineProbe;
using upsample_grad::RooflineRates;
using upsample_grad::RooflineTraffic;

constexpr size_t kRooflineBytes = size_t{256} << 20;  // per buffer, far beyond any last-level cache
constexpr int kRooflineRepetitions = 15;

RooflineProbe& SharedRooflineProbe(int threads) {
  static RooflineProbe* probe = new RooflineProbe(kRooflineBytes, threads);  // lives until exit
  return *probe;
}

// Sets bytes_per_second and bw_fraction. Google Benchmark 1.7.1 does not hand the loop's time to
// the benchmark, and a kIsRate counter would print the fraction as "/s", so the caller times the
// loop itself (the few nanoseconds around Google Benchmark's own timer do not matter).
void ReportTraffic(benchmark::State& state, int64_t bytes_per_iteration, double loop_seconds,
                   double peak_bytes_per_second) {
  const int64_t bytes = bytes_per_iteration * static_cast<int64_t>(state.iterations());
  state.SetBytesProcessed(bytes);
  if (loop_seconds > 0) {
    state.counters["bw_fraction"] =
        static_cast<double>(bytes) / loop_seconds / peak_bytes_per_second;
  }
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The roofline's three rates as benchmarks of their own, so that the JSON and console outputs
// carry them next to the cases, measured again at the point of the run where they appear.
void BM_Roofline(benchmark::State& state, RooflineTraffic traffic, int threads,
                 double peak_bytes_per_second) {
  RooflineProbe& probe = SharedRooflineProbe(threads);
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    probe.Run(traffic);
    benchmark::ClobberMemory();
  }
  ReportTraffic(state, probe.Bytes(traffic), SecondsSince(start), peak_bytes_per_second);
  state.counters["threads"] = threads;
}

// --- One suite case ------------------------------------------------------------------------------

size_t ElementSize(aclDataType dtype) { return dtype == ACL_FLOAT ? 4 : 2; }

// The case's operator from the library's table; the suite names only operators it has.
const aclnn_upsample_operator& OperatorOf(const SuiteCase& c) {
  const aclnn_upsample_operator* op = aclnn_upsample_find_operator(c.command);
  if (op == nullptr) {
    std::fprintf(stderr, "upsample_bench: the library has no operator '%s'\n", c.command);
    std::exit(1);
  }
  return *op;
}

bool IsForward(const aclnn_upsample_operator& op) { return op.direction == ACLNN_UPSAMPLE_FORWARD; }

// BM_Suite/1_bilinear_..., BM_Suite/15_bilinear_forward_..., BM_Suite/28_bilinear_v1_...: the
// command with '_' for '-' (two rows may share a mode and direction); extra cases are
// BM_Extra/...
std::string BenchmarkName(const SuiteCase& c) {
  std::string command = OperatorOf(c).command;
  std::replace(command.begin(), command.end(), '-', '_');
  std::string name = std::string(c.extra ? "BM_Extra/" : "BM_Suite/") + std::to_string(c.id) + "_" +
                     command + "_" + std::to_string(c.n) + "x" + std::to_string(c.c) + "_" +
                     std::to_string(c.in_h) + "x" + std::to_string(c.in_w) + "->" +
                     std::to_string(c.out_h) + "x" + std::to_string(c.out_w) + "_" +
                     upsample_grad::SuiteDtypeTag(c.dtype);
  // Cases that differ from another only in these must still have distinct names.
  if (c.align_corners) name += "_align_corners";
  if (c.layout == SuiteLayout::kNchwChannelsLastStrides) name += "_channels_last";
  return name;
}

// Values k/256, |k| < 256: exact in fp32, fp16 and bf16 alike, so one generator serves every
// dtype without rounding code, and no value is subnormal (which could slow some paths).
uint32_t NextSample(uint32_t& state) {
  state = state * 1664525u + 1013904223u;
  return state >> 16;
}

void FillSource(void* data, int64_t count, aclDataType dtype) {
  uint32_t state = 12345u;
  for (int64_t i = 0; i < count; ++i) {
    const float value = static_cast<float>(static_cast<int>(NextSample(state) % 511) - 255) / 256;
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    if (dtype == ACL_FLOAT) {
      static_cast<uint32_t*>(data)[i] = bits;
    } else if (dtype == ACL_BF16) {
      static_cast<uint16_t*>(data)[i] = static_cast<uint16_t>(bits >> 16);
    } else {  // fp16: re-bias the exponent; the mantissa's low 13 bits are zero for these values
      const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
      const uint32_t exponent = (bits >> 23) & 0xffu;
      static_cast<uint16_t*>(data)[i] =
          value == 0.0f ? 0
                        : static_cast<uint16_t>(sign | ((exponent - 127 + 15) << 10) |
                                                ((bits >> 13) & 0x3ffu));
    }
  }
}

// Dims, strides and storage of one tensor of the case: NCHW view dims, over either contiguous
// NCHW memory or channels-last memory (strides (H*W*C, 1, W*C, C), storage (N, H, W, C)).
struct TensorLayout {
  int64_t dims[4], strides[4], storage[4];
  int64_t Elements() const { return storage[0] * storage[1] * storage[2] * storage[3]; }
};

TensorLayout MakeLayout(int64_t n, int64_t c, int64_t h, int64_t w, SuiteLayout layout) {
  if (layout == SuiteLayout::kNchwChannelsLastStrides) {
    return {{n, c, h, w}, {h * w * c, 1, w * c, c}, {n, h, w, c}};
  }
  return {{n, c, h, w}, {c * h * w, h * w, w, 1}, {n, c, h, w}};
}

// Everything a case needs between runs; built on its first run so that only one case's buffers
// are being set up at a time, kept until the end so Google Benchmark's repeated calls reuse it.
class SuiteRunner {
 public:
  SuiteRunner(const SuiteCase& c, aclrtStream stream) : op_(OperatorOf(c)), stream_(stream) {
    const TensorLayout input = MakeLayout(c.n, c.c, c.in_h, c.in_w, c.layout);
    const TensorLayout output = MakeLayout(c.n, c.c, c.out_h, c.out_w, c.layout);
    // A forward operator reads the input size and writes the output size; a backward one the
    // other way round.
    const bool forward = IsForward(op_);
    const TensorLayout& source = forward ? input : output;
    const TensorLayout& result = forward ? output : input;
    const size_t element = ElementSize(c.dtype);
    const size_t source_bytes = static_cast<size_t>(source.Elements()) * element;
    const size_t result_bytes = static_cast<size_t>(result.Elements()) * element;
    bytes_per_run_ = static_cast<int64_t>(source_bytes + result_bytes);

    std::vector<char> host(source_bytes);
    FillSource(host.data(), source.Elements(), c.dtype);
    Check(aclrtMalloc(&source_data_, source_bytes, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    Check(aclrtMalloc(&result_data_, result_bytes, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    Check(aclrtMemcpy(source_data_, source_bytes, host.data(), source_bytes,
                      ACL_MEMCPY_HOST_TO_DEVICE),
          "aclrtMemcpy");

    aclTensor* source_tensor = aclCreateTensor(source.dims, 4, c.dtype, source.strides, 0,
                                               ACL_FORMAT_NCHW, source.storage, 4, source_data_);
    aclTensor* result_tensor = aclCreateTensor(result.dims, 4, c.dtype, result.strides, 0,
                                               ACL_FORMAT_NCHW, result.storage, 4, result_data_);
    const int64_t output_size_values[2] = {c.out_h, c.out_w};
    const int64_t input_size_values[4] = {c.n, c.c, c.in_h, c.in_w};
    aclIntArray* output_size = aclCreateIntArray(output_size_values, 2);
    // A forward operator takes no inputSize: its input's shape gives it.
    aclIntArray* input_size = forward ? nullptr : aclCreateIntArray(input_size_values, 4);
    if (source_tensor == nullptr || result_tensor == nullptr || output_size == nullptr ||
        (!forward && input_size == nullptr)) {
      Check(-1, "aclCreateTensor / aclCreateIntArray");
    }

    // Scales are never given in the suite (0): outputSize alone defines the resize.
    Check(op_.get_workspace_size(source_tensor, output_size, input_size, c.align_corners, 0.0, 0.0,
                                 result_tensor, &workspace_size_, &executor_),
          "GetWorkspaceSize");
    Check(aclSetAclOpExecutorRepeatable(executor_), "aclSetAclOpExecutorRepeatable");
    // The executor keeps what it needs, so the descriptors can go now (CANN's contract).
    aclDestroyTensor(source_tensor);
    aclDestroyTensor(result_tensor);
    aclDestroyIntArray(output_size);
    if (input_size != nullptr) aclDestroyIntArray(input_size);
    if (workspace_size_ > 0) {
      Check(aclrtMalloc(&workspace_, workspace_size_, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    }
    Run();  // untimed: faults in the result's and the workspace's pages, starts the thread pool
  }

  ~SuiteRunner() {
    aclDestroyAclOpExecutor(executor_);
    if (workspace_ != nullptr) aclrtFree(workspace_);
    aclrtFree(result_data_);
    aclrtFree(source_data_);
  }

  SuiteRunner(const SuiteRunner&) = delete;
  SuiteRunner& operator=(const SuiteRunner&) = delete;

  // Phase 2 and the wait for it: the work is synchronous today, but a benchmark that did not
  // synchronise would time only the launch the day it is not.
  void Run() {
    Check(op_.run(workspace_, workspace_size_, executor_, stream_), "phase 2");
    Check(aclrtSynchronizeStream(stream_), "aclrtSynchronizeStream");
  }

  int64_t bytes_per_run() const { return bytes_per_run_; }

 private:
  const aclnn_upsample_operator& op_;
  aclrtStream stream_;
  void* source_data_ = nullptr;
  void* result_data_ = nullptr;
  void* workspace_ = nullptr;
  uint64_t workspace_size_ = 0;
  aclOpExecutor* executor_ = nullptr;
  int64_t bytes_per_run_ = 0;
};

std::vector<std::unique_ptr<SuiteRunner>>& Runners() {
  static auto* runners = new std::vector<std::unique_ptr<SuiteRunner>>(kBenchSuite.size());
  return *runners;
}

void BM_Suite(benchmark::State& state, size_t index, aclrtStream stream, int threads) {
  std::unique_ptr<SuiteRunner>& runner = Runners()[index];
  if (runner == nullptr) runner = std::make_unique<SuiteRunner>(kBenchSuite[index], stream);
  // The case's peak: the streaming copy just before and just after its loop, as in upsample-grad
  // bench (see roofline.h); one untimed run then refills the caches the copy flushed.
  RooflineProbe& probe = SharedRooflineProbe(threads);
  const double copy_before =
      probe.Rate(RooflineTraffic::kStreamingCopy, upsample_grad::kRooflinePassesAroundACase);
  runner->Run();
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    runner->Run();
    benchmark::ClobberMemory();
  }
  const double loop_seconds = SecondsSince(start);
  const double peak_gbps = (copy_before + probe.Rate(RooflineTraffic::kStreamingCopy,
                                                     upsample_grad::kRooflinePassesAroundACase)) /
                           2;
  ReportTraffic(state, runner->bytes_per_run(), loop_seconds, peak_gbps * 1e9);
  state.counters["peak_GBps"] = peak_gbps;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  aclError init = aclInit(nullptr);
  if (init != ACL_ERROR_REPEAT_INITIALIZE) Check(init, "aclInit");
  Check(aclrtSetDevice(0), "aclrtSetDevice");
  aclrtStream stream = nullptr;
  Check(aclrtCreateStream(&stream), "aclrtCreateStream");

  // The streaming copy's rate at start-up (see tools/upsample_grad/roofline.h for why not
  // memcpy's), which BM_Roofline/*'s bw_fraction divides by; each case measures its own.
  const int threads = PinThreadCount();
  const RooflineRates roofline = SharedRooflineProbe(threads).Measure(kRooflineRepetitions);
  const double peak = roofline.copy * 1e9;
  std::printf(
      "memory roofline: %s\n",
      upsample_grad::DescribeRoofline(roofline, SharedRooflineProbe(threads), kRooflineRepetitions)
          .c_str());
  benchmark::AddCustomContext("roofline_copy_GBps", std::to_string(roofline.copy));
  benchmark::AddCustomContext("roofline_read_GBps", std::to_string(roofline.read));
  benchmark::AddCustomContext("roofline_write_GBps", std::to_string(roofline.write));
  benchmark::AddCustomContext("threads", std::to_string(threads));
  benchmark::AddCustomContext("simd_target", aclnn_upsample_simd_target());
  benchmark::AddCustomContext(
      "library", std::string(aclnn_upsample_version()) + " (" + aclnn_upsample_build_type() + ")");

  for (auto [name, traffic] :
       {std::pair{"BM_Roofline/streaming_copy", RooflineTraffic::kStreamingCopy},
        std::pair{"BM_Roofline/read", RooflineTraffic::kRead},
        std::pair{"BM_Roofline/write", RooflineTraffic::kWrite}}) {
    benchmark::RegisterBenchmark(name, BM_Roofline, traffic, threads, peak)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  for (size_t index = 0; index < kBenchSuite.size(); ++index) {
    const std::string name = BenchmarkName(kBenchSuite[index]);
    benchmark::RegisterBenchmark(name.c_str(), BM_Suite, index, stream, threads)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();

  Runners().clear();  // executors are destroyed before the runtime goes
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}
