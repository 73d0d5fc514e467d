// The operators at the edges of what the contract allows (sections 3.1 and 4): the 2^20
// dimension limit, the N * C * H_out < 2^31 and 60 GiB rules exactly at their boundaries,
// allocation failure, float16 overflow and subnormal values.
//
// The size rules are checked from metadata alone: where a call must pass them, its big tensor
// lives in address space reserved with PROT_NONE (never touched, no memory committed) and the
// executor is destroyed without running.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "reliability/reliability_util.h"
#include "reliability/sparse_reference.h"
#include "support/row_sweeps.h"
#include "support/test_tensors.h"

namespace reliability {
namespace {

constexpr int64_t kMaxDim = int64_t{1} << 20;

class LimitsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  }
};

// Address space for a view that phase 1 validates but nobody reads or writes.
class Reservation {
 public:
  explicit Reservation(size_t bytes) : bytes_(bytes) {
    data_ = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  }
  ~Reservation() {
    if (data_ != MAP_FAILED) munmap(data_, bytes_);
  }
  void* data() const { return data_ == MAP_FAILED ? nullptr : data_; }

 private:
  size_t bytes_;
  void* data_;
};

struct Phase1Result {
  aclnnStatus status;
  std::string message;
};

// Phase 1 only; a successful executor is destroyed unused.
Phase1Result Phase1(const CallArgs& args, const TensorDesc& grad_desc, void* grad_data,
                    const TensorDesc& out_desc, void* out_data) {
  aclTensor* grad = grad_desc.Create(grad_data);
  aclTensor* out = out_desc.Create(out_data);
  uint64_t ws = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = GetWorkspace(args, grad, out, &ws, &executor);
  aclDestroyTensor(grad);
  aclDestroyTensor(out);
  if (status == ACLNN_SUCCESS) EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
  return {status, aclGetRecentErrMsg()};
}

// A contiguous NCHW problem with gradOut filled with `value` and out with NaN bytes.
struct Problem {
  CallArgs args;
  TensorDesc grad, out;
  std::vector<uint8_t> grad_data, out_data;

  Problem(Op op, aclDataType dtype, std::vector<int64_t> grad_dims, std::vector<int64_t> out_dims,
          double value) {
    args.op = op;
    args.output_size = {grad_dims[2], grad_dims[3]};
    args.input_size = out_dims;
    grad.dims = std::move(grad_dims);
    out.dims = std::move(out_dims);
    grad.dtype = out.dtype = dtype;
    const size_t elem = ElementSize(dtype);
    grad_data.resize(grad.StorageElements() * elem);
    for (size_t i = 0; i < grad_data.size(); i += elem) Store(dtype, value, grad_data.data() + i);
    out_data.assign(out.StorageElements() * elem, 0xFF);
  }
  aclnnStatus Run(std::string* error = nullptr) {
    return RunOnce(args, grad, grad_data.data(), out, out_data.data(), nullptr, error);
  }
  size_t size() const { return out_data.size() / ElementSize(out.dtype); }
  double At(size_t i) const {
    return Load(out.dtype, out_data.data() + i * ElementSize(out.dtype));
  }
  uint16_t BitsAt(size_t i) const {
    uint16_t bits;
    std::memcpy(&bits, out_data.data() + 2 * i, 2);
    return bits;
  }
};

// --- The 2^20 dimension limit ---------------------------------------------------------------

TEST_F(LimitsTest, WidthOfExactly2To20Works) {
  // Backward of a 2x bilinear upsample from 2^19 to 2^20 columns: with gradOut all ones every
  // input column collects 0.25 + 0.75 + 0.75 + 0.25 = 2 (the borders too, by clamping).
  Problem p(Op::kBilinear, ACL_FLOAT, {1, 1, 1, kMaxDim}, {1, 1, 1, kMaxDim / 2}, 1.0);
  std::string error;
  ASSERT_EQ(p.Run(&error), ACLNN_SUCCESS) << error;
  for (size_t i = 0; i < p.size(); ++i) ASSERT_EQ(p.At(i), 2.0) << "column " << i;
}

