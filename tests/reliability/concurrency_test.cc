// Concurrency and determinism of the operators (the bilinear and bicubic AA backward rows in
// depth, every row of the table at once in one test), meant to run under ThreadSanitizer
// (tests/reliability/run_tsan.sh): many application threads share the library's one thread
// pool, executor registry and error state, and every result must be bitwise equal to the same
// call made alone; results must also be bitwise equal for every thread count (contract 4): 1 to
// 3, the library's default, and more threads than the machine has cores. The results that the
// others are compared with are checked element by element against the independent float64
// reference (tests/support/reference.h) with the contract's tolerance.
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "reliability/reliability_util.h"
#include "support/reference.h"
#include "support/test_tensors.h"

namespace reliability {
namespace {

constexpr int kThreads = 8;
constexpr int kRounds = 25;

void SetThreadCount(int threads) {
  // The library reads this in phase 1; only ever changed while no other thread calls it.
  ASSERT_EQ(setenv("ACLNN_UPSAMPLE_NUM_THREADS", std::to_string(threads).c_str(), 1), 0);
}

enum class Layout { kNchw, kNhwc, kNd, kChannelsLastStrides };

struct Case {
  std::string name;
  Layout layout = Layout::kNchw;
  int64_t n = 0, c = 0, h_out = 0, w_out = 0, h_in = 0, w_in = 0;  // the logical problem
  CallArgs args;
  TensorDesc grad, out;
  std::vector<uint8_t> grad_data;
  std::vector<uint8_t> expected;  // the same call made alone on the main thread
};

// gradOut (N, C, H_out, W_out) -> out (N, C, H_in, W_in) in the given layout, with values that
// are exact in every dtype (multiples of 1/64 in [-4, 4)).
Case MakeCase(Op op, aclDataType dtype, Layout layout, int64_t n, int64_t c, int64_t h_out,
              int64_t w_out, int64_t h_in, int64_t w_in, bool align = false, double scales_h = 0,
              double scales_w = 0) {
  Case k;
  k.layout = layout;
  k.n = n;
  k.c = c;
  k.h_out = h_out;
  k.w_out = w_out;
  k.h_in = h_in;
  k.w_in = w_in;
  k.args.op = op;
  k.args.align_corners = align;
  k.args.scales_h = scales_h;
  k.args.scales_w = scales_w;
  k.args.output_size = {h_out, w_out};
  const aclFormat format = layout == Layout::kNhwc ? ACL_FORMAT_NHWC
                           : layout == Layout::kNd ? ACL_FORMAT_ND
                                                   : ACL_FORMAT_NCHW;
  for (TensorDesc* t : {&k.grad, &k.out}) {
    t->dtype = dtype;
    t->format = format;
  }
  if (layout == Layout::kNhwc) {
    k.grad.dims = {n, h_out, w_out, c};
    k.out.dims = {n, h_in, w_in, c};
  } else {
    k.grad.dims = {n, c, h_out, w_out};
    k.out.dims = {n, c, h_in, w_in};
  }
  if (layout == Layout::kChannelsLastStrides) {
    k.grad.strides = {h_out * w_out * c, 1, w_out * c, c};
    k.out.strides = {h_in * w_in * c, 1, w_in * c, c};
  }
  k.args.input_size = k.out.dims;
  k.name = std::string(OpName(op)) + " dtype " + std::to_string(dtype) + " layout " +
           std::to_string(static_cast<int>(layout)) + " " + std::to_string(n) + "x" +
           std::to_string(c) + " " + std::to_string(h_out) + "x" + std::to_string(w_out) + " -> " +
           std::to_string(h_in) + "x" + std::to_string(w_in);
  const size_t elem = ElementSize(dtype);
  k.grad_data.resize(k.grad.StorageElements() * elem);
  std::mt19937 rng(static_cast<uint32_t>(h_out * 131 + w_out * 7 + c));
  for (size_t i = 0; i < k.grad_data.size() / elem; ++i) {
    Store(dtype, static_cast<double>(static_cast<int>(rng() % 512) - 256) / 64.0,
          k.grad_data.data() + i * elem);
  }
  return k;
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  const Op bl = Op::kBilinear, bc = Op::kBicubicAA;
  cases.push_back(MakeCase(bl, ACL_FLOAT, Layout::kNchw, 2, 3, 64, 48, 32, 24));
  cases.push_back(MakeCase(bl, ACL_FLOAT16, Layout::kNhwc, 1, 16, 40, 40, 17, 23, true));
  cases.push_back(MakeCase(bl, ACL_BF16, Layout::kChannelsLastStrides, 1, 16, 30, 20, 60, 40));
  cases.push_back(MakeCase(bl, ACL_FLOAT, Layout::kNchw, 1, 1, 120, 80, 60, 40, false, 2.0, 2.0));
  cases.push_back(MakeCase(bl, ACL_FLOAT16, Layout::kNchw, 1, 1, 64, 64, 128, 128));
  cases.push_back(MakeCase(bc, ACL_FLOAT, Layout::kNchw, 1, 2, 48, 40, 24, 20));
  cases.push_back(MakeCase(bc, ACL_FLOAT16, Layout::kNd, 2, 1, 16, 16, 64, 64));
  cases.push_back(MakeCase(bc, ACL_BF16, Layout::kChannelsLastStrides, 1, 16, 20, 20, 10, 10));
  cases.push_back(MakeCase(bc, ACL_FLOAT, Layout::kNchw, 1, 4, 33, 17, 66, 34, false, 0.5, 0.5));
  cases.push_back(MakeCase(bc, ACL_BF16, Layout::kNchw, 1, 1, 97, 61, 150, 100, true));
  return cases;
}

// Storage index of logical element (n, c, h, w) of a case's tensor, in either axis order.
int64_t StorageIndex(const Case& k, const TensorDesc& t, int64_t n, int64_t c, int64_t h,
                     int64_t w) {
  const std::vector<int64_t> s = t.Strides();
  return k.layout == Layout::kNhwc ? t.offset + n * s[0] + h * s[1] + w * s[2] + c * s[3]
                                   : t.offset + n * s[0] + c * s[1] + h * s[2] + w * s[3];
}

// Every element of a result against the float64 reference computed from the same (already
// rounded) gradOut, within the contract's tolerance. Returns "" or the first mismatches.
std::string CheckAgainstReference(const Case& k, const std::vector<uint8_t>& got) {
  reference::Case rc;
  rc.op = k.args.op == Op::kBilinear ? reference::Op::kBilinear : reference::Op::kBicubicAA;
  rc.n = k.n;
  rc.c = k.c;
  rc.in_h = k.h_in;
  rc.in_w = k.w_in;
  rc.out_h = k.h_out;
  rc.out_w = k.w_out;
  rc.align_corners = k.args.align_corners;
  rc.scales_h = k.args.scales_h;
  rc.scales_w = k.args.scales_w;
  const aclDataType dtype = k.out.dtype;
  const size_t elem = ElementSize(dtype);
  std::vector<double> grad;
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t c = 0; c < k.c; ++c)
      for (int64_t h = 0; h < k.h_out; ++h)
        for (int64_t w = 0; w < k.w_out; ++w)
          grad.push_back(
              Load(dtype, k.grad_data.data() + StorageIndex(k, k.grad, n, c, h, w) * elem));
  std::vector<double> expected, magnitude;
  reference::Backward(rc, grad, &expected, &magnitude);
  std::string failures;
  int count = 0;
  size_t i = 0;
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t c = 0; c < k.c; ++c)
      for (int64_t h = 0; h < k.h_in; ++h)
        for (int64_t w = 0; w < k.w_in; ++w, ++i) {
          const double v = Load(dtype, got.data() + StorageIndex(k, k.out, n, c, h, w) * elem);
          const double tolerance = support::Tolerance(dtype, expected[i], magnitude[i]);
          if (std::fabs(v - expected[i]) <= tolerance) continue;
          if (++count <= 3) {
            std::ostringstream line;
            line.precision(9);
            line << " (" << n << "," << c << "," << h << "," << w << ") = " << v << ", reference "
                 << expected[i] << " +- " << tolerance << ";";
            failures += line.str();
          }
        }
  if (count == 0) return "";
  return std::to_string(count) + " elements outside the contract's tolerance:" + failures;
}

