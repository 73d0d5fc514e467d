// upsample-grad --version and the bench header name the SIMD target that runs; with
// ACLNN_UPSAMPLE_SIMD set to each target this CPU supports (and to "portable"), that target is
// the one reported, and a request the library cannot honour costs one line on stderr and keeps
// the best target.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "aclnn_upsample/version.h"
#include "support/text.h"
#include "tool_process.h"

namespace upsample_grad::testing {
namespace {

using support::LowerCase;
using support::Words;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  return lines;
}

// Independent of any pin the test process itself runs under (the list does not change with one).
const std::vector<std::string>& SupportedTargets() {
  static const std::vector<std::string> targets = Words(aclnn_upsample_simd_targets());
  return targets;
}

// The target `upsample-grad --version` reports under ACLNN_UPSAMPLE_SIMD=`request`.
std::string ReportedTarget(const ToolResult& result) {
  for (const std::string& line : Lines(result.out)) {
    if (line.rfind("SIMD target: ", 0) == 0) return Words(line.substr(13)).at(0);
  }
  return "(no 'SIMD target: ' line in: " + result.out + ")";
}

// What an unpinned process uses beyond its target: AVX512_BF16's conversions on AVX3, where the
// CPU has them (asked of the CPU here, not of the library).
std::string ExpectedExtensions() {
#if defined(__x86_64__) && defined(__GNUC__)
  if (SupportedTargets().front() == "AVX3" && __builtin_cpu_supports("avx512bf16")) {
    return "AVX512_BF16";
  }
#endif
  return "none";
}

TEST(SimdCliTest, VersionNamesToolLibraryBuildTypeAndTargets) {
  ToolResult result = RunTool({"--version"}, {"ACLNN_UPSAMPLE_SIMD="});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.err, "");
  const std::string supported = aclnn_upsample_simd_targets();
  const std::string compiled = aclnn_upsample_simd_compiled_targets();
  std::string pins;
  for (size_t i = 0; i + 1 < SupportedTargets().size(); ++i) {
    pins += LowerCase(SupportedTargets()[i]) + "|";
  }
  // The version and build type CMake configured, not what the library says about itself.
  EXPECT_EQ(Lines(result.out),
            (std::vector<std::string>{
                "upsample-grad " UPSAMPLE_GRAD_EXPECTED_VERSION,
                "library: aclnn_upsample " UPSAMPLE_GRAD_EXPECTED_VERSION
                " (" UPSAMPLE_GRAD_EXPECTED_BUILD_TYPE ")",
                "SIMD target: " + SupportedTargets().front() + " (the best this CPU supports)",
                "SIMD extensions in use: " + ExpectedExtensions(),
                "SIMD targets this CPU supports: " + supported,
                "SIMD targets compiled: " + compiled,
                "Pin one with ACLNN_UPSAMPLE_SIMD=" + pins + "portable (default: best).",
            }));
  EXPECT_TRUE(std::regex_match(aclnn_upsample_version(), std::regex(R"(\d+\.\d+\.\d+)")))
      << aclnn_upsample_version();
}

TEST(SimdCliTest, EachSupportedTargetIsTheOneThatRunsWhenPinned) {
  std::vector<std::string> covered;
  for (const std::string& target : SupportedTargets()) {
    const std::string request = LowerCase(target);
    ToolResult result = RunTool({"--version"}, {"ACLNN_UPSAMPLE_SIMD=" + request});
    ASSERT_EQ(result.exit_status, 0) << result.err;
    EXPECT_EQ(result.err, "") << request;
    EXPECT_EQ(ReportedTarget(result), target) << "ACLNN_UPSAMPLE_SIMD=" << request;
    EXPECT_THAT(result.out, HasSubstr("(pinned by ACLNN_UPSAMPLE_SIMD=" + request + ")"));
    // A pin names a Highway target, which comes without AVX512_BF16's conversions.
    EXPECT_THAT(result.out, HasSubstr("\nSIMD extensions in use: none\n"));
    covered.push_back(target);
  }
  // "portable" and upper case, as --version prints the names.
  ToolResult portable = RunTool({"--version"}, {"ACLNN_UPSAMPLE_SIMD=portable"});
  EXPECT_EQ(portable.err, "");
  EXPECT_EQ(ReportedTarget(portable), SupportedTargets().back());
  EXPECT_THAT(portable.out, HasSubstr("(pinned by ACLNN_UPSAMPLE_SIMD=portable)"));
  ToolResult upper = RunTool({"--version"}, {"ACLNN_UPSAMPLE_SIMD=" + SupportedTargets().back()});
  EXPECT_EQ(upper.err, "");
  EXPECT_EQ(ReportedTarget(upper), SupportedTargets().back());
  EXPECT_GE(covered.size(), 2u) << "every CPU has at least one vector target and the portable one";
}

