// Run-time SIMD target selection: what each ACLNN_UPSAMPLE_SIMD value selects (on made-up CPUs
// as well as this one), that the selection reaches Highway's dispatch, that the target running in
// this process is the one the environment asks for (so a suite run under a pin proves that it ran
// on that target), and that the targets reported as supported are the CPU's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "aclnn_upsample/version.h"
#include "hwy/targets.h"
#include "kernels/kernels.h"
#include "support/text.h"

namespace aclnn_upsample {
namespace {

using kernels::SelectSimdTarget;
using kernels::SimdSelection;
using support::LowerCase;
using support::Words;

bool IsPortableName(const std::string& name) { return name == "SCALAR" || name == "EMU128"; }

// The target the environment asks for, worked out from the documented rules rather than from
// the library's selection code.
std::string ExpectedTarget() {
  const std::vector<std::string> supported = Words(aclnn_upsample_simd_targets());
  const char* request = std::getenv("ACLNN_UPSAMPLE_SIMD");
  const std::string wanted = LowerCase(request == nullptr ? "" : request);
  if (wanted == "portable") return supported.back();
  for (const std::string& name : supported) {
    if (LowerCase(name) == wanted) return name;
  }
  return supported.front();  // unset, "best", or a request the library ignores
}

// The float lanes of a target's vectors, 0 where they depend on the CPU (SVE) or are not known
// here.
size_t LanesOf(const std::string& target) {
  if (target == "AVX3") return 16;
  if (target == "AVX2") return 8;
  if (target == "SSE4" || target == "SSSE3" || target == "NEON" || target == "EMU128") return 4;
  if (target == "SCALAR") return 1;
  return 0;
}

// First in this file, so that when the binary runs whole nothing before it has called the
// library: the pin is in place when the program starts, before anything can list the targets
// (as the kernel tests do in main) or dispatch.
TEST(SimdTarget, ThePinIsInPlaceBeforeTheFirstLibraryCall) {
  const int64_t best = hwy::SupportedAndGeneratedTargets().front();
  hwy::GetChosenTarget().DeInit();  // undo what SupportedTargets() did to dispatch (see below)
  EXPECT_EQ(hwy::TargetName(best), ExpectedTarget());
}

TEST(SimdTarget, TheTargetRunningIsTheOneTheEnvironmentAsksFor) {
  const char* request = std::getenv("ACLNN_UPSAMPLE_SIMD");
  const std::string expected = ExpectedTarget();
  EXPECT_EQ(aclnn_upsample_simd_target(), expected)
      << "ACLNN_UPSAMPLE_SIMD=" << (request == nullptr ? "(unset)" : request);
  // Through a second kernel family's dispatch table, and the lanes plans are laid out for.
  EXPECT_EQ(kernels::ActiveTargetName(), expected);
  if (LanesOf(expected) != 0) EXPECT_EQ(kernels::FloatLanes(), LanesOf(expected));
  // Highway's own list starts there, so the kernel tests, which iterate it, cover the pinned
  // target and those below it.
  EXPECT_EQ(hwy::TargetName(hwy::SupportedAndGeneratedTargets().front()), expected);
}

TEST(SimdTarget, APinHoldsAfterACallToHwySupportedTargets) {
  // In Highway 1.0.3 this points dispatch at the CPU's best target whatever was disabled (the
  // call above, through SupportedAndGeneratedTargets, did the same).
  hwy::SupportedTargets();
  const std::string expected = ExpectedTarget();
  // Every plan calls FloatLanes first; it puts the pin back before it dispatches.
  if (LanesOf(expected) != 0) EXPECT_EQ(kernels::FloatLanes(), LanesOf(expected));
  EXPECT_EQ(kernels::ActiveTargetName(), expected);
  EXPECT_EQ(aclnn_upsample_simd_target(), expected);
}

TEST(SimdTarget, SupportedTargetsAreCompiledBestFirstWithThePortableOneLast) {
  const std::vector<std::string> supported = Words(aclnn_upsample_simd_targets());
  const std::vector<std::string> compiled = Words(aclnn_upsample_simd_compiled_targets());
  ASSERT_FALSE(supported.empty());
  EXPECT_TRUE(IsPortableName(supported.back())) << aclnn_upsample_simd_targets();
  EXPECT_TRUE(IsPortableName(compiled.back())) << aclnn_upsample_simd_compiled_targets();
  size_t next = 0;  // supported must be a subsequence of compiled, which is best first
  for (const std::string& name : supported) {
    while (next < compiled.size() && compiled[next] != name) ++next;
    ASSERT_LT(next, compiled.size()) << name << " is supported but not compiled, or out of order";
  }
}

#if HWY_ARCH_X86 && defined(__linux__)
// The x86 targets the kernel says this CPU has (its flags also require the OS to save the
// registers), by Highway's definition of each target.
std::set<std::string> TargetsFromCpuFlags() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::set<std::string> flags;
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("flags", 0) != 0) continue;
    std::vector<std::string> words = Words(line.substr(line.find(':') + 1));
    flags.insert(words.begin(), words.end());
    break;
  }
  auto has = [&](std::initializer_list<const char*> names) {
    for (const char* name : names) {
      if (flags.count(name) == 0) return false;
    }
    return true;
  };
  std::set<std::string> targets;
  if (!has({"sse", "sse2", "pni", "ssse3"})) return targets;
  targets.insert("SSSE3");
  if (!has({"sse4_1", "sse4_2", "pclmulqdq", "aes"})) return targets;
  targets.insert("SSE4");
  if (!has({"avx", "avx2", "abm", "bmi1", "bmi2", "fma", "f16c"})) return targets;
  targets.insert("AVX2");
  if (!has({"avx512f", "avx512vl", "avx512dq", "avx512bw"})) return targets;
  targets.insert("AVX3");
  if (has({"avx512_vnni", "vpclmulqdq", "avx512vbmi", "avx512_vbmi2", "vaes", "avx512_vpopcntdq",
           "avx512_bitalg"})) {
    targets.insert("AVX3_DL");
  }
  return targets;
}

