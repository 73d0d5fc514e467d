// Runs the upsample-grad binary: the documented examples, bitwise agreement with the library
// called directly, help, and bench.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <ostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "aclnn_upsample/operators.h"
#include "float16.h"
#include "npy.h"
#include "tool_process.h"

namespace upsample_grad::testing {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// Contract section 1.4.
const std::vector<double> kBilinearExample = {3.24, 4.32, 3.24, 4.32, 5.76, 4.32, 3.24, 4.32, 3.24};
const std::vector<double> kBicubicExample = {
    -0.037380, -0.021394, 0.076689, 0.210637, -0.019148, 0.026700, 0.200382, 0.428001,
    0.054657,  0.153699,  0.411533, 0.732542, 0.137444,  0.293525, 0.637135, 1.051797,
    0.170893,  0.347117,  0.715870, 1.156116, 0.237614,  0.463294, 0.912605, 1.443050,
    0.538375,  1.014847,  1.918604, 2.973265, 1.005456,  1.876058, 3.500808, 5.389207};

// The printed values of the example whose heading starts with `heading`: the lines after the
// next "gradIn (...):" line that hold only numbers.
std::vector<double> PrintedValues(const std::string& out, const std::string& heading) {
  std::vector<double> values;
  size_t start = out.find(heading);
  if (start == std::string::npos) return values;
  start = out.find("gradIn (", start);
  if (start == std::string::npos) return values;
  std::istringstream lines(out.substr(out.find('\n', start) + 1));
  std::string line;
  while (std::getline(lines, line) && !line.empty() &&
         line.find_first_not_of(" -.0123456789") == std::string::npos) {
    std::istringstream numbers(line);
    double value;
    while (numbers >> value) values.push_back(value);
  }
  return values;
}

void ExpectNear(const std::vector<double>& actual, const std::vector<double>& expected,
                double tolerance) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], tolerance) << "element " << i;
  }
}

std::vector<double> Float32Values(const npy::Array& array) {
  std::vector<double> values(static_cast<size_t>(array.ElementCount()));
  for (size_t i = 0; i < values.size(); ++i) {
    float value;
    std::memcpy(&value, array.data.data() + 4 * i, 4);
    values[i] = value;
  }
  return values;
}

std::vector<const aclnn_upsample_operator*> TableRows() {
  std::vector<const aclnn_upsample_operator*> rows;
  for (size_t i = 0; i < aclnn_upsample_operator_count(); ++i) {
    rows.push_back(aclnn_upsample_operator_at(i));
  }
  return rows;
}

Op OpOf(const aclnn_upsample_operator& row) {
  return Op{row.command, row.name, row.direction == ACLNN_UPSAMPLE_FORWARD};
}

TEST(CliTest, NoArgumentsRunsBothDocumentedExamples) {
  ToolResult result = RunTool({});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.err, "");
  ExpectNear(PrintedValues(result.out, "bilinear: CANN's example"), kBilinearExample, 1e-5);
  ExpectNear(PrintedValues(result.out, "bicubic-aa: CANN's example"), kBicubicExample, 1e-5);
  EXPECT_THAT(result.out, HasSubstr("bilinear: aclnnUpsampleBilinear2dBackwardV2 float32 NCHW "
                                    "gradOut (1, 1, 6, 6) -> gradIn (1, 1, 3, 3) in "));
  EXPECT_THAT(result.out, HasSubstr("bicubic-aa: aclnnUpsampleBicubic2dAAGrad float32 NCHW "
                                    "gradOut (1, 1, 4, 2) -> gradIn (1, 1, 8, 4) in "));
  EXPECT_THAT(result.out, HasSubstr(" GB/s\n"));
}

TEST(CliTest, EachOperatorRunsItsExampleAndCanSaveIt) {
  TempDir dir;
  ToolResult bilinear = RunTool({"bilinear", "--threads", "2"});
  ASSERT_EQ(bilinear.exit_status, 0) << bilinear.err;
  ExpectNear(PrintedValues(bilinear.out, "bilinear: CANN's example"), kBilinearExample, 1e-5);
  EXPECT_THAT(bilinear.out, Not(HasSubstr("bicubic")));
  EXPECT_THAT(bilinear.out, HasSubstr(", 2 threads"));

  ToolResult bicubic = RunTool({"bicubic-aa", "-o", dir.File("example.npy")});
  ASSERT_EQ(bicubic.exit_status, 0) << bicubic.err;
  ExpectNear(PrintedValues(bicubic.out, "bicubic-aa: CANN's example"), kBicubicExample, 1e-5);
  npy::Array saved = npy::ReadNpy(dir.File("example.npy"));
  EXPECT_EQ(saved.descr, "<f4");
  EXPECT_EQ(saved.shape, (std::vector<int64_t>{1, 1, 8, 4}));
  ExpectNear(Float32Values(saved), kBicubicExample, 1e-5);
  EXPECT_THAT(bicubic.out, HasSubstr("wrote " + dir.File("example.npy")));
}

