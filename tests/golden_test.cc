// Golden tests: every case of tests/golden/golden_cases.txt (made by
// tests/golden/generate_golden.py from PyTorch in float64) is run through the public C API in
// float32 and held to the contract's tolerance, |lib - expect| <= 1e-5 * m per element, where m
// (the `mag` block) is the sum of the magnitudes of the terms that make up the element.
// Only the public headers are used, so this also checks the API the way a CANN user calls it.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnnop/aclnn_upsample_bicubic2d_aa_grad.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward_v2.h"

namespace {

constexpr char kGoldenPath[] = ACLNN_UPSAMPLE_TEST_DATA_DIR "/golden/golden_cases.txt";
constexpr double kRelTol = 1e-5;  // contract section 4, float32
// Keeps an element whose m is exactly 0 (no contributing terms) comparable: it must be 0.
constexpr double kAbsFloor = 1e-30;

struct GoldenCase {
  std::string name;
  std::string op;  // "bilinear" or "bicubic_aa"
  bool align = false;
  double scales_h = 0.0;
  double scales_w = 0.0;
  int64_t n = 0, c = 0, h_out = 0, w_out = 0, h_in = 0, w_in = 0;
  std::vector<float> grad;
  std::vector<double> expect;
  std::vector<double> mag;
  std::vector<double> torch32;  // torch's own float32 answer; informational only
};

struct GoldenFile {
  std::vector<GoldenCase> cases;
  std::string error;  // non-empty when the file could not be read completely
};

template <typename T>
bool ReadValues(std::istream& in, size_t count, std::vector<T>* values) {
  values->resize(count);
  for (size_t i = 0; i < count; ++i) {
    // Read through double: istream >> float rejects subnormals on some libstdc++ versions.
    double v;
    if (!(in >> v)) return false;
    (*values)[i] = static_cast<T>(v);
  }
  return true;
}

GoldenFile Parse(const std::string& path) {
  GoldenFile file;
  std::ifstream in(path);
  if (!in) {
    file.error = "cannot open " + path;
    return file;
  }
  std::string token;
  GoldenCase* current = nullptr;
  while (in >> token) {
    if (token[0] == '#') {
      std::getline(in, token);
      continue;
    }
    if (token == "case") {
      file.cases.emplace_back();
      current = &file.cases.back();
      int align = 0;
      in >> current->name >> current->op >> align >> current->scales_h >> current->scales_w >>
          current->n >> current->c >> current->h_out >> current->w_out >> current->h_in >>
          current->w_in;
      current->align = align != 0;
      if (!in || (current->op != "bilinear" && current->op != "bicubic_aa")) {
        file.error = "bad case header near case " + std::to_string(file.cases.size());
        return file;
      }
      continue;
    }
    if (current == nullptr) {
      file.error = "block '" + token + "' before the first case";
      return file;
    }
    const size_t out_count =
        static_cast<size_t>(current->n * current->c * current->h_out * current->w_out);
    const size_t in_count =
        static_cast<size_t>(current->n * current->c * current->h_in * current->w_in);
    bool ok = false;
    if (token == "grad") {
      ok = ReadValues(in, out_count, &current->grad);
    } else if (token == "expect") {
      ok = ReadValues(in, in_count, &current->expect);
    } else if (token == "mag") {
      ok = ReadValues(in, in_count, &current->mag);
    } else if (token == "torch32") {
      ok = ReadValues(in, in_count, &current->torch32);
    }
    if (!ok) {
      file.error = "bad block '" + token + "' in case " + current->name;
      return file;
    }
  }
  for (const GoldenCase& gc : file.cases) {
    if (gc.grad.empty() || gc.expect.empty() || gc.mag.empty()) {
      file.error = "case " + gc.name + " lacks grad, expect or mag";
      return file;
    }
  }
  return file;
}

// Parsed once: the test instantiation below needs the case names before any test runs.
const GoldenFile& Golden() {
  static const GoldenFile* const file = new GoldenFile(Parse(kGoldenPath));
  return *file;
}

// The runtime is set up the way CANN's call examples do it, once for the whole binary.
aclrtStream g_stream = nullptr;

class AclEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    ASSERT_EQ(aclrtCreateStream(&g_stream), ACL_SUCCESS);
  }
  void TearDown() override {
    if (g_stream != nullptr) aclrtDestroyStream(g_stream);
    aclrtResetDevice(0);
    aclFinalize();
  }
};

