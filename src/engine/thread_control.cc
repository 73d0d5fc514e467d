#include "engine/thread_control.h"

#include <algorithm>
#include <atomic>
#include <mutex>

namespace aclnn_upsample {
namespace {

// Relaxed is enough: a plan reads one value, and no other data is published through it.
std::atomic<int> thread_count_override{0};

// Read once per ParallelFor and per plan: a mutex costs nothing next to either.
std::mutex team_mutex;
ExternalTeam external_team;
bool has_external_team = false;

}  // namespace

void SetThreadCountOverride(int threads) {
  // The same ceiling ThreadCountFor puts on the environment variable.
  thread_count_override.store(std::clamp(threads, 0, 1024), std::memory_order_relaxed);
}

int ThreadCountOverride() { return thread_count_override.load(std::memory_order_relaxed); }

void SetExternalTeam(const ExternalTeam* team) {
  std::lock_guard<std::mutex> lock(team_mutex);
  has_external_team = team != nullptr && team->run != nullptr && team->max_threads != nullptr;
  if (has_external_team) external_team = *team;
}

bool GetExternalTeam(ExternalTeam* team) {
  std::lock_guard<std::mutex> lock(team_mutex);
  if (has_external_team) *team = external_team;
  return has_external_team;
}

}  // namespace aclnn_upsample
