// The operator table (include/aclnn_upsample/operators.h): each operator's folder under ops/
// defines its row; adding an operator adds one line to each list below.
#include <cstring>
#include <iterator>

#include "aclnn_upsample/operators.h"

namespace aclnn_upsample {

extern const aclnn_upsample_operator kUpsampleBilinear2d;
extern const aclnn_upsample_operator kUpsampleBilinear2dBackwardV2;
extern const aclnn_upsample_operator kUpsampleBicubic2dAA;
extern const aclnn_upsample_operator kUpsampleBicubic2dAAGrad;

namespace {

const aclnn_upsample_operator* const kOperators[] = {
    &kUpsampleBilinear2d,
    &kUpsampleBilinear2dBackwardV2,
    &kUpsampleBicubic2dAA,
    &kUpsampleBicubic2dAAGrad,
};

}  // namespace
}  // namespace aclnn_upsample

extern "C" size_t aclnn_upsample_operator_count(void) {
  return std::size(aclnn_upsample::kOperators);
}

extern "C" const aclnn_upsample_operator* aclnn_upsample_operator_at(size_t index) {
  return index < std::size(aclnn_upsample::kOperators) ? aclnn_upsample::kOperators[index]
                                                       : nullptr;
}

extern "C" const aclnn_upsample_operator* aclnn_upsample_find_operator(const char* key) {
  if (key == nullptr) return nullptr;
  for (const aclnn_upsample_operator* op : aclnn_upsample::kOperators) {
    if (std::strcmp(op->name, key) == 0 || std::strcmp(op->command, key) == 0) return op;
  }
  return nullptr;
}

extern "C" const aclnn_upsample_operator* aclnn_upsample_adjoint_operator(
    const aclnn_upsample_operator* op) {
  if (op == nullptr) return nullptr;
  for (const aclnn_upsample_operator* other : aclnn_upsample::kOperators) {
    if (std::strcmp(other->mode, op->mode) == 0 && other->direction != op->direction) return other;
  }
  return nullptr;
}
