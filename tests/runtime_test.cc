// The host runtime of CANN's call examples (device 0 is the CPU) and the lifetime rules of the
// aclnn objects: repeatable executors, and tensors/arrays destroyed between the two phases.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnnop/aclnn_upsample_bicubic2d_aa_grad.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward_v2.h"
#include "support/reference.h"
#include "support/test_tensors.h"

// Under AddressSanitizer an impossible allocation aborts the process by default; the
// BAD_ALLOC test needs the allocator to return null as the C library does.
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }

namespace {

std::string RecentMessage() {
  const char* message = aclGetRecentErrMsg();
  return message == nullptr ? "<null>" : message;
}

// aclInit/aclFinalize bracket the whole binary, as in CANN's examples.
class AclEnvironment : public testing::Environment {
 public:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  }
  void TearDown() override {
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  }
};

const testing::Environment* const kEnvironment =
    testing::AddGlobalTestEnvironment(new AclEnvironment);

TEST(RuntimeTest, InitAndFinalizeCanBeRepeated) {
  EXPECT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(RuntimeTest, OnlyDeviceZeroExists) {
  EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  int32_t device = -1;
  EXPECT_EQ(aclrtGetDevice(&device), ACL_SUCCESS);
  EXPECT_EQ(device, 0);
  uint32_t count = 0;
  EXPECT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
  EXPECT_EQ(count, 1u);

  EXPECT_EQ(aclrtSetDevice(1), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentMessage().find("deviceId"), std::string::npos) << RecentMessage();
  EXPECT_EQ(aclrtSetDevice(-1), ACL_ERROR_INVALID_PARAM);
  // A failed switch leaves the current device alone.
  EXPECT_EQ(aclrtGetDevice(&device), ACL_SUCCESS);
  EXPECT_EQ(device, 0);
}

TEST(RuntimeTest, StreamsCreateSynchroniseDestroy) {
  aclrtStream first = nullptr, second = nullptr;
  ASSERT_EQ(aclrtCreateStream(&first), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStream(&second), ACL_SUCCESS);
  EXPECT_NE(first, nullptr);
  EXPECT_NE(first, second);
  EXPECT_EQ(aclrtSynchronizeStream(first), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(second), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);  // the default stream
  EXPECT_EQ(aclrtDestroyStream(first), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(second), ACL_SUCCESS);
  // Destroyed handles are looked up, not dereferenced.
  EXPECT_EQ(aclrtDestroyStream(first), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSynchronizeStream(second), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtCreateStream(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST(RuntimeTest, MallocOfZeroBytesFails) {
  void* pointer = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(aclrtMalloc(&pointer, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(pointer, nullptr);
  EXPECT_NE(RecentMessage().find("aclrtMalloc"), std::string::npos) << RecentMessage();
}

TEST(RuntimeTest, MallocOfImpossibleSizeIsBadAllocAndTheLibraryKeepsWorking) {
  void* pointer = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(aclrtMalloc(&pointer, SIZE_MAX / 2, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_BAD_ALLOC);
  EXPECT_EQ(pointer, nullptr);
  void* host = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(aclrtMallocHost(&host, SIZE_MAX), ACL_ERROR_BAD_ALLOC);
  EXPECT_EQ(host, nullptr);

  // Afterwards an ordinary allocation and an operator call still work.
  ASSERT_EQ(aclrtMalloc(&pointer, 1024, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
  ASSERT_NE(pointer, nullptr);
  std::memset(pointer, 0, 1024);
  const int64_t grad_dims[] = {1, 1, 2, 2}, out_dims[] = {1, 1, 1, 1};
  const int64_t output_size[] = {2, 2}, input_size[] = {1, 1, 1, 1};
  float* data = static_cast<float*>(pointer);
  for (int i = 0; i < 4; ++i) data[i] = 1.0f;
  aclTensor* grad =
      aclCreateTensor(grad_dims, 4, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCHW, grad_dims, 4, data);
  aclTensor* out =
      aclCreateTensor(out_dims, 4, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCHW, out_dims, 4, data + 16);
  aclIntArray* output_array = aclCreateIntArray(output_size, 2);
  aclIntArray* input_array = aclCreateIntArray(input_size, 4);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize(
                grad, output_array, input_array, false, 0.0, 0.0, out, &workspace_size, &executor),
            ACLNN_SUCCESS)
      << RecentMessage();
  std::vector<uint8_t> workspace(workspace_size);
  ASSERT_EQ(aclnnUpsampleBilinear2dBackwardV2(workspace.data(), workspace_size, executor, nullptr),
            ACLNN_SUCCESS);
  EXPECT_FLOAT_EQ(data[16], 4.0f);  // every gradOut element lands on the single input
  aclDestroyTensor(grad);
  aclDestroyTensor(out);
  aclDestroyIntArray(output_array);
  aclDestroyIntArray(input_array);
  EXPECT_EQ(aclrtFree(pointer), ACL_SUCCESS);
}

TEST(RuntimeTest, MemcpyCopiesForAllFourKinds) {
  constexpr size_t kBytes = 257;
  std::vector<uint8_t> host_a(kBytes), host_b(kBytes, 0);
  std::iota(host_a.begin(), host_a.end(), uint8_t{3});
  void* device_a = nullptr;
  void* device_b = nullptr;
  ASSERT_EQ(aclrtMalloc(&device_a, kBytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&device_b, kBytes, ACL_MEM_MALLOC_HUGE_ONLY), ACL_SUCCESS);

  // Host -> device -> device -> host -> host: the bytes must survive the whole chain.
  ASSERT_EQ(aclrtMemcpy(device_a, kBytes, host_a.data(), kBytes, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_SUCCESS);
  EXPECT_EQ(std::memcmp(device_a, host_a.data(), kBytes), 0);
  ASSERT_EQ(aclrtMemcpy(device_b, kBytes, device_a, kBytes, ACL_MEMCPY_DEVICE_TO_DEVICE),
            ACL_SUCCESS);
  EXPECT_EQ(std::memcmp(device_b, host_a.data(), kBytes), 0);
  ASSERT_EQ(aclrtMemcpy(host_b.data(), kBytes, device_b, kBytes, ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_SUCCESS);
  EXPECT_EQ(host_b, host_a);
  std::vector<uint8_t> host_c(kBytes, 0);
  ASSERT_EQ(aclrtMemcpy(host_c.data(), kBytes, host_b.data(), kBytes, ACL_MEMCPY_HOST_TO_HOST),
            ACL_SUCCESS);
  EXPECT_EQ(host_c, host_a);

  EXPECT_EQ(aclrtFree(device_a), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(device_b), ACL_SUCCESS);
}

TEST(RuntimeTest, MemcpyBeyondDestMaxFailsWithoutWriting) {
  std::vector<uint8_t> source(64, 0x11), destination(64, 0xEE);
  EXPECT_EQ(aclrtMemcpy(destination.data(), 32, source.data(), 33, ACL_MEMCPY_HOST_TO_HOST),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(destination, std::vector<uint8_t>(64, 0xEE));
  EXPECT_NE(RecentMessage().find("count"), std::string::npos) << RecentMessage();
  EXPECT_NE(RecentMessage().find("33"), std::string::npos) << RecentMessage();
  // An invalid kind fails too, and writes nothing.
  EXPECT_EQ(aclrtMemcpy(destination.data(), 64, source.data(), 64, static_cast<aclrtMemcpyKind>(7)),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(destination, std::vector<uint8_t>(64, 0xEE));
}

TEST(RuntimeTest, MemsetSetsTheCountedBytesOnly) {
  void* device = nullptr;
  ASSERT_EQ(aclrtMalloc(&device, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  uint8_t* bytes = static_cast<uint8_t*>(device);
  std::memset(bytes, 0x00, 64);
  ASSERT_EQ(aclrtMemset(device, 64, 0x5A, 40), ACL_SUCCESS);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(bytes[i], i < 40 ? 0x5A : 0x00) << "byte " << i;
  // count > maxCount fails and writes nothing.
  EXPECT_EQ(aclrtMemset(device, 16, 0x77, 17), ACL_ERROR_INVALID_PARAM);
  for (int i = 0; i < 64; ++i) EXPECT_NE(bytes[i], 0x77) << "byte " << i;
  EXPECT_EQ(aclrtFree(device), ACL_SUCCESS);
}

#if defined(__linux__)
// The VmFlags line of the /proc/self/smaps mapping that holds `address` ("hg": madvise
// MADV_HUGEPAGE, "nh": MADV_NOHUGEPAGE), or "" where no mapping holds it.
std::string MappingFlags(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  const auto wanted = reinterpret_cast<uintptr_t>(address);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long begin = 0, end = 0;  // NOLINT(google-runtime-int): sscanf's %lx
    if (std::sscanf(line.c_str(), "%lx-%lx ", &begin, &end) == 2 && line.find('-') < 17) {
      inside = begin <= wanted && wanted < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line + " ";
    }
  }
  return "";
}

TEST(RuntimeTest, MallocAsksForHugePagesUnlessNormalOnly) {
  if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) {
    GTEST_SKIP() << "this kernel has no transparent huge pages, so there is no advice to check";
  }
  constexpr size_t kHugePage = size_t{2} << 20;
  constexpr size_t kBytes = 3 * kHugePage + 100;  // not a whole number of huge pages
  for (aclrtMemMallocPolicy policy :
       {ACL_MEM_MALLOC_HUGE_FIRST, ACL_MEM_MALLOC_HUGE_ONLY, ACL_MEM_MALLOC_NORMAL_ONLY}) {
    SCOPED_TRACE(static_cast<int>(policy));
    void* buffer = nullptr;
    ASSERT_EQ(aclrtMalloc(&buffer, kBytes, policy), ACL_SUCCESS);
    const auto* bytes = static_cast<unsigned char*>(buffer);
    const std::string wanted = policy == ACL_MEM_MALLOC_NORMAL_ONLY ? " nh " : " hg ";
    // The first and the last byte lie in the advised range: it covers the whole buffer.
    EXPECT_NE(MappingFlags(bytes).find(wanted), std::string::npos) << MappingFlags(bytes);
    EXPECT_NE(MappingFlags(bytes + kBytes - 1).find(wanted), std::string::npos)
        << MappingFlags(bytes + kBytes - 1);
    if (policy != ACL_MEM_MALLOC_NORMAL_ONLY) {
      EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer) % kHugePage, 0U);
    }
    std::memset(buffer, 0x5a, kBytes);
    EXPECT_EQ(bytes[kBytes - 1], 0x5a);
    EXPECT_EQ(aclrtFree(buffer), ACL_SUCCESS);
  }
  // A small buffer keeps the ordinary alignment and no advice.
  void* small = nullptr;
  ASSERT_EQ(aclrtMalloc(&small, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small) % 64, 0U);
  EXPECT_EQ(aclrtFree(small), ACL_SUCCESS);
}
#endif

TEST(RuntimeTest, MallocHostAndFreeHost) {
  void* host = nullptr;
  ASSERT_EQ(aclrtMallocHost(&host, 4096), ACL_SUCCESS);
  ASSERT_NE(host, nullptr);
  std::memset(host, 0x42, 4096);  // the whole allocation is usable
  EXPECT_EQ(static_cast<uint8_t*>(host)[4095], 0x42);
  EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);
  void* none = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(aclrtMallocHost(&none, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(none, nullptr);
}

TEST(RuntimeTest, CreateTensorWithNullViewDimsAndNonZeroCountIsNull) {
  float data[4] = {};
  const int64_t storage[] = {4};
  EXPECT_EQ(aclCreateTensor(nullptr, 4, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCHW, storage, 1, data),
            nullptr);
  EXPECT_NE(RecentMessage().find("aclCreateTensor"), std::string::npos) << RecentMessage();
  EXPECT_EQ(aclCreateIntArray(nullptr, 2), nullptr);
}

// ---------------------------------------------------------------------------------------------
// The call example of contract 1.4, done as CANN's examples do it: device buffers, H2D copies,
// phase 1, phase 2 on a stream, synchronise, D2H copy.

struct DeviceProblem {
  std::vector<int64_t> grad_dims, output_size, input_size;
  std::vector<float> grad;
  bool align_corners = true;
  double scales_h = 2.0, scales_w = 2.0;
};

DeviceProblem BilinearExample() {
  return {{1, 1, 6, 6}, {6, 6}, {1, 1, 3, 3}, std::vector<float>(36, 1.0f)};
}

DeviceProblem BicubicExample() {
  DeviceProblem problem{{1, 1, 4, 2}, {4, 2}, {1, 1, 8, 4}, std::vector<float>(8)};
  std::iota(problem.grad.begin(), problem.grad.end(), 0.0f);
  return problem;
}

const std::vector<double> kBilinearExpected = {3.24, 4.32, 3.24, 4.32, 5.76,
                                               4.32, 3.24, 4.32, 3.24};
const std::vector<double> kBicubicExpected = {
    -0.037380, -0.021394, 0.076689, 0.210637, -0.019148, 0.026700, 0.200382, 0.428001,
    0.054657,  0.153699,  0.411533, 0.732542, 0.137444,  0.293525, 0.637135, 1.051797,
    0.170893,  0.347117,  0.715870, 1.156116, 0.237614,  0.463294, 0.912605, 1.443050,
    0.538375,  1.014847,  1.918604, 2.973265, 1.005456,  1.876058, 3.500808, 5.389207};

// Owns the device buffers of one problem and the aclnn objects describing them.
class DeviceCall {
 public:
  explicit DeviceCall(const DeviceProblem& problem) : problem_(problem) {
    grad_bytes_ = problem.grad.size() * sizeof(float);
    out_elements_ = 1;
    for (int64_t d : problem.input_size) out_elements_ *= static_cast<size_t>(d);
    EXPECT_EQ(aclrtMalloc(&grad_device_, grad_bytes_, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(aclrtMalloc(&out_device_, out_elements_ * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST),
              ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(grad_device_, grad_bytes_, problem.grad.data(), grad_bytes_,
                          ACL_MEMCPY_HOST_TO_DEVICE),
              ACL_SUCCESS);
    FillOut(0xA5);
    grad_ = aclCreateTensor(problem.grad_dims.data(), 4, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCHW,
                            problem.grad_dims.data(), 4, grad_device_);
    out_ = aclCreateTensor(problem.input_size.data(), 4, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCHW,
                           problem.input_size.data(), 4, out_device_);
    output_size_ = aclCreateIntArray(problem.output_size.data(), 2);
    input_size_ = aclCreateIntArray(problem.input_size.data(), 4);
    EXPECT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
  }

  ~DeviceCall() {
    DestroyDescriptions();
    if (workspace_ != nullptr) aclrtFree(workspace_);
    aclrtFree(grad_device_);
    aclrtFree(out_device_);
    aclrtDestroyStream(stream_);
  }

  // Phase 1 of either operator; allocates the reported workspace.
  template <typename GetWorkspaceSize>
  aclnnStatus Plan(GetWorkspaceSize get_workspace_size) {
    const aclnnStatus status = get_workspace_size(
        grad_, output_size_, input_size_, problem_.align_corners, problem_.scales_h,
        problem_.scales_w, out_, &workspace_size_, &executor_);
    if (status == ACLNN_SUCCESS && workspace_size_ > 0) {
      EXPECT_EQ(aclrtMalloc(&workspace_, workspace_size_, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    }
    return status;
  }

  // The caller may destroy the descriptions between the phases; the executor keeps what it needs.
  void DestroyDescriptions() {
    aclDestroyTensor(grad_);
    aclDestroyTensor(out_);
    aclDestroyIntArray(output_size_);
    aclDestroyIntArray(input_size_);
    grad_ = out_ = nullptr;
    output_size_ = input_size_ = nullptr;
  }

  void FillOut(int value) {
    EXPECT_EQ(aclrtMemset(out_device_, out_elements_ * sizeof(float), value,
                          out_elements_ * sizeof(float)),
              ACL_SUCCESS);
  }

  // Phase 2, synchronise, copy the result back.
  template <typename Run>
  aclnnStatus Execute(Run run, std::vector<float>* result) {
    const aclnnStatus status = run(workspace_, workspace_size_, executor_, stream_);
    EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    result->assign(out_elements_, 0.0f);
    EXPECT_EQ(aclrtMemcpy(result->data(), out_elements_ * sizeof(float), out_device_,
                          out_elements_ * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST),
              ACL_SUCCESS);
    return status;
  }

  aclOpExecutor* executor() const { return executor_; }

 private:
  DeviceProblem problem_;
  size_t grad_bytes_ = 0, out_elements_ = 0;
  void* grad_device_ = nullptr;
  void* out_device_ = nullptr;
  void* workspace_ = nullptr;
  uint64_t workspace_size_ = 0;
  aclTensor* grad_ = nullptr;
  aclTensor* out_ = nullptr;
  aclIntArray* output_size_ = nullptr;
  aclIntArray* input_size_ = nullptr;
  aclOpExecutor* executor_ = nullptr;
  aclrtStream stream_ = nullptr;
};

// Contract section 4: float32 within 1e-5 * m of the float64 result r (m: the sum of the
// magnitudes of the terms summed into r), here from the independent reference. The contract's
// printed values have 6 decimals, too few for that tolerance on small elements, so they check
// the reference instead, to within half their last digit.
void ExpectMatchesContract(reference::Op op, const DeviceProblem& problem,
                           const std::vector<float>& result,
                           const std::vector<double>& documented) {
  reference::Case c;
  c.op = op;
  c.n = problem.input_size[0];
  c.c = problem.input_size[1];
  c.in_h = problem.input_size[2];
  c.in_w = problem.input_size[3];
  c.out_h = problem.output_size[0];
  c.out_w = problem.output_size[1];
  c.align_corners = problem.align_corners;
  c.scales_h = problem.scales_h;
  c.scales_w = problem.scales_w;
  std::vector<double> expected, magnitude;
  reference::Backward(c, std::vector<double>(problem.grad.begin(), problem.grad.end()), &expected,
                      &magnitude);
  ASSERT_EQ(expected.size(), documented.size());
  for (size_t i = 0; i < documented.size(); ++i) {
    EXPECT_NEAR(expected[i], documented[i], 5e-7 + 1e-12) << "reference element " << i;
  }
  ASSERT_EQ(result.size(), expected.size());
  EXPECT_EQ(
      support::CountOutOfTolerance(ACL_FLOAT, std::vector<double>(result.begin(), result.end()),
                                   expected, magnitude, c.Name()),
      0);
}

TEST(LifetimeTest, BilinearDescriptionsDestroyedBetweenPhases) {
  DeviceCall call(BilinearExample());
  ASSERT_EQ(call.Plan(aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize), ACLNN_SUCCESS)
      << RecentMessage();
  call.DestroyDescriptions();
  std::vector<float> result;
  ASSERT_EQ(call.Execute(aclnnUpsampleBilinear2dBackwardV2, &result), ACLNN_SUCCESS)
      << RecentMessage();
  ExpectMatchesContract(reference::Op::kBilinear, BilinearExample(), result, kBilinearExpected);
}

TEST(LifetimeTest, BicubicDescriptionsDestroyedBetweenPhases) {
  DeviceCall call(BicubicExample());
  ASSERT_EQ(call.Plan(aclnnUpsampleBicubic2dAAGradGetWorkspaceSize), ACLNN_SUCCESS)
      << RecentMessage();
  call.DestroyDescriptions();
  std::vector<float> result;
  ASSERT_EQ(call.Execute(aclnnUpsampleBicubic2dAAGrad, &result), ACLNN_SUCCESS) << RecentMessage();
  ExpectMatchesContract(reference::Op::kBicubicAA, BicubicExample(), result, kBicubicExpected);
}

// A problem big enough to be cut into several tasks, with values that make any change of
// summation order visible in the bits.
DeviceProblem LargerProblem() {
  DeviceProblem problem{
      {2, 3, 37, 53}, {37, 53}, {2, 3, 17, 29}, std::vector<float>(2 * 3 * 37 * 53)};
  uint32_t state = 12345;
  for (float& value : problem.grad) {
    state = state * 1664525u + 1013904223u;
    value = static_cast<float>(static_cast<int32_t>(state >> 8) % 20001 - 10000) / 977.0f;
  }
  problem.align_corners = false;
  problem.scales_h = 0.0;
  problem.scales_w = 0.0;
  return problem;
}

template <typename GetWorkspaceSize, typename Run>
void ExpectRepeatableRunsIdentical(GetWorkspaceSize get_workspace_size, Run run) {
  DeviceCall call(LargerProblem());
  ASSERT_EQ(call.Plan(get_workspace_size), ACLNN_SUCCESS) << RecentMessage();
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(call.executor()), ACLNN_SUCCESS);
  call.DestroyDescriptions();
  std::vector<float> first;
  ASSERT_EQ(call.Execute(run, &first), ACLNN_SUCCESS) << RecentMessage();
  for (int repeat = 2; repeat <= 3; ++repeat) {
    call.FillOut(0x5C);  // a run must overwrite every element, not rely on earlier contents
    std::vector<float> again;
    ASSERT_EQ(call.Execute(run, &again), ACLNN_SUCCESS)
        << "run " << repeat << ": " << RecentMessage();
    EXPECT_EQ(std::memcmp(again.data(), first.data(), first.size() * sizeof(float)), 0)
        << "run " << repeat << " differs bitwise from run 1";
  }
  ASSERT_EQ(aclDestroyAclOpExecutor(call.executor()), ACLNN_SUCCESS);
  std::vector<float> after;
  EXPECT_EQ(call.Execute(run, &after), ACLNN_ERR_PARAM_INVALID) << "destroyed executor ran";
  EXPECT_EQ(aclDestroyAclOpExecutor(call.executor()), ACLNN_ERR_PARAM_INVALID);
}

TEST(LifetimeTest, BilinearRepeatableExecutorRunsThreeTimesIdentically) {
  ExpectRepeatableRunsIdentical(aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize,
                                aclnnUpsampleBilinear2dBackwardV2);
}

TEST(LifetimeTest, BicubicRepeatableExecutorRunsThreeTimesIdentically) {
  ExpectRepeatableRunsIdentical(aclnnUpsampleBicubic2dAAGradGetWorkspaceSize,
                                aclnnUpsampleBicubic2dAAGrad);
}

TEST(LifetimeTest, NullHandlesToDestroyAndRepeatable) {
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclDestroyAclOpExecutor(nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(reinterpret_cast<aclOpExecutor*>(0x1234)),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclDestroyTensor(nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyIntArray(nullptr), ACLNN_SUCCESS);
}

}  // namespace
