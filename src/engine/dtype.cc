#include "engine/dtype.h"

namespace aclnn_upsample {

const char* DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "FLOAT32";
    case DType::kFloat16:
      return "FLOAT16";
    case DType::kBFloat16:
      return "BFLOAT16";
  }
  return "unknown";
}

}  // namespace aclnn_upsample
