#include "ops/common/validation.h"

#include <algorithm>
#include <array>
#include <string>
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
  explicit Checker(const OperatorTraits& op) : op_(op) {}
  aclnnStatus Fail(aclnnStatus status, const std::string& parameter, const std::string& expected,
                   const std::string& actual) const {
    return aclnn_upsample::Fail(status, op_.name, parameter, expected, actual);
  }
  aclnnStatus Invalid(const std::string& parameter, const std::string& expected,
                      const std::string& actual) const {
    return Fail(ACLNN_ERR_PARAM_INVALID, parameter, expected, actual);
  }

 private:
  const OperatorTraits& op_;
};

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

AddressCheck CheckDistinctAddresses(const aclTensor& t) {
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

// #1: no null handles.
aclnnStatus CheckNotNull(const Checker& check, const OperatorTraits& op, const aclTensor* grad,
                         const aclIntArray* output_size, const aclIntArray* input_size,
                         const aclTensor* out, const uint64_t* workspace_size,
                         aclOpExecutor* const* executor) {
  const std::array<std::pair<const void*, const char*>, 6> handles = {{
      {grad, op.grad_name},
      {output_size, "outputSize"},
      {input_size, "inputSize"},
      {out, "out"},
      {workspace_size, "workspaceSize"},
      {executor, "executor"},
  }};
  for (const auto& [pointer, name] : handles) {
    if (pointer == nullptr) {
      return check.Fail(ACLNN_ERR_PARAM_NULLPTR, name, "a non-null pointer", "nullptr");
    }
  }
  return ACLNN_SUCCESS;
}

// #2: both dtypes supported and equal.
aclnnStatus CheckDTypes(const Checker& check, const OperatorTraits& op, const aclTensor& grad,
                        const aclTensor& out, DType* dtype) {
  const char* supported = "FLOAT32, FLOAT16 or BFLOAT16";
  if (!ToDType(grad.dtype, dtype)) {
    return check.Invalid(std::string(op.grad_name) + " dtype", supported,
                         DescribeDType(grad.dtype));
  }
  DType out_dtype;
  if (!ToDType(out.dtype, &out_dtype)) {
    return check.Invalid("out dtype", supported, DescribeDType(out.dtype));
  }
  if (out_dtype != *dtype) {
    return check.Invalid(
        "out dtype", std::string("the dtype of ") + op.grad_name + " (" + DTypeName(*dtype) + ")",
        DTypeName(out_dtype));
  }
  return ACLNN_SUCCESS;
}

// #3: formats accepted by this operator and equal.
aclnnStatus CheckFormats(const Checker& check, const OperatorTraits& op, const aclTensor& grad,
                         const aclTensor& out) {
  const std::string accepted = op.accepts_nhwc ? "NCHW or NHWC" : "NCHW or ND";
  auto accepts = [&](aclFormat f) {
    return f == ACL_FORMAT_NCHW || (f == ACL_FORMAT_NHWC && op.accepts_nhwc) ||
           (f == ACL_FORMAT_ND && op.accepts_nd);
  };
  if (!accepts(grad.format)) {
    return check.Invalid(std::string(op.grad_name) + " format", accepted,
                         DescribeFormat(grad.format));
  }
  if (!accepts(out.format))
    return check.Invalid("out format", accepted, DescribeFormat(out.format));
  if (grad.format != out.format) {
    return check.Invalid(
        "out format",
        std::string("the format of ") + op.grad_name + " (" + DescribeFormat(grad.format) + ")",
        DescribeFormat(out.format));
  }
  return ACLNN_SUCCESS;
}

// #4: ranks and array lengths.
aclnnStatus CheckRanks(const Checker& check, const OperatorTraits& op, const aclTensor& grad,
                       const aclIntArray& output_size, const aclIntArray& input_size,
                       const aclTensor& out) {
  if (grad.view_dims.size() != 4) {
    return check.Invalid(
        op.grad_name, "a 4-D tensor",
        std::to_string(grad.view_dims.size()) + "-D shape " + Join(grad.view_dims));
  }
  if (out.view_dims.size() != 4) {
    return check.Invalid("out", "a 4-D tensor",
                         std::to_string(out.view_dims.size()) + "-D shape " + Join(out.view_dims));
  }
  if (output_size.values.size() != 2) {
    return check.Invalid(
        "outputSize", "2 elements [H_out, W_out]",
        std::to_string(output_size.values.size()) + " elements " + Join(output_size.values));
  }
  if (input_size.values.size() != 4) {
    return check.Invalid(
        "inputSize", "4 elements",
        std::to_string(input_size.values.size()) + " elements " + Join(input_size.values));
  }
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus ValidateCommon(const OperatorTraits& op, const aclTensor* grad,
                           const aclIntArray* output_size, const aclIntArray* input_size,
                           const aclTensor* out, const uint64_t* workspace_size,
                           aclOpExecutor* const* executor, Problem* problem) {
  const Checker check(op);
  aclnnStatus status =
      CheckNotNull(check, op, grad, output_size, input_size, out, workspace_size, executor);
  if (status != ACLNN_SUCCESS) return status;
  if ((status = CheckDTypes(check, op, *grad, *out, &problem->dtype)) != ACLNN_SUCCESS)
    return status;
  if ((status = CheckFormats(check, op, *grad, *out)) != ACLNN_SUCCESS) return status;
  if ((status = CheckRanks(check, op, *grad, *output_size, *input_size, *out)) != ACLNN_SUCCESS) {
    return status;
  }

  // Axis positions of the format: inputSize and the views are in the format's own order.
  const bool nhwc = grad->format == ACL_FORMAT_NHWC;
  const int axis_c = nhwc ? 3 : 1, axis_h = nhwc ? 1 : 2, axis_w = nhwc ? 2 : 3;
  const std::string order = nhwc ? "[N, H, W, C]" : "[N, C, H, W]";
  const std::vector<int64_t>& in_size = input_size->values;
  const std::vector<int64_t>& out_hw = output_size->values;

  // #5: value ranges of outputSize and inputSize.
  for (int i = 0; i < 2; ++i) {
    if (out_hw[i] < 1 || out_hw[i] > kMaxDim) {
      return check.Invalid("outputSize[" + std::to_string(i) + "]", "a value in [1, 2^20]",
                           std::to_string(out_hw[i]));
    }
  }
  for (int axis : {axis_h, axis_w}) {
    if (in_size[axis] < 1 || in_size[axis] > kMaxDim) {
      return check.Invalid(
          "inputSize[" + std::to_string(axis) + "] (" + (axis == axis_h ? "H" : "W") + ")",
          "a value in [1, 2^20]", std::to_string(in_size[axis]));
    }
  }
  for (int axis : {0, axis_c}) {
    if (in_size[axis] < 0 || in_size[axis] > kMaxDim) {
      return check.Invalid(
          "inputSize[" + std::to_string(axis) + "] (" + (axis == 0 ? "N" : "C") + ")",
          "a value in [0, 2^20]", std::to_string(in_size[axis]));
    }
  }

  // #6: every tensor dimension within [0, 2^20].
  for (const auto& [tensor, name] :
       {std::pair<const aclTensor*, const char*>{grad, op.grad_name}, {out, "out"}}) {
    for (int64_t d : tensor->view_dims) {
      if (d < 0 || d > kMaxDim) {
        return check.Invalid(std::string(name) + " shape", "dimensions in [0, 2^20]",
                             Join(tensor->view_dims));
      }
    }
  }

  // #7: shapes agree with outputSize and inputSize.
  const int64_t batch = in_size[0], channels = in_size[axis_c];
  const int64_t in_h = in_size[axis_h], in_w = in_size[axis_w];
  const int64_t out_h = out_hw[0], out_w = out_hw[1];
  const std::vector<int64_t> expected_grad =
      nhwc ? std::vector<int64_t>{batch, out_h, out_w, channels}
           : std::vector<int64_t>{batch, channels, out_h, out_w};
  if (grad->view_dims != expected_grad) {
    return check.Invalid(
        std::string(op.grad_name) + " shape",
        Join(expected_grad) + " (" + order + " from inputSize's N, C and outputSize)",
        Join(grad->view_dims));
  }
  if (out->view_dims != in_size) {
    return check.Invalid("out shape", "inputSize " + Join(in_size) + " " + order,
                         Join(out->view_dims));
  }

  // #8: the size limits, from the metadata alone.
  const Int128 planes = Int128{batch} * channels;
  if (planes * out_h >= kMaxRows) {
    return check.Invalid("N * C * H_out", "< 2^31",
                         std::to_string(batch) + " * " + std::to_string(channels) + " * " +
                             std::to_string(out_h) + " = " +
                             std::to_string(static_cast<int64_t>(planes * out_h)));
  }
  const Int128 footprint = (Int128{out_h} * out_w + Int128{in_h} * in_w + Int128{out_h} * in_w) *
                           planes * static_cast<int64_t>(DTypeSize(problem->dtype));
  if (footprint >= kMaxFootprintBytes) {
    return check.Invalid("memory footprint (H_out*W_out + H_in*W_in + H_out*W_in)*N*C*sizeof",
                         "< 60 GiB (64424509440 bytes)",
                         std::to_string(static_cast<int64_t>(footprint)) + " bytes");
  }

  // #9: memory layout: non-negative strides, views inside storage, `out` one address per
  // element, no overlap between the two tensors.
  for (const auto& [tensor, name] :
       {std::pair<const aclTensor*, const char*>{grad, op.grad_name}, {out, "out"}}) {
    if (tensor->strides.size() != tensor->view_dims.size()) {
      return check.Invalid(std::string(name) + " strides", "one stride per dimension",
                           Join(tensor->strides));
    }
    for (int64_t s : tensor->strides) {
      if (s < 0)
        return check.Invalid(std::string(name) + " strides", "non-negative strides",
                             Join(tensor->strides));
    }
    if (tensor->offset < 0) {
      return check.Invalid(std::string(name) + " offset", "a non-negative offset",
                           std::to_string(tensor->offset));
    }
    Int128 storage = 1;
    for (int64_t d : tensor->storage_dims) {
      if (d < 0) {
        return check.Invalid(std::string(name) + " storageDims", "non-negative dimensions",
                             Join(tensor->storage_dims));
      }
      // Saturate: a product beyond any addressable size only has to stay comparable.
      storage = d == 0 ? 0 : std::min<Int128>(storage, Int128{1} << 62) * d;
    }
    if (!IsEmptyView(*tensor) && tensor->offset + LastOffset(*tensor) >= storage) {
      return check.Invalid(
          std::string(name) + " view",
          "a view inside its storage of " +
              std::to_string(static_cast<int64_t>(std::min<Int128>(storage, INT64_MAX))) +
              " elements (storageDims " + Join(tensor->storage_dims) + ")",
          "offset " + std::to_string(tensor->offset) + " with shape " + Join(tensor->view_dims) +
              " and strides " + Join(tensor->strides) + ", reaching element " +
              std::to_string(static_cast<int64_t>(tensor->offset + LastOffset(*tensor))));
    }
  }
  if (!IsEmptyView(*out)) {
    const AddressCheck distinct = CheckDistinctAddresses(*out);
    if (distinct != AddressCheck::kDistinct) {
      return check.Invalid(
          "out strides",
          distinct == AddressCheck::kShared
              ? "a layout where every element has its own address"
              : "a layout whose distinct addresses can be verified (strides sorted so that each "
                "steps past the smaller ones, or at most 2^22 elements)",
          "strides " + Join(out->strides) + " for shape " + Join(out->view_dims) +
              (distinct == AddressCheck::kShared ? " (two elements share an address)" : ""));
    }
  }
  if (!IsEmptyView(*out) && !IsEmptyView(*grad)) {
    if (out->data == nullptr || grad->data == nullptr) {
      return check.Fail(ACLNN_ERR_PARAM_NULLPTR,
                        std::string(out->data == nullptr ? "out" : op.grad_name) + " data",
                        "a non-null data pointer for a non-empty tensor", "nullptr");
    }
    const Int128 elem = static_cast<int64_t>(DTypeSize(problem->dtype));
    const Int128 grad_begin =
        static_cast<Int128>(reinterpret_cast<uintptr_t>(grad->data)) + Int128{grad->offset} * elem;
    const Int128 grad_end = grad_begin + (LastOffset(*grad) + 1) * elem;
    const Int128 out_begin =
        static_cast<Int128>(reinterpret_cast<uintptr_t>(out->data)) + Int128{out->offset} * elem;
    const Int128 out_end = out_begin + (LastOffset(*out) + 1) * elem;
    if (grad_begin < out_end && out_begin < grad_end) {
      return check.Invalid("out memory", std::string("no overlap with ") + op.grad_name,
                           "overlapping address ranges");
    }
  }

  problem->format = grad->format;
  problem->batch = batch;
  problem->channels = channels;
  problem->in_h = in_h;
  problem->in_w = in_w;
  problem->out_h = out_h;
  problem->out_w = out_w;
  const size_t elem = DTypeSize(problem->dtype);
  for (const auto& [tensor, view] :
       {std::pair<const aclTensor*, PlaneView*>{grad, &problem->grad}, {out, &problem->result}}) {
    // An empty view's offset is unchecked (nothing is addressed): never form its pointer.
    view->data =
        tensor->data == nullptr || IsEmptyView(*tensor)
            ? nullptr
            : static_cast<char*>(tensor->data) + tensor->offset * static_cast<int64_t>(elem);
    view->n = tensor->view_dims[0];
    view->c = tensor->view_dims[axis_c];
    view->h = tensor->view_dims[axis_h];
    view->w = tensor->view_dims[axis_w];
    view->stride_n = tensor->strides[0];
    view->stride_c = tensor->strides[axis_c];
    view->stride_h = tensor->strides[axis_h];
    view->stride_w = tensor->strides[axis_w];
  }
  return ACLNN_SUCCESS;
}

}  // namespace aclnn_upsample