TEST_F(LimitsTest, HeightOfExactly2To20Works) {
  Problem p(Op::kBilinear, ACL_FLOAT, {1, 1, kMaxDim, 1}, {1, 1, kMaxDim / 2, 1}, 1.0);
  std::string error;
  ASSERT_EQ(p.Run(&error), ACLNN_SUCCESS) << error;
  for (size_t i = 0; i < p.size(); ++i) ASSERT_EQ(p.At(i), 2.0) << "row " << i;
}

TEST_F(LimitsTest, BicubicWidthOfExactly2To20Works) {
  // Every element against the float64 reference (the taps of each row only: dense, this axis
  // would be 2^39 entries). gradOutput varies, so that a wrong weight, or a right one applied
  // to the wrong column, moves the elements it touches; a sum would not see either, since
  // normalised rows keep the total whatever their weights.
  Problem p(Op::kBicubicAA, ACL_FLOAT, {1, 1, 1, kMaxDim}, {1, 1, 1, kMaxDim / 2}, 0.0);
  std::vector<double> grad(kMaxDim);
  for (int64_t i = 0; i < kMaxDim; ++i) {
    grad[i] = static_cast<double>((i * 37) % 61 - 30) / 16.0;  // exact in float32
    Store(ACL_FLOAT, grad[i], p.grad_data.data() + 4 * i);
  }
  std::string error;
  ASSERT_EQ(p.Run(&error), ACLNN_SUCCESS) << error;
  std::vector<double> expected, magnitude;
  SparseBackward(BicubicAARows(1, 1, false, 0.0), BicubicAARows(kMaxDim / 2, kMaxDim, false, 0.0),
                 1, kMaxDim / 2, grad, &expected, &magnitude);
  ASSERT_EQ(p.size(), expected.size());
  for (size_t i = 0; i < p.size(); ++i) {
    ASSERT_NEAR(p.At(i), expected[i], support::Tolerance(ACL_FLOAT, expected[i], magnitude[i]))
        << "column " << i;
  }
}

TEST_F(LimitsTest, DimensionOf2To20Plus1IsRejected) {
  float grad[1] = {0}, out[1] = {0};
  for (Op op : {Op::kBilinear, Op::kBicubicAA}) {
    // In gradOut's width (with outputSize agreeing), in inputSize / out, and in N.
    const std::vector<std::vector<int64_t>> grad_dims = {
        {1, 1, 1, kMaxDim + 1}, {1, 1, 1, 2}, {kMaxDim + 1, 1, 1, 2}};
    const std::vector<std::vector<int64_t>> out_dims = {
        {1, 1, 1, 2}, {1, 1, 1, kMaxDim + 1}, {kMaxDim + 1, 1, 1, 1}};
    for (size_t i = 0; i < grad_dims.size(); ++i) {
      CallArgs args;
      args.op = op;
      args.output_size = {grad_dims[i][2], grad_dims[i][3]};
      args.input_size = out_dims[i];
      TensorDesc g, o;
      g.dims = grad_dims[i];
      o.dims = out_dims[i];
      g.strides = {0, 0, 0, 0};  // metadata only: one element of storage each
      o.strides = {0, 0, 0, 0};
      g.storage_elements = o.storage_elements = 1;
      const Phase1Result r = Phase1(args, g, grad, o, out);
      EXPECT_EQ(r.status, ACLNN_ERR_PARAM_INVALID) << OpName(op) << " case " << i;
      EXPECT_TRUE(r.message.find("2^20") != std::string::npos ||
                  r.message.find("1048576") != std::string::npos)
          << r.message;
    }
  }
}

// Every row of the operator table with a width of exactly 2^20 on its larger side: the forward
// rows shrinking 2^20 columns to 699051 (a ratio of 1.5, so the antialiased filters widen), the
// backward rows reading a gradient of 2^20 columns for 699051 (each row's upscaling limit
// admits 1.5), each element against the reference's sparse taps.
TEST_F(LimitsTest, EveryRowWorksAtAWidthOf2To20) {
  constexpr int64_t kOther = 699051;  // ceil(2^20 / 1.5)
  for (size_t i = 0; i < aclnn_upsample_operator_count(); ++i) {
    const aclnn_upsample_operator* op = aclnn_upsample_operator_at(i);
    if (op->direction == ACLNN_UPSAMPLE_FORWARD) {
      support::ExpectLongAxis(*op, kMaxDim, kOther);
    } else {
      support::ExpectLongAxis(*op, kOther, kMaxDim);
    }
  }
}

