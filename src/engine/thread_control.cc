#include "engine/thread_control.h"

#include <algorithm>
#include <atomic>

namespace aclnn_upsample {
namespace {

// Relaxed is enough: a plan reads one value, and no other data is published through it.
std::atomic<int> thread_count_override{0};

}  // namespace

void SetThreadCountOverride(int threads) {
  // The same ceiling ThreadCountFor puts on the environment variable.
  thread_count_override.store(std::clamp(threads, 0, 1024), std::memory_order_relaxed);
}

int ThreadCountOverride() { return thread_count_override.load(std::memory_order_relaxed); }

}  // namespace aclnn_upsample