// Deterministic values in [-1, 1) stored as `descr` (16-bit descrs hold `dtype`'s bits).
std::vector<std::byte> MakeData(int64_t count, aclDataType dtype) {
  size_t element_size = dtype == ACL_FLOAT ? 4 : 2;
  std::vector<std::byte> data(static_cast<size_t>(count) * element_size);
  uint32_t state = 2024u;
  for (int64_t i = 0; i < count; ++i) {
    state = state * 1664525u + 1013904223u;
    float value = static_cast<float>(state >> 8) / static_cast<float>(1u << 23) - 1.0f;
    std::byte* target = data.data() + static_cast<size_t>(i) * element_size;
    if (dtype == ACL_FLOAT) {
      std::memcpy(target, &value, 4);
    } else {
      uint16_t bits = dtype == ACL_FLOAT16 ? FloatToHalfBits(value) : FloatToBf16Bits(value);
      std::memcpy(target, &bits, 2);
    }
  }
  return data;
}

struct BitwiseCase {
  std::string name;
  Op op;
  aclDataType dtype;
  std::string descr;  // how the input file stores the data
  aclFormat format;
  std::array<int64_t, 4> source_dims;
  std::array<int64_t, 4> result_dims;
  std::vector<std::string> args;  // --input-size (--output-size) and the rest
  bool align_corners = false;
  double scales_h = 0;
  double scales_w = 0;
};

// Names the case in test listings instead of dumping its bytes.
void PrintTo(const BitwiseCase& test_case, std::ostream* out) { *out << test_case.name; }

class BitwiseTest : public ::testing::TestWithParam<BitwiseCase> {};

