// The CANN set-up that the call examples in this folder share, so that each example holds only
// what belongs to its operator: its tensors, its two calls and the result it prints. Plain C++ on
// CANN's API alone (runtime, tensors, int arrays), nothing particular to this library; copy this
// file next to the example you copy.
//
// AclExample brings the runtime up, creates the tensors and int arrays an operator takes, runs an
// operator's phase 2 with the workspace its phase 1 asked for, prints results, and releases all it
// created when main() returns. Every failure is logged where it happens. After one, each further
// Create* gives nullptr without trying, and phase 1 rejects a nullptr argument
// (ACLNN_ERR_PARAM_NULLPTR), so main() checks once, at phase 1.

#ifndef ACL_EXAMPLE_SUPPORT_H_
#define ACL_EXAMPLE_SUPPORT_H_

#include <cstdint>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"

#define CHECK_RET(cond, return_expr) \
  do {                               \
    if (!(cond)) {                   \
      return_expr;                   \
    }                                \
  } while (0)

#define LOG_PRINT(message, ...)     \
  do {                              \
    printf(message, ##__VA_ARGS__); \
  } while (0)

// Phase 2 of every aclnn operator has this signature: run the plan of `executor` on `stream`.
using AclnnRunFunction = aclnnStatus (*)(void* workspace, uint64_t workspaceSize,
                                         aclOpExecutor* executor, aclrtStream stream);

// Logs a failed aclnn call with the library's message for it and gives back its status.
inline int LogFailure(const char* call, int ret) {
  LOG_PRINT("%s failed. ERROR: %d (%s)\n", call, ret, aclGetRecentErrMsg());
  return ret;
}

// Number of elements of a tensor of the given shape.
inline int64_t GetShapeSize(const std::vector<int64_t>& shape) {
  int64_t size = 1;
  for (int64_t dim : shape) size *= dim;
  return size;
}

class AclExample {
 public:
  // Brings up the runtime on one device with a stream to run on.
  explicit AclExample(int32_t deviceId = 0) : deviceId_(deviceId) {
    aclError ret = aclInit(nullptr);
    if (ret != ACL_SUCCESS) {
      Fail("aclInit", ret);
      return;
    }
    initialized_ = true;
    ret = aclrtSetDevice(deviceId_);
    if (ret != ACL_SUCCESS) {
      Fail("aclrtSetDevice", ret);
      return;
    }
    deviceSet_ = true;
    ret = aclrtCreateStream(&stream_);
    if (ret != ACL_SUCCESS) Fail("aclrtCreateStream", ret);
  }

  ~AclExample() {
    for (const DeviceTensor& created : tensors_) {
      aclDestroyTensor(created.tensor);
      aclrtFree(created.deviceAddr);
    }
    for (const aclIntArray* array : intArrays_) aclDestroyIntArray(array);
    if (stream_ != nullptr) aclrtDestroyStream(stream_);
    if (deviceSet_) aclrtResetDevice(deviceId_);
    if (initialized_) aclFinalize();
  }

  AclExample(const AclExample&) = delete;
  AclExample& operator=(const AclExample&) = delete;

  // Copies hostData into freshly allocated device memory and describes it as a contiguous
  // row-major NCHW float32 tensor of the given shape; nullptr after any failure.
  aclTensor* CreateTensor(const std::vector<int64_t>& shape, const std::vector<float>& hostData) {
    CHECK_RET(ok_, return nullptr);
    const size_t bytes = static_cast<size_t>(GetShapeSize(shape)) * sizeof(float);
    CHECK_RET(hostData.size() * sizeof(float) == bytes,
              LOG_PRINT("CreateTensor: %zu values for a shape of %zu elements\n", hostData.size(),
                        bytes / sizeof(float));
              ok_ = false; return nullptr);
    void* deviceAddr = nullptr;
    aclError ret = aclrtMalloc(&deviceAddr, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, Fail("aclrtMalloc", ret); return nullptr);
    ret = aclrtMemcpy(deviceAddr, bytes, hostData.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    CHECK_RET(ret == ACL_SUCCESS, aclrtFree(deviceAddr); Fail("aclrtMemcpy", ret); return nullptr);

    // Strides count elements; the innermost axis is the densest.
    std::vector<int64_t> strides(shape.size(), 1);
    for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i) {
      strides[i] = shape[i + 1] * strides[i + 1];
    }
    aclTensor* tensor = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0,
                                        ACL_FORMAT_NCHW, shape.data(), shape.size(), deviceAddr);
    CHECK_RET(tensor != nullptr, aclrtFree(deviceAddr); Fail("aclCreateTensor", ACL_ERROR_FAILURE);
              return nullptr);
    tensors_.push_back({tensor, deviceAddr, GetShapeSize(shape)});
    return tensor;
  }

  // A tensor of zeros of the given shape, for an operator to write its result into.
  aclTensor* CreateOutputTensor(const std::vector<int64_t>& shape) {
    return CreateTensor(shape, std::vector<float>(GetShapeSize(shape), 0.0f));
  }

  // An aclIntArray holding values (an outputSize or an inputSize); nullptr after any failure.
  aclIntArray* CreateIntArray(const std::vector<int64_t>& values) {
    CHECK_RET(ok_, return nullptr);
    aclIntArray* array = aclCreateIntArray(values.data(), values.size());
    CHECK_RET(array != nullptr, Fail("aclCreateIntArray", ACL_ERROR_FAILURE); return nullptr);
    intArrays_.push_back(array);
    return array;
  }

  // Phase 2 of the operator named `name` (the function `run`), then, once it has succeeded, prints
  // `result` (made by CreateTensor or CreateOutputTensor) as lines `result[i] is: <value>`, i
  // numbering on from the previous print.
  int RunAndPrint(const char* name, AclnnRunFunction run, const aclTensor* result) {
    int ret = Run(name, run);
    return ret == ACL_SUCCESS ? PrintResult(result) : ret;
  }

  // Phase 1's two results, for an operator's GetWorkspaceSize to fill in and RunAndPrint to use.
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;

 private:
  struct DeviceTensor {
    aclTensor* tensor;
    void* deviceAddr;
    int64_t elements;
  };

  // Phase 2 of the operator named `name`: allocates the workspace that phase 1 asked for, runs the
  // plan of `executor` on the stream, waits for the stream and frees the workspace.
  int Run(const char* name, AclnnRunFunction run) {
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
      aclError ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
      CHECK_RET(ret == ACL_SUCCESS, return LogFailure("allocate workspace", ret));
    }
    int ret = run(workspaceAddr, workspaceSize, executor, stream_);
    if (ret != ACL_SUCCESS) {
      LogFailure(name, ret);
    } else {
      ret = aclrtSynchronizeStream(stream_);
      CHECK_RET(ret == ACL_SUCCESS, LogFailure("aclrtSynchronizeStream", ret));
    }
    if (workspaceAddr != nullptr) aclrtFree(workspaceAddr);
    // Phase 2 has consumed the executor; the next phase 1 makes a new one.
    workspaceSize = 0;
    executor = nullptr;
    return ret;
  }

  // Copies a tensor made by CreateTensor or CreateOutputTensor back to the host and prints it.
  int PrintResult(const aclTensor* tensor) {
    for (const DeviceTensor& created : tensors_) {
      if (created.tensor != tensor) continue;
      std::vector<float> resultData(created.elements, 0.0f);
      const size_t bytes = resultData.size() * sizeof(float);
      aclError ret = aclrtMemcpy(resultData.data(), bytes, created.deviceAddr, bytes,
                                 ACL_MEMCPY_DEVICE_TO_HOST);
      CHECK_RET(ret == ACL_SUCCESS, return LogFailure("copy result from device to host", ret));
      for (float value : resultData) {
        LOG_PRINT("result[%ld] is: %f\n", static_cast<long>(printed_++), value);
      }
      return ACL_SUCCESS;
    }
    LOG_PRINT("PrintResult: %s\n", "the tensor was not created by this AclExample");
    return ACL_ERROR_FAILURE;
  }

  void Fail(const char* call, int ret) {
    LogFailure(call, ret);
    ok_ = false;
  }

  int32_t deviceId_;
  aclrtStream stream_ = nullptr;
  bool initialized_ = false;
  bool deviceSet_ = false;
  bool ok_ = true;
  std::vector<DeviceTensor> tensors_;
  std::vector<aclIntArray*> intArrays_;
  int64_t printed_ = 0;
};

#endif  // ACL_EXAMPLE_SUPPORT_H_
