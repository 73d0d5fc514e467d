// upsample-grad: the command-line front end of the library's operators, one command per row of
// its operator table (aclnn_upsample/operators.h).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <deque>
#include <exception>
#include <iostream>
#include <memory>
#include <new>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "aclnn_upsample/operators.h"
#include "aclnn_upsample/version.h"
#include "bench_suite.h"
#include "commands.h"
#include "tool_error.h"

#ifndef UPSAMPLE_GRAD_VERSION
#define UPSAMPLE_GRAD_VERSION "unknown"
#endif

namespace upsample_grad {
namespace {

const char kExitStatusHelp[] =
    "Exit status: 0 on success; 2 on bad input or a library failure, with a one-line\n"
    "message on stderr.";

std::string OneLine(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

// `text` with its words wrapped at `width` columns.
std::string Wrap(const std::string& text, size_t width) {
  std::string wrapped;
  size_t line_length = 0;
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    if (line_length > 0 && line_length + 1 + word.size() > width) {
      wrapped += '\n';
      line_length = 0;
    } else if (line_length > 0) {
      wrapped += ' ';
      ++line_length;
    }
    wrapped += word;
    line_length += word.size();
  }
  return wrapped;
}

// Help in the layout of common Unix tools: the usage line first, text wrapped at 80 columns
// (CLI11 prints each description on one line however long), and the command list giving only
// the first sentence of each command's description.
class UnixHelpFormatter : public CLI::Formatter {
 public:
  static constexpr size_t kWidth = 80;

