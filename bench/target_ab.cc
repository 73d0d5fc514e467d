// target_ab: two SIMD targets of the library, side by side in one process. Each suite case (or
// shape) is planned once under each target, as the library plans for the target dispatched
// while planning, then timed in alternating blocks of calls, switching Highway's chosen target
// between blocks and swapping which goes first; it prints the median of the per-block time
// ratios and whether the two results are the same bits.
//
// Whole `upsample-grad bench` runs pinned with ACLNN_UPSAMPLE_SIMD, one target after the other,
// moved single cases by 0.6-1.5x between rounds on the shared VMs, too much to tell a 10 %
// difference; paired blocks seconds apart see the same machine.
//
//   build/bench/target_ab avx3 avx2 1 2 bilinear,8,8,128x128,256x256,fp32,channels_last,forward
//
// Targets are named as ACLNN_UPSAMPLE_SIMD names them: best, portable or a target's lower-case
// Highway name. The two sides may be one target with two kernel tunings (kernels::KernelTuning):
// --tune-a and --tune-b change the CPU's tuning for that side, as KEY=VALUE[,KEY=VALUE...] with
// keys at_once_bytes, prefetch_rows_at_once, spread_bytes, into_l2, many_taps_in_half_vectors,
// prefetch_row_group_chunks, blocked_in_half_vectors (0 or 1 for the flags), wide_periodic_taps,
// group_source_window_bytes and from_memory_at_once_bytes, so that a choice the library makes per
// CPU is measured the same way as a target (a ratio is best read as the geometric mean of both
// orders: on the Zen 4 VM side A read up to 1.1x slower on some cases whatever its tuning):
//
//   build/bench/target_ab --tune-b many_taps_in_half_vectors=0 avx3 avx3 22 25
//
// A case is a suite number or a shape as bench/compare_torch.py spells it:
// OP,N,C,INHxINW,OUTHxOUTW[,fp32|fp16|bf16][,channels_last][,align_corners][,forward], OP one of
// bilinear, bilinear_aa, bicubic, bicubic_aa, nearest, nearest_exact (the backward operator
// unless `forward`).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "acl_runner.h"
#include "bench_suite.h"
#include "hwy/targets.h"
#include "kernels/kernels.h"
#include "median.h"
#include "suite_problem.h"
#include "tool_error.h"

namespace upsample_grad {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  int threads = 2;
  int calls_per_block = 20;
  int blocks = 11;
  std::string target_a, target_b;
  aclnn_upsample::kernels::KernelTuning tunings[2] = {
      aclnn_upsample::kernels::DefaultTuningForCpu(),
      aclnn_upsample::kernels::DefaultTuningForCpu()};
  std::vector<std::string> cases;
};

// `tuning` changed by KEY=VALUE[,KEY=VALUE...].
void ParseTuning(const std::string& spec, aclnn_upsample::kernels::KernelTuning& tuning) {
  std::stringstream stream(spec);
  for (std::string field; std::getline(stream, field, ',');) {
    const size_t equals = field.find('=');
    const std::string key = field.substr(0, equals);
    char* end = nullptr;
    const char* text = equals == std::string::npos ? "" : field.c_str() + equals + 1;
    const unsigned long long value = std::strtoull(text, &end, 10);
    if (equals == std::string::npos || end == text || *end != '\0') {
      throw ToolError("tuning '" + field + "': expected KEY=NUMBER");
    }
    const auto flag = [&]() {
      if (value > 1) throw ToolError("tuning '" + field + "': expected 0 or 1");
      return value == 1;
    };
    if (key == "at_once_bytes") {
      tuning.at_once_bytes = value;
    } else if (key == "prefetch_rows_at_once") {
      tuning.prefetch_rows_at_once = flag();
    } else if (key == "spread_bytes") {
      tuning.spread_bytes = value;
    } else if (key == "into_l2") {
      tuning.into_l2 = flag();
    } else if (key == "many_taps_in_half_vectors") {
      tuning.many_taps_in_half_vectors = flag();
    } else if (key == "blocked_in_half_vectors") {
      tuning.blocked_in_half_vectors = flag();
    } else if (key == "wide_periodic_taps") {
      tuning.wide_periodic_taps = static_cast<int32_t>(value);
    } else if (key == "prefetch_row_group_chunks") {
      tuning.prefetch_row_group_chunks = flag();
    } else if (key == "from_memory_at_once_bytes") {
      tuning.from_memory_at_once_bytes = value;
    } else if (key == "group_source_window_bytes") {
      tuning.group_source_window_bytes = value;
    } else if (key == "last_level_cache_bytes") {
      tuning.last_level_cache_bytes = value;
    } else {
      throw ToolError("tuning key '" + key +
                      "': expected at_once_bytes, prefetch_rows_at_once, spread_bytes, into_l2, "
                      "many_taps_in_half_vectors, prefetch_row_group_chunks, "
                      "blocked_in_half_vectors, wide_periodic_taps, group_source_window_bytes, "
                      "from_memory_at_once_bytes or last_level_cache_bytes");
    }
  }
}

