// A small process-wide pool of worker threads, started on first use and never per call.
//
// ParallelFor hands out task indices to the calling thread and up to num_threads - 1 workers.
// Each participant has a distinct slot in [0, num_threads) for the duration of the call (the
// caller is slot 0), which indexes its private scratch. Which thread runs which task is not
// fixed, so callers make every task's result independent of that: determinism comes from the
// tasks, not from the schedule. Several application threads may call ParallelFor at once; a
// call that finds no free worker simply runs its tasks itself. Tasks may store with streaming
// (non-temporal) stores: each participant flushes them (kernels::FlushStreamedStores) after its
// last task, before the call hands its tasks' end to the caller. Idle workers, and a caller
// waiting for its workers, poll briefly before they block (thread_pool.cc says how long, and why).
#ifndef ACLNN_UPSAMPLE_ENGINE_THREAD_POOL_H_
#define ACLNN_UPSAMPLE_ENGINE_THREAD_POOL_H_

#include <cstdint>
#include <functional>

namespace aclnn_upsample {

using TaskFunction = std::function<void(int64_t task, int slot)>;

void ParallelFor(int64_t num_tasks, int num_threads, const TaskFunction& run_task);

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_ENGINE_THREAD_POOL_H_
