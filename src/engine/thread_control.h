// The thread count an embedding chose for the whole process, above ACLNN_UPSAMPLE_NUM_THREADS.
//
// Not part of the C API (CANN has no such call): the Python module, which links the static core
// privately, uses it for aclnn_upsample.set_num_threads, where changing the environment of a
// running process would race with other threads reading it.
#ifndef ACLNN_UPSAMPLE_ENGINE_THREAD_CONTROL_H_
#define ACLNN_UPSAMPLE_ENGINE_THREAD_CONTROL_H_

namespace aclnn_upsample {

// `threads` >= 1 makes every later phase 1 plan for exactly that many threads; 0 returns to the
// default (the environment variable, else the traffic-based count). Negative values count as 0.
void SetThreadCountOverride(int threads);

// The value last set, 0 when none.
int ThreadCountOverride();

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_ENGINE_THREAD_CONTROL_H_
