#include "ops/common/validation.h"

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/error.h"
#include "runtime/tensor.h"

namespace aclnn_upsample {
namespace {

using Int128 = __int128;

constexpr int64_t kMaxDim = int64_t{1} << 20;
constexpr int64_t kMaxRows = int64_t{1} << 31;           // N * C * H_out must stay below
constexpr Int128 kMaxFootprintBytes = Int128{60} << 30;  // 60 GiB

std::string Join(const std::vector<int64_t>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(values[i]);
  }
  return text + "]";
}

const char* FormatName(aclFormat format) {
  switch (format) {
    case ACL_FORMAT_NCHW:
      return "NCHW";
    case ACL_FORMAT_NHWC:
      return "NHWC";
    case ACL_FORMAT_ND:
      return "ND";
    default:
      return nullptr;
  }
}

std::string DescribeFormat(aclFormat format) {
  const char* name = FormatName(format);
  return name != nullptr ? name : "format " + std::to_string(static_cast<int>(format));
}

bool ToDType(aclDataType type, DType* dtype) {
  switch (type) {
    case ACL_FLOAT:
      *dtype = DType::kFloat32;
      return true;
    case ACL_FLOAT16:
      *dtype = DType::kFloat16;
      return true;
    case ACL_BF16:
      *dtype = DType::kBFloat16;
      return true;
    default:
      return false;
  }
}

std::string DescribeDType(aclDataType type) {
  DType dtype;
  if (ToDType(type, &dtype)) return DTypeName(dtype);
  return "aclDataType " + std::to_string(static_cast<int>(type));
}

class Checker {
 public:
  explicit Checker(const aclnn_upsample_operator& op) : op_(op) {}
  aclnnStatus Fail(aclnnStatus status, const std::string& parameter, const std::string& expected,
                   const std::string& actual) const {
    return aclnn_upsample::Fail(status, op_.name, parameter, expected, actual);
  }
  aclnnStatus Invalid(const std::string& parameter, const std::string& expected,
                      const std::string& actual) const {
    return Fail(ACLNN_ERR_PARAM_INVALID, parameter, expected, actual);
  }

 private:
  const aclnn_upsample_operator& op_;
};

bool IsForward(const aclnn_upsample_operator& op) { return op.direction == ACLNN_UPSAMPLE_FORWARD; }

// Largest element offset of a view from its first element; the view must be non-empty.
Int128 LastOffset(const aclTensor& t) {
  Int128 last = 0;
  for (size_t d = 0; d < t.view_dims.size(); ++d) last += Int128{t.view_dims[d] - 1} * t.strides[d];
  return last;
}

bool IsEmptyView(const aclTensor& t) {
  return std::any_of(t.view_dims.begin(), t.view_dims.end(), [](int64_t d) { return d == 0; });
}

// Whether every element of a non-empty view has its own address.
enum class AddressCheck { kDistinct, kShared, kUnverifiable };

constexpr int64_t kMaxEnumeratedElements = int64_t{1} << 22;

AddressCheck ClassifyAddresses(const aclTensor& t) {
  // Sorted by stride, a dimension that steps past everything the smaller ones reach proves it
  // for the usual layouts (contiguous, padded, permuted) without touching elements.
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size)
  Int128 elements = 1;
  for (size_t d = 0; d < t.view_dims.size(); ++d) {
    elements *= t.view_dims[d];
    if (t.view_dims[d] > 1) dims.emplace_back(t.strides[d], t.view_dims[d]);
  }
  std::sort(dims.begin(), dims.end());
  Int128 reach = 0;
  bool nested = true;
  for (const auto& [stride, size] : dims) {
    if (stride == 0) return AddressCheck::kShared;
    if (stride <= reach) nested = false;
    reach += Int128{size - 1} * stride;
  }
  if (nested) return AddressCheck::kDistinct;
  // Interleaved strides (e.g. shape {3, 2}, strides {2, 3}) may still be distinct: enumerate.
  if (elements > kMaxEnumeratedElements) return AddressCheck::kUnverifiable;
  std::vector<int64_t> offsets{0};
  for (const auto& [stride, size] : dims) {
    const size_t previous = offsets.size();
    for (int64_t i = 1; i < size; ++i) {
      for (size_t k = 0; k < previous; ++k) offsets.push_back(offsets[k] + i * stride);
    }
  }
  std::sort(offsets.begin(), offsets.end());
  return std::adjacent_find(offsets.begin(), offsets.end()) == offsets.end()
             ? AddressCheck::kDistinct
             : AddressCheck::kShared;
}

