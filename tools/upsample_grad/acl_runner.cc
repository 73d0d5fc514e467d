#include "acl_runner.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>

#include "aclnnop/aclnn_upsample_bicubic2d_aa_grad.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward_v2.h"
#include "tool_error.h"

namespace upsample_grad {
namespace {

const char* StatusName(int status) {
  switch (status) {
    case ACLNN_ERR_PARAM_NULLPTR:
      return "ACLNN_ERR_PARAM_NULLPTR";
    case ACLNN_ERR_PARAM_INVALID:
      return "ACLNN_ERR_PARAM_INVALID";
    case ACLNN_ERR_RUNTIME_ERROR:
      return "ACLNN_ERR_RUNTIME_ERROR";
    case ACLNN_ERR_INNER:
      return "ACLNN_ERR_INNER";
    case ACLNN_ERR_INNER_NULLPTR:
      return "ACLNN_ERR_INNER_NULLPTR";
    case ACL_ERROR_INVALID_PARAM:
      return "ACL_ERROR_INVALID_PARAM";
    case ACL_ERROR_UNINITIALIZE:
      return "ACL_ERROR_UNINITIALIZE";
    case ACL_ERROR_REPEAT_INITIALIZE:
      return "ACL_ERROR_REPEAT_INITIALIZE";
    case ACL_ERROR_BAD_ALLOC:
      return "ACL_ERROR_BAD_ALLOC";
    case ACL_ERROR_INTERNAL_ERROR:
      return "ACL_ERROR_INTERNAL_ERROR";
    case ACL_ERROR_FAILURE:
      return "ACL_ERROR_FAILURE";
    default:
      return "unknown status";
  }
}

// The library's message, flattened so that the tool's own message stays on one line.
std::string RecentLibraryMessage() {
  const char* message = aclGetRecentErrMsg();
  std::string text = message != nullptr ? message : "";
  std::replace(text.begin(), text.end(), '\n', ' ');
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text.empty() ? "(the library gave no message)" : text;
}

int64_t Product(const std::array<int64_t, 4>& dims) {
  int64_t product = 1;
  for (int64_t dim : dims) product *= dim;
  return product;
}

aclTensor* CreateTensor(const TensorView& view, aclDataType dtype, aclFormat format, void* data,
                        const char* what) {
  aclTensor* tensor =
      aclCreateTensor(view.dims.data(), view.dims.size(), dtype, view.strides.data(), 0, format,
                      view.storage_dims.data(), view.storage_dims.size(), data);
  if (tensor == nullptr) {
    throw ToolError(std::string("aclCreateTensor for ") + what +
                    " failed: " + RecentLibraryMessage());
  }
  return tensor;
}

aclIntArray* CreateIntArray(const int64_t* values, uint64_t size, const char* what) {
  aclIntArray* array = aclCreateIntArray(values, size);
  if (array == nullptr) {
    throw ToolError(std::string("aclCreateIntArray for ") + what +
                    " failed: " + RecentLibraryMessage());
  }
  return array;
}

}  // namespace

const char* OperatorName(Operator op) {
  return op == Operator::kBilinear ? "bilinear" : "bicubic-aa";
}

const char* AclnnName(Operator op) {
  return op == Operator::kBilinear ? "aclnnUpsampleBilinear2dBackwardV2"
                                   : "aclnnUpsampleBicubic2dAAGrad";
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
      return "UNDEFINED";
  }
}

const char* DataTypeName(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT:
      return "float32";
    case ACL_FLOAT16:
      return "float16";
    case ACL_BF16:
      return "bfloat16";
    default:
      return "unsupported";
  }
}

size_t DataTypeSize(aclDataType dtype) { return dtype == ACL_FLOAT ? 4 : 2; }