TEST(SimdTarget, SupportedTargetsAreTheCompiledOnesTheCpuFlagsAllow) {
  const std::set<std::string> cpu = TargetsFromCpuFlags();
  ASSERT_FALSE(cpu.empty()) << "no SSSE3 in /proc/cpuinfo; every x86-64 CPU since 2006 has it";
  std::set<std::string> expected;
  for (const std::string& name : Words(aclnn_upsample_simd_compiled_targets())) {
    if (cpu.count(name) != 0 || IsPortableName(name)) expected.insert(name);
  }
  const std::vector<std::string> supported = Words(aclnn_upsample_simd_targets());
  EXPECT_EQ(std::set<std::string>(supported.begin(), supported.end()), expected)
      << "supported: " << aclnn_upsample_simd_targets()
      << "; compiled: " << aclnn_upsample_simd_compiled_targets();
}

// On a made-up x86 CPU with AVX2 but not AVX-512, and a build with the usual targets.
constexpr int64_t kCompiled = HWY_AVX3 | HWY_AVX2 | HWY_SSE4 | HWY_SSSE3 | HWY_SCALAR;
constexpr int64_t kAvx2Cpu = HWY_AVX2 | HWY_SSE4 | HWY_SSSE3 | HWY_EMU128 | HWY_SCALAR;

TEST(SelectSimdTarget, BestOrNothingDisablesNothing) {
  for (const char* request : {static_cast<const char*>(nullptr), "", "best", "BEST"}) {
    const SimdSelection selection = SelectSimdTarget(request, kCompiled, kAvx2Cpu);
    EXPECT_EQ(selection.disabled, 0) << (request == nullptr ? "(unset)" : request);
    EXPECT_EQ(selection.ignored, "");
  }
}

TEST(SelectSimdTarget, ANameDisablesEveryBetterTargetAndNoOther) {
  for (const char* request : {"sse4", "SSE4", "Sse4"}) {
    const SimdSelection selection = SelectSimdTarget(request, kCompiled, kAvx2Cpu);
    EXPECT_EQ(selection.ignored, "") << request;
    for (int64_t better : {HWY_AVX3_DL, HWY_AVX3, HWY_AVX2}) {
      EXPECT_NE(selection.disabled & better, 0) << request << " keeps " << hwy::TargetName(better);
    }
    for (int64_t kept : {HWY_SSE4, HWY_SSSE3, HWY_EMU128, HWY_SCALAR}) {
      EXPECT_EQ(selection.disabled & kept, 0) << request << " drops " << hwy::TargetName(kept);
    }
  }
}

TEST(SelectSimdTarget, PortableLeavesOnlyThePortableTargetCompiled) {
  for (const char* request : {"portable", "scalar"}) {
    const SimdSelection selection = SelectSimdTarget(request, kCompiled, kAvx2Cpu);
    EXPECT_EQ(selection.ignored, "") << request;
    EXPECT_EQ(kCompiled & kAvx2Cpu & ~selection.disabled, HWY_SCALAR) << request;
  }
  // A build whose portable target is EMU128 (clang, or GCC from 12.3) keeps EMU128.
  const int64_t emu128_build = (kCompiled & ~HWY_SCALAR) | HWY_EMU128;
  const SimdSelection selection = SelectSimdTarget("portable", emu128_build, kAvx2Cpu);
  EXPECT_EQ(selection.ignored, "");
  EXPECT_EQ(emu128_build & kAvx2Cpu & ~selection.disabled, HWY_EMU128);
}

