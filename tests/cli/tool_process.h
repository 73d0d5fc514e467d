// Helpers for the tests that run the upsample-grad binary and call the library directly.
#ifndef TESTS_CLI_TOOL_PROCESS_H_
#define TESTS_CLI_TOOL_PROCESS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl_base.h"

namespace upsample_grad::testing {

struct ToolResult {
  int exit_status = -1;  // -1 when the process did not exit normally
  std::string out;
  std::string err;
};

// Runs UPSAMPLE_GRAD_EXE with `args`, capturing both streams; `extra_env` entries are
// "NAME=value".
ToolResult RunTool(const std::vector<std::string>& args,
                   const std::vector<std::string>& extra_env = {});

// A fresh directory under the system's temporary directory, removed with its contents.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }
  // The names of the directory's entries, sorted.
  std::vector<std::string> List() const;

 private:
  std::string path_;
};

void WriteBytes(const std::string& path, const std::string& bytes);
std::string ReadBytes(const std::string& path);

// The number of '\n' in `text`.
int CountLines(const std::string& text);

// An operator as the tests name it on both sides: the tool's subcommand, and CANN's name, by
// which the library's table (aclnn_upsample_find_operator) gives the functions the tests call.
// Looking the row up by name, not by command, checks that the tool's command runs that operator.
struct Op {
  const char* command;
  const char* name;
  bool forward;

  static const Op kBilinear;
  static const Op kBicubicAA;
  static const Op kBilinearForward;
  static const Op kBicubicAAForward;
  static const Op kBilinearV1;
  static const Op kBilinearAA;
  static const Op kBicubicForward;
  static const Op kNearestForward;
  static const Op kNearest;
};

inline constexpr Op Op::kBilinear{"bilinear", "aclnnUpsampleBilinear2dBackwardV2", false};
inline constexpr Op Op::kBicubicAA{"bicubic-aa", "aclnnUpsampleBicubic2dAAGrad", false};
inline constexpr Op Op::kBilinearForward{"bilinear-forward", "aclnnUpsampleBilinear2d", true};
inline constexpr Op Op::kBicubicAAForward{"bicubic-aa-forward", "aclnnUpsampleBicubic2dAA", true};
inline constexpr Op Op::kBilinearV1{"bilinear-v1", "aclnnUpsampleBilinear2dBackward", false};
inline constexpr Op Op::kBilinearAA{"bilinear-aa", "aclnnUpsampleBilinear2dAABackward", false};
inline constexpr Op Op::kBicubicForward{"bicubic-forward", "aclnnUpsampleBicubic2d", true};
inline constexpr Op Op::kNearestForward{"nearest-forward", "aclnnUpsampleNearest2dV2", true};
inline constexpr Op Op::kNearest{"nearest", "aclnnUpsampleNearest2dBackward", false};

struct LibraryCall {
  Op op = Op::kBilinear;
  aclDataType dtype = ACL_FLOAT;
  aclFormat format = ACL_FORMAT_NCHW;
  std::array<int64_t, 4> source_dims{};  // gradOut, or a forward operator's input
  std::array<int64_t, 2> output_size{};
  std::array<int64_t, 4> result_dims{};  // gradIn (the inputSize), or a forward operator's out
  bool align_corners = false;
  double scales_h = 0;
  double scales_w = 0;
};

struct LibraryResult {
  int status = 0;
  std::string message;            // aclGetRecentErrMsg() after a failure
  std::vector<std::byte> result;  // contiguous, in the call's dtype
};

// Runs the operator once through the C API in the CANN call sequence, independently of the
// tool's own code.
LibraryResult CallLibrary(const LibraryCall& call, const std::vector<std::byte>& source);

}  // namespace upsample_grad::testing

#endif  // TESTS_CLI_TOOL_PROCESS_H_