  std::string make_description(const CLI::App* app) const override {
    std::string name = app->get_name();
    if (app->get_parent() != nullptr) name = app->get_parent()->get_name() + " " + name;
    std::string description = app->get_description();
    return CLI::Formatter::make_usage(app, name) + "\n" + Wrap(description, kWidth) + "\n";
  }
  std::string make_usage(const CLI::App*, std::string) const override { return ""; }
  std::string make_option_desc(const CLI::Option* option) const override {
    return Wrap(option->get_description(), kWidth - get_column_width());
  }
  std::string make_subcommand(const CLI::App* command) const override {
    std::string summary = command->get_description();
    size_t end = std::min(summary.find(": "), summary.find(". "));
    if (end != std::string::npos) summary = summary.substr(0, end);
    if (!summary.empty() && summary.back() == '.') summary.pop_back();
    std::stringstream out;
    CLI::detail::format_help(out, command->get_name(), Wrap(summary, kWidth - get_column_width()),
                             get_column_width());
    return out.str();
  }
};

std::string LowerCase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// --version: the tool, the library it loaded, and the SIMD code that library runs here, so that
// a bug report or a benchmark names what produced it.
std::string VersionText() {
  const std::string active = aclnn_upsample_simd_target();
  const std::string supported = aclnn_upsample_simd_targets();
  const char* request = std::getenv("ACLNN_UPSAMPLE_SIMD");
  const std::string wanted = LowerCase(request == nullptr ? "" : request);
  // The portable target is listed last; every other one is pinned by its lower-case name.
  const std::string portable = supported.substr(supported.rfind(' ') + 1);
  std::string why = "the best this CPU supports";
  if (!wanted.empty() && wanted != "best") {
    const bool honoured =
        wanted == LowerCase(active) || (wanted == "portable" && active == portable);
    why = std::string(honoured ? "pinned by" : "ignored:") + " ACLNN_UPSAMPLE_SIMD=" + request;
  }
  std::string pins;
  std::istringstream names(supported);
  for (std::string name; names >> name;) {
    if (name != portable) pins += LowerCase(name) + "|";
  }
  const std::string extensions = aclnn_upsample_simd_extensions();
  return std::string("upsample-grad ") + UPSAMPLE_GRAD_VERSION + "\nlibrary: aclnn_upsample " +
         aclnn_upsample_version() + " (" + aclnn_upsample_build_type() +
         ")\nSIMD target: " + active + " (" + why +
         ")\nSIMD extensions in use: " + (extensions.empty() ? "none" : extensions) +
         "\nSIMD targets this CPU supports: " + supported +
         "\nSIMD targets compiled: " + aclnn_upsample_simd_compiled_targets() +
         "\nPin one with ACLNN_UPSAMPLE_SIMD=" + pins + "portable (default: best).";
}

// The tool's words for the 1-D weights of an operator's mode; the mode itself for one it does
// not know, so that a new row of the library's table still gets a command.
std::string ModeWords(const aclnn_upsample_operator& op) {
  const std::string mode = op.mode;
  if (mode == "bilinear") return "bilinear upsampling";
  if (mode == "bicubic_aa") return "anti-aliased bicubic resizing";
  if (mode == "bilinear_aa") return "anti-aliased bilinear resizing";
  if (mode == "bicubic") return "bicubic upsampling";
  if (mode == "nearest") return "nearest-neighbour resizing";
  if (mode == "nearest_exact") return "nearest-exact resizing";
  return mode + " resizing";
}

// What the help says about the options the operator has no parameter for (RunResample refuses
// them rather than pass a value the operator would silently ignore).
std::string MissingParametersHelp(const aclnn_upsample_operator& op) {
  std::string text;
  for (const std::string& paragraph : {RefusedAlignCornersReason(op), RefusedScalesReason(op)}) {
    if (!paragraph.empty()) text += Wrap(paragraph + ".", UnixHelpFormatter::kWidth) + "\n\n";
  }
  return text;
}

// The positional argument: GRAD_OUT, or CANN's name of a forward operator's input (SELF, X).
std::string SourceArgument(const aclnn_upsample_operator& op) {
  std::string name = IsForward(op) ? op.source_name : "GRAD_OUT";
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

std::string FormatsHelp(const aclnn_upsample_operator& op) {
  std::string text = "Tensor format: nchw";
  if (op.accepts_nhwc) {
    text += IsForward(op)
                ? " or nhwc (for nhwc, " + std::string(op.source_name) + " is N,H,W,C)"
                : " or nhwc (for nhwc, gradOut is N,H_out,W_out,C and --input-size N,H,W,C)";
  }
  if (op.accepts_nd) text += " or nd (read as NCHW)";
  return text + " [default: nchw]";
}

// One subcommand per row of the library's operator table, with the options of its direction:
// a backward operator needs --input-size (gradIn's shape), a forward one --output-size.
CLI::App* AddResampleCommand(CLI::App& app, ResampleOptions& options) {
  const aclnn_upsample_operator& op = *options.op;
  const std::string source = SourceName(op);
  const std::string result = ResultName(op);
  const std::string argument = SourceArgument(op);
  const bool forward = IsForward(op);
  const std::string description =
      forward ? "Resize " + source + " from a .npy file by " + ModeWords(op) + " (" + op.name +
                    "): the forward operator."
              : "Compute the gradient of " + ModeWords(op) + " (" + op.name +
                    ") for gradOut from a .npy file" +
                    (HasDocumentedExample(op) ? ", or for CANN's documented example." : ".");
  CLI::App* command = app.add_subcommand(op.command, description);
  command
      ->add_option(argument, options.input_path,
                   source +
                       " as a 4-D .npy file in the --format's axis order: float32, "
                       "float16, float64 (computed in float32) or raw bfloat16 ('<u2', '<i2' or "
                       "'<f2' data with --dtype bf16)" +
                       (HasDocumentedExample(op)
                            ? ". Without it, runs CANN's documented example and prints the "
                              "result values"
                            : ""))
      ->type_name("FILE.npy");
  command
      ->add_option("-o,--output", options.output_path,
                   "Write " + result + " to this .npy file, in " + source +
                       "'s dtype (bfloat16 as raw '<u2'); the file is written whole or not at "
                       "all")
      ->type_name("FILE.npy");
  if (forward) {
    command
        ->add_option(
            "--output-size", options.output_size,
            "The output's height and width (outputSize); N and C are " + source + "'s. Required")
        ->type_name("H,W");
    // Hidden, so that the gradient commands' habit gets an answer instead of a parse error.
    command->add_option("--input-size", options.input_size)->group("");
  } else {
    command
        ->add_option("--input-size", options.input_size,
                     "The forward input's size, i.e. gradIn's shape, in the tensor's axis order "
                     "(N,H,W,C for nhwc); or just H,W, taking N and C from gradOut. Required "
                     "with GRAD_OUT")
        ->type_name("N,C,H,W|H,W");
  }
  // Options for parameters the operator lacks stay parseable but unlisted, so that giving them
  // gets RunResample's explanation instead of a parse error (the footer says so too).
  CLI::Option* align_corners =
      command->add_flag("--align-corners", options.align_corners,
                        "Align the corner pixels of input and output (PyTorch's align_corners)");
  if (!op.takes_align_corners) align_corners->group("");
  CLI::Option* scales = command
                            ->add_option("--scales", options.scales,
                                         "The forward scale factors (output/input) of H and W; 0 "
                                         "means not given [default: 0,0]")
                            ->type_name("H,W");
  if (!op.takes_scales) scales->group("");
  command->add_option("--format", options.format, FormatsHelp(op))->type_name("FORMAT");
  command
      ->add_option("--dtype", options.dtype,
                   "How to read " + argument +
                       ": auto (from the file's dtype), fp32, fp16 or bf16 "
                       "(16-bit raw data as bfloat16) [default: auto]")
      ->type_name("DTYPE");
  command
      ->add_option("--threads", options.threads,
                   "Worker threads of the library (sets ACLNN_UPSAMPLE_NUM_THREADS) "
                   "[default: the library's choice]")
      ->type_name("N")
      ->check(CLI::Range(1, 4096).description(""));
  std::string examples = "Examples:\n";
  if (HasDocumentedExample(op)) examples += "  upsample-grad " + std::string(op.command) + "\n";
  const std::string align_flag = op.takes_align_corners ? " --align-corners" : "";
  examples += "  upsample-grad " + std::string(op.command) +
              (forward ? " image.npy --output-size 128,128" + align_flag + " -o resized.npy\n\n"
                       : " grad_out.npy --input-size 64,64" + align_flag + " -o grad_in.npy\n\n");
  command->footer(MissingParametersHelp(op) + examples + kExitStatusHelp);
  return command;
}

// Options that describe the problem make no sense for the embedded example, whose parameters
// are CANN's; refusing them beats silently ignoring them.
void RejectProblemOptions(const CLI::App& command, const std::string& argument) {
  for (const char* name :
       {"--input-size", "--output-size", "--align-corners", "--scales", "--format", "--dtype"}) {
    const CLI::Option* option = command.get_option_no_throw(name);
    if (option != nullptr && option->count() > 0) {
      throw ToolError(std::string(name) + " needs a " + argument +
                      " file; without one the command runs CANN's documented example with its "
                      "own parameters");
    }
  }
}

std::string OperatorNames() {
  std::string names;
  const size_t count = aclnn_upsample_operator_count();
  for (size_t i = 0; i < count; ++i) {
    if (i > 0) names += i + 1 == count ? " and " : ", ";
    names += aclnn_upsample_operator_at(i)->name;
  }
  return names;
}

int Main(int argc, char** argv) {
  CLI::App app(
      "Run CANN's upsample operators " + OperatorNames() +
          " on the CPU, from and to NumPy .npy files; compare results; benchmark the operators. "
          "With no command, run CANN's documented examples (of the gradients) and print the "
          "results.",
      "upsample-grad");
  app.set_version_flag("--version", VersionText,
                       "Print the versions of the tool and the library, the library's build type "
                       "and its SIMD targets, and exit");
  app.require_subcommand(0, 1);
  auto formatter = std::make_shared<UnixHelpFormatter>();
  formatter->column_width(30);
  formatter->label("SUBCOMMAND", "COMMAND");
  formatter->label("SUBCOMMANDS", "COMMANDS");
  formatter->label("Subcommands", "Commands");
  formatter->label("Positionals", "Arguments");
  app.formatter(formatter);
  app.footer(std::string("Run 'upsample-grad COMMAND --help' for the options of a command.\n\n") +
             kExitStatusHelp);

  // One command per row of the operator table; the deque keeps each row's options in place for
  // CLI11, which holds pointers to them.
  std::deque<ResampleOptions> resample_options;
  std::vector<std::pair<CLI::App*, ResampleOptions*>> resample_commands;
  for (size_t i = 0; i < aclnn_upsample_operator_count(); ++i) {
    ResampleOptions& options = resample_options.emplace_back();
    options.op = aclnn_upsample_operator_at(i);
    resample_commands.emplace_back(AddResampleCommand(app, options), &options);
  }

  CompareOptions compare_options;
  CLI::App* compare = app.add_subcommand(
      "compare",
      "Compare a result A with a reference B element by element: shapes and dtypes, max and "
      "mean absolute error, max relative error (where B != 0), cosine similarity, ulp "
      "distances (when both have the same float16, bfloat16 or float32 dtype), and the "
      "elements beyond tolerance, |a-b| > atol + rtol*|b|. NaN in the same place counts as "
      "equal.");
  compare->add_option("A", compare_options.result_path, "The result to check (.npy)")
      ->type_name("A.npy")
      ->required();
  compare->add_option("B", compare_options.reference_path, "The trusted reference (.npy)")
      ->type_name("B.npy")
      ->required();
  compare
      ->add_option("--rtol", compare_options.rtol,
                   "Relative tolerance [default: 1e-5 for float32/float64, 1e-3 for float16, "
                   "8e-3 for bfloat16, by the coarser dtype: just over one ulp]")
      ->type_name("R")
      ->check(CLI::NonNegativeNumber.description(""));
  compare
      ->add_option("--atol", compare_options.atol,
                   "Absolute tolerance [default: 1e-6 for float32/float64, 1e-5 for float16 "
                   "and bfloat16]")
      ->type_name("A")
      ->check(CLI::NonNegativeNumber.description(""));
  compare
      ->add_option("--dtype", compare_options.dtype,
                   "How to read both files: auto, fp32, fp16 or bf16 (16-bit raw data as "
                   "bfloat16) [default: auto]")
      ->type_name("DTYPE");
  compare
      ->add_option("--max-listed", compare_options.max_listed,
                   "How many elements beyond tolerance to list [default: 10]")
      ->type_name("N")
      ->check(CLI::NonNegativeNumber.description(""));
  compare->footer(
      "Example:\n  upsample-grad compare npu_grad_in.npy cpu_grad_in.npy --dtype bf16\n\n"
      "Exit status: 0 when every element is within tolerance; 1 when not, or when the\n"
      "shapes differ; 2 on bad input, with a one-line message on stderr.");

  BenchOptions bench_options;
  CLI::App* bench = app.add_subcommand(
      "bench",
      "Run the standard benchmark suite, one row per case as it finishes: the median time of "
      "repeated runs of one repeatable executor, GB/s (the source read + the result written: "
      "gradOut and gradIn, or a forward operator's input and output) and the "
      "fraction of the memory roofline: a copy with streaming stores measured just before and "
      "after the case, at the same thread count (read-only and write-only rates in the header).");
  bench
      ->add_option(
          "--case", bench_options.cases,
          "Run only these cases of the suite (1 to " + std::to_string(kBenchSuite.size()) + ")")
      ->type_name("N[,M...]");
  bench->add_flag("--list-cases", bench_options.list_cases,
                  "Print the suite instead of running it");
  bench->add_flag("--json", bench_options.json,
                  "With --list-cases: print the suite as JSON (what bench/compare_torch.py reads)");
  bench
      ->add_option("--threads", bench_options.threads,
                   "Worker threads of the library and of the bandwidth copy "
                   "[default: the library's choice; all cores for the copy]")
      ->type_name("N")
      ->check(CLI::Range(1, 4096).description(""));
  bench
      ->add_option("--repeats", bench_options.min_runs,
                   "Timed runs per case at least [default: 10]")
      ->type_name("N")
      ->check(CLI::Range(1, 1000000).description(""));
  bench
      ->add_option("--min-time", bench_options.min_seconds,
                   "Keep timing a case until this many seconds have passed [default: 0.5]")
      ->type_name("SECONDS")
      ->check(CLI::NonNegativeNumber.description(""));
  bench
      ->add_option("--bandwidth-mib", bench_options.bandwidth_mib,
                   "Size of the copy that measures memory bandwidth [default: 256]")
      ->type_name("MIB")
      ->check(CLI::Range(1, 65536).description(""));
  bench->footer(
      "Cases (forward input -> output size; * alignCorners; channels-last as NCHW views):\n" +
      DescribeBenchSuite() + "\n" + std::string(kExitStatusHelp));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) return app.exit(error);  // --help, --version
    std::string where = "upsample-grad";
    for (const CLI::App* command : app.get_subcommands()) where += " " + command->get_name();
    std::cerr << where << ": " << OneLine(error.what()) << " (see '" << where << " --help')\n";
    return kExitBadInput;
  }