TensorView TensorView::Contiguous(const std::array<int64_t, 4>& dims) {
  TensorView view;
  view.dims = dims;
  view.storage_dims = dims;
  int64_t stride = 1;
  for (size_t axis = 4; axis-- > 0;) {
    view.strides[axis] = stride;
    stride *= dims[axis];
  }
  return view;
}

int64_t TensorView::ViewElements() const { return Product(dims); }
int64_t TensorView::StorageElements() const { return Product(storage_dims); }

int64_t Problem::TrafficBytes() const {
  return (grad_out.ViewElements() + grad_in.ViewElements()) *
         static_cast<int64_t>(DataTypeSize(dtype));
}

Problem MakeContiguousProblem(Operator op, aclDataType dtype, aclFormat format,
                              const std::array<int64_t, 4>& grad_out_dims,
                              const std::array<int64_t, 4>& input_size, bool align_corners,
                              double scales_h, double scales_w) {
  Problem problem;
  problem.op = op;
  problem.dtype = dtype;
  problem.format = format;
  problem.grad_out = TensorView::Contiguous(grad_out_dims);
  problem.grad_in = TensorView::Contiguous(input_size);
  bool channels_last = format == ACL_FORMAT_NHWC;
  problem.output_size = channels_last ? std::array<int64_t, 2>{grad_out_dims[1], grad_out_dims[2]}
                                      : std::array<int64_t, 2>{grad_out_dims[2], grad_out_dims[3]};
  problem.input_size = input_size;
  problem.align_corners = align_corners;
  problem.scales_h = scales_h;
  problem.scales_w = scales_w;
  return problem;
}

void CheckAcl(int status, const char* function) {
  if (status == ACL_SUCCESS) return;
  throw ToolError(std::string(function) + " failed with status " + std::to_string(status) + " (" +
                  StatusName(status) + "): " + RecentLibraryMessage());
}

AclSession::AclSession() {
  aclError status = aclInit(nullptr);
  if (status != ACL_ERROR_REPEAT_INITIALIZE) CheckAcl(status, "aclInit");
  try {
    CheckAcl(aclrtSetDevice(0), "aclrtSetDevice");
    CheckAcl(aclrtCreateStream(&stream_), "aclrtCreateStream");
  } catch (...) {
    aclFinalize();
    throw;
  }
}

AclSession::~AclSession() {
  aclrtDestroyStream(stream_);
  aclrtResetDevice(0);
  aclFinalize();
}

DeviceBuffer::DeviceBuffer(size_t bytes) : size_(bytes) {
  // A zero-byte request (an empty problem) still gets a valid pointer for aclCreateTensor.
  CheckAcl(aclrtMalloc(&data_, std::max<size_t>(bytes, 1), ACL_MEM_MALLOC_HUGE_FIRST),
           "aclrtMalloc");
}

DeviceBuffer::~DeviceBuffer() { aclrtFree(data_); }

