// Every row of the operator table and its adjoint row (aclnn_upsample_adjoint_operator: the
// first row of the same mode and the other direction) apply exactly transposed matrices for the
// same outputSize, alignCorners and scales, wherever the two rows read those the same way (a row
// without alignCorners or scales, or with another scale rule, reads some differently; such
// parameters are dropped for that pair): the adjoint identity <A x, g> == <x, A^T g> on random
// tensors, computed from the library's own forward and backward results, and the stronger exact
// statement that the 1-D matrix read off the forward (unit inputs) is the transpose of the one
// read off the backward (unit gradients).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "aclnn_upsample/operators.h"
#include "support/reference.h"
#include "support/test_tensors.h"

namespace {

using reference::Case;
using support::RunOptions;
using support::Storage;

using Pair = std::pair<const aclnn_upsample_operator*, const aclnn_upsample_operator*>;

// The first row of the table with this mode and direction.
const aclnn_upsample_operator* FirstRowOf(const char* mode, aclnn_upsample_direction direction) {
  for (const aclnn_upsample_operator* op : support::OperatorsOf(direction)) {
    if (std::string(op->mode) == mode) return op;
  }
  return nullptr;
}

// Every row with its adjoint, as (forward, backward) pairs without repeats: each backward row
// with its adjoint forward, and each forward row with its adjoint backward.
std::vector<Pair> Pairs() {
  std::vector<Pair> pairs;
  for (size_t i = 0; i < aclnn_upsample_operator_count(); ++i) {
    const aclnn_upsample_operator* row = aclnn_upsample_operator_at(i);
    const aclnn_upsample_operator* adjoint = aclnn_upsample_adjoint_operator(row);
    EXPECT_NE(adjoint, nullptr) << row->name << " has no adjoint";
    if (adjoint == nullptr) continue;
    EXPECT_NE(adjoint->direction, row->direction) << row->name;
    EXPECT_STREQ(adjoint->mode, row->mode) << row->name;
    EXPECT_EQ(adjoint, FirstRowOf(row->mode, adjoint->direction)) << row->name;
    const Pair pair =
        row->direction == ACLNN_UPSAMPLE_FORWARD ? Pair{row, adjoint} : Pair{adjoint, row};
    if (std::find(pairs.begin(), pairs.end(), pair) == pairs.end()) pairs.push_back(pair);
  }
  return pairs;
}

TEST(AdjointPairs, EveryRowHasItsAdjoint) {
  const std::vector<Pair> pairs = Pairs();
  // Every row is in some pair.
  for (size_t i = 0; i < aclnn_upsample_operator_count(); ++i) {
    const aclnn_upsample_operator* row = aclnn_upsample_operator_at(i);
    EXPECT_TRUE(std::any_of(pairs.begin(), pairs.end(), [&](const Pair& p) {
      return p.first == row || p.second == row;
    })) << row->name;
  }
  EXPECT_EQ(aclnn_upsample_adjoint_operator(nullptr), nullptr);
}

// Whether the two rows compute the same matrices for `c` (sizes, alignCorners and scales read
// by each row's flags).
bool ReadAlike(const aclnn_upsample_operator& forward, const aclnn_upsample_operator& backward,
               const Case& c) {
  const Case f = support::ForRow(forward, c), b = support::ForRow(backward, c);
  for (bool on_h : {true, false}) {
    const reference::Matrix mf = reference::CaseAxisMatrix(f, on_h);
    const reference::Matrix mb = reference::CaseAxisMatrix(b, on_h);
    if (mf.weight != mb.weight || mf.is_tap != mb.is_tap) return false;
  }
  return true;
}

// `c`, or `c` without scales where the two rows read its scales differently (a forward without
// scales, or a bilinear V1 backward, which uses inconsistent scales that the forward ignores);
// then also without alignCorners if they still differ.
Case Agreed(const aclnn_upsample_operator& forward, const aclnn_upsample_operator& backward,
            Case c) {
  if (ReadAlike(forward, backward, c)) return c;
  c.scales_h = c.scales_w = 0;
  if (!ReadAlike(forward, backward, c)) c.align_corners = false;
  EXPECT_TRUE(ReadAlike(forward, backward, c)) << forward.name << " / " << backward.name;
  return c;
}

double Dot(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

// The two sides of the identity from the library's results, and the bound on their difference.
struct Identity {
  double lhs = 0, rhs = 0, tolerance = 0, scale = 0;
};

// y = A x by `forward`, b = A^T g by `backward` (each on its own rounding of the random data),
// then <y, g> and <x, b> in float64.
//
// Tolerance. Both operators apply the same float matrices A_f (exactly transposed), so in exact
// arithmetic <A_f x, g> == <x, A_f^T g>: the two sides differ only by the errors of the stored
// results, which the contract (section 4) bounds element by element: |y_o - (A x)_o| <=
// ulp(y_o) (16-bit dtypes only) + 1e-5 * m_o, with m_o = sum_i |A_oi x_i| (the forward's
// magnitude), and |b_i - (A^T g)_i| <= ulp(b_i) + 1e-5 * m'_i, with m'_i = sum_o |A_oi g_o|.
// Hence |lhs - rhs| <= sum_o |g_o| Tol(y_o, m_o) + sum_i |x_i| Tol(b_i, m'_i). For float32
// that is 1e-5 * (sum_o |g_o| m_o + sum_i |x_i| m'_i) = 2e-5 * S with S = sum |g_o A_oi x_i|;
// the float64 dot products add about 1e-16 * S, far below it. The magnitudes come from the
// reference's float64 matrices, which differ from A_f by float rounding (relative 1e-7), a
// change of the bound's last digits only.
Identity Measure(const aclnn_upsample_operator& forward, const aclnn_upsample_operator& backward,
                 const Case& c, const RunOptions& options, uint32_t seed) {
  Identity identity;
  const std::vector<double> x0 = support::RandomValues(c.result_elements(), seed);
  const std::vector<double> g0 = support::RandomValues(c.grad_elements(), seed + 1000);
  std::vector<double> x, g;
  const support::RunOutput y = support::RunOperator(forward, c, x0, options, &x);
  const support::RunOutput b = support::RunOperator(backward, c, g0, options, &g);
  EXPECT_EQ(y.status, ACLNN_SUCCESS) << forward.name << ": " << y.message;
  EXPECT_EQ(b.status, ACLNN_SUCCESS) << backward.name << ": " << b.message;
  if (y.status != ACLNN_SUCCESS || b.status != ACLNN_SUCCESS) return identity;
  std::vector<double> y_ref, y_magnitude, b_ref, b_magnitude;
  reference::Forward(support::ForRow(forward, c), x, &y_ref, &y_magnitude);
  reference::Backward(support::ForRow(backward, c), g, &b_ref, &b_magnitude);
  identity.lhs = Dot(y.values, g);
  identity.rhs = Dot(x, b.values);
  for (size_t o = 0; o < g.size(); ++o) {
    const double at = std::max(std::abs(y.values[o]), std::abs(y_ref[o]));
    identity.tolerance += std::abs(g[o]) * support::Tolerance(options.dtype, at, y_magnitude[o]);
    identity.scale += std::abs(g[o]) * y_magnitude[o];
  }
  for (size_t i = 0; i < x.size(); ++i) {
    const double at = std::max(std::abs(b.values[i]), std::abs(b_ref[i]));
    identity.tolerance += std::abs(x[i]) * support::Tolerance(options.dtype, at, b_magnitude[i]);
  }
  return identity;
}

struct Shape {
  int64_t in_h, in_w, out_h, out_w;
  double scales_h, scales_w;
  int64_t n, c;
};

// Up, down, identity and mixed axes with odd ratios; scales absent, consistent, inconsistent
// (bilinear then ignores them; the other modes use them) and downscaling; several planes.
// Scales are multiples of a power of two (aclnnUpsampleNearest2dV2 takes float scales).
const Shape kShapes[] = {
    {5, 7, 11, 3, 0, 0, 2, 3},
    {9, 4, 17, 8, 0, 0, 1, 2},
    {16, 13, 8, 31, 0.5, 2.375, 1, 1},
    {30, 8, 7, 19, 0, 0, 2, 1},
    {13, 60, 29, 2, 0, 0, 1, 2},
    {12, 10, 5, 25, 0.4375, 2.5, 1, 1},
    {8, 6, 16, 12, 3.0, 1.5, 1, 2},
    {7, 7, 17, 12, 2.5, 1.75, 2, 1},
    {9, 9, 9, 9, 1.25, 1.0, 1, 2},
    {1, 40, 3, 13, 0, 0, 1, 2},
    {33, 1, 10, 4, 0, 0, 1, 1},
    {2, 3, 100, 150, 0, 0, 1, 1},
    {31, 17, 16, 9, 0.5234375, 0.53125, 1, 3},
};

// Returns |lhs - rhs| / tolerance (at most 1 when the identity holds).
double ExpectIdentity(const aclnn_upsample_operator& forward,
                      const aclnn_upsample_operator& backward, const Case& c,
                      const RunOptions& options, uint32_t seed) {
  const Identity identity = Measure(forward, backward, c, options, seed);
  EXPECT_GT(identity.scale, 0.0) << c.Name();
  EXPECT_LE(std::abs(identity.lhs - identity.rhs), identity.tolerance)
      << forward.name << " / " << backward.name << " " << c.Name() << " dtype " << options.dtype
      << " format " << options.format << ": <Ax, g> = " << identity.lhs
      << ", <x, A^T g> = " << identity.rhs;
  return identity.tolerance > 0 ? std::abs(identity.lhs - identity.rhs) / identity.tolerance : 0;
}

TEST(AdjointIdentity, RandomTensorsAllShapesBothAlignments) {
  for (const auto& [forward, backward] : Pairs()) {
    double worst = 0;
    int with_scales = 0;
    for (bool align : {false, true}) {
      uint32_t seed = 1;
      for (const Shape& s : kShapes) {
        const Case c = Agreed(*forward, *backward,
                              support::RowCase(*forward, s.in_h, s.in_w, s.out_h, s.out_w, align,
                                               s.scales_h, s.scales_w, s.n, s.c));
        if (!support::WithinUpscaleLimit(*forward, c) ||
            !support::WithinUpscaleLimit(*backward, c)) {
          continue;
        }
        with_scales += c.scales_h > 0 || c.scales_w > 0;
        worst = std::max(worst, ExpectIdentity(*forward, *backward, c, RunOptions{}, ++seed));
      }
    }
    // The pair's scales are exercised unless one of the rows has none.
    if (forward->takes_scales && backward->takes_scales) {
      EXPECT_GT(with_scales, 0) << forward->name << " / " << backward->name;
    }
    std::cout << forward->name << " / " << backward->name
              << ": worst |<Ax, g> - <x, A^T g>| / tolerance = " << worst << "\n";
  }
}

// The same identity in every dtype and in the layouts each pair accepts (NHWC for bilinear, ND
// for bicubic AA, channels-last views with C >= 8 for both, which run the channels-last plan).
TEST(AdjointIdentity, DTypesAndLayouts) {
  for (const auto& [forward, backward] : Pairs()) {
    std::vector<std::pair<aclFormat, Storage>> layouts = {
        {ACL_FORMAT_NCHW, Storage::kContiguous},
        {ACL_FORMAT_NCHW, Storage::kChannelsLastView},
        {ACL_FORMAT_NCHW, Storage::kPaddedRows},
    };
    if (forward->accepts_nhwc && backward->accepts_nhwc) {
      layouts.push_back({ACL_FORMAT_NHWC, Storage::kContiguous});
      layouts.push_back({ACL_FORMAT_NHWC, Storage::kOffset});
    }
    if (forward->accepts_nd && backward->accepts_nd) {
      layouts.push_back({ACL_FORMAT_ND, Storage::kContiguous});
    }
    for (const auto& [format, storage] : layouts) {
      for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
        for (bool align : {false, true}) {
          RunOptions options;
          options.dtype = dtype;
          options.format = format;
          options.storage = storage;
          ExpectIdentity(*forward, *backward,
                         Agreed(*forward, *backward,
                                support::RowCase(*forward, 7, 10, 13, 5, align, 0, 0, 2, 9)),
                         options, 3);
          ExpectIdentity(*forward, *backward,
                         Agreed(*forward, *backward,
                                support::RowCase(*forward, 12, 6, 6, 19, align, 0.5, 3.25, 1, 16)),
                         options, 4);
        }
      }
    }
  }
}

// The identity has power: the backward of another problem (a scale of 1.75 on H, consistent
// with 9 -> 15, instead of none: every backward row takes scales) violates it by far more than
// the tolerance, so a pair whose matrices were not transposed would fail above.
TEST(AdjointIdentity, MismatchedPairingIsDetected) {
  for (const auto& [forward, backward] : Pairs()) {
    const Case c = support::RowCase(*forward, 9, 7, 15, 12, false, 0, 0, 1, 2);
    Case other = c;
    ASSERT_TRUE(backward->takes_scales) << backward->name;
    other.scales_h = 1.75;
    const std::vector<double> x0 = support::RandomValues(c.result_elements(), 9);
    const std::vector<double> g0 = support::RandomValues(c.grad_elements(), 10);
    std::vector<double> x, g;
    const support::RunOutput y = support::RunOperator(*forward, c, x0, RunOptions{}, &x);
    const support::RunOutput b = support::RunOperator(*backward, other, g0, RunOptions{}, &g);
    ASSERT_EQ(y.status, ACLNN_SUCCESS) << y.message;
    ASSERT_EQ(b.status, ACLNN_SUCCESS) << b.message;
    const Identity matched = Measure(*forward, *backward, c, RunOptions{}, 9);
    EXPECT_GT(std::abs(Dot(y.values, g) - Dot(x, b.values)), 100 * matched.tolerance)
        << forward->name;
  }
}

// ---------------------------------------------------------------------------------------------
// The exact statement: read the 1-D matrix of one axis off the forward (C = in planes, plane k
// the unit vector e_k, so output plane k is column k of A) and off the backward (C = out planes
// of unit gradients, so result plane k is row k of A), the other axis 1 -> 1 (weight exactly 1
// in both modes). Both runs multiply each weight by 1 and add zeros, so the float weights come
// out unchanged and the two readings must be equal as floats. (Equal as floats rather than as
// bits: an entry that is no tap may come out as -0 on one side, the sum of a negative weight
// times a zero input, and +0 on the other.)
std::vector<double> ReadMatrix(const aclnn_upsample_operator& op, reference::Op mode, int64_t in,
                               int64_t out, bool align, double scale, bool on_h) {
  const bool forward = op.direction == ACLNN_UPSAMPLE_FORWARD;
  const int64_t planes = forward ? in : out, length = forward ? in : out;
  const Case c = on_h ? reference::MakeResizeCase(mode, in, 1, out, 1, align, scale, 0, 1, planes)
                      : reference::MakeResizeCase(mode, 1, in, 1, out, align, 0, scale, 1, planes);
  std::vector<double> units(planes * length, 0.0);
  for (int64_t k = 0; k < planes; ++k) units[k * length + k] = 1.0;
  const support::RunOutput run = support::RunOperator(op, c, units, RunOptions{});
  EXPECT_EQ(run.status, ACLNN_SUCCESS) << op.name << " " << c.Name() << ": " << run.message;
  // As an out x in matrix: the forward's plane k holds A[., k], the backward's A[k, .].
  std::vector<double> matrix(out * in, 0.0);
  if (run.status != ACLNN_SUCCESS) return matrix;
  for (int64_t o = 0; o < out; ++o) {
    for (int64_t i = 0; i < in; ++i) {
      matrix[o * in + i] = forward ? run.values[i * out + o] : run.values[o * in + i];
    }
  }
  return matrix;
}

TEST(AdjointMatrices, ForwardMatrixIsExactlyTheBackwardTransposed) {
  struct Axis {
    int64_t in, out;
    double scale;
  };
  const Axis axes[] = {{5, 11, 0},   {11, 5, 0},  {7, 17, 2.5},      {7, 18, 2.5}, {20, 7, 0.375},
                       {9, 9, 1.25}, {9, 9, 0},   {1, 13, 0},        {13, 1, 0},   {2, 100, 0},
                       {40, 3, 0},   {16, 33, 0}, {33, 16, 0.484375}};
  for (const auto& [forward, backward] : Pairs()) {
    const reference::Op mode = support::ModeOf(*forward);
    for (const Axis& axis : axes) {
      for (bool requested_align : {false, true}) {
        for (bool on_h : {true, false}) {
          // The alignment and scale both rows read alike (see Agreed).
          const Case agreed = Agreed(*forward, *backward,
                                     on_h ? support::RowCase(*forward, axis.in, 1, axis.out, 1,
                                                             requested_align, axis.scale, 0)
                                          : support::RowCase(*forward, 1, axis.in, 1, axis.out,
                                                             requested_align, 0, axis.scale));
          const bool align = agreed.align_corners;
          const double scale = on_h ? agreed.scales_h : agreed.scales_w;
          const std::vector<double> from_forward =
              ReadMatrix(*forward, mode, axis.in, axis.out, align, scale, on_h);
          const std::vector<double> from_backward =
              ReadMatrix(*backward, mode, axis.in, axis.out, align, scale, on_h);
          int mismatches = 0, nonzero = 0;
          for (size_t k = 0; k < from_forward.size(); ++k) {
            nonzero += from_forward[k] != 0;
            if (from_forward[k] != from_backward[k] && ++mismatches <= 3) {
              ADD_FAILURE() << forward->name << " " << axis.in << "->" << axis.out << " scale "
                            << axis.scale << (align ? " align" : "") << (on_h ? " H" : " W")
                            << ": A[" << k / axis.in << "][" << k % axis.in << "] is "
                            << from_forward[k] << " forward, " << from_backward[k] << " backward";
            }
          }
          EXPECT_GE(nonzero, axis.out) << "every output row has a non-zero weight";
        }
      }
    }
  }
}

}  // namespace