std::string TuningText(const aclnn_upsample::kernels::KernelTuning& tuning) {
  return "at_once_bytes=" + std::to_string(tuning.at_once_bytes) +
         ",prefetch_rows_at_once=" + std::to_string(tuning.prefetch_rows_at_once ? 1 : 0) +
         ",spread_bytes=" + std::to_string(tuning.spread_bytes) +
         ",into_l2=" + std::to_string(tuning.into_l2 ? 1 : 0) +
         ",many_taps_in_half_vectors=" + std::to_string(tuning.many_taps_in_half_vectors ? 1 : 0) +
         ",prefetch_row_group_chunks=" + std::to_string(tuning.prefetch_row_group_chunks ? 1 : 0) +
         ",blocked_in_half_vectors=" + std::to_string(tuning.blocked_in_half_vectors ? 1 : 0) +
         ",wide_periodic_taps=" + std::to_string(tuning.wide_periodic_taps) +
         ",group_source_window_bytes=" + std::to_string(tuning.group_source_window_bytes) +
         ",from_memory_at_once_bytes=" + std::to_string(tuning.from_memory_at_once_bytes) +
         ",last_level_cache_bytes=" + std::to_string(tuning.last_level_cache_bytes);
}

// The CPU's targets that `name` leaves, by ACLNN_UPSAMPLE_SIMD's rule ("best", "portable" or a
// target's lower-case name): Highway dispatches to the best of them.
int64_t TargetsFrom(const std::string& name) {
  const int64_t supported = hwy::SupportedTargets();
  const aclnn_upsample::kernels::SimdSelection selection =
      aclnn_upsample::kernels::SelectSimdTarget(name.c_str(), HWY_TARGETS, supported);
  if (!selection.ignored.empty()) {
    // The pin's message, less what the library does then ("; running the best, ...").
    throw ToolError(selection.ignored.substr(0, selection.ignored.rfind("; running")));
  }
  return supported & ~selection.disabled;
}

// One side's target and tuning, in force for the calls that follow.
void Dispatch(int64_t targets, const aclnn_upsample::kernels::KernelTuning& tuning) {
  hwy::GetChosenTarget().Update(targets);
  aclnn_upsample::kernels::OverrideTuning(tuning);
}

// A shape in compare_torch.py's spelling as a suite case; `command` keeps the operator's name.
SuiteCase ParseShape(const std::string& spec, std::string& command) {
  std::vector<std::string> fields;
  std::stringstream stream(spec);
  for (std::string field; std::getline(stream, field, ',');) fields.push_back(field);
  SuiteCase shape{};
  if (fields.size() < 5 ||
      std::sscanf(fields[3].c_str(), "%ldx%ld", &shape.in_h, &shape.in_w) != 2 ||
      std::sscanf(fields[4].c_str(), "%ldx%ld", &shape.out_h, &shape.out_w) != 2) {
    throw ToolError("shape '" + spec + "': expected OP,N,C,INHxINW,OUTHxOUTW[,...]");
  }
  command = fields[0];
  std::replace(command.begin(), command.end(), '_', '-');
  shape.n = std::atoll(fields[1].c_str());
  shape.c = std::atoll(fields[2].c_str());
  shape.dtype = ACL_FLOAT;
  for (size_t i = 5; i < fields.size(); ++i) {
    const std::string& flag = fields[i];
    if (flag == "forward") {
      command += "-forward";
    } else if (flag == "channels_last") {
      shape.layout = SuiteLayout::kNchwChannelsLastStrides;
    } else if (flag == "align_corners") {
      shape.align_corners = true;
    } else if (flag == "bf16" || flag == "fp16" || flag == "fp32") {
      shape.dtype = flag == "bf16" ? ACL_BF16 : flag == "fp16" ? ACL_FLOAT16 : ACL_FLOAT;
    } else {
      std::string message = "shape '" + spec;
      message += "': unknown flag '" + flag + "'";
      throw ToolError(message);
    }
  }
  shape.command = command.c_str();
  return shape;
}