  std::string where = "upsample-grad";
  try {
    if (*compare) {
      where += " compare";
      return RunCompare(compare_options, std::cout);
    }
    if (*bench) {
      where += " bench";
      return RunBench(bench_options, std::cout);
    }
    for (auto [command, options] : resample_commands) {
      if (!*command) continue;
      where += " " + command->get_name();
      if (!options->input_path.empty()) return RunResample(*options, std::cout);
      const std::string argument = SourceArgument(*options->op);
      if (!HasDocumentedExample(*options->op)) {
        throw ToolError(argument +
                        " (a .npy file) is required: CANN documents no call example of " +
                        options->op->name);
      }
      RejectProblemOptions(*command, argument);
      return RunEmbeddedExample(*options, std::cout);
    }
    // No subcommand: the project's main job, every documented example.
    bool first = true;
    for (auto [command, options] : resample_commands) {
      if (!HasDocumentedExample(*options->op)) continue;
      if (!first) std::cout << "\n";
      first = false;
      RunEmbeddedExample(*options, std::cout);
    }
    return 0;
  } catch (const std::bad_alloc&) {
    std::cout.flush();
    std::cerr << where << ": out of memory; expected inputs that fit in this machine's memory\n";
  } catch (const std::exception& error) {
    std::cout.flush();
    std::cerr << where << ": " << OneLine(error.what()) << "\n";
  }
  return kExitBadInput;
}

}  // namespace
}  // namespace upsample_grad

int main(int argc, char** argv) { return upsample_grad::Main(argc, argv); }
