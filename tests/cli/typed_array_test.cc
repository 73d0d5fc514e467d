#include "typed_array.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "float16.h"
#include "parse_lists.h"
#include "tool_error.h"

namespace upsample_grad {
namespace {

using ::testing::HasSubstr;

TEST(Float16Test, KnownValues) {
  EXPECT_EQ(FloatToHalfBits(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalfBits(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalfBits(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalfBits(65504.0f), 0x7bff);
  EXPECT_EQ(FloatToHalfBits(65519.0f), 0x7bff);
  EXPECT_EQ(FloatToHalfBits(65520.0f), 0x7c00);  // halfway to the next power: rounds to inf
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -25)), 0x0000);         // tie to even (zero)
  EXPECT_EQ(FloatToHalfBits(std::ldexp(3.0f, -25)), 0x0002);         // tie to even (two)
  EXPECT_EQ(FloatToHalfBits(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // tie, even stays
  EXPECT_EQ(FloatToHalfBits(1.0f + std::ldexp(3.0f, -11)), 0x3c02);  // tie, odd rounds up
  EXPECT_EQ(FloatToHalfBits(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(FloatToHalfBits(std::nanf("")) & 0x7c00, 0x7c00);
  EXPECT_NE(FloatToHalfBits(std::nanf("")) & 0x03ff, 0);
  EXPECT_EQ(HalfBitsToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(HalfBitsToFloat(0x8000), 0.0f);
  EXPECT_TRUE(std::signbit(HalfBitsToFloat(0x8000)));
  EXPECT_TRUE(std::isnan(HalfBitsToFloat(0x7e00)));
}

TEST(Float16Test, EveryHalfSurvivesARoundTrip) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    float value = HalfBitsToFloat(static_cast<uint16_t>(bits));
    if (std::isnan(value)) continue;
    ASSERT_EQ(FloatToHalfBits(value), bits) << std::hex << bits;
  }
}

TEST(Bfloat16Test, KnownValuesAndRoundTrip) {
  EXPECT_EQ(FloatToBf16Bits(1.0f), 0x3f80);
  EXPECT_EQ(FloatToBf16Bits(1.0f + std::ldexp(1.0f, -8)), 0x3f80);  // tie, even stays
  EXPECT_EQ(FloatToBf16Bits(1.0f + std::ldexp(3.0f, -8)), 0x3f82);  // tie, odd rounds up
  EXPECT_TRUE(std::isnan(Bf16BitsToFloat(FloatToBf16Bits(FloatFromBits(0x7f800001u)))));
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    float value = Bf16BitsToFloat(static_cast<uint16_t>(bits));
    if (std::isnan(value)) continue;
    ASSERT_EQ(FloatToBf16Bits(value), bits) << std::hex << bits;
  }
}

npy::Array Array16(const char* descr) { return npy::Array{descr, {2}, std::vector<std::byte>(4)}; }

std::string FromNpyError(npy::Array array, DtypeChoice choice) {
  try {
    FromNpy(std::move(array), choice, "x.npy");
  } catch (const ToolError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(TypedArrayTest, ChoosesTheElementTypeFromDescrAndDtype) {
  EXPECT_EQ(
      FromNpy(npy::Array{"<f4", {1}, std::vector<std::byte>(4)}, DtypeChoice::kAuto, "x").type,
      ElementType::kFloat32);
  EXPECT_EQ(FromNpy(Array16("<f2"), DtypeChoice::kAuto, "x").type, ElementType::kFloat16);
  EXPECT_EQ(
      FromNpy(npy::Array{"<f8", {1}, std::vector<std::byte>(8)}, DtypeChoice::kAuto, "x").type,
      ElementType::kFloat64);
  for (const char* descr : {"<u2", "<i2", "<f2"}) {
    EXPECT_EQ(FromNpy(Array16(descr), DtypeChoice::kBFloat16, "x").type, ElementType::kBFloat16);
    EXPECT_EQ(FromNpy(Array16(descr), DtypeChoice::kFloat16, "x").type, ElementType::kFloat16);
  }
}

TEST(TypedArrayTest, ExplainsDtypesItCannotUse) {
  EXPECT_THAT(FromNpyError(Array16("<u2"), DtypeChoice::kAuto), HasSubstr("pass --dtype bf16"));
  EXPECT_THAT(FromNpyError(npy::Array{"<i8", {1}, std::vector<std::byte>(8)}, DtypeChoice::kAuto),
              HasSubstr("unsupported dtype '<i8'; expected float32 ('<f4')"));
  EXPECT_THAT(
      FromNpyError(npy::Array{"<f4", {1}, std::vector<std::byte>(4)}, DtypeChoice::kBFloat16),
      HasSubstr("--dtype bf16 needs 16-bit data"));
  EXPECT_THAT(FromNpyError(Array16("<f2"), DtypeChoice::kFloat32),
              HasSubstr("--dtype fp32 needs float32"));
  EXPECT_THROW(ParseDtypeChoice("int8"), ToolError);
  EXPECT_EQ(ParseDtypeChoice("bfloat16"), DtypeChoice::kBFloat16);
}

TEST(TypedArrayTest, ConvertsBetweenTypes) {
  TypedArray doubles{ElementType::kFloat64, {3}, std::vector<std::byte>(24)};
  double values[3] = {1.0 / 3.0, -2.5, 1e300};
  std::memcpy(doubles.data.data(), values, sizeof(values));
  TypedArray floats = ConvertTo(doubles, ElementType::kFloat32);
  EXPECT_EQ(floats.data.size(), 12u);
  EXPECT_EQ(floats.ValueAt(0), static_cast<double>(1.0f / 3.0f));
  EXPECT_EQ(floats.ValueAt(1), -2.5);
  EXPECT_TRUE(std::isinf(floats.ValueAt(2)));
  TypedArray back = ConvertTo(floats, ElementType::kFloat64);
  EXPECT_EQ(back.ValueAt(0), static_cast<double>(1.0f / 3.0f));
  TypedArray bf16 = ConvertTo(floats, ElementType::kBFloat16);
  EXPECT_EQ(bf16.BitsAt(1), FloatToBf16Bits(-2.5f));
  EXPECT_EQ(std::string(NpyDescr(ElementType::kBFloat16)), "<u2");
}

TEST(ParseListsTest, ParsesAndRejects) {
  EXPECT_EQ(ParseIntegerList("1,-2,30", "--x", "ints"), (std::vector<int64_t>{1, -2, 30}));
  EXPECT_EQ(ParseNumberList("2,0.5e1", "--x", "numbers"), (std::vector<double>{2, 5}));
  for (const char* bad : {"", "1,", ",1", "1.5", "1 2", "x", "99999999999999999999"}) {
    EXPECT_THROW(ParseIntegerList(bad, "--x", "ints"), ToolError) << bad;
  }
  for (const char* bad : {"", "1,", "nan", "inf", "1e999", "2;3"}) {
    EXPECT_THROW(ParseNumberList(bad, "--x", "numbers"), ToolError) << bad;
  }
  try {
    ParseIntegerList("a,b", "--input-size", "N,C,H,W or H,W");
  } catch (const ToolError& error) {
    EXPECT_STREQ(error.what(), "--input-size 'a,b' is not valid; expected N,C,H,W or H,W");
  }
}

}  // namespace
}  // namespace upsample_grad
