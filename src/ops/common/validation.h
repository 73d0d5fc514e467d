// The checks both operators share (contract section 3.1), as small predicates run in a fixed
// order; each failing check returns its status and records a message that names the operator,
// the parameter, what was expected and what arrived. Operator-specific rules live in the
// operator's own folder and run after these.
#ifndef ACLNN_UPSAMPLE_OPS_COMMON_VALIDATION_H_
#define ACLNN_UPSAMPLE_OPS_COMMON_VALIDATION_H_

#include <cstdint>

#include "aclnn/acl_meta.h"
#include "engine/plan.h"

namespace aclnn_upsample {

struct OperatorTraits {
  const char* name;       // e.g. "aclnnUpsampleBilinear2dBackwardV2"
  const char* grad_name;  // the gradient parameter's name in this operator's signature
  bool accepts_nhwc;      // bilinear: NCHW or NHWC; bicubic AA: NCHW or ND
  bool accepts_nd;
};

// What the shared checks establish about a call.
struct Problem {
  DType dtype = DType::kFloat32;
  aclFormat format = ACL_FORMAT_NCHW;
  int64_t batch = 0, channels = 0;
  int64_t in_h = 0, in_w = 0;    // forward input = result
  int64_t out_h = 0, out_w = 0;  // forward output = gradOut
  PlaneView grad;                // logical (N, C, H_out, W_out)
  PlaneView result;              // logical (N, C, H_in, W_in)
  bool empty() const { return batch == 0 || channels == 0; }
};

// Runs the shared checks in order and returns the first failure's status; on success fills
// `problem`, with both tensors converted to the engine's (N, C, H, W) plane views.
aclnnStatus ValidateCommon(const OperatorTraits& op, const aclTensor* grad,
                           const aclIntArray* output_size, const aclIntArray* input_size,
                           const aclTensor* out, const uint64_t* workspace_size,
                           aclOpExecutor* const* executor, Problem* problem);

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_OPS_COMMON_VALIDATION_H_