// --- N * C * H_out < 2^31 -------------------------------------------------------------------

// gradOut broadcast from one element (strides 0), out in reserved address space.
Phase1Result RowsCall(int64_t n, int64_t c, int64_t h_out, aclDataType dtype) {
  CallArgs args;
  args.op = Op::kBilinear;
  args.output_size = {h_out, 1};
  args.input_size = {n, c, 1, 1};
  TensorDesc g, o;
  g.dims = {n, c, h_out, 1};
  g.strides = {0, 0, 0, 0};
  g.storage_elements = 1;
  g.dtype = o.dtype = dtype;
  o.dims = {n, c, 1, 1};
  uint16_t grad[2] = {0, 0};
  Reservation out(static_cast<size_t>(n * c) * ElementSize(dtype));
  EXPECT_NE(out.data(), nullptr);
  return Phase1(args, g, grad, o, out.data());
}

TEST_F(LimitsTest, RowsJustBelow2To31PassTheRule) {
  // 2^31 - 1 is prime (beyond 2^20 itself), so no N, C, H_out <= 2^20 reach it; the largest
  // product below 2^31 that they can reach is 2^31 - 2 = 1386 * 49981 * 31.
  const Phase1Result r = RowsCall(1386, 49981, 31, ACL_FLOAT16);
  EXPECT_EQ(r.status, ACLNN_SUCCESS) << r.message;
  EXPECT_EQ(r.message.find("2^31"), std::string::npos) << r.message;
}

TEST_F(LimitsTest, RowsOfExactly2To31AreRejected) {
  const Phase1Result r = RowsCall(2048, 1, kMaxDim, ACL_FLOAT16);  // 2^11 * 2^20
  EXPECT_EQ(r.status, ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(r.message.find("2^31") != std::string::npos ||
              r.message.find("2147483648") != std::string::npos)
      << r.message;
}

// --- The 60 GiB footprint rule --------------------------------------------------------------

// (H_out * W_out + H_in * W_in + H_out * W_in) * N * C * sizeof with H_in = W_in = 1 and N*C
// chosen so that the sum of areas times N * C * sizeof is 60 GiB exactly when the areas sum to
// 2^20: N * C * sizeof = 61440. gradOut is broadcast, out (N*C elements) is real memory.
Phase1Result FootprintCall(aclDataType dtype, int64_t h_out, int64_t w_out) {
  const int64_t n = 15 * static_cast<int64_t>(4 / ElementSize(dtype)), c = 1024;
  CallArgs args;
  args.op = Op::kBilinear;
  args.output_size = {h_out, w_out};
  args.input_size = {n, c, 1, 1};
  TensorDesc g, o;
  g.dims = {n, c, h_out, w_out};
  g.strides = {0, 0, 0, 0};
  g.storage_elements = 1;
  g.dtype = o.dtype = dtype;
  o.dims = {n, c, 1, 1};
  std::vector<uint8_t> grad(4), out(static_cast<size_t>(n * c) * ElementSize(dtype));
  return Phase1(args, g, grad.data(), o, out.data());
}

TEST_F(LimitsTest, FootprintOfExactly60GiBIsRejected) {
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16}) {
    // 1023 * 1024 + 1 + 1023 = 2^20: (2^20) * 61440 bytes = 64424509440 = 60 GiB.
    const Phase1Result r = FootprintCall(dtype, 1023, 1024);
    EXPECT_EQ(r.status, ACLNN_ERR_PARAM_INVALID) << "dtype " << dtype;
    EXPECT_TRUE(r.message.find("60 GiB") != std::string::npos ||
                r.message.find("64424509440") != std::string::npos)
        << r.message;
  }
}

TEST_F(LimitsTest, FootprintJustBelow60GiBPasses) {
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16}) {
    // 2 * 524286 + 1 + 2 = 2^20 - 1: 60 GiB - 61440 bytes.
    const Phase1Result r = FootprintCall(dtype, 2, 524286);
    EXPECT_EQ(r.status, ACLNN_SUCCESS) << "dtype " << dtype << ": " << r.message;
  }
}

// --- Allocation failure ---------------------------------------------------------------------

