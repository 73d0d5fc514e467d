// The subcommands of upsample-grad, separated from the command-line parsing in main.cc. Each
// returns the process exit status and throws ToolError (or npy::NpyError) for bad input.
#ifndef TOOLS_UPSAMPLE_GRAD_COMMANDS_H_
#define TOOLS_UPSAMPLE_GRAD_COMMANDS_H_

#include <ostream>
#include <string>

#include "acl_runner.h"

namespace upsample_grad {

struct ResampleOptions {
  const aclnn_upsample_operator* op = nullptr;  // a row of the library's table
  std::string input_path;   // the source .npy; empty runs CANN's documented example
  std::string output_path;  // the result .npy; empty writes nothing
  // Backward operators: "N,C,H,W" (tensor axis order) or "H,W"; needed with input_path.
  std::string input_size;
  std::string output_size;  // forward operators: "H,W"; needed with input_path
  std::string scales;       // "H,W"; empty means not given (0, 0)
  std::string format = "nchw";
  std::string dtype = "auto";
  bool align_corners = false;
  int threads = 0;  // 0: the library's default
};

// Why `op`'s command refuses --align-corners (resp. --scales): the operator has no such
// parameter. Empty when it has one.
std::string RefusedAlignCornersReason(const aclnn_upsample_operator& op);
std::string RefusedScalesReason(const aclnn_upsample_operator& op);

// Runs the operator on the source from a file (gradOut, or a forward operator's image), writes
// the result and prints one summary line.
int RunResample(const ResampleOptions& options, std::ostream& out);

// Whether CANN documents a call example of `op` (contract section 1.4) that the tool embeds.
bool HasDocumentedExample(const aclnn_upsample_operator& op);

// Runs CANN's documented call example of `options.op` and prints the result values and the
// summary line.
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
  std::string cases;        // "1,3,5"; empty runs the whole suite
  bool list_cases = false;  // print the suite instead of running it
  bool json = false;        // ... as JSON, for bench/compare_torch.py
  int threads = 0;
  int min_runs = 10;
  double min_seconds = 0.5;
  int bandwidth_mib = 256;
};

// Runs the standard suite (bench_suite.h), printing one row per case as it finishes; or, with
// list_cases, prints the suite.
int RunBench(const BenchOptions& options, std::ostream& out);

// The suite, one line per case, for `upsample-grad bench --help`.
std::string DescribeBenchSuite();

}  // namespace upsample_grad

#endif  // TOOLS_UPSAMPLE_GRAD_COMMANDS_H_