TEST_P(BitwiseTest, ToolResultEqualsLibraryResult) {
  const BitwiseCase& test_case = GetParam();
  TempDir dir;
  int64_t count = 1;
  for (int64_t dim : test_case.source_dims) count *= dim;
  npy::Array input{test_case.descr,
                   {test_case.source_dims.begin(), test_case.source_dims.end()},
                   MakeData(count, test_case.dtype)};
  npy::WriteNpy(dir.File("source.npy"), input);

  std::vector<std::string> args = {test_case.op.command, dir.File("source.npy"), "-o",
                                   dir.File("result.npy")};
  args.insert(args.end(), test_case.args.begin(), test_case.args.end());
  ToolResult result = RunTool(args);
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(CountLines(result.out), 1) << result.out;

  LibraryCall call;
  call.op = test_case.op;
  call.dtype = test_case.dtype;
  call.format = test_case.format;
  call.source_dims = test_case.source_dims;
  // outputSize is the H and W of the operator's output-sized tensor: gradOut, or out.
  const std::array<int64_t, 4>& output_dims =
      test_case.op.forward ? test_case.result_dims : test_case.source_dims;
  bool channels_last = test_case.format == ACL_FORMAT_NHWC;
  call.output_size = {output_dims[channels_last ? 1 : 2], output_dims[channels_last ? 2 : 3]};
  call.result_dims = test_case.result_dims;
  call.align_corners = test_case.align_corners;
  call.scales_h = test_case.scales_h;
  call.scales_w = test_case.scales_w;
  LibraryResult expected = CallLibrary(call, input.data);
  ASSERT_EQ(expected.status, 0) << expected.message;

  npy::Array output = npy::ReadNpy(dir.File("result.npy"));
  const char* expected_descr = test_case.dtype == ACL_FLOAT     ? "<f4"
                               : test_case.dtype == ACL_FLOAT16 ? "<f2"
                                                                : "<u2";
  EXPECT_EQ(output.descr, expected_descr);
  EXPECT_EQ(output.shape,
            std::vector<int64_t>(test_case.result_dims.begin(), test_case.result_dims.end()));
  EXPECT_TRUE(output.data == expected.result) << "the tool's result differs from the library's";
  EXPECT_EQ(dir.List(), (std::vector<std::string>{"result.npy", "source.npy"}));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BitwiseTest,
    ::testing::Values(BitwiseCase{"BilinearFloat32",
                                  Op::kBilinear,
                                  ACL_FLOAT,
                                  "<f4",
                                  ACL_FORMAT_NCHW,
                                  {2, 3, 8, 10},
                                  {2, 3, 5, 7},
                                  {"--input-size", "5,7"}},
                      BitwiseCase{"BilinearAlignCornersScales",
                                  Op::kBilinear,
                                  ACL_FLOAT,
                                  "<f4",
                                  ACL_FORMAT_NCHW,
                                  {2, 3, 8, 10},
                                  {2, 3, 4, 5},
                                  {"--input-size", "2,3,4,5", "--align-corners", "--scales", "2,2"},
                                  true,
                                  2,
                                  2},
                      BitwiseCase{"BilinearFloat16",
                                  Op::kBilinear,
                                  ACL_FLOAT16,
                                  "<f2",
                                  ACL_FORMAT_NCHW,
                                  {1, 4, 6, 6},
                                  {1, 4, 13, 12},
                                  {"--input-size", "13,12"}},
                      BitwiseCase{"BilinearBfloat16U2",
                                  Op::kBilinear,
                                  ACL_BF16,
                                  "<u2",
                                  ACL_FORMAT_NCHW,
                                  {1, 4, 9, 6},
                                  {1, 4, 4, 3},
                                  {"--input-size", "4,3", "--dtype", "bf16"}},
                      BitwiseCase{"BilinearBfloat16I2",
                                  Op::kBilinear,
                                  ACL_BF16,
                                  "<i2",
                                  ACL_FORMAT_NCHW,
                                  {1, 2, 7, 7},
                                  {1, 2, 3, 3},
                                  {"--input-size", "3,3", "--dtype", "bf16"}},
                      BitwiseCase{"BilinearNhwc",
                                  Op::kBilinear,
                                  ACL_FLOAT,
                                  "<f4",
                                  ACL_FORMAT_NHWC,
                                  {2, 8, 10, 3},
                                  {2, 4, 5, 3},
                                  {"--input-size", "2,4,5,3", "--format", "nhwc"}},
                      BitwiseCase{"BilinearNhwcHeightWidthOnly",
                                  Op::kBilinear,
                                  ACL_FLOAT,
                                  "<f4",
                                  ACL_FORMAT_NHWC,
                                  {2, 8, 10, 3},
                                  {2, 3, 6, 3},
                                  {"--input-size", "3,6", "--format", "NHWC"}},
                      BitwiseCase{"BicubicDownsampleFloat32",
                                  Op::kBicubicAA,
                                  ACL_FLOAT,
                                  "<f4",
                                  ACL_FORMAT_NCHW,
                                  {2, 3, 4, 5},
                                  {2, 3, 9, 11},
                                  {"--input-size", "9,11"}},
                      BitwiseCase{"BicubicUpsampleScales",
                                  Op::kBicubicAA,
                                  ACL_FLOAT,
                                  "<f4",
                                  ACL_FORMAT_NCHW,
                                  {1, 2, 12, 12},
                                  {1, 2, 5, 5},
                                  {"--input-size", "5,5", "--scales", "2.4,2.4"},
                                  false,
                                  2.4,
                                  2.4},
                      BitwiseCase{"BicubicBfloat16",
                                  Op::kBicubicAA,
                                  ACL_BF16,
                                  "<u2",
                                  ACL_FORMAT_NCHW,
                                  {1, 3, 8, 8},
                                  {1, 3, 16, 20},
                                  {"--input-size", "16,20", "--dtype", "bf16"}},
                      BitwiseCase{"BicubicFloat16Nd",
                                  Op::kBicubicAA,
                                  ACL_FLOAT16,
                                  "<f2",
                                  ACL_FORMAT_ND,
                                  {1, 3, 8, 8},
                                  {1, 3, 6, 6},
                                  {"--input-size", "6,6", "--format", "nd", "--align-corners"},
                                  true},
                      BitwiseCase{"BilinearForwardFloat32",
                                  Op::kBilinearForward,
                                  ACL_FLOAT,
                                  "<f4",
                                  ACL_FORMAT_NCHW,
                                  {2, 3, 5, 7},
                                  {2, 3, 8, 10},
                                  {"--output-size", "8,10"}},
                      BitwiseCase{"BilinearForwardAlignCornersScales",
                                  Op::kBilinearForward,
                                  ACL_FLOAT,
                                  "<f4",
                                  ACL_FORMAT_NCHW,
                                  {2, 3, 4, 5},
                                  {2, 3, 8, 10},
                                  {"--output-size", "8,10", "--align-corners", "--scales", "2,2"},
                                  true,
                                  2,
                                  2},
                      BitwiseCase{"BilinearForwardBfloat16Downsample",
                                  Op::kBilinearForward,
                                  ACL_BF16,
                                  "<u2",
                                  ACL_FORMAT_NCHW,
                                  {1, 4, 9, 6},
                                  {1, 4, 4, 3},
                                  {"--output-size", "4,3", "--dtype", "bf16"}},
                      BitwiseCase{"BilinearForwardNhwc",
                                  Op::kBilinearForward,
                                  ACL_FLOAT,
                                  "<f4",
                                  ACL_FORMAT_NHWC,
                                  {2, 4, 5, 3},
                                  {2, 9, 7, 3},
                                  {"--output-size", "9,7", "--format", "nhwc"}},
                      BitwiseCase{"BicubicForwardDownsampleFloat32",
                                  Op::kBicubicAAForward,
                                  ACL_FLOAT,
                                  "<f4",
                                  ACL_FORMAT_NCHW,
                                  {2, 3, 9, 11},
                                  {2, 3, 4, 5},
                                  {"--output-size", "4,5"}},
                      BitwiseCase{"BicubicForwardUpsampleScales",
                                  Op::kBicubicAAForward,
                                  ACL_FLOAT,
                                  "<f4",
                                  ACL_FORMAT_NCHW,
                                  {1, 2, 5, 5},
                                  {1, 2, 12, 12},
                                  {"--output-size", "12,12", "--scales", "2.4,2.4"},
                                  false,
                                  2.4,
                                  2.4},
                      BitwiseCase{"BicubicForwardFloat16Nd",
                                  Op::kBicubicAAForward,
                                  ACL_FLOAT16,
                                  "<f2",
                                  ACL_FORMAT_ND,
                                  {1, 3, 6, 6},
                                  {1, 3, 8, 8},
                                  {"--output-size", "8,8", "--format", "nd", "--align-corners"},
                                  true},
                      // The rows of issue 15: their options reach the operator as given.
                      BitwiseCase{"NearestForwardOddRatio",
                                  Op::kNearestForward,
                                  ACL_FLOAT,
                                  "<f4",
                                  ACL_FORMAT_NCHW,
                                  {2, 3, 5, 7},
                                  {2, 3, 11, 10},
                                  {"--output-size", "11,10"}},
                      BitwiseCase{
                          "NearestForwardScalesNhwc",
                          Op::kNearestForward,
                          ACL_FLOAT,
                          "<f4",
                          ACL_FORMAT_NHWC,
                          {1, 6, 4, 3},
                          {1, 13, 7, 3},
                          {"--output-size", "13,7", "--format", "nhwc", "--scales", "2.2,1.7"},
                          false,
                          2.2,
                          1.7},
                      BitwiseCase{"NearestBackwardFloat16",
                                  Op::kNearest,
                                  ACL_FLOAT16,
                                  "<f2",
                                  ACL_FORMAT_NCHW,
                                  {1, 3, 12, 10},
                                  {1, 3, 5, 4},
                                  {"--input-size", "5,4"}},
                      // Scales V2 would not use (floor(4 * 2.5) != 9), which V1 uses as given.
                      BitwiseCase{"BilinearV1InconsistentScales",
                                  Op::kBilinearV1,
                                  ACL_FLOAT,
                                  "<f4",
                                  ACL_FORMAT_NCHW,
                                  {2, 2, 9, 7},
                                  {2, 2, 4, 3},
                                  {"--input-size", "4,3", "--scales", "2.5,2.5"},
                                  false,
                                  2.5,
                                  2.5},
                      BitwiseCase{"BicubicForwardAlignCornersBfloat16",
                                  Op::kBicubicForward,
                                  ACL_BF16,
                                  "<u2",
                                  ACL_FORMAT_NCHW,
                                  {1, 2, 5, 6},
                                  {1, 2, 9, 13},
                                  {"--output-size", "9,13", "--dtype", "bf16", "--align-corners"},
                                  true},
                      BitwiseCase{"BilinearAABackwardNd",
                                  Op::kBilinearAA,
                                  ACL_FLOAT,
                                  "<f4",
                                  ACL_FORMAT_ND,
                                  {1, 3, 4, 5},
                                  {1, 3, 9, 11},
                                  {"--input-size", "9,11", "--format", "nd"}}),
    [](const ::testing::TestParamInfo<BitwiseCase>& info) { return info.param.name; });

