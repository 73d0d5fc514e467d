// The PyTorch golden fixtures of tests/golden/ (made by generate_golden.py and
// generate_golden_forward.py in float64): one strict reader for the fixture files of both
// directions (it indexes the files and reads a fixture's values on first use), and the checks
// that run the fixtures of a table row through that row. Shared by golden_test (backward rows)
// and golden_forward_test (forward rows); header-only so that the two tests need no extra
// library.
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
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>
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
  // The blocks, once Suite::at has read them: the source exact in the dtype (checked when the
  // case runs), torch32 for float32 cases only.
  std::vector<double> source, expect, mag, torch32;
  std::string error;  // why the blocks could not be read, if they could not

  // Until then: the file's text, and where in it each block's values start and how many.
  std::shared_ptr<const std::string> text;
  std::map<std::string, std::pair<size_t, size_t>> blocks;
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

// The whitespace-separated tokens of a file's text, from `offset` on: numbers straight through
// strtod (istream >> double takes neither "nan" nor "inf" and rejects subnormals on some
// libstdc++ versions).
class Tokens {
 public:
  Tokens(const std::string& text, size_t offset) : begin_(text.c_str()), at_(begin_ + offset) {}

  size_t offset() const { return static_cast<size_t>(at_ - begin_); }

  // The next token, skipping `#` comments to the end of their line; false at the end.
  bool Next(std::string* token) {
    for (;;) {
      SkipSpace();
      if (*at_ != '#') break;
      while (*at_ != '\0' && *at_ != '\n') ++at_;
    }
    const char* start = at_;
    SkipToken();
    token->assign(start, at_);
    return at_ != start;
  }

  // Passes over `count` tokens without reading them; false if the text ends first.
  bool Skip(size_t count) {
    for (size_t i = 0; i < count; ++i) {
      SkipSpace();
      if (*at_ == '\0') return false;
      SkipToken();
    }
    return true;
  }

  // The next token as a number (decimal, nan, inf); false unless the whole token is one.
  bool Read(double* value) {
    SkipSpace();
    char* end = nullptr;
    *value = std::strtod(at_, &end);
    return Accept(end);
  }
  bool Read(int64_t* value) {
    SkipSpace();
    char* end = nullptr;
    *value = std::strtoll(at_, &end, 10);
    return Accept(end);
  }
  template <typename... Values>
  bool ReadAll(Values*... values) {
    return (ReadOne(values) && ...);
  }

 private:
  static bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
  bool ReadOne(std::string* value) { return Next(value); }
  template <typename Number>
  bool ReadOne(Number* value) {
    return Read(value);
  }
  void SkipSpace() {
    while (IsSpace(*at_)) ++at_;
  }
  void SkipToken() {
    while (*at_ != '\0' && !IsSpace(*at_)) ++at_;
  }
  bool Accept(char* end) {
    if (end == at_ || (*end != '\0' && !IsSpace(*end))) return false;
    at_ = end;
    return true;
  }

  const char* begin_;
  const char* at_;
};

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
  std::ifstream stream(path, std::ios::binary);
  if (!stream) return fail("cannot open");
  std::ostringstream contents;
  contents << stream.rdbuf();
  const auto text = std::make_shared<const std::string>(contents.str());
  internal::Tokens in(*text, 0);
  const bool forward = direction == ACLNN_UPSAMPLE_FORWARD;
  const std::string source_block = forward ? "input" : "grad";
  std::string token;
  std::set<std::string> names, blocks;
  bool ended = false;
  while (in.Next(&token)) {
    if (ended) return fail("'" + token + "' after the end line");
    if (token == "end") {
      int64_t count = 0;
      if (!in.Read(&count) || count != static_cast<int64_t>(file.fixtures.size())) {
        return fail("the end line does not count the " + std::to_string(file.fixtures.size()) +
                    " cases read");
      }
      ended = true;
      continue;
    }
    if (token == "case") {
      Fixture& f = file.fixtures.emplace_back();
      f.text = text;
      reference::Case& p = f.problem;
      std::string field, dtype, layout;
      int64_t align = -1;
      int64_t source_h = 0, source_w = 0, result_h = 0, result_w = 0;
      if (!in.ReadAll(&f.name, &field, &dtype, &layout, &align, &p.scales_h, &p.scales_w, &p.n,
                      &p.c, &source_h, &source_w, &result_h, &result_w) ||
          (align != 0 && align != 1)) {
        return fail("bad header of case " + f.name);
      }
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
      continue;
    }
    if (file.fixtures.empty()) return fail("block '" + token + "' before the first case");
    Fixture& f = file.fixtures.back();
    const size_t source_count = forward ? f.problem.result_elements() : f.problem.grad_elements();
    const size_t result_count = forward ? f.problem.grad_elements() : f.problem.result_elements();
    const bool known = token == source_block || token == "expect" || token == "mag" ||
                       (token == "torch32" && f.options.dtype == ACL_FLOAT);
    if (!known) return fail("unknown block '" + token + "' in case " + f.name);
    const size_t count = token == source_block ? source_count : result_count;
    if (!f.blocks.emplace(token, std::make_pair(in.offset(), count)).second) {
      return fail("block " + token + " twice in " + f.name);
    }
    if (!in.Skip(count)) return fail("block '" + token + "' of case " + f.name + " is short");
  }
  if (!ended) return fail("no end line: the file is truncated");
  for (const Fixture& f : file.fixtures) {
    for (const std::string& block : {source_block, std::string("expect"), std::string("mag")}) {
      if (f.blocks.count(block) == 0) return fail("case " + f.name + " lacks " + block);
    }
  }
  return file;
}

