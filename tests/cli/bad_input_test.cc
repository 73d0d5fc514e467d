// Every bad input ends with exit status 2, a one-line message on stderr that says what was
// wrong and what was expected, and no output file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "npy.h"
#include "tool_process.h"

namespace upsample_grad::testing {
namespace {

using ::testing::HasSubstr;

std::string NpyImage(const std::string& descr, const std::vector<int64_t>& shape,
                     bool fortran_order = false) {
  std::string header = npy::EncodeNpyHeader(descr, shape);
  if (fortran_order) {
    header.replace(header.find("False"), 5, "True ");
  }
  int64_t count = 1;
  for (int64_t dim : shape) count *= dim;
  return header + std::string(static_cast<size_t>(count) * npy::ItemSize(descr), '\0');
}

const std::string kGoodInput = NpyImage("<f4", {1, 2, 6, 6});

struct BadInput {
  std::string name;
  std::string input_bytes;        // written to in.npy; empty: no input file
  std::vector<std::string> args;  // IN and OUT stand for the input and output paths
  std::vector<std::string> messages;
};

// Names the case in test listings instead of dumping its bytes.
void PrintTo(const BadInput& test_case, std::ostream* out) { *out << test_case.name; }

class BadInputTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadInputTest, ExitsWith2AndOneLineAndNoOutput) {
  const BadInput& bad = GetParam();
  TempDir dir;
  std::vector<std::string> expected_files;
  if (!bad.input_bytes.empty()) {
    WriteBytes(dir.File("in.npy"), bad.input_bytes);
    expected_files.push_back("in.npy");
  }
  std::vector<std::string> args;
  for (const std::string& arg : bad.args) {
    if (arg == "IN") {
      args.push_back(dir.File("in.npy"));
    } else if (arg == "OUT") {
      args.push_back(dir.File("out.npy"));
    } else if (arg.rfind("DIR/", 0) == 0) {
      args.push_back(dir.File(arg.substr(4)));
    } else {
      args.push_back(arg);
    }
  }
  if (bad.name == "OutputPathIsADirectory") {
    std::filesystem::create_directory(dir.File("folder.npy"));
    expected_files.push_back("folder.npy");
  }
  ToolResult result = RunTool(args);
  EXPECT_EQ(result.exit_status, 2) << result.out << result.err;
  EXPECT_EQ(CountLines(result.err), 1) << result.err;
  EXPECT_EQ(result.err.rfind("upsample-grad", 0), 0u) << result.err;
  for (const std::string& message : bad.messages) EXPECT_THAT(result.err, HasSubstr(message));
  std::sort(expected_files.begin(), expected_files.end());
  EXPECT_EQ(dir.List(), expected_files);  // no output, no temporary file
}

INSTANTIATE_TEST_SUITE_P(
    Rows, BadInputTest,
    ::testing::Values(
        BadInput{"UnreadableFile",
                 "",
                 {"bilinear", "IN", "--input-size", "3,3", "-o", "OUT"},
                 {"upsample-grad bilinear: cannot read '", "No such file or directory",
                  "expected a readable .npy file"}},
        BadInput{"TruncatedFile",
                 kGoodInput.substr(0, kGoodInput.size() - 5),
                 {"bilinear", "IN", "--input-size", "3,3", "-o", "OUT"},
                 {"is truncated: shape (1, 2, 6, 6) of '<f4' needs 288 data bytes, the file has "
                  "283"}},
        BadInput{"TruncatedHeader",
                 kGoodInput.substr(0, 30),
                 {"bilinear", "IN", "--input-size", "3,3", "-o", "OUT"},
                 {"is truncated: the .npy header needs"}},
        BadInput{"WrongMagic",
                 "GIF89a this is not an array",
                 {"bicubic-aa", "IN", "--input-size", "3,3", "-o", "OUT"},
                 {"is not a NumPy .npy file: wrong magic", "expected a NumPy .npy file"}},
        BadInput{"UnsupportedDtype",
                 NpyImage("<i4", {1, 1, 2, 2}),
                 {"bilinear", "IN", "--input-size", "1,1", "-o", "OUT"},
                 {"unsupported dtype '<i4'; expected float32 ('<f4')"}},
        BadInput{"BigEndian",
                 NpyImage(">f4", {1, 1, 2, 2}),
                 {"bilinear", "IN", "--input-size", "1,1", "-o", "OUT"},
                 {"big-endian data ('>f4') is not supported; expected little-endian ('<f4')"}},
        BadInput{"FortranOrder",
                 NpyImage("<f4", {1, 1, 2, 2}, true),
                 {"bilinear", "IN", "--input-size", "1,1", "-o", "OUT"},
                 {"Fortran-order (column-major) data is not supported; expected C order"}},
        BadInput{"ShapeNot4D",
                 NpyImage("<f4", {6, 6}),
                 {"bilinear", "IN", "--input-size", "3,3", "-o", "OUT"},
                 {"has shape (6, 6); expected a 4-D gradOut (N, C, H_out, W_out)"}},
        BadInput{"ShapeNot4DNhwc",
                 NpyImage("<f4", {1, 6, 6, 2, 1}),
                 {"bilinear", "IN", "--input-size", "3,3", "--format", "nhwc", "-o", "OUT"},
                 {"expected a 4-D gradOut (N, H_out, W_out, C)"}},
        BadInput{"RawBfloat16WithoutDtype",
                 NpyImage("<u2", {1, 1, 2, 2}),
                 {"bilinear", "IN", "--input-size", "1,1", "-o", "OUT"},
                 {"holds 16-bit integers ('<u2'); if they are raw bfloat16 values, pass --dtype "
                  "bf16"}},
        BadInput{"Bf16OfFloat32Data",
                 kGoodInput,
                 {"bilinear", "IN", "--input-size", "3,3", "--dtype", "bf16", "-o", "OUT"},
                 {"--dtype bf16 needs 16-bit data"}},
        BadInput{"MissingInputSize",
                 kGoodInput,
                 {"bilinear", "IN", "-o", "OUT"},
                 {"--input-size is required with an input file; expected N,C,H,W or H,W"}},
        BadInput{"MalformedInputSize",
                 kGoodInput,
                 {"bilinear", "IN", "--input-size", "3,x", "-o", "OUT"},
                 {"--input-size '3,x' is not valid; expected N,C,H,W or H,W"}},
        BadInput{"ThreeValueInputSize",
                 kGoodInput,
                 {"bilinear", "IN", "--input-size", "2,3,3", "-o", "OUT"},
                 {"--input-size '2,3,3' has 3 values; expected N,C,H,W or H,W"}},
        BadInput{"MalformedScales",
                 kGoodInput,
                 {"bilinear", "IN", "--input-size", "3,3", "--scales", "2", "-o", "OUT"},
                 {"--scales '2' has 1 values; expected H,W"}},
        BadInput{"UnknownFormat",
                 kGoodInput,
                 {"bilinear", "IN", "--input-size", "3,3", "--format", "nc1hwc0", "-o", "OUT"},
                 {"--format 'nc1hwc0' is not known; expected nchw, nhwc or nd"}},
        BadInput{"OutputDirectoryMissing",
                 kGoodInput,
                 {"bilinear", "IN", "--input-size", "3,3", "-o", "DIR/none/out.npy"},
                 {"cannot write '", "No such file or directory",
                  "expected a path in an existing, writable directory"}},
        BadInput{"OutputPathIsADirectory",
                 kGoodInput,
                 {"bilinear", "IN", "--input-size", "3,3", "-o", "DIR/folder.npy"},
                 {"is a directory; expected a file path"}},
        BadInput{"HugeInputSize",
                 kGoodInput,
                 {"bilinear", "IN", "--input-size", "1,2,2097152,2097152", "-o", "OUT"},
                 {"aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize failed with status 161002 "
                  "(ACLNN_ERR_PARAM_INVALID): "}},
        BadInput{
            "UnknownOption",
            kGoodInput,
            {"bilinear", "IN", "--input-size", "3,3", "--antialias", "-o", "OUT"},
            {"upsample-grad bilinear: ", "--antialias", "see 'upsample-grad bilinear --help'"}},
        BadInput{"ZeroThreads",
                 kGoodInput,
                 {"bilinear", "IN", "--input-size", "3,3", "--threads", "0", "-o", "OUT"},
                 {"--threads"}},
        BadInput{"ProblemOptionWithoutInput",
                 "",
                 {"bicubic-aa", "--scales", "3,3", "-o", "OUT"},
                 {"--scales needs a GRAD_OUT file"}},
        BadInput{"UnknownBenchCase",
                 "",
                 {"bench", "--case", "1,47"},
                 {"--case 47 is not in the suite; expected case numbers from 1 to 46"}},
        BadInput{"BenchJsonWithoutList", "", {"bench", "--json"}, {"--json needs --list-cases"}},
        BadInput{"ForwardMissingOutputSize",
                 kGoodInput,
                 {"bilinear-forward", "IN", "-o", "OUT"},
                 {"upsample-grad bilinear-forward: --output-size is required with an input file; "
                  "expected H,W (integers), the output's height and width"}},
        BadInput{"ForwardGivenInputSize",
                 kGoodInput,
                 {"bicubic-aa-forward", "IN", "--input-size", "3,3", "--output-size", "3,3", "-o",
                  "OUT"},
                 {"--input-size is for the gradient commands; bicubic-aa-forward reads its "
                  "input's size from the file; expected --output-size H,W"}},
        BadInput{"ForwardWithoutInputFile",
                 "",
                 {"bilinear-forward", "--output-size", "3,3", "-o", "OUT"},
                 {"SELF (a .npy file) is required: CANN documents no call example of "
                  "aclnnUpsampleBilinear2d"}},
        BadInput{"ForwardFourValueOutputSize",
                 kGoodInput,
                 {"bilinear-forward", "IN", "--output-size", "1,2,3,3", "-o", "OUT"},
                 {"--output-size '1,2,3,3' has 4 values; expected H,W"}},
        BadInput{"ForwardMalformedOutputSize",
                 kGoodInput,
                 {"bicubic-aa-forward", "IN", "--output-size", "3,x", "-o", "OUT"},
                 {"--output-size '3,x' is not valid; expected H,W"}},
        BadInput{"ForwardShapeNot4D",
                 NpyImage("<f4", {6, 6}),
                 {"bicubic-aa-forward", "IN", "--output-size", "3,3", "-o", "OUT"},
                 {"has shape (6, 6); expected a 4-D x (N, C, H_in, W_in)"}},
        BadInput{
            "ForwardShapeNot4DNhwc",
            NpyImage("<f4", {6, 6}),
            {"bilinear-forward", "IN", "--output-size", "3,3", "--format", "nhwc", "-o", "OUT"},
            {"expected a 4-D self (N, H_in, W_in, C)"}},
        BadInput{"ForwardUnknownOption",
                 kGoodInput,
                 {"bilinear-forward", "IN", "--output-size", "3,3", "--antialias", "-o", "OUT"},
                 {"upsample-grad bilinear-forward: ", "--antialias",
                  "see 'upsample-grad bilinear-forward --help'"}}),
    [](const ::testing::TestParamInfo<BadInput>& info) { return info.param.name; });

// Sizes the operator rejects: the tool passes on the library's own message, checked here by
// calling the library with the same arguments.
struct RejectedSizes {
  std::string name;
  std::vector<std::string> args;
  LibraryCall call;
};

// Names the case in test listings instead of dumping its bytes.
void PrintTo(const RejectedSizes& test_case, std::ostream* out) { *out << test_case.name; }

class RejectedSizesTest : public ::testing::TestWithParam<RejectedSizes> {};

TEST_P(RejectedSizesTest, ReportsTheLibrarysOwnMessage) {
  const RejectedSizes& rejected = GetParam();
  TempDir dir;
  WriteBytes(dir.File("in.npy"), kGoodInput);
  std::vector<std::string> args = rejected.args;
  args.insert(args.begin() + 1, dir.File("in.npy"));
  args.insert(args.end(), {"-o", dir.File("out.npy")});

  LibraryResult library = CallLibrary(rejected.call, std::vector<std::byte>(288));
  ASSERT_NE(library.status, 0);
  ASSERT_FALSE(library.message.empty());

  ToolResult result = RunTool(args);
  EXPECT_EQ(result.exit_status, 2);
  EXPECT_EQ(CountLines(result.err), 1) << result.err;
  EXPECT_THAT(result.err,
              HasSubstr(std::string(rejected.call.op.name) +
                        "GetWorkspaceSize failed with status " + std::to_string(library.status)));
  EXPECT_THAT(result.err, HasSubstr(library.message));
  EXPECT_EQ(dir.List(), std::vector<std::string>{"in.npy"});
}

LibraryCall Call(Op op, aclFormat format, std::array<int64_t, 4> result_dims, double scales_h = 0,
                 double scales_w = 0) {
  LibraryCall call;
  call.op = op;
  call.format = format;
  // The same file as every row: (1, 2, 6, 6), whose H and W depend on the format. outputSize is
  // the H and W of gradOut, or of a forward operator's out.
  call.source_dims = {1, 2, 6, 6};
  const std::array<int64_t, 4>& output_dims = op.forward ? result_dims : call.source_dims;
  call.output_size = format == ACL_FORMAT_NHWC
                         ? std::array<int64_t, 2>{output_dims[1], output_dims[2]}
                         : std::array<int64_t, 2>{output_dims[2], output_dims[3]};
  call.result_dims = result_dims;
  call.scales_h = scales_h;
  call.scales_w = scales_w;
  return call;
}

INSTANTIATE_TEST_SUITE_P(
    Rows, RejectedSizesTest,
    ::testing::Values(
        RejectedSizes{"BatchDisagrees",
                      {"bilinear", "--input-size", "3,2,3,3"},
                      Call(Op::kBilinear, ACL_FORMAT_NCHW, {3, 2, 3, 3})},
        RejectedSizes{"ZeroHeight",
                      {"bicubic-aa", "--input-size", "0,3"},
                      Call(Op::kBicubicAA, ACL_FORMAT_NCHW, {1, 2, 0, 3})},
        RejectedSizes{"NegativeScalesForBicubic",
                      {"bicubic-aa", "--input-size", "3,3", "--scales", "-2,2"},
                      Call(Op::kBicubicAA, ACL_FORMAT_NCHW, {1, 2, 3, 3}, -2, 2)},
        RejectedSizes{"UpscalingBeyond50",
                      {"bicubic-aa", "--input-size", "3,3", "--scales", "60,2"},
                      Call(Op::kBicubicAA, ACL_FORMAT_NCHW, {1, 2, 3, 3}, 60, 2)},
        RejectedSizes{"NdForBilinear",
                      {"bilinear", "--input-size", "3,3", "--format", "nd"},
                      Call(Op::kBilinear, ACL_FORMAT_ND, {1, 2, 3, 3})},
        RejectedSizes{"NhwcForBicubic",
                      {"bicubic-aa", "--input-size", "1,3,3,6", "--format", "nhwc"},
                      Call(Op::kBicubicAA, ACL_FORMAT_NHWC, {1, 3, 3, 6})},
        RejectedSizes{"NegativeScalesForBilinearForward",
                      {"bilinear-forward", "--output-size", "3,3", "--scales", "-1,2"},
                      Call(Op::kBilinearForward, ACL_FORMAT_NCHW, {1, 2, 3, 3}, -1, 2)},
        RejectedSizes{"ForwardUpscalingBeyond50",
                      {"bicubic-aa-forward", "--output-size", "400,3"},
                      Call(Op::kBicubicAAForward, ACL_FORMAT_NCHW, {1, 2, 400, 3})},
        RejectedSizes{"NhwcForBicubicForward",
                      {"bicubic-aa-forward", "--output-size", "3,3", "--format", "nhwc"},
                      Call(Op::kBicubicAAForward, ACL_FORMAT_NHWC, {1, 3, 3, 6})},
        RejectedSizes{"NdForBilinearForward",
                      {"bilinear-forward", "--output-size", "3,3", "--format", "nd"},
                      Call(Op::kBilinearForward, ACL_FORMAT_ND, {1, 2, 3, 3})}),
    [](const ::testing::TestParamInfo<RejectedSizes>& info) { return info.param.name; });

}  // namespace
}  // namespace upsample_grad::testing