TEST(CliTest, Float64IsComputedInFloat32AndWrittenAsFloat64) {
  TempDir dir;
  std::vector<double> values(2 * 3 * 6 * 4);
  for (size_t i = 0; i < values.size(); ++i) values[i] = 1.0 / (1.0 + static_cast<double>(i));
  npy::Array input{"<f8", {2, 3, 6, 4}, std::vector<std::byte>(values.size() * 8)};
  std::memcpy(input.data.data(), values.data(), input.data.size());
  npy::WriteNpy(dir.File("grad_out.npy"), input);
  ToolResult result = RunTool({"bicubic-aa", dir.File("grad_out.npy"), "--input-size", "3,2", "-o",
                               dir.File("grad_in.npy")});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("float32 (from float64)"));

  std::vector<std::byte> as_float32(values.size() * 4);
  for (size_t i = 0; i < values.size(); ++i) {
    float value = static_cast<float>(values[i]);
    std::memcpy(as_float32.data() + 4 * i, &value, 4);
  }
  LibraryCall call;
  call.op = Op::kBicubicAA;
  call.source_dims = {2, 3, 6, 4};
  call.output_size = {6, 4};
  call.result_dims = {2, 3, 3, 2};
  LibraryResult expected = CallLibrary(call, as_float32);
  ASSERT_EQ(expected.status, 0) << expected.message;
  npy::Array output = npy::ReadNpy(dir.File("grad_in.npy"));
  ASSERT_EQ(output.descr, "<f8");
  ASSERT_EQ(output.data.size(), expected.result.size() * 2);
  for (size_t i = 0; i < expected.result.size() / 4; ++i) {
    float library_value;
    double tool_value;
    std::memcpy(&library_value, expected.result.data() + 4 * i, 4);
    std::memcpy(&tool_value, output.data.data() + 8 * i, 8);
    EXPECT_EQ(tool_value, static_cast<double>(library_value)) << "element " << i;
  }
}

