// Kernel tests, on every SIMD target compiled in and supported by this CPU (the portable one
// included): against a naive float64 reference over sizes derived from the target's own lanes
// (so that every target runs each vector form, and asserts that it did), position independence
// (an element's bits do not depend on where a row is cut), and dtype conversions bitwise equal
// to the scalar reference.
#include "kernels/kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "engine/axis_weights.h"
#include "engine/dtype.h"
#include "hwy/highway.h"
#include "hwy/targets.h"
#include "kernels/source_prefetch.h"
#include "ops/upsample_bicubic2d_aa/bicubic_aa_weights.h"
#include "ops/upsample_bilinear2d/bilinear_weights.h"
#include "ops/upsample_nearest2d/nearest_weights.h"
#include "ops/upsample_nearest_exact2d/nearest_exact_weights.h"
#include "support/random_axis.h"
#include "support/scoped_tuning.h"

namespace aclnn_upsample {
namespace {

// A SIMD target, and for AVX3 on a CPU with AVX512_BF16 whether its kernels round to bfloat16
// with those instructions (kernels.h, NativeBFloat16Rounding): both ways are tested there.
struct KernelTarget {
  int64_t target;
  bool native_bfloat16;
};

std::ostream& operator<<(std::ostream& out, const KernelTarget& kernel_target) {
  return out << hwy::TargetName(kernel_target.target)
             << (kernel_target.native_bfloat16 ? " with AVX512_BF16" : "");
}

std::vector<KernelTarget> TargetsToTest() {
  std::vector<KernelTarget> targets;
  const uint64_t candidates = static_cast<uint64_t>(HWY_TARGETS & hwy::SupportedTargets());
  for (int shift = 0; shift < 63; ++shift) {  // target bits are positive int64 values
    const uint64_t bit = uint64_t{1} << shift;
    if ((candidates & bit) == 0) continue;
    const auto target = static_cast<int64_t>(bit);
    if (target == HWY_AVX3 && kernels::NativeBFloat16Rounding()) {
      targets.push_back({target, true});
    }
    targets.push_back({target, false});
  }
  return targets;
}

class KernelsOnEveryTarget : public ::testing::TestWithParam<KernelTarget> {
 protected:
  void SetUp() override {
    hwy::SetSupportedTargetsForTest(GetParam().target);
    kernels::SetNativeBFloat16RoundingForTest(GetParam().native_bfloat16);
  }
  void TearDown() override {
    hwy::SetSupportedTargetsForTest(0);
    kernels::SetNativeBFloat16RoundingForTest(native_bfloat16_by_default_);
    kernels::OverrideTuning(kernels::DefaultTuningForCpu());
  }

 private:
  // What the library chose when it loaded (TargetsToTest reads it before any test changes it).
  const bool native_bfloat16_by_default_ = kernels::NativeBFloat16Rounding();
};

std::string TargetLabel(const ::testing::TestParamInfo<KernelTarget>& info) {
  std::string name = hwy::TargetName(info.param.target);
  if (info.param.native_bfloat16) name += "_BF16";
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

// The float lanes of the target under test (SetUp pins it; FloatLanes dispatches to it). Every
// size below derives from it: a list of constants that fits 8 lanes leaves a 16-lane target's
// vector forms unexercised, as it once did.
int64_t TargetLanes() { return static_cast<int64_t>(kernels::FloatLanes()); }

// Lengths that run a kernel's vector loops zero, one and several times, with and without a
// tail: the shortest, one below, at and one above 1, 2, 4 and 8 vectors (4 vectors is the H
// pass's unrolled block), and a block, a vector and a tail. Ascending and distinct.
std::vector<int64_t> LengthsAroundVectors(int64_t lanes) {
  std::vector<int64_t> lengths = {1, 2, 3, 5 * lanes + 1};
  for (int64_t vectors : {1, 2, 4, 8}) {
    for (int64_t delta : {-1, 0, 1}) lengths.push_back(vectors * lanes + delta);
  }
  std::sort(lengths.begin(), lengths.end());
  lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
  lengths.erase(lengths.begin(), std::upper_bound(lengths.begin(), lengths.end(), int64_t{0}));
  return lengths;
}

// The end of the exhaustive length sweeps: past 8 vectors and the widest operator edges (a few
// elements each side), so that every remainder modulo the lanes meets every loop count.
int64_t SweepEnd(int64_t lanes) { return 9 * lanes + 8; }

// How many elements of a uniform interior the kernels run as vectors: those whose loads stay
// inside the source row (gather_rows.cc, VectorSpan, which the split layout shares). The vector
// form runs only where this is at least one vector; elsewhere the exact runs serve.
int64_t UniformVectorElements(const UniformInterior& uniform, int64_t source_length) {
  const int64_t stride = uniform.stride;
  const int64_t loads = (static_cast<int64_t>(uniform.weights.size()) + stride - 1) / stride;
  const int64_t first = std::max<int64_t>(uniform.begin, (-uniform.shift + stride - 1) / stride);
  const int64_t last =
      std::min<int64_t>(uniform.end, (source_length - uniform.shift) / stride - (loads - 1));
  return last - first;
}

TEST_P(KernelsOnEveryTarget, ActiveTargetIsTheOneUnderTest) {
  EXPECT_STREQ(kernels::ActiveTargetName(), hwy::TargetName(GetParam().target));
  EXPECT_EQ(kernels::NativeBFloat16Rounding(), GetParam().native_bfloat16);
}

// Source rows both off cache lines (a stride of n + 5) and all on lines (64-byte aligned, a
// stride of whole lines): AVX-512 combines float32 rows off lines in half vectors.
TEST_P(KernelsOnEveryTarget, CombineRowsMatchesNaiveSumForEverySizeAndCount) {
  const auto end = static_cast<size_t>(SweepEnd(TargetLanes()));
  for (const bool on_lines : {false, true}) {
    for (size_t n = 0; n <= end; ++n) {
      for (size_t count : {0, 1, 2, 3, 4, 7, 13}) {
        const ptrdiff_t stride = static_cast<ptrdiff_t>(on_lines ? (n / 16 + 1) * 16 : n + 5);
        const std::vector<float> storage =
            Random(stride * static_cast<ptrdiff_t>(std::max<size_t>(count, 1)) + 16, 3 + n);
        const size_t shift =
            on_lines ? (16 - reinterpret_cast<uintptr_t>(storage.data()) / 4 % 16) % 16 : 0;
        const float* const src = storage.data() + shift;
        const std::vector<float> weights = Random(count, 4 + count);
        std::vector<float> dst(n + 1, 12345.0f);
        kernels::CombineRows(dst.data(), n, src, stride, weights.data(), count);
        const std::string where = "n " + std::to_string(n) + " count " + std::to_string(count) +
                                  (on_lines ? " on lines" : "");
        for (size_t j = 0; j < n; ++j) {
          double expected = 0, magnitude = 0;
          for (size_t k = 0; k < count; ++k) {
            expected += double(weights[k]) * src[k * stride + j];
            magnitude += std::abs(double(weights[k]) * src[k * stride + j]);
          }
          ASSERT_NEAR(dst[j], expected, 1e-6 * magnitude) << where;
        }
        ASSERT_EQ(dst[n], 12345.0f) << "wrote past the row, " << where;
      }
    }
  }
}

// Rows written in their dtype, 16-bit ones rounded in registers, give the bits of combining into
// floats and converting with StoreFromFloat, cached and streamed, over every length around the
// vectors and tap counts, including sums that round to a tie, overflow float16 or are NaN (with
// payloads that carry when rounded); nothing past the row. One row at a time here; a band of rows
// below.
TEST_P(KernelsOnEveryTarget, CombineRowRunsToMatchesCombineThenStore) {
  const auto end = static_cast<size_t>(SweepEnd(TargetLanes()));
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    const size_t elem = DTypeSize(dtype);
    for (size_t n = 0; n <= end; ++n) {
      for (size_t count : {0, 1, 2, 4, 7}) {
        const ptrdiff_t stride = static_cast<ptrdiff_t>(n) + 3;
        std::vector<float> src = Random(stride * std::max<size_t>(count, 1), 5 + n);
        if (n > 2) {
          src[1] = 70000.0f;                   // beyond float16's range: Inf
          src[2] = std::nanf("");              // NaN stays NaN
          src[0] = 1.0f + 0x1p-11f + 0x1p-8f;  // ties in both 16-bit formats' last place
          // NaNs whose payloads carry when rounded to bfloat16, in later vectors of the row.
          src[n / 2] = BitsToFloat(0xFFFFFFFFu);
          src[n - 1] = BitsToFloat(0x7FFFFFFFu);
        }
        const std::vector<float> weights = count == 0 ? std::vector<float>{} : [&] {
          std::vector<float> w(count, 0.0f);
          w[0] = 1.0f;  // the first tap alone keeps the planted values as they are
          return w;
        }();
        std::vector<float> floats(n);
        kernels::CombineRows(floats.data(), n, src.data(), stride, weights.data(), count);
        std::vector<uint8_t> expected((n + 1) * elem, 0xAB);
        kernels::StoreFromFloat(dtype, floats.data(), n, expected.data(), 1);
        for (const auto stores :
             {kernels::ResultStores::kCached, kernels::ResultStores::kStreamed}) {
          // On a cache line, so that the streamed stores run.
          std::vector<uint8_t> storage((n + 1) * elem + 64, 0xAB);
          uint8_t* const actual =
              storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64;
          const int32_t first = 0, offsets[2] = {0, static_cast<int32_t>(count)};
          kernels::CombineRowRunsTo(kernels::RowRuns{&first, offsets, weights.data()}, 0, 1,
                                    src.data(), stride, 0, n, dtype, actual, 0, stores);
          kernels::FlushStreamedStores();
          ASSERT_EQ(std::memcmp(actual, expected.data(), (n + 1) * elem), 0)
              << DTypeName(dtype) << " n " << n << " count " << count
              << (stores == kernels::ResultStores::kStreamed ? " streamed" : "");
        }
      }
    }
  }
}

// StoreFromFloat, cached and streamed, writes each element's scalar rounding (FloatToFloat16,
// FloatToBFloat16; float32 as it is) and nothing outside the row: rows starting at every element
// of a cache line, of every length up to past three lines and eight vectors, so that the streamed
// form meets rows with no whole line, heads and tails shorter and longer than a vector, and bodies
// of one to several lines. Values include ties, float16 overflow and NaNs whose payloads carry.
TEST_P(KernelsOnEveryTarget, StoreFromFloatStreamedWritesTheScalarRounding) {
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    const size_t elem = DTypeSize(dtype);
    const size_t line = kernels::kCacheLineBytes / elem;
    const size_t end = std::max<size_t>(3 * line + 2, static_cast<size_t>(SweepEnd(TargetLanes())));
    std::vector<float> src = Random(end, 41);
    src[1] = 70000.0f;
    src[2] = std::nanf("");
    src[3] = 1.0f + 0x1p-11f + 0x1p-8f;
    src[line + 1] = BitsToFloat(0xFFFFFFFFu);
    src[2 * line - 1] = BitsToFloat(0x7FFFFFFFu);
    const auto scalar = [&](float v, uint8_t* at) {
      if (dtype == DType::kFloat32) {
        std::memcpy(at, &v, sizeof(v));
        return;
      }
      const uint16_t bits = dtype == DType::kFloat16 ? FloatToFloat16(v) : FloatToBFloat16(v);
      std::memcpy(at, &bits, sizeof(bits));
    };
    for (size_t offset = 0; offset < line; ++offset) {
      for (size_t n = 0; n <= end; ++n) {
        // The row at `offset` elements past a line, a line of guard bytes before it.
        std::vector<uint8_t> storage((n + 3 * line) * elem + 64, 0xAB);
        uint8_t* const first_line =
            storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64 + 64;
        std::vector<uint8_t> expected(storage);
        uint8_t* const row = first_line + offset * elem;
        for (size_t j = 0; j < n; ++j) {
          scalar(src[j], expected.data() + (row - storage.data()) + j * elem);
        }
        for (const auto stores :
             {kernels::ResultStores::kCached, kernels::ResultStores::kStreamed}) {
          std::fill(storage.begin(), storage.end(), uint8_t{0xAB});
          kernels::StoreFromFloat(dtype, src.data(), n, row, 1, stores);
          kernels::FlushStreamedStores();
          ASSERT_EQ(storage, expected)
              << DTypeName(dtype) << " n " << n << " offset " << offset
              << (stores == kernels::ResultStores::kStreamed ? " streamed" : "");
        }
      }
    }
  }
}

// A band of rows in one call: each row reads its run from its first source row (relative to the
// band's first row) and is written dst_stride elements after the previous one, with the bits of
// combining into floats and StoreFromFloat, every dtype, cached and streamed; rows with no run
// are zeros, and nothing before, between or after the rows is touched. Rows that follow each
// other in memory (no padding) are streamed through a line-aligned staging buffer, so the band
// also starts off a cache line, and runs of rows as wide as that buffer holds, and one wider.
TEST_P(KernelsOnEveryTarget, CombineRowRunsToRunsEveryRowOfABand) {
  // Result rows 0..6 of a band whose source rows start at row 3: runs of 2, 1, 0, 4 and 3 taps,
  // overlapping and out of order.
  const std::vector<int32_t> first = {3, 4, 0, 5, 3, 6, 4};
  const std::vector<int32_t> offsets = {0, 2, 3, 3, 7, 10, 12, 13};
  const std::vector<float> weights = Random(13, 77);
  const kernels::RowRuns runs{first.data(), offsets.data(), weights.data()};
  const size_t row0 = 3, row_begin = 1, row_end = 7, source_rows = 6;
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    const size_t elem = DTypeSize(dtype);
    std::vector<int64_t> lengths = LengthsAroundVectors(TargetLanes());
    const auto staged_limit = static_cast<int64_t>(kernels::kMaxStagedRowBytes / elem);
    lengths.push_back(staged_limit - 1);
    lengths.push_back(staged_limit + 1);
    for (const int64_t length : lengths) {
      const auto n = static_cast<size_t>(length);
      const ptrdiff_t src_stride = static_cast<ptrdiff_t>(n) + 5;
      const std::vector<float> src = Random(source_rows * src_stride, 3 + n);
      for (const ptrdiff_t padding : {16, 0}) {
        const ptrdiff_t dst_stride = static_cast<ptrdiff_t>(n) + padding;  // elements
        const size_t bytes = (row_end - row_begin) * dst_stride * elem;
        for (const size_t lead : {size_t{0}, size_t{3}}) {  // elements before the band's start
          for (const auto stores :
               {kernels::ResultStores::kCached, kernels::ResultStores::kStreamed}) {
            SCOPED_TRACE(::testing::Message()
                         << DTypeName(dtype) << " n " << n << " padding " << padding << " lead "
                         << lead
                         << (stores == kernels::ResultStores::kStreamed ? " streamed" : ""));
            const size_t total = bytes + 192;
            std::vector<uint8_t> expected(total, 0xAB), storage(total + 64, 0xAB);
            // The band starts `lead` elements past a cache line, in both buffers.
            uint8_t* const actual =
                storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64;
            const size_t start = 64 + lead * elem;
            for (size_t i = row_begin; i < row_end; ++i) {
              const int32_t count = offsets[i + 1] - offsets[i];
              const float* rows =
                  count > 0 ? src.data() + (first[i] - row0) * src_stride : src.data();
              std::vector<float> floats(n);
              kernels::CombineRows(floats.data(), n, rows, src_stride, weights.data() + offsets[i],
                                   static_cast<size_t>(count));
              kernels::StoreFromFloat(dtype, floats.data(), n,
                                      expected.data() + start + (i - row_begin) * dst_stride * elem,
                                      1);
            }
            kernels::CombineRowRunsTo(runs, row_begin, row_end, src.data(), src_stride, row0, n,
                                      dtype, actual + start, dst_stride, stores);
            kernels::FlushStreamedStores();
            ASSERT_EQ(std::memcmp(actual, expected.data(), total), 0);
            const size_t zero_row = 2 - row_begin;  // row 2 has no run
            for (size_t j = 0; j < n * elem; ++j) {
              ASSERT_EQ(actual[start + zero_row * dst_stride * elem + j], 0);
            }
          }
        }
      }
    }
  }
}

// Consecutive result rows whose runs have the same count (2 to 4) and start on the same source
// row or the next one are combined together, each source row loaded once for both: the bits are
// still those of each row alone (CombineRows and StoreFromFloat), for every dtype, cached and
// streamed, over lengths around the 4-vector blocks. Only rows on whole vectors pair, so the
// source rows are 64-byte aligned here, and once off a vector; the runs mix pairs of each count
// and shift with rows that must go alone (another count, a shift of 2, one tap, the band's last).
TEST_P(KernelsOnEveryTarget, CombineRowRunsToPairsRowsThatShareSourceRows) {
  const std::vector<int32_t> first = {0, 0, 1, 2, 1, 1, 2, 3, 0, 2, 5, 1, 1, 0};
  const std::vector<int32_t> counts = {2, 2, 3, 3, 4, 4, 4, 4, 2, 2, 1, 3, 2, 4};
  std::vector<int32_t> offsets = {0};
  for (const int32_t count : counts) offsets.push_back(offsets.back() + count);
  const std::vector<float> weights = Random(static_cast<size_t>(offsets.back()), 91);
  const kernels::RowRuns runs{first.data(), offsets.data(), weights.data()};
  const size_t rows = first.size(), source_rows = 7;
  const auto lanes = TargetLanes();
  std::vector<int64_t> lengths = LengthsAroundVectors(lanes);
  for (const int64_t delta : {-1, 0, 1}) lengths.push_back(12 * lanes + delta);
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    const size_t elem = DTypeSize(dtype);
    for (const int64_t length : lengths) {
      const auto n = static_cast<size_t>(length);
      for (const bool on_vectors : {true, false}) {
        // Whole lines per source row, or one float more.
        const auto src_stride = static_cast<ptrdiff_t>((n + 15) / 16 * 16 + (on_vectors ? 16 : 17));
        const std::vector<float> storage = Random(source_rows * src_stride + 16, 5 + n);
        const float* const src =
            storage.data() + (16 - reinterpret_cast<uintptr_t>(storage.data()) / 4 % 16) % 16;
        // Result rows of whole lines where n allows, so that streamed float32 rows pair too.
        const auto dst_stride = static_cast<ptrdiff_t>((n + 31) / 32 * 32);
        const size_t total = rows * dst_stride * elem + 64;
        std::vector<uint8_t> expected(total, 0xAB);
        for (size_t i = 0; i < rows; ++i) {
          std::vector<float> floats(n);
          kernels::CombineRows(floats.data(), n, src + first[i] * src_stride, src_stride,
                               weights.data() + offsets[i], static_cast<size_t>(counts[i]));
          kernels::StoreFromFloat(dtype, floats.data(), n, expected.data() + i * dst_stride * elem,
                                  1);
        }
        for (const auto stores :
             {kernels::ResultStores::kCached, kernels::ResultStores::kStreamed}) {
          SCOPED_TRACE(::testing::Message()
                       << DTypeName(dtype) << " n " << n << (on_vectors ? "" : " off vectors")
                       << (stores == kernels::ResultStores::kStreamed ? " streamed" : ""));
          std::vector<uint8_t> storage_out(total + 64, 0xAB);
          uint8_t* const actual =
              storage_out.data() + (64 - reinterpret_cast<uintptr_t>(storage_out.data()) % 64) % 64;
          kernels::CombineRowRunsTo(runs, 0, rows, src, src_stride, 0, n, dtype, actual, dst_stride,
                                    stores);
          kernels::FlushStreamedStores();
          for (size_t i = 0; i < rows; ++i) {
            ASSERT_EQ(std::memcmp(actual + i * dst_stride * elem,
                                  expected.data() + i * dst_stride * elem, n * elem),
                      0)
                << "row " << i;
          }
          ASSERT_EQ(std::memcmp(actual, expected.data(), total), 0) << "wrote past a row";
        }
      }
    }
  }
}

// Standard normal values as rows in `dtype` (16-bit ones in `halves`) and the same values as
// floats, exactly: the rows a kernel reads and the float rows its reference reads.
struct RowsInDType {
  std::vector<uint16_t> halves;
  std::vector<float> floats;
};

RowsInDType RandomRowsIn(DType dtype, size_t total, std::mt19937& rng) {
  RowsInDType rows{std::vector<uint16_t>(total), std::vector<float>(total)};
  for (size_t i = 0; i < total; ++i) {
    const float v = std::normal_distribution<float>()(rng);
    rows.halves[i] = dtype == DType::kFloat16 ? FloatToFloat16(v) : FloatToBFloat16(v);
    rows.floats[i] = dtype == DType::kFloat32   ? v
                     : dtype == DType::kFloat16 ? Float16ToFloat(rows.halves[i])
                                                : BFloat16ToFloat(rows.halves[i]);
  }
  return rows;
}

// Elements of element_bytes from `storage` (aligned to its elements) to the first cache-line
// boundary at or after it.
size_t ElementsToLine(const void* storage, size_t element_bytes) {
  const size_t line_elements = kernels::kCacheLineBytes / element_bytes;
  return (line_elements - reinterpret_cast<uintptr_t>(storage) / element_bytes % line_elements) %
         line_elements;
}

