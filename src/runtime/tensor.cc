#include "runtime/tensor.h"

#include <new>
#include <string>

#include "runtime/error.h"

namespace {
// CANN tensors have at most 8 dimensions; the limit also bounds what a caller can make us copy.
constexpr uint64_t kMaxDims = 8;
}  // namespace

extern "C" aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum,
                                      aclDataType dataType, const int64_t* stride, int64_t offset,
                                      aclFormat format, const int64_t* storageDims,
                                      uint64_t storageDimsNum, void* tensorData) {
  using aclnn_upsample::Fail;
  const char* where = "aclCreateTensor";
  if (viewDimsNum > kMaxDims || storageDimsNum > kMaxDims) {
    Fail(ACLNN_ERR_PARAM_INVALID, where, "viewDimsNum/storageDimsNum",
         "at most " + std::to_string(kMaxDims),
         std::to_string(viewDimsNum) + "/" + std::to_string(storageDimsNum));
    return nullptr;
  }
  if ((viewDims == nullptr && viewDimsNum > 0) || (storageDims == nullptr && storageDimsNum > 0)) {
    Fail(ACLNN_ERR_PARAM_NULLPTR, where, "viewDims/storageDims",
         "non-null arrays for a non-zero count", "a null pointer");
    return nullptr;
  }
  auto* tensor = new (std::nothrow) aclTensor;
  if (tensor == nullptr) return nullptr;
  tensor->view_dims.assign(viewDims, viewDims + viewDimsNum);
  if (stride != nullptr) {
    tensor->strides.assign(stride, stride + viewDimsNum);
  } else {
    // No strides given: contiguous row-major, as CANN's helpers compute them.
    tensor->strides.assign(viewDimsNum, 1);
    for (int64_t d = static_cast<int64_t>(viewDimsNum) - 2; d >= 0; --d) {
      // Saturate instead of overflowing: absurd dims are the operators' to reject.
      if (__builtin_mul_overflow(tensor->strides[d + 1], viewDims[d + 1], &tensor->strides[d])) {
        tensor->strides[d] = INT64_MAX;
      }
    }
  }
  tensor->offset = offset;
  tensor->storage_dims.assign(storageDims, storageDims + storageDimsNum);
  tensor->dtype = dataType;
  tensor->format = format;
  tensor->data = tensorData;
  return tensor;
}

extern "C" aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size) {
  if (value == nullptr && size > 0) {
    aclnn_upsample::Fail(ACLNN_ERR_PARAM_NULLPTR, "aclCreateIntArray", "value",
                         "a non-null array for a non-zero size", "a null pointer");
    return nullptr;
  }
  // Sizes come from callers; an absurd one must fail cleanly rather than throw.
  if (size > (uint64_t{1} << 24)) {
    aclnn_upsample::Fail(ACLNN_ERR_PARAM_INVALID, "aclCreateIntArray", "size",
                         "at most 2^24 elements", std::to_string(size));
    return nullptr;
  }
  auto* array = new (std::nothrow) aclIntArray;
  if (array == nullptr) return nullptr;
  array->values.assign(value, value + size);
  return array;
}

extern "C" aclnnStatus aclDestroyTensor(const aclTensor* tensor) {
  delete tensor;
  return ACLNN_SUCCESS;
}

extern "C" aclnnStatus aclDestroyIntArray(const aclIntArray* array) {
  delete array;
  return ACLNN_SUCCESS;
}
