// The PyTorch golden fixtures of tests/golden/ (made by generate_golden.py and
// generate_golden_forward.py in float64): one strict reader for the fixture files of both
// directions, and the check that runs a fixture through the operator table's row it names.
// Shared by golden_test (backward rows) and golden_forward_test (forward rows); header-only so
// that the two tests need no extra library.
//
// A file holds `case` headers, each followed by its blocks, and closes with `end <count>`:
//   case <name> <op> <dtype> <layout> <align> <scalesH> <scalesW> <N> <C> <src H> <src W>
//        <result H> <result W>
// where <op> is a row's name, or a mode (the first row of that mode and the file's direction in
// table order: the first fixture files name modes), the source is what the row reads (the input
// of a forward row, gradOut of a backward one) and the result what it writes. Blocks, in
// logical (n, c, h, w) order: the source (`input` or `grad`; exact in the dtype, nan and inf
// allowed), `expect` (torch's float64 result), `mag` (the contract's error scale m, section 4)
// and `torch32` (torch's float32 result, informational; float32 cases only).
#ifndef ACLNN_UPSAMPLE_TESTS_SUPPORT_GOLDEN_READER_H_
#define ACLNN_UPSAMPLE_TESTS_SUPPORT_GOLDEN_READER_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "aclnn_upsample/operators.h"
#include "support/reference.h"
#include "support/test_tensors.h"