TEST_F(LimitsTest, ImpossibleAllocationFailsCleanlyAndTheLibraryGoesOn) {
  for (size_t bytes : {std::numeric_limits<size_t>::max(), std::numeric_limits<size_t>::max() - 63,
                       size_t{1} << 62}) {
    void* p = reinterpret_cast<void*>(0x1);
    EXPECT_EQ(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_BAD_ALLOC) << bytes;
    EXPECT_EQ(p, nullptr);
    EXPECT_STRNE(aclGetRecentErrMsg(), "");
    void* host = reinterpret_cast<void*>(0x1);
    EXPECT_EQ(aclrtMallocHost(&host, bytes), ACL_ERROR_BAD_ALLOC) << bytes;
    EXPECT_EQ(host, nullptr);
  }
  // The next operator call (which allocates its workspace through aclrtMalloc) works.
  Problem p(Op::kBilinear, ACL_FLOAT, {1, 1, 6, 6}, {1, 1, 3, 3}, 1.0);
  p.args.align_corners = true;
  p.args.scales_h = p.args.scales_w = 2.0;
  std::string error;
  ASSERT_EQ(p.Run(&error), ACLNN_SUCCESS) << error;
  const double expected[9] = {3.24, 4.32, 3.24, 4.32, 5.76, 4.32, 3.24, 4.32, 3.24};
  for (size_t i = 0; i < 9; ++i) EXPECT_NEAR(p.At(i), expected[i], 1e-5) << i;
}

// --- float16 overflow -----------------------------------------------------------------------

TEST_F(LimitsTest, Float16ResultsBeyond65504BecomeInfinity) {
  // 2x bilinear backward sums four weights of total 4: 4 * 60000 = 240000 > 65504.
  Problem p(Op::kBilinear, ACL_FLOAT16, {1, 2, 16, 16}, {1, 2, 8, 8}, 60000.0);
  std::string error;
  ASSERT_EQ(p.Run(&error), ACLNN_SUCCESS) << error;
  for (size_t i = 0; i < p.size(); ++i) ASSERT_EQ(p.BitsAt(i), 0x7C00) << "element " << i;

  // And the negative side.
  Problem negative(Op::kBilinear, ACL_FLOAT16, {1, 1, 8, 8}, {1, 1, 4, 4}, -60000.0);
  ASSERT_EQ(negative.Run(&error), ACLNN_SUCCESS) << error;
  for (size_t i = 0; i < negative.size(); ++i) ASSERT_EQ(negative.BitsAt(i), 0xFC00) << i;

  // The same in float32 is exact.
  Problem wide(Op::kBilinear, ACL_FLOAT, {1, 1, 16, 16}, {1, 1, 8, 8}, 60000.0);
  ASSERT_EQ(wide.Run(&error), ACLNN_SUCCESS) << error;
  for (size_t i = 0; i < wide.size(); ++i) ASSERT_EQ(wide.At(i), 240000.0) << i;
}

TEST_F(LimitsTest, Float16AtTheLargestFiniteValueStaysFinite) {
  // 4 * 16376 = 65504 exactly; 4 * 16384 = 65536 rounds to Inf.
  Problem top(Op::kBilinear, ACL_FLOAT16, {1, 1, 8, 8}, {1, 1, 4, 4}, 16376.0);
  std::string error;
  ASSERT_EQ(top.Run(&error), ACLNN_SUCCESS) << error;
  for (size_t i = 0; i < top.size(); ++i) ASSERT_EQ(top.BitsAt(i), 0x7BFF) << i;
  Problem over(Op::kBilinear, ACL_FLOAT16, {1, 1, 8, 8}, {1, 1, 4, 4}, 16384.0);
  ASSERT_EQ(over.Run(&error), ACLNN_SUCCESS) << error;
  for (size_t i = 0; i < over.size(); ++i) ASSERT_EQ(over.BitsAt(i), 0x7C00) << i;
}

// --- Subnormals -----------------------------------------------------------------------------