// #1: no null handles (a forward signature has no inputSize).
aclnnStatus CheckNotNull(const Checker& check, const aclnn_upsample_operator& op,
                         const aclTensor* source, const aclIntArray* output_size,
                         const aclIntArray* input_size, const aclTensor* out,
                         const uint64_t* workspace_size, aclOpExecutor* const* executor) {
  const std::array<std::pair<const void*, const char*>, 6> handles = {{
      {source, op.source_name},
      {output_size, "outputSize"},
      {input_size, "inputSize"},
      {out, op.result_name},
      {workspace_size, "workspaceSize"},
      {executor, "executor"},
  }};
  for (const auto& [pointer, name] : handles) {
    const bool in_signature = !(IsForward(op) && std::string_view(name) == "inputSize");
    if (pointer == nullptr && in_signature) {
      return check.Fail(ACLNN_ERR_PARAM_NULLPTR, name, "a non-null pointer", "nullptr");
    }
  }
  return ACLNN_SUCCESS;
}

// #2: both dtypes supported and equal.
aclnnStatus CheckDTypes(const Checker& check, const aclnn_upsample_operator& op,
                        const aclTensor& source, const aclTensor& out, DType* dtype) {
  const char* supported = "FLOAT32, FLOAT16 or BFLOAT16";
  if (!ToDType(source.dtype, dtype)) {
    return check.Invalid(std::string(op.source_name) + " dtype", supported,
                         DescribeDType(source.dtype));
  }
  DType out_dtype;
  if (!ToDType(out.dtype, &out_dtype)) {
    return check.Invalid(std::string(op.result_name) + " dtype", supported,
                         DescribeDType(out.dtype));
  }
  if (out_dtype != *dtype) {
    return check.Invalid(
        std::string(op.result_name) + " dtype",
        std::string("the dtype of ") + op.source_name + " (" + DTypeName(*dtype) + ")",
        DTypeName(out_dtype));
  }
  return ACLNN_SUCCESS;
}

// #3: formats accepted by this operator and equal.
aclnnStatus CheckFormats(const Checker& check, const aclnn_upsample_operator& op,
                         const aclTensor& source, const aclTensor& out) {
  const std::string accepted = op.accepts_nhwc && op.accepts_nd ? "NCHW, NHWC or ND"
                               : op.accepts_nhwc                ? "NCHW or NHWC"
                               : op.accepts_nd                  ? "NCHW or ND"
                                                                : "NCHW";
  auto accepts = [&](aclFormat f) {
    return f == ACL_FORMAT_NCHW || (f == ACL_FORMAT_NHWC && op.accepts_nhwc) ||
           (f == ACL_FORMAT_ND && op.accepts_nd);
  };
  if (!accepts(source.format)) {
    return check.Invalid(std::string(op.source_name) + " format", accepted,
                         DescribeFormat(source.format));
  }
  if (!accepts(out.format))
    return check.Invalid(std::string(op.result_name) + " format", accepted,
                         DescribeFormat(out.format));
  if (source.format != out.format) {
    return check.Invalid(
        std::string(op.result_name) + " format",
        std::string("the format of ") + op.source_name + " (" + DescribeFormat(source.format) + ")",
        DescribeFormat(out.format));
  }
  return ACLNN_SUCCESS;
}