// Reads the fixture's blocks (once; ReadFixtureFile counted their tokens): every value a number,
// source values floats. On failure f->error says why.
inline void ReadBlocks(Fixture* f) {
  if (f->text == nullptr) return;
  for (const auto& [block, span] : f->blocks) {
    std::vector<double>* values = block == "expect"    ? &f->expect
                                  : block == "mag"     ? &f->mag
                                  : block == "torch32" ? &f->torch32
                                                       : &f->source;
    internal::Tokens in(*f->text, span.first);
    values->resize(span.second);
    for (double& v : *values) {
      if (!in.Read(&v)) f->error = "case " + f->name + ": a value of " + block + " is not a number";
    }
  }
  // Source values are printed with 9 significant digits, which name one float32 exactly
  // (16-bit values are float32 values too): read back that float, which torch computed with.
  // Whether it is exact in the case's dtype is checked when the case runs.
  for (double& v : f->source) {
    const double rounded = static_cast<float>(v);
    if (std::isfinite(v) && !(std::abs(rounded - v) <= 1e-8 * std::abs(v))) {
      f->error = "case " + f->name + ": a source value is not a float";
    }
    v = rounded;
  }
  f->text.reset();
}

// The fixture files one test reads, with the number of cases each must hold: what the generator
// writes today, so that a fixture lost from a file (or from the generator) fails, rather than
// quietly shrinking the suite. Change the numbers with the generator.
struct ExpectedFile {
  std::string path;
  size_t cases;
};

// The fixtures of a test's files, in order. Their blocks are read on first use: ctest runs each
// test in a process of its own, which then reads the values of one fixture only (strtod over
// every file would be most of its run).
class Suite {
 public:
  Suite(const std::vector<ExpectedFile>& files, aclnn_upsample_direction direction) {
    for (const ExpectedFile& expected : files) {
      FixtureFile file = ReadFixtureFile(expected.path, direction);
      if (!file.error.empty()) {
        problems_.push_back(file.error);
      } else if (file.fixtures.size() != expected.cases) {
        problems_.push_back(expected.path + ": " + std::to_string(file.fixtures.size()) +
                            " cases, not " + std::to_string(expected.cases));
      }
      for (Fixture& f : file.fixtures) fixtures_.push_back(std::move(f));
    }
  }

  size_t size() const { return fixtures_.size(); }
  const std::string& name(size_t i) const { return fixtures_[i].name; }
  const aclnn_upsample_operator* row(size_t i) const { return fixtures_[i].row; }

  // Fixture i with its blocks read.
  const Fixture& at(size_t i) const {
    ReadBlocks(&fixtures_[i]);
    return fixtures_[i];
  }

  // What is wrong with the files (unreadable, a wrong number of cases) and, reading every
  // fixture's blocks, with the fixtures.
  std::vector<std::string> Problems() const {
    std::vector<std::string> problems = problems_;
    for (size_t i = 0; i < size(); ++i) {
      if (!at(i).error.empty()) problems.push_back(at(i).error);
    }
    return problems;
  }

 private:
  mutable std::vector<Fixture> fixtures_;
  std::vector<std::string> problems_;
};

// The indices in the operator table of the rows that have fixtures in the suite: the tests run
// one row per test (with ctest, one process per row: one per fixture would spend more time
// starting processes than testing).
inline std::vector<size_t> RowIndices(const Suite& suite) {
  std::vector<size_t> indices;
  for (size_t r = 0; r < aclnn_upsample_operator_count(); ++r) {
    for (size_t i = 0; i < suite.size(); ++i) {
      if (suite.row(i) != aclnn_upsample_operator_at(r)) continue;
      indices.push_back(r);
      break;
    }
  }
  return indices;
}

// Runs `check` on every fixture of the table's row `row_index`, each failure traced to its
// fixture's name.
template <typename Check>
void ForEachFixtureOfRow(const Suite& suite, size_t row_index, Check check) {
  const aclnn_upsample_operator* row = aclnn_upsample_operator_at(row_index);
  size_t checked = 0;
  for (size_t i = 0; i < suite.size(); ++i) {
    if (suite.row(i) != row) continue;
    SCOPED_TRACE("fixture " + suite.name(i));
    check(suite.at(i));
    ++checked;
  }
  EXPECT_GT(checked, 0u) << row->name << " has no fixtures";
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
  ASSERT_EQ(f.error, "");
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
  ASSERT_EQ(f.error, "");
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
inline void ExpectEveryRowCovered(const Suite& suite, aclnn_upsample_direction direction) {
  std::map<const aclnn_upsample_operator*, std::set<std::string>> kinds;
  for (size_t i = 0; i < suite.size(); ++i) {
    const Fixture& f = suite.at(i);
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
