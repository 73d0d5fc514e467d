// Runs the two operators through the library's public C API, the way CANN code calls them:
// aclInit, aclrtSetDevice, aclrtCreateStream, aclrtMalloc/aclrtMemcpy, aclCreateTensor,
// GetWorkspaceSize, execute, aclrtSynchronizeStream, copy back, destroy, aclFinalize.
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

namespace upsample_grad {

enum class Operator { kBilinear, kBicubicAA };

// The subcommand name: "bilinear" or "bicubic-aa".
const char* OperatorName(Operator op);
// The CANN operator: "aclnnUpsampleBilinear2dBackwardV2" or "aclnnUpsampleBicubic2dAAGrad".
const char* AclnnName(Operator op);
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
  Operator op = Operator::kBilinear;
  aclDataType dtype = ACL_FLOAT;
  aclFormat format = ACL_FORMAT_NCHW;
  TensorView grad_out;
  TensorView grad_in;
  std::array<int64_t, 2> output_size{};
  std::array<int64_t, 4> input_size{};  // in the format's axis order, as the operator takes it
  bool align_corners = false;
  double scales_h = 0;
  double scales_w = 0;

  // Bytes the operator must read and write at least: all of gradOut and all of gradIn.
  int64_t TrafficBytes() const;
};

// A contiguous problem: outputSize is gradOut's H and W (axes 1, 2 for NHWC, else 2, 3) and
// gradIn's view is `input_size`.
Problem MakeContiguousProblem(Operator op, aclDataType dtype, aclFormat format,
                              const std::array<int64_t, 4>& grad_out_dims,
                              const std::array<int64_t, 4>& input_size, bool align_corners,
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
  OperatorCall(const Problem& problem, void* grad_out_device, void* grad_in_device,
               bool repeatable);
  ~OperatorCall();
  OperatorCall(const OperatorCall&) = delete;
  OperatorCall& operator=(const OperatorCall&) = delete;

  // Phase 2 and aclrtSynchronizeStream.
  void Execute(aclrtStream stream);

 private:
  void Release();

  const Problem problem_;
  aclTensor* grad_out_ = nullptr;
  aclTensor* grad_in_ = nullptr;
  aclIntArray* output_size_ = nullptr;
  aclIntArray* input_size_ = nullptr;
  aclOpExecutor* executor_ = nullptr;
  bool repeatable_ = false;
  bool consumed_ = false;
  std::unique_ptr<DeviceBuffer> workspace_;
};

// Copies `grad_out` (the storage of problem.grad_out, in the problem's dtype) to the device,
// runs the operator once and copies gradIn's storage back into `grad_in`, resized to fit.
// Returns the seconds that phase 2 and the synchronisation took.
double RunOnce(const AclSession& session, const Problem& problem,
               const std::vector<std::byte>& grad_out, std::vector<std::byte>& grad_in);

// Sets ACLNN_UPSAMPLE_NUM_THREADS, which the library reads in phase 1; 0 leaves it unchanged.
void SetLibraryThreads(int threads);

}  // namespace upsample_grad

#endif  // TOOLS_UPSAMPLE_GRAD_ACL_RUNNER_H_