const ::testing::Environment* const kAclEnvironment =
    ::testing::AddGlobalTestEnvironment(new AclEnvironment);

std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size() - 1; i > 0; --i) strides[i - 1] = strides[i] * dims[i];
  return strides;
}

aclTensor* MakeTensor(const std::vector<int64_t>& dims, float* data) {
  const std::vector<int64_t> strides = ContiguousStrides(dims);
  return aclCreateTensor(dims.data(), dims.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_NCHW,
                         dims.data(), dims.size(), data);
}

// Runs one case through the two-phase C API; returns "" on success, else what went wrong.
std::string RunCase(const GoldenCase& gc, std::vector<float>* out) {
  std::vector<float> grad = gc.grad;  // the API takes a non-const data pointer
  // NaN everywhere first, so an element the library forgets to write cannot pass.
  out->assign(gc.expect.size(), std::numeric_limits<float>::quiet_NaN());
  aclTensor* grad_tensor = MakeTensor({gc.n, gc.c, gc.h_out, gc.w_out}, grad.data());
  aclTensor* out_tensor = MakeTensor({gc.n, gc.c, gc.h_in, gc.w_in}, out->data());
  const int64_t output_size[2] = {gc.h_out, gc.w_out};
  const int64_t input_size[4] = {gc.n, gc.c, gc.h_in, gc.w_in};
  aclIntArray* output_array = aclCreateIntArray(output_size, 2);
  aclIntArray* input_array = aclCreateIntArray(input_size, 4);
  if (grad_tensor == nullptr || out_tensor == nullptr || output_array == nullptr ||
      input_array == nullptr) {
    return std::string("creating tensors/arrays failed: ") + aclGetRecentErrMsg();
  }

  const bool bilinear = gc.op == "bilinear";
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = bilinear ? aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize(
                                      grad_tensor, output_array, input_array, gc.align, gc.scales_h,
                                      gc.scales_w, out_tensor, &workspace_size, &executor)
                                : aclnnUpsampleBicubic2dAAGradGetWorkspaceSize(
                                      grad_tensor, output_array, input_array, gc.align, gc.scales_h,
                                      gc.scales_w, out_tensor, &workspace_size, &executor);
  std::string error;
  if (status != ACLNN_SUCCESS) {
    error = "GetWorkspaceSize returned " + std::to_string(status) + ": " + aclGetRecentErrMsg();
  } else {
    std::vector<uint8_t> workspace(workspace_size);
    void* workspace_ptr = workspace_size > 0 ? workspace.data() : nullptr;
    status =
        bilinear
            ? aclnnUpsampleBilinear2dBackwardV2(workspace_ptr, workspace_size, executor, g_stream)
            : aclnnUpsampleBicubic2dAAGrad(workspace_ptr, workspace_size, executor, g_stream);
    if (status != ACLNN_SUCCESS) {
      error = "execute returned " + std::to_string(status) + ": " + aclGetRecentErrMsg();
    } else if (aclrtSynchronizeStream(g_stream) != ACL_SUCCESS) {
      error = std::string("aclrtSynchronizeStream failed: ") + aclGetRecentErrMsg();
    }
  }
  aclDestroyTensor(grad_tensor);
  aclDestroyTensor(out_tensor);
  aclDestroyIntArray(output_array);
  aclDestroyIntArray(input_array);
  return error;
}

