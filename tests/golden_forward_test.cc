// Golden tests of the forward rows: every fixture of tests/golden/golden_forward_cases.txt (the
// first two rows, named by mode) and tests/golden/golden_table_forward_cases.txt (every forward row
// of the operator table, named by row), made by tests/golden/generate_golden_forward.py from
// PyTorch's forward ops in float64, runs through the row it names, in its dtype and layout, and is
// held to the contract's tolerance (section 4) element by element: |lib - expect| <= 1e-5 * m, plus
// one ulp of expect in the result's dtype for float16 and bfloat16, where m (the `mag` block) is
// the sum of the magnitudes of the terms of the element; NaN and Inf where torch has them. Each
// fixture runs with the default thread count and with 4 threads (many row bands on several
// threads), and the two results must be bitwise equal; a nearest-neighbour row must copy each
// element exactly. Each row runs all its fixtures in one test (support/golden_reader.h does the
// work).
#include <gtest/gtest.h>

#include <string>

#include "support/golden_reader.h"

namespace {

constexpr aclnn_upsample_direction kDirection = ACLNN_UPSAMPLE_FORWARD;

// Indexed once: the test instantiation below needs the rows before any test runs.
const golden::Suite& Fixtures() {
  static const golden::Suite* const suite = new golden::Suite(
      {{ACLNN_UPSAMPLE_TEST_DATA_DIR "/golden/golden_forward_cases.txt", 73},
       {ACLNN_UPSAMPLE_TEST_DATA_DIR "/golden/golden_table_forward_cases.txt", 189}},
      kDirection);
  return *suite;
}

// One test per row of the table that has fixtures: it runs all of them.
class GoldenForwardTest : public ::testing::TestWithParam<size_t> {};

TEST_P(GoldenForwardTest, MatchesTorchFloat64) {
  golden::ForEachFixtureOfRow(Fixtures(), GetParam(), golden::ExpectRowMatchesFixture);
}

TEST_P(GoldenForwardTest, TorchAgreesWithTheReference) {
  golden::ForEachFixtureOfRow(Fixtures(), GetParam(), golden::ExpectTorchAgreesWithTheReference);
}

INSTANTIATE_TEST_SUITE_P(Torch, GoldenForwardTest,
                         ::testing::ValuesIn(golden::RowIndices(Fixtures())),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return std::string(aclnn_upsample_operator_at(info.param)->name);
                         });
// An unreadable file leaves the suite empty; the summary below reports why.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GoldenForwardTest);

TEST(GoldenForwardSummary, EveryFileLoadsWhole) {
  for (const std::string& problem : Fixtures().Problems()) ADD_FAILURE() << problem;
}

TEST(GoldenForwardSummary, EveryForwardRowIsCovered) {
  golden::ExpectEveryRowCovered(Fixtures(), kDirection);
}

}  // namespace
