#include "commands.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>

#include "compare.h"
#include "npy.h"
#include "parse_lists.h"
#include "tool_error.h"
#include "typed_array.h"

namespace upsample_grad {
namespace {

// Buffers the library rejects anyway (contract 3.1: 60 GiB) are not worth allocating; a
// placeholder lets phase 1 report the sizes in its own words.
constexpr uint64_t kLargestUsefulBytes = uint64_t{60} << 30;

aclFormat ParseFormat(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (text == "nchw") return ACL_FORMAT_NCHW;
  if (text == "nhwc") return ACL_FORMAT_NHWC;
  if (text == "nd") return ACL_FORMAT_ND;
  throw ToolError("--format '" + text + "' is not known; expected nchw, nhwc or nd");
}

aclDataType AclDataType(ElementType type) {
  switch (type) {
    case ElementType::kFloat16:
      return ACL_FLOAT16;
    case ElementType::kBFloat16:
      return ACL_BF16;
    default:
      return ACL_FLOAT;
  }
}

ElementType ElementTypeOf(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT16:
      return ElementType::kFloat16;
    case ACL_BF16:
      return ElementType::kBFloat16;
    default:
      return ElementType::kFloat32;
  }
}

// The axes of the tensor an operator reads: the output's size for a backward operator.
std::string SourceAxisNames(const aclnn_upsample_operator& op, aclFormat format) {
  const std::string size = IsForward(op) ? "_in" : "_out";
  return format == ACL_FORMAT_NHWC ? "(N, H" + size + ", W" + size + ", C)"
                                   : "(N, C, H" + size + ", W" + size + ")";
}

// The result of a forward operator: the source's N and C, outputSize's H and W.
std::array<int64_t, 4> ResolveOutputSize(const std::string& text,
                                         const std::array<int64_t, 4>& source_dims,
                                         aclFormat format) {
  const std::string expected = "H,W (integers), the output's height and width";
  if (text.empty())
    throw ToolError("--output-size is required with an input file; expected " + expected);
  std::vector<int64_t> values = ParseIntegerList(text, "--output-size", expected);
  if (values.size() != 2) {
    throw ToolError("--output-size '" + text + "' has " + std::to_string(values.size()) +
                    " values; expected " + expected);
  }
  if (format == ACL_FORMAT_NHWC) return {source_dims[0], values[0], values[1], source_dims[3]};
  return {source_dims[0], source_dims[1], values[0], values[1]};
}

std::array<int64_t, 4> ResolveInputSize(const std::string& text,
                                        const std::array<int64_t, 4>& grad_out_dims,
                                        aclFormat format) {
  bool channels_last = format == ACL_FORMAT_NHWC;
  const std::string expected =
      channels_last ? "N,H,W,C or H,W (integers)" : "N,C,H,W or H,W (integers)";
  if (text.empty()) {
    throw ToolError("--input-size is required with an input file; expected " + expected +
                    ", the forward input's size");
  }
  std::vector<int64_t> values = ParseIntegerList(text, "--input-size", expected);
  if (values.size() == 4) return {values[0], values[1], values[2], values[3]};
  if (values.size() == 2) {
    // N and C come from gradOut, which has the same batch and channels as gradIn.
    if (channels_last) return {grad_out_dims[0], values[0], values[1], grad_out_dims[3]};
    return {grad_out_dims[0], grad_out_dims[1], values[0], values[1]};
  }
  throw ToolError("--input-size '" + text + "' has " + std::to_string(values.size()) +
                  " values; expected " + expected);
}

std::array<double, 2> ResolveScales(const std::string& text) {
  if (text.empty()) return {0, 0};
  std::vector<double> values =
      ParseNumberList(text, "--scales", "H,W (two numbers, output/input; 0 for not given)");
  if (values.size() != 2) {
    throw ToolError("--scales '" + text + "' has " + std::to_string(values.size()) +
                    " values; expected H,W (two numbers, output/input; 0 for not given)");
  }
  return {values[0], values[1]};
}

// Bytes of a buffer for `view`, or kLargestUsefulBytes + 1 when the dims are negative or too
// large for the operator to accept.
uint64_t BufferBytes(const TensorView& view, aclDataType dtype) {
  uint64_t bytes = DataTypeSize(dtype);
  for (int64_t dim : view.storage_dims) {
    if (dim < 0 || __builtin_mul_overflow(bytes, static_cast<uint64_t>(dim), &bytes) ||
        bytes > kLargestUsefulBytes) {
      return kLargestUsefulBytes + 1;
    }
  }
  return bytes;
}

std::string FormatMilliseconds(double seconds) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.3f ms", seconds * 1e3);
  return buffer;
}

std::string FormatRate(double bytes, double seconds) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.2f GB/s", seconds > 0 ? bytes / seconds / 1e9 : 0.0);
  return buffer;
}

std::vector<int64_t> AsVector(const std::array<int64_t, 4>& dims) {
  return {dims.begin(), dims.end()};
}