// Runs a case into a buffer that starts as all-ones bytes (NaN in every dtype), so that an
// element the call forgets to write shows up as a difference too.
std::vector<uint8_t> RunCase(const Case& k, aclrtStream stream, bool repeatable_twice,
                             std::string* error) {
  std::vector<uint8_t> out(k.out.StorageElements() * ElementSize(k.out.dtype), 0xFF);
  if (!repeatable_twice) {
    const aclnnStatus status =
        RunOnce(k.args, k.grad, k.grad_data.data(), k.out, out.data(), stream, error);
    if (status != ACLNN_SUCCESS) return {};
    return out;
  }
  // The same executor run twice (repeatable), the second time over a NaN-filled buffer again.
  aclTensor* grad = k.grad.Create(const_cast<uint8_t*>(k.grad_data.data()));
  aclTensor* result = k.out.Create(out.data());
  uint64_t ws_size = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = GetWorkspace(k.args, grad, result, &ws_size, &executor);
  aclDestroyTensor(grad);
  aclDestroyTensor(result);
  if (status != ACLNN_SUCCESS || aclSetAclOpExecutorRepeatable(executor) != ACLNN_SUCCESS) {
    *error = aclGetRecentErrMsg();
    return {};
  }
  std::vector<uint8_t> ws(std::max<uint64_t>(ws_size, 1));
  std::vector<uint8_t> first;
  for (int run = 0; run < 2 && status == ACLNN_SUCCESS; ++run) {
    std::fill(out.begin(), out.end(), 0xFF);
    status = Execute(k.args.op, ws.data(), ws_size, executor, stream);
    if (run == 0) first = out;
  }
  aclDestroyAclOpExecutor(executor);
  if (status != ACLNN_SUCCESS) {
    *error = aclGetRecentErrMsg();
    return {};
  }
  if (first != out) *error = "repeatable executor: second run differs from the first";
  return out;
}