// #4: ranks and array lengths (`input_size` null for a forward signature).
aclnnStatus CheckRanks(const Checker& check, const aclnn_upsample_operator& op,
                       const aclTensor& source, const aclIntArray& output_size,
                       const aclIntArray* input_size, const aclTensor& out) {
  if (source.view_dims.size() != 4) {
    return check.Invalid(
        op.source_name, "a 4-D tensor",
        std::to_string(source.view_dims.size()) + "-D shape " + Join(source.view_dims));
  }
  if (out.view_dims.size() != 4) {
    return check.Invalid(op.result_name, "a 4-D tensor",
                         std::to_string(out.view_dims.size()) + "-D shape " + Join(out.view_dims));
  }
  if (output_size.values.size() != 2) {
    return check.Invalid(
        "outputSize", "2 elements [H_out, W_out]",
        std::to_string(output_size.values.size()) + " elements " + Join(output_size.values));
  }
  if (input_size != nullptr && input_size->values.size() != 4) {
    return check.Invalid(
        "inputSize", "4 elements",
        std::to_string(input_size->values.size()) + " elements " + Join(input_size->values));
  }
  return ACLNN_SUCCESS;
}

// Where N, C, H and W sit in a format's axis order: inputSize and both views are given in it.
// N is always axis 0; ND is read as NCHW.
struct AxisOrder {
  int c, h, w;
  const char* text;  // for messages
};

AxisOrder AxisOrderOf(aclFormat format) {
  return format == ACL_FORMAT_NHWC ? AxisOrder{3, 1, 2, "[N, H, W, C]"}
                                   : AxisOrder{1, 2, 3, "[N, C, H, W]"};
}

// #5: value ranges of outputSize and of the forward input's sizes (inputSize, or a forward
// call's source shape, named `in_size_name`). N or C may be 0: whether an empty problem is
// accepted is the operator's own rule (contract 3.2, 3.3).
aclnnStatus CheckSizeValues(const Checker& check, const AxisOrder& axes,
                            const std::vector<int64_t>& out_hw, const std::vector<int64_t>& in_size,
                            const std::string& in_size_name) {
  for (int i = 0; i < 2; ++i) {
    if (out_hw[i] < 1 || out_hw[i] > kMaxDim) {
      return check.Invalid("outputSize[" + std::to_string(i) + "]", "a value in [1, 2^20]",
                           std::to_string(out_hw[i]));
    }
  }
  for (int axis : {axes.h, axes.w}) {
    if (in_size[axis] < 1 || in_size[axis] > kMaxDim) {
      return check.Invalid(
          in_size_name + "[" + std::to_string(axis) + "] (" + (axis == axes.h ? "H" : "W") + ")",
          "a value in [1, 2^20]", std::to_string(in_size[axis]));
    }
  }
  for (int axis : {0, axes.c}) {
    if (in_size[axis] < 0 || in_size[axis] > kMaxDim) {
      return check.Invalid(
          in_size_name + "[" + std::to_string(axis) + "] (" + (axis == 0 ? "N" : "C") + ")",
          "a value in [0, 2^20]", std::to_string(in_size[axis]));
    }
  }
  return ACLNN_SUCCESS;
}

// #6: every dimension of a tensor within [0, 2^20].
aclnnStatus CheckDimRange(const Checker& check, const aclTensor& tensor, const char* name) {
  for (int64_t d : tensor.view_dims) {
    if (d < 0 || d > kMaxDim) {
      return check.Invalid(std::string(name) + " shape", "dimensions in [0, 2^20]",
                           Join(tensor.view_dims));
    }
  }
  return ACLNN_SUCCESS;
}

// The problem's sizes, from outputSize and the forward input's sizes (whose values #5 has
// checked).
void ReadSizes(const AxisOrder& axes, const std::vector<int64_t>& out_hw,
               const std::vector<int64_t>& in_size, Problem* problem) {
  problem->batch = in_size[0];
  problem->channels = in_size[axes.c];
  problem->forward_in_h = in_size[axes.h];
  problem->forward_in_w = in_size[axes.w];
  problem->forward_out_h = out_hw[0];
  problem->forward_out_w = out_hw[1];
}

