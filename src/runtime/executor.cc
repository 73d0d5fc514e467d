#include "runtime/executor.h"

#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "runtime/error.h"

namespace aclnn_upsample {
namespace {

static_assert(sizeof(uintptr_t) == 8, "handles encode a 64-bit id");
// A non-canonical x86-64 / AArch64 address: dereferencing a handle by mistake faults at once.
constexpr uintptr_t kHandleTag = uintptr_t{0xACE0} << 48;

struct Registry {
  std::mutex mutex;
  uint64_t next_id = 1;
  std::unordered_map<uintptr_t, std::shared_ptr<Executor>> executors;
};

Registry& GetRegistry() {
  static Registry* registry = new Registry;  // never destroyed: usable during static teardown
  return *registry;
}

}  // namespace

aclOpExecutor* RegisterExecutor(std::unique_ptr<Executor> executor) {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  const uintptr_t key = kHandleTag | registry.next_id++;
  registry.executors.emplace(key, std::shared_ptr<Executor>(std::move(executor)));
  // The handle is a key, never an address: nothing may dereference it.
  return reinterpret_cast<aclOpExecutor*>(key);  // NOLINT(performance-no-int-to-ptr)
}

std::shared_ptr<const Executor> AcquireExecutorForRun(aclOpExecutor* handle) {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto it = registry.executors.find(reinterpret_cast<uintptr_t>(handle));
  if (it == registry.executors.end()) return nullptr;
  std::shared_ptr<const Executor> executor = it->second;
  if (!it->second->repeatable) registry.executors.erase(it);
  return executor;
}

size_t LiveExecutorCount() {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  return registry.executors.size();
}

}  // namespace aclnn_upsample

namespace {
aclnnStatus UnknownExecutor(const char* where) {
  return aclnn_upsample::Fail(ACLNN_ERR_PARAM_INVALID, where, "executor",
                              "a live executor returned by a GetWorkspaceSize call",
                              "an unknown, destroyed or already consumed handle");
}
}  // namespace

extern "C" aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor* executor) {
  using namespace aclnn_upsample;
  const char* where = "aclSetAclOpExecutorRepeatable";
  if (executor == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR, where, "executor", "a non-null handle", "nullptr");
  }
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto it = registry.executors.find(reinterpret_cast<uintptr_t>(executor));
  if (it == registry.executors.end()) return UnknownExecutor(where);
  it->second->repeatable = true;
  return ACLNN_SUCCESS;
}

extern "C" aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor) {
  using namespace aclnn_upsample;
  const char* where = "aclDestroyAclOpExecutor";
  if (executor == nullptr) {
    return Fail(ACLNN_ERR_PARAM_NULLPTR, where, "executor", "a non-null handle", "nullptr");
  }
  std::shared_ptr<Executor> doomed;  // released outside the lock
  Registry& registry = GetRegistry();
  {
    std::lock_guard<std::mutex> lock(registry.mutex);
    auto it = registry.executors.find(reinterpret_cast<uintptr_t>(executor));
    if (it == registry.executors.end()) return UnknownExecutor(where);
    doomed = std::move(it->second);
    registry.executors.erase(it);
  }
  return ACLNN_SUCCESS;
}
