// Runs the library's operators (its table, aclnn_upsample/operators.h) through the library's public
// C API, the way CANN code calls them: aclInit, aclrtSetDevice, aclrtCreateStream,
// aclrtMalloc/aclrtMemcpy, aclCreateTensor, GetWorkspaceSize, execute, aclrtSynchronizeStream, copy
// back, destroy, aclFinalize.
#ifndef TOOLS_UPSAMPLE_GRAD_ACL_RUNNER_H_
#define TOOLS_UPSAMPLE_GRAD_ACL_RUNNER_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn_upsample/operators.h"

namespace upsample_grad {

// The operator whose subcommand (or CANN name) is `command`, from the library's table; throws
// ToolError if there is none.
const aclnn_upsample_operator& FindOperator(const char* command);
bool IsForward(const aclnn_upsample_operator& op);
// The tool's names of the tensor an operator reads and the one it writes: "gradOut" and
// "gradIn" for a backward operator, CANN's input name ("self", "x") and "out" for a forward one.
const char* SourceName(const aclnn_upsample_operator& op);
const char* ResultName(const aclnn_upsample_operator& op);
const char* FormatName(aclFormat format);
const char* DataTypeName(aclDataType dtype);
size_t DataTypeSize(aclDataType dtype);

// One 4-D tensor view over its own buffer; strides count elements.
struct TensorView {
  std::array<int64_t, 4> dims{};
  std::array<int64_t, 4> strides{};
  std::array<int64_t, 4> storage_dims{};

  // A row-major view of `dims`.
  static TensorView Contiguous(const std::array<int64_t, 4>& dims);
  int64_t ViewElements() const;
  int64_t StorageElements() const;
};

struct Problem {
  const aclnn_upsample_operator* op = nullptr;
  aclDataType dtype = ACL_FLOAT;
  aclFormat format = ACL_FORMAT_NCHW;
  TensorView source;  // what the operator reads: gradOut, or a forward operator's image
  TensorView result;  // what it writes: gradIn, or the resized image
  std::array<int64_t, 2> output_size{};
  // In the format's axis order, as a backward operator takes it; forward operators take none.
  std::array<int64_t, 4> input_size{};
  bool align_corners = false;
  double scales_h = 0;
  double scales_w = 0;

  // Bytes the operator must read and write at least: all of the source and all of the result.
  int64_t TrafficBytes() const;
};

// A contiguous problem of `op` reading `source_dims` and writing `result_dims`: outputSize is the
// H and W (axes 1, 2 for NHWC, else 2, 3) of the source for a backward operator, of the result
// for a forward one; a backward operator's inputSize is `result_dims`.
Problem MakeContiguousProblem(const aclnn_upsample_operator& op, aclDataType dtype,
                              aclFormat format, const std::array<int64_t, 4>& source_dims,
                              const std::array<int64_t, 4>& result_dims, bool align_corners,
                              double scales_h, double scales_w);

// Throws ToolError "<function> failed with status <code> (<name>): <aclGetRecentErrMsg()>".
void CheckAcl(int status, const char* function);

// The runtime for the lifetime of the object: aclInit, aclrtSetDevice(0), one stream.
class AclSession {
 public:
  AclSession();
  ~AclSession();
  AclSession(const AclSession&) = delete;
  AclSession& operator=(const AclSession&) = delete;
  aclrtStream stream() const { return stream_; }

 private:
  aclrtStream stream_ = nullptr;
};

// Device memory from aclrtMalloc.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return data_; }
  size_t size() const { return size_; }
  void CopyFromHost(const void* host, size_t bytes);
  void CopyToHost(void* host, size_t bytes) const;

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

// Phase 1 done: the tensors, the executor and its workspace. A repeatable executor may run any
// number of times; a single-use one runs once.
class OperatorCall {
 public:
  OperatorCall(const Problem& problem, void* source_device, void* result_device, bool repeatable);
  ~OperatorCall();
  OperatorCall(const OperatorCall&) = delete;
  OperatorCall& operator=(const OperatorCall&) = delete;

  // Phase 2 and aclrtSynchronizeStream.
  void Execute(aclrtStream stream);

 private:
  void Release();

  const Problem problem_;
  aclTensor* source_ = nullptr;
  aclTensor* result_ = nullptr;
  aclIntArray* output_size_ = nullptr;
  aclIntArray* input_size_ = nullptr;
  aclOpExecutor* executor_ = nullptr;
  bool repeatable_ = false;
  bool consumed_ = false;
  std::unique_ptr<DeviceBuffer> workspace_;
};

// Copies `source` (the storage of problem.source, in the problem's dtype) to the device, runs the
// operator once and copies the result's storage back into `result`, resized to fit. Returns the
// seconds that phase 2 and the synchronisation took.
double RunOnce(const AclSession& session, const Problem& problem,
               const std::vector<std::byte>& source, std::vector<std::byte>& result);

// Sets ACLNN_UPSAMPLE_NUM_THREADS, which the library reads in phase 1; 0 leaves it unchanged.
void SetLibraryThreads(int threads);

}  // namespace upsample_grad

#endif  // TOOLS_UPSAMPLE_GRAD_ACL_RUNNER_H_