TEST_F(LimitsTest, Float32SubnormalsAreNotFlushed) {
  // 2^-140 is subnormal in float32; times 0.25 and 0.75 it stays exact, and the result,
  // 4 * 2^-140 = 2^-138, is subnormal too.
  const double g = std::ldexp(1.0, -140);
  Problem p(Op::kBilinear, ACL_FLOAT, {1, 1, 8, 8}, {1, 1, 4, 4}, g);
  std::string error;
  ASSERT_EQ(p.Run(&error), ACLNN_SUCCESS) << error;
  for (size_t i = 0; i < p.size(); ++i) ASSERT_EQ(p.At(i), std::ldexp(1.0, -138)) << i;

  // 1e-40 (not a power of two): 4e-40 up to float32's rounding at the subnormal scale.
  Problem q(Op::kBilinear, ACL_FLOAT, {1, 1, 8, 8}, {1, 1, 4, 4}, 1e-40);
  ASSERT_EQ(q.Run(&error), ACLNN_SUCCESS) << error;
  const double one = static_cast<float>(1e-40);
  for (size_t i = 0; i < q.size(); ++i) {
    ASSERT_NEAR(q.At(i), 4 * one, 4 * std::ldexp(1.0, -149)) << i;
    ASSERT_LT(q.At(i), std::numeric_limits<float>::min()) << i;  // still subnormal
  }

  // Bicubic with equal sizes is the identity: subnormals come back bit for bit.
  Problem r(Op::kBicubicAA, ACL_FLOAT, {1, 1, 5, 7}, {1, 1, 5, 7}, 1e-40);
  ASSERT_EQ(r.Run(&error), ACLNN_SUCCESS) << error;
  for (size_t i = 0; i < r.size(); ++i) ASSERT_EQ(r.At(i), one) << i;
}

TEST_F(LimitsTest, Float16AndBFloat16SubnormalsAreNotFlushed) {
  // float16: 2^-20 is subnormal (16 * 2^-24); the 2x bilinear backward gives 2^-18 (0x0040).
  Problem half(Op::kBilinear, ACL_FLOAT16, {1, 1, 8, 8}, {1, 1, 4, 4}, std::ldexp(1.0, -20));
  std::string error;
  ASSERT_EQ(half.Run(&error), ACLNN_SUCCESS) << error;
  for (size_t i = 0; i < half.size(); ++i) ASSERT_EQ(half.BitsAt(i), 0x0040) << i;

  // The smallest float16 subnormal through the bicubic identity.
  Problem tiny(Op::kBicubicAA, ACL_FLOAT16, {1, 1, 4, 4}, {1, 1, 4, 4}, std::ldexp(1.0, -24));
  ASSERT_EQ(tiny.Run(&error), ACLNN_SUCCESS) << error;
  for (size_t i = 0; i < tiny.size(); ++i) ASSERT_EQ(tiny.BitsAt(i), 0x0001) << i;

  // bfloat16: 2^-130 is subnormal (0x0008); four times it is 2^-128 (0x0020).
  Problem bf(Op::kBilinear, ACL_BF16, {1, 1, 8, 8}, {1, 1, 4, 4}, std::ldexp(1.0, -130));
  ASSERT_EQ(bf.Run(&error), ACLNN_SUCCESS) << error;
  for (size_t i = 0; i < bf.size(); ++i) ASSERT_EQ(bf.BitsAt(i), 0x0020) << i;
}

// --- Extreme scales --------------------------------------------------------------------------

// Regression of fuzz finding bug 1 (fuzz/regressions/bug1_*, fixed in b020815): "downsampling
// has no limit" (contract 3.3), but with scalesH = 1e-300 the row bounds centre -+ support
// (about 1e300) were converted to int64 out of range (on x86 both became INT64_MIN, every row
// lost its taps and the result was all zeros). Formula 1.2 gives rows 0 and 1 the weight 1/in
// on every input and all other rows none, so with gradOutput all ones and an identity width
// every element is 2 / H_in.
TEST_F(LimitsTest, Bug1_BicubicTinyScaleKeepsItsTaps) {
  Problem p(Op::kBicubicAA, ACL_FLOAT, {1, 1, 4, 4}, {1, 1, 6, 4}, 1.0);
  p.args.scales_h = 1e-300;
  std::string error;
  ASSERT_EQ(p.Run(&error), ACLNN_SUCCESS) << error;
  for (size_t i = 0; i < p.size(); ++i) ASSERT_NEAR(p.At(i), 2.0 / 6.0, 1e-6) << "element " << i;
}

}  // namespace
}  // namespace reliability
