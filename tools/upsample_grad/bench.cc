// `upsample-grad bench`: the standard suite, timed through a repeatable executor.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "acl_runner.h"
#include "aclnn_upsample/version.h"
#include "bench_suite.h"
#include "commands.h"
#include "float16.h"
#include "parse_lists.h"
#include "roofline.h"
#include "tool_error.h"

namespace upsample_grad {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

Problem ProblemFor(const SuiteCase& suite_case) {
  Operator op =
      suite_case.op == SuiteOperator::kBilinear ? Operator::kBilinear : Operator::kBicubicAA;
  Problem problem =
      MakeContiguousProblem(op, suite_case.dtype, ACL_FORMAT_NCHW,
                            {suite_case.n, suite_case.c, suite_case.out_h, suite_case.out_w},
                            {suite_case.n, suite_case.c, suite_case.in_h, suite_case.in_w},
                            suite_case.align_corners, 0, 0);
  if (suite_case.layout == SuiteLayout::kNchwChannelsLastStrides) {
    for (TensorView* view : {&problem.grad_out, &problem.grad_in}) {
      auto [n, c, h, w] = view->dims;
      view->strides = {h * w * c, 1, w * c, c};
      view->storage_dims = {n, h, w, c};
    }
  }
  return problem;
}

// Deterministic values in [-1, 1) in the case's dtype, so that runs are comparable.
std::vector<std::byte> MakeGradOut(const Problem& problem) {
  int64_t count = problem.grad_out.StorageElements();
  size_t element_size = DataTypeSize(problem.dtype);
  std::vector<std::byte> data(static_cast<size_t>(count) * element_size);
  uint32_t state = 12345u;
  for (int64_t i = 0; i < count; ++i) {
    state = state * 1664525u + 1013904223u;
    float value = static_cast<float>(state >> 8) / static_cast<float>(1u << 23) - 1.0f;
    std::byte* target = data.data() + static_cast<size_t>(i) * element_size;
    if (problem.dtype == ACL_FLOAT) {
      std::memcpy(target, &value, sizeof(value));
    } else {
      uint16_t bits =
          problem.dtype == ACL_FLOAT16 ? FloatToHalfBits(value) : FloatToBf16Bits(value);
      std::memcpy(target, &bits, sizeof(bits));
    }
  }
  return data;
}

std::vector<int> SelectedCases(const std::string& text) {
  std::vector<int> ids;
  if (text.empty()) {
    for (const SuiteCase& suite_case : kBenchSuite) ids.push_back(suite_case.id);
    return ids;
  }
  const std::string expected =
      "case numbers from 1 to " + std::to_string(kBenchSuite.size()) + ", e.g. 1,3,8";
  for (int64_t id : ParseIntegerList(text, "--case", expected)) {
    if (id < 1 || id > static_cast<int64_t>(kBenchSuite.size())) {
      throw ToolError("--case " + std::to_string(id) + " is not in the suite; expected " +
                      expected);
    }
    ids.push_back(static_cast<int>(id));
  }
  return ids;
}

// Each repetition passes over the buffers three times (copy, read, write): at 256 MiB and tens of
// GB/s, a few hundredths of a second.
constexpr int kRooflineRepetitions = 7;

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

}  // namespace