namespace golden {

struct Fixture {
  std::string name;
  const aclnn_upsample_operator* row = nullptr;
  // Sizes (in forward terms: in_* is the forward input), alignCorners and scales as the row's
  // phase 1 gets them; its mode and scale rule are the reference's default until ForRow.
  reference::Case problem;
  support::RunOptions options;  // dtype, format and storage of the case's layout
  std::vector<double> source;   // exact in the dtype (checked by the reader)
  std::vector<double> expect, mag;
  std::vector<double> torch32;  // float32 cases only
};

struct FixtureFile {
  std::vector<Fixture> fixtures;
  std::string error;  // non-empty when the file could not be read completely
};

// The row a fixture's op field names (see the file comment), or null.
inline const aclnn_upsample_operator* RowNamed(const std::string& field,
                                               aclnn_upsample_direction direction) {
  for (size_t i = 0; i < aclnn_upsample_operator_count(); ++i) {
    const aclnn_upsample_operator* op = aclnn_upsample_operator_at(i);
    if (op->direction == direction && (field == op->name || field == op->mode)) return op;
  }
  return nullptr;
}

// A nearest-neighbour forward row copies elements: its result must equal torch's exactly (the
// contract allows no rounding there), not merely within a tolerance.
inline bool CopiesElements(const aclnn_upsample_operator& row) {
  const std::string mode = row.mode;
  return row.direction == ACLNN_UPSAMPLE_FORWARD && (mode == "nearest" || mode == "nearest_exact");
}

namespace internal {

inline bool ParseKind(const std::string& dtype, const std::string& layout,
                      support::RunOptions* options) {
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

// Through strtod on each token: istream >> double takes neither "nan" nor "inf", and rejects
// subnormals on some libstdc++ versions.
inline bool ReadBlock(std::istream& in, size_t count, std::vector<double>* values) {
  values->resize(count);
  std::string token;
  for (double& v : *values) {
    if (!(in >> token)) return false;
    char* end = nullptr;
    v = std::strtod(token.c_str(), &end);
    if (end != token.c_str() + token.size()) return false;
  }
  return true;
}

}  // namespace internal

// Strict: every header field, a row of the file's direction that takes the case's layout,
// alignCorners and scales, each block at most once (torch32 only for float32), all but torch32
// present, source values exact in the dtype, unique names and a closing `end <count>` that
// matches.
inline FixtureFile ReadFixtureFile(const std::string& path, aclnn_upsample_direction direction) {
  FixtureFile file;
  auto fail = [&](const std::string& why) {
    file.error = path + ": " + why;
    return file;
  };
  std::ifstream in(path);
  if (!in) return fail("cannot open");
  const bool forward = direction == ACLNN_UPSAMPLE_FORWARD;
  const std::string source_block = forward ? "input" : "grad";
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
      if (!(in >> count) || count != file.fixtures.size()) {
        return fail("the end line does not count the " + std::to_string(file.fixtures.size()) +
                    " cases read");
      }
      ended = true;
      continue;
    }
    if (token == "case") {
      Fixture& f = file.fixtures.emplace_back();
      reference::Case& p = f.problem;
      std::string field, dtype, layout;
      int align = -1;
      int64_t source_h = 0, source_w = 0, result_h = 0, result_w = 0;
      in >> f.name >> field >> dtype >> layout >> align >> p.scales_h >> p.scales_w >> p.n >> p.c >>
          source_h >> source_w >> result_h >> result_w;
      if (!in || (align != 0 && align != 1)) return fail("bad header of case " + f.name);
      p.align_corners = align == 1;
      p.in_h = forward ? source_h : result_h;
      p.in_w = forward ? source_w : result_w;
      p.out_h = forward ? result_h : source_h;
      p.out_w = forward ? result_w : source_w;
      f.row = RowNamed(field, direction);
      if (f.row == nullptr) return fail(f.name + ": no row '" + field + "' in this direction");
      if (!internal::ParseKind(dtype, layout, &f.options)) {
        return fail(f.name + ": unknown dtype/layout");
      }
      if ((layout == "nhwc" && !f.row->accepts_nhwc) || (layout == "nd" && !f.row->accepts_nd)) {
        return fail(f.name + ": " + f.row->name + " does not take the " + layout + " format");
      }
      if (p.align_corners && !f.row->takes_align_corners) {
        return fail(f.name + ": " + f.row->name + " has no alignCorners");
      }
      if ((p.scales_h != 0 || p.scales_w != 0) && !f.row->takes_scales) {
        return fail(f.name + ": " + f.row->name + " has no scales");
      }
      for (int64_t d : {p.n, p.c, p.in_h, p.in_w, p.out_h, p.out_w}) {
        if (d < 1 || d > 4096) return fail(f.name + ": a dimension out of range");
      }
      if (!names.insert(f.name).second) return fail("duplicate case " + f.name);
      blocks.clear();
      continue;
    }
    if (file.fixtures.empty()) return fail("block '" + token + "' before the first case");
    Fixture& f = file.fixtures.back();
    if (!blocks.insert(token).second) return fail("block " + token + " twice in " + f.name);
    const size_t source_count = forward ? f.problem.result_elements() : f.problem.grad_elements();
    const size_t result_count = forward ? f.problem.grad_elements() : f.problem.result_elements();
    bool ok = false;
    if (token == source_block) ok = internal::ReadBlock(in, source_count, &f.source);
    if (token == "expect") ok = internal::ReadBlock(in, result_count, &f.expect);
    if (token == "mag") ok = internal::ReadBlock(in, result_count, &f.mag);
    if (token == "torch32" && f.options.dtype == ACL_FLOAT) {
      ok = internal::ReadBlock(in, result_count, &f.torch32);
    }
    if (!ok) return fail("bad block '" + token + "' in case " + f.name);
  }
  if (!ended) return fail("no end line: the file is truncated");
  for (Fixture& f : file.fixtures) {
    if (f.source.empty() || f.expect.empty() || f.mag.empty()) {
      return fail("case " + f.name + " lacks " + source_block + ", expect or mag");
    }
    // Source values are printed with 9 significant digits, which name one float32 exactly
    // (16-bit values are float32 values too): read back that float, which torch computed with.
    // Whether it is exact in the case's dtype is checked when the case runs.
    for (double& v : f.source) {
      const double rounded = static_cast<float>(v);
      if (std::isfinite(v) && !(std::abs(rounded - v) <= 1e-8 * std::abs(v))) {
        return fail(f.name + ": a source value is not a float");
      }
      v = rounded;
    }
  }
  return file;
}

// The fixture files one test reads, with the number of cases each must hold: what the generator
// writes today, so that a fixture lost from a file (or from the generator) fails, rather than
// quietly shrinking the suite. Change the numbers with the generator.
struct ExpectedFile {
  std::string path;
  size_t cases;
};

struct Suite {
  std::vector<Fixture> fixtures;      // of all files, in order
  std::vector<std::string> problems;  // unreadable files and wrong case counts
};

