// Run-time target selection. Highway dispatches every kernel call to the best target that is both
// compiled in and supported by the CPU; ACLNN_UPSAMPLE_SIMD pins a lower one (to measure it, or
// to run the suite on it) by disabling every better target with hwy::DisableTargets, Highway's
// production mechanism. The test-only SetSupportedTargetsForTest stays free for the kernel tests,
// which iterate the targets that remain.
//
// All translation units of the library share one set of compile flags, so HWY_TARGETS here is
// the set the kernels were compiled for. HWY_WANT_AVX3_DL is not defined: AVX3_DL adds integer,
// bit and crypto instructions (VNNI, VBMI, VPCLMULQDQ, ...) and nothing for float FMA, so it
// would cost compile time and library size for code no faster than AVX3's.
#include <unistd.h>

// HWY_ARCH_X86_64, which guards its use below, is not defined yet: the same test spelled out.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "aclnn_upsample/version.h"
#include "hwy/cache_control.h"
#include "hwy/targets.h"
#include "kernels/kernels.h"

namespace aclnn_upsample {
namespace kernels {
namespace {

constexpr int64_t kPortableTargets = HWY_EMU128 | HWY_SCALAR;

// Lower bits are better targets in Highway's masks.
int64_t BestOf(int64_t targets) { return targets & -targets; }

std::string LowerCase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// `targets`' names, best first, separated by `separator`; lower-case names are the ones
// ACLNN_UPSAMPLE_SIMD takes.
std::string TargetNames(int64_t targets, const char* separator, bool lower_case) {
  std::string names;
  for (int64_t rest = targets; rest != 0; rest &= rest - 1) {
    if (!names.empty()) names += separator;
    std::string name = hwy::TargetName(BestOf(rest));
    names += lower_case ? LowerCase(name) : name;
  }
  return names;
}

// The request as it may appear in a one-line message: control characters (a newline would
// split the line) shown as '?', and at most 32 characters.
std::string Printable(const std::string& request) {
  std::string shown = request.substr(0, 32);
  for (char& c : shown) {
    if (std::iscntrl(static_cast<unsigned char>(c))) c = '?';
  }
  return request.size() > shown.size() ? shown + "..." : shown;
}

struct SimdState {
  int64_t compiled = 0;
  int64_t supported = 0;    // by the CPU, among the compiled targets, before any pin
  int64_t pinned = 0;       // the CPU's targets the pin leaves, 0 without a pin
  size_t pinned_index = 0;  // the pinned target's entry in Highway's dispatch tables
};

// Runs once per process, before the first dispatch (see kSelectedWhileLoading).
const SimdState& State() {
  static const SimdState state = [] {
    SimdState s;
    // Nothing has disabled or mocked a target yet, so this is what the CPU can run.
    const int64_t cpu = hwy::SupportedTargets();
    s.compiled = HWY_TARGETS;
    s.supported = HWY_TARGETS & cpu;
    const SimdSelection selection =
        SelectSimdTarget(std::getenv("ACLNN_UPSAMPLE_SIMD"), HWY_TARGETS, cpu);
    if (!selection.ignored.empty()) {
      std::fprintf(stderr, "aclnn_upsample: %s\n", selection.ignored.c_str());
    }
    native_bfloat16_rounding.store(selection.disabled == 0 && CpuHasBFloat16Conversions(),
                                   std::memory_order_relaxed);
    if (selection.disabled != 0) {
      hwy::DisableTargets(selection.disabled);
      s.pinned = cpu & ~selection.disabled;
      hwy::ChosenTarget probe;
      probe.Update(s.pinned);
      s.pinned_index = probe.GetIndex();
    }
    // One dispatch now, while the process has one thread: the first dispatch chooses the target,
    // and a racing one could run the CPU's best target meanwhile (see ApplySimdOverrideOnce).
    ActiveTargetName();
    return s;
  }();
  return state;
}

// The selection is made while the library (or a program linking the static core) loads, so it
// precedes every kernel call, whichever entry point comes first, and every enumeration of the
// supported targets: the kernel tests list their targets from hwy::SupportedTargets() before any
// test runs, and under a pin list only the pinned target and those below it.
[[maybe_unused]] const bool kSelectedWhileLoading = (State(), true);

}  // namespace

SimdSelection SelectSimdTarget(const char* request, int64_t compiled, int64_t supported) {
  SimdSelection selection;
  const std::string wanted = LowerCase(request == nullptr ? "" : request);
  if (wanted.empty() || wanted == "best") return selection;

  const int64_t available = compiled & supported;
  int64_t target = 0;
  if (wanted == "portable") {
    target = BestOf(compiled & kPortableTargets);
  } else {
    for (int64_t rest = compiled; rest != 0 && target == 0; rest &= rest - 1) {
      if (LowerCase(hwy::TargetName(BestOf(rest))) == wanted) target = BestOf(rest);
    }
  }
  if (target != 0 && (target & available) != 0) {
    selection.disabled = target - 1;  // every better target, whether compiled or not
    return selection;
  }
  const std::string choices = "best, " + TargetNames(available & ~kPortableTargets, ", ", true) +
                              ((available & ~kPortableTargets) != 0 ? ", " : "") + "portable";
  selection.ignored = "ACLNN_UPSAMPLE_SIMD=" + Printable(request) +
                      (target == 0 ? " names no SIMD target of this build"
                                   : std::string(": this CPU lacks ") + hwy::TargetName(target)) +
                      "; expected one of " + choices + "; running the best, " +
                      hwy::TargetName(BestOf(available));
  return selection;
}

void ApplySimdOverrideOnce() {
  const SimdState& state = State();
  if (state.pinned == 0) return;
  // Highway 1.0.3's hwy::SupportedTargets(), whoever calls it, points dispatch at the CPU's best
  // target, ignoring hwy::DisableTargets, until the next DisableTargets or
  // SetSupportedTargetsForTest. Put the pin back with one atomic store, which a concurrent
  // dispatch sees whole. A target below the pin (the kernel tests' mock) is left alone.
  hwy::ChosenTarget& chosen = hwy::GetChosenTarget();
  if (chosen.IsInitialized() && chosen.GetIndex() < state.pinned_index) {
    chosen.Update(state.pinned);
  }
}

void FlushStreamedStores() { hwy::FlushStream(); }

// Constant-initialised, so false until State() runs while the library loads.
std::atomic<bool> native_bfloat16_rounding{false};

bool CpuHasBFloat16Conversions() {
#if HWY_ARCH_X86_64 && (defined(__GNUC__) || defined(__clang__))
  return __builtin_cpu_supports("avx512bf16");
#else
  return false;
#endif
}

namespace {
// The largest cache Linux's cacheinfo lists for CPU 0 ("2048K" or "32M", one file per cache),
// else glibc's sysconf, else 0. Cacheinfo first: the kernel reads the caches this core shares
// from the CPU's per-core topology leaves, while glibc 2.36 on the Zen 5 EPYC VM (family 26,
// session 55) reported 384 MiB of L3 where the core shares 32 MiB (lscpu and cacheinfo alike),
// so calls of 32-384 MiB were planned as if they stayed in cache. Read once.
uint64_t DetectedLastLevelCacheBytes() {
  static const uint64_t bytes = [] {
    uint64_t largest = 0;
    for (int index = 0; index < 8; ++index) {
      std::ifstream file("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) +
                         "/size");
      uint64_t size = 0;
      char unit = 0;
      if (!(file >> size)) continue;
      if (file >> unit) size <<= unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : 0;
      largest = std::max(largest, size);
    }
#ifdef _SC_LEVEL3_CACHE_SIZE
    if (largest == 0) {
      const long level3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
      if (level3 > 0) largest = static_cast<uint64_t>(level3);
    }
#endif
    return largest;
  }();
  return bytes;
}

#if HWY_ARCH_X86_64 && (defined(__GNUC__) || defined(__clang__))
// The x86 family cpuid's leaf 1 reports (the base family, plus the extended one where the base
// is 15, as AMD and Intel both define it), or 0.
unsigned CpuFamily() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return 0;
  const unsigned base = (eax >> 8) & 0xF;
  return base == 0xF ? base + ((eax >> 20) & 0xFF) : base;
}
#endif
}  // namespace

KernelTuning DefaultTuningForCpu() {
#if HWY_ARCH_X86_64 && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();  // the first call may come from a constructor, before GCC's own
  if (__builtin_cpu_is("amd")) {
    // Zen 5 (family 26) on: 512-bit datapaths (the EPYC parts), and L1 prefetches that wait less.
    const bool zen5_on = CpuFamily() >= 0x1A;
    return KernelTuning{/*at_once_bytes=*/8192,
                        /*prefetch_rows_at_once=*/true,
                        /*spread_bytes=*/2048,
                        /*into_l2=*/!zen5_on,
                        /*many_taps_in_half_vectors=*/!zen5_on,
                        /*prefetch_row_group_chunks=*/true,
                        /*blocked_in_half_vectors=*/true,
                        /*wide_periodic_taps=*/kMaxPeriodicTaps,
                        /*group_source_window_bytes=*/0,
                        /*from_memory_at_once_bytes=*/0,
                        /*last_level_cache_bytes=*/DetectedLastLevelCacheBytes()};
  }
#endif
  return KernelTuning{/*at_once_bytes=*/512,
                      /*prefetch_rows_at_once=*/false,
                      /*spread_bytes=*/2048,
                      /*into_l2=*/false,
                      /*many_taps_in_half_vectors=*/false,
                      /*prefetch_row_group_chunks=*/false,
                      /*blocked_in_half_vectors=*/false,
                      /*wide_periodic_taps=*/kMaxPeriodicTaps,
                      /*group_source_window_bytes=*/21 * 1024,
                      /*from_memory_at_once_bytes=*/4096,
                      /*last_level_cache_bytes=*/DetectedLastLevelCacheBytes()};
}

namespace {
// A function-local static, so that a kernel run from another library's constructor finds it set.
KernelTuning& MutableTuning() {
  static KernelTuning tuning = DefaultTuningForCpu();
  return tuning;
}
}  // namespace

const KernelTuning& TuningForCpu() { return MutableTuning(); }

void OverrideTuning(const KernelTuning& tuning) { MutableTuning() = tuning; }

void SetNativeBFloat16RoundingForTest(bool enabled) {
  native_bfloat16_rounding.store(enabled && CpuHasBFloat16Conversions(), std::memory_order_relaxed);
}

}  // namespace kernels
}  // namespace aclnn_upsample

extern "C" {

const char* aclnn_upsample_simd_target(void) {
  aclnn_upsample::kernels::ApplySimdOverrideOnce();
  return aclnn_upsample::kernels::ActiveTargetName();
}

const char* aclnn_upsample_simd_targets(void) {
  static const std::string names =
      aclnn_upsample::kernels::TargetNames(aclnn_upsample::kernels::State().supported, " ", false);
  return names.c_str();
}

const char* aclnn_upsample_simd_extensions(void) {
  aclnn_upsample::kernels::State();
  return aclnn_upsample::kernels::NativeBFloat16Rounding() ? "AVX512_BF16" : "";
}

const char* aclnn_upsample_simd_compiled_targets(void) {
  static const std::string names =
      aclnn_upsample::kernels::TargetNames(aclnn_upsample::kernels::State().compiled, " ", false);
  return names.c_str();
}

}  // extern "C"