// Copies the source in, runs the operator once and returns the result in the problem's dtype;
// the seconds that phase 2 took go to `seconds`. Unlike RunOnce it does not allocate buffers for
// sizes the operator will refuse, so that the refusal comes from phase 1.
TypedArray Execute(const Problem& problem, const TypedArray& source, double* seconds) {
  AclSession session;
  TypedArray result;
  result.type = ElementTypeOf(problem.dtype);
  result.shape = AsVector(problem.result.dims);
  uint64_t result_bytes = BufferBytes(problem.result, problem.dtype);
  if (result_bytes <= kLargestUsefulBytes) {
    *seconds = RunOnce(session, problem, source.data, result.data);
    return result;
  }
  DeviceBuffer source_device(source.data.size());
  source_device.CopyFromHost(source.data.data(), source.data.size());
  DeviceBuffer placeholder(1);
  OperatorCall call(problem, source_device.get(), placeholder.get(), /*repeatable=*/false);
  throw ToolError(std::string(problem.op->name) + "GetWorkspaceSize accepted sizes whose " +
                  ResultName(*problem.op) + " does not fit in memory");
}

void PrintValues(std::ostream& out, const char* name, const TypedArray& array) {
  out << name << " " << npy::FormatShape(array.shape) << ":\n";
  int64_t width = array.shape.back();
  for (int64_t i = 0; i < array.ElementCount(); ++i) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%10.6f", array.ValueAt(i));
    out << buffer << ((i + 1) % width == 0 ? "\n" : " ");
  }
}

// Runs `problem`, writes the result to `output_path` (converted back to `file_type`) and prints
// the summary line, with the values too if `print_values`.
int RunAndReport(const Problem& problem, const TypedArray& source, ElementType file_type,
                 const ResampleOptions& options, bool print_values, std::ostream& out) {
  // Opened first so that an unwritable path fails before the work, and removed on any failure.
  std::optional<npy::AtomicFileWriter> output;
  if (!options.output_path.empty()) output.emplace(options.output_path);
  SetLibraryThreads(options.threads);

  double seconds = 0;
  TypedArray result = Execute(problem, source, &seconds);

  if (output) {
    TypedArray saved = file_type == ElementType::kFloat64 ? ConvertTo(result, file_type) : result;
    std::string header = npy::EncodeNpyHeader(NpyDescr(saved.type), saved.shape);
    output->Write(header.data(), header.size());
    output->Write(saved.data.data(), saved.data.size());
    output->Commit();
  }
  const aclnn_upsample_operator& op = *problem.op;
  if (print_values) PrintValues(out, ResultName(op), result);

  std::string dtype = DataTypeName(problem.dtype);
  if (file_type == ElementType::kFloat64) dtype += " (from float64)";
  out << op.command << ": " << op.name << " " << dtype << " " << FormatName(problem.format) << " "
      << SourceName(op) << " " << npy::FormatShape(source.shape) << " -> " << ResultName(op) << " "
      << npy::FormatShape(result.shape) << " in " << FormatMilliseconds(seconds) << ", "
      << FormatRate(static_cast<double>(problem.TrafficBytes()), seconds);
  if (options.threads > 0) out << ", " << options.threads << " threads";
  if (output) out << ", wrote " << options.output_path;
  out << "\n";
  return 0;
}

// Another row of the same mode and direction that has the parameter `op` lacks (Nearest2dV2
// for Nearest2d's scales), so that a refusal can point to the command that takes it.
const aclnn_upsample_operator* SiblingWith(const aclnn_upsample_operator& op,
                                           bool aclnn_upsample_operator::*parameter) {
  for (size_t i = 0; i < aclnn_upsample_operator_count(); ++i) {
    const aclnn_upsample_operator* other = aclnn_upsample_operator_at(i);
    if (other != &op && other->*parameter && other->direction == op.direction &&
        std::strcmp(other->mode, op.mode) == 0) {
      return other;
    }
  }
  return nullptr;
}

}  // namespace

std::string RefusedAlignCornersReason(const aclnn_upsample_operator& op) {
  if (op.takes_align_corners) return "";
  return std::string(op.name) + " has no alignCorners parameter: --align-corners is refused";
}

std::string RefusedScalesReason(const aclnn_upsample_operator& op) {
  if (op.takes_scales) return "";
  std::string reason = std::string(op.name) +
                       " has no scales parameters (its ratio is always input size / output "
                       "size): --scales is refused";
  if (const aclnn_upsample_operator* sibling =
          SiblingWith(op, &aclnn_upsample_operator::takes_scales)) {
    reason += std::string("; '") + sibling->command + "' (" + sibling->name + ") takes them";
  }
  return reason;
}