TEST(SelectSimdTarget, ATargetTheCpuLacksIsIgnoredNamingWhatItHas) {
  const SimdSelection selection = SelectSimdTarget("avx3", kCompiled, kAvx2Cpu);
  EXPECT_EQ(selection.disabled, 0);
  EXPECT_EQ(selection.ignored,
            "ACLNN_UPSAMPLE_SIMD=avx3: this CPU lacks AVX3; expected one of best, avx2, sse4, "
            "ssse3, portable; running the best, AVX2");
}

TEST(SelectSimdTarget, ANameOutsideTheBuildIsIgnoredNamingWhatItHas) {
  // AVX3_DL is a Highway target, but not one this build (kCompiled) carries.
  for (const char* request : {"avx3_dl", "sse2", "neon", "avx", " avx2", "avx2 ", "fastest"}) {
    const SimdSelection selection = SelectSimdTarget(request, kCompiled, kAvx2Cpu);
    EXPECT_EQ(selection.disabled, 0) << request;
    EXPECT_EQ(selection.ignored, "ACLNN_UPSAMPLE_SIMD=" + std::string(request) +
                                     " names no SIMD target of this build; expected one of best, "
                                     "avx2, sse4, ssse3, portable; running the best, AVX2");
  }
}

TEST(SelectSimdTarget, TheMessageIsOneShortLineWhateverTheRequest) {
  const SimdSelection newline = SelectSimdTarget("avx2\nrm -rf /", kCompiled, kAvx2Cpu);
  EXPECT_EQ(newline.disabled, 0);
  EXPECT_EQ(newline.ignored.find('\n'), std::string::npos) << newline.ignored;
  EXPECT_NE(newline.ignored.find("ACLNN_UPSAMPLE_SIMD=avx2?rm -rf / names"), std::string::npos)
      << newline.ignored;
  const SimdSelection long_request =
      SelectSimdTarget(std::string(1000, 'x').c_str(), kCompiled, kAvx2Cpu);
  EXPECT_LT(long_request.ignored.size(), 200u) << long_request.ignored;
  EXPECT_NE(long_request.ignored.find(std::string(32, 'x') + "... names"), std::string::npos);
}

TEST(SelectSimdTarget, OnlyThePortableTargetLeftStillListsPortable) {
  const SimdSelection selection = SelectSimdTarget("avx2", kCompiled, HWY_SCALAR | HWY_EMU128);
  EXPECT_EQ(selection.ignored,
            "ACLNN_UPSAMPLE_SIMD=avx2: this CPU lacks AVX2; expected one of best, portable; "
            "running the best, SCALAR");
}

// The mask hwy::SupportedTargets() gave before any pin, rebuilt from the library's report.
int64_t CpuTargets() {
  int64_t targets = HWY_EMU128 | HWY_SCALAR;
  const std::vector<std::string> names = Words(aclnn_upsample_simd_targets());
  for (int64_t rest = HWY_TARGETS; rest != 0; rest &= rest - 1) {
    const int64_t target = rest & -rest;
    for (const std::string& name : names) {
      if (name == hwy::TargetName(target)) targets |= target;
    }
  }
  return targets;
}

// The selection reaches Highway's dispatch: each target this CPU supports, pinned in turn, is
// the one the kernels run, with its vector width. Under a pin from the environment only the
// targets up to that one: the library keeps anything better from running.
TEST(SelectSimdTarget, EachPinReachesTheDispatchedKernels) {
  const std::vector<std::string> supported = Words(aclnn_upsample_simd_targets());
  auto first = std::find(supported.begin(), supported.end(), ExpectedTarget());
  ASSERT_NE(first, supported.end()) << ExpectedTarget();
  for (auto name = first; name != supported.end(); ++name) {
    const std::string request = IsPortableName(*name) ? "portable" : LowerCase(*name);
    const SimdSelection selection = SelectSimdTarget(request.c_str(), HWY_TARGETS, CpuTargets());
    ASSERT_EQ(selection.ignored, "") << request;
    hwy::DisableTargets(selection.disabled);
    EXPECT_EQ(kernels::ActiveTargetName(), *name) << request;
    EXPECT_EQ(kernels::FloatLanes(), LanesOf(*name)) << request;
  }
  // Back to what the environment asked for, for the tests that follow in this process.
  hwy::DisableTargets(
      SelectSimdTarget(std::getenv("ACLNN_UPSAMPLE_SIMD"), HWY_TARGETS, CpuTargets()).disabled);
  EXPECT_EQ(aclnn_upsample_simd_target(), ExpectedTarget());
}
#endif  // HWY_ARCH_X86 && defined(__linux__)

}  // namespace
}  // namespace aclnn_upsample
