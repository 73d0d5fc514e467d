// Executors: what phase 1 hands to phase 2. Handles given to callers are registry keys, never
// addresses, so a consumed, destroyed or invented handle is looked up and rejected, never
// dereferenced, and a stale handle can never alias a newer executor.
#ifndef ACLNN_UPSAMPLE_RUNTIME_EXECUTOR_H_
#define ACLNN_UPSAMPLE_RUNTIME_EXECUTOR_H_

#include <memory>

#include "aclnn/acl_meta.h"
#include "engine/plan.h"

namespace aclnn_upsample {

struct Executor {
  const char* op_name = "";  // the operator whose phase 1 made it
  Plan plan;
  bool repeatable = false;
};

// Takes ownership and returns the caller's handle (nullptr if out of memory).
aclOpExecutor* RegisterExecutor(std::unique_ptr<Executor> executor);

// For phase 2: the executor of `handle`, or nullptr if the handle is unknown or was consumed.
// A single-use executor is consumed by this call; a repeatable one stays registered.
std::shared_ptr<const Executor> AcquireExecutorForRun(aclOpExecutor* handle);

// The number of executors currently registered (for leak checks in tests).
size_t LiveExecutorCount();

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_RUNTIME_EXECUTOR_H_