TEST(SimdCliTest, BenchRunsAndNamesThePinnedTarget) {
  for (const std::string& request : {std::string("portable"), LowerCase(SupportedTargets()[0])}) {
    const std::string target =
        request == "portable" ? SupportedTargets().back() : SupportedTargets()[0];
    ToolResult result = RunTool({"bench", "--case", "7", "--repeats", "1", "--min-time", "0",
                                 "--bandwidth-mib", "1", "--threads", "1"},
                                {"ACLNN_UPSAMPLE_SIMD=" + request});
    ASSERT_EQ(result.exit_status, 0) << result.err;
    EXPECT_EQ(result.err, "");
    ASSERT_FALSE(Lines(result.out).empty());
    EXPECT_THAT(Lines(result.out)[0],
                StartsWith("aclnn_upsample " UPSAMPLE_GRAD_EXPECTED_VERSION
                           " (" UPSAMPLE_GRAD_EXPECTED_BUILD_TYPE "), SIMD target "));
    EXPECT_THAT(Lines(result.out)[0], ::testing::EndsWith(", SIMD target " + target)) << request;
    EXPECT_THAT(result.out, HasSubstr("\n   7  bilinear "));
  }
}

// What the library prints on stderr for a request it ignores, and what runs instead.
void ExpectIgnoredWithOneLine(const std::string& request, const std::string& reason) {
  ToolResult result = RunTool({"--version"}, {"ACLNN_UPSAMPLE_SIMD=" + request});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(ReportedTarget(result), SupportedTargets().front()) << request;
  ASSERT_EQ(CountLines(result.err), 1) << result.err;
  EXPECT_THAT(result.err, StartsWith("aclnn_upsample: ACLNN_UPSAMPLE_SIMD="));
  EXPECT_THAT(result.err, HasSubstr(reason));
  std::string choices = "expected one of best, ";
  for (size_t i = 0; i + 1 < SupportedTargets().size(); ++i) {
    choices += LowerCase(SupportedTargets()[i]) + ", ";
  }
  EXPECT_THAT(result.err, HasSubstr(choices + "portable; running the best, " +
                                    SupportedTargets().front() + "\n"));
  EXPECT_THAT(result.out, HasSubstr("(ignored: ACLNN_UPSAMPLE_SIMD="));
}

TEST(SimdCliTest, AnUnknownNameIsIgnoredWithOneLine) {
  ExpectIgnoredWithOneLine("avx9000", "ACLNN_UPSAMPLE_SIMD=avx9000 names no SIMD target");
  ExpectIgnoredWithOneLine("sse4\nsecond line", "ACLNN_UPSAMPLE_SIMD=sse4?second line names no");
  const std::vector<std::string> compiled = Words(aclnn_upsample_simd_compiled_targets());
  if (std::find(compiled.begin(), compiled.end(), "AVX3_DL") == compiled.end()) {
    ExpectIgnoredWithOneLine("avx3_dl", "ACLNN_UPSAMPLE_SIMD=avx3_dl names no SIMD target");
  }
}

TEST(SimdCliTest, ATargetTheCpuLacksIsIgnoredWithOneLine) {
  int tried = 0;
  for (const std::string& target : Words(aclnn_upsample_simd_compiled_targets())) {
    if (std::find(SupportedTargets().begin(), SupportedTargets().end(), target) !=
        SupportedTargets().end()) {
      continue;
    }
    ExpectIgnoredWithOneLine(LowerCase(target), ": this CPU lacks " + target + ";");
    ++tried;
  }
  if (tried == 0) {
    GTEST_SKIP() << "this CPU supports every compiled target (" << aclnn_upsample_simd_targets()
                 << "); dispatch_test checks the rule on a made-up CPU";
  }
}

}  // namespace
}  // namespace upsample_grad::testing
