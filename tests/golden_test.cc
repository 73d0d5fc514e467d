// Golden tests: every case of tests/golden/golden_cases.txt (made by
// tests/golden/generate_golden.py from PyTorch in float64) is run through the public C API in the
// case's dtype and layout and held to the contract's tolerance (section 4) element by element:
// |lib - expect| <= 1e-5 * m, plus one ulp of expect in the result's dtype for float16 and
// bfloat16, where m (the `mag` block) is the sum of the magnitudes of the terms that make up the
// element. Each case runs twice, with the default thread count and with 4 threads (many row
// bands on several threads), and the two results must be bitwise equal.
// Only the public headers are used, so this also checks the API the way a CANN user calls it.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn_upsample/operators.h"
#include "aclnnop/aclnn_upsample_bicubic2d_aa_grad.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward_v2.h"
#include "support/half_reference.h"
#include "support/test_tensors.h"

namespace {

const aclnn_upsample_operator* BackwardOperatorOfMode(const std::string& mode) {
  for (size_t i = 0; i < aclnn_upsample_operator_count(); ++i) {
    const aclnn_upsample_operator* op = aclnn_upsample_operator_at(i);
    if (op->direction == ACLNN_UPSAMPLE_BACKWARD && mode == op->mode) return op;
  }
  return nullptr;
}

constexpr char kGoldenPath[] = ACLNN_UPSAMPLE_TEST_DATA_DIR "/golden/golden_cases.txt";
// What generate_golden.py writes today. A fixture lost from the file (or from the generator)
// must fail here, not shrink the suite quietly; change this with the generator.
constexpr size_t kGoldenCases = 99;
// Enough threads that phase 1 cuts every plane into many row bands (4 tasks per thread).
constexpr char kManyThreads[] = "4";

enum class Layout { kNchw, kChannelsLast, kNhwc };

struct GoldenCase {
  std::string name;
  std::string op;  // the weights' mode, as the operator table names it: "bilinear", "bicubic_aa"
  aclDataType dtype = ACL_FLOAT;
  Layout layout = Layout::kNchw;
  bool align = false;
  double scales_h = 0.0;
  double scales_w = 0.0;
  int64_t n = 0, c = 0, h_out = 0, w_out = 0, h_in = 0, w_in = 0;
  // All blocks in logical (n, c, h, w) order.
  std::vector<double> grad;  // exact in `dtype` (checked by Parse)
  std::vector<double> expect;
  std::vector<double> mag;
  std::vector<double> torch32;  // torch's own float32 answer; informational, float32 cases only
};

struct GoldenFile {
  std::vector<GoldenCase> cases;
  std::string error;  // non-empty when the file could not be read completely
};

bool ReadValues(std::istream& in, size_t count, std::vector<double>* values) {
  values->resize(count);
  for (size_t i = 0; i < count; ++i) {
    // Through double: istream >> float rejects subnormals on some libstdc++ versions.
    if (!(in >> (*values)[i])) return false;
  }
  return true;
}

// The element's bits in `dtype`, or false when `value` is not exactly representable there (a
// fixture whose gradOut the library would see rounded is a broken fixture).
bool EncodeExact(aclDataType dtype, double value, uint8_t* out) {
  if (dtype == ACL_FLOAT) {
    const float f = static_cast<float>(value);
    std::memcpy(out, &f, 4);
    return static_cast<double>(f) == value;
  }
  if (dtype == ACL_FLOAT16) {
    const uint16_t h = half_reference::FromDouble(value);
    std::memcpy(out, &h, 2);
    return half_reference::ToDouble(h) == value;
  }
  const float f = static_cast<float>(value);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const uint16_t b = static_cast<uint16_t>(u >> 16);
  std::memcpy(out, &b, 2);
  return static_cast<double>(f) == value && (u & 0xFFFF) == 0;
}

double Decode(aclDataType dtype, const uint8_t* in) {
  if (dtype == ACL_FLOAT) {
    float f;
    std::memcpy(&f, in, 4);
    return f;
  }
  uint16_t bits;
  std::memcpy(&bits, in, 2);
  if (dtype == ACL_FLOAT16) return half_reference::ToDouble(bits);
  const uint32_t u = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

size_t ElementSize(aclDataType dtype) { return dtype == ACL_FLOAT ? 4 : 2; }

bool ParseDType(const std::string& text, aclDataType* dtype) {
  static const std::map<std::string, aclDataType> kNames = {
      {"float32", ACL_FLOAT}, {"float16", ACL_FLOAT16}, {"bfloat16", ACL_BF16}};
  const auto it = kNames.find(text);
  if (it == kNames.end()) return false;
  *dtype = it->second;
  return true;
}

bool ParseLayout(const std::string& text, Layout* layout) {
  static const std::map<std::string, Layout> kNames = {
      {"nchw", Layout::kNchw}, {"channels_last", Layout::kChannelsLast}, {"nhwc", Layout::kNhwc}};
  const auto it = kNames.find(text);
  if (it == kNames.end()) return false;
  *layout = it->second;
  return true;
}

// Strict: every field of a case header, each block exactly once (torch32 optional), values
// exact in the case's dtype, unique names, and a closing `end <count>` that matches.
GoldenFile Parse(const std::string& path) {
  GoldenFile file;
  std::ifstream in(path);
  if (!in) {
    file.error = "cannot open " + path;
    return file;
  }
  auto fail = [&](const std::string& why) {
    file.error = why;
    return file;
  };
  std::string token;
  GoldenCase* current = nullptr;
  std::set<std::string> names, blocks;
  bool ended = false;
  while (in >> token) {
    if (token[0] == '#') {
      std::getline(in, token);
      continue;
    }
    if (ended) return fail("'" + token + "' after the end line");
    if (token == "end") {
      size_t count = 0;
      if (!(in >> count) || count != file.cases.size()) {
        return fail("the end line does not count the " + std::to_string(file.cases.size()) +
                    " cases read");
      }
      ended = true;
      continue;
    }
    if (token == "case") {
      file.cases.emplace_back();
      current = &file.cases.back();
      blocks.clear();
      std::string dtype, layout;
      int align = -1;
      in >> current->name >> current->op >> dtype >> layout >> align >> current->scales_h >>
          current->scales_w >> current->n >> current->c >> current->h_out >> current->w_out >>
          current->h_in >> current->w_in;
      const std::string where = "case " + std::to_string(file.cases.size());
      if (!in) return fail("bad case header at " + where);
      const aclnn_upsample_operator* op = BackwardOperatorOfMode(current->op);
      if (op == nullptr)
        return fail("no backward operator of mode '" + current->op + "' at " + where);
      if (!ParseDType(dtype, &current->dtype)) return fail("unknown dtype '" + dtype + "'");
      if (!ParseLayout(layout, &current->layout)) return fail("unknown layout '" + layout + "'");
      if (current->layout == Layout::kNhwc && !op->accepts_nhwc) {
        return fail(current->name + ": " + op->name + " does not take the NHWC format");
      }
      if (align != 0 && align != 1) return fail("bad align at " + where);
      current->align = align == 1;
      for (int64_t d :
           {current->n, current->c, current->h_out, current->w_out, current->h_in, current->w_in}) {
        if (d < 1 || d > 4096) return fail(current->name + ": a dimension out of range");
      }
      if (!names.insert(current->name).second) return fail("duplicate case " + current->name);
      continue;
    }
    if (current == nullptr) return fail("block '" + token + "' before the first case");
    if (!blocks.insert(token).second)
      return fail("block '" + token + "' twice in " + current->name);
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
      ok = current->dtype == ACL_FLOAT && ReadValues(in, in_count, &current->torch32);
    }
    if (!ok) return fail("bad block '" + token + "' in case " + current->name);
  }
  if (!ended) return fail("no end line: the file is truncated");
  for (const GoldenCase& gc : file.cases) {
    if (gc.grad.empty() || gc.expect.empty() || gc.mag.empty()) {
      return fail("case " + gc.name + " lacks grad, expect or mag");
    }
  }
  // gradOut is printed with 9 significant digits, which name one float32 exactly; that float
  // must be exact in the case's dtype (16-bit values are float32 values too).
  for (GoldenCase& gc : file.cases) {
    uint8_t bits[4];
    for (double& v : gc.grad) {
      const double f = static_cast<float>(v);
      if (!(std::fabs(f - v) <= 1e-8 * std::fabs(v)) || !EncodeExact(gc.dtype, f, bits)) {
        return fail("case " + gc.name + ": gradOut value not exact in its dtype");
      }
      v = f;
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

// A logical (N, C, H, W) tensor in the case's layout: its view dims, strides and the element
// offset of each logical index.
struct TensorLayout {
  std::vector<int64_t> dims, strides;
  int64_t stride_n = 0, stride_c = 0, stride_h = 0, stride_w = 0;
  int64_t elements = 0;
  aclFormat format = ACL_FORMAT_NCHW;

  int64_t Offset(int64_t n, int64_t c, int64_t h, int64_t w) const {
    return n * stride_n + c * stride_c + h * stride_h + w * stride_w;
  }
};

TensorLayout MakeLayout(Layout layout, int64_t n, int64_t c, int64_t h, int64_t w) {
  TensorLayout t;
  t.elements = n * c * h * w;
  // Storage order is (n, h, w, c) for both channels-last layouts, (n, c, h, w) otherwise.
  const bool c_innermost = layout != Layout::kNchw;
  t.stride_w = c_innermost ? c : 1;
  t.stride_h = w * t.stride_w;
  t.stride_c = c_innermost ? 1 : h * w;
  t.stride_n = h * w * c;
  if (layout == Layout::kNhwc) {
    t.format = ACL_FORMAT_NHWC;
    t.dims = {n, h, w, c};
    t.strides = {t.stride_n, t.stride_h, t.stride_w, t.stride_c};
  } else {
    t.dims = {n, c, h, w};
    t.strides = {t.stride_n, t.stride_c, t.stride_h, t.stride_w};
  }
  return t;
}

aclTensor* MakeTensor(const TensorLayout& t, aclDataType dtype, void* data) {
  return aclCreateTensor(t.dims.data(), t.dims.size(), dtype, t.strides.data(), 0, t.format,
                         &t.elements, 1, data);
}

// Runs one case through the two-phase C API with ACLNN_UPSAMPLE_NUM_THREADS = `threads` (null:
// unset, the library's default). On success *out holds the result in logical (n, c, h, w)
// order and *bits its storage; returns "" on success, else what went wrong.
std::string RunCase(const GoldenCase& gc, const char* threads, std::vector<double>* out,
                    std::vector<uint8_t>* bits) {
  const char* saved = std::getenv("ACLNN_UPSAMPLE_NUM_THREADS");
  const std::string saved_value = saved != nullptr ? saved : "";
  if (threads != nullptr) {
    setenv("ACLNN_UPSAMPLE_NUM_THREADS", threads, 1);
  } else {
    unsetenv("ACLNN_UPSAMPLE_NUM_THREADS");
  }
  const size_t elem = ElementSize(gc.dtype);
  const TensorLayout grad_layout = MakeLayout(gc.layout, gc.n, gc.c, gc.h_out, gc.w_out);
  const TensorLayout out_layout = MakeLayout(gc.layout, gc.n, gc.c, gc.h_in, gc.w_in);
  std::vector<uint8_t> grad(gc.grad.size() * elem);
  size_t i = 0;
  for (int64_t n = 0; n < gc.n; ++n)
    for (int64_t c = 0; c < gc.c; ++c)
      for (int64_t h = 0; h < gc.h_out; ++h)
        for (int64_t w = 0; w < gc.w_out; ++w)
          EncodeExact(gc.dtype, gc.grad[i++], grad.data() + grad_layout.Offset(n, c, h, w) * elem);
  // All-ones bytes are NaN in every dtype: an element the library forgets to write cannot pass.
  bits->assign(gc.expect.size() * elem, 0xFF);
  aclTensor* grad_tensor = MakeTensor(grad_layout, gc.dtype, grad.data());
  aclTensor* out_tensor = MakeTensor(out_layout, gc.dtype, bits->data());
  const int64_t output_size[2] = {gc.h_out, gc.w_out};
  const std::vector<int64_t>& input_size = out_layout.dims;  // in the format's axis order
  aclIntArray* output_array = aclCreateIntArray(output_size, 2);
  aclIntArray* input_array = aclCreateIntArray(input_size.data(), input_size.size());
  std::string error;
  if (grad_tensor == nullptr || out_tensor == nullptr || output_array == nullptr ||
      input_array == nullptr) {
    error = std::string("creating tensors/arrays failed: ") + aclGetRecentErrMsg();
  }
  // The backward row of the operator table whose 1-D weights are the case's mode.
  const aclnn_upsample_operator* op = BackwardOperatorOfMode(gc.op);
  if (op == nullptr) error = "no backward operator of mode " + gc.op + " in the operator table";
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  if (error.empty()) {
    const aclnnStatus status =
        op->get_workspace_size(grad_tensor, output_array, input_array, gc.align, gc.scales_h,
                               gc.scales_w, out_tensor, &workspace_size, &executor);
    if (status != ACLNN_SUCCESS) {
      error = "GetWorkspaceSize returned " + std::to_string(status) + ": " + aclGetRecentErrMsg();
    }
  }
  if (error.empty()) {
    std::vector<uint8_t> workspace(workspace_size);
    void* workspace_ptr = workspace_size > 0 ? workspace.data() : nullptr;
    const aclnnStatus status = op->run(workspace_ptr, workspace_size, executor, g_stream);
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
  if (saved != nullptr) {
    setenv("ACLNN_UPSAMPLE_NUM_THREADS", saved_value.c_str(), 1);
  } else {
    unsetenv("ACLNN_UPSAMPLE_NUM_THREADS");
  }
  out->clear();
  for (int64_t n = 0; n < gc.n; ++n)
    for (int64_t c = 0; c < gc.c; ++c)
      for (int64_t h = 0; h < gc.h_in; ++h)
        for (int64_t w = 0; w < gc.w_in; ++w)
          out->push_back(Decode(gc.dtype, bits->data() + out_layout.Offset(n, c, h, w) * elem));
  return error;
}

using support::Tolerance;  // the contract's (section 4)

// |got - want| in units of the contract's allowed error; an element whose allowance is 0 (no
// contributing terms, float32) must be exact.
double ErrorRatio(aclDataType dtype, double got, double want, double mag) {
  const double diff = std::fabs(got - want);
  if (std::isnan(diff)) return std::numeric_limits<double>::infinity();
  const double tolerance = Tolerance(dtype, want, mag);
  if (tolerance == 0) return diff == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return diff / tolerance;
}

struct Comparison {
  double worst_ratio = 0.0;
  size_t worst_index = 0;
  size_t failures = 0;
  std::string first_failures;  // a few offending elements, for the failure message
  double worst_torch32_ratio = 0.0;
};

Comparison Compare(const GoldenCase& gc, const std::vector<double>& out) {
  Comparison cmp;
  for (size_t i = 0; i < out.size(); ++i) {
    const double ratio = ErrorRatio(gc.dtype, out[i], gc.expect[i], gc.mag[i]);
    if (ratio > cmp.worst_ratio || i == 0) {
      cmp.worst_ratio = ratio;
      cmp.worst_index = i;
    }
    if (!(ratio <= 1.0)) {
      if (++cmp.failures <= 5) {
        std::ostringstream line;
        line.precision(9);
        line << "  [" << i << "] lib " << out[i] << " expect " << gc.expect[i] << " |diff| "
             << std::fabs(out[i] - gc.expect[i]) << " tol "
             << Tolerance(gc.dtype, gc.expect[i], gc.mag[i]) << " ratio " << ratio << "\n";
        cmp.first_failures += line.str();
      }
    }
    if (!gc.torch32.empty()) {
      cmp.worst_torch32_ratio =
          std::max(cmp.worst_torch32_ratio, ErrorRatio(gc.dtype, out[i], gc.torch32[i], gc.mag[i]));
    }
  }
  return cmp;
}

class GoldenTest : public ::testing::TestWithParam<size_t> {};

TEST_P(GoldenTest, MatchesTorchFloat64) {
  const GoldenCase& gc = Golden().cases[GetParam()];
  std::vector<double> first_values;
  std::vector<uint8_t> first_bits;
  for (const char* threads : {static_cast<const char*>(nullptr), kManyThreads}) {
    const std::string label = gc.name + (threads ? std::string(" with ") + threads + " threads"
                                                 : std::string(" with the default threads"));
    std::vector<double> out;
    std::vector<uint8_t> bits;
    const std::string error = RunCase(gc, threads, &out, &bits);
    ASSERT_EQ(error, "") << label;
    const Comparison cmp = Compare(gc, out);
    std::cout << label << ": worst |lib-expect|/tolerance = " << cmp.worst_ratio << " at ["
              << cmp.worst_index << "]; vs torch float32: " << cmp.worst_torch32_ratio << "\n";
    EXPECT_EQ(cmp.failures, 0u) << label << ": " << cmp.failures << " of " << out.size()
                                << " elements outside the contract's tolerance; first ones:\n"
                                << cmp.first_failures;
    if (first_bits.empty()) {
      first_bits = bits;
    } else {
      EXPECT_TRUE(bits == first_bits) << label << ": not bitwise equal to the default run";
    }
  }
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

// Guards against a truncated, missing or thinned fixture file silently testing less: every
// case the generator writes is read and runs. Prints the worst case of each operator.
TEST(GoldenSummary, EveryCaseLoadsAndRuns) {
  const GoldenFile& file = Golden();
  ASSERT_EQ(file.error, "");
  ASSERT_EQ(file.cases.size(), kGoldenCases);
  size_t ran = 0;
  std::map<std::string, std::pair<double, std::string>> worst;  // op -> (ratio, case)
  std::map<std::string, size_t> kinds;                          // dtype/layout -> cases
  for (const GoldenCase& gc : file.cases) {
    std::vector<double> out;
    std::vector<uint8_t> bits;
    if (!RunCase(gc, nullptr, &out, &bits).empty()) continue;  // reported by the case's test
    ++ran;
    const double ratio = Compare(gc, out).worst_ratio;
    auto& entry = worst[gc.op];
    if (ratio >= entry.first) entry = {ratio, gc.name};
    ++kinds[std::to_string(gc.dtype) + "/" + std::to_string(static_cast<int>(gc.layout))];
  }
  EXPECT_EQ(ran, kGoldenCases);
  for (const auto& [op, entry] : worst) {
    std::cout << "worst " << op << " case: " << entry.second
              << ", |lib-expect|/tolerance = " << entry.first << "\n";
  }
  for (const auto& [kind, count] : kinds) {
    std::cout << "dtype/layout " << kind << ": " << count << " cases\n";
  }
}

}  // namespace