TEST(CliTest, ThreadCountDoesNotChangeTheResult) {
  TempDir dir;
  npy::Array input{"<f4", {2, 16, 24, 20}, MakeData(2 * 16 * 24 * 20, ACL_FLOAT)};
  npy::WriteNpy(dir.File("grad_out.npy"), input);
  for (const char* threads : {"1", "2", "3"}) {
    ToolResult result =
        RunTool({"bilinear", dir.File("grad_out.npy"), "--input-size", "11,9", "--threads", threads,
                 "-o", dir.File(std::string(threads) + ".npy")});
    ASSERT_EQ(result.exit_status, 0) << result.err;
    EXPECT_THAT(result.out, HasSubstr(std::string(", ") + threads + " threads"));
  }
  std::string one = ReadBytes(dir.File("1.npy"));
  EXPECT_EQ(ReadBytes(dir.File("2.npy")), one);
  EXPECT_EQ(ReadBytes(dir.File("3.npy")), one);
}

TEST(CliTest, EveryCommandHasHelp) {
  struct Help {
    std::vector<std::string> args;
    std::string mentions;
  };
  for (const Help& help :
       {Help{{"--help"}, "compare"}, Help{{"-h"}, "bench"},
        Help{{"bilinear", "--help"}, "--input-size"},
        Help{{"bicubic-aa", "--help"}, "--align-corners"},
        Help{{"bilinear-forward", "--help"}, "--output-size"},
        Help{{"bicubic-aa-forward", "--help"}, "--output-size"},
        Help{{"compare", "--help"}, "--rtol"}, Help{{"bench", "--help"}, "--case"}}) {
    ToolResult result = RunTool(help.args);
    EXPECT_EQ(result.exit_status, 0) << help.args[0];
    EXPECT_THAT(result.out, HasSubstr("Usage:"));
    EXPECT_THAT(result.out, HasSubstr(help.mentions));
    EXPECT_THAT(result.out, HasSubstr("Exit status"));
    EXPECT_EQ(result.err, "");
  }
  ToolResult version = RunTool({"--version"});
  EXPECT_EQ(version.exit_status, 0);
  EXPECT_THAT(version.out, HasSubstr("upsample-grad "));
}