TEST(ConcurrencyTest, EightThreadsMatchTheSameCallsMadeAlone) {
  SetThreadCount(2);  // before the first call: the threads share a pool of one helper
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  std::vector<Case> cases = Cases();
  for (Case& k : cases) {
    std::string error;
    k.expected = RunCase(k, nullptr, false, &error);
    ASSERT_FALSE(k.expected.empty()) << k.name << ": " << error;
    ASSERT_EQ(CheckAgainstReference(k, k.expected), "") << k.name;
  }

  std::atomic<int> mismatches{0};
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::string& failure = failures[t];
      if (aclrtSetDevice(0) != ACL_SUCCESS) failure = "aclrtSetDevice failed";
      aclrtStream stream = nullptr;
      if (aclrtCreateStream(&stream) != ACL_SUCCESS) failure = "aclrtCreateStream failed";
      for (int round = 0; round < kRounds && failure.empty(); ++round) {
        for (size_t i = 0; i < cases.size() && failure.empty(); ++i) {
          // Each thread walks the cases from its own starting point, so that different
          // operators, dtypes and layouts overlap in time.
          const Case& k = cases[(i + t) % cases.size()];
          std::string error;
          const std::vector<uint8_t> got = RunCase(k, stream, (t + round + i) % 3 == 0, &error);
          if (!error.empty()) {
            failure = k.name + ": " + error;
          } else if (got != k.expected) {
            ++mismatches;
            failure = k.name + ": result differs from the call made alone";
          }
          // The error message is per thread: a failure here, with a value only this thread
          // uses, must be what this thread reads back while the others keep succeeding.
          const int64_t bad = -1000 - t;
          CallArgs wrong = k.args;
          wrong.output_size[0] = bad;
          aclTensor* grad = k.grad.Create(const_cast<uint8_t*>(k.grad_data.data()));
          std::vector<uint8_t> sink(k.out.StorageElements() * ElementSize(k.out.dtype));
          aclTensor* out = k.out.Create(sink.data());
          uint64_t ws = 0;
          aclOpExecutor* executor = nullptr;
          const aclnnStatus status = GetWorkspace(wrong, grad, out, &ws, &executor);
          aclDestroyTensor(grad);
          aclDestroyTensor(out);
          const std::string message = aclGetRecentErrMsg();
          if (status != ACLNN_ERR_PARAM_INVALID ||
              message.find(std::to_string(bad)) == std::string::npos) {
            failure = "thread " + std::to_string(t) + " read another thread's error: " + message;
          }
        }
      }
      if (stream != nullptr && aclrtDestroyStream(stream) != ACL_SUCCESS) {
        failure = "aclrtDestroyStream failed";
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
  EXPECT_EQ(mismatches.load(), 0);
}

// Shapes that phase 1 cuts into row bands once there are more threads than (n, c) planes.
std::vector<Case> BandedCases(Op op, aclDataType dtype) {
  return {MakeCase(op, dtype, Layout::kNchw, 1, 1, 300, 200, 97, 61),
          MakeCase(op, dtype, Layout::kNchw, 1, 1, 64, 64, 512, 512),
          MakeCase(op, dtype, Layout::kChannelsLastStrides, 2, 16, 40, 30, 23, 57)};
}

TEST(ConcurrencyTest, BitwiseIdenticalForOneTwoAndThreeThreads) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  for (Op op : {Op::kBilinear, Op::kBicubicAA}) {
    for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      for (const Case& k : BandedCases(op, dtype)) {
        std::vector<uint8_t> one_thread;
        for (int threads : {1, 2, 3}) {
          SetThreadCount(threads);
          std::string error;
          const std::vector<uint8_t> got = RunCase(k, nullptr, false, &error);
          ASSERT_FALSE(got.empty()) << k.name << ": " << error;
          if (threads == 1) {
            one_thread = got;
            EXPECT_EQ(CheckAgainstReference(k, got), "") << k.name;
          } else {
            EXPECT_TRUE(got == one_thread) << k.name << ": " << threads << " threads differ from 1";
          }
        }
      }
    }
  }
  SetThreadCount(2);
}