int RunResample(const ResampleOptions& options, std::ostream& out) {
  const aclnn_upsample_operator& op = *options.op;
  if (IsForward(op) && !options.input_size.empty()) {
    throw ToolError(std::string("--input-size is for the gradient commands; ") + op.command +
                    " reads its input's size from the file; expected --output-size H,W");
  }
  if (options.align_corners && !op.takes_align_corners) {
    throw ToolError(RefusedAlignCornersReason(op));
  }
  if (!options.scales.empty() && !op.takes_scales) throw ToolError(RefusedScalesReason(op));
  aclFormat format = ParseFormat(options.format);
  DtypeChoice choice = ParseDtypeChoice(options.dtype);
  TypedArray source = LoadTypedArray(options.input_path, choice);
  if (source.shape.size() != 4) {
    throw ToolError("'" + options.input_path + "' has shape " + npy::FormatShape(source.shape) +
                    "; expected a 4-D " + SourceName(op) + " " + SourceAxisNames(op, format));
  }
  ElementType file_type = source.type;
  // The operators take float32, float16 and bfloat16; float64 is computed in float32.
  if (file_type == ElementType::kFloat64) source = ConvertTo(source, ElementType::kFloat32);

  std::array<int64_t, 4> source_dims{source.shape[0], source.shape[1], source.shape[2],
                                     source.shape[3]};
  std::array<int64_t, 4> result_dims =
      IsForward(op) ? ResolveOutputSize(options.output_size, source_dims, format)
                    : ResolveInputSize(options.input_size, source_dims, format);
  std::array<double, 2> scales = ResolveScales(options.scales);
  Problem problem = MakeContiguousProblem(op, AclDataType(source.type), format, source_dims,
                                          result_dims, options.align_corners, scales[0], scales[1]);
  return RunAndReport(problem, source, file_type, options, /*print_values=*/false, out);
}

namespace {

// CANN's documented call examples (contract section 1.4): alignCorners true, scales 2, 2, and a
// source of `first + step * i`.
struct DocumentedExample {
  const char* operator_name;
  const char* description;
  std::array<int64_t, 4> source_dims;
  std::array<int64_t, 4> result_dims;
  float first;
  float step;
};

constexpr DocumentedExample kDocumentedExamples[] = {
    {"aclnnUpsampleBilinear2dBackwardV2",
     "gradOut (1, 1, 6, 6) all ones, outputSize [6, 6], inputSize [1, 1, 3, 3], alignCorners "
     "true, scales 2, 2",
     {1, 1, 6, 6},
     {1, 1, 3, 3},
     1.0f,
     0.0f},
    {"aclnnUpsampleBicubic2dAAGrad",
     "gradOut (1, 1, 4, 2) = 0..7, outputSize [4, 2], inputSize [1, 1, 8, 4], alignCorners "
     "true, scales 2, 2",
     {1, 1, 4, 2},
     {1, 1, 8, 4},
     0.0f,
     1.0f},
};

const DocumentedExample* FindDocumentedExample(const aclnn_upsample_operator& op) {
  for (const DocumentedExample& example : kDocumentedExamples) {
    if (std::strcmp(example.operator_name, op.name) == 0) return &example;
  }
  return nullptr;
}

}  // namespace

bool HasDocumentedExample(const aclnn_upsample_operator& op) {
  return FindDocumentedExample(op) != nullptr;
}

int RunEmbeddedExample(const ResampleOptions& options, std::ostream& out) {
  const aclnn_upsample_operator& op = *options.op;
  const DocumentedExample* example = FindDocumentedExample(op);
  if (example == nullptr) {
    throw ToolError(std::string("CANN documents no call example of ") + op.name +
                    "; expected an input file");
  }
  out << op.command << ": CANN's example: " << example->description << "\n";
  TypedArray source;
  source.type = ElementType::kFloat32;
  source.shape = AsVector(example->source_dims);
  std::vector<float> values(static_cast<size_t>(source.ElementCount()));
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = example->first + example->step * static_cast<float>(i);
  }
  source.data.resize(values.size() * sizeof(float));
  std::memcpy(source.data.data(), values.data(), source.data.size());
  Problem problem = MakeContiguousProblem(op, ACL_FLOAT, ACL_FORMAT_NCHW, example->source_dims,
                                          example->result_dims, /*align_corners=*/true, 2.0, 2.0);
  return RunAndReport(problem, source, ElementType::kFloat32, options, /*print_values=*/true, out);
}

int RunCompare(const CompareOptions& options, std::ostream& out) {
  DtypeChoice choice = ParseDtypeChoice(options.dtype);
  TypedArray result = LoadTypedArray(options.result_path, choice);
  TypedArray reference = LoadTypedArray(options.reference_path, choice);
  Tolerance tolerance = DefaultTolerance(result.type, reference.type);
  if (options.rtol >= 0) tolerance.rtol = options.rtol;
  if (options.atol >= 0) tolerance.atol = options.atol;
  CompareReport report = CompareArrays(result, reference, tolerance,
                                       static_cast<size_t>(std::max(options.max_listed, 0)));
  PrintCompareReport(out, options.result_path, result, options.reference_path, reference, tolerance,
                     report);
  return report.WithinTolerance() ? 0 : kExitMismatch;
}

}  // namespace upsample_grad
