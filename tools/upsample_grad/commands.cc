#include "commands.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>
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

std::string AxisNames(aclFormat format) {
  return format == ACL_FORMAT_NHWC ? "(N, H_out, W_out, C)" : "(N, C, H_out, W_out)";
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

// Copies gradOut in, runs the operator once and returns gradIn in the problem's dtype; the
// seconds that phase 2 took go to `seconds`. Unlike RunOnce it does not allocate buffers for
// sizes the operator will refuse, so that the refusal comes from phase 1.
TypedArray Execute(const Problem& problem, const TypedArray& grad_out, double* seconds) {
  AclSession session;
  TypedArray grad_in;
  grad_in.type = ElementTypeOf(problem.dtype);
  grad_in.shape = AsVector(problem.grad_in.dims);
  uint64_t grad_in_bytes = BufferBytes(problem.grad_in, problem.dtype);
  if (grad_in_bytes <= kLargestUsefulBytes) {
    *seconds = RunOnce(session, problem, grad_out.data, grad_in.data);
    return grad_in;
  }
  DeviceBuffer grad_out_device(grad_out.data.size());
  grad_out_device.CopyFromHost(grad_out.data.data(), grad_out.data.size());
  DeviceBuffer placeholder(1);
  OperatorCall call(problem, grad_out_device.get(), placeholder.get(), /*repeatable=*/false);
  throw ToolError(std::string(AclnnName(problem.op)) +
                  "GetWorkspaceSize accepted an inputSize whose gradIn does not fit in memory");
}

void PrintValues(std::ostream& out, const TypedArray& array) {
  out << "gradIn " << npy::FormatShape(array.shape) << ":\n";
  int64_t width = array.shape.back();
  for (int64_t i = 0; i < array.ElementCount(); ++i) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%10.6f", array.ValueAt(i));
    out << buffer << ((i + 1) % width == 0 ? "\n" : " ");
  }
}

// Runs `problem`, writes gradIn to `output_path` (converted back to `file_type`) and prints the
// summary line, with the values too if `print_values`.
int RunAndReport(const Problem& problem, const TypedArray& grad_out, ElementType file_type,
                 const ResampleOptions& options, bool print_values, std::ostream& out) {
  // Opened first so that an unwritable path fails before the work, and removed on any failure.
  std::optional<npy::AtomicFileWriter> output;
  if (!options.output_path.empty()) output.emplace(options.output_path);
  SetLibraryThreads(options.threads);

  double seconds = 0;
  TypedArray grad_in = Execute(problem, grad_out, &seconds);

  if (output) {
    TypedArray saved = file_type == ElementType::kFloat64 ? ConvertTo(grad_in, file_type) : grad_in;
    std::string header = npy::EncodeNpyHeader(NpyDescr(saved.type), saved.shape);
    output->Write(header.data(), header.size());
    output->Write(saved.data.data(), saved.data.size());
    output->Commit();
  }
  if (print_values) PrintValues(out, grad_in);

  std::string dtype = DataTypeName(problem.dtype);
  if (file_type == ElementType::kFloat64) dtype += " (from float64)";
  out << OperatorName(problem.op) << ": " << AclnnName(problem.op) << " " << dtype << " "
      << FormatName(problem.format) << " gradOut " << npy::FormatShape(grad_out.shape)
      << " -> gradIn " << npy::FormatShape(grad_in.shape) << " in " << FormatMilliseconds(seconds)
      << ", " << FormatRate(static_cast<double>(problem.TrafficBytes()), seconds);
  if (options.threads > 0) out << ", " << options.threads << " threads";
  if (output) out << ", wrote " << options.output_path;
  out << "\n";
  return 0;
}

}  // namespace

int RunResample(const ResampleOptions& options, std::ostream& out) {
  aclFormat format = ParseFormat(options.format);
  DtypeChoice choice = ParseDtypeChoice(options.dtype);
  TypedArray grad_out = LoadTypedArray(options.input_path, choice);
  if (grad_out.shape.size() != 4) {
    throw ToolError("'" + options.input_path + "' has shape " + npy::FormatShape(grad_out.shape) +
                    "; expected a 4-D gradOut " + AxisNames(format));
  }
  ElementType file_type = grad_out.type;
  // The operators take float32, float16 and bfloat16; float64 is computed in float32.
  if (file_type == ElementType::kFloat64) grad_out = ConvertTo(grad_out, ElementType::kFloat32);

  std::array<int64_t, 4> grad_out_dims{grad_out.shape[0], grad_out.shape[1], grad_out.shape[2],
                                       grad_out.shape[3]};
  std::array<int64_t, 4> input_size = ResolveInputSize(options.input_size, grad_out_dims, format);
  std::array<double, 2> scales = ResolveScales(options.scales);
  Problem problem =
      MakeContiguousProblem(options.op, AclDataType(grad_out.type), format, grad_out_dims,
                            input_size, options.align_corners, scales[0], scales[1]);
  return RunAndReport(problem, grad_out, file_type, options, /*print_values=*/false, out);
}

int RunEmbeddedExample(const ResampleOptions& options, std::ostream& out) {
  // CANN's documented call examples (contract section 1.4).
  TypedArray grad_out;
  grad_out.type = ElementType::kFloat32;
  std::array<int64_t, 4> input_size{};
  std::vector<float> values;
  if (options.op == Operator::kBilinear) {
    grad_out.shape = {1, 1, 6, 6};
    input_size = {1, 1, 3, 3};
    values.assign(36, 1.0f);
    out << "bilinear: CANN's example: gradOut (1, 1, 6, 6) all ones, outputSize [6, 6], "
           "inputSize [1, 1, 3, 3], alignCorners true, scales 2, 2\n";
  } else {
    grad_out.shape = {1, 1, 4, 2};
    input_size = {1, 1, 8, 4};
    values.resize(8);
    std::iota(values.begin(), values.end(), 0.0f);
    out << "bicubic-aa: CANN's example: gradOut (1, 1, 4, 2) = 0..7, outputSize [4, 2], "
           "inputSize [1, 1, 8, 4], alignCorners true, scales 2, 2\n";
  }
  grad_out.data.resize(values.size() * sizeof(float));
  std::memcpy(grad_out.data.data(), values.data(), grad_out.data.size());
  std::array<int64_t, 4> grad_out_dims{grad_out.shape[0], grad_out.shape[1], grad_out.shape[2],
                                       grad_out.shape[3]};
  Problem problem = MakeContiguousProblem(options.op, ACL_FLOAT, ACL_FORMAT_NCHW, grad_out_dims,
                                          input_size, /*align_corners=*/true, 2.0, 2.0);
  return RunAndReport(problem, grad_out, ElementType::kFloat32, options, /*print_values=*/true,
                      out);
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
