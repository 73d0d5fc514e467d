// `upsample-grad compare` on equal, near and far arrays.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "float16.h"
#include "npy.h"
#include "tool_process.h"

namespace upsample_grad::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class CompareCliTest : public ::testing::Test {
 protected:
  std::string WriteFloats(const std::string& name, const std::vector<float>& values,
                          std::vector<int64_t> shape = {1, 2, 3, 4}) {
    npy::Array array{"<f4", std::move(shape), std::vector<std::byte>(values.size() * 4)};
    std::memcpy(array.data.data(), values.data(), array.data.size());
    npy::WriteNpy(dir_.File(name), array);
    return dir_.File(name);
  }

  std::string WriteBf16(const std::string& name, const std::vector<uint16_t>& bits) {
    npy::Array array{
        "<u2", {static_cast<int64_t>(bits.size())}, std::vector<std::byte>(bits.size() * 2)};
    std::memcpy(array.data.data(), bits.data(), array.data.size());
    npy::WriteNpy(dir_.File(name), array);
    return dir_.File(name);
  }

  static std::vector<float> Ramp() {
    std::vector<float> values(24);
    for (size_t i = 0; i < values.size(); ++i) values[i] = 0.5f + static_cast<float>(i);
    return values;
  }

  TempDir dir_;
};

TEST_F(CompareCliTest, EqualArraysPass) {
  std::string a = WriteFloats("a.npy", Ramp());
  ToolResult result = RunTool({"compare", a, a});
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("float32 (1, 2, 3, 4)"));
  EXPECT_THAT(result.out, HasSubstr("max abs error: 0\n"));
  EXPECT_THAT(result.out, HasSubstr("cosine similarity: 1.000000000"));
  EXPECT_THAT(result.out, HasSubstr("ulp distance: 0: 24  1: 0  2: 0  3+: 0"));
  EXPECT_THAT(result.out, HasSubstr("beyond tolerance: 0 of 24"));
  EXPECT_THAT(result.out, HasSubstr("result: PASS"));
}

TEST_F(CompareCliTest, NearArraysPassWithTheDefaultTolerance) {
  std::vector<float> near = Ramp();
  for (float& value : near) value = std::nextafter(value, 100.0f);
  ToolResult result =
      RunTool({"compare", WriteFloats("a.npy", near), WriteFloats("b.npy", Ramp())});
  EXPECT_EQ(result.exit_status, 0) << result.out;
  EXPECT_THAT(result.out, HasSubstr("tolerance: |a-b| <= 1e-06 + 1e-05*|b|"));
  EXPECT_THAT(result.out, HasSubstr("ulp distance: 0: 0  1: 24  2: 0  3+: 0"));
  EXPECT_THAT(result.out, HasSubstr("result: PASS"));
}

TEST_F(CompareCliTest, FarArraysFailAndListPositions) {
  std::vector<float> far = Ramp();
  far[11] += 1.0f;   // (0, 0, 2, 3)
  far[17] -= 0.25f;  // (0, 1, 1, 1)
  std::string a = WriteFloats("a.npy", far), b = WriteFloats("b.npy", Ramp());
  ToolResult result = RunTool({"compare", a, b});
  EXPECT_EQ(result.exit_status, 1);
  EXPECT_EQ(result.err, "");
  EXPECT_THAT(result.out, HasSubstr("max abs error: 1 at (0, 0, 2, 3)"));
  EXPECT_THAT(result.out, HasSubstr("beyond tolerance: 2 of 24"));
  EXPECT_THAT(result.out, HasSubstr("at (0, 0, 2, 3): a=12.5 b=11.5 |a-b|=1"));
  EXPECT_THAT(result.out, HasSubstr("at (0, 1, 1, 1): a=17.25 b=17.5 |a-b|=0.25"));
  EXPECT_THAT(result.out, HasSubstr("result: FAIL"));

  ToolResult loose = RunTool({"compare", a, b, "--rtol", "0.1", "--atol", "0"});
  EXPECT_EQ(loose.exit_status, 0) << loose.out;
  EXPECT_THAT(loose.out, HasSubstr("tolerance: |a-b| <= 0 + 0.1*|b|"));
}

TEST_F(CompareCliTest, NanInTheSamePlaceIsEqual) {
  std::vector<float> values = Ramp();
  values[3] = std::numeric_limits<float>::quiet_NaN();
  std::string a = WriteFloats("a.npy", values), b = WriteFloats("b.npy", values);
  EXPECT_EQ(RunTool({"compare", a, b}).exit_status, 0);
  ToolResult mismatch = RunTool({"compare", a, WriteFloats("c.npy", Ramp())});
  EXPECT_EQ(mismatch.exit_status, 1);
  EXPECT_THAT(mismatch.out, HasSubstr("NaN/Inf mismatches: 1"));
}

TEST_F(CompareCliTest, Bfloat16ReportsUlpDistances) {
  std::vector<uint16_t> reference = {FloatToBf16Bits(1.0f), FloatToBf16Bits(2.0f),
                                     FloatToBf16Bits(-3.0f), FloatToBf16Bits(0.5f)};
  std::vector<uint16_t> result = reference;
  result[1] += 1;  // one ulp: within the bfloat16 default tolerance
  result[2] += 2;  // two ulp: beyond it
  std::string a = WriteBf16("a.npy", result), b = WriteBf16("b.npy", reference);
  ToolResult compared = RunTool({"compare", a, b, "--dtype", "bf16"});
  EXPECT_EQ(compared.exit_status, 1);
  EXPECT_THAT(compared.out, HasSubstr("bfloat16 (4,)"));
  EXPECT_THAT(compared.out, HasSubstr("ulp distance: 0: 2  1: 1  2: 1  3+: 0"));
  EXPECT_THAT(compared.out, HasSubstr("beyond tolerance: 1 of 4"));

  ToolResult without_dtype = RunTool({"compare", a, b});
  EXPECT_EQ(without_dtype.exit_status, 2);
  EXPECT_THAT(without_dtype.err, HasSubstr("pass --dtype bf16"));
}

TEST_F(CompareCliTest, DifferentShapesFail) {
  std::string a = WriteFloats("a.npy", Ramp());
  std::string b = WriteFloats("b.npy", Ramp(), {4, 3, 2, 1});
  ToolResult result = RunTool({"compare", a, b});
  EXPECT_EQ(result.exit_status, 1);
  EXPECT_THAT(result.out, HasSubstr("result: FAIL (the shapes differ)"));
}

TEST_F(CompareCliTest, BadInputExitsWithStatus2) {
  std::string a = WriteFloats("a.npy", Ramp());
  ToolResult missing = RunTool({"compare", a, dir_.File("missing.npy")});
  EXPECT_EQ(missing.exit_status, 2);
  EXPECT_EQ(CountLines(missing.err), 1);
  EXPECT_THAT(missing.err, HasSubstr("upsample-grad compare: cannot read"));
  EXPECT_THAT(missing.out, Not(HasSubstr("result:")));
  ToolResult one_file = RunTool({"compare", a});
  EXPECT_EQ(one_file.exit_status, 2);
  EXPECT_EQ(CountLines(one_file.err), 1);
  ToolResult negative = RunTool({"compare", a, a, "--rtol", "-1"});
  EXPECT_EQ(negative.exit_status, 2);
}

}  // namespace
}  // namespace upsample_grad::testing
