// The checks every operator shares (contract section 3.1), as small predicates run in a fixed
// order; each failing check returns its status and records a message that names the operator,
// the parameter, what was expected and what arrived. Operator-specific rules live in the
// operator's own folder and run after these. Forward and backward signatures differ only in
// which tensor is the forward input: a backward call names its shape in inputSize, a forward
// call's source tensor is it.
#ifndef ACLNN_UPSAMPLE_OPS_COMMON_VALIDATION_H_
#define ACLNN_UPSAMPLE_OPS_COMMON_VALIDATION_H_

#include <cstdint>

#include "aclnn/acl_meta.h"
#include "aclnn_upsample/operators.h"
#include "engine/plan.h"

namespace aclnn_upsample {

// What the shared checks establish about a call.
struct Problem {
  DType dtype = DType::kFloat32;
  aclFormat format = ACL_FORMAT_NCHW;
  int64_t batch = 0, channels = 0;
  // The resize's own sizes, whichever direction runs: the forward input (the image) and the
  // forward output (outputSize). A backward call reads the second and writes the first.
  int64_t forward_in_h = 0, forward_in_w = 0;
  int64_t forward_out_h = 0, forward_out_w = 0;
  PlaneView source;  // the tensor read, logical (N, C, H, W)
  PlaneView result;  // the tensor written (`out`), logical (N, C, H, W)
  bool empty() const { return batch == 0 || channels == 0; }
};

// Runs the shared checks in order and returns the first failure's status; on success fills
// `problem`, with both tensors converted to the engine's (N, C, H, W) plane views. `input_size`
// is ignored (and may be null) for a forward operator.
aclnnStatus ValidateCommon(const aclnn_upsample_operator& op, const aclTensor* source,
                           const aclIntArray* output_size, const aclIntArray* input_size,
                           const aclTensor* out, const uint64_t* workspace_size,
                           aclOpExecutor* const* executor, Problem* problem);

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_OPS_COMMON_VALIDATION_H_
