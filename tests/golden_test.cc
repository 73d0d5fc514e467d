// Golden tests of the backward rows: every fixture of tests/golden/golden_cases.txt (the first two
// rows, named by mode) and tests/golden/golden_table_cases.txt (every backward row of the operator
// table, named by row), made by tests/golden/generate_golden.py from PyTorch's backward ops in
// float64, runs through the row it names, in its dtype and layout, and is held to the contract's
// tolerance (section 4) element by element: |lib - expect| <= 1e-5 * m, plus one ulp of expect in
// the result's dtype for float16 and bfloat16, where m (the `mag` block) is the sum of the
// magnitudes of the terms of the element; NaN and Inf where torch has them. Each fixture runs with
// the default thread count and with 4 threads (many row bands on several threads), and the two
// results must be bitwise equal. Each row runs all its fixtures in one test
// (support/golden_reader.h does the work).
#include <gtest/gtest.h>

#include <string>

#include "support/golden_reader.h"

namespace {

constexpr aclnn_upsample_direction kDirection = ACLNN_UPSAMPLE_BACKWARD;

// Indexed once: the test instantiation below needs the rows before any test runs.
const golden::Suite& Fixtures() {
  static const golden::Suite* const suite =
      new golden::Suite({{ACLNN_UPSAMPLE_TEST_DATA_DIR "/golden/golden_cases.txt", 99},
                         {ACLNN_UPSAMPLE_TEST_DATA_DIR "/golden/golden_table_cases.txt", 205}},
                        kDirection);
  return *suite;
}

// One test per row of the table that has fixtures: it runs all of them.
class GoldenTest : public ::testing::TestWithParam<size_t> {};

TEST_P(GoldenTest, MatchesTorchFloat64) {
  golden::ForEachFixtureOfRow(Fixtures(), GetParam(), golden::ExpectRowMatchesFixture);
}

TEST_P(GoldenTest, TorchAgreesWithTheReference) {
  golden::ForEachFixtureOfRow(Fixtures(), GetParam(), golden::ExpectTorchAgreesWithTheReference);
}

INSTANTIATE_TEST_SUITE_P(Torch, GoldenTest, ::testing::ValuesIn(golden::RowIndices(Fixtures())),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return std::string(aclnn_upsample_operator_at(info.param)->name);
                         });
// An unreadable file leaves the suite empty; the summary below reports why.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GoldenTest);

TEST(GoldenSummary, EveryFileLoadsWhole) {
  for (const std::string& problem : Fixtures().Problems()) ADD_FAILURE() << problem;
}

TEST(GoldenSummary, EveryBackwardRowIsCovered) {
  golden::ExpectEveryRowCovered(Fixtures(), kDirection);
}

}  // namespace