TEST(CliTest, BenchPrintsOneRowPerCase) {
  ToolResult result = RunTool({"bench", "--case", "4,7,12", "--repeats", "2", "--min-time", "0",
                               "--bandwidth-mib", "16", "--threads", "2"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  // The roofline's three rates, before the cases and again after them.
  EXPECT_THAT(result.out,
              ContainsRegex("\nmemory roofline: streaming copy [0-9.]+ GB/s \\(read \\+ write\\), "
                            "read [0-9.]+ GB/s, write [0-9.]+ GB/s \\(16 MiB buffers, median of "
                            "[0-9]+, 2 threads"));
  EXPECT_THAT(result.out, HasSubstr("\nroofline after the cases: streaming copy "));
  EXPECT_THAT(result.out, HasSubstr("of peak"));
  EXPECT_THAT(result.out, HasSubstr("median ms"));
  EXPECT_THAT(result.out, HasSubstr("\n   4  bilinear    8,3 256x256->224x224"));
  EXPECT_THAT(result.out, HasSubstr("\n   7  bilinear    8,64 64x64->128x128"));
  EXPECT_THAT(result.out, HasSubstr("NCHW(NHWC mem)"));
  EXPECT_THAT(result.out, HasSubstr("\n  12  bicubic-aa  8,3 512x512->128x128"));
  EXPECT_THAT(result.out, HasSubstr("bfloat16"));
  EXPECT_THAT(result.out, Not(HasSubstr("\n   1  ")));
}

TEST(CliTest, ForwardCommandsTakeOutputSizeNotInputSize) {
  for (const Op& op : {Op::kBilinearForward, Op::kBicubicAAForward}) {
    ToolResult help = RunTool({op.command, "--help"});
    ASSERT_EQ(help.exit_status, 0) << help.err;
    EXPECT_THAT(help.out, HasSubstr(std::string(op.name) + ")"));
    EXPECT_THAT(help.out, HasSubstr("--output-size H,W"));
    EXPECT_THAT(help.out, Not(HasSubstr("--input-size")));
    EXPECT_THAT(help.out, Not(HasSubstr("documented example")));
  }
  ToolResult top = RunTool({"--help"});
  EXPECT_THAT(top.out, ContainsRegex("\n  bilinear-forward +Resize self "));
  EXPECT_THAT(top.out, ContainsRegex("\n  bicubic-aa-forward +Resize x "));
}

TEST(CliTest, ForwardSummaryNamesTheOperatorAndItsTensors) {
  TempDir dir;
  npy::Array input{"<f4", {1, 2, 4, 4}, MakeData(32, ACL_FLOAT)};
  npy::WriteNpy(dir.File("x.npy"), input);
  ToolResult result =
      RunTool({"bicubic-aa-forward", dir.File("x.npy"), "--output-size", "2,3", "--threads", "2"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("bicubic-aa-forward: aclnnUpsampleBicubic2dAA float32 NCHW x "
                                    "(1, 2, 4, 4) -> out (1, 2, 2, 3) in "));
  EXPECT_THAT(result.out, HasSubstr(", 2 threads\n"));
  EXPECT_EQ(dir.List(), std::vector<std::string>{"x.npy"});  // no -o, nothing written
}

// The forward rows of the suite: each backward case of the issue's suite (1-12) again as a
// forward call, case N + 14, so that the two directions can be read side by side.
TEST(CliTest, BenchListsForwardRowsBesideTheBackwardOnes) {
  ToolResult listing = RunTool({"bench", "--list-cases"});
  ASSERT_EQ(listing.exit_status, 0) << listing.err;
  std::vector<std::string> lines;
  std::istringstream stream(listing.out);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  ASSERT_GE(lines.size(), 26u);
  for (size_t backward = 0; backward < 12; ++backward) {
    std::string expected = lines[backward];
    // "   1 bilinear  ..." -> "  15 bilinear-forward ...": the same shape, dtype and layout.
    std::smatch parts;
    ASSERT_TRUE(std::regex_match(expected, parts, std::regex(" +[0-9]+ ([a-z-]+)(\\*?) +(.*)")))
        << expected;
    std::smatch forward_parts;
    ASSERT_TRUE(std::regex_match(lines[backward + 14], forward_parts,
                                 std::regex(" +([0-9]+) ([a-z-]+)(\\*?) +(.*)")))
        << lines[backward + 14];
    EXPECT_EQ(forward_parts[1].str(), std::to_string(backward + 15));
    EXPECT_EQ(forward_parts[2].str(), parts[1].str() + "-forward");
    EXPECT_EQ(forward_parts[3].str(), parts[2].str());
    EXPECT_EQ(forward_parts[4].str(), parts[3].str());
  }
  EXPECT_THAT(listing.out,
              ContainsRegex("bicubic-aa-forward +8,3 512x512->128x128 +fp32 NCHW\\(NHWC mem\\)"));

  // The JSON that bench/compare_torch.py reads: every operator of the library's table has a
  // case (issue 15: at least one row per operator).
  ToolResult json = RunTool({"bench", "--list-cases", "--json"});
  ASSERT_EQ(json.exit_status, 0) << json.err;
  EXPECT_EQ(CountLines(json.out), CountLines(listing.out) + 2);  // one object a line, and [ ]
  for (const aclnn_upsample_operator* row : TableRows()) {
    EXPECT_THAT(json.out, HasSubstr(std::string("\"command\": \"") + row->command +
                                    "\", \"operator\": \"" + row->name + "\""));
    EXPECT_THAT(listing.out, ContainsRegex(std::string("\n +[0-9]+ ") + row->command + " "));
  }
  EXPECT_THAT(json.out, HasSubstr("{\"id\": 15, \"command\": \"bilinear-forward\", \"operator\": "
                                  "\"aclnnUpsampleBilinear2d\", \"mode\": \"bilinear\", "
                                  "\"direction\": \"forward\", \"n\": 8, \"c\": 64, \"in_h\": 64, "
                                  "\"in_w\": 64, \"out_h\": 128, \"out_w\": 128, \"dtype\": "
                                  "\"fp32\", \"align_corners\": false, \"channels_last\": false, "
                                  "\"extra\": false, \"takes_align_corners\": true, "
                                  "\"takes_scales\": true}"));
  EXPECT_THAT(json.out, HasSubstr("\"command\": \"nearest-v1-forward\", \"operator\": "
                                  "\"aclnnUpsampleNearest2d\", \"mode\": \"nearest\""));
  EXPECT_THAT(json.out, ContainsRegex("\"command\": \"nearest-v1-forward\".*\"takes_align_"
                                      "corners\": false, \"takes_scales\": false\\}"));
  // The help lists the same suite.
  ToolResult help = RunTool({"bench", "--help"});
  EXPECT_THAT(help.out, HasSubstr(listing.out));
}

// The cases of issue 15's operators (28 onwards): the two nearest rows of case 1's shape.
TEST(CliTest, BenchRunsTheNewRows) {
  ToolResult result = RunTool({"bench", "--case", "29,30", "--repeats", "2", "--min-time", "0",
                               "--bandwidth-mib", "16", "--threads", "2"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("\n  29  nearest-forward  8,64 64x64->128x128"));
  EXPECT_THAT(result.out, HasSubstr("\n  30  nearest          8,64 64x64->128x128"));
  EXPECT_THAT(result.out, Not(HasSubstr("alignCorners")));
}

TEST(CliTest, BenchRunsForwardRows) {
  ToolResult result = RunTool({"bench", "--case", "18,26", "--repeats", "2", "--min-time", "0",
                               "--bandwidth-mib", "16", "--threads", "2"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("\n  18  bilinear-forward    8,3 256x256->224x224"));
  EXPECT_THAT(result.out, HasSubstr("\n  26  bicubic-aa-forward  8,3 512x512->128x128"));
  EXPECT_THAT(result.out, HasSubstr("GB/s counts the source (gradOut, or a forward operator's "
                                    "input) read once and the result written once"));
}

// Every row of the library's table is reachable by its command and runs that row's operator:
// the tool's result equals the library's, called by the row's CANN name.
TEST(CliTest, EveryRowOfTheTableRunsThroughItsCommand) {
  const std::array<int64_t, 4> input{1, 2, 4, 5};  // the forward input; outputSize 7 x 3
  const std::array<int64_t, 4> output{1, 2, 7, 3};
  for (const aclnn_upsample_operator* row : TableRows()) {
    SCOPED_TRACE(row->command);
    const Op op = OpOf(*row);
    const std::array<int64_t, 4>& source_dims = op.forward ? input : output;
    const std::array<int64_t, 4>& result_dims = op.forward ? output : input;
    TempDir dir;
    const int64_t count = source_dims[0] * source_dims[1] * source_dims[2] * source_dims[3];
    npy::Array source{"<f4", {source_dims.begin(), source_dims.end()}, MakeData(count, ACL_FLOAT)};
    npy::WriteNpy(dir.File("source.npy"), source);
    ToolResult result =
        RunTool({op.command, dir.File("source.npy"), op.forward ? "--output-size" : "--input-size",
                 op.forward ? "7,3" : "4,5", "-o", dir.File("result.npy")});
    ASSERT_EQ(result.exit_status, 0) << result.err;
    EXPECT_THAT(result.out, HasSubstr(std::string(op.command) + ": " + op.name + " float32 NCHW "));

    LibraryCall call;
    call.op = op;
    call.source_dims = source_dims;
    call.output_size = {7, 3};
    call.result_dims = result_dims;
    LibraryResult expected = CallLibrary(call, source.data);
    ASSERT_EQ(expected.status, 0) << expected.message;
    EXPECT_TRUE(npy::ReadNpy(dir.File("result.npy")).data == expected.result);
  }
}

TEST(CliTest, HelpListsEveryRowOfTheTable) {
  ToolResult top = RunTool({"--help"});
  ASSERT_EQ(top.exit_status, 0) << top.err;
  for (const aclnn_upsample_operator* row : TableRows()) {
    SCOPED_TRACE(row->command);
    const bool forward = row->direction == ACLNN_UPSAMPLE_FORWARD;
    // The command list gives each command's first sentence, which names its operator.
    EXPECT_THAT(top.out, ContainsRegex(std::string("\n  ") + row->command +
                                       (forward ? " +Resize " : " +Compute the gradient of ")));
    EXPECT_THAT(top.out, HasSubstr(row->name));

    ToolResult help = RunTool({row->command, "--help"});
    ASSERT_EQ(help.exit_status, 0) << help.err;
    EXPECT_THAT(help.out, HasSubstr(std::string("Usage: upsample-grad ") + row->command));
    EXPECT_THAT(help.out, HasSubstr(forward ? "--output-size H,W" : "--input-size N,C,H,W|H,W"));
    EXPECT_THAT(help.out, HasSubstr("Exit status"));
    EXPECT_EQ(help.out.find("documented example") != std::string::npos,
              row == aclnn_upsample_find_operator("aclnnUpsampleBilinear2dBackwardV2") ||
                  row == aclnn_upsample_find_operator("aclnnUpsampleBicubic2dAAGrad"))
        << "only the operators CANN documents an example of offer to run one";
  }
}

// An operator without alignCorners or scales (the nearest family, Nearest2d's scales): the
// command refuses the option, naming the operator, instead of passing a value it would ignore,
// and its help says so instead of listing the option.
TEST(CliTest, OptionsForParametersAnOperatorLacksAreRefused) {
  TempDir dir;
  npy::Array source{"<f4", {1, 1, 4, 4}, MakeData(16, ACL_FLOAT)};
  npy::WriteNpy(dir.File("source.npy"), source);
  int without_align_corners = 0, without_scales = 0;
  for (const aclnn_upsample_operator* row : TableRows()) {
    SCOPED_TRACE(row->command);
    const bool forward = row->direction == ACLNN_UPSAMPLE_FORWARD;
    const std::vector<std::string> call = {row->command, dir.File("source.npy"),
                                           forward ? "--output-size" : "--input-size", "8,8"};
    ToolResult help = RunTool({row->command, "--help"});
    ASSERT_EQ(help.exit_status, 0) << help.err;
    struct Refusable {
      bool taken;
      std::vector<std::string> args;
      std::string listed;  // the option's line in the help when the operator takes it
      std::string reason;
    };
    for (const Refusable& option :
         {Refusable{row->takes_align_corners,
                    {"--align-corners"},
                    "  --align-corners ",
                    std::string(row->name) + " has no alignCorners parameter: --align-corners "
                                             "is refused"},
          Refusable{row->takes_scales,
                    {"--scales", "2,2"},
                    "  --scales H,W ",
                    std::string(row->name) + " has no scales parameters"}}) {
      std::vector<std::string> args = call;
      args.insert(args.end(), option.args.begin(), option.args.end());
      ToolResult result = RunTool(args);
      if (option.taken) {
        EXPECT_EQ(result.exit_status, 0) << result.err;
        EXPECT_THAT(help.out, HasSubstr(option.listed));
        continue;
      }
      EXPECT_EQ(result.exit_status, 2);
      EXPECT_EQ(result.out, "");
      EXPECT_THAT(result.err,
                  StartsWith("upsample-grad " + std::string(row->command) + ": " + option.reason));
      EXPECT_EQ(CountLines(result.err), 1) << result.err;
      EXPECT_THAT(help.out, Not(HasSubstr(option.listed)));
      // The help wraps its text: compared with runs of white space as one space.
      EXPECT_THAT(std::regex_replace(help.out, std::regex("\\s+"), " "), HasSubstr(option.reason));
    }
    without_align_corners += !row->takes_align_corners;
    without_scales += !row->takes_scales;
  }
  // The table has such rows (ops7: five without alignCorners, one without scales); without them
  // this test would check nothing.
  EXPECT_GT(without_align_corners, 0);
  EXPECT_GT(without_scales, 0);
}

// Nearest2d's refusal of --scales points to the command whose operator takes them.
TEST(CliTest, ScalesRefusalNamesTheCommandThatTakesThem) {
  TempDir dir;
  npy::Array source{"<f4", {1, 1, 4, 4}, MakeData(16, ACL_FLOAT)};
  npy::WriteNpy(dir.File("self.npy"), source);
  ToolResult result = RunTool(
      {"nearest-v1-forward", dir.File("self.npy"), "--output-size", "8,8", "--scales", "2,2"});
  EXPECT_EQ(result.exit_status, 2);
  EXPECT_EQ(result.err,
            "upsample-grad nearest-v1-forward: aclnnUpsampleNearest2d has no scales parameters "
            "(its ratio is always input size / output size): --scales is refused; "
            "'nearest-forward' (aclnnUpsampleNearest2dV2) takes them\n");
}

}  // namespace
}  // namespace upsample_grad::testing