// #7: shapes agree with outputSize and the forward input's sizes: the forward output (a backward
// call's source, a forward call's out) is {N, C, outputSize}, and a backward call's out is
// inputSize (a forward call's source is its own forward input).
aclnnStatus CheckShapes(const Checker& check, const aclnn_upsample_operator& op,
                        const AxisOrder& axes, const Problem& problem, const aclTensor& source,
                        const std::vector<int64_t>& in_size, const aclTensor& out) {
  std::vector<int64_t> expected(4);
  expected[0] = problem.batch;
  expected[axes.c] = problem.channels;
  expected[axes.h] = problem.forward_out_h;
  expected[axes.w] = problem.forward_out_w;
  const bool forward = IsForward(op);
  const aclTensor& forward_output = forward ? out : source;
  if (forward_output.view_dims != expected) {
    const std::string origin = forward ? std::string(op.source_name) + "'s N, C and outputSize"
                                       : "inputSize's N, C and outputSize";
    return check.Invalid(std::string(forward ? op.result_name : op.source_name) + " shape",
                         Join(expected) + " (" + axes.text + " from " + origin + ")",
                         Join(forward_output.view_dims));
  }
  if (!forward && out.view_dims != in_size) {
    return check.Invalid(std::string(op.result_name) + " shape",
                         "inputSize " + Join(in_size) + " " + axes.text, Join(out.view_dims));
  }
  return ACLNN_SUCCESS;
}

// #8: the size limits, from the metadata alone.
aclnnStatus CheckLimits(const Checker& check, const Problem& problem) {
  const int64_t batch = problem.batch, channels = problem.channels;
  const int64_t in_h = problem.forward_in_h, in_w = problem.forward_in_w;
  const int64_t out_h = problem.forward_out_h, out_w = problem.forward_out_w;
  const Int128 planes = Int128{batch} * channels;
  if (planes * out_h >= kMaxRows) {
    return check.Invalid("N * C * H_out", "< 2^31",
                         std::to_string(batch) + " * " + std::to_string(channels) + " * " +
                             std::to_string(out_h) + " = " +
                             std::to_string(static_cast<int64_t>(planes * out_h)));
  }
  const Int128 footprint = (Int128{out_h} * out_w + Int128{in_h} * in_w + Int128{out_h} * in_w) *
                           planes * static_cast<int64_t>(DTypeSize(problem.dtype));
  if (footprint >= kMaxFootprintBytes) {
    return check.Invalid("memory footprint (H_out*W_out + H_in*W_in + H_out*W_in)*N*C*sizeof",
                         "< 60 GiB (64424509440 bytes)",
                         std::to_string(static_cast<int64_t>(footprint)) + " bytes");
  }
  return ACLNN_SUCCESS;
}

// #9: one non-negative stride per dimension.
aclnnStatus CheckStrides(const Checker& check, const aclTensor& tensor, const char* name) {
  if (tensor.strides.size() != tensor.view_dims.size()) {
    return check.Invalid(std::string(name) + " strides", "one stride per dimension",
                         Join(tensor.strides));
  }
  for (int64_t s : tensor.strides) {
    if (s < 0) {
      return check.Invalid(std::string(name) + " strides", "non-negative strides",
                           Join(tensor.strides));
    }
  }
  return ACLNN_SUCCESS;
}

// Bytes no process can address (x86-64 and AArch64 user space is at most 2^56 bytes). A view
// reaching that far is as invalid as one outside its storage, and the bound keeps the engine's
// byte offsets (strides times element sizes, and small multiples of them) inside int64.
constexpr int64_t kMaxAddressableBytes = int64_t{1} << 56;

