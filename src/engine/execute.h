// Phase 2: runs a plan. Allocates nothing; all scratch comes from the caller's workspace of
// plan.workspace_bytes.
#ifndef ACLNN_UPSAMPLE_ENGINE_EXECUTE_H_
#define ACLNN_UPSAMPLE_ENGINE_EXECUTE_H_

#include "engine/plan.h"

namespace aclnn_upsample {

void Execute(const Plan& plan, void* workspace);

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_ENGINE_EXECUTE_H_
