// The subcommands of upsample-grad, separated from the command-line parsing in main.cc. Each
// returns the process exit status and throws ToolError (or npy::NpyError) for bad input.
#ifndef TOOLS_UPSAMPLE_GRAD_COMMANDS_H_
#define TOOLS_UPSAMPLE_GRAD_COMMANDS_H_

#include <ostream>
#include <string>

#include "acl_runner.h"

namespace upsample_grad {

struct ResampleOptions {
  Operator op = Operator::kBilinear;
  std::string input_path;   // gradOut .npy; empty runs CANN's documented example
  std::string output_path;  // gradIn .npy; empty writes nothing
  std::string input_size;   // "N,C,H,W" (tensor axis order) or "H,W"; needed with input_path
  std::string scales;       // "H,W"; empty means not given (0, 0)
  std::string format = "nchw";
  std::string dtype = "auto";
  bool align_corners = false;
  int threads = 0;  // 0: the library's default
};

// Computes gradIn for gradOut from a file, writes it and prints one summary line.
int RunResample(const ResampleOptions& options, std::ostream& out);

// Runs CANN's documented call example of `options.op` (contract section 1.4) and prints the
// result values and the summary line.
int RunEmbeddedExample(const ResampleOptions& options, std::ostream& out);

struct CompareOptions {
  std::string result_path;     // A
  std::string reference_path;  // B
  std::string dtype = "auto";
  double rtol = -1;  // negative: the default of the dtypes (see DefaultTolerance)
  double atol = -1;
  int max_listed = 10;
};

// Prints the comparison report; 0 when every element is within tolerance, 1 when not.
int RunCompare(const CompareOptions& options, std::ostream& out);

struct BenchOptions {
  std::string cases;  // "1,3,5"; empty runs the whole suite
  int threads = 0;
  int min_runs = 10;
  double min_seconds = 0.5;
  int bandwidth_mib = 256;
};

// Runs the standard suite (bench_suite.h), printing one row per case as it finishes.
int RunBench(const BenchOptions& options, std::ostream& out);

}  // namespace upsample_grad

#endif  // TOOLS_UPSAMPLE_GRAD_COMMANDS_H_
