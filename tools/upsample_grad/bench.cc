// `upsample-grad bench`: the standard suite, timed through a repeatable executor.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "acl_runner.h"
#include "aclnn_upsample/version.h"
#include "bench_suite.h"
#include "commands.h"
#include "median.h"
#include "parse_lists.h"
#include "roofline.h"
#include "suite_problem.h"
#include "tool_error.h"

namespace upsample_grad {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
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

// The operator column's label: the command, starred where alignCorners is set.
std::string OperatorLabel(const SuiteCase& suite_case) {
  return std::string(suite_case.command) + (suite_case.align_corners ? "*" : "");
}

std::string ShapeLabel(const SuiteCase& suite_case) {
  char shape[64];
  std::snprintf(shape, sizeof(shape), "%ld,%ld %ldx%ld->%ldx%ld", suite_case.n, suite_case.c,
                suite_case.in_h, suite_case.in_w, suite_case.out_h, suite_case.out_w);
  return shape;
}

const char* LayoutLabel(const SuiteCase& suite_case) {
  return suite_case.layout == SuiteLayout::kNchw ? "NCHW" : "NCHW(NHWC mem)";
}

// The suite as JSON, the form bench/compare_torch.py reads: one object per case.
void PrintSuiteJson(std::ostream& out) {
  out << "[\n";
  for (size_t i = 0; i < kBenchSuite.size(); ++i) {
    const SuiteCase& c = kBenchSuite[i];
    const aclnn_upsample_operator& op = FindOperator(c.command);
    out << "  {\"id\": " << c.id << ", \"command\": \"" << op.command << "\", \"operator\": \""
        << op.name << "\", \"mode\": \"" << op.mode << "\", \"direction\": \""
        << (IsForward(op) ? "forward" : "backward") << "\", \"n\": " << c.n << ", \"c\": " << c.c
        << ", \"in_h\": " << c.in_h << ", \"in_w\": " << c.in_w << ", \"out_h\": " << c.out_h
        << ", \"out_w\": " << c.out_w << ", \"dtype\": \"" << SuiteDtypeTag(c.dtype)
        << "\", \"align_corners\": " << (c.align_corners ? "true" : "false")
        << ", \"channels_last\": " << (c.layout == SuiteLayout::kNchw ? "false" : "true")
        << ", \"extra\": " << (c.extra ? "true" : "false")
        << ", \"takes_align_corners\": " << (op.takes_align_corners ? "true" : "false")
        << ", \"takes_scales\": " << (op.takes_scales ? "true" : "false") << "}"
        << (i + 1 < kBenchSuite.size() ? ",\n" : "\n");
  }
  out << "]\n";
}

}  // namespace

std::string DescribeBenchSuite() {
  // As wide as the longest operator label, so that the columns line up.
  int width = 0;
  for (const SuiteCase& suite_case : kBenchSuite) {
    width = std::max(width, static_cast<int>(OperatorLabel(suite_case).size()));
  }
  std::string text;
  char line[128];
  for (const SuiteCase& suite_case : kBenchSuite) {
    std::snprintf(line, sizeof(line), "  %2d %-*s %-22s %s %s%s\n", suite_case.id, width,
                  OperatorLabel(suite_case).c_str(), ShapeLabel(suite_case).c_str(),
                  SuiteDtypeTag(suite_case.dtype), LayoutLabel(suite_case),
                  suite_case.extra ? " (extra)" : "");
    text += line;
  }
  return text;
}

int RunBench(const BenchOptions& options, std::ostream& out) {
  if (options.json && !options.list_cases) throw ToolError("--json needs --list-cases");
  if (options.list_cases) {
    if (!options.cases.empty()) throw ToolError("--list-cases lists the whole suite; drop --case");
    if (options.json) {
      PrintSuiteJson(out);
    } else {
      out << DescribeBenchSuite();
    }
    return 0;
  }
  std::vector<int> ids = SelectedCases(options.cases);
  // As wide as the longest operator label of the cases run, so that the columns line up.
  size_t operator_width = 10;
  for (int id : ids) {
    operator_width =
        std::max(operator_width, OperatorLabel(kBenchSuite[static_cast<size_t>(id - 1)]).size());
  }
  const int width = static_cast<int>(operator_width);
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
      << "), SIMD target " << aclnn_upsample_simd_target();
  if (*aclnn_upsample_simd_extensions() != '\0')
    out << " with " << aclnn_upsample_simd_extensions();
  out << "\n";
  out << "memory roofline: " << DescribeRoofline(roofline, probe, kRooflineRepetitions) << "\n";
  char line[256];
  std::snprintf(line, sizeof(line), "%4s  %-*s  %-22s  %-8s  %-14s  %5s  %10s  %8s  %8s  %7s\n",
                "case", width, "operator", "N,C in -> out", "dtype", "layout", "runs", "median ms",
                "GB/s", "peak", "of peak");
  out << line << std::flush;

  AclSession session;
  for (int id : ids) {
    const SuiteCase& suite_case = kBenchSuite[static_cast<size_t>(id - 1)];
    Problem problem = SuiteProblem(suite_case);
    std::vector<std::byte> source = SuiteSource(problem);
    size_t element_size = DataTypeSize(problem.dtype);
    DeviceBuffer source_device(source.size());
    DeviceBuffer result_device(static_cast<size_t>(problem.result.StorageElements()) *
                               element_size);
    source_device.CopyFromHost(source.data(), source.size());
    OperatorCall call(problem, source_device.get(), result_device.get(), /*repeatable=*/true);

    // The case's peak: the streaming copy just before and just after it (see roofline.h), the
    // first before the warm-up, which then refills the caches the copy flushed.
    const double peak_before =
        probe.Rate(RooflineTraffic::kStreamingCopy, kRooflinePassesAroundACase);
    call.Execute(session.stream());  // warm-up: first-touch of the result, caches, threads
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

    std::snprintf(line, sizeof(line),
                  "%4d  %-*s  %-22s  %-8s  %-14s  %5zu  %10.3f  %8.2f  %8.2f  %6.1f%%\n", id, width,
                  OperatorLabel(suite_case).c_str(), ShapeLabel(suite_case).c_str(),
                  DataTypeName(problem.dtype), LayoutLabel(suite_case), times.size(), median * 1e3,
                  rate, peak, 100.0 * rate / peak);
    out << line << std::flush;
  }
  bool any_align_corners = false;
  for (int id : ids) any_align_corners |= kBenchSuite[static_cast<size_t>(id - 1)].align_corners;
  out << (any_align_corners ? "(* alignCorners) " : "")
      << "GB/s counts the source (gradOut, or a forward operator's input) read once and the "
         "result written once\n"
      << "peak: the streaming copy's GB/s around the case (mean of " << kRooflinePassesAroundACase
      << "-pass medians just before and after)\n";
  out << "roofline after the cases: "
      << DescribeRoofline(probe.Measure(kRooflineRepetitions), probe, kRooflineRepetitions) << "\n";
  return 0;
}

}  // namespace upsample_grad