void RunCase(const Options& options, const AclSession& session, const std::string& spec) {
  std::string command;
  const bool numbered = spec.find(',') == std::string::npos;
  const int id = numbered ? std::atoi(spec.c_str()) : 0;
  if (numbered && (id < 1 || id > static_cast<int>(kBenchSuite.size()))) {
    throw ToolError("case " + spec + " is not in the suite (1 to " +
                    std::to_string(kBenchSuite.size()) + ")");
  }
  const SuiteCase suite_case =
      numbered ? kBenchSuite[static_cast<size_t>(id - 1)] : ParseShape(spec, command);
  const Problem problem = SuiteProblem(suite_case);
  const std::vector<std::byte> source = SuiteSource(problem);
  const size_t result_bytes =
      static_cast<size_t>(problem.result.StorageElements()) * DataTypeSize(problem.dtype);
  DeviceBuffer source_device(source.size());
  source_device.CopyFromHost(source.data(), source.size());

  const int64_t targets[2] = {TargetsFrom(options.target_a), TargetsFrom(options.target_b)};
  std::unique_ptr<DeviceBuffer> results[2];
  std::unique_ptr<OperatorCall> calls[2];
  std::string names[2];
  for (int t = 0; t < 2; ++t) {
    Dispatch(targets[t], options.tunings[t]);
    results[t] = std::make_unique<DeviceBuffer>(result_bytes);
    calls[t] = std::make_unique<OperatorCall>(problem, source_device.get(), results[t]->get(),
                                              /*repeatable=*/true);
    names[t] = aclnn_upsample::kernels::ActiveTargetName();
    if (TuningText(options.tunings[0]) != TuningText(options.tunings[1])) {
      names[t] += t == 0 ? "-A" : "-B";  // the two tunings printed above
    }
    calls[t]->Execute(session.stream());  // warm-up, and the result compared below
  }
  std::vector<std::byte> host[2] = {std::vector<std::byte>(result_bytes),
                                    std::vector<std::byte>(result_bytes)};
  for (int t = 0; t < 2; ++t) results[t]->CopyToHost(host[t].data(), result_bytes);
  const bool same_bits = host[0] == host[1];

  std::vector<double> block_medians[2], ratios;
  for (int block = 0; block < options.blocks; ++block) {
    double medians[2];
    for (int turn = 0; turn < 2; ++turn) {
      const int t = (block + turn) % 2;
      Dispatch(targets[t], options.tunings[t]);
      calls[t]->Execute(session.stream());  // refills the caches the other target's calls used
      std::vector<double> seconds;
      for (int call = 0; call < options.calls_per_block; ++call) {
        const auto start = Clock::now();
        calls[t]->Execute(session.stream());
        seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
      }
      medians[t] = Median(seconds);
      block_medians[t].push_back(medians[t]);
    }
    ratios.push_back(medians[0] / medians[1]);
  }
  std::sort(ratios.begin(), ratios.end());
  std::printf("%-58s  %s %9.3f ms  %s %9.3f ms  %s/%s %.3f [%.3f..%.3f]  %s\n", spec.c_str(),
              names[0].c_str(), Median(block_medians[0]) * 1e3, names[1].c_str(),
              Median(block_medians[1]) * 1e3, names[0].c_str(), names[1].c_str(), Median(ratios),
              ratios.front(), ratios.back(), same_bits ? "same bits" : "DIFFERENT BITS");
  std::fflush(stdout);
}

Options ParseOptions(int argc, char** argv) {
  Options options;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto text = [&]() -> std::string {
      if (i + 1 >= argc) throw ToolError(arg + " needs a value");
      return argv[++i];
    };
    const auto value = [&]() { return std::atoi(text().c_str()); };
    if (arg == "--threads") {
      options.threads = value();
    } else if (arg == "--calls") {
      options.calls_per_block = value();
    } else if (arg == "--blocks") {
      options.blocks = value();
    } else if (arg == "--tune-a" || arg == "--tune-b") {
      ParseTuning(text(), options.tunings[arg == "--tune-a" ? 0 : 1]);
    } else {
      positional.push_back(arg);
    }
  }
  if (positional.size() < 3 || options.calls_per_block < 1 || options.blocks < 1) {
    throw ToolError(
        "usage: target_ab [--threads N] [--calls PER_BLOCK] [--blocks N] [--tune-a KEY=VALUE,...] "
        "[--tune-b KEY=VALUE,...] TARGET_A TARGET_B CASE_OR_SHAPE...");
  }
  options.target_a = positional[0];
  options.target_b = positional[1];
  options.cases.assign(positional.begin() + 2, positional.end());
  return options;
}

}  // namespace
}  // namespace upsample_grad

int main(int argc, char** argv) {
  using namespace upsample_grad;
  try {
    if (std::getenv("ACLNN_UPSAMPLE_SIMD") != nullptr) {
      throw ToolError("unset ACLNN_UPSAMPLE_SIMD: target_ab chooses the targets itself");
    }
    const Options options = ParseOptions(argc, argv);
    SetLibraryThreads(options.threads);
    AclSession session;
    std::printf(
        "threads %d, %d blocks of %d calls per target; ratio: median over blocks of A / B\n",
        options.threads, options.blocks, options.calls_per_block);
    std::printf("tuning A: %s\ntuning B: %s\n", TuningText(options.tunings[0]).c_str(),
                TuningText(options.tunings[1]).c_str());
    for (const std::string& spec : options.cases) RunCase(options, session, spec);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "target_ab: %s\n", error.what());
    return 1;
  }
  return 0;
}