inline Suite LoadSuite(const std::vector<ExpectedFile>& files, aclnn_upsample_direction direction) {
  Suite suite;
  for (const ExpectedFile& expected : files) {
    FixtureFile file = ReadFixtureFile(expected.path, direction);
    if (!file.error.empty()) {
      suite.problems.push_back(file.error);
    } else if (file.fixtures.size() != expected.cases) {
      suite.problems.push_back(expected.path + ": " + std::to_string(file.fixtures.size()) +
                               " cases, not " + std::to_string(expected.cases));
    }
    for (Fixture& f : file.fixtures) suite.fixtures.push_back(std::move(f));
  }
  return suite;
}

// Equal as values of the dtype: a NaN where torch has one, the same zero sign, else ==.
inline bool SameValue(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

// The worst |lib - reference| / tolerance over a case (0 when equal, above 1 outside); a
// nonfinite reference value counts 0 when matched (NaN for NaN, the same Inf), else infinity.
inline double WorstRatio(const Fixture& f, const std::vector<double>& values,
                         const std::vector<double>& reference) {
  double worst = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const double want = reference[i], got = values[i];
    double ratio;
    if (!std::isfinite(want) || !std::isfinite(got)) {
      ratio = SameValue(got, want) ? 0 : std::numeric_limits<double>::infinity();
    } else {
      const double tolerance = support::Tolerance(f.options.dtype, want, f.mag[i]);
      const double diff = std::abs(got - want);
      ratio = diff == 0       ? 0
              : tolerance > 0 ? diff / tolerance
                              : std::numeric_limits<double>::infinity();
    }
    worst = std::max(worst, ratio);
  }
  return worst;
}

// Runs the fixture through its row with the default thread count and with 4 threads (phase 1
// then cuts planes into many row bands), and checks each run: the library saw the source
// exactly, the result is within the contract's tolerance of torch's float64 result (exactly
// equal for a row that copies elements), nothing outside out's view changed, and the two runs
// are bitwise equal.
inline void ExpectRowMatchesFixture(const Fixture& f) {
  ASSERT_NE(f.row, nullptr);
  std::vector<uint8_t> first_bits;
  for (int threads : {0, 4}) {
    support::RunOptions options = f.options;
    options.threads = threads;
    const std::string label = f.name + " (" + f.row->name + ") with " +
                              (threads ? std::to_string(threads) : std::string("default")) +
                              " threads";
    std::vector<double> seen;
    const support::RunOutput run =
        support::RunOperator(*f.row, f.problem, f.source, options, &seen);
    ASSERT_EQ(run.status, ACLNN_SUCCESS) << label << ": " << run.message;
    // A fixture whose source the library would see rounded is a broken fixture.
    ASSERT_TRUE(std::equal(seen.begin(), seen.end(), f.source.begin(), f.source.end(), SameValue))
        << label << ": source values not exact in the case's dtype";
    if (CopiesElements(*f.row)) {
      int inexact = 0;
      for (size_t i = 0; i < f.expect.size(); ++i) {
        if (SameValue(run.values[i], f.expect[i])) continue;
        if (++inexact <= 3) {
          ADD_FAILURE() << label << ": element " << i << " is " << run.values[i]
                        << ", torch copied " << f.expect[i];
        }
      }
      EXPECT_EQ(inexact, 0) << label << ": elements not copied exactly";
    } else {
      EXPECT_EQ(support::CountOutOfTolerance(f.options.dtype, run.values, f.expect, f.mag, label),
                0);
    }
    EXPECT_TRUE(run.outside_view_untouched) << label << ": wrote outside out's view";
    std::cout << label
              << ": worst |lib-expect|/tolerance = " << WorstRatio(f, run.values, f.expect);
    if (!f.torch32.empty()) {
      std::cout << "; vs torch float32: " << WorstRatio(f, run.values, f.torch32);
    }
    std::cout << "\n";
    if (first_bits.empty()) {
      first_bits = run.raw_bits;
    } else {
      EXPECT_TRUE(run.raw_bits == first_bits) << label << ": not bitwise equal to the default run";
    }
  }
}