int RunBench(const BenchOptions& options, std::ostream& out) {
  std::vector<int> ids = SelectedCases(options.cases);
  if (options.min_runs < 1) throw ToolError("--repeats must be at least 1");
  if (options.bandwidth_mib < 1) throw ToolError("--bandwidth-mib must be at least 1");
  SetLibraryThreads(options.threads);
  int copy_threads = options.threads > 0
                         ? options.threads
                         : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  // Measured before the cases, at their thread count, and again after them: on a shared machine
  // the two differ by what the memory's rate drifted while the cases ran.
  RooflineProbe probe(static_cast<size_t>(options.bandwidth_mib) << 20, copy_threads);
  const RooflineRates roofline = probe.Measure(kRooflineRepetitions);
  // Timings mean little without the build type and the SIMD target that produced them.
  out << "aclnn_upsample " << aclnn_upsample_version() << " (" << aclnn_upsample_build_type()
      << "), SIMD target " << aclnn_upsample_simd_target() << "\n";
  out << "memory roofline: " << DescribeRoofline(roofline, probe, kRooflineRepetitions) << "\n";
  char line[256];
  std::snprintf(line, sizeof(line), "%4s  %-10s  %-22s  %-8s  %-13s  %5s  %10s  %8s  %8s  %7s\n",
                "case", "operator", "N,C in -> out", "dtype", "layout", "runs", "median ms", "GB/s",
                "peak", "of peak");
  out << line << std::flush;

  AclSession session;
  for (int id : ids) {
    const SuiteCase& suite_case = kBenchSuite[static_cast<size_t>(id - 1)];
    Problem problem = ProblemFor(suite_case);
    std::vector<std::byte> grad_out = MakeGradOut(problem);
    size_t element_size = DataTypeSize(problem.dtype);
    DeviceBuffer grad_out_device(grad_out.size());
    DeviceBuffer grad_in_device(static_cast<size_t>(problem.grad_in.StorageElements()) *
                                element_size);
    grad_out_device.CopyFromHost(grad_out.data(), grad_out.size());
    OperatorCall call(problem, grad_out_device.get(), grad_in_device.get(), /*repeatable=*/true);

    // The case's peak: the streaming copy just before and just after it (see roofline.h), the
    // first before the warm-up, which then refills the caches the copy flushed.
    const double peak_before =
        probe.Rate(RooflineTraffic::kStreamingCopy, kRooflinePassesAroundACase);
    call.Execute(session.stream());  // warm-up: first-touch of gradIn, caches, thread start
    std::vector<double> times;
    auto started = Clock::now();
    // Enough runs for a stable median, but a bounded time for slow cases.
    while (static_cast<int>(times.size()) < options.min_runs ||
           (SecondsSince(started) < options.min_seconds && times.size() < 10000)) {
      auto start = Clock::now();
      call.Execute(session.stream());
      times.push_back(SecondsSince(start));
    }
    double median = Median(times);
    double rate = static_cast<double>(problem.TrafficBytes()) / median / 1e9;
    const double peak =
        (peak_before + probe.Rate(RooflineTraffic::kStreamingCopy, kRooflinePassesAroundACase)) / 2;

    char shape[64];
    std::snprintf(shape, sizeof(shape), "%ld,%ld %ldx%ld->%ldx%ld", suite_case.n, suite_case.c,
                  suite_case.in_h, suite_case.in_w, suite_case.out_h, suite_case.out_w);
    std::string layout = suite_case.layout == SuiteLayout::kNchw ? "NCHW" : "NCHW(NHWC mem)";
    std::string name =
        std::string(OperatorName(problem.op)) + (suite_case.align_corners ? "*" : "");
    std::snprintf(line, sizeof(line),
                  "%4d  %-10s  %-22s  %-8s  %-13s  %5zu  %10.3f  %8.2f  %8.2f  %6.1f%%\n", id,
                  name.c_str(), shape, DataTypeName(problem.dtype), layout.c_str(), times.size(),
                  median * 1e3, rate, peak, 100.0 * rate / peak);
    out << line << std::flush;
  }
  bool any_align_corners = false;
  for (int id : ids) any_align_corners |= kBenchSuite[static_cast<size_t>(id - 1)].align_corners;
  out << (any_align_corners ? "(* alignCorners) " : "")
      << "GB/s counts gradOut read once and gradIn written once\n"
      << "peak: the streaming copy's GB/s around the case (mean of " << kRooflinePassesAroundACase
      << "-pass medians just before and after)\n";
  out << "roofline after the cases: "
      << DescribeRoofline(probe.Measure(kRooflineRepetitions), probe, kRooflineRepetitions) << "\n";
  return 0;
}

}  // namespace upsample_grad