// 16-bit source rows converted in registers give the bits of converting them to float first,
// for rows off cache lines (a stride of n + 3) and rows all on lines (AVX-512 combines rows that
// do not start on multiples of a vector's load in half vectors).
TEST_P(KernelsOnEveryTarget, CombineRowsFromSixteenBitRowsMatchesConvertThenCombine) {
  const auto end = static_cast<size_t>(SweepEnd(TargetLanes()));
  std::mt19937 rng(31);
  for (DType dtype : {DType::kFloat16, DType::kBFloat16, DType::kFloat32}) {
    const size_t line_elements = kernels::kCacheLineBytes / DTypeSize(dtype);
    for (const bool on_lines : {false, true}) {
      for (size_t n = 0; n <= end; ++n) {
        for (size_t count : {0, 1, 3, 5}) {
          const auto stride =
              static_cast<ptrdiff_t>(on_lines ? (n / line_elements + 1) * line_elements : n + 3);
          const size_t total = stride * std::max<size_t>(count, 1) + line_elements;
          const RowsInDType rows = RandomRowsIn(dtype, total, rng);
          const void* const storage = dtype == DType::kFloat32
                                          ? static_cast<const void*>(rows.floats.data())
                                          : static_cast<const void*>(rows.halves.data());
          // Elements from the storage's start to the first row: the first line boundary.
          const size_t shift = on_lines ? ElementsToLine(storage, DTypeSize(dtype)) : 0;
          const std::vector<float> weights = Random(count, 77);
          std::vector<float> expected(n), actual(n);
          kernels::CombineRows(expected.data(), n, rows.floats.data() + shift, stride,
                               weights.data(), count);
          const void* source = static_cast<const char*>(storage) + shift * DTypeSize(dtype);
          kernels::CombineRowsFrom(dtype, actual.data(), n, source, stride, weights.data(), count);
          for (size_t j = 0; j < n; ++j) {
            ASSERT_EQ(FloatBits(actual[j]), FloatBits(expected[j]))
                << DTypeName(dtype) << " n " << n << " count " << count << " j " << j
                << (on_lines ? " on lines" : "");
          }
        }
      }
    }
  }
}

// Runs `body` under each width of the many-tap form's vectors (KernelTuning, which the CPU
// chooses), labelled: two on targets of more than 8 float lanes (AVX-512), where half vectors
// differ from whole ones, else one. The fixture's TearDown restores the CPU's choice.
template <class Body>
void ForEachManyTapWidth(const Body& body) {
  for (const bool in_half_vectors : {false, true}) {
    if (in_half_vectors && TargetLanes() <= 8) continue;  // the same vectors again
    kernels::KernelTuning tuning = kernels::DefaultTuningForCpu();
    tuning.many_taps_in_half_vectors = in_half_vectors;
    kernels::OverrideTuning(tuning);
    body(in_half_vectors ? " (many taps in half vectors)" : "");
  }
}

// Long runs of rows far apart (anti-aliased downscales by 4 and more) take Combine's many-tap
// form (combine-inl.h), which sweeps the columns a few rows at a time through partial sums. Its
// bits are those of the same columns combined from rows packed close together (the column-block
// loop), a chunk of columns at a time: for source rows of every dtype, into floats and into
// rounded 16-bit results (cached and streamed), tap counts on both sides of the form's threshold
// and of its sweep width, and lengths across its strip of partial sums, in either width of its
// vectors.
TEST_P(KernelsOnEveryTarget, CombineRowsOfManyDistantRowsMatchCloseRowsBitwise) {
  ForEachManyTapWidth([](const std::string& width) {
    const auto lanes = static_cast<size_t>(TargetLanes());
    // Chunks of 32 packed columns: 33 rows of them span 4 KiB, inside the form's threshold.
    constexpr size_t kChunk = 32;
    const std::vector<size_t> lengths = {1,    4 * lanes - 1,        4 * lanes, 4 * lanes + 3, 1023,
                                         1024, 1024 + 4 * lanes + 5, 2053};
    std::mt19937 rng(47);
    for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
      const size_t elem = DTypeSize(dtype);
      for (size_t count : {7, 8, 9, 13, 16, 17, 18, 19, 33}) {
        for (size_t n : lengths) {
          // Far apart: the run spans 16 KiB or more in any dtype.
          const size_t stride = std::max<size_t>(n + 3, 16384 / 2 / count + 1);
          const size_t total = stride * count;
          const RowsInDType rows = RandomRowsIn(dtype, total, rng);
          const std::vector<uint16_t>& halves = rows.halves;
          const std::vector<float>& floats = rows.floats;
          const std::vector<float> weights = Random(count, 90 + static_cast<uint32_t>(count));
          std::vector<float> expected(n);
          std::vector<float> packed(count * kChunk);
          for (size_t j0 = 0; j0 < n; j0 += kChunk) {
            const size_t m = std::min(kChunk, n - j0);
            for (size_t k = 0; k < count; ++k) {
              std::copy_n(floats.begin() + static_cast<ptrdiff_t>(k * stride + j0), m,
                          packed.begin() + static_cast<ptrdiff_t>(k * kChunk));
            }
            kernels::CombineRows(expected.data() + j0, m, packed.data(), kChunk, weights.data(),
                                 count);
          }
          const std::string label = std::string(DTypeName(dtype)) + " count " +
                                    std::to_string(count) + " n " + std::to_string(n) + width;
          std::vector<float> actual(n + 1, 12345.0f);
          const void* source = dtype == DType::kFloat32 ? static_cast<const void*>(floats.data())
                                                        : static_cast<const void*>(halves.data());
          kernels::CombineRowsFrom(dtype, actual.data(), n, source, static_cast<ptrdiff_t>(stride),
                                   weights.data(), count);
          for (size_t j = 0; j < n; ++j) {
            ASSERT_EQ(FloatBits(actual[j]), FloatBits(expected[j])) << label << " j " << j;
          }
          ASSERT_EQ(actual[n], 12345.0f) << "wrote past the row, " << label;
          // The same run from float rows into a result in `dtype`, rounded as it is stored.
          std::vector<uint8_t> expected_result(n * elem);
          kernels::StoreFromFloat(dtype, expected.data(), n, expected_result.data(), 1);
          for (const auto stores :
               {kernels::ResultStores::kCached, kernels::ResultStores::kStreamed}) {
            std::vector<uint8_t> storage(n * elem + 64, 0xAB);
            uint8_t* const result =
                storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64;
            const int32_t first = 0, offsets[2] = {0, static_cast<int32_t>(count)};
            kernels::CombineRowRunsTo(kernels::RowRuns{&first, offsets, weights.data()}, 0, 1,
                                      floats.data(), static_cast<ptrdiff_t>(stride), 0, n, dtype,
                                      result, 0, stores);
            kernels::FlushStreamedStores();
            ASSERT_EQ(std::memcmp(result, expected_result.data(), n * elem), 0)
                << label << (stores == kernels::ResultStores::kStreamed ? " streamed" : "");
          }
        }
      }
    }
  });
}

// The many-tap form's sums start from their first product, through sweeps and partial sums: a
// column whose every product is -0.0 (rows of -0.0 under positive weights, +0.0 under negative
// ones) sums to -0.0, where a sum started from +0.0 (a cleared accumulator) gives +0.0.
TEST_P(KernelsOnEveryTarget, CombineRowsOfManyDistantRowsKeepNegativeZeros) {
  ForEachManyTapWidth([](const std::string& width) {
    const auto lanes = static_cast<size_t>(TargetLanes());
    const size_t n = 8 * lanes + 3;  // two column blocks and a tail
    for (size_t count : {16, 17, 19}) {
      const size_t stride = std::max<size_t>(n + 3, 16384 / 4 / count + 1);
      // Column j holds -0.0 in every row where j is even, +0.0 where it is odd; the weights'
      // signs alternate by run: all positive, then all negative.
      std::vector<float> rows(stride * count);
      for (size_t k = 0; k < count; ++k) {
        for (size_t j = 0; j < n; ++j) rows[k * stride + j] = j % 2 == 0 ? -0.0f : 0.0f;
      }
      for (const float sign : {1.0f, -1.0f}) {
        std::vector<float> weights(count);
        for (size_t k = 0; k < count; ++k)
          weights[k] = sign * (0.25f + 0.01f * static_cast<float>(k));
        std::vector<float> actual(n, 1.0f);
        kernels::CombineRowsFrom(DType::kFloat32, actual.data(), n, rows.data(),
                                 static_cast<ptrdiff_t>(stride), weights.data(), count);
        for (size_t j = 0; j < n; ++j) {
          // The products' sign: the row's times the weight's.
          const bool negative = (j % 2 == 0) != (sign < 0.0f);
          ASSERT_EQ(FloatBits(actual[j]), FloatBits(negative ? -0.0f : 0.0f))
              << "count " << count << " weight sign " << sign << " j " << j << width;
        }
      }
    }
  });
}

// A float's bits, with every NaN as one value: where a NaN meets an Inf - Inf, which NaN comes
// out (sign, payload) depends on operand order the compiler may pick differently between two
// code paths; that a NaN comes out does not.
uint32_t BitsOrNaN(float f) { return std::isnan(f) ? 0x7FC00000u : FloatBits(f); }

// A 16-bit value's bits with every NaN as one value (BitsOrNaN's reason).
uint16_t Bits16OrNaN(DType dtype, uint16_t bits) {
  const uint16_t infinity = dtype == DType::kBFloat16 ? 0x7F80 : 0x7C00;
  return (bits & 0x7FFF) > infinity ? uint16_t{0x7FFF} : bits;
}

// Two overlapping runs at once (the channels-last H pass of consecutive rows): the bits of two
// CombineRowsFrom calls, for every dtype, lengths around the vector widths, the fused bilinear
// 2x shape (4 taps shifted by 2) and others, NaN and Inf included.
TEST_P(KernelsOnEveryTarget, CombineRowPairFromMatchesTwoCombineRowsFrom) {
  struct Runs {
    size_t count0, shift1, count1;
  };
  const auto end = static_cast<size_t>(SweepEnd(TargetLanes()));
  std::mt19937 rng(41);
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    for (const Runs runs : {Runs{4, 2, 4}, Runs{3, 1, 3}, Runs{3, 2, 3}, Runs{4, 1, 4},
                            Runs{3, 1, 2}, Runs{2, 0, 3}, Runs{5, 2, 4}, Runs{1, 0, 1}}) {
      for (size_t n = 1; n <= end; ++n) {
        for (int poison = 0; poison < 2; ++poison) {
          const ptrdiff_t stride = static_cast<ptrdiff_t>(n) + 5;
          const size_t rows = std::max(runs.count0, runs.shift1 + runs.count1);
          const size_t total = stride * rows;
          std::vector<uint16_t> halves(total);
          std::vector<float> floats(total);
          for (size_t i = 0; i < total; ++i) {
            const float v = std::normal_distribution<float>()(rng);
            halves[i] = dtype == DType::kFloat16 ? FloatToFloat16(v) : FloatToBFloat16(v);
            floats[i] = v;
          }
          if (poison == 1) {
            floats[stride * (rows - 1) + n / 2] = NAN;  // the last row: the second run only
            halves[stride * (rows - 1) + n / 2] = 0x7FC0;
            floats[n - 1] = INFINITY;  // the first row: the first run only (unless shift1 is 0)
            halves[n - 1] = dtype == DType::kFloat16 ? 0x7C00 : 0x7F80;
          }
          const void* source = dtype == DType::kFloat32 ? static_cast<const void*>(floats.data())
                                                        : static_cast<const void*>(halves.data());
          const size_t elem = DTypeSize(dtype);
          const std::vector<float> weights0 = Random(runs.count0, 42);
          const std::vector<float> weights1 = Random(runs.count1, 43);
          std::vector<float> expected0(n), expected1(n), actual0(n), actual1(n);
          kernels::CombineRowsFrom(dtype, expected0.data(), n, source, stride, weights0.data(),
                                   runs.count0);
          kernels::CombineRowsFrom(dtype, expected1.data(), n,
                                   static_cast<const char*>(source) + runs.shift1 * stride * elem,
                                   stride, weights1.data(), runs.count1);
          kernels::CombineRowPairFrom(dtype, actual0.data(), actual1.data(), n, source, stride,
                                      weights0.data(), runs.count0, runs.shift1, weights1.data(),
                                      runs.count1);
          for (size_t j = 0; j < n; ++j) {
            ASSERT_EQ(BitsOrNaN(actual0[j]), BitsOrNaN(expected0[j]))
                << DTypeName(dtype) << " runs " << runs.count0 << "/" << runs.shift1 << "/"
                << runs.count1 << " n " << n << " j " << j;
            ASSERT_EQ(BitsOrNaN(actual1[j]), BitsOrNaN(expected1[j]))
                << DTypeName(dtype) << " runs " << runs.count0 << "/" << runs.shift1 << "/"
                << runs.count1 << " n " << n << " j " << j;
          }
        }
      }
    }
  }
}

// A group of result rows combined a column chunk at a time (the interleaved H-first pass): the
// bits of a CombineRowsFrom call per row, for every dtype, widths around the vectors and the
// chunk, runs of the many-tap form (17 rows of more than 16 KiB), short runs and empty ones, any
// row range, NaN and Inf included, and nothing written past a row's n columns; with the rows
// ahead prefetched (a next group given) and without. Rows 0 and 1 (17 taps, 4 apart) and 7 and 8
// (6 taps, 1 apart) pair where the target pairs (kPairsRowGroupRuns) and no row prefetches; on
// AVX-512 only rows on whole vectors pair, hence rows on cache lines as well as off them.
TEST_P(KernelsOnEveryTarget, CombineRowGroupFromMatchesCombineRowsFromPerRow) {
  const std::vector<int32_t> first = {0, 4, 0, 8, 12, 2, 3, 1, 2};
  const std::vector<int32_t> counts = {17, 17, 0, 3, 1, 17, 2, 6, 6};
  std::vector<int32_t> weight_offset = {0};
  for (int32_t count : counts) weight_offset.push_back(weight_offset.back() + count);
  const std::vector<float> weights = Random(static_cast<size_t>(weight_offset.back()), 61);
  const kernels::RowRuns runs{first.data(), weight_offset.data(), weights.data()};
  const size_t source_rows = 21;
  const size_t lanes = static_cast<size_t>(TargetLanes());
  std::mt19937 rng(59);
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    const size_t elem = DTypeSize(dtype);
    const size_t chunk = kernels::kRowChunkBytes / elem;
    const size_t line_elements = kernels::kCacheLineBytes / elem;
    for (size_t n : {size_t{1}, lanes - 1, lanes, 4 * lanes + 1, chunk - 1, chunk, chunk + 1,
                     2 * chunk + 3 * lanes + 5}) {
      if (n == 0) continue;
      for (const bool on_lines : {false, true}) {
        const auto stride = static_cast<ptrdiff_t>(
            on_lines ? (n + line_elements - 1) / line_elements * line_elements : n + 5);
        RowsInDType rows = RandomRowsIn(dtype, source_rows * stride + line_elements, rng);
        const char* const storage = dtype == DType::kFloat32
                                        ? reinterpret_cast<const char*>(rows.floats.data())
                                        : reinterpret_cast<const char*>(rows.halves.data());
        // Elements from the storage's start to the first row: none, or the first line boundary.
        const size_t skip = on_lines ? ElementsToLine(storage, elem) : 0;
        rows.floats[skip + 9 * stride + n / 2] = NAN;  // in the runs of rows 0, 1, 3 and 5
        rows.halves[skip + 9 * stride + n / 2] = 0x7FC0;
        rows.floats[skip + 3 * stride + n - 1] = -INFINITY;
        rows.halves[skip + 3 * stride + n - 1] = dtype == DType::kFloat16 ? 0xFC00 : 0xFF80;
        const char* const source = storage + skip * elem;
        const auto dst_stride = static_cast<ptrdiff_t>(n + 7);
        for (const auto& [begin, end] :
             {std::pair<size_t, size_t>{0, 9}, {1, 4}, {5, 7}, {2, 3}, {7, 9}}) {
          // Source rows from the range's first row with a run on, as a band passes them.
          int64_t row0 = static_cast<int64_t>(source_rows);
          for (size_t i = begin; i < end; ++i) {
            if (counts[i] > 0) row0 = std::min<int64_t>(row0, first[i]);
          }
          for (const bool prefetch : {false, true}) {
            kernels::KernelTuning tuning = kernels::DefaultTuningForCpu();
            tuning.prefetch_row_group_chunks = prefetch;
            kernels::OverrideTuning(tuning);
            std::vector<float> actual((end - begin) * static_cast<size_t>(dst_stride), 777.0f);
            kernels::CombineRowGroupFrom(runs, begin, end, dtype, source + row0 * stride * elem,
                                         stride, row0, n, actual.data(), dst_stride,
                                         std::min(counts.size(), end + 2));
            std::vector<float> expected(n);
            for (size_t i = begin; i < end; ++i) {
              const int64_t row = counts[i] > 0 ? first[i] : 0;
              kernels::CombineRowsFrom(dtype, expected.data(), n, source + row * stride * elem,
                                       stride, weights.data() + weight_offset[i],
                                       static_cast<size_t>(counts[i]));
              const float* const got =
                  actual.data() + (i - begin) * static_cast<size_t>(dst_stride);
              for (size_t j = 0; j < n; ++j) {
                ASSERT_EQ(BitsOrNaN(got[j]), BitsOrNaN(expected[j]))
                    << DTypeName(dtype) << " n " << n << " rows " << begin << ".." << end << " row "
                    << i << " j " << j << (on_lines ? " on lines" : "")
                    << (prefetch ? " (rows ahead prefetched)" : "");
              }
              for (size_t j = n; j < static_cast<size_t>(dst_stride); ++j) {
                ASSERT_EQ(got[j], 777.0f) << "written past row " << i << " at " << j;
              }
            }
          }
        }
      }
    }
  }
}

TEST_P(KernelsOnEveryTarget, CombineRowsResultDoesNotDependOnRowPosition) {
  // Two unrolled blocks, a single vector and the longest tail (none for one lane), each
  // element computed alone against its place in the whole row.
  const int64_t lanes = TargetLanes();
  const auto n = static_cast<size_t>(9 * lanes + lanes - 1);
  const size_t count = 9;
  const std::vector<float> src = Random(n * count, 9);
  const std::vector<float> weights = Random(count, 10);
  std::vector<float> whole(n);
  kernels::CombineRows(whole.data(), n, src.data(), n, weights.data(), count);
  for (size_t j = 0; j < n; ++j) {
    float single;
    kernels::CombineRows(&single, 1, src.data() + j, n, weights.data(), count);
    ASSERT_EQ(FloatBits(single), FloatBits(whole[j])) << j;
  }
}

double NaiveGather(const AxisRuns& axis, const float* src, int64_t i, double* magnitude) {
  double sum = 0;
  *magnitude = 0;
  for (int32_t k = 0; k < axis.count(i); ++k) {
    const double term = double(axis.weights[axis.weight_offset[i] + k]) * src[axis.first[i] + k];
    sum += term;
    *magnitude += std::abs(term);
  }
  return sum;
}

TEST_P(KernelsOnEveryTarget, GatherRowsMatchesNaiveSumForEveryLengthAndRowCount) {
  const int64_t lanes = TargetLanes();
  int ragged_blocked_axes = 0;  // blocked, over several blocks, the last one partial
  for (int64_t in_size = 1; in_size <= SweepEnd(lanes); ++in_size) {
    for (int64_t out_size : {int64_t{1}, in_size / 3 + 1, in_size, 2 * in_size + 1}) {
      const RandomAxis axis = MakeRandomAxis(in_size, out_size, 100 + in_size);
      if (lanes == 1) {
        // A block of one element is its exact run: BlockAxis never blocks for one lane.
        ASSERT_EQ(axis.blocked.lanes, 0) << "in " << in_size << " out " << out_size;
      } else if (axis.blocked.lanes == lanes && in_size > lanes && in_size % lanes != 0) {
        ++ragged_blocked_axes;
      }
      for (bool use_blocks : {false, true}) {
        // Up to a whole group of the blocked form's rows (8) and a partial second one.
        for (size_t rows : {1, 3, 4, 6, 8, 11}) {
          const std::vector<float> src = Random(rows * out_size, 7 + rows);
          std::vector<float> dst(rows * (in_size + 2), 777.0f);
          kernels::GatherRows(axis.View(use_blocks), rows, src.data(), out_size, dst.data(),
                              in_size + 2);
          for (size_t r = 0; r < rows; ++r) {
            for (int64_t i = 0; i < in_size; ++i) {
              double magnitude;
              const double expected =
                  NaiveGather(axis.exact, src.data() + r * out_size, i, &magnitude);
              ASSERT_NEAR(dst[r * (in_size + 2) + i], expected, 1e-6 * magnitude)
                  << "in " << in_size << " out " << out_size << " row " << r << " i " << i
                  << (use_blocks ? " blocked" : " exact");
            }
            ASSERT_EQ(dst[r * (in_size + 2) + in_size], 777.0f) << "wrote past the row";
          }
        }
      }
    }
  }
  if (lanes > 1) EXPECT_GT(ragged_blocked_axes, 0);  // the blocked form, partial blocks included
}

