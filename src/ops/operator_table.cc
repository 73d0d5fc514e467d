// The operator table (include/aclnn_upsample/operators.h): each operator's folder under ops/
// defines its row; adding an operator adds one line to each list below. New rows go at the end:
// the fuzzer's corpus names rows by index.
#include <cstring>
#include <iterator>

#include "aclnn_upsample/operators.h"

namespace aclnn_upsample {

extern const aclnn_upsample_operator kUpsampleBilinear2d;
extern const aclnn_upsample_operator kUpsampleBilinear2dBackwardV2;
extern const aclnn_upsample_operator kUpsampleBicubic2dAA;
extern const aclnn_upsample_operator kUpsampleBicubic2dAAGrad;
extern const aclnn_upsample_operator kUpsampleBilinear2dBackward;
extern const aclnn_upsample_operator kUpsampleBilinear2dAA;
extern const aclnn_upsample_operator kUpsampleBilinear2dAABackward;
extern const aclnn_upsample_operator kUpsampleBicubic2d;
extern const aclnn_upsample_operator kUpsampleBicubic2dBackward;
extern const aclnn_upsample_operator kUpsampleNearest2dV2;
extern const aclnn_upsample_operator kUpsampleNearest2d;
extern const aclnn_upsample_operator kUpsampleNearest2dBackward;
extern const aclnn_upsample_operator kUpsampleNearestExact2d;
extern const aclnn_upsample_operator kUpsampleNearestExact2dBackward;

namespace {

const aclnn_upsample_operator* const kOperators[] = {
    &kUpsampleBilinear2d,
    &kUpsampleBilinear2dBackwardV2,
    &kUpsampleBicubic2dAA,
    &kUpsampleBicubic2dAAGrad,
    &kUpsampleBilinear2dBackward,
    &kUpsampleBilinear2dAA,
    &kUpsampleBilinear2dAABackward,
    &kUpsampleBicubic2d,
    &kUpsampleBicubic2dBackward,
    &kUpsampleNearest2dV2,
    &kUpsampleNearest2d,
    &kUpsampleNearest2dBackward,
    &kUpsampleNearestExact2d,
    &kUpsampleNearestExact2dBackward,
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