int CoresAvailable() {
  cpu_set_t cpus;
  return sched_getaffinity(0, sizeof(cpus), &cpus) == 0 ? std::max(1, CPU_COUNT(&cpus)) : 1;
}

// Problems that move 1.1 to 2.3 MiB (gradOut read plus result written), so that the default
// thread count, one thread per 128 KiB of that traffic up to the cores available, is 2 or more
// on any machine with 2 cores or more; planar and channels-last, upsampling and downsampling.
std::vector<Case> DefaultThreadCases(Op op, aclDataType dtype) {
  return {MakeCase(op, dtype, Layout::kNchw, 1, 4, 320, 384, 160, 192),
          MakeCase(op, dtype, Layout::kChannelsLastStrides, 1, 16, 192, 160, 96, 80),
          MakeCase(op, dtype, Layout::kNchw, 1, 4, 96, 80, 352, 384)};
}

TEST(ConcurrencyTest, BitwiseIdenticalAtTheDefaultAndAtMoreThreadsThanCores) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  const int cores = CoresAvailable();
  ASSERT_GE(cores, 1);
  // 0: ACLNN_UPSAMPLE_NUM_THREADS unset (the library's default); the rest oversubscribe the
  // cores this process may use, fixed counts and counts derived from the machine.
  const std::set<int> counts = {0, 5, 8, cores + 1, 2 * cores + 3};
  for (Op op : {Op::kBilinear, Op::kBicubicAA}) {
    for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      for (const Case& k : DefaultThreadCases(op, dtype)) {
        std::string error;
        SetThreadCount(1);
        const std::vector<uint8_t> one = RunCase(k, nullptr, false, &error);
        ASSERT_FALSE(one.empty()) << k.name << ": " << error;
        for (int threads : counts) {
          if (threads == 0) {
            ASSERT_EQ(unsetenv("ACLNN_UPSAMPLE_NUM_THREADS"), 0);
          } else {
            if (threads <= cores) continue;  // not oversubscribed on this machine
            SetThreadCount(threads);
          }
          const std::vector<uint8_t> got = RunCase(k, nullptr, false, &error);
          ASSERT_FALSE(got.empty()) << k.name << ": " << error;
          EXPECT_TRUE(got == one) << k.name << ": "
                                  << (threads == 0 ? std::string("the default thread count")
                                                   : std::to_string(threads) + " threads")
                                  << " differ from 1 thread on " << cores << " cores";
        }
      }
    }
  }
  SetThreadCount(2);
}

// Every row of the operator table at once: eight threads run all rows (forward and backward,
// each on a shape with several planes and bands), each from its own starting row, and every
// result must be bitwise equal to the same call made alone, which is first checked against the
// float64 reference.
TEST(ConcurrencyTest, EveryRowOfTheTableMatchesItsCallMadeAlone) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  struct RowCall {
    const aclnn_upsample_operator* op;
    reference::Case problem;
    std::vector<double> source;
    std::vector<uint8_t> expected;
  };
  std::vector<RowCall> calls;
  for (size_t i = 0; i < aclnn_upsample_operator_count(); ++i) {
    RowCall call;
    call.op = aclnn_upsample_operator_at(i);
    call.problem = support::RowCase(*call.op, 37, 29, 61, 17, i % 2 == 0, 0, 0, 2, 3);
    const bool forward = call.op->direction == ACLNN_UPSAMPLE_FORWARD;
    call.source = support::RandomValues(
        forward ? call.problem.result_elements() : call.problem.grad_elements(), 31 + i);
    support::RunOptions options;
    options.dtype = i % 3 == 0 ? ACL_BF16 : ACL_FLOAT;
    call.expected =
        support::ExpectMatchesReference(*call.op, call.problem, call.source, options, call.op->name)
            .raw_bits;
    calls.push_back(std::move(call));
  }
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 4 && failures[t].empty(); ++round) {
        for (size_t i = 0; i < calls.size() && failures[t].empty(); ++i) {
          const size_t at = (i + t) % calls.size();
          const RowCall& call = calls[at];
          support::RunOptions options;
          options.dtype = at % 3 == 0 ? ACL_BF16 : ACL_FLOAT;
          const support::RunOutput run =
              support::RunOperator(*call.op, call.problem, call.source, options);
          if (run.status != ACLNN_SUCCESS) {
            failures[t] = std::string(call.op->name) + ": " + run.message;
          } else if (run.raw_bits != call.expected) {
            failures[t] = std::string(call.op->name) + ": result differs from the call made alone";
          }
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
}

}  // namespace
}  // namespace reliability
