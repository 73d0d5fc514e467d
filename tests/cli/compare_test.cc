#include "compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "float16.h"

namespace upsample_grad {
namespace {

using ::testing::HasSubstr;

TypedArray Floats(std::vector<int64_t> shape, const std::vector<float>& values) {
  TypedArray array{ElementType::kFloat32, std::move(shape),
                   std::vector<std::byte>(values.size() * sizeof(float))};
  std::memcpy(array.data.data(), values.data(), array.data.size());
  return array;
}

TypedArray Bits16(ElementType type, const std::vector<uint16_t>& bits) {
  TypedArray array{
      type, {static_cast<int64_t>(bits.size())}, std::vector<std::byte>(bits.size() * 2)};
  std::memcpy(array.data.data(), bits.data(), array.data.size());
  return array;
}

constexpr Tolerance kTight{1e-5, 1e-6};

TEST(CompareTest, EqualArraysPass) {
  TypedArray a = Floats({2, 2}, {1, -2, 0, 4});
  CompareReport report = CompareArrays(a, a, kTight);
  EXPECT_TRUE(report.WithinTolerance());
  EXPECT_EQ(report.max_abs_error, 0);
  EXPECT_EQ(report.mean_abs_error, 0);
  EXPECT_DOUBLE_EQ(report.cosine_similarity, 1);
  EXPECT_TRUE(report.has_ulp_counts);
  EXPECT_EQ(report.ulp_counts[0], 4);
}

TEST(CompareTest, ToleranceIsAtolPlusRtolTimesReference) {
  TypedArray reference = Floats({3}, {100, 1, 0});
  // 100 + 1e-3 is within 1e-6 + 1e-5 * 100; 1 + 2e-5 is not; 0 vs 1e-6 is on the boundary.
  TypedArray result = Floats({3}, {100.001f, 1.00002f, 1e-6f});
  CompareReport report = CompareArrays(result, reference, kTight);
  EXPECT_EQ(report.beyond_tolerance, 1);
  ASSERT_EQ(report.first_beyond.size(), 1u);
  EXPECT_EQ(report.first_beyond[0].flat_index, 1);
  EXPECT_NEAR(report.max_abs_error, 0.001, 1e-5);
  EXPECT_EQ(report.max_abs_index, 0);
  EXPECT_NEAR(report.max_rel_error, 2e-5, 1e-6);  // B == 0 does not count
  EXPECT_EQ(report.max_rel_index, 1);
  EXPECT_FALSE(report.WithinTolerance());
}

TEST(CompareTest, NanInTheSamePlaceIsEqualAndAloneIsNot) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  float inf = std::numeric_limits<float>::infinity();
  TypedArray a = Floats({4}, {nan, 1, inf, 2});
  EXPECT_TRUE(CompareArrays(a, a, kTight).WithinTolerance());
  TypedArray b = Floats({4}, {nan, nan, inf, -inf});
  CompareReport report = CompareArrays(a, b, kTight);
  EXPECT_EQ(report.beyond_tolerance, 2);
  EXPECT_EQ(report.nonfinite_mismatches, 2);
  EXPECT_EQ(report.ulp_counts[0], 2);
  EXPECT_EQ(report.ulp_counts[3], 2);
  EXPECT_EQ(report.max_abs_error, 0);  // the finite pairs agree
}

TEST(CompareTest, CountsUlpDistancesOf16BitTypes) {
  for (ElementType type : {ElementType::kFloat16, ElementType::kBFloat16}) {
    // 0 ulp (also +0 vs -0), 1 ulp, 2 ulp (across zero), 3 ulp and 10 ulp.
    TypedArray a = Bits16(type, {0x3c00, 0x0000, 0x3c01, 0x0001, 0x3c03, 0x3c0a});
    TypedArray b = Bits16(type, {0x3c00, 0x8000, 0x3c00, 0x8001, 0x3c00, 0x3c00});
    CompareReport report = CompareArrays(a, b, Tolerance{0, 0});
    ASSERT_TRUE(report.has_ulp_counts);
    EXPECT_EQ(report.ulp_counts, (std::array<int64_t, 4>{2, 1, 1, 2}));
  }
}

TEST(CompareTest, NoUlpCountsAcrossDifferentDtypes) {
  TypedArray a = Bits16(ElementType::kFloat16, {0x3c00});
  TypedArray b = Floats({1}, {1});
  CompareReport report = CompareArrays(a, b, kTight);
  EXPECT_FALSE(report.has_ulp_counts);
  EXPECT_TRUE(report.WithinTolerance());
}

TEST(CompareTest, CosineSimilarity) {
  EXPECT_NEAR(CompareArrays(Floats({2}, {1, 0}), Floats({2}, {0, 1}), kTight).cosine_similarity, 0,
              1e-12);
  EXPECT_NEAR(CompareArrays(Floats({2}, {1, 1}), Floats({2}, {2, 2}), kTight).cosine_similarity, 1,
              1e-12);
  EXPECT_EQ(CompareArrays(Floats({2}, {0, 0}), Floats({2}, {0, 0}), kTight).cosine_similarity, 1);
}

TEST(CompareTest, DifferentShapesFail) {
  CompareReport report =
      CompareArrays(Floats({2, 2}, {1, 2, 3, 4}), Floats({4}, {1, 2, 3, 4}), kTight);
  EXPECT_FALSE(report.same_shape);
  EXPECT_FALSE(report.WithinTolerance());
}

TEST(CompareTest, ListsFirstPositionsAsMultiIndices) {
  std::vector<float> reference(24, 1.0f), result(24, 1.0f);
  for (int i : {5, 17, 23}) result[static_cast<size_t>(i)] = 3.0f;
  TypedArray a = Floats({2, 3, 4}, result), b = Floats({2, 3, 4}, reference);
  CompareReport report = CompareArrays(a, b, kTight, 2);
  EXPECT_EQ(report.beyond_tolerance, 3);
  ASSERT_EQ(report.first_beyond.size(), 2u);
  EXPECT_EQ(FormatPosition(17, a.shape), "(1, 1, 1)");
  std::ostringstream out;
  PrintCompareReport(out, "a.npy", a, "b.npy", b, kTight, report);
  EXPECT_THAT(out.str(), HasSubstr("beyond tolerance: 3 of 24"));
  EXPECT_THAT(out.str(), HasSubstr("at (0, 1, 1): a=3 b=1 |a-b|=2"));
  EXPECT_THAT(out.str(), HasSubstr("at (1, 1, 1)"));
  EXPECT_THAT(out.str(), HasSubstr("... and 1 more"));
  EXPECT_THAT(out.str(), HasSubstr("result: FAIL"));
}

TEST(CompareTest, DefaultToleranceFollowsTheCoarserDtype) {
  Tolerance fp32 = DefaultTolerance(ElementType::kFloat32, ElementType::kFloat32);
  EXPECT_EQ(fp32.rtol, 1e-5);
  EXPECT_EQ(fp32.atol, 1e-6);
  Tolerance mixed = DefaultTolerance(ElementType::kFloat32, ElementType::kBFloat16);
  EXPECT_EQ(mixed.rtol, 8e-3);
  // One ulp of a 16-bit type, relative to the value, stays within the default rtol.
  EXPECT_GT(DefaultTolerance(ElementType::kFloat16, ElementType::kFloat16).rtol,
            std::ldexp(1.0, -10));
  EXPECT_GT(mixed.rtol, std::ldexp(1.0, -7));
}

}  // namespace
}  // namespace upsample_grad
