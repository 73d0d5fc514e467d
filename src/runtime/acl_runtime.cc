// The host runtime of CANN's call examples, with the CPU as device 0. Operators run
// synchronously on the calling thread when launched, so a stream has no pending work and
// aclrtSynchronizeStream only validates its handle.
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_set>

#include "acl/acl.h"
#include "runtime/error.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace {

using aclnn_upsample::SetRecentError;

// Device memory is host memory aligned for the widest vector loads.
constexpr size_t kDeviceAlignment = 64;

// aclrtMalloc's policies other than ACL_MEM_MALLOC_NORMAL_ONLY ask for huge pages. On Linux those
// are transparent huge pages, which most distributions (Debian's "madvise" default) give only to
// memory that asks for them, and only in whole 2 MiB pages: so a buffer of at least one such page
// starts on a page boundary, is rounded up to whole pages and is marked with madvise. Streaming
// through 4 KiB pages costs a TLB miss every 64 lines (a two-dimensional page walk in a virtual
// machine) and stops the hardware prefetchers at each page's end: on the 2-core Zen 4 VM a
// streaming copy measured 13-18 % faster on huge pages, the suite's cases 1.06-1.49x (session 47).
constexpr size_t kHugePageBytes = size_t{2} << 20;

struct Stream {
  int32_t device = 0;
};

struct RuntimeState {
  std::mutex mutex;
  std::unordered_set<Stream*> streams;
};

RuntimeState& State() {
  static RuntimeState* state = new RuntimeState;  // outlives static destructors of callers
  return *state;
}

thread_local int32_t current_device = -1;

aclError RuntimeFail(aclError status, const char* where, const std::string& parameter,
                     const std::string& expected, const std::string& actual) {
  SetRecentError(std::string(where) + ": " + parameter + ": expected " + expected + ", got " +
                 actual);
  return status;
}

aclError CheckDevice(const char* where, int32_t device) {
  if (device != 0) {
    return RuntimeFail(ACL_ERROR_INVALID_PARAM, where, "deviceId", "0 (the CPU is the only device)",
                       std::to_string(device));
  }
  return ACL_SUCCESS;
}

// What a buffer of at least one huge page asks of the kernel. kNoHugePages is NORMAL_ONLY's, so
// that the policy holds where transparent huge pages are on for all memory.
enum class PageAdvice { kNone, kHugePages, kNoHugePages };

aclError AllocateAligned(const char* where, void** ptr, size_t size,
                         PageAdvice advice = PageAdvice::kNone) {
  if (ptr == nullptr)
    return RuntimeFail(ACL_ERROR_INVALID_PARAM, where, "ptr", "non-null", "nullptr");
  *ptr = nullptr;
  if (size == 0) return RuntimeFail(ACL_ERROR_INVALID_PARAM, where, "size", "> 0", "0");
  if (size > SIZE_MAX - kDeviceAlignment) {
    return RuntimeFail(ACL_ERROR_BAD_ALLOC, where, "size", "a size that can be allocated",
                       std::to_string(size));
  }
  const bool whole_pages =
      advice != PageAdvice::kNone && size >= kHugePageBytes && size <= SIZE_MAX - kHugePageBytes;
  const size_t alignment = whole_pages ? kHugePageBytes : kDeviceAlignment;
  const size_t rounded = (size + alignment - 1) / alignment * alignment;
  void* memory = std::aligned_alloc(alignment, rounded);
  if (memory == nullptr) {
    return RuntimeFail(ACL_ERROR_BAD_ALLOC, where, "size", "a size that can be allocated",
                       std::to_string(size) + " bytes (out of memory)");
  }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // Advice only: the kernel backs what it can with huge pages and the rest with small ones, and
  // a kernel without transparent huge pages refuses the advice, which leaves ordinary memory.
  if (whole_pages) {
    madvise(memory, rounded, advice == PageAdvice::kHugePages ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  }
#endif
  *ptr = memory;
  return ACL_SUCCESS;
}

}  // namespace

extern "C" {

aclError aclInit(const char* /*configPath*/) { return ACL_SUCCESS; }
aclError aclFinalize(void) { return ACL_SUCCESS; }

aclError aclrtSetDevice(int32_t deviceId) {
  const aclError status = CheckDevice("aclrtSetDevice", deviceId);
  if (status == ACL_SUCCESS) current_device = deviceId;
  return status;
}

aclError aclrtResetDevice(int32_t deviceId) {
  const aclError status = CheckDevice("aclrtResetDevice", deviceId);
  if (status == ACL_SUCCESS) current_device = -1;
  return status;
}

aclError aclrtGetDevice(int32_t* deviceId) {
  if (deviceId == nullptr) {
    return RuntimeFail(ACL_ERROR_INVALID_PARAM, "aclrtGetDevice", "deviceId", "non-null",
                       "nullptr");
  }
  if (current_device < 0) {
    return RuntimeFail(ACL_ERROR_INVALID_PARAM, "aclrtGetDevice", "device",
                       "a device set with aclrtSetDevice on this thread", "none");
  }
  *deviceId = current_device;
  return ACL_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t* count) {
  if (count == nullptr) {
    return RuntimeFail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount", "count", "non-null",
                       "nullptr");
  }
  *count = 1;
  return ACL_SUCCESS;
}