// #10: the view inside its storage, and that storage addressable (an empty view addresses
// nothing, so any offset fits).
aclnnStatus CheckStorage(const Checker& check, const aclTensor& tensor, const char* name,
                         size_t element_bytes) {
  if (tensor.offset < 0) {
    return check.Invalid(std::string(name) + " offset", "a non-negative offset",
                         std::to_string(tensor.offset));
  }
  Int128 storage = 1;
  for (int64_t d : tensor.storage_dims) {
    if (d < 0) {
      return check.Invalid(std::string(name) + " storageDims", "non-negative dimensions",
                           Join(tensor.storage_dims));
    }
    // Saturate: a product beyond any addressable size only has to stay comparable.
    storage = d == 0 ? 0 : std::min<Int128>(storage, Int128{1} << 62) * d;
  }
  if (IsEmptyView(tensor)) return ACLNN_SUCCESS;
  const Int128 last = tensor.offset + LastOffset(tensor);
  // Described only when a check fails: phase 1 of a valid call builds no strings.
  const auto reach = [&] {
    return "offset " + std::to_string(tensor.offset) + " with shape " + Join(tensor.view_dims) +
           " and strides " + Join(tensor.strides) + ", reaching element " +
           std::to_string(static_cast<int64_t>(last));
  };
  if (last >= storage) {
    return check.Invalid(
        std::string(name) + " view",
        "a view inside its storage of " +
            std::to_string(static_cast<int64_t>(std::min<Int128>(storage, INT64_MAX))) +
            " elements (storageDims " + Join(tensor.storage_dims) + ")",
        reach());
  }
  if ((last + 1) * static_cast<Int128>(element_bytes) > kMaxAddressableBytes) {
    return check.Invalid(
        std::string(name) + " view",
        "a view within the addressable " + std::to_string(kMaxAddressableBytes) + " bytes",
        reach() + " of " + std::to_string(element_bytes) + " bytes");
  }
  return ACLNN_SUCCESS;
}

// #11: one address per element of `out`: elements sharing one would leave whichever was written
// last.
aclnnStatus CheckOutAddresses(const Checker& check, const aclnn_upsample_operator& op,
                              const aclTensor& out) {
  if (IsEmptyView(out)) return ACLNN_SUCCESS;
  const AddressCheck distinct = ClassifyAddresses(out);
  if (distinct != AddressCheck::kDistinct) {
    return check.Invalid(
        std::string(op.result_name) + " strides",
        distinct == AddressCheck::kShared
            ? "a layout where every element has its own address"
            : "a layout whose distinct addresses can be verified (strides sorted so that each "
              "steps past the smaller ones, or at most 2^22 elements)",
        "strides " + Join(out.strides) + " for shape " + Join(out.view_dims) +
            (distinct == AddressCheck::kShared ? " (two elements share an address)" : ""));
  }
  return ACLNN_SUCCESS;
}

// #12: data pointers, needed only when both tensors are non-empty: otherwise nothing is read or
// written.
aclnnStatus CheckDataNotNull(const Checker& check, const aclnn_upsample_operator& op,
                             const aclTensor& source, const aclTensor& out) {
  if (IsEmptyView(out) || IsEmptyView(source)) return ACLNN_SUCCESS;
  if (out.data == nullptr || source.data == nullptr) {
    return check.Fail(ACLNN_ERR_PARAM_NULLPTR,
                      std::string(out.data == nullptr ? op.result_name : op.source_name) + " data",
                      "a non-null data pointer for a non-empty tensor", "nullptr");
  }
  return ACLNN_SUCCESS;
}

// #13: no overlap between the memory spans of the two tensors.
aclnnStatus CheckOverlap(const Checker& check, const aclnn_upsample_operator& op,
                         const aclTensor& source, const aclTensor& out, DType dtype) {
  if (IsEmptyView(out) || IsEmptyView(source)) return ACLNN_SUCCESS;
  const Int128 elem = static_cast<int64_t>(DTypeSize(dtype));
  const Int128 source_begin =
      static_cast<Int128>(reinterpret_cast<uintptr_t>(source.data)) + Int128{source.offset} * elem;
  const Int128 source_end = source_begin + (LastOffset(source) + 1) * elem;
  const Int128 out_begin =
      static_cast<Int128>(reinterpret_cast<uintptr_t>(out.data)) + Int128{out.offset} * elem;
  const Int128 out_end = out_begin + (LastOffset(out) + 1) * elem;
  if (source_begin < out_end && out_begin < source_end) {
    return check.Invalid(std::string(op.result_name) + " memory",
                         std::string("no overlap with ") + op.source_name,
                         "overlapping address ranges");
  }
  return ACLNN_SUCCESS;
}

