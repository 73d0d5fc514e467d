// How an embedding steers the library's threads, beyond ACLNN_UPSAMPLE_NUM_THREADS.
//
// Not part of the C API (CANN has no such calls): the Python module, which links the static core
// privately, uses them for aclnn_upsample.set_num_threads (changing the environment of a running
// process would race with threads reading it) and, inside PyTorch, to run the library's tasks on
// PyTorch's own OpenMP threads instead of a second pool that competes with them for the cores.
#ifndef ACLNN_UPSAMPLE_ENGINE_THREAD_CONTROL_H_
#define ACLNN_UPSAMPLE_ENGINE_THREAD_CONTROL_H_

namespace aclnn_upsample {

// `threads` >= 1 makes every later phase 1 plan for exactly that many threads; 0 returns to the
// default (the environment variable, else the traffic-based count). Negative values count as 0.
void SetThreadCountOverride(int threads);

// The value last set, 0 when none.
int ThreadCountOverride();

// Someone else's threads, run as one team per call (an OpenMP parallel region, say).
struct ExternalTeam {
  // Calls body(arg, index) on at most `threads` threads at once, each with a distinct index in
  // [0, threads) (the calling thread among them, or not), and returns when all have returned,
  // with their writes visible to the caller. Fewer threads, even one, is fine.
  void (*run)(void* context, int threads, void (*body)(void* arg, int index), void* arg);
  // The threads a team would have now: stands in for the process's cores in the default count.
  int (*max_threads)(void* context);
  void* context;
};

// Makes later ParallelFor calls run on `team` (copied), or on the library's own pool again when
// null. Calls already running finish where they started.
void SetExternalTeam(const ExternalTeam* team);

// The team set, if any: a copy, so that it stays valid for the caller's whole call.
bool GetExternalTeam(ExternalTeam* team);

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_ENGINE_THREAD_CONTROL_H_
