#include "acl_runner.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>

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

const aclnn_upsample_operator& FindOperator(const char* command) {
  const aclnn_upsample_operator* op = aclnn_upsample_find_operator(command);
  if (op == nullptr) {
    throw ToolError(std::string("internal error: the library has no operator '") + command + "'");
  }
  return *op;
}

bool IsForward(const aclnn_upsample_operator& op) { return op.direction == ACLNN_UPSAMPLE_FORWARD; }

// CANN names the backward operators' gradOut differently ("gradOut", "gradOutput"); the tool's
// messages have always said gradOut for both.
const char* SourceName(const aclnn_upsample_operator& op) {
  return IsForward(op) ? op.source_name : "gradOut";
}

const char* ResultName(const aclnn_upsample_operator& op) {
  return IsForward(op) ? "out" : "gradIn";
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
  return (source.ViewElements() + result.ViewElements()) *
         static_cast<int64_t>(DataTypeSize(dtype));
}

Problem MakeContiguousProblem(const aclnn_upsample_operator& op, aclDataType dtype,
                              aclFormat format, const std::array<int64_t, 4>& source_dims,
                              const std::array<int64_t, 4>& result_dims, bool align_corners,
                              double scales_h, double scales_w) {
  Problem problem;
  problem.op = &op;
  problem.dtype = dtype;
  problem.format = format;
  problem.source = TensorView::Contiguous(source_dims);
  problem.result = TensorView::Contiguous(result_dims);
  const std::array<int64_t, 4>& output_dims = IsForward(op) ? result_dims : source_dims;
  bool channels_last = format == ACL_FORMAT_NHWC;
  problem.output_size = channels_last ? std::array<int64_t, 2>{output_dims[1], output_dims[2]}
                                      : std::array<int64_t, 2>{output_dims[2], output_dims[3]};
  problem.input_size = result_dims;
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

OperatorCall::OperatorCall(const Problem& problem, void* source_device, void* result_device,
                           bool repeatable)
    : problem_(problem), repeatable_(repeatable) {
  const aclnn_upsample_operator& op = *problem.op;
  try {
    source_ =
        CreateTensor(problem.source, problem.dtype, problem.format, source_device, SourceName(op));
    result_ =
        CreateTensor(problem.result, problem.dtype, problem.format, result_device, ResultName(op));
    output_size_ = CreateIntArray(problem.output_size.data(), 2, "outputSize");
    // A forward operator takes no inputSize: its input's shape gives it.
    if (!IsForward(op)) input_size_ = CreateIntArray(problem.input_size.data(), 4, "inputSize");
    uint64_t workspace_size = 0;
    std::string phase1 = std::string(op.name) + "GetWorkspaceSize";
    CheckAcl(op.get_workspace_size(source_, output_size_, input_size_, problem.align_corners,
                                   problem.scales_h, problem.scales_w, result_, &workspace_size,
                                   &executor_),
             phase1.c_str());
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
  if (source_ != nullptr) aclDestroyTensor(source_);
  if (result_ != nullptr) aclDestroyTensor(result_);
  if (output_size_ != nullptr) aclDestroyIntArray(output_size_);
  if (input_size_ != nullptr) aclDestroyIntArray(input_size_);
  source_ = result_ = nullptr;
  output_size_ = input_size_ = nullptr;
  workspace_.reset();
}

void OperatorCall::Execute(aclrtStream stream) {
  if (consumed_) throw ToolError("internal error: a single-use executor was run twice");
  if (executor_ == nullptr) return;  // an empty problem: phase 1 planned nothing to do
  void* workspace = workspace_ ? workspace_->get() : nullptr;
  uint64_t workspace_size = workspace_ ? workspace_->size() : 0;
  aclnnStatus status = problem_.op->run(workspace, workspace_size, executor_, stream);
  if (!repeatable_) consumed_ = true;
  CheckAcl(status, problem_.op->name);
  CheckAcl(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
}

double RunOnce(const AclSession& session, const Problem& problem,
               const std::vector<std::byte>& source, std::vector<std::byte>& result) {
  size_t element_size = DataTypeSize(problem.dtype);
  size_t source_bytes = static_cast<size_t>(problem.source.StorageElements()) * element_size;
  size_t result_bytes = static_cast<size_t>(problem.result.StorageElements()) * element_size;
  if (source.size() != source_bytes) {
    throw ToolError(std::string("internal error: ") + SourceName(*problem.op) + " holds " +
                    std::to_string(source.size()) + " bytes, its view needs " +
                    std::to_string(source_bytes));
  }
  DeviceBuffer source_device(source_bytes);
  DeviceBuffer result_device(result_bytes);
  source_device.CopyFromHost(source.data(), source_bytes);
  OperatorCall call(problem, source_device.get(), result_device.get(), /*repeatable=*/false);
  auto start = std::chrono::steady_clock::now();
  call.Execute(session.stream());
  std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  result.resize(result_bytes);
  result_device.CopyToHost(result.data(), result_bytes);
  return elapsed.count();
}

void SetLibraryThreads(int threads) {
  if (threads > 0) ::setenv("ACLNN_UPSAMPLE_NUM_THREADS", std::to_string(threads).c_str(), 1);
}

}  // namespace upsample_grad
