// Operator tests through the public C API against the independent float64 reference:
// documented examples, adjoint identities, size/ratio/scale sweeps, dtypes, formats and
// storage kinds, NaN/Inf propagation and bitwise determinism across thread counts.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "support/reference.h"
#include "support/test_tensors.h"

namespace {

using reference::Case;
using reference::Op;
using support::CountOutOfTolerance;
using support::RunOptions;
using support::Storage;

// Runs the case and checks it against the reference within the contract's tolerance, and that
// nothing outside out's view was written.
void CheckCase(const Case& c, const RunOptions& options, uint32_t seed = 1) {
  const std::vector<double> grad = support::RandomValues(c.grad_elements(), seed);
  std::vector<double> seen;
  const support::RunOutput run = support::Run(c, grad, options, &seen);
  ASSERT_EQ(run.status, ACLNN_SUCCESS) << c.Name() << ": " << run.message;
  std::vector<double> expected, magnitude;
  reference::Backward(c, seen, &expected, &magnitude);
  EXPECT_EQ(CountOutOfTolerance(options.dtype, run.values, expected, magnitude, c.Name()), 0);
  EXPECT_TRUE(run.outside_view_untouched) << c.Name();
  for (double v : run.values) {
    ASSERT_TRUE(std::isfinite(v)) << c.Name() << ": finite input gave a non-finite result";
  }
}

Case MakeCase(Op op, int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w, bool align,
              double scales_h = 0, double scales_w = 0, int64_t n = 1, int64_t c = 1) {
  Case made;
  made.op = op;
  made.n = n;
  made.c = c;
  made.in_h = in_h;
  made.in_w = in_w;
  made.out_h = out_h;
  made.out_w = out_w;
  made.align_corners = align;
  made.scales_h = scales_h;
  made.scales_w = scales_w;
  return made;
}

TEST(DocumentedExamples, BilinearMatchesContract) {
  Case c = MakeCase(Op::kBilinear, 3, 3, 6, 6, true, 2.0, 2.0);
  const support::RunOutput run = support::Run(c, std::vector<double>(36, 1.0), RunOptions{});
  ASSERT_EQ(run.status, ACLNN_SUCCESS) << run.message;
  const double expected[9] = {3.24, 4.32, 3.24, 4.32, 5.76, 4.32, 3.24, 4.32, 3.24};
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(run.values[i], expected[i], 1e-5) << i;
}

TEST(DocumentedExamples, BicubicAAMatchesContract) {
  Case c = MakeCase(Op::kBicubicAA, 8, 4, 4, 2, true, 2.0, 2.0);
  std::vector<double> grad(8);
  std::iota(grad.begin(), grad.end(), 0.0);
  const support::RunOutput run = support::Run(c, grad, RunOptions{});
  ASSERT_EQ(run.status, ACLNN_SUCCESS) << run.message;
  const double expected[32] = {
      -0.037380, -0.021394, 0.076689, 0.210637, -0.019148, 0.026700, 0.200382, 0.428001,
      0.054657,  0.153699,  0.411533, 0.732542, 0.137444,  0.293525, 0.637135, 1.051797,
      0.170893,  0.347117,  0.715870, 1.156116, 0.237614,  0.463294, 0.912605, 1.443050,
      0.538375,  1.014847,  1.918604, 2.973265, 1.005456,  1.876058, 3.500808, 5.389207};
  double total = 0;
  for (int i = 0; i < 32; ++i) {
    EXPECT_NEAR(run.values[i], expected[i], 1e-6) << i;
    total += run.values[i];
  }
  EXPECT_NEAR(total, 28.0, 1e-4);
}

// <forward(x), g> == <x, backward(g)>: first for the reference itself (which validates the
// test's own backward against its naive forward), then for the library.
TEST(Adjoint, ReferenceAndLibraryAgreeWithNaiveForward) {
  const std::vector<Case> cases = {
      MakeCase(Op::kBilinear, 5, 7, 11, 3, false, 0, 0, 2, 3),
      MakeCase(Op::kBilinear, 9, 4, 17, 8, true, 0, 0, 1, 2),
      MakeCase(Op::kBilinear, 16, 13, 8, 31, false, 0.5, 2.4, 1, 1),
      MakeCase(Op::kBicubicAA, 30, 8, 7, 19, false, 0, 0, 2, 1),
      MakeCase(Op::kBicubicAA, 13, 60, 29, 2, true, 0, 0, 1, 2),
      MakeCase(Op::kBicubicAA, 12, 10, 5, 25, false, 0.4, 2.5, 1, 1),
  };
  for (const Case& c : cases) {
    const std::vector<double> x = support::RandomValues(c.result_elements(), 7);
    const std::vector<double> g = support::RandomValues(c.grad_elements(), 8);
    const std::vector<double> y = reference::Forward(c, x);
    std::vector<double> back, magnitude;
    reference::Backward(c, g, &back, &magnitude);
    double lhs = 0, rhs = 0, scale = 0;
    for (size_t i = 0; i < y.size(); ++i) lhs += y[i] * g[i];
    for (size_t i = 0; i < x.size(); ++i) {
      rhs += x[i] * back[i];
      scale += std::abs(x[i]) * magnitude[i];
    }
    EXPECT_NEAR(lhs, rhs, 1e-12 * scale) << c.Name();

    std::vector<double> seen;
    const support::RunOutput run = support::Run(c, g, RunOptions{}, &seen);
    ASSERT_EQ(run.status, ACLNN_SUCCESS) << run.message;
    const std::vector<double> y_seen = reference::Forward(c, x);
    double lib_lhs = 0, lib_rhs = 0;
    for (size_t i = 0; i < y_seen.size(); ++i) lib_lhs += y_seen[i] * seen[i];
    for (size_t i = 0; i < x.size(); ++i) lib_rhs += x[i] * run.values[i];
    EXPECT_NEAR(lib_lhs, lib_rhs, 1e-5 * scale) << c.Name();
  }
}

// Sizes 1, 2, primes and around 8/16/32 (the vector widths of the kernels), in every
// combination of up, down and identity per axis.
const std::vector<int64_t> kSizes = {1, 2, 3, 5, 7, 8, 9, 13, 15, 16, 17, 31, 32, 33};

TEST(Sweep, SizesBothOperatorsBothAlignments) {
  for (Op op : {Op::kBilinear, Op::kBicubicAA}) {
    for (bool align : {false, true}) {
      for (size_t a = 0; a < kSizes.size(); ++a) {
        for (size_t b = 0; b < kSizes.size(); ++b) {
          const int64_t in_h = kSizes[a], out_h = kSizes[b];
          const int64_t in_w = kSizes[(a + 5) % kSizes.size()];
          const int64_t out_w = kSizes[(b + 3) % kSizes.size()];
          if (op == Op::kBicubicAA && (in_h * 50 < out_h || in_w * 50 < out_w)) continue;
          CheckCase(MakeCase(op, in_h, in_w, out_h, out_w, align), RunOptions{},
                    static_cast<uint32_t>(a * 31 + b));
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

TEST(Sweep, AntialiasedDownsamplingToOneThirtieth) {
  for (bool align : {false, true}) {
    CheckCase(MakeCase(Op::kBicubicAA, 60, 90, 2, 3, align, 0, 0, 1, 2), RunOptions{});
    CheckCase(MakeCase(Op::kBicubicAA, 300, 31, 10, 1, align), RunOptions{});
    CheckCase(MakeCase(Op::kBicubicAA, 7, 300, 7, 10, align), RunOptions{});
  }
}

TEST(Sweep, LargeUpsampling) {
  CheckCase(MakeCase(Op::kBicubicAA, 2, 3, 100, 150, false), RunOptions{});  // exactly 50x
  CheckCase(MakeCase(Op::kBilinear, 2, 3, 300, 7, false), RunOptions{});
  CheckCase(MakeCase(Op::kBilinear, 3, 2, 64, 130, true), RunOptions{});
}

TEST(Sweep, ScalesGivenAbsentAndInconsistent) {
  for (Op op : {Op::kBilinear, Op::kBicubicAA}) {
    for (bool align : {false, true}) {
      CheckCase(MakeCase(op, 8, 6, 16, 12, align, 2.0, 2.0), RunOptions{});  // consistent
      CheckCase(MakeCase(op, 8, 6, 16, 12, align, 0.0, 0.0), RunOptions{});  // absent
      CheckCase(MakeCase(op, 8, 6, 16, 12, align, 3.0, 1.5), RunOptions{});  // inconsistent
      CheckCase(MakeCase(op, 10, 9, 3, 4, align, 0.3, 0.45), RunOptions{});  // downscale, given
      CheckCase(MakeCase(op, 7, 7, 17, 12, align, 2.5, 1.8), RunOptions{});  // floor(in*s) == out
    }
  }
  // Bilinear ignores a negative scale and a ratio below 0.01 (contract 1.3).
  CheckCase(MakeCase(Op::kBilinear, 8, 6, 16, 12, false, -2.0, -1.0), RunOptions{});
  CheckCase(MakeCase(Op::kBilinear, 1, 2, 150, 301, false, 150.0, 150.5), RunOptions{});
}

TEST(Sweep, EverySupportedDType) {
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    RunOptions options;
    options.dtype = dtype;
    for (Op op : {Op::kBilinear, Op::kBicubicAA}) {
      CheckCase(MakeCase(op, 9, 17, 18, 33, false, 0, 0, 2, 3), options);
      CheckCase(MakeCase(op, 33, 16, 13, 7, true, 0, 0, 1, 2), options);
      CheckCase(MakeCase(op, 5, 5, 5, 5, false, 0, 0, 1, 1), options);
      CheckCase(MakeCase(op, 20, 12, 20, 48, false, 0, 0, 2, 16), options);
    }
  }
}

TEST(Sweep, FormatsAndStorageKinds) {
  struct Layout {
    Op op;
    aclFormat format;
    Storage storage;
  };
  const std::vector<Layout> layouts = {
      {Op::kBilinear, ACL_FORMAT_NCHW, Storage::kContiguous},
      {Op::kBilinear, ACL_FORMAT_NHWC, Storage::kContiguous},
      {Op::kBilinear, ACL_FORMAT_NHWC, Storage::kPaddedRows},
      {Op::kBilinear, ACL_FORMAT_NCHW, Storage::kChannelsLastView},
      {Op::kBilinear, ACL_FORMAT_NCHW, Storage::kPaddedRows},
      {Op::kBilinear, ACL_FORMAT_NCHW, Storage::kOffset},
      {Op::kBilinear, ACL_FORMAT_NCHW, Storage::kBroadcastGrad},
      {Op::kBilinear, ACL_FORMAT_NHWC, Storage::kBroadcastGrad},
      {Op::kBicubicAA, ACL_FORMAT_NCHW, Storage::kChannelsLastView},
      {Op::kBicubicAA, ACL_FORMAT_ND, Storage::kContiguous},
      {Op::kBicubicAA, ACL_FORMAT_ND, Storage::kPaddedRows},
      {Op::kBicubicAA, ACL_FORMAT_NCHW, Storage::kOffset},
      {Op::kBicubicAA, ACL_FORMAT_NCHW, Storage::kBroadcastGrad},
  };
  for (const Layout& layout : layouts) {
    for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      for (int64_t channels : {3, 16, 37}) {
        RunOptions options;
        options.dtype = dtype;
        options.format = layout.format;
        options.storage = layout.storage;
        SCOPED_TRACE(::testing::Message() << "format " << layout.format << " storage "
                                          << static_cast<int>(layout.storage) << " dtype " << dtype
                                          << " C " << channels);
        CheckCase(MakeCase(layout.op, 7, 10, 13, 5, false, 0, 0, 2, channels), options);
        CheckCase(MakeCase(layout.op, 12, 6, 6, 19, true, 0, 0, 1, channels), options);
      }
    }
  }
}

TEST(Sweep, EmptyBilinearProblemSucceedsWithoutWork) {
  for (int64_t n : {0, 2}) {
    const Case c = MakeCase(Op::kBilinear, 4, 4, 8, 8, false, 0, 0, n, n == 0 ? 3 : 0);
    const support::RunOutput run = support::Run(c, {}, RunOptions{});
    EXPECT_EQ(run.status, ACLNN_SUCCESS) << run.message;
    EXPECT_TRUE(run.outside_view_untouched);
  }
}

// A NaN or Inf in gradOut reaches exactly the results whose formula includes it as a tap.
TEST(NonFinite, PropagatesAlongTapsOnly) {
  for (Op op : {Op::kBilinear, Op::kBicubicAA}) {
    for (bool align : {false, true}) {
      for (double poison : {std::nan(""), double{INFINITY}, -double{INFINITY}}) {
        const Case c = MakeCase(op, 6, 9, 11, 4, align, 0, 0, 1, 2);
        std::vector<double> grad = support::RandomValues(c.grad_elements(), 3);
        grad[c.out_h * c.out_w + 5 * c.out_w + 2] = poison;  // plane 1, row 5, column 2
        std::vector<double> seen;
        const support::RunOutput run = support::Run(c, grad, RunOptions{}, &seen);
        ASSERT_EQ(run.status, ACLNN_SUCCESS);
        std::vector<double> expected, magnitude;
        reference::Backward(c, seen, &expected, &magnitude);
        for (size_t i = 0; i < expected.size(); ++i) {
          EXPECT_EQ(std::isnan(run.values[i]), std::isnan(expected[i])) << c.Name() << " " << i;
          EXPECT_EQ(std::isinf(run.values[i]), std::isinf(expected[i])) << c.Name() << " " << i;
        }
      }
    }
  }
}

// Bitwise identical results for 1, 2 and 3 threads, on shapes the planner cuts into bands.
TEST(Determinism, BitwiseAcrossThreadCounts) {
  const std::vector<std::pair<Case, Storage>> cases = {
      {MakeCase(Op::kBilinear, 97, 61, 300, 200, false), Storage::kContiguous},
      {MakeCase(Op::kBilinear, 64, 64, 512, 512, true), Storage::kContiguous},
      {MakeCase(Op::kBicubicAA, 300, 200, 97, 61, false, 0, 0, 1, 2), Storage::kContiguous},
      {MakeCase(Op::kBilinear, 20, 24, 40, 48, false, 0, 0, 2, 16), Storage::kChannelsLastView},
      {MakeCase(Op::kBicubicAA, 40, 30, 17, 64, false, 0, 0, 1, 3), Storage::kPaddedRows},
  };
  for (aclDataType dtype : {ACL_FLOAT, ACL_BF16}) {
    for (const auto& [c, storage] : cases) {
      const std::vector<double> grad = support::RandomValues(c.grad_elements(), 11);
      std::vector<std::vector<uint8_t>> results;
      for (int threads : {1, 2, 3}) {
        RunOptions options;
        options.dtype = dtype;
        options.storage = storage;
        options.threads = threads;
        const support::RunOutput run = support::Run(c, grad, options);
        ASSERT_EQ(run.status, ACLNN_SUCCESS) << run.message;
        results.push_back(run.raw_bits);
      }
      EXPECT_EQ(results[0], results[1]) << c.Name();
      EXPECT_EQ(results[0], results[2]) << c.Name();
    }
  }
}

}  // namespace
