// The scalar dtype conversions against an independent arithmetic reference: every float16 and
// bfloat16 value round-trips, and float32 -> 16-bit rounds to nearest even (ties, subnormals,
// overflow, NaN).
#include "engine/dtype.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "support/half_reference.h"

namespace aclnn_upsample {
namespace {

TEST(Float16, EveryValueRoundTrips) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const uint16_t b = static_cast<uint16_t>(bits);
    const float expected = static_cast<float>(half_reference::ToDouble(b));
    const float actual = Float16ToFloat(b);
    if (std::isnan(expected)) {
      ASSERT_TRUE(std::isnan(actual)) << bits;
      ASSERT_TRUE(std::isnan(Float16ToFloat(FloatToFloat16(actual))));
      continue;
    }
    ASSERT_EQ(FloatBits(actual), FloatBits(expected)) << std::hex << bits;
    ASSERT_EQ(FloatToFloat16(actual), b) << std::hex << bits;
  }
}

TEST(Float16, RoundsToNearestEvenLikeTheReference) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<uint32_t> any_bits;
  for (int i = 0; i < 2000000; ++i) {
    uint32_t bits = any_bits(rng);
    // Bias toward the float16 range, where rounding is interesting.
    if (i % 2) bits = (bits & 0x80FFFFFFu) | ((0x60u + (bits >> 24) % 0x30u) << 23);
    const float f = BitsToFloat(bits);
    if (std::isnan(f)) continue;
    const uint16_t expected = half_reference::FromDouble(f);
    ASSERT_EQ(FloatToFloat16(f), expected) << std::hex << bits;
  }
  EXPECT_EQ(FloatToFloat16(65504.0f), 0x7BFF);
  EXPECT_EQ(FloatToFloat16(65519.99f), 0x7BFF);
  EXPECT_EQ(FloatToFloat16(65520.0f), 0x7C00);               // the tie rounds to even: Inf
  EXPECT_EQ(FloatToFloat16(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(FloatToFloat16(std::ldexp(1.0f, -25)), 0x0000);  // tie to even: zero
}

TEST(BFloat16, EveryValueRoundTripsAndRoundsToNearestEven) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const uint16_t b = static_cast<uint16_t>(bits);
    const float f = BFloat16ToFloat(b);
    ASSERT_EQ(FloatBits(f), bits << 16);
    if (!std::isnan(f)) ASSERT_EQ(FloatToBFloat16(f), b);
  }
  EXPECT_EQ(FloatToBFloat16(BitsToFloat(0x3F808000u)), 0x3F80);  // tie, even stays
  EXPECT_EQ(FloatToBFloat16(BitsToFloat(0x3F818000u)), 0x3F82);  // tie, odd rounds up
  EXPECT_EQ(FloatToBFloat16(BitsToFloat(0x3F808001u)), 0x3F81);
  EXPECT_EQ(FloatToBFloat16(BitsToFloat(0x7F7FFFFFu)), 0x7F80);  // overflow to Inf
  EXPECT_TRUE(std::isnan(BFloat16ToFloat(FloatToBFloat16(BitsToFloat(0x7F800001u)))));
}

}  // namespace
}  // namespace aclnn_upsample