void DeviceBuffer::CopyFromHost(const void* host, size_t bytes) {
  if (bytes == 0) return;
  CheckAcl(aclrtMemcpy(data_, size_, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy");
}

void DeviceBuffer::CopyToHost(void* host, size_t bytes) const {
  if (bytes == 0) return;
  CheckAcl(aclrtMemcpy(host, bytes, data_, bytes, ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy");
}

OperatorCall::OperatorCall(const Problem& problem, void* grad_out_device, void* grad_in_device,
                           bool repeatable)
    : problem_(problem), repeatable_(repeatable) {
  try {
    grad_out_ =
        CreateTensor(problem.grad_out, problem.dtype, problem.format, grad_out_device, "gradOut");
    grad_in_ =
        CreateTensor(problem.grad_in, problem.dtype, problem.format, grad_in_device, "gradIn");
    output_size_ = CreateIntArray(problem.output_size.data(), 2, "outputSize");
    input_size_ = CreateIntArray(problem.input_size.data(), 4, "inputSize");
    uint64_t workspace_size = 0;
    std::string phase1 = std::string(AclnnName(problem.op)) + "GetWorkspaceSize";
    aclnnStatus status =
        problem.op == Operator::kBilinear
            ? aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize(
                  grad_out_, output_size_, input_size_, problem.align_corners, problem.scales_h,
                  problem.scales_w, grad_in_, &workspace_size, &executor_)
            : aclnnUpsampleBicubic2dAAGradGetWorkspaceSize(
                  grad_out_, output_size_, input_size_, problem.align_corners, problem.scales_h,
                  problem.scales_w, grad_in_, &workspace_size, &executor_);
    CheckAcl(status, phase1.c_str());
    if (repeatable_ && executor_ != nullptr) {
      CheckAcl(aclSetAclOpExecutorRepeatable(executor_), "aclSetAclOpExecutorRepeatable");
    }
    if (workspace_size > 0) workspace_ = std::make_unique<DeviceBuffer>(workspace_size);
  } catch (...) {
    Release();
    throw;
  }
}

OperatorCall::~OperatorCall() { Release(); }

void OperatorCall::Release() {
  // A single-use executor that ran was consumed by phase 2; any other must be released here.
  if (executor_ != nullptr && !consumed_) aclDestroyAclOpExecutor(executor_);
  executor_ = nullptr;
  if (grad_out_ != nullptr) aclDestroyTensor(grad_out_);
  if (grad_in_ != nullptr) aclDestroyTensor(grad_in_);
  if (output_size_ != nullptr) aclDestroyIntArray(output_size_);
  if (input_size_ != nullptr) aclDestroyIntArray(input_size_);
  grad_out_ = grad_in_ = nullptr;
  output_size_ = input_size_ = nullptr;
  workspace_.reset();
}

void OperatorCall::Execute(aclrtStream stream) {
  if (consumed_) throw ToolError("internal error: a single-use executor was run twice");
  if (executor_ == nullptr) return;  // an empty problem: phase 1 planned nothing to do
  void* workspace = workspace_ ? workspace_->get() : nullptr;
  uint64_t workspace_size = workspace_ ? workspace_->size() : 0;
  aclnnStatus status =
      problem_.op == Operator::kBilinear
          ? aclnnUpsampleBilinear2dBackwardV2(workspace, workspace_size, executor_, stream)
          : aclnnUpsampleBicubic2dAAGrad(workspace, workspace_size, executor_, stream);
  if (!repeatable_) consumed_ = true;
  CheckAcl(status, AclnnName(problem_.op));
  CheckAcl(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
}

double RunOnce(const AclSession& session, const Problem& problem,
               const std::vector<std::byte>& grad_out, std::vector<std::byte>& grad_in) {
  size_t element_size = DataTypeSize(problem.dtype);
  size_t grad_out_bytes = static_cast<size_t>(problem.grad_out.StorageElements()) * element_size;
  size_t grad_in_bytes = static_cast<size_t>(problem.grad_in.StorageElements()) * element_size;
  if (grad_out.size() != grad_out_bytes) {
    throw ToolError("internal error: gradOut holds " + std::to_string(grad_out.size()) +
                    " bytes, its view needs " + std::to_string(grad_out_bytes));
  }
  DeviceBuffer grad_out_device(grad_out_bytes);
  DeviceBuffer grad_in_device(grad_in_bytes);
  grad_out_device.CopyFromHost(grad_out.data(), grad_out_bytes);
  OperatorCall call(problem, grad_out_device.get(), grad_in_device.get(), /*repeatable=*/false);
  auto start = std::chrono::steady_clock::now();
  call.Execute(session.stream());
  std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  grad_in.resize(grad_in_bytes);
  grad_in_device.CopyToHost(grad_in.data(), grad_in_bytes);
  return elapsed.count();
}

void SetLibraryThreads(int threads) {
  if (threads > 0) ::setenv("ACLNN_UPSAMPLE_NUM_THREADS", std::to_string(threads).c_str(), 1);
}

}  // namespace upsample_grad