// |got - want| measured in units of the contract's allowed error, 1e-5 * m.
double ErrorRatio(double got, double want, double mag) {
  const double diff = std::fabs(got - want);
  if (std::isnan(diff)) return std::numeric_limits<double>::infinity();
  return diff / (kRelTol * mag + kAbsFloor);
}

struct Comparison {
  double worst_ratio = 0.0;
  size_t worst_index = 0;
  size_t failures = 0;
  std::string first_failures;  // a few offending elements, for the failure message
  double worst_torch32_ratio = 0.0;
};

Comparison Compare(const GoldenCase& gc, const std::vector<float>& out) {
  Comparison cmp;
  for (size_t i = 0; i < out.size(); ++i) {
    const double ratio = ErrorRatio(out[i], gc.expect[i], gc.mag[i]);
    if (ratio > cmp.worst_ratio || i == 0) {
      cmp.worst_ratio = ratio;
      cmp.worst_index = i;
    }
    if (!(ratio <= 1.0)) {
      if (++cmp.failures <= 5) {
        std::ostringstream line;
        line.precision(9);
        line << "  [" << i << "] lib " << out[i] << " expect " << gc.expect[i] << " |diff| "
             << std::fabs(out[i] - gc.expect[i]) << " tol " << kRelTol * gc.mag[i] << " ratio "
             << ratio << "\n";
        cmp.first_failures += line.str();
      }
    }
    if (!gc.torch32.empty()) {
      cmp.worst_torch32_ratio =
          std::max(cmp.worst_torch32_ratio, ErrorRatio(out[i], gc.torch32[i], gc.mag[i]));
    }
  }
  return cmp;
}

class GoldenTest : public ::testing::TestWithParam<size_t> {};

TEST_P(GoldenTest, MatchesTorchFloat64) {
  const GoldenCase& gc = Golden().cases[GetParam()];
  std::vector<float> out;
  const std::string error = RunCase(gc, &out);
  ASSERT_EQ(error, "") << gc.name;
  const Comparison cmp = Compare(gc, out);
  std::cout << gc.name << ": worst |lib-expect|/(1e-5*m) = " << cmp.worst_ratio << " at ["
            << cmp.worst_index << "]; vs torch float32: " << cmp.worst_torch32_ratio << "\n";
  EXPECT_EQ(cmp.failures, 0u) << gc.name << ": " << cmp.failures << " of " << out.size()
                              << " elements outside 1e-5*m; first ones:\n"
                              << cmp.first_failures;
}

std::vector<size_t> CaseIndices() {
  std::vector<size_t> indices(Golden().cases.size());
  for (size_t i = 0; i < indices.size(); ++i) indices[i] = i;
  return indices;
}

INSTANTIATE_TEST_SUITE_P(Torch, GoldenTest, ::testing::ValuesIn(CaseIndices()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return Golden().cases[info.param].name;
                         });
// An unreadable file leaves the suite empty; GoldenSummary below reports why.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GoldenTest);

// Guards against a truncated or missing fixture silently testing nothing, and prints the worst
// case of each operator in one place.
TEST(GoldenSummary, AllCasesLoadedAndWorstRatio) {
  const GoldenFile& file = Golden();
  ASSERT_EQ(file.error, "");
  ASSERT_GE(file.cases.size(), 40u);
  std::map<std::string, std::pair<double, std::string>> worst;  // op -> (ratio, case)
  for (const GoldenCase& gc : file.cases) {
    std::vector<float> out;
    if (!RunCase(gc, &out).empty()) continue;  // reported by the case's own test
    const double ratio = Compare(gc, out).worst_ratio;
    auto& entry = worst[gc.op];
    if (ratio >= entry.first) entry = {ratio, gc.name};
  }
  for (const auto& [op, entry] : worst) {
    std::cout << "worst " << op << " case: " << entry.second
              << ", |lib-expect|/(1e-5*m) = " << entry.first << "\n";
  }
}

}  // namespace