// Integer upsampling factors 1..4 of both operators give uniform interiors of strides 1..4; the
// vectorised interior must equal the exact runs bit for bit, NaN and Inf included, and never
// read outside the source row (the source vectors are exactly one row long, for
// AddressSanitizer). Every stride runs as vectors on every target, somewhere over several
// vectors with a ragged last one (which overlaps its neighbour).
TEST_P(KernelsOnEveryTarget, GatherRowsUniformInteriorIsBitIdenticalToExactRuns) {
  const int64_t lanes = TargetLanes();
  int vector_axes[kernels::kMaxUniformStride + 1] = {};
  int ragged_axes[kernels::kMaxUniformStride + 1] = {};
  for (int factor = 1; factor <= 4; ++factor) {
    for (int64_t in_size = 1; in_size <= SweepEnd(lanes); ++in_size) {
      for (bool bicubic : {false, true}) {
        const AxisSpec spec{in_size, in_size * factor, false, 0.0};
        const AxisRuns exact =
            Transpose(bicubic ? BuildBicubicAAAxis(spec) : BuildBilinearAxis(spec));
        const UniformInterior uniform =
            FindUniformInterior(exact, 4, kernels::kMaxUniformStride, kernels::kMaxUniformTaps);
        if (uniform.stride == 0) continue;
        ASSERT_EQ(uniform.stride, factor);
        const int64_t vectorised = UniformVectorElements(uniform, exact.source_size);
        if (vectorised >= lanes) ++vector_axes[factor];
        if (vectorised > lanes && vectorised % lanes != 0) ++ragged_axes[factor];
        const kernels::GatherAxis view = MakeGatherAxis(exact, nullptr, nullptr);
        const kernels::GatherAxis fast = MakeGatherAxis(exact, &uniform, nullptr);
        for (int poison = 0; poison < 3; ++poison) {
          std::vector<float> src = Random(exact.source_size, 50 + factor);
          if (poison == 1) src[exact.source_size / 2] = NAN;
          if (poison == 2) src[exact.source_size - 1] = INFINITY;
          std::vector<float> expected(exact.result_size), actual(exact.result_size);
          kernels::GatherRows(view, 1, src.data(), 0, expected.data(), 0);
          kernels::GatherRows(fast, 1, src.data(), 0, actual.data(), 0);
          for (int64_t i = 0; i < exact.result_size; ++i) {
            ASSERT_EQ(FloatBits(actual[i]), FloatBits(expected[i]))
                << "factor " << factor << " in " << in_size << (bicubic ? " bicubic" : " bilinear")
                << " i " << i;
          }
        }
      }
    }
  }
  for (int stride = 1; stride <= kernels::kMaxUniformStride; ++stride) {
    EXPECT_GT(vector_axes[stride], 0) << "stride " << stride << " never ran as vectors";
    // One lane has no partial vector.
    if (lanes > 1) EXPECT_GT(ragged_axes[stride], 0) << "stride " << stride << ", ragged";
  }
}

// A resampling ratio of `period` result indices per `shift` source indices.
struct Ratio {
  int64_t period, shift;
};

// The reach the W kernels carry, as plans use it for planar rows.
constexpr PeriodicReach kKernelReach{kernels::kMaxPeriodicLoads, kernels::kMaxPeriodicTaps};

// The W axis of `periods` whole periods of a ratio, bilinear or bicubic AA: the transpose of the
// forward shift -> period axis (a backward pass) or that axis itself (a forward one); either
// way `period` result indices per `shift` source indices.
AxisRuns RatioAxis(Ratio ratio, int64_t periods, bool bicubic, bool transposed) {
  const AxisSpec spec = transposed ? AxisSpec{ratio.period * periods, ratio.shift * periods}
                                   : AxisSpec{ratio.shift * periods, ratio.period * periods};
  const ForwardAxis forward = bicubic ? BuildBicubicAAAxis(spec) : BuildBilinearAxis(spec);
  return transposed ? Transpose(forward) : AsGather(forward);
}

// GatherRows over the periodic interior (or row table) `interior` of `exact` equals the exact
// runs bit for bit on `src`, rows of exact.source_size elements back to back.
void ExpectInteriorRowsMatchExactRuns(const AxisRuns& exact, const PeriodicInterior& interior,
                                      const std::vector<float>& src, const std::string& where) {
  const kernels::GatherAxis view = MakeGatherAxis(exact, nullptr, nullptr);
  const kernels::GatherAxis fast = MakeGatherAxis(exact, nullptr, nullptr, &interior);
  const int64_t width = exact.source_size, length = exact.result_size;
  const auto rows = static_cast<int64_t>(src.size()) / width;
  std::vector<float> expected(rows * length), actual(rows * length);
  kernels::GatherRows(view, rows, src.data(), width, expected.data(), length);
  kernels::GatherRows(fast, rows, src.data(), width, actual.data(), length);
  for (int64_t i = 0; i < rows * length; ++i) {
    ASSERT_EQ(FloatBits(actual[i]), FloatBits(expected[i]))
        << where << " row " << i / length << " i " << i % length;
  }
}

