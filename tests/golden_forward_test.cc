// Golden tests of the forward operators: every case of tests/golden/golden_forward_cases.txt
// (made by tests/golden/generate_golden_forward.py from PyTorch's forward ops in float64) runs
// through the operator table's forward row of its mode, in the case's dtype and layout, and is
// held to the contract's tolerance (section 4) element by element: |lib - expect| <= 1e-5 * m,
// plus one ulp of expect in the result's dtype for float16 and bfloat16, where m (the `mag`
// block) is the sum of the magnitudes of the terms of the element. Each case runs with the
// default thread count and with 4 threads (many row bands), and the two must be bitwise equal.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "aclnn_upsample/operators.h"
#include "support/reference.h"
#include "support/test_tensors.h"

namespace {

constexpr char kGoldenPath[] = ACLNN_UPSAMPLE_TEST_DATA_DIR "/golden/golden_forward_cases.txt";
// What generate_golden_forward.py writes today. A fixture lost from the file (or from the
// generator) must fail here, not shrink the suite quietly; change this with the generator.
constexpr size_t kGoldenCases = 73;

struct GoldenCase {
  std::string name;
  reference::Case problem;  // sizes, alignment and scales
  support::RunOptions options;
  // All blocks in logical (n, c, h, w) order.
  std::vector<double> input;  // exact in the dtype (checked when the case runs)
  std::vector<double> expect, mag;
  std::vector<double> torch32;  // torch's own float32 answer, informational; float32 only
};

struct GoldenFile {
  std::vector<GoldenCase> cases;
  std::string error;  // non-empty when the file could not be read completely
};

// The dtype and the layout's format and storage kind, from the header's names.
bool ParseKind(const std::string& dtype, const std::string& layout, support::RunOptions* options) {
  static const std::map<std::string, aclDataType> kDTypes = {
      {"float32", ACL_FLOAT}, {"float16", ACL_FLOAT16}, {"bfloat16", ACL_BF16}};
  static const std::map<std::string, std::pair<aclFormat, support::Storage>> kLayouts = {
      {"nchw", {ACL_FORMAT_NCHW, support::Storage::kContiguous}},
      {"channels_last", {ACL_FORMAT_NCHW, support::Storage::kChannelsLastView}},
      {"nhwc", {ACL_FORMAT_NHWC, support::Storage::kContiguous}},
      {"nd", {ACL_FORMAT_ND, support::Storage::kContiguous}},
  };
  const auto d = kDTypes.find(dtype);
  const auto l = kLayouts.find(layout);
  if (d == kDTypes.end() || l == kLayouts.end()) return false;
  options->dtype = d->second;
  options->format = l->second.first;
  options->storage = l->second.second;
  return true;
}

bool ReadBlock(std::istream& in, size_t count, std::vector<double>* values) {
  values->resize(count);
  for (double& v : *values) {
    if (!(in >> v)) return false;
  }
  return true;
}

// Strict: every header field, each block at most once (torch32 only for float32), all but
// torch32 present, unique names and a closing `end <count>` that matches.
GoldenFile Parse(const std::string& path) {
  GoldenFile file;
  std::ifstream in(path);
  auto fail = [&](const std::string& why) {
    file.error = why;
    return file;
  };
  if (!in) return fail("cannot open " + path);
  std::string token;
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
      if (!(in >> count) || count != file.cases.size()) return fail("bad end line");
      ended = true;
      continue;
    }
    if (token == "case") {
      GoldenCase& gc = file.cases.emplace_back();
      reference::Case& p = gc.problem;
      std::string op, dtype, layout;
      int align = -1;
      in >> gc.name >> op >> dtype >> layout >> align >> p.scales_h >> p.scales_w >> p.n >> p.c >>
          p.in_h >> p.in_w >> p.out_h >> p.out_w;
      if (!in || (align != 0 && align != 1)) return fail("bad header of case " + gc.name);
      if (op != "bilinear" && op != "bicubic_aa") return fail(gc.name + ": unknown op " + op);
      p.op = op == "bilinear" ? reference::Op::kBilinear : reference::Op::kBicubicAA;
      p.align_corners = align == 1;
      if (!ParseKind(dtype, layout, &gc.options)) return fail(gc.name + ": unknown dtype/layout");
      for (int64_t d : {p.n, p.c, p.in_h, p.in_w, p.out_h, p.out_w}) {
        if (d < 1 || d > 4096) return fail(gc.name + ": a dimension out of range");
      }
      if (!names.insert(gc.name).second) return fail("duplicate case " + gc.name);
      blocks.clear();
      continue;
    }
    if (file.cases.empty()) return fail("block '" + token + "' before the first case");
    GoldenCase& gc = file.cases.back();
    if (!blocks.insert(token).second) return fail("block " + token + " twice in " + gc.name);
    const size_t in_count = gc.problem.result_elements(), out_count = gc.problem.grad_elements();
    bool ok = false;
    if (token == "input") ok = ReadBlock(in, in_count, &gc.input);
    if (token == "expect") ok = ReadBlock(in, out_count, &gc.expect);
    if (token == "mag") ok = ReadBlock(in, out_count, &gc.mag);
    if (token == "torch32" && gc.options.dtype == ACL_FLOAT) {
      ok = ReadBlock(in, out_count, &gc.torch32);
    }
    if (!ok) return fail("bad block '" + token + "' in case " + gc.name);
  }
  if (!ended) return fail("no end line: the file is truncated");
  for (const GoldenCase& gc : file.cases) {
    if (gc.input.empty() || gc.expect.empty() || gc.mag.empty()) {
      return fail("case " + gc.name + " lacks input, expect or mag");
    }
  }
  // The input is printed with 9 significant digits, which name one float32 exactly (16-bit
  // values are float32 values too): read back that float, which is what torch computed with.
  for (GoldenCase& gc : file.cases) {
    for (double& v : gc.input) {
      const double f = static_cast<float>(v);
      if (!(std::abs(f - v) <= 1e-8 * std::abs(v))) return fail(gc.name + ": input not a float");
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

// The worst |lib - reference| / tolerance over a case (0 when equal, above 1 outside).
double WorstRatio(const GoldenCase& gc, const std::vector<double>& values,
                  const std::vector<double>& reference) {
  double worst = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const double tolerance = support::Tolerance(gc.options.dtype, reference[i], gc.mag[i]);
    const double diff = std::abs(values[i] - reference[i]);
    const double ratio = diff == 0 ? 0 : tolerance > 0 ? diff / tolerance : INFINITY;
    worst = std::max(worst, std::isnan(ratio) ? INFINITY : ratio);
  }
  return worst;
}

class GoldenForwardTest : public ::testing::TestWithParam<size_t> {};

TEST_P(GoldenForwardTest, MatchesTorchFloat64) {
  const GoldenCase& gc = Golden().cases[GetParam()];
  const aclnn_upsample_operator* op = support::FindOperator(gc.problem.op, ACLNN_UPSAMPLE_FORWARD);
  ASSERT_NE(op, nullptr);
  std::vector<uint8_t> first_bits;
  for (int threads : {0, 4}) {
    support::RunOptions options = gc.options;
    options.threads = threads;
    const std::string label = gc.name + " with " +
                              (threads ? std::to_string(threads) : std::string("default")) +
                              " threads";
    std::vector<double> seen;
    const support::RunOutput run = support::RunOperator(*op, gc.problem, gc.input, options, &seen);
    ASSERT_EQ(run.status, ACLNN_SUCCESS) << label << ": " << run.message;
    // A fixture whose input the library would see rounded is a broken fixture.
    ASSERT_EQ(seen, gc.input) << label << ": input values not exact in the case's dtype";
    EXPECT_EQ(support::CountOutOfTolerance(gc.options.dtype, run.values, gc.expect, gc.mag, label),
              0);
    EXPECT_TRUE(run.outside_view_untouched) << label;
    std::cout << label
              << ": worst |lib-expect|/tolerance = " << WorstRatio(gc, run.values, gc.expect);
    if (!gc.torch32.empty()) {
      std::cout << "; vs torch float32: " << WorstRatio(gc, run.values, gc.torch32);
    }
    std::cout << "\n";
    if (first_bits.empty()) {
      first_bits = run.raw_bits;
    } else {
      EXPECT_TRUE(run.raw_bits == first_bits) << label << ": not bitwise equal to the default run";
    }
  }
}

// The fixtures agree with the test's own float64 reference too (two independent readings of
// the formulas: torch's kernels and reference.cc), to the last bits of float64.
TEST_P(GoldenForwardTest, TorchAgreesWithTheReference) {
  const GoldenCase& gc = Golden().cases[GetParam()];
  std::vector<double> y, magnitude;
  reference::Forward(gc.problem, gc.input, &y, &magnitude);
  for (size_t i = 0; i < y.size(); ++i) {
    ASSERT_NEAR(y[i], gc.expect[i], 1e-12 * (1 + gc.mag[i])) << gc.name << " element " << i;
    ASSERT_NEAR(magnitude[i], gc.mag[i], 1e-12 * (1 + gc.mag[i])) << gc.name << " element " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Torch, GoldenForwardTest,
                         ::testing::Range(size_t{0}, Golden().cases.size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return Golden().cases[info.param].name;
                         });
// An unreadable file leaves the suite empty; the summary below reports why.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GoldenForwardTest);

// Guards against a truncated, missing or thinned fixture file silently testing less, and that
// the file covers what it is meant to: both operators and alignments, scales given and not, up
// and down, 1xN and Nx1, every dtype and layout.
TEST(GoldenForwardSummary, EveryCaseLoadsAndTheFileCoversItsKinds) {
  const GoldenFile& file = Golden();
  ASSERT_EQ(file.error, "");
  ASSERT_EQ(file.cases.size(), kGoldenCases);
  std::set<std::string> kinds;
  for (const GoldenCase& gc : file.cases) {
    const reference::Case& p = gc.problem;
    const std::string op = p.op == reference::Op::kBilinear ? "bilinear" : "bicubic_aa";
    kinds.insert(op + (p.align_corners ? " align" : " no-align"));
    kinds.insert(op + (p.scales_h > 0 || p.scales_w > 0 ? " scales" : " no-scales"));
    if (p.out_h > p.in_h || p.out_w > p.in_w) kinds.insert(op + " up");
    if (p.out_h < p.in_h || p.out_w < p.in_w) kinds.insert(op + " down");
    if (p.in_h == 1 && p.out_h == 1) kinds.insert(op + " 1xN");
    if (p.in_w == 1) kinds.insert(op + " Nx1");
    kinds.insert(op + " dtype " + std::to_string(gc.options.dtype));
    kinds.insert(op + " format " + std::to_string(gc.options.format) + " storage " +
                 std::to_string(static_cast<int>(gc.options.storage)));
  }
  for (const char* op : {"bilinear", "bicubic_aa"}) {
    for (const char* kind :
         {" align", " no-align", " scales", " no-scales", " up", " down", " 1xN", " Nx1",
          " dtype 0", " dtype 1", " dtype 27", " format 0 storage 0", " format 0 storage 1"}) {
      EXPECT_EQ(kinds.count(op + std::string(kind)), 1u) << op << kind << " is not covered";
    }
  }
  EXPECT_EQ(kinds.count("bilinear format 1 storage 0"), 1u) << "NHWC is not covered";
  EXPECT_EQ(kinds.count("bicubic_aa format 2 storage 0"), 1u) << "ND is not covered";
}

}  // namespace