// The fixture against the test's own float64 reference (two independent readings of the
// formulas: torch's kernels and reference.cc): values to the last bits of float64, and
// nonfinite values in the same places.
inline void ExpectTorchAgreesWithTheReference(const Fixture& f) {
  const reference::Case computed = support::ForRow(*f.row, f.problem);
  std::vector<double> y, magnitude;
  if (f.row->direction == ACLNN_UPSAMPLE_FORWARD) {
    reference::Forward(computed, f.source, &y, &magnitude);
  } else {
    reference::Backward(computed, f.source, &y, &magnitude);
  }
  ASSERT_EQ(y.size(), f.expect.size()) << f.name;
  for (size_t i = 0; i < y.size(); ++i) {
    if (!std::isfinite(f.expect[i]) || !std::isfinite(y[i])) {
      // Which nonfinite value a sum gives does not depend on its order: NaN when a term is NaN
      // (an Inf times a weight of 0 included) or Infs of both signs meet, else the Inf.
      ASSERT_TRUE(SameValue(y[i], f.expect[i]))
          << f.name << " element " << i << ": reference " << y[i] << ", torch " << f.expect[i];
      continue;
    }
    ASSERT_NEAR(y[i], f.expect[i], 1e-12 * (1 + f.mag[i])) << f.name << " element " << i;
    ASSERT_NEAR(magnitude[i], f.mag[i], 1e-12 * (1 + f.mag[i])) << f.name << " element " << i;
  }
}

// What a fixture covers, for the coverage checks: "align" / "no-align", "scales" / "no-scales",
// "up", "down", "1xN", "Nx1", "nan", "inf", "dtype <n>", and the layout's name.
inline std::set<std::string> KindsOf(const Fixture& f) {
  const reference::Case& p = f.problem;
  std::set<std::string> kinds;
  kinds.insert(p.align_corners ? "align" : "no-align");
  kinds.insert(p.scales_h != 0 || p.scales_w != 0 ? "scales" : "no-scales");
  if (p.out_h > p.in_h || p.out_w > p.in_w) kinds.insert("up");
  if (p.out_h < p.in_h || p.out_w < p.in_w) kinds.insert("down");
  if (p.in_h == 1 && p.out_h == 1) kinds.insert("1xN");
  if (p.in_w == 1) kinds.insert("Nx1");
  for (double v : f.source) {
    if (std::isnan(v)) kinds.insert("nan");
    if (std::isinf(v)) kinds.insert("inf");
  }
  kinds.insert("dtype " + std::to_string(f.options.dtype));
  if (f.options.storage == support::Storage::kChannelsLastView) {
    kinds.insert("channels_last");
  } else {
    kinds.insert(f.options.format == ACL_FORMAT_NHWC ? "nhwc"
                 : f.options.format == ACL_FORMAT_ND ? "nd"
                                                     : "nchw");
  }
  return kinds;
}

// Every row of the direction has fixtures of every kind it takes: both alignments and scales
// given and not where the operator has them, up, down, 1xN, Nx1, NaN and Inf sources, every
// dtype, and every layout the row accepts.
inline void ExpectEveryRowCovered(const std::vector<Fixture>& fixtures,
                                  aclnn_upsample_direction direction) {
  std::map<const aclnn_upsample_operator*, std::set<std::string>> kinds;
  for (const Fixture& f : fixtures) {
    const std::set<std::string> k = KindsOf(f);
    kinds[f.row].insert(k.begin(), k.end());
  }
  for (const aclnn_upsample_operator* row : support::OperatorsOf(direction)) {
    std::vector<std::string> wanted = {"no-align", "no-scales", "up",  "down", "1xN",
                                       "Nx1",      "nan",       "inf", "nchw", "channels_last"};
    for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      wanted.push_back("dtype " + std::to_string(dtype));
    }
    if (row->takes_align_corners) wanted.push_back("align");
    if (row->takes_scales) wanted.push_back("scales");
    if (row->accepts_nhwc) wanted.push_back("nhwc");
    if (row->accepts_nd) wanted.push_back("nd");
    for (const std::string& kind : wanted) {
      EXPECT_EQ(kinds[row].count(kind), 1u) << row->name << ": no fixture of kind " << kind;
    }
  }
}

}  // namespace golden

#endif  // ACLNN_UPSAMPLE_TESTS_SUPPORT_GOLDEN_READER_H_
