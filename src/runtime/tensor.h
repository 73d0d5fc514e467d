// The opaque aclTensor and aclIntArray of CANN's aclnn/acl_meta.h. They only describe memory;
// the operators validate them.
#ifndef ACLNN_UPSAMPLE_RUNTIME_TENSOR_H_
#define ACLNN_UPSAMPLE_RUNTIME_TENSOR_H_

#include <cstdint>
#include <vector>

#include "aclnn/acl_meta.h"

struct aclTensor {
  std::vector<int64_t> view_dims;
  std::vector<int64_t> strides;  // elements, same length as view_dims
  int64_t offset = 0;            // elements from `data` to the view's first element
  std::vector<int64_t> storage_dims;
  aclDataType dtype = ACL_DT_UNDEFINED;
  aclFormat format = ACL_FORMAT_UNDEFINED;
  void* data = nullptr;
};

struct aclIntArray {
  std::vector<int64_t> values;
};

#endif  // ACLNN_UPSAMPLE_RUNTIME_TENSOR_H_