// A checked tensor as the engine's logical (N, C, H, W) view.
PlaneView ToPlaneView(const aclTensor& tensor, const AxisOrder& axes, DType dtype) {
  PlaneView view;
  // An empty view's offset is unchecked (nothing is addressed): never form its pointer.
  view.data = tensor.data == nullptr || IsEmptyView(tensor)
                  ? nullptr
                  : static_cast<char*>(tensor.data) +
                        tensor.offset * static_cast<int64_t>(DTypeSize(dtype));
  view.n = tensor.view_dims[0];
  view.c = tensor.view_dims[axes.c];
  view.h = tensor.view_dims[axes.h];
  view.w = tensor.view_dims[axes.w];
  // An axis of size 1 is never stepped along, so validation leaves its stride free (PyTorch
  // makes such strides arbitrary too). One reaching past the view's last element becomes 0:
  // the engine multiplies every stride by the element size, and 2^62 * 4 overflows. Smaller
  // ones stay, since the layout tests (dense planes, channels last) compare them.
  const Int128 reach = IsEmptyView(tensor) ? 0 : LastOffset(tensor) + 1;
  const auto stride = [&](int axis) {
    const int64_t s = tensor.strides[axis];
    return tensor.view_dims[axis] == 1 && s > reach ? 0 : s;
  };
  view.stride_n = stride(0);
  view.stride_c = stride(axes.c);
  view.stride_h = stride(axes.h);
  view.stride_w = stride(axes.w);
  return view;
}

}  // namespace

// Each check may rely on what the ones before it established (non-null handles, 4-D shapes...),
// so the first failure ends the call.
#define RETURN_IF_FAILED(check_call)                        \
  do {                                                      \
    const aclnnStatus check_status = (check_call);          \
    if (check_status != ACLNN_SUCCESS) return check_status; \
  } while (false)

aclnnStatus ValidateCommon(const aclnn_upsample_operator& op, const aclTensor* source,
                           const aclIntArray* output_size, const aclIntArray* input_size,
                           const aclTensor* out, const uint64_t* workspace_size,
                           aclOpExecutor* const* executor, Problem* problem) {
  const Checker check(op);
  const bool forward = IsForward(op);
  if (forward) input_size = nullptr;  // not part of a forward signature
  RETURN_IF_FAILED(
      CheckNotNull(check, op, source, output_size, input_size, out, workspace_size, executor));
  RETURN_IF_FAILED(CheckDTypes(check, op, *source, *out, &problem->dtype));
  RETURN_IF_FAILED(CheckFormats(check, op, *source, *out));
  RETURN_IF_FAILED(CheckRanks(check, op, *source, *output_size, input_size, *out));
  const AxisOrder axes = AxisOrderOf(source->format);
  // The forward input's sizes: a backward call gives them in inputSize, a forward call's source
  // has them as its shape.
  const std::vector<int64_t>& in_size = forward ? source->view_dims : input_size->values;
  const std::string in_size_name = forward ? std::string(op.source_name) + " shape" : "inputSize";
  RETURN_IF_FAILED(CheckSizeValues(check, axes, output_size->values, in_size, in_size_name));
  RETURN_IF_FAILED(CheckDimRange(check, *source, op.source_name));
  RETURN_IF_FAILED(CheckDimRange(check, *out, op.result_name));
  ReadSizes(axes, output_size->values, in_size, problem);
  RETURN_IF_FAILED(CheckShapes(check, op, axes, *problem, *source, in_size, *out));
  RETURN_IF_FAILED(CheckLimits(check, *problem));
  RETURN_IF_FAILED(CheckStrides(check, *source, op.source_name));
  RETURN_IF_FAILED(CheckStorage(check, *source, op.source_name, DTypeSize(problem->dtype)));
  RETURN_IF_FAILED(CheckStrides(check, *out, op.result_name));
  RETURN_IF_FAILED(CheckStorage(check, *out, op.result_name, DTypeSize(problem->dtype)));
  RETURN_IF_FAILED(CheckOutAddresses(check, op, *out));
  RETURN_IF_FAILED(CheckDataNotNull(check, op, *source, *out));
  RETURN_IF_FAILED(CheckOverlap(check, op, *source, *out, problem->dtype));

  problem->format = source->format;
  problem->source = ToPlaneView(*source, axes, problem->dtype);
  problem->result = ToPlaneView(*out, axes, problem->dtype);
  return ACLNN_SUCCESS;
}

#undef RETURN_IF_FAILED

}  // namespace aclnn_upsample