aclError aclrtCreateStream(aclrtStream* stream) {
  if (stream == nullptr) {
    return RuntimeFail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStream", "stream", "non-null",
                       "nullptr");
  }
  auto* created = new (std::nothrow) Stream;
  if (created == nullptr) {
    return RuntimeFail(ACL_ERROR_BAD_ALLOC, "aclrtCreateStream", "stream", "memory for a stream",
                       "out of memory");
  }
  RuntimeState& state = State();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.streams.insert(created);
  *stream = created;
  return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream) {
  RuntimeState& state = State();
  std::lock_guard<std::mutex> lock(state.mutex);
  auto it = state.streams.find(static_cast<Stream*>(stream));
  if (it == state.streams.end()) {
    return RuntimeFail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream", "stream",
                       "a stream from aclrtCreateStream", "an unknown handle");
  }
  delete *it;
  state.streams.erase(it);
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  if (stream == nullptr) return ACL_SUCCESS;  // the default stream
  RuntimeState& state = State();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.streams.count(static_cast<Stream*>(stream)) == 0) {
    return RuntimeFail(ACL_ERROR_INVALID_PARAM, "aclrtSynchronizeStream", "stream",
                       "a stream from aclrtCreateStream or nullptr", "an unknown handle");
  }
  return ACL_SUCCESS;  // work launched on a stream has already completed
}

aclError aclrtSynchronizeDevice(void) { return ACL_SUCCESS; }

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  if (policy < ACL_MEM_MALLOC_HUGE_FIRST || policy > ACL_MEM_MALLOC_NORMAL_ONLY) {
    return RuntimeFail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc", "policy",
                       "ACL_MEM_MALLOC_HUGE_FIRST, _HUGE_ONLY or _NORMAL_ONLY",
                       std::to_string(static_cast<int>(policy)));
  }
  return AllocateAligned(
      "aclrtMalloc", devPtr, size,
      policy == ACL_MEM_MALLOC_NORMAL_ONLY ? PageAdvice::kNoHugePages : PageAdvice::kHugePages);
}

aclError aclrtFree(void* devPtr) {
  if (devPtr == nullptr) {
    return RuntimeFail(ACL_ERROR_INVALID_PARAM, "aclrtFree", "devPtr", "non-null", "nullptr");
  }
  std::free(devPtr);
  return ACL_SUCCESS;
}

aclError aclrtMallocHost(void** hostPtr, size_t size) {
  return AllocateAligned("aclrtMallocHost", hostPtr, size);
}

aclError aclrtFreeHost(void* hostPtr) {
  if (hostPtr == nullptr) {
    return RuntimeFail(ACL_ERROR_INVALID_PARAM, "aclrtFreeHost", "hostPtr", "non-null", "nullptr");
  }
  std::free(hostPtr);
  return ACL_SUCCESS;
}

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                     aclrtMemcpyKind kind) {
  const char* where = "aclrtMemcpy";
  if (kind < ACL_MEMCPY_HOST_TO_HOST || kind > ACL_MEMCPY_DEVICE_TO_DEVICE) {
    return RuntimeFail(ACL_ERROR_INVALID_PARAM, where, "kind", "an aclrtMemcpyKind (0..3)",
                       std::to_string(static_cast<int>(kind)));
  }
  if (count > destMax) {
    return RuntimeFail(ACL_ERROR_INVALID_PARAM, where, "count",
                       "at most destMax (" + std::to_string(destMax) + ")", std::to_string(count));
  }
  if (count == 0) return ACL_SUCCESS;
  if (dst == nullptr || src == nullptr) {
    return RuntimeFail(ACL_ERROR_INVALID_PARAM, where, dst == nullptr ? "dst" : "src", "non-null",
                       "nullptr");
  }
  std::memmove(dst, src, count);  // host and "device" memory may overlap here
  return ACL_SUCCESS;
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  const char* where = "aclrtMemset";
  if (count > maxCount) {
    return RuntimeFail(ACL_ERROR_INVALID_PARAM, where, "count",
                       "at most maxCount (" + std::to_string(maxCount) + ")",
                       std::to_string(count));
  }
  if (count == 0) return ACL_SUCCESS;
  if (devPtr == nullptr) {
    return RuntimeFail(ACL_ERROR_INVALID_PARAM, where, "devPtr", "non-null", "nullptr");
  }
  std::memset(devPtr, value, count);
  return ACL_SUCCESS;
}

}  // extern "C"