// GatherRows over the periodic interior `periodic` of `exact` equals the exact runs bit for bit
// over 3 and 16 rows (the kernel works out a row's layout once per call only where the call has
// enough vectors to pay for it), finite, with a NaN and with Inf and NaN at the rows' ends.
void ExpectPeriodicRowsMatchExactRuns(const AxisRuns& exact, const PeriodicInterior& periodic,
                                      const std::string& where) {
  const int64_t width = exact.source_size;
  for (int poison = 0; poison < 6; ++poison) {
    const int64_t rows = poison < 3 ? 3 : 16;
    std::vector<float> src = Random(rows * width, 60 + poison % 3);
    if (poison % 3 == 1) src[width + width / 2] = NAN;
    if (poison % 3 == 2) {
      src[0] = INFINITY;
      src[rows * width - 1] = NAN;
    }
    ExpectInteriorRowsMatchExactRuns(exact, periodic, src, where);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Ratios whose runs repeat every `period` result elements give periodic interiors on every
// power-of-two target: 8/7 as in the suite's 256 -> 224 (period 8 backward, 7 forward), 4/3,
// 1.5x upsampling, downsampling by 2 and 4, 5/3, and period-1 strides the uniform form does
// not carry; both the transposed axis (a backward pass) and the axis itself (a forward one).
// Periods that divide the lanes have one lane pattern; the others (3, 5 and 7 everywhere, 8 on
// four lanes) one per vector start. The vectorised interior must equal the exact runs bit for
// bit, NaN and Inf included (a lane with a short run must not touch its padding taps), over
// several rows, and never read outside the source rows (they are exactly as long as the axis
// says, for AddressSanitizer). Lengths run to past 8 vectors of this target, so that each
// period is found and run, with one source load per vector and with two, over several vectors;
// and, with the reach the kernels carry (kernels::PeriodicLoads), bilinear downscales by 9/4,
// 5/2, 7/2 and 4 with three and four loads, and the gradients of 9/4, 5/2 and 7/2 upscales (5 to 8
// taps) with as many.
TEST_P(KernelsOnEveryTarget, GatherRowsPeriodicInteriorIsBitIdenticalToExactRuns) {
  const int64_t lanes = TargetLanes();
  // The kernels find a tap's lane with a mask, so only power-of-two lanes have the form (SVE
  // may have others; every x86 and portable target has a power of two).
  const bool power_of_two = (lanes & (lanes - 1)) == 0;
  std::vector<int> axes_with_period(kMaxPeriod + 1, 0);
  std::vector<int> axes_with_loads(kernels::kMaxPeriodicLoads + 1, 0);
  int several_vector_axes = 0, overhang_axes = 0, several_pattern_axes = 0;
  int several_pattern_overhang_axes = 0, wide_many_tap_axes = 0;
  for (const Ratio ratio :
       {Ratio{8, 7}, Ratio{7, 8}, Ratio{4, 3}, Ratio{3, 4}, Ratio{2, 3}, Ratio{3, 2}, Ratio{2, 1},
        Ratio{4, 1}, Ratio{8, 5}, Ratio{5, 3}, Ratio{1, 5}, Ratio{1, 6}, Ratio{4, 9}, Ratio{2, 5},
        Ratio{2, 7}, Ratio{1, 4}}) {
    for (int64_t periods = 1; ratio.period * periods <= SweepEnd(lanes); ++periods) {
      for (bool bicubic : {false, true}) {
        for (bool transposed : {true, false}) {
          const AxisRuns exact = RatioAxis(ratio, periods, bicubic, transposed);
          const PeriodicInterior periodic =
              FindPeriodicInterior(exact, static_cast<int32_t>(lanes), kernels::kMaxPeriodicTaps, 1,
                                   /*channels=*/1, kKernelReach);
          if (!power_of_two) {
            ASSERT_EQ(periodic.lanes, 0);
            continue;
          }
          if (periodic.lanes == 0) continue;
          const std::string where = "ratio " + std::to_string(ratio.period) + "/" +
                                    std::to_string(ratio.shift) + " periods " +
                                    std::to_string(periods) + (bicubic ? " bicubic" : " bilinear") +
                                    (transposed ? " transposed" : " gather");
          ASSERT_EQ(periodic.lanes, lanes) << where;
          ASSERT_LE(periodic.period, kMaxPeriod) << where;
          const int64_t starts = std::gcd(int64_t{periodic.period}, lanes);
          ASSERT_EQ(periodic.patterns, periodic.period / starts) << where;
          ASSERT_LE(periodic.begin + int64_t{periodic.vectors} * lanes + periodic.overhang,
                    exact.result_size)
              << where;
          ASSERT_LT(periodic.overhang, lanes) << where;
          ASSERT_EQ(periodic.overhang % starts, 0) << where;
          if (periodic.overhang > 0) ++overhang_axes;
          ++axes_with_period[periodic.period];
          const int32_t loads =
              kernels::PeriodicLoads(periodic.span, periodic.taps, static_cast<int32_t>(lanes));
          ASSERT_GT(loads, 0) << where;
          ++axes_with_loads[loads];
          if (loads > 2 && periodic.taps > 4) ++wide_many_tap_axes;
          if (periodic.vectors >= 2) ++several_vector_axes;
          if (periodic.patterns > 1) {
            ++several_pattern_axes;
            if (periodic.overhang > 0 && periodic.overhang_pattern > 0) {
              ++several_pattern_overhang_axes;
            }
          }
          ExpectPeriodicRowsMatchExactRuns(exact, periodic, where);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
  if (!power_of_two) return;
  // Every listed period is found, whether or not it divides the lanes (periods 1 and 6 would
  // be uniform strides, which these ratios do not have; a shorter period that holds over a
  // short stretch of the axis must not win over the axis's own).
  for (int period : {2, 3, 4, 5, 7, 8}) {
    EXPECT_GT(axes_with_period[period], 0) << "period " << period;
  }
  // One lane's span is its taps, two at most for these bilinear downscales.
  for (int loads = 1; loads <= (lanes > 1 ? kernels::kMaxPeriodicLoads : 2); ++loads) {
    EXPECT_GT(axes_with_loads[loads], 0) << loads << " loads";
  }
  // Runs of 5 to 8 taps from three and four loads: the gradients of bilinear upscales by 2.25,
  // 2.5 and 3.5 (each source column takes 5 to 8 result columns), reaching 3-4 vectors of 8 and
  // 16 lanes (four lanes need more loads than the kernels carry).
  if (lanes >= 8) EXPECT_GT(wide_many_tap_axes, 0);
  EXPECT_GT(several_vector_axes, 0);
  EXPECT_GT(several_pattern_axes, 0);
  // Interiors that end between whole vectors run one more, overlapping vector there, which for
  // periods that do not divide the lanes has a pattern of its own.
  if (lanes > 1) {
    EXPECT_GT(overhang_axes, 0);
    EXPECT_GT(several_pattern_overhang_axes, 0);
  }
}

// The periodic kernel works out a row's vectors once per call where they fit its stack tables
// (gather_rows.cc: up to 512 listed vectors of several patterns, 64 end vectors, 1024 table
// entries) and the call has vectors enough to pay for it, and runs the others vector by vector.
// Rows around 64 and 512 vectors of several patterns (8/7 and 7/8: the forward's runs all take
// every tap, the backward's do not), and upsampling by 8 and 16 (a vector's loads advance
// lanes / 8 or lanes / 16 columns, so up to 2 * lanes vectors end their loads at the row's end),
// must equal the exact runs on both sides of those limits, bit for bit, without reading outside
// the rows.
TEST_P(KernelsOnEveryTarget, GatherRowsPeriodicLongRowsAndManyEndVectors) {
  const int64_t lanes = TargetLanes();
  if ((lanes & (lanes - 1)) != 0) GTEST_SKIP() << "no periodic form for " << lanes << " lanes";
  int several_pattern_long_rows = 0, several_pattern_listed_limit_rows = 0, many_end_rows = 0;
  struct Lengths {
    Ratio ratio;
    int64_t first, last;  // result lengths
  };
  const int64_t step_vectors = std::max<int64_t>(1, lanes / 4);
  std::vector<Lengths> sweeps;
  for (const Ratio ratio : {Ratio{8, 7}, Ratio{7, 8}}) {
    sweeps.push_back({ratio, 60 * lanes, 68 * lanes});
    sweeps.push_back({ratio, 508 * lanes, 516 * lanes});
  }
  for (const Ratio ratio : {Ratio{8, 1}, Ratio{16, 1}}) {  // source rows of 2 to 3 vectors
    sweeps.push_back({ratio, 2 * lanes * ratio.period, (3 * lanes + 1) * ratio.period});
  }
  for (const Lengths& sweep : sweeps) {
    const Ratio ratio = sweep.ratio;
    const bool upsampling = ratio.shift == 1;
    const int64_t step = ratio.period * step_vectors;
    for (int64_t length = sweep.first; length <= sweep.last; length += step) {
      for (bool bicubic : {false, true}) {
        for (bool transposed : {true, false}) {
          const AxisRuns exact = RatioAxis(ratio, length / ratio.period, bicubic, transposed);
          const PeriodicInterior periodic = FindPeriodicInterior(exact, static_cast<int32_t>(lanes),
                                                                 kernels::kMaxPeriodicTaps, 1);
          if (periodic.lanes == 0) continue;
          const std::string where = "ratio " + std::to_string(ratio.period) + "/" +
                                    std::to_string(ratio.shift) + " length " +
                                    std::to_string(length) + (bicubic ? " bicubic" : " bilinear") +
                                    (transposed ? " transposed" : " gather");
          if (periodic.patterns > 1 && periodic.vectors > 64) ++several_pattern_long_rows;
          if (periodic.patterns > 1 && periodic.vectors > 512) ++several_pattern_listed_limit_rows;
          if (upsampling && !transposed) ++many_end_rows;
          ExpectPeriodicRowsMatchExactRuns(exact, periodic, where);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
  EXPECT_GT(many_end_rows, 0);
  // Several patterns exist where the period does not divide the lanes (7 on every vector
  // target; one lane has a pattern per period element, and its interiors stop short of 64).
  if (lanes > 1) {
    EXPECT_GT(several_pattern_long_rows, 0);
    EXPECT_GT(several_pattern_listed_limit_rows, 0);
  }
}

// A row table's shape for a row of `elements` (FindRowTableInterior): vectors of this target's
// lanes within the row, a pattern per vector and one for an overhanging last vector, and taps
// within the kernels' loads (their count in *loads).
void ExpectRowTableShape(const PeriodicInterior& table, int64_t lanes, int64_t elements,
                         const std::string& where, int32_t* loads) {
  ASSERT_EQ(table.lanes, lanes) << where;
  ASSERT_LT(table.overhang, lanes) << where;
  ASSERT_LE(table.begin + int64_t{table.vectors} * lanes + table.overhang, elements) << where;
  ASSERT_EQ(table.patterns, table.vectors + (table.overhang > 0 ? 1 : 0)) << where;
  *loads = kernels::PeriodicLoads(table.span, table.taps, static_cast<int32_t>(lanes));
  ASSERT_GT(*loads, 0) << where;
}

// GatherPixelRows over `interior` (a periodic interior or row table of pixel rows of `channels`
// channels) against each channel's exact runs over its own row, bit for bit, NaN and Inf
// included, over several rows with padded strides (so a row's last vectors cannot read the
// next row).
void ExpectPixelRowsMatchChannelRuns(const AxisRuns& exact, const PeriodicInterior& interior,
                                     int64_t channels, const std::string& where, int64_t rows = 3) {
  const kernels::GatherAxis view = MakeGatherAxis(exact, nullptr, nullptr);
  const kernels::GatherAxis fast = MakeGatherAxis(exact, nullptr, nullptr, &interior);
  const int64_t source_w = exact.source_size, result_w = exact.result_size;
  // Rows padded by a few floats, so a row's last vectors cannot read the next row.
  const int64_t src_stride = source_w * channels + 3, dst_stride = result_w * channels + 5;
  const int64_t kRows = rows;
  for (int poison = 0; poison < 3; ++poison) {
    std::vector<float> src = Random(kRows * src_stride, 70 + poison);
    if (poison == 1) src[src_stride + source_w * channels / 2] = NAN;
    if (poison == 2) {
      src[1] = INFINITY;
      src[(kRows - 1) * src_stride + source_w * channels - 1] = NAN;
    }
    std::vector<float> actual(kRows * dst_stride, 0.0f);
    kernels::GatherPixelRows(fast, static_cast<size_t>(channels), kRows, src.data(), src_stride,
                             actual.data(), dst_stride);
    std::vector<float> planar(source_w), gathered(result_w);
    for (int64_t row = 0; row < kRows; ++row) {
      for (int64_t c = 0; c < channels; ++c) {
        for (int64_t i = 0; i < source_w; ++i) {
          planar[i] = src[row * src_stride + i * channels + c];
        }
        kernels::GatherRows(view, 1, planar.data(), 0, gathered.data(), 0);
        for (int64_t i = 0; i < result_w; ++i) {
          ASSERT_EQ(FloatBits(actual[row * dst_stride + i * channels + c]), FloatBits(gathered[i]))
              << where << " row " << row << " pixel " << i << " channel " << c;
        }
      }
    }
  }
}

// The W axis of a ratio over pixels (RatioAxis), the periodic interior FindPeriodicInterior finds
// over the elements of its pixel rows of `channels` channels for `lanes` lanes, and the case's
// name for failure messages.
struct PixelRowAxis {
  AxisRuns exact;
  PeriodicInterior periodic;
  std::string where;
};

PixelRowAxis MakePixelRowAxis(Ratio ratio, int64_t periods, int64_t channels, bool bicubic,
                              bool transposed, int64_t lanes) {
  PixelRowAxis axis;
  axis.exact = RatioAxis(ratio, periods, bicubic, transposed);
  axis.periodic =
      FindPeriodicInterior(axis.exact, static_cast<int32_t>(lanes), kernels::kMaxPeriodicTaps, 1,
                           static_cast<int32_t>(channels));
  axis.where = "ratio " + std::to_string(ratio.period) + "/" + std::to_string(ratio.shift) +
               " periods " + std::to_string(periods) + " C " + std::to_string(channels) +
               (bicubic ? " bicubic" : " bilinear") + (transposed ? " transposed" : " gather");
  return axis;
}

// Rows of 2 to 4 interleaved channels (channels-last RGB rows) gather as they are where a
// periodic interior holds over their elements: every element must equal its channel's exact
// run over the channel's own row, bit for bit, NaN and Inf included, over several rows with
// padded strides, and never read outside the source rows. The ratios are those of the planar
// sweep, forward and backward; upsampling and mild downsampling keep a vector's taps within two
// vectors of elements, so every power-of-two target finds such interiors, several of them with
// more than one lane pattern and an overhang of its own.
TEST_P(KernelsOnEveryTarget, GatherPixelRowsMatchTheChannelsExactRuns) {
  const int64_t lanes = TargetLanes();
  const bool power_of_two = (lanes & (lanes - 1)) == 0;
  int found = 0, several_patterns = 0, overhangs = 0;
  for (const Ratio ratio : {Ratio{2, 1}, Ratio{8, 7}, Ratio{7, 8}, Ratio{4, 3}, Ratio{3, 2},
                            Ratio{4, 1}, Ratio{2, 3}, Ratio{5, 3}}) {
    for (int64_t periods = 1; ratio.period * periods <= SweepEnd(lanes); periods += 2) {
      for (int64_t channels = 2; channels <= 4; ++channels) {
        for (bool bicubic : {false, true}) {
          for (bool transposed : {true, false}) {
            // Ratios count pixels here.
            const PixelRowAxis axis =
                MakePixelRowAxis(ratio, periods, channels, bicubic, transposed, lanes);
            const AxisRuns& exact = axis.exact;
            const PeriodicInterior& periodic = axis.periodic;
            const std::string& where = axis.where;
            if (!power_of_two) {
              ASSERT_EQ(periodic.lanes, 0);
              continue;
            }
            if (periodic.lanes == 0) continue;
            // Whole pixels repeat: the period and the interior's start are in elements.
            ASSERT_EQ(periodic.period % channels, 0) << where;
            ASSERT_EQ(periodic.begin % channels, 0) << where;
            ASSERT_LE(periodic.begin + int64_t{periodic.vectors} * lanes + periodic.overhang,
                      exact.result_size * channels)
                << where;
            ASSERT_LE(periodic.span, 2 * lanes) << where;
            ++found;
            if (periodic.patterns > 1) ++several_patterns;
            if (periodic.overhang > 0) ++overhangs;
            ExpectPixelRowsMatchChannelRuns(exact, periodic, channels, where);
            if (HasFatalFailure()) return;
          }
        }
      }
    }
  }
  if (!power_of_two) return;
  EXPECT_GT(found, 0);
  if (lanes > 1) {
    EXPECT_GT(several_patterns, 0);
    EXPECT_GT(overhangs, 0);
  }
}

// Pixel rows long enough (about 64 vectors, eight rows a call) that the kernel works out a call's
// vectors once, with two or three lane patterns, which then run a cycle of vectors at a time
// (gather_rows.cc), among 2 to 7 channels: RGB and 6 channels upsampled by 2 (three patterns,
// taken in the order 0, 2, 1 by RGB), RGBA by 8/7 and 4/3 (two, on 16 and on 8 lanes), forward
// (every lane takes every tap) and backward (runs of different lengths), over four lengths in a
// row so that the listed vectors leave every remainder of a cycle. Every element must equal its
// channel's exact run over the channel's own row, bit for bit, NaN and Inf included.
TEST_P(KernelsOnEveryTarget, GatherPixelRowsInCyclesOfPatternsMatchTheChannelsExactRuns) {
  const int64_t lanes = TargetLanes();
  if ((lanes & (lanes - 1)) != 0) GTEST_SKIP() << "no periodic form for " << lanes << " lanes";
  std::map<int32_t, int> axes_with_patterns;
  for (const Ratio ratio : {Ratio{2, 1}, Ratio{8, 7}, Ratio{4, 3}, Ratio{3, 2}, Ratio{7, 8}}) {
    for (int64_t channels = 2; channels <= 7; ++channels) {
      const int64_t first = std::max<int64_t>(1, 64 * lanes / (ratio.period * channels));
      for (int64_t periods = first; periods < first + 4; ++periods) {
        for (bool bicubic : {false, true}) {
          for (bool transposed : {true, false}) {
            const PixelRowAxis axis =
                MakePixelRowAxis(ratio, periods, channels, bicubic, transposed, lanes);
            const PeriodicInterior& periodic = axis.periodic;
            if (periodic.lanes == 0 || periodic.patterns > 3) continue;
            ++axes_with_patterns[periodic.patterns];
            ExpectPixelRowsMatchChannelRuns(
                axis.exact, periodic, channels,
                axis.where + " patterns " + std::to_string(periodic.patterns), 8);
            if (HasFatalFailure()) return;
          }
        }
      }
    }
  }
  if (lanes == 1) return;  // one lane has one pattern
  EXPECT_GT(axes_with_patterns[2], 0);
  EXPECT_GT(axes_with_patterns[3], 0);
}

// Pixel rows whose runs do not repeat (RGB images resized 500 -> 224 or to 299) run the periodic
// kernels from a row table over their elements (FindRowTableInterior with channels), bit for bit
// each channel's exact runs: result lengths around multiples of this target's lanes, upsampled
// by about 2 and 4/3 and downsampled by 3/4, 9/4 and 7/2, bilinear and bicubic AA, forward and
// backward, for 2 to 4 channels; the tables must take three and four loads a vector somewhere
// (taps past two vectors of elements) and end in an overhanging vector somewhere.
TEST_P(KernelsOnEveryTarget, GatherPixelRowsRowTableMatchesTheChannelsExactRuns) {
  const int64_t lanes = TargetLanes();
  const bool power_of_two = (lanes & (lanes - 1)) == 0;
  int tables = 0, overhang_tables = 0;
  std::vector<int> tables_with_loads(kernels::kMaxPeriodicLoads + 1, 0);
  for (int64_t length = std::max<int64_t>(2, lanes - 1); length <= 3 * lanes + 2;
       length += 1 + lanes / 8) {
    for (const int64_t other : {length / 2 + 1, length * 3 / 4 + 1, length * 4 / 3 + 1,
                                length * 9 / 4 + 1, length * 7 / 2 + 1}) {
      for (int64_t channels = 2; channels <= 4; ++channels) {
        for (bool bicubic : {false, true}) {
          for (bool transposed : {true, false}) {
            const AxisSpec spec = transposed ? AxisSpec{length, other} : AxisSpec{other, length};
            const ForwardAxis forward =
                bicubic ? BuildBicubicAAAxis(spec) : BuildBilinearAxis(spec);
            const AxisRuns exact = transposed ? Transpose(forward) : AsGather(forward);
            const PeriodicInterior table = FindRowTableInterior(
                exact, static_cast<int32_t>(lanes), kernels::kMaxPeriodicTaps, 1, size_t{1} << 20,
                kKernelReach, static_cast<int32_t>(channels));
            if (!power_of_two) {
              ASSERT_EQ(table.lanes, 0);
              continue;
            }
            if (table.lanes == 0) continue;
            const std::string where = "length " + std::to_string(length) + " from " +
                                      std::to_string(other) + " C " + std::to_string(channels) +
                                      (bicubic ? " bicubic" : " bilinear") +
                                      (transposed ? " transposed" : " gather");
            ASSERT_EQ(table.begin % channels, 0) << where;
            int32_t loads = 0;
            ExpectRowTableShape(table, lanes, exact.result_size * channels, where, &loads);
            if (HasFatalFailure()) return;
            ++tables;
            ++tables_with_loads[loads];
            if (table.overhang > 0) ++overhang_tables;
            ExpectPixelRowsMatchChannelRuns(exact, table, channels, where);
            if (HasFatalFailure()) return;
          }
        }
      }
    }
  }
  if (!power_of_two) return;
  EXPECT_GT(tables, 0);
  if (lanes == 1) return;  // one lane: every vector is one element, no overhang, C + 1 loads
  for (int loads = 2; loads <= kernels::kMaxPeriodicLoads; ++loads) {
    EXPECT_GT(tables_with_loads[loads], 0) << loads << " loads";
  }
  EXPECT_GT(overhang_tables, 0);
}

// A pixel row's W pass through planar rows (GatherThroughPlanarRows) equals deinterleaving it,
// gathering each channel's row and interleaving the results, bit for bit: with uniform
// interiors of stride 2 and 4 (downsampling by 2 and 4, bilinear and bicubic AA: the rows split
// by pixel phase, or by column phase where a split vector's window would pass four vectors) and
// in natural order (stride 1 upsampling, and the 8/7 periodic and blocked forms), for 2 to 7
// channels and row lengths around every multiple of four vectors on every target, NaN and Inf
// included; stored cached, and streamed into results on and off a vector boundary (the
// streamed form puts its edges together in `gathered`: every element must still arrive once).
// Into bfloat16 and float16 pixels (GatherThroughPlanarRowsRounded), the same row rounded by
// StoreFromFloat (which NaN a sum gives left open, as BitsOrNaN leaves it).
TEST_P(KernelsOnEveryTarget, GatherThroughPlanarRowsMatchesThePlanarPasses) {
  const int64_t lanes = TargetLanes();
  int split = 0, natural = 0;
  for (int64_t source_w = 1; source_w <= 9 * lanes + 8; source_w += (source_w < 16 ? 1 : 3)) {
    for (int64_t factor : {-4, -2, 2, 0}) {  // downsampling by 4 or 2, upsampling by 2, 8/7
      for (bool bicubic : {false, true}) {
        const int64_t result_w =
            factor < 0 ? std::max<int64_t>(1, source_w / -factor)
                       : (factor == 2 ? 2 * source_w : std::max<int64_t>(1, source_w * 7 / 8));
        // The axis gathers result_w indices from source_w: the transpose of the forward
        // result_w -> source_w (a backward pass), whose runs are uniform when downsampling.
        const AxisSpec spec{result_w, source_w, false, 0.0};
        const AxisRuns exact =
            Transpose(bicubic ? BuildBicubicAAAxis(spec) : BuildBilinearAxis(spec));
        const UniformInterior uniform =
            FindUniformInterior(exact, MinUniformInteriorLength(static_cast<size_t>(lanes)),
                                kernels::kMaxUniformStride, kernels::kMaxUniformTaps);
        const PeriodicInterior periodic =
            uniform.stride > 0 ? PeriodicInterior()
                               : FindPeriodicInterior(exact, static_cast<int32_t>(lanes),
                                                      kernels::kMaxPeriodicTaps, 1);
        const kernels::GatherAxis axis = MakeGatherAxis(exact, &uniform, nullptr, &periodic);
        ++((uniform.stride == 2 || uniform.stride == 4) ? split : natural);
        for (int64_t channels = 2; channels <= 7; ++channels) {
          const int64_t n = exact.source_size, m = exact.result_size;
          std::vector<float> pixels = Random(n * channels, static_cast<uint32_t>(n + channels));
          if (n > 2) pixels[channels * (n / 2) + channels - 1] = NAN;
          if (n > 3) pixels[channels] = INFINITY;
          std::vector<float> expected(channels * m);
          std::vector<float> channel_row(n), expected_row(m);
          for (int64_t c = 0; c < channels; ++c) {
            for (int64_t i = 0; i < n; ++i) channel_row[i] = pixels[i * channels + c];
            kernels::GatherRows(axis, 1, channel_row.data(), 0, expected_row.data(), 0);
            for (int64_t i = 0; i < m; ++i) expected[i * channels + c] = expected_row[i];
          }
          // Streamed into a result on a vector boundary, one element off it, and cached.
          for (int64_t offset : {int64_t{-1}, int64_t{0}, int64_t{1}}) {
            const bool streamed = offset >= 0;
            const std::string where =
                "source_w " + std::to_string(source_w) + " result_w " + std::to_string(m) + " C " +
                std::to_string(channels) + (bicubic ? " bicubic" : "") + " stride " +
                std::to_string(uniform.stride) + (streamed ? " streamed at +" : " cached") +
                (streamed ? std::to_string(offset) : "");
            VectorData<float> planar(channels * kernels::GroupRowFloats(n), -1.0f);
            VectorData<float> gathered(channels * m, -2.0f);
            VectorData<float> result(channels * m + 2 * lanes, -3.0f);
            float* const actual = result.data() + (streamed ? offset : 0);
            kernels::GatherThroughPlanarRows(
                axis, channels, pixels.data(), planar.data(), gathered.data(), actual,
                streamed ? kernels::ResultStores::kStreamed : kernels::ResultStores::kCached);
            kernels::FlushStreamedStores();
            for (int64_t e = 0; e < channels * m; ++e) {
              ASSERT_EQ(FloatBits(actual[e]), FloatBits(expected[e]))
                  << where << " pixel " << e / channels << " channel " << e % channels;
            }
            // Nothing past the row.
            for (float* past = actual + channels * m; past < result.data() + result.size();
                 ++past) {
              ASSERT_EQ(*past, -3.0f) << where << " past the row";
            }
          }
          // Into 16-bit pixels (off a vector boundary): StoreFromFloat's bits of the same row.
          for (const DType dtype : {DType::kBFloat16, DType::kFloat16}) {
            std::vector<uint16_t> rounded(channels * m);
            kernels::StoreFromFloat(dtype, expected.data(), expected.size(), rounded.data(), 1);
            VectorData<float> planar(channels * kernels::GroupRowFloats(n), -1.0f);
            VectorData<float> gathered(channels * m, -2.0f), row(channels * m, -2.0f);
            std::vector<uint16_t> result(channels * m + 2, 0x5555);
            kernels::GatherThroughPlanarRowsRounded(axis, channels, pixels.data(), planar.data(),
                                                    gathered.data(), row.data(), dtype,
                                                    result.data() + 1);
            const std::string where = "source_w " + std::to_string(source_w) + " result_w " +
                                      std::to_string(m) + " C " + std::to_string(channels) +
                                      (bicubic ? " bicubic" : "") + " stride " +
                                      std::to_string(uniform.stride) + " " + DTypeName(dtype);
            ASSERT_EQ(result.front(), 0x5555) << where << " before the row";
            ASSERT_EQ(result.back(), 0x5555) << where << " past the row";
            for (int64_t e = 0; e < channels * m; ++e) {
              ASSERT_EQ(Bits16OrNaN(dtype, result[e + 1]), Bits16OrNaN(dtype, rounded[e]))
                  << where << " pixel " << e / channels << " channel " << e % channels;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(natural, 0);
  if (lanes > 1) EXPECT_GT(split, 0);  // one lane: the uniform forms need interiors of a vector
}

// The forward 256 -> 224 (bilinear and bicubic AA, the suite's cases 18 and 23) repeats every
// 7 results, which no power-of-two vector holds whole: one lane pattern per vector start, 7 of
// them on every target, each within two loads.
// The queue walks each row's lines in order, the last partial line of a row included, skips the
// bytes between rows, and empties over the blocks its quota is spread across.
TEST(LinePrefetchQueue, IssuesEveryLineOfEachQueuedRowOnce) {
  constexpr ptrdiff_t kStride = 1000;
  constexpr size_t kSpan = 130;  // three lines: two whole and one of 2 bytes
  static char rows[8 * kStride];
  kernels::LinePrefetchQueue queue(kStride, kSpan);
  EXPECT_EQ(queue.PendingLines(), 0u);
  EXPECT_EQ(queue.NextLine(), nullptr);
  queue.Append(rows + kStride, 2);
  queue.Append(rows + 3 * kStride, 1);  // continues the queued rows
  EXPECT_EQ(queue.PendingLines(), 9u);
  const std::vector<ptrdiff_t> expected_offsets = {1000, 1064, 1128, 2000, 2064,
                                                   2128, 3000, 3064, 3128};
  for (size_t line = 0; line < expected_offsets.size(); ++line) {
    ASSERT_EQ(queue.NextLine(), rows + expected_offsets[line]) << "line " << line;
    EXPECT_EQ(queue.PendingLines(), expected_offsets.size() - line);
    queue.Issue(1);
  }
  EXPECT_EQ(queue.NextLine(), nullptr);
  EXPECT_EQ(queue.PendingLines(), 0u);
  queue.Issue(5);  // nothing queued: nothing issued
  EXPECT_EQ(queue.NextLine(), nullptr);

  queue.Append(rows + 4 * kStride, 3);  // nine lines
  for (size_t blocks : {1, 2, 4, 8, 9, 10, 100}) {
    EXPECT_GE(queue.QuotaFor(blocks) * blocks, queue.PendingLines()) << blocks << " blocks";
    EXPECT_LT((queue.QuotaFor(blocks) - 1) * blocks, queue.PendingLines()) << blocks << " blocks";
  }
  EXPECT_EQ(queue.QuotaFor(0), 9u);  // no block to spread over: all at once
  queue.Issue(4);
  EXPECT_EQ(queue.NextLine(), rows + 5 * kStride + 64);
  queue.Append(rows + 7 * kStride, 1);
  EXPECT_EQ(queue.PendingLines(), 8u);
  queue.IssueAll();
  EXPECT_EQ(queue.PendingLines(), 0u);
  EXPECT_EQ(queue.NextLine(), nullptr);
}

// Whether rows of few taps are prefetched at once, which the CPU's tuning decides (kernels.h),
// for a test's scope.
ScopedTuning RowsAtOnce(bool prefetched) {
  return ScopedTuning(
      [&](kernels::KernelTuning& tuning) { tuning.prefetch_rows_at_once = prefetched; });
}

// The prefetcher queues the rows after each run's last, up to its distance, for the many-tap
// form to spread; a run that jumps past the queued rows drops them (the API fuzzer found the
// queue appending rows that did not continue it), and runs of few taps are prefetched at once.
TEST(SourcePrefetcher, QueuesTheRowsAheadAndStartsAgainAfterAJump) {
  const ScopedTuning at_once_prefetched = RowsAtOnce(true);
  constexpr ptrdiff_t kStride = 256;  // floats: 16 runs of 16 taps span 16 KiB
  constexpr size_t kLinesPerRow = kStride * sizeof(float) / kernels::LinePrefetchQueue::kLineBytes;
  std::vector<char> source(1017 * kStride * sizeof(float));
  const auto row_at = [&](size_t row) { return source.data() + row * kStride * sizeof(float); };
  std::vector<float> weights(48, 1.0f / 16);
  const std::vector<int32_t> first = {0, 1000, 1001};
  const std::vector<int32_t> weight_offset = {0, 16, 32, 48};
  const kernels::RowRuns runs{first.data(), weight_offset.data(), weights.data()};
  kernels::SourcePrefetcher prefetcher(runs, 0, 3, source.data(), kStride, sizeof(float), 0,
                                       kStride);
  // The distance is a result row's advance (501 rows on average) and one more.
  kernels::LinePrefetchQueue* queue = prefetcher.Ahead(0);  // rows 0-15
  ASSERT_NE(queue, nullptr);
  EXPECT_EQ(queue->NextLine(), row_at(16));
  EXPECT_EQ(queue->PendingLines(), (517 - 16 + 1) * kLinesPerRow);
  queue = prefetcher.Ahead(1);  // rows 1000-1015; rows 16-517 still queued: dropped
  ASSERT_NE(queue, nullptr);
  EXPECT_EQ(queue->NextLine(), row_at(1016));
  EXPECT_EQ(queue->PendingLines(), kLinesPerRow);
  queue = prefetcher.Ahead(2);  // rows 1001-1016: nothing left before the band's last row
  EXPECT_EQ(queue->PendingLines(), kLinesPerRow);
  EXPECT_EQ(prefetcher.issued_rows(), 0);  // spread: all queued, none issued at once

  const std::vector<int32_t> few_taps_offset = {0, 4, 8, 12};
  const kernels::RowRuns few_taps{first.data(), few_taps_offset.data(), weights.data()};
  kernels::SourcePrefetcher at_once(few_taps, 0, 3, source.data(), kStride, sizeof(float), 0,
                                    kStride);
  EXPECT_EQ(at_once.Ahead(0), nullptr);
}

// Runs of few taps are asked for at once, only the rows some run reads, and always the next
// result row's: a bilinear downscale by 4.46 (1000 -> 224 rows of 4000 bytes) reads 2 rows of
// every 4 or 5, and a distance counted in source rows had asked for the skipped ones alone.
TEST(SourcePrefetcher, AsksForTheNextRunsRowsAndNoRowThatNoRunReads) {
  const ScopedTuning at_once_prefetched = RowsAtOnce(true);
  const AxisRuns axis = AsGather(BuildBilinearAxis(AxisSpec{1000, 224, false, 0.0}));
  constexpr ptrdiff_t kStride = 1000;
  std::vector<char> source(1000 * kStride * sizeof(float));
  const kernels::RowRuns runs{axis.first.data(), axis.weight_offset.data(), axis.weights.data()};
  kernels::SourcePrefetcher prefetcher(runs, 0, 224, source.data(), kStride, sizeof(float), 0,
                                       kStride);
  std::vector<bool> read(1000, false);  // rows that some run reads
  for (int64_t i = 0; i < 224; ++i) {
    for (int32_t k = 0; k < axis.count(i); ++k) read[axis.first[i] + k] = true;
  }
  ASSERT_GT(std::count(read.begin(), read.end(), false), 500);  // the downscale skips rows
  // Rows are asked for in order, each once, and only rows some run reads (checked at the end),
  // so a count of them says which: after run i's call, through the last row run i + 1 reads.
  const int64_t first_run_last = axis.first[0] + axis.count(0) - 1;
  const auto read_rows_through = [&](int64_t last) {
    return std::count(read.begin() + first_run_last + 1, read.begin() + last + 1, true);
  };
  for (size_t i = 0; i < 224; ++i) {
    ASSERT_EQ(prefetcher.Ahead(i), nullptr);
    if (i + 1 < 224) {
      const int64_t next_last = axis.first[i + 1] + axis.count(i + 1) - 1;
      EXPECT_GE(prefetcher.issued_rows(), read_rows_through(next_last)) << "run " << i + 1;
    }
  }
  EXPECT_EQ(prefetcher.issued_rows(), read_rows_through(999));
}

// A row group's rows ahead (CombineRowGroupFrom's prefetch, RowGroupAhead): the shares of a
// group's result rows together ask for exactly the rows its runs read that earlier groups' runs
// do not, each once and in order. Where the runs skip rows (a 1024 -> 256 bilinear downscale
// reads 2 of every 4), no row that no run reads: one stretch from the group's first new row to
// its last had asked for the skipped rows too. Where they read every row (a 2x bicubic AA
// downscale), one stretch as before.
TEST(RowGroupAhead, AsksForTheGroupsNewRowsAndNoRowThatNoRunReads) {
  const AxisRuns skipping = AsGather(BuildBilinearAxis(AxisSpec{1024, 256, false, 0.0}));
  const AxisRuns dense = AsGather(BuildBicubicAAAxis(AxisSpec{512, 256, false, 0.0}));
  for (const AxisRuns* axis : {&skipping, &dense}) {
    const kernels::RowRuns runs{axis->first.data(), axis->weight_offset.data(),
                                axis->weights.data()};
    const auto result_rows = static_cast<size_t>(axis->result_size);
    const bool skips = kernels::RunsSkipRows(runs, 0, result_rows);
    ASSERT_EQ(skips, axis == &skipping);
    const auto last_of = [&](size_t i) {
      return axis->count(static_cast<int32_t>(i)) > 0
                 ? int64_t{axis->first[i]} + axis->count(static_cast<int32_t>(i)) - 1
                 : int64_t{-1};
    };
    for (const size_t group : {size_t{1}, size_t{3}, size_t{4}}) {
      int64_t read_before = -1;  // the last row the earlier groups' runs read
      int64_t unread_in_span = 0;
      for (size_t begin = 0; begin < result_rows; begin += group) {
        const size_t end = std::min(begin + group, result_rows);
        std::vector<int64_t> expected;
        for (size_t i = begin; i < end; ++i) {
          for (int32_t k = 0; k < axis->count(static_cast<int32_t>(i)); ++k) {
            const int64_t row = axis->first[i] + k;
            if (row > read_before && (expected.empty() || row > expected.back())) {
              expected.push_back(row);
            }
          }
        }
        if (!expected.empty()) {
          unread_in_span +=
              expected.back() - expected.front() + 1 - static_cast<int64_t>(expected.size());
        }
        const kernels::RowGroupAhead ahead(runs, begin, end, read_before, skips);
        std::vector<int64_t> asked;
        for (size_t r = 0; r < group; ++r) {
          ahead.ForShare(runs, r, group, [&](int64_t first, size_t rows) {
            for (size_t k = 0; k < rows; ++k) asked.push_back(first + static_cast<int64_t>(k));
          });
        }
        ASSERT_EQ(asked, expected) << "group of " << group << " from result row " << begin;
        for (size_t i = begin; i < end; ++i) read_before = std::max(read_before, last_of(i));
        EXPECT_EQ(ahead.last_row(), read_before);
      }
      // The downscale's groups do span unread rows (past one row a group, none for the dense).
      if (axis == &skipping && group > 1) EXPECT_GT(unread_in_span, 0);
      if (axis == &dense) EXPECT_EQ(unread_in_span, 0);
    }
  }
}

// The row group's chunk prefetch runs only over rows more than a page apart (in either
// direction), and never where the CPU's tuning turns it off.
TEST(RowGroupAhead, PrefetchesOnlyRowsMoreThanAPageApart) {
  for (const bool tuned_on : {false, true}) {
    const ScopedTuning tuning(
        [&](kernels::KernelTuning& t) { t.prefetch_row_group_chunks = tuned_on; });
    EXPECT_FALSE(kernels::PrefetchesRowGroupChunks(3 * 1024));
    EXPECT_FALSE(kernels::PrefetchesRowGroupChunks(kernels::kPageBytes));
    EXPECT_FALSE(kernels::PrefetchesRowGroupChunks(-kernels::kPageBytes));
    EXPECT_EQ(kernels::PrefetchesRowGroupChunks(kernels::kPageBytes + 2), tuned_on);
    EXPECT_EQ(kernels::PrefetchesRowGroupChunks(-6 * 1024), tuned_on);
  }
}

// Where the CPU's tuning asks for no rows at once (Intel), runs of few taps ask for none, with
// or without skipped rows, while runs of the many-tap form still queue theirs for spreading.
TEST(SourcePrefetcher, AsksForNoRowsOfFewTapsWhereTheTuningSaysSo) {
  const ScopedTuning none_at_once = RowsAtOnce(false);
  const AxisRuns downscale = AsGather(BuildBilinearAxis(AxisSpec{1000, 224, false, 0.0}));
  const AxisRuns upscale = AsGather(BuildBilinearAxis(AxisSpec{100, 224, false, 0.0}));
  constexpr ptrdiff_t kStride = 1000;
  std::vector<char> source(1000 * kStride * sizeof(float));
  for (const AxisRuns* axis : {&downscale, &upscale}) {
    const kernels::RowRuns runs{axis->first.data(), axis->weight_offset.data(),
                                axis->weights.data()};
    kernels::SourcePrefetcher prefetcher(runs, 0, 224, source.data(), kStride, sizeof(float), 0,
                                         kStride);
    for (size_t i = 0; i < 224; ++i) ASSERT_EQ(prefetcher.Ahead(i), nullptr) << "run " << i;
    EXPECT_EQ(prefetcher.issued_rows(), 0);
  }
  std::vector<float> weights(32, 1.0f / 16);
  const std::vector<int32_t> first = {0, 16};
  const std::vector<int32_t> weight_offset = {0, 16, 32};
  const kernels::RowRuns many_taps{first.data(), weight_offset.data(), weights.data()};
  kernels::SourcePrefetcher spread(many_taps, 0, 2, source.data(), kStride, sizeof(float), 0,
                                   kStride);
  const kernels::LinePrefetchQueue* queue = spread.Ahead(0);  // rows 0-15
  ASSERT_NE(queue, nullptr);
  EXPECT_EQ(queue->NextLine(), source.data() + 16 * kStride * sizeof(float));
}

// Where the CPU's tuning asks for no rows at once (Intel), rows read from memory are asked for
// all the same where KernelTuning::from_memory_at_once_bytes says so and a row is at most
// kFromMemoryAtOnceMaxRowBytes; from cache, wider rows, or that tuning at 0, none are. (Rows
// that runs skip show it: the prefetcher counts the rows it asks for run by run.)
TEST(SourcePrefetcher, AsksForRowsFromMemoryWhereTheTuningSaysSo) {
  const AxisRuns downscale = AsGather(BuildBilinearAxis(AxisSpec{1000, 224, false, 0.0}));
  const kernels::RowRuns runs{downscale.first.data(), downscale.weight_offset.data(),
                              downscale.weights.data()};
  const size_t narrow = kernels::kFromMemoryAtOnceMaxRowBytes / sizeof(float);
  std::vector<char> source(1000 * (narrow + 1) * sizeof(float));
  const auto issued = [&](size_t row_elements, kernels::SourceReads reads, size_t at_once) {
    const ScopedTuning tuning([&](kernels::KernelTuning& t) {
      t.prefetch_rows_at_once = false;
      t.from_memory_at_once_bytes = at_once;
    });
    kernels::SourcePrefetcher prefetcher(runs, 0, 224, source.data(),
                                         static_cast<ptrdiff_t>(row_elements), sizeof(float), 0,
                                         row_elements, reads);
    for (size_t i = 0; i < 224; ++i) EXPECT_EQ(prefetcher.Ahead(i), nullptr) << "run " << i;
    return prefetcher.issued_rows();
  };
  const auto memory = kernels::SourceReads::kFromMemory;
  EXPECT_GT(issued(narrow, memory, 4096), 0);
  EXPECT_EQ(issued(narrow, kernels::SourceReads::kFromCache, 4096), 0);
  EXPECT_EQ(issued(narrow + 1, memory, 4096), 0);
  EXPECT_EQ(issued(narrow, memory, 0), 0);
}

// Rows whose runs do not repeat (64 -> 127 and the like) run the periodic kernels from a table of
// one pattern per vector (FindRowTableInterior), bit for bit the exact runs: result lengths
// around every multiple of this target's lanes up to nine vectors and more, upsampled by about
// 2 and 4/3 and downsampled by 3/4, 9/4 and 7/2 (three and four loads a vector), bilinear and
// bicubic AA, as gathers (forward) and as transposed matrices (backward).
TEST_P(KernelsOnEveryTarget, GatherRowsRowTableIsBitIdenticalToExactRuns) {
  const int64_t lanes = TargetLanes();
  const bool power_of_two = (lanes & (lanes - 1)) == 0;
  int tables = 0, overhang_tables = 0, several_vector_tables = 0;
  std::vector<int> tables_with_loads(kernels::kMaxPeriodicLoads + 1, 0);
  for (int64_t length = 2 * lanes - 1; length <= SweepEnd(lanes) + 1; ++length) {
    for (const int64_t other : {length / 2 + 1, length * 3 / 4 + 1, length * 4 / 3 + 1,
                                length * 9 / 4 + 1, length * 7 / 2 + 1}) {
      for (bool bicubic : {false, true}) {
        for (bool transposed : {true, false}) {
          const AxisSpec spec = transposed ? AxisSpec{length, other} : AxisSpec{other, length};
          const ForwardAxis forward = bicubic ? BuildBicubicAAAxis(spec) : BuildBilinearAxis(spec);
          const AxisRuns exact = transposed ? Transpose(forward) : AsGather(forward);
          const PeriodicInterior table =
              FindRowTableInterior(exact, static_cast<int32_t>(lanes), kernels::kMaxPeriodicTaps, 1,
                                   size_t{1} << 20, kKernelReach);
          if (!power_of_two) {
            ASSERT_EQ(table.lanes, 0);
            continue;
          }
          if (table.lanes == 0) continue;
          const std::string where = "length " + std::to_string(length) + " from " +
                                    std::to_string(other) + (bicubic ? " bicubic" : " bilinear") +
                                    (transposed ? " transposed" : " gather");
          int32_t loads = 0;
          ExpectRowTableShape(table, lanes, exact.result_size, where, &loads);
          if (HasFatalFailure()) return;
          ++tables;
          if (table.overhang > 0) ++overhang_tables;
          ++tables_with_loads[loads];
          if (table.vectors >= 3) ++several_vector_tables;
          ExpectPeriodicRowsMatchExactRuns(exact, table, where);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
  if (!power_of_two) return;
  EXPECT_GT(tables, 0);
  EXPECT_GT(several_vector_tables, 0);
  for (int loads = 2; loads <= (lanes > 1 ? kernels::kMaxPeriodicLoads : 2); ++loads) {
    EXPECT_GT(tables_with_loads[loads], 0) << loads << " loads";
  }
  if (lanes > 1) EXPECT_GT(overhang_tables, 0);
}

// The gradient of a nearest downscale leaves the result columns that no output selected with
// empty runs: every other one at 2x (the even columns selected by legacy nearest, the odd ones by
// nearest-exact), three of four at 4x, about one in five at 256 -> 200 and three in five at
// 256 -> 100. Such axes have interiors: a period at 2x and 4x, whether or not the middle run is
// an empty one (whose first column says nothing of the shift), and row tables at the odd ratios,
// with lanes that sum nothing. Those lanes must come out +0 bit for bit as the exact runs, however
// their vector's other lanes meet NaN or Inf: each column of the source is poisoned in a row of
// its own. The same over RGB pixel rows.
TEST_P(KernelsOnEveryTarget, GatherRowsPeriodicInteriorsKeepEmptyRunsZero) {
  const int64_t lanes = TargetLanes();
  if ((lanes & (lanes - 1)) != 0) GTEST_SKIP() << "no periodic form for " << lanes << " lanes";
  int periods = 0, tables = 0, pixel_interiors = 0;
  for (int64_t length = 8 * lanes; length <= 8 * lanes + 8; ++length) {
    for (const bool exact_mode : {false, true}) {
      for (const int64_t sources : {length / 2, length / 4, length * 25 / 32, length * 100 / 256}) {
        const AxisSpec spec{length, sources};
        const AxisRuns exact =
            Transpose(exact_mode ? BuildNearestExactAxis(spec) : BuildNearestAxis(spec));
        const int64_t scale = length / sources;
        const bool integer_scale = sources * scale == length && (scale == 2 || scale == 4);
        const PeriodicInterior periodic = FindPeriodicInterior(
            exact, static_cast<int32_t>(lanes), kernels::kMaxPeriodicTaps, 1, 1, kKernelReach);
        const PeriodicInterior table =
            FindRowTableInterior(exact, static_cast<int32_t>(lanes), kernels::kMaxPeriodicTaps, 1,
                                 size_t{1} << 20, kKernelReach);
        const std::string where = std::string(exact_mode ? "nearest-exact " : "nearest ") +
                                  std::to_string(length) + " from " + std::to_string(sources);
        // Selected columns lie at most ceil(length / sources) apart, so vectors of that many
        // lanes or more each hold one (a vector with none has no base to load from).
        const bool every_vector_selects = lanes >= (length + sources - 1) / sources;
        if (integer_scale && every_vector_selects) {
          EXPECT_EQ(periodic.lanes, lanes) << where;
          EXPECT_EQ(periodic.period % scale, 0) << where;
        }
        if (every_vector_selects) EXPECT_EQ(table.lanes, lanes) << where;
        for (const PeriodicInterior* interior : {&periodic, &table}) {
          if (interior->lanes == 0) continue;
          ++(interior == &periodic ? periods : tables);
          const int64_t width = exact.source_size, rows = width;
          std::vector<float> src = Random(rows * width, 17);
          for (int64_t row = 0; row < rows; ++row) {
            src[row * width + row] = row % 2 == 0 ? NAN : -INFINITY;
          }
          ExpectInteriorRowsMatchExactRuns(
              exact, *interior, src, where + (interior == &periodic ? " period" : " row table"));
          if (HasFatalFailure()) return;
        }
        // The same axes over RGB pixel rows (channels-last images), where they are found there.
        const auto rgb = static_cast<int32_t>(3);
        const PeriodicInterior pixel_period = FindPeriodicInterior(
            exact, static_cast<int32_t>(lanes), kernels::kMaxPeriodicTaps, 1, rgb, kKernelReach);
        const PeriodicInterior pixel_table =
            FindRowTableInterior(exact, static_cast<int32_t>(lanes), kernels::kMaxPeriodicTaps, 1,
                                 size_t{1} << 20, kKernelReach, rgb);
        for (const PeriodicInterior* interior : {&pixel_period, &pixel_table}) {
          if (interior->lanes == 0) continue;
          ++pixel_interiors;
          ExpectPixelRowsMatchChannelRuns(exact, *interior, rgb, where + " RGB");
          if (HasFatalFailure()) return;
        }
      }
    }
  }
  if (lanes >= 2) EXPECT_GT(periods, 0);
  if (lanes >= 3) EXPECT_GT(tables, 0);
  if (lanes >= 3) EXPECT_GT(pixel_interiors, 0);
}

// On AVX-512 (kernels::PeriodicRowsInHalfVectors) the periodic kernel also runs vectors of 8
// results whose taps reach 64 columns, from three or four whole 16-float loads: bilinear
// downscales by 4.25 to 7.5, whose 16 results read past four loads. Periodic interiors (ratios
// 17/4, 9/2, 5, 7 and 15/2) and row tables (lengths around every multiple of 8 lanes, from
// 4.5 and 7 times as many columns) must equal the exact runs bit for bit, NaN and Inf included,
// and read nothing outside the rows. No other target has the form.
TEST_P(KernelsOnEveryTarget, GatherRowsPeriodicHalfVectorsAreBitIdenticalToExactRuns) {
  const int64_t lanes = TargetLanes();
  if (!kernels::PeriodicRowsInHalfVectors()) {
    EXPECT_LT(lanes, 16) << "every 16-lane x86 target has half vectors";
    return;
  }
  const auto half = static_cast<int32_t>(lanes / 2);
  const PeriodicReach reach{2 * kernels::kMaxPeriodicLoads, kernels::kMaxPeriodicTaps};
  std::vector<int> runs_with_loads(kernels::kMaxPeriodicLoads + 1, 0);
  int periodic_runs = 0, table_runs = 0, overhang_runs = 0, many_tap_runs = 0;
  const auto run = [&](const AxisRuns& exact, const PeriodicInterior& periodic,
                       const std::string& where) {
    if (periodic.lanes == 0) return;
    ASSERT_EQ(periodic.lanes, half) << where;
    const int32_t loads =
        kernels::PeriodicLoads(periodic.span, periodic.taps, static_cast<int32_t>(lanes));
    if (loads < 3) return;  // whole vectors reach these: the kernels carry no half form
    ++runs_with_loads[loads];
    if (periodic.overhang > 0) ++overhang_runs;
    if (periodic.taps > 4) ++many_tap_runs;
    ExpectPeriodicRowsMatchExactRuns(exact, periodic, where);
  };
  // Bilinear downscales by 4.25 to 7.5 (two taps), and the gradients of upscales by 3 to 3.75
  // (6 to 8 taps; at 3.75, 16 results read 68 columns and 8 read 33: half vectors of 8 taps).
  for (const auto& [ratio, transposed] : {std::pair{Ratio{4, 17}, false},
                                          {Ratio{2, 9}, false},
                                          {Ratio{1, 5}, false},
                                          {Ratio{1, 7}, false},
                                          {Ratio{2, 15}, false},
                                          {Ratio{1, 3}, true},
                                          {Ratio{2, 7}, true},
                                          {Ratio{4, 15}, true}}) {
    for (int64_t periods = 1; ratio.period * periods <= SweepEnd(lanes); ++periods) {
      const AxisRuns exact = RatioAxis(ratio, periods, /*bicubic=*/false, transposed);
      const PeriodicInterior periodic =
          FindPeriodicInterior(exact, half, kernels::kMaxPeriodicTaps, 1, /*channels=*/1, reach);
      if (periodic.lanes > 0) ++periodic_runs;
      run(exact, periodic,
          "ratio " + std::to_string(ratio.period) + "/" + std::to_string(ratio.shift) +
              " periods " + std::to_string(periods) + (transposed ? " transposed" : ""));
      if (HasFatalFailure()) return;
    }
  }
  for (int64_t length = 2 * half - 1; length <= SweepEnd(lanes) + 1; ++length) {
    for (const int64_t source : {length * 9 / 2 + 1, length * 7 - 3}) {
      const AxisRuns exact = AsGather(BuildBilinearAxis(AxisSpec{source, length}));
      const PeriodicInterior table =
          FindRowTableInterior(exact, half, kernels::kMaxPeriodicTaps, 1, size_t{1} << 20, reach);
      if (table.lanes > 0) ++table_runs;
      run(exact, table, "length " + std::to_string(length) + " from " + std::to_string(source));
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_GT(periodic_runs, 0);
  EXPECT_GT(table_runs, 0);
  EXPECT_GT(runs_with_loads[3], 0);
  EXPECT_GT(runs_with_loads[4], 0);
  EXPECT_GT(overhang_runs, 0);
  EXPECT_GT(many_tap_runs, 0);
}

TEST(RowTableInterior, NoneWhereTheTablesWouldNotFitOrTheTapsSpreadTooFar) {
  const AxisRuns upscale = AsGather(BuildBilinearAxis(AxisSpec{64, 127}));
  const PeriodicInterior table = FindRowTableInterior(upscale, 16, 8, 2, 12 * 1024);
  ASSERT_EQ(table.lanes, 16);
  EXPECT_EQ(table.begin, 0);  // every run of a bilinear upscale has one or two taps
  EXPECT_EQ(table.vectors, 7);
  EXPECT_EQ(table.overhang, 127 - 7 * 16);
  EXPECT_EQ(table.taps, 2);
  // 8 patterns x 2 taps x 16 lanes x 8 bytes = 2 KiB.
  EXPECT_EQ(FindRowTableInterior(upscale, 16, 8, 2, 2047).lanes, 0);
  EXPECT_EQ(FindRowTableInterior(upscale, 16, 8, 2, 2048).lanes, 16);
  EXPECT_EQ(FindRowTableInterior(upscale, 12, 8, 2, 1 << 20).lanes, 0);  // lanes by a mask
  EXPECT_EQ(FindRowTableInterior(upscale, 16, 8, 8, 1 << 20).lanes, 0);  // 7 whole vectors
  // A 3x bilinear downscale gathers 16 results from 48 source columns: past two vectors, so
  // only a reach of three or more loads for its two taps finds it.
  const AxisRuns downscale = AsGather(BuildBilinearAxis(AxisSpec{381, 127}));
  EXPECT_EQ(FindRowTableInterior(downscale, 16, 8, 1, 1 << 20).lanes, 0);
  EXPECT_EQ(FindRowTableInterior(downscale, 16, 8, 1, 1 << 20, PeriodicReach{4, 1}).lanes, 0);
  const PeriodicInterior wide =
      FindRowTableInterior(downscale, 16, 8, 1, 1 << 20, PeriodicReach{3, 2});
  ASSERT_EQ(wide.lanes, 16);
  EXPECT_EQ(wide.taps, 2);
  EXPECT_GT(wide.span, 32);
  EXPECT_LE(wide.span, 48);
  EXPECT_EQ(kernels::PeriodicLoads(wide.span, wide.taps, 16), 3);
  // The kernels carry no form past four loads, nor for more than eight taps.
  EXPECT_EQ(kernels::PeriodicLoads(65, 2, 16), 0);
  EXPECT_EQ(kernels::PeriodicLoads(33, 5, 16), 3);
  EXPECT_EQ(kernels::PeriodicLoads(64, 8, 16), 4);
  EXPECT_EQ(kernels::PeriodicLoads(32, 9, 16), 0);
}

TEST(PeriodicInterior, FoundForSevenEighthsWithAPatternPerStart) {
  for (bool bicubic : {false, true}) {
    const AxisSpec spec{256, 224, false, 0.0};
    const AxisRuns axis = AsGather(bicubic ? BuildBicubicAAAxis(spec) : BuildBilinearAxis(spec));
    for (int32_t lanes : {4, 8, 16}) {
      const PeriodicInterior periodic = FindPeriodicInterior(axis, lanes, 8, 2);
      ASSERT_EQ(periodic.lanes, lanes);
      EXPECT_EQ(periodic.period, 7);
      EXPECT_EQ(periodic.shift, 8);
      EXPECT_EQ(periodic.patterns, 7);
      EXPECT_LE(periodic.span, 2 * lanes);
      EXPECT_GE(int64_t{periodic.vectors} * lanes, 224 - 2 * lanes);
      // Seven vectors later the starts repeat, eight source columns per period further on.
      int32_t pattern = 0, advance = 0;
      for (int m = 0; m < 7; ++m) {
        advance += periodic.base_step[static_cast<size_t>(pattern)];
        pattern = periodic.next_pattern[static_cast<size_t>(pattern)];
      }
      EXPECT_EQ(pattern, 0);
      EXPECT_EQ(advance, lanes * 8);
    }
  }
}

// The suite's case 4 (bilinear 256 -> 224) repeats every 8 results over its whole length, with
// at most 2 taps in 7 source columns: one load per vector for AVX2 and AVX-512 lanes.
TEST(PeriodicInterior, FoundForEightSeventhsWhereThePeriodFitsTheLanes) {
  const AxisRuns axis = Transpose(BuildBilinearAxis(AxisSpec{256, 224, false, 0.0}));
  // 12 lanes (SVE allows any multiple of 4): none, the kernels find lanes with a mask.
  EXPECT_EQ(FindPeriodicInterior(axis, 12, 8, 2).lanes, 0);
  for (int32_t lanes : {8, 16}) {
    const PeriodicInterior periodic = FindPeriodicInterior(axis, lanes, 8, 2);
    EXPECT_EQ(periodic.lanes, lanes);
    EXPECT_EQ(periodic.period, 8);
    EXPECT_EQ(periodic.patterns, 1);
    EXPECT_EQ(periodic.base_step[0], 7 * lanes / 8);
    EXPECT_EQ(periodic.taps, 2);
    EXPECT_LE(periodic.span, lanes);
    EXPECT_GE(int64_t{periodic.vectors} * lanes, 256 - 2 * lanes);
  }
}

TEST_P(KernelsOnEveryTarget, GatherRowsExactRunsAgreeBitwiseWithCombineRows) {
  const RandomAxis axis = MakeRandomAxis(37, 50, 5);
  const std::vector<float> src = Random(50, 6);
  std::vector<float> dst(37);
  kernels::GatherRows(axis.View(false), 1, src.data(), 0, dst.data(), 0);
  for (int64_t i = 0; i < 37; ++i) {
    float via_combine;
    kernels::CombineRows(&via_combine, 1, src.data() + axis.exact.first[i], 1,
                         axis.exact.weights.data() + axis.exact.weight_offset[i],
                         axis.exact.count(i));
    ASSERT_EQ(FloatBits(dst[i]), FloatBits(via_combine)) << i;
  }
}

// A NaN or Inf reaches only the elements whose run includes it, also through the blocked
// form (whose dense windows hold zeros that must not multiply it, so it redoes such rows by
// their exact runs), over two whole blocks and a partial one of this target, and over rows in
// both of its row groups (8 rows, then 3).
TEST_P(KernelsOnEveryTarget, GatherRowsKeepsNonFiniteValuesInsideTheirRuns) {
  const int64_t lanes = TargetLanes();
  const int64_t length = 2 * lanes + 1, width = 2 * length + 4, rows = 11;
  const RandomAxis axis = MakeRandomAxis(length, width, 9);
  // A block of one element is its exact run: BlockAxis never blocks for one lane.
  ASSERT_EQ(axis.blocked.lanes, lanes > 1 ? lanes : 0);
  const auto poisoned = [](int64_t r) { return r == 1 || r == 6 || r == 9; };
  for (float poison : {NAN, INFINITY}) {
    for (int64_t at : {int64_t{0}, width / 4, width - 1}) {
      std::vector<float> src = Random(rows * width, 10);
      for (int64_t r = 0; r < rows; ++r) {
        if (poisoned(r)) src[r * width + at] = poison;
      }
      std::vector<float> dst(rows * length);
      kernels::GatherRows(axis.View(true), rows, src.data(), width, dst.data(), length);
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t i = 0; i < length; ++i) {
          const bool reaches = poisoned(r) && axis.exact.count(i) > 0 &&
                               axis.exact.first[i] <= at &&
                               at < axis.exact.first[i] + axis.exact.count(i);
          ASSERT_EQ(std::isfinite(dst[r * length + i]), !reaches) << "row " << r << " i " << i;
        }
      }
    }
  }
}

// The blocked form gives the exact runs' bits in blocks of the target's lanes, and on AVX-512 in
// blocks of 8 (half vectors, where the plan blocks a downscale's axis so on AMD:
// BlockedInHalfVectors, plan.cc); blocks of lanes the target has no form for fall back to the
// exact runs. Downscales by 1.5 to 8 (bilinear and bicubic AA, the axes that take the form) and
// random banded axes, around the widths of one and two blocks, over 1 to 11 rows (a whole group
// of 8 and a partial one), with a NaN in one row that only its runs' elements may see.
TEST_P(KernelsOnEveryTarget, GatherRowsBlockedFormIsBitIdenticalToExactRuns) {
  const int64_t lanes = TargetLanes();
  std::vector<int32_t> block_lanes = {static_cast<int32_t>(lanes)};
  if (lanes != 8) block_lanes.push_back(8);  // half vectors on AVX-512, else not a form
  std::map<int32_t, int> blocked_axes;
  for (int32_t block : block_lanes) {
    for (int64_t out_size = 1; out_size <= 2 * 16 + 3; ++out_size) {
      std::vector<AxisRuns> axes;
      for (const double factor : {1.5, 3.0, 8.0}) {
        const auto in_size = static_cast<int64_t>(static_cast<double>(out_size) * factor) + 1;
        const AxisSpec spec{out_size, in_size, false, 0.0};
        axes.push_back(Transpose(BuildBilinearAxis(spec)));
        axes.push_back(Transpose(BuildBicubicAAAxis(spec)));
      }
      axes.push_back(MakeRandomAxis(out_size, 3 * out_size + 2, 700 + out_size).exact);
      for (const AxisRuns& exact : axes) {
        const BlockedAxis blocked = BlockAxis(exact, block, 1 << 20);
        if (blocked.lanes == 0) continue;
        ++blocked_axes[block];
        const kernels::GatherAxis view = MakeGatherAxis(exact, nullptr, nullptr);
        const kernels::GatherAxis blocks = MakeGatherAxis(exact, nullptr, &blocked);
        const auto width = static_cast<size_t>(exact.source_size);
        const auto length = static_cast<size_t>(exact.result_size);
        for (size_t rows : {1, 8, 11}) {
          std::vector<float> src = Random(rows * width, 60 + static_cast<uint32_t>(rows));
          if (rows > 1) src[width + width / 2] = NAN;  // row 1
          std::vector<float> expected(rows * length), actual(rows * length + 1, 777.0f);
          kernels::GatherRows(view, rows, src.data(), static_cast<ptrdiff_t>(width),
                              expected.data(), static_cast<ptrdiff_t>(length));
          kernels::GatherRows(blocks, rows, src.data(), static_cast<ptrdiff_t>(width),
                              actual.data(), static_cast<ptrdiff_t>(length));
          for (size_t j = 0; j < rows * length; ++j) {
            ASSERT_EQ(FloatBits(actual[j]), FloatBits(expected[j]))
                << "blocks of " << block << " in " << exact.source_size << " out "
                << exact.result_size << " rows " << rows << " row " << j / length << " i "
                << j % length;
          }
          ASSERT_EQ(actual[rows * length], 777.0f) << "wrote past the rows";
        }
      }
    }
  }
  // One lane never blocks (a block of one element is its exact run).
  if (lanes > 1) EXPECT_GT(blocked_axes[static_cast<int32_t>(lanes)], 0);
  EXPECT_GT(blocked_axes[8], 0);
}

// The gathered form gives the exact runs' bits: bilinear downscales by non-integer factors past
// two (forward and align_corners, the axes that take it), random runs of 1 to 5 taps, and a
// hand-made axis with empty runs and runs of up to 8 taps, each around one and two vectors of
// the target (shorter rows end by the exact runs, longer ones in a vector overlapping the one
// before), over 1, 3 and 8 rows with a NaN and an Inf that only their runs' elements may see.
TEST_P(KernelsOnEveryTarget, GatherRowsGatheredFormIsBitIdenticalToExactRuns) {
  const int64_t lanes = TargetLanes();
  int gathered_axes = 0;
  for (int64_t length = 1; length <= 2 * lanes + 3; ++length) {
    std::vector<AxisRuns> axes;
    for (const double factor : {2.23, 3.57}) {
      const auto source = static_cast<int64_t>(static_cast<double>(length) * factor) + 1;
      axes.push_back(AsGather(BuildBilinearAxis(AxisSpec{source, length, false, 0.0})));
      axes.push_back(AsGather(BuildBilinearAxis(AxisSpec{source, length, true, 0.0})));
    }
    axes.push_back(MakeRandomAxis(length, 3 * length + 2, 800 + length).exact);
    AxisRuns hand_made;
    hand_made.result_size = static_cast<int32_t>(length);
    hand_made.source_size = static_cast<int32_t>(4 * length + 8);
    hand_made.weight_offset.push_back(0);
    for (int64_t i = 0; i < length; ++i) {
      const int32_t count = i % 5 == 3 ? 0 : static_cast<int32_t>(1 + i % 8);
      hand_made.first.push_back(count > 0 ? static_cast<int32_t>(4 * i) : 0);
      for (int32_t k = 0; k < count; ++k) {
        hand_made.weights.push_back(0.25f + 0.125f * static_cast<float>(k));
      }
      hand_made.weight_offset.push_back(static_cast<int32_t>(hand_made.weights.size()));
      hand_made.max_count = std::max(hand_made.max_count, count);
    }
    axes.push_back(hand_made);
    for (const AxisRuns& exact : axes) {
      const TapTable taps = MakeTapTable(exact, 32, 1 << 20);  // the kernel takes any count
      ASSERT_GT(taps.taps, 0);
      ++gathered_axes;
      const kernels::GatherAxis view = MakeGatherAxis(exact, nullptr, nullptr);
      const kernels::GatherAxis gathered = MakeGatherAxis(exact, nullptr, nullptr, nullptr, &taps);
      const auto width = static_cast<size_t>(exact.source_size);
      const auto n = static_cast<size_t>(exact.result_size);
      for (size_t rows : {1, 3, 8}) {
        std::vector<float> src = Random(rows * width, 90 + static_cast<uint32_t>(rows));
        src[(rows - 1) * width + width / 3] = NAN;
        src[width - 1] = INFINITY;
        std::vector<float> expected(rows * n), actual(rows * n + 1, 777.0f);
        kernels::GatherRows(view, rows, src.data(), static_cast<ptrdiff_t>(width), expected.data(),
                            static_cast<ptrdiff_t>(n));
        kernels::GatherRows(gathered, rows, src.data(), static_cast<ptrdiff_t>(width),
                            actual.data(), static_cast<ptrdiff_t>(n));
        for (size_t j = 0; j < rows * n; ++j) {
          ASSERT_EQ(FloatBits(actual[j]), FloatBits(expected[j]))
              << "in " << width << " out " << n << " rows " << rows << " row " << j / n << " i "
              << j % n;
        }
        ASSERT_EQ(actual[rows * n], 777.0f) << "wrote past the rows";
      }
    }
  }
  EXPECT_GT(gathered_axes, 0);
}

// A single row's stride may be anything (an axis of size 1 in a view: fuzz/regressions bug3),
// and the blocked form must not do arithmetic on it that overflows (UndefinedBehaviorSanitizer,
// in CI's sanitizer stage, stops at it): the row gathers as with any other stride.
TEST_P(KernelsOnEveryTarget, GatherRowsTakesAnyStrideForASingleRow) {
  const int64_t lanes = TargetLanes();
  const int64_t length = 2 * lanes + 1, width = 2 * length + 4;
  const RandomAxis axis = MakeRandomAxis(length, width, 12);
  const std::vector<float> src = Random(width, 13);
  std::vector<float> expected(length), actual(length);
  kernels::GatherRows(axis.View(true), 1, src.data(), width, expected.data(), length);
  constexpr ptrdiff_t kHugeStride = ptrdiff_t{1} << 62;
  kernels::GatherRows(axis.View(true), 1, src.data(), kHugeStride, actual.data(), kHugeStride);
  for (int64_t i = 0; i < length; ++i) {
    ASSERT_EQ(FloatBits(actual[i]), FloatBits(expected[i])) << i;
  }
}

// The fused planar H-first group: each result row has the bits of CombineRowsFrom into a float
// row and GatherRows over it, whatever layout the kernel picks for its scratch rows (natural,
// or split by column phase for uniform strides 2 and 4) and whichever W form it runs, for every
// dtype, every row range (so partial groups too), NaN and Inf included, and never writing past
// a result row.

struct FusedCase {
  AxisRuns height;
  AxisRuns width;
  UniformInterior uniform;
  BlockedAxis blocked;
  PeriodicInterior periodic;
};

// CombineThenGatherRows through a row group in scratch (RowGroupResult::staging), the result in
// the source's dtype read from memory: rows back to back and padded, cached and streamed (from a
// cache line on), and columns two apart. Each element must be StoreFromFloat's of `expected`'s,
// and the padding untouched.
void CheckStagedRowGroups(const kernels::RowRuns& runs, int64_t begin, int64_t end, size_t group,
                          DType dtype, const void* band, ptrdiff_t src_stride, int64_t row0,
                          const kernels::GatherAxis& gather, float* scratch,
                          const std::vector<float>& expected, int64_t in_w,
                          const std::string& label) {
  struct Layout {
    ptrdiff_t row_pad, column_stride;
    kernels::ResultStores stores;
  };
  const size_t elem = DTypeSize(dtype);
  std::vector<float> staging(group * static_cast<size_t>(in_w));
  for (const Layout& layout : {Layout{0, 1, kernels::ResultStores::kCached},
                               Layout{0, 1, kernels::ResultStores::kStreamed},
                               Layout{5, 1, kernels::ResultStores::kStreamed},
                               Layout{3, 2, kernels::ResultStores::kCached}}) {
    const ptrdiff_t dst_stride = in_w * layout.column_stride + layout.row_pad;
    const size_t bytes = static_cast<size_t>((end - begin) * dst_stride) * elem;
    std::vector<uint8_t> storage(bytes + kernels::kCacheLineBytes, 0xAB);
    uint8_t* const dst = storage.data() + ElementsToLine(storage.data(), 1);
    std::vector<uint8_t> want(bytes, 0xAB);
    for (int64_t i = begin; i < end; ++i) {
      kernels::StoreFromFloat(dtype, expected.data() + i * in_w, static_cast<size_t>(in_w),
                              want.data() + static_cast<size_t>((i - begin) * dst_stride) * elem,
                              layout.column_stride);
    }
    kernels::CombineThenGatherRows(runs, static_cast<size_t>(begin), static_cast<size_t>(end),
                                   group, dtype, band, src_stride, row0,
                                   kernels::SourceReads::kFromMemory, gather, scratch,
                                   kernels::RowGroupResult{dst, dst_stride, layout.column_stride,
                                                           dtype, staging.data(), layout.stores});
    kernels::FlushStreamedStores();
    // A NaN's payload is left open: every NaN element is compared as one value (BitsOrNaN,
    // Bits16OrNaN), every other byte as it is.
    const auto one_nan = [&](uint8_t* buffer) {
      for (int64_t r = 0; r < end - begin; ++r) {
        for (int64_t j = 0; j < in_w; ++j) {
          uint8_t* const at =
              buffer + static_cast<size_t>(r * dst_stride + j * layout.column_stride) * elem;
          if (dtype == DType::kFloat32) {
            float value;
            std::memcpy(&value, at, sizeof(value));
            const uint32_t bits = BitsOrNaN(value);
            std::memcpy(at, &bits, sizeof(bits));
          } else {
            uint16_t bits;
            std::memcpy(&bits, at, sizeof(bits));
            bits = Bits16OrNaN(dtype, bits);
            std::memcpy(at, &bits, sizeof(bits));
          }
        }
      }
    };
    one_nan(dst);
    one_nan(want.data());
    ASSERT_EQ(std::memcmp(dst, want.data(), bytes), 0)
        << label << " " << DTypeName(dtype) << " staged, groups of " << group << " rows [" << begin
        << ", " << end << "), row pad " << layout.row_pad << ", column stride "
        << layout.column_stride
        << (layout.stores == kernels::ResultStores::kStreamed ? ", streamed" : "");
  }
}

// `src_stride`: elements between source rows; 0 gives rows with padding between them.
void CheckCombineThenGatherMatchesTwoPasses(const FusedCase& c, DType dtype, uint32_t seed,
                                            const std::string& label, ptrdiff_t src_stride = 0) {
  const int64_t out_h = c.height.source_size, out_w = c.width.source_size;
  const int64_t in_h = c.height.result_size, in_w = c.width.result_size;
  if (src_stride == 0) src_stride = out_w + 3;
  std::mt19937 rng(seed);
  // 16-bit rows from a cache line on, as the engine's tensors lie (aclrtMalloc), so that rows a
  // whole number of vectors apart take the forms that want whole-vector loads (float16 pairs on
  // AVX-512); float32 rows keep std::vector's alignment, which is off a 64-byte vector's.
  const auto elements = static_cast<size_t>(out_h * src_stride);
  std::vector<uint16_t> halves_storage(elements + kernels::kCacheLineBytes / sizeof(uint16_t));
  uint16_t* const halves =
      halves_storage.data() + ElementsToLine(halves_storage.data(), sizeof(uint16_t));
  std::vector<float> floats(elements);
  for (size_t i = 0; i < floats.size(); ++i) {
    float v = std::normal_distribution<float>()(rng);
    if (i % 97 == 5) v = NAN;
    if (i % 131 == 7) v = -INFINITY;
    halves[i] = dtype == DType::kFloat16 ? FloatToFloat16(v) : FloatToBFloat16(v);
    floats[i] = dtype == DType::kFloat32   ? v
                : dtype == DType::kFloat16 ? Float16ToFloat(halves[i])
                                           : BFloat16ToFloat(halves[i]);
  }
  const void* source = dtype == DType::kFloat32 ? static_cast<const void*>(floats.data())
                                                : static_cast<const void*>(halves);
  const kernels::GatherAxis gather = MakeGatherAxis(c.width, &c.uniform, &c.blocked, &c.periodic);
  const kernels::RowRuns runs{c.height.first.data(), c.height.weight_offset.data(),
                              c.height.weights.data()};
  // The two passes, one row at a time, as the reference.
  std::vector<float> expected(static_cast<size_t>(in_h * in_w));
  std::vector<float> row(static_cast<size_t>(out_w));
  for (int64_t i = 0; i < in_h; ++i) {
    const int32_t count = c.height.count(i);
    const int64_t first = count > 0 ? c.height.first[i] : 0;
    const char* src_row = static_cast<const char*>(source) +
                          first * src_stride * static_cast<int64_t>(DTypeSize(dtype));
    kernels::CombineRowsFrom(dtype, row.data(), row.size(), src_row, src_stride,
                             c.height.weights.data() + c.height.weight_offset[i], count);
    kernels::GatherRows(gather, 1, row.data(), 0, expected.data() + i * in_w, 0);
  }
  const ptrdiff_t dst_stride = in_w + 2;
  std::vector<float> scratch(kernels::kMaxRowGroup * kernels::GroupRowFloats(out_w));
  // Groups of any size give the same bits: the plan's smallest and largest, and sizes that cut
  // a band into several groups with a partial last one.
  for (const size_t group : {size_t{3}, kernels::kMinRowGroup, kernels::kMaxRowGroup})
    for (int64_t begin : {int64_t{0}, in_h / 3}) {
      for (int64_t end : {in_h, begin + (in_h - begin) / 2 + 1}) {
        if (end > in_h || end <= begin) continue;
        // Source rows from a band's first row on, as the engine passes them.
        int64_t row0 = out_h;
        for (int64_t i = begin; i < end; ++i) {
          if (c.height.count(i) > 0) row0 = std::min<int64_t>(row0, c.height.first[i]);
        }
        if (row0 == out_h) row0 = 0;
        const char* band = static_cast<const char*>(source) +
                           row0 * src_stride * static_cast<int64_t>(DTypeSize(dtype));
        std::vector<float> dst(static_cast<size_t>((end - begin) * dst_stride), 777.0f);
        kernels::CombineThenGatherRows(runs, static_cast<size_t>(begin), static_cast<size_t>(end),
                                       group, dtype, band, src_stride, row0,
                                       kernels::SourceReads::kFromCache, gather, scratch.data(),
                                       kernels::RowGroupResult{dst.data(), dst_stride});
        for (int64_t i = begin; i < end; ++i) {
          for (int64_t j = 0; j < in_w; ++j) {
            ASSERT_EQ(BitsOrNaN(dst[(i - begin) * dst_stride + j]),
                      BitsOrNaN(expected[i * in_w + j]))
                << label << " " << DTypeName(dtype) << " groups of " << group << " rows [" << begin
                << ", " << end << ") row " << i << " column " << j;
          }
          ASSERT_EQ(dst[(i - begin) * dst_stride + in_w], 777.0f) << label << " wrote past a row";
        }
        CheckStagedRowGroups(runs, begin, end, group, dtype, band, src_stride, row0, gather,
                             scratch.data(), expected, in_w, label);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
}

TEST_P(KernelsOnEveryTarget, CombineThenGatherRowsMatchesTheTwoPassesBitwise) {
  const int64_t lanes = TargetLanes();
  const std::vector<int64_t> widths = LengthsAroundVectors(lanes);
  // Uniform cases per stride whose interior runs as vectors: strides 2 and 4 through the split
  // layout, 1 and 3 through natural rows.
  int vector_cases[kernels::kMaxUniformStride + 1] = {};
  // Integer factors 1..4 of both operators, uniform interiors found as the plan finds them (at
  // least MinUniformInteriorLength long), over widths around 1, 2, 4 and 8 vectors.
  for (int factor = 1; factor <= 4; ++factor) {
    for (int64_t in_w : widths) {
      for (bool bicubic : {false, true}) {
        const AxisSpec w_spec{in_w, in_w * factor, false, 0.0};
        const AxisSpec h_spec{13, 13 * factor, false, 0.0};
        FusedCase c;
        c.width = Transpose(bicubic ? BuildBicubicAAAxis(w_spec) : BuildBilinearAxis(w_spec));
        c.height = Transpose(bicubic ? BuildBicubicAAAxis(h_spec) : BuildBilinearAxis(h_spec));
        c.uniform = FindUniformInterior(c.width, MinUniformInteriorLength(lanes),
                                        kernels::kMaxUniformStride, kernels::kMaxUniformTaps);
        if (c.uniform.stride > 0 &&
            UniformVectorElements(c.uniform, c.width.source_size) >= lanes) {
          ++vector_cases[c.uniform.stride];
        }
        for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
          CheckCombineThenGatherMatchesTwoPasses(
              c, dtype, static_cast<uint32_t>(in_w * 10 + factor),
              std::string(bicubic ? "bicubic" : "bilinear") + " x" + std::to_string(factor) +
                  " in_w " + std::to_string(in_w));
        }
      }
    }
  }
  for (int stride = 1; stride <= kernels::kMaxUniformStride; ++stride) {
    EXPECT_GT(vector_cases[stride], 0) << "stride " << stride << " never ran as vectors";
  }
  // The H runs of a 2x gradient (4 taps, 2 rows apart) and a 1.5x one (3 taps, 1-2 apart) go in
  // pairs (CombineGroupAs) into rows split by 4 phases (W by 4) and by 2, and natural rows.
  for (const int w_factor : {4, 2, 1}) {
    for (const int64_t h_out : {26, 20}) {
      for (int64_t in_w : widths) {
        const AxisSpec w_spec{in_w, in_w * w_factor, false, 0.0};
        FusedCase c;
        c.width = Transpose(BuildBilinearAxis(w_spec));
        c.height = Transpose(BuildBilinearAxis(AxisSpec{13, h_out, false, 0.0}));
        c.uniform = FindUniformInterior(c.width, MinUniformInteriorLength(lanes),
                                        kernels::kMaxUniformStride, kernels::kMaxUniformTaps);
        for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
          CheckCombineThenGatherMatchesTwoPasses(
              c, dtype, static_cast<uint32_t>(in_w * 10 + w_factor + h_out),
              "bilinear W x" + std::to_string(w_factor) + " H 13 -> " + std::to_string(h_out) +
                  " in_w " + std::to_string(in_w));
        }
      }
    }
  }
  // Rational ratios: the periodic form behind the same entry point, over widths of whole
  // periods around 2, 4 and 8 vectors. The kernels find a tap's lane with a mask, so only
  // power-of-two lanes have the form.
  const bool power_of_two = (lanes & (lanes - 1)) == 0;
  int periodic_cases = 0;
  for (const int64_t period : {int64_t{8}, int64_t{4}, int64_t{2}}) {
    const int64_t shift = period == 8 ? 7 : period == 4 ? 3 : 1;  // 8/7, 4/3, downsampling by 2
    for (int64_t vectors : {2, 4, 8}) {
      const int64_t in_w = (vectors * lanes + period - 1) / period * period + period;
      FusedCase c;
      c.width = Transpose(BuildBilinearAxis(AxisSpec{in_w, in_w / period * shift, false, 0.0}));
      c.height = Transpose(BuildBilinearAxis(AxisSpec{11, 16, false, 0.0}));
      c.periodic =
          FindPeriodicInterior(c.width, static_cast<int32_t>(lanes), kernels::kMaxPeriodicTaps, 1);
      if (c.periodic.lanes > 0) ++periodic_cases;
      if (!power_of_two) ASSERT_EQ(c.periodic.lanes, 0);
      for (DType dtype : {DType::kFloat32, DType::kBFloat16}) {
        CheckCombineThenGatherMatchesTwoPasses(c, dtype, static_cast<uint32_t>(in_w + period),
                                               "periodic " + std::to_string(period) + "/" +
                                                   std::to_string(shift) + " in_w " +
                                                   std::to_string(in_w));
      }
    }
  }
  // Power-of-two lanes (every x86 and portable target) have the form; one lane with period 1,
  // from the stretches where runs repeat with a constant shift.
  if (power_of_two) EXPECT_GT(periodic_cases, 0);
  // Random banded axes: the blocked and exact W forms behind the same entry point.
  int blocked_cases = 0;
  for (int64_t in_w : widths) {
    for (bool use_blocks : {false, true}) {
      const RandomAxis width = MakeRandomAxis(in_w, 2 * in_w + 3, 300 + in_w);
      // A block of one element is its exact run: BlockAxis never blocks for one lane.
      if (lanes == 1) ASSERT_EQ(width.blocked.lanes, 0);
      FusedCase c;
      c.width = width.exact;
      if (use_blocks) c.blocked = width.blocked;
      if (c.blocked.lanes == lanes) ++blocked_cases;
      c.height = MakeRandomAxis(11, 25, 400 + in_w).exact;
      for (DType dtype : {DType::kFloat32, DType::kBFloat16}) {
        CheckCombineThenGatherMatchesTwoPasses(c, dtype, static_cast<uint32_t>(in_w),
                                               "random in_w " + std::to_string(in_w));
      }
    }
  }
  if (lanes > 1) EXPECT_GT(blocked_cases, 0);
  // Bicubic AA H runs over a 2x bilinear gradient's W pass (a uniform interior of stride 2: H-pass
  // rows split by phase, in bfloat16 by that form's own loop).
  const auto split_rows_case = [&](const AxisSpec& w_spec, const AxisSpec& h_spec) {
    FusedCase c;
    c.width = Transpose(BuildBilinearAxis(w_spec));
    c.height = Transpose(BuildBicubicAAAxis(h_spec));
    c.uniform = FindUniformInterior(c.width, MinUniformInteriorLength(lanes),
                                    kernels::kMaxUniformStride, kernels::kMaxUniformTaps);
    return c;
  };
  // Runs of 29-32 rows, far enough apart for Combine's many-tap form (the H pass of an 8x
  // upscale's gradient, rows of 303 elements): the queued prefetches are issued between column
  // blocks, and the two passes it is checked against prefetch nothing.
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    const FusedCase c =
        split_rows_case(AxisSpec{150, 300, false, 0.0}, AxisSpec{8, 64, false, 0.0});
    if (lanes > 1) ASSERT_EQ(c.uniform.stride, 2);
    int32_t most_taps = 0;
    for (int64_t i = 0; i < c.height.result_size; ++i) {
      most_taps = std::max(most_taps, c.height.count(i));
    }
    ASSERT_GE(most_taps, 16) << "the case no longer has many taps";
    CheckCombineThenGatherMatchesTwoPasses(c, dtype, 77, "many taps");
  }
  // bfloat16 rows wider than 2 KiB pair their many-tap runs only where the rows lie a whole
  // number of 4 KiB apart (PairsManyTapRows): 2080 columns (past the 2 KiB line, and not a whole
  // number of column blocks) 8 KiB apart, against the same rows 3 elements further apart, which
  // go alone. float16 rows pair at any width (but on AVX2), and on AVX-512 only where they start
  // on whole vectors: the first stride, not the second. A 4x bicubic AA downscale's runs: 16 taps,
  // 4 rows apart.
  {
    const FusedCase c =
        split_rows_case(AxisSpec{1040, 2080, false, 0.0}, AxisSpec{12, 48, false, 0.0});
    if (lanes > 1) ASSERT_EQ(c.uniform.stride, 2);
    for (DType dtype : {DType::kFloat16, DType::kBFloat16}) {
      for (const ptrdiff_t stride : {ptrdiff_t{4096}, ptrdiff_t{2083}}) {
        CheckCombineThenGatherMatchesTwoPasses(
            c, dtype, 78, "wide rows " + std::to_string(stride) + " apart", stride);
      }
    }
  }
}

// Pixels of one and two whole vectors (GatherWholeVectorPixels: the plane groups' 16 channels)
// with runs of every length from 0 to 12, each pixel bitwise what CombineRows makes of its run
// (the random axes of the other tests have runs of 6 to 13 taps only).
TEST_P(KernelsOnEveryTarget, WholeVectorPixelsOfEveryTapCount) {
  constexpr int32_t kMostTaps = 12;
  constexpr int32_t kSourcePixels = 20;
  AxisRuns runs;
  runs.result_size = kMostTaps + 1;
  runs.source_size = kSourcePixels;
  runs.max_count = kMostTaps;
  std::mt19937 rng(5);
  runs.weight_offset.push_back(0);
  for (int32_t count = 0; count <= kMostTaps; ++count) {
    runs.first.push_back(static_cast<int32_t>(rng() % (kSourcePixels - count + 1)));
    for (int32_t k = 0; k < count; ++k) {
      runs.weights.push_back(std::normal_distribution<float>()(rng));
    }
    runs.weight_offset.push_back(static_cast<int32_t>(runs.weights.size()));
  }
  for (const int64_t vectors : {1, 2}) {
    const auto channels = static_cast<size_t>(vectors * TargetLanes());
    const std::vector<float> src = Random(kSourcePixels * channels, 9);
    std::vector<float> dst(runs.result_size * channels), expected(channels);
    kernels::GatherPixels(MakeGatherAxis(runs, nullptr, nullptr), channels, src.data(),
                          static_cast<ptrdiff_t>(channels), dst.data(),
                          static_cast<ptrdiff_t>(channels), kernels::ResultStores::kCached);
    for (int32_t i = 0; i < runs.result_size; ++i) {
      kernels::CombineRows(expected.data(), channels, src.data() + runs.first[i] * channels,
                           static_cast<ptrdiff_t>(channels),
                           runs.weights.data() + runs.weight_offset[i], runs.count(i));
      for (size_t ch = 0; ch < channels; ++ch) {
        ASSERT_EQ(FloatBits(dst[i * channels + ch]), FloatBits(expected[ch]))
            << runs.count(i) << " taps, channel " << ch << " of " << channels;
      }
    }
  }
}

// GatherPixelBand: each pixel of each row of a band bitwise what CombineRows makes of its run in
// that row, for bands of 1 to 9 rows (four at a time and the rest), runs of every length from 0
// to 12, pixels of one and two whole vectors (a pixel at a time down the rows) and of channel
// counts around them (a row at a time), rows and pixels apart with gaps that stay untouched.
TEST_P(KernelsOnEveryTarget, PixelBandMatchesCombineRowsPerPixelAndRow) {
  constexpr int32_t kMostTaps = 12;
  constexpr int32_t kSourcePixels = 20;
  constexpr float kUntouched = 555.0f;
  AxisRuns runs;
  runs.result_size = 2 * (kMostTaps + 1);
  runs.source_size = kSourcePixels;
  runs.max_count = kMostTaps;
  std::mt19937 rng(17);
  runs.weight_offset.push_back(0);
  for (int64_t i = 0; i < runs.result_size; ++i) {
    const auto count = static_cast<int32_t>(i % (kMostTaps + 1));
    runs.first.push_back(static_cast<int32_t>(rng() % (kSourcePixels - count + 1)));
    for (int32_t k = 0; k < count; ++k) {
      runs.weights.push_back(std::normal_distribution<float>()(rng));
    }
    runs.weight_offset.push_back(static_cast<int32_t>(runs.weights.size()));
  }
  const kernels::GatherAxis axis = MakeGatherAxis(runs, nullptr, nullptr);
  const int64_t lanes = TargetLanes();
  std::vector<int64_t> channel_counts = {lanes, 2 * lanes, lanes + 1, 3 * lanes};
  if (lanes > 1) channel_counts.push_back(lanes - 1);
  for (const int64_t count : channel_counts) {
    const auto channels = static_cast<size_t>(count);
    for (const size_t gap : {size_t{0}, size_t{3}}) {
      const auto src_pixel_stride = static_cast<ptrdiff_t>(channels + gap);
      const ptrdiff_t src_row_stride = kSourcePixels * src_pixel_stride + 5;
      const auto dst_pixel_stride = static_cast<ptrdiff_t>(channels + gap);
      const ptrdiff_t dst_row_stride = runs.result_size * dst_pixel_stride + 7;
      for (const size_t rows : {1, 2, 3, 4, 5, 9}) {
        const std::vector<float> src = Random(rows * src_row_stride, 23);
        std::vector<float> dst(rows * dst_row_stride, kUntouched), expected(channels);
        kernels::GatherPixelBand(axis, channels, rows, src.data(), src_pixel_stride, src_row_stride,
                                 dst.data(), dst_pixel_stride, dst_row_stride);
        std::vector<bool> written(dst.size(), false);
        for (size_t r = 0; r < rows; ++r) {
          const float* const src_row = src.data() + r * src_row_stride;
          for (int64_t i = 0; i < runs.result_size; ++i) {
            kernels::CombineRows(expected.data(), channels,
                                 src_row + runs.first[i] * src_pixel_stride, src_pixel_stride,
                                 runs.weights.data() + runs.weight_offset[i], runs.count(i));
            const size_t at = r * dst_row_stride + i * dst_pixel_stride;
            for (size_t ch = 0; ch < channels; ++ch) {
              ASSERT_EQ(FloatBits(dst[at + ch]), FloatBits(expected[ch]))
                  << "row " << r << " of " << rows << ", pixel " << i << " (" << runs.count(i)
                  << " taps), channel " << ch << " of " << channels << ", gap " << gap;
              written[at + ch] = true;
            }
          }
        }
        for (size_t e = 0; e < dst.size(); ++e) {
          if (!written[e]) ASSERT_EQ(dst[e], kUntouched) << "element " << e << " outside pixels";
        }
      }
    }
  }
}

// Streamed stores give the cached stores' bits wherever they are taken: aligned whole-vector
// pixels (streamed), a misaligned row and channel counts that are not whole vectors (cached).
// Pixels of one to four vectors that are not whole vectors end in a vector overlapping the one
// before it, so pixels also lie apart, with gaps that must stay untouched; the channel counts
// include three whole vectors, the widest that form streams, and one below four, and pixels of
// half a vector to just under one and of 3, 5 and 17 half vectors (on AVX-512, pixels of 8-31
// float32 channels that are not whole vectors, and of any odd number of half vectors, run in
// half vectors).
TEST_P(KernelsOnEveryTarget, CombinePixelRunsMatchesCombineRowsPerPixel) {
  const RandomAxis axis = MakeRandomAxis(19, 41, 12);
  constexpr float kUntouched = 555.0f;
  std::vector<int64_t> lengths = LengthsAroundVectors(TargetLanes());
  lengths.push_back(3 * TargetLanes());
  for (const int64_t part :
       {TargetLanes() / 2, TargetLanes() / 2 + 1, 3 * TargetLanes() / 4, 3 * TargetLanes() / 2,
        5 * TargetLanes() / 2, 17 * TargetLanes() / 2}) {
    if (part > 3) lengths.push_back(part);
  }
  for (const int64_t length : lengths) {
    const auto channels = static_cast<size_t>(length);
    const ptrdiff_t src_stride = static_cast<ptrdiff_t>(channels) + 2;
    const std::vector<float> src = Random(41 * src_stride, 13);
    std::vector<float> expected(channels);
    for (const kernels::ResultStores stores :
         {kernels::ResultStores::kCached, kernels::ResultStores::kStreamed}) {
      for (size_t misalign : {0, 1}) {
        // Back to back, and a vector apart (still aligned, so streamed where whole vectors).
        for (const size_t gap : {size_t{0}, static_cast<size_t>(TargetLanes())}) {
          const size_t pixel_stride = channels + gap;
          // 64-byte aligned storage, so `misalign` alone decides the row's alignment.
          std::vector<float> storage(19 * pixel_stride + 16 + misalign, kUntouched);
          float* dst = storage.data() +
                       (16 - reinterpret_cast<uintptr_t>(storage.data()) / 4 % 16) % 16 + misalign;
          kernels::GatherPixels(axis.View(false), channels, src.data(), src_stride, dst,
                                static_cast<ptrdiff_t>(pixel_stride), stores);
          kernels::FlushStreamedStores();
          const std::string where = " of " + std::to_string(channels) + " misalign " +
                                    std::to_string(misalign) + " gap " + std::to_string(gap) +
                                    (stores == kernels::ResultStores::kStreamed ? " streamed" : "");
          for (int64_t i = 0; i < 19; ++i) {
            const int32_t count = axis.exact.count(i);
            kernels::CombineRows(expected.data(), channels,
                                 src.data() + (count > 0 ? axis.exact.first[i] : 0) * src_stride,
                                 src_stride,
                                 axis.exact.weights.data() + axis.exact.weight_offset[i], count);
            for (size_t ch = 0; ch < channels; ++ch) {
              ASSERT_EQ(FloatBits(dst[i * pixel_stride + ch]), FloatBits(expected[ch]))
                  << "pixel " << i << " channel " << ch << where;
            }
            for (size_t g = channels; g < pixel_stride; ++g) {
              ASSERT_EQ(dst[i * pixel_stride + g], kUntouched) << "pixel " << i << " gap" << where;
            }
          }
        }
      }
    }
  }
}

// GatherPixelsRounded writes the bits of GatherPixels into floats rounded by StoreFromFloat, in
// both 16-bit dtypes, for pixels of every form (narrower than a vector, one and two whole
// vectors, a last vector overlapping the one before, half vectors on AVX-512, four vectors and
// more through Combine), back to back and apart (the gaps untouched), on rows not aligned to a
// vector; whether or not this target takes it (RoundsPixelsInRegisters), it must be exact. The
// source holds NaNs, infinities, values whose sums are subnormal in float32 (AVX512_BF16's
// conversion flushes those) or round to float16 subnormals, and halfway cases for both
// roundings; which NaN a sum gives is left open, as BitsOrNaN leaves it.
TEST_P(KernelsOnEveryTarget, GatherPixelsRoundedMatchesGatherThenStoreFromFloat) {
  const RandomAxis axis = MakeRandomAxis(19, 41, 14);
  constexpr uint16_t kUntouched = 0x5555;
  std::vector<int64_t> lengths = LengthsAroundVectors(TargetLanes());
  for (const int64_t more : {TargetLanes() / 2, 3 * TargetLanes() / 2, 5 * TargetLanes() / 2,
                             4 * TargetLanes() + 3, 9 * TargetLanes()}) {
    if (more > 3) lengths.push_back(more);
  }
  for (const int64_t length : lengths) {
    const auto channels = static_cast<size_t>(length);
    const ptrdiff_t src_stride = static_cast<ptrdiff_t>(channels) + 1;
    std::vector<float> src = Random(41 * src_stride, 15);
    const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                              std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(),
                              1e-39f,
                              -3e-41f,
                              3e-6f,
                              1.0f + 0x1p-8f,
                              1.0f + 0x1p-11f + 0x1p-23f};
    for (size_t k = 0; k < src.size(); k += 7) src[k] = specials[(k / 7) % std::size(specials)];
    // The first source pixels all subnormal, so that the first results' sums are too.
    std::fill(src.begin(), src.begin() + 6 * src_stride, 3e-39f);
    std::vector<float> gathered(19 * channels);
    kernels::GatherPixels(axis.View(false), channels, src.data(), src_stride, gathered.data(),
                          static_cast<ptrdiff_t>(channels));
    for (const DType dtype : {DType::kBFloat16, DType::kFloat16}) {
      std::vector<uint16_t> expected(19 * channels);
      kernels::StoreFromFloat(dtype, gathered.data(), gathered.size(), expected.data(), 1);
      for (const size_t gap : {size_t{0}, size_t{3}}) {
        const size_t pixel_stride = channels + gap;
        std::vector<uint16_t> storage(19 * pixel_stride + 1, kUntouched);
        uint16_t* const dst = storage.data() + 1;  // off every vector boundary
        kernels::GatherPixelsRounded(axis.View(false), channels, src.data(), src_stride, dtype, dst,
                                     static_cast<ptrdiff_t>(pixel_stride));
        const std::string where = std::string(dtype == DType::kBFloat16 ? " bf16" : " fp16") +
                                  " of " + std::to_string(channels) + " gap " + std::to_string(gap);
        ASSERT_EQ(storage[0], kUntouched) << "before the row" << where;
        for (size_t i = 0; i < 19; ++i) {
          for (size_t ch = 0; ch < channels; ++ch) {
            ASSERT_EQ(Bits16OrNaN(dtype, dst[i * pixel_stride + ch]),
                      Bits16OrNaN(dtype, expected[i * channels + ch]))
                << "pixel " << i << " channel " << ch << where;
          }
          for (size_t g = channels; g < pixel_stride; ++g) {
            ASSERT_EQ(dst[i * pixel_stride + g], kUntouched) << "pixel " << i << " gap" << where;
          }
        }
      }
    }
  }
}

// CopyPixels gives each result pixel its source pixel's bytes, or zeros for an empty run or a
// null source (a result row whose H run is empty), for pixel sizes around the vector's bytes and
// its parts (whole vectors; two, four or eight pixels to a streamed vector; a last vector
// overlapping the one before; 8-byte vectors; less than 8 bytes), streamed and cached, in rows
// aligned to the vector, to 8, 16 or 32 bytes only (the packed rows' leading pixels) and not at
// all, with pixels back to back or apart, and writes nothing outside the pixels.
TEST_P(KernelsOnEveryTarget, CopyPixelsCopiesEachSourcePixelBitForBit) {
  const auto vector_bytes = static_cast<size_t>(TargetLanes()) * sizeof(float);
  constexpr size_t kPixels = 21, kSourcePixels = 13;
  std::mt19937 rng(77);
  // Runs with some empty (every fifth) and all one tap (offsets from 7, as a band's runs of an
  // axis start wherever the band does).
  std::vector<int32_t> first(kPixels), some_taps(kPixels + 1, 0), all_taps(kPixels + 1, 7);
  for (size_t i = 0; i < kPixels; ++i) {
    const bool empty = i % 5 == 3;
    first[i] = static_cast<int32_t>(rng() % kSourcePixels);
    some_taps[i + 1] = some_taps[i] + (empty ? 0 : 1);
    all_taps[i + 1] = all_taps[i] + 1;
  }
  std::vector<size_t> pixel_sizes = {1, 8, 12, 16, 17, 20, 32, 48};
  for (const size_t around :
       {vector_bytes - 1, vector_bytes, vector_bytes + 1, 2 * vector_bytes, 2 * vector_bytes + 6}) {
    pixel_sizes.push_back(around);
  }
  for (const size_t part : {2, 4, 8}) {  // two, four or eight pixels to a streamed vector
    if (vector_bytes / part >= 8) pixel_sizes.push_back(vector_bytes / part);
  }
  for (const size_t pixel_bytes : pixel_sizes) {
    const ptrdiff_t src_stride = static_cast<ptrdiff_t>(pixel_bytes) + 3;
    std::vector<uint8_t> src(kSourcePixels * src_stride);
    for (uint8_t& byte : src) byte = static_cast<uint8_t>(rng());
    for (const kernels::ResultStores stores :
         {kernels::ResultStores::kCached, kernels::ResultStores::kStreamed}) {
      for (const size_t gap : {size_t{0}, size_t{16}}) {
        for (const size_t misalign : {size_t{0}, size_t{1}, size_t{8}, size_t{16}, size_t{32}}) {
          for (const int taps : {0, 1, 2}) {  // some runs empty, none empty, null source
            const bool zeros = taps == 2;
            const std::vector<int32_t>& weight_offset = taps == 1 ? all_taps : some_taps;
            const size_t stride = pixel_bytes + gap;
            // Storage aligned to 64 bytes by hand, so `misalign` alone decides the row's
            // alignment.
            std::vector<uint8_t> storage(kPixels * stride + 128 + misalign, 0xA5);
            uint8_t* const dst = storage.data() +
                                 (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64 + 64 +
                                 misalign;
            kernels::CopyPixels(first.data(), weight_offset.data(), kPixels,
                                zeros ? nullptr : src.data(), src_stride, dst,
                                static_cast<ptrdiff_t>(stride), pixel_bytes, stores);
            kernels::FlushStreamedStores();
            const std::string where =
                " of " + std::to_string(pixel_bytes) + " bytes, stride " + std::to_string(stride) +
                ", misalign " + std::to_string(misalign) +
                (stores == kernels::ResultStores::kStreamed ? ", streamed" : "") +
                (zeros       ? ", null source"
                 : taps == 1 ? ", every run one tap"
                             : "");
            for (uint8_t* byte = storage.data(); byte < storage.data() + storage.size(); ++byte) {
              const auto offset = byte - dst;
              const bool in_row = offset >= 0 && static_cast<size_t>(offset) < kPixels * stride &&
                                  static_cast<size_t>(offset) % stride < pixel_bytes;
              if (!in_row) {
                ASSERT_EQ(*byte, 0xA5) << "wrote byte " << offset << " outside the pixels" << where;
                continue;
              }
              const size_t i = static_cast<size_t>(offset) / stride;
              const size_t b = static_cast<size_t>(offset) % stride;
              const bool empty = zeros || weight_offset[i + 1] == weight_offset[i];
              const uint8_t expected = empty ? 0 : src[first[i] * src_stride + b];
              ASSERT_EQ(*byte, expected) << "pixel " << i << " byte " << b << where;
            }
          }
        }
      }
    }
  }
}

// CombineRows with streamed stores gives the cached stores' bits: whole vectors of an aligned row
// stream, a misaligned row and a row's partial last vector are stored normally.
TEST_P(KernelsOnEveryTarget, StreamedCombineRowsMatchesCached) {
  const std::vector<float> weights = {0.25f, -1.5f, 0.75f};
  for (const int64_t length : LengthsAroundVectors(TargetLanes())) {
    const auto n = static_cast<size_t>(length);
    const ptrdiff_t src_stride = length + 3;
    const std::vector<float> src = Random(3 * src_stride, 31);
    std::vector<float> expected(n);
    kernels::CombineRows(expected.data(), n, src.data(), src_stride, weights.data(), 3);
    for (size_t misalign : {0, 1}) {
      // 64-byte aligned storage, so `misalign` alone decides the row's alignment.
      std::vector<float> storage(n + 16 + misalign + 1, 777.0f);
      float* dst = storage.data() +
                   (16 - reinterpret_cast<uintptr_t>(storage.data()) / 4 % 16) % 16 + misalign;
      kernels::CombineRows(dst, n, src.data(), src_stride, weights.data(), 3,
                           kernels::ResultStores::kStreamed);
      kernels::FlushStreamedStores();
      for (size_t j = 0; j < n; ++j) {
        ASSERT_EQ(FloatBits(dst[j]), FloatBits(expected[j]))
            << "column " << j << " of " << n << " misalign " << misalign;
      }
      ASSERT_EQ(dst[n], 777.0f) << "wrote past the row";
    }
  }
}

// Deinterleave puts channel c of pixel i at row c, column i (or at its column split by a phase
// of 2 or 4), and Interleave puts it back, for every channel count the interleaved layout takes
// and pixel counts around the vector length and the four-vector block (whole blocks, whole
// vectors and the scalar tail), without writing anywhere else.
TEST_P(KernelsOnEveryTarget, InterleaveAndDeinterleaveMoveEveryChannel) {
  for (size_t channels = kernels::kMinInterleavedChannels;
       channels <= kernels::kMaxInterleavedChannels; ++channels) {
    for (const int64_t length : LengthsAroundVectors(TargetLanes())) {
      const auto pixels = static_cast<size_t>(length);
      const std::vector<float> pixel_row = Random(pixels * channels, 41 + channels);
      const size_t row_stride = pixels + 3;
      std::vector<float> planar(channels * row_stride + 1, 777.0f);
      kernels::Deinterleave(pixel_row.data(), pixels, channels, planar.data(), row_stride);
      for (size_t c = 0; c < channels; ++c) {
        for (size_t i = 0; i < pixels; ++i) {
          ASSERT_EQ(FloatBits(planar[c * row_stride + i]), FloatBits(pixel_row[i * channels + c]))
              << "C " << channels << " pixels " << pixels << " channel " << c << " pixel " << i;
        }
        for (size_t gap = pixels; gap < row_stride; ++gap) {
          ASSERT_EQ(planar[c * row_stride + gap], 777.0f) << "wrote between rows";
        }
      }
      // Cached, and streamed into a row on a 64-byte boundary (every vector streams) and one
      // float past it (none may).
      for (const auto& [stores, misalign] :
           {std::pair{kernels::ResultStores::kCached, size_t{0}},
            std::pair{kernels::ResultStores::kStreamed, size_t{0}},
            std::pair{kernels::ResultStores::kStreamed, size_t{1}}}) {
        std::vector<float> storage(pixels * channels + 1 + misalign + 16, 777.0f);
        float* const aligned =
            storage.data() +
            (16 - reinterpret_cast<uintptr_t>(storage.data()) / sizeof(float) % 16) % 16;
        float* const back = aligned + misalign;
        kernels::Interleave(planar.data(), row_stride, pixels, channels, back, stores);
        kernels::FlushStreamedStores();
        for (size_t j = 0; j < pixels * channels; ++j) {
          ASSERT_EQ(FloatBits(back[j]), FloatBits(pixel_row[j]))
              << "C " << channels << " pixels " << pixels << " element " << j << " misalign "
              << misalign;
        }
        ASSERT_EQ(back[pixels * channels], 777.0f) << "wrote past the row";
        if (back > storage.data()) ASSERT_EQ(back[-1], 777.0f) << "wrote before the row";
      }
      // Split by phase (the layout a uniform W interior of stride 2 or 4 reads): channel c of
      // pixel i at column (i % phases) * phase_length + i / phases of row c.
      for (int phases : {2, 4}) {
        const size_t phase_length = (pixels + phases - 1) / phases;
        const size_t split_stride = phases * phase_length + 3;
        std::vector<float> split(channels * split_stride, 777.0f);
        kernels::Deinterleave(pixel_row.data(), pixels, channels, split.data(), split_stride,
                              phases, phase_length);
        std::vector<bool> written(split.size(), false);
        for (size_t c = 0; c < channels; ++c) {
          for (size_t i = 0; i < pixels; ++i) {
            const size_t at = c * split_stride + (i % phases) * phase_length + i / phases;
            written[at] = true;
            ASSERT_EQ(FloatBits(split[at]), FloatBits(pixel_row[i * channels + c]))
                << "C " << channels << " pixels " << pixels << " phases " << phases << " channel "
                << c << " pixel " << i;
          }
        }
        for (size_t at = 0; at < split.size(); ++at) {
          if (!written[at]) ASSERT_EQ(split[at], 777.0f) << "phases " << phases << " at " << at;
        }
      }
    }
  }
}

// PlanesToPixels makes pixel j of kPlaneGroup channels from element j of each plane (plane 0
// again past the group's last plane), converted as LoadAsFloat converts, and PixelsToPlanes puts
// the group's planes back, rounded as StoreFromFloat rounds, cached and streamed: every dtype,
// every plane count, every element count up to two vectors and four (each remainder the vector
// loop leaves to the element loop, from rows as short as a plane group's), longer ones around the
// vector length, and planes spaced apart (the gaps between them untouched) or on top of each
// other (a broadcast source).
TEST_P(KernelsOnEveryTarget, PlaneGroupTransposesMoveEveryElement) {
  constexpr size_t kGroup = kernels::kPlaneGroup;
  std::vector<int64_t> lengths = LengthsAroundVectors(TargetLanes());
  for (int64_t n = 1; n <= 2 * TargetLanes() + 4; ++n) lengths.push_back(n);
  std::sort(lengths.begin(), lengths.end());
  lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    const size_t elem = DTypeSize(dtype);
    for (const int64_t length : lengths) {
      const auto n = static_cast<size_t>(length);
      for (size_t planes = 1; planes <= kGroup; ++planes) {
        for (const ptrdiff_t gap : {ptrdiff_t{0}, ptrdiff_t{5}, -static_cast<ptrdiff_t>(n)}) {
          const ptrdiff_t plane_stride = static_cast<ptrdiff_t>(n) + gap;  // 0: one plane for all
          const size_t elements = kGroup * (n + 5);
          // Source values in the dtype, and as float (the exact conversion).
          std::vector<float> values = Random(elements, 43 + planes);
          std::vector<uint8_t> source(elements * elem);
          kernels::StoreFromFloat(dtype, values.data(), elements, source.data(), 1);
          kernels::LoadAsFloat(dtype, source.data(), 1, elements, values.data());
          // Pixels on a cache line, as the plan's scratch is in an aligned workspace, or one float
          // past (a caller's workspace need not be aligned).
          std::vector<float> storage(kGroup * n + 17, 777.0f);
          float* const pixels =
              storage.data() +
              (16 - reinterpret_cast<uintptr_t>(storage.data()) / sizeof(float) % 16) % 16 +
              (planes + n) % 2;
          kernels::PlanesToPixels(dtype, source.data(), plane_stride, planes, n, pixels);
          const auto plane_of = [&](size_t p) { return p < planes ? p : size_t{0}; };
          for (size_t j = 0; j < n; ++j) {
            for (size_t p = 0; p < kGroup; ++p) {
              const float expected = values[static_cast<ptrdiff_t>(plane_of(p)) * plane_stride +
                                            static_cast<ptrdiff_t>(j)];
              ASSERT_EQ(FloatBits(pixels[j * kGroup + p]), FloatBits(expected))
                  << DTypeName(dtype) << " n " << n << " planes " << planes << " stride "
                  << plane_stride << " pixel " << j << " channel " << p;
            }
          }
          if (plane_stride == 0) continue;  // planes on top of each other are a source only
          // Pixels that are not exact in the dtype, so that the rounding shows, with ties, NaNs
          // and infinities among them.
          for (size_t i = 0; i < kGroup * n; ++i) {
            pixels[i] *= 1.0f + 0x1p-12f;
            if (i % 37 == 3) pixels[i] = 1.0f + 0x1p-8f + (i % 2 == 0 ? 0x1p-7f : 0.0f);
            // NaNs with payloads that carry when rounded, quiet and signalling.
            if (i % 41 == 5) pixels[i] = BitsToFloat(i % 2 == 0 ? 0x7FFFFFFFu : 0xFF800001u);
            if (i % 43 == 7) pixels[i] = -std::numeric_limits<float>::infinity();
            // Opposite infinities in one group sum to NaN: a NaN test by sum must fall back.
            if (i % 47 == 11) pixels[i] = std::numeric_limits<float>::infinity();
            // Denormals of either sign, which AVX512_BF16's conversions would flush to zero.
            if (i % 53 == 13) pixels[i] = BitsToFloat((i % 2 == 0 ? 0x00018000u : 0x80000001u));
          }
          for (const auto stores :
               {kernels::ResultStores::kCached, kernels::ResultStores::kStreamed}) {
            const size_t slots = kGroup * static_cast<size_t>(plane_stride) + 1;
            std::vector<uint8_t> back(slots * elem, 0xAB), expected(slots * elem, 0xAB);
            for (size_t p = 0; p < planes; ++p) {
              for (size_t j = 0; j < n; ++j) {
                kernels::StoreFromFloat(dtype, pixels + j * kGroup + p, 1,
                                        expected.data() + (p * plane_stride + j) * elem, 1);
              }
            }
            kernels::PixelsToPlanes(dtype, pixels, planes, n, back.data(), plane_stride, stores);
            kernels::FlushStreamedStores();
            ASSERT_EQ(back, expected)
                << DTypeName(dtype) << " n " << n << " planes " << planes << " stride "
                << plane_stride << (stores == kernels::ResultStores::kStreamed ? " streamed" : "");
          }
        }
      }
    }
  }
}

TEST_P(KernelsOnEveryTarget, SixteenBitConversionsMatchScalarReference) {
  for (DType dtype : {DType::kFloat16, DType::kBFloat16}) {
    std::vector<uint16_t> all(65536);
    for (uint32_t b = 0; b < 65536; ++b) all[b] = static_cast<uint16_t>(b);
    std::vector<float> wide(all.size());
    kernels::LoadAsFloat(dtype, all.data(), 1, all.size(), wide.data());
    for (uint32_t b = 0; b < 65536; ++b) {
      const float expected =
          dtype == DType::kFloat16 ? Float16ToFloat(all[b]) : BFloat16ToFloat(all[b]);
      if (std::isnan(expected)) {
        ASSERT_TRUE(std::isnan(wide[b]));
      } else {
        ASSERT_EQ(FloatBits(wide[b]), FloatBits(expected)) << std::hex << b;
      }
    }
    std::mt19937 rng(77);
    std::vector<float> values(100003);
    for (float& v : values) {
      uint32_t bits = rng();
      bits = (bits & 0x80FFFFFFu) | ((0x60u + (bits >> 24) % 0x30u) << 23);
      v = BitsToFloat(bits);
    }
    values[0] = 65520.0f;
    values[1] = BitsToFloat(0x3F808000u);
    values[2] = std::ldexp(1.0f, -25);
    values[3] = NAN;
    // NaNs whose payloads carry when rounded to bfloat16: they must stay NaN.
    values[4] = BitsToFloat(0x7FFFFFFFu);
    values[5] = BitsToFloat(0xFF800001u);
    values[6] = BitsToFloat(0x7FC08000u);
    // And at every position of a group of four vectors, on any vector width.
    for (size_t i = 100; i < 164; i += 7) {
      values[i] = BitsToFloat(i % 2 == 0 ? 0x7FFFFFFFu : 0xFFFFFFFFu);
    }
    // Every exponent, denormals, zeros, Inf and NaN among them.
    for (size_t i = 200; i < 8392; ++i) values[i] = BitsToFloat(static_cast<uint32_t>(rng()));
    // One denormal in each block of 64 values, at each position in turn (AVX512_BF16 flushes
    // denormals, so a vector holding one is rounded otherwise), ties and the largest included,
    // with normal neighbours; and the smallest normals, which that instruction rounds itself.
    const uint32_t denormals[] = {0x00000001u, 0x00008000u, 0x00018000u, 0x007FFFFFu,
                                  0x80000001u, 0x80008000u, 0x807FFFFFu, 0x0000FFFFu};
    for (size_t block = 0; block < 64; ++block) {
      values[9000 + 64 * block + block] = BitsToFloat(denormals[block % 8] ^ (block << 9));
    }
    const uint32_t smallest_normals[] = {0x00800000u, 0x00807FFFu, 0x00808000u,
                                         0x00818000u, 0x80808000u, 0x0080FFFFu};
    for (size_t i = 0; i < 6; ++i) values[14000 + i] = BitsToFloat(smallest_normals[i]);
    const auto expect_rounded = [&](const std::vector<uint16_t>& narrow, size_t stride,
                                    const char* how) {
      for (size_t i = 0; i < values.size(); ++i) {
        const uint16_t expected =
            dtype == DType::kFloat16 ? FloatToFloat16(values[i]) : FloatToBFloat16(values[i]);
        ASSERT_EQ(narrow[i * stride], expected)
            << i << " " << how << " stride " << stride << " value bits " << std::hex
            << FloatBits(values[i]);
        if (stride > 1) ASSERT_EQ(narrow[i * stride + 1], 0xDEAD);
      }
    };
    for (size_t stride : {1, 3}) {
      std::vector<uint16_t> narrow(values.size() * stride, 0xDEAD);
      kernels::StoreFromFloat(dtype, values.data(), values.size(), narrow.data(),
                              static_cast<ptrdiff_t>(stride));
      expect_rounded(narrow, stride, "in one call");
    }
    // In calls of three vectors and one element, which no four-vector block serves.
    const auto chunk = static_cast<size_t>(3 * TargetLanes() + 1);
    std::vector<uint16_t> narrow(values.size(), 0xDEAD);
    for (size_t i = 0; i < values.size(); i += chunk) {
      kernels::StoreFromFloat(dtype, values.data() + i, std::min(chunk, values.size() - i),
                              narrow.data() + i, 1);
    }
    expect_rounded(narrow, 1, "in short calls");
  }
}

TEST_P(KernelsOnEveryTarget, Float32LoadAndStoreAreExactCopies) {
  const int64_t lanes = TargetLanes();
  // Whole vectors and a tail.
  const std::vector<float> values = Random(static_cast<size_t>(8 * lanes + lanes / 2 + 1), 5);
  for (ptrdiff_t stride : {1, 2}) {
    std::vector<float> strided(values.size() * stride, -1.0f);
    kernels::StoreFromFloat(DType::kFloat32, values.data(), values.size(), strided.data(), stride);
    std::vector<float> back(values.size());
    kernels::LoadAsFloat(DType::kFloat32, strided.data(), stride, values.size(), back.data());
    EXPECT_EQ(back, values);
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, KernelsOnEveryTarget, ::testing::ValuesIn(TargetsToTest()),
                         TargetLabel);

}  // namespace
}  // namespace aclnn_upsample
