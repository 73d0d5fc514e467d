// The project's standard benchmark suite: the problem sizes that `upsample-grad bench`,
// bench/upsample_bench.cc and (through `upsample-grad bench --list-cases --json`)
// bench/compare_torch.py measure. This is its one definition.
//
// Sizes are those of the forward resize, input H,W -> output H,W, whatever the operator's
// direction: a forward row reads the input size and writes the output size, a backward row reads
// gradOut (the output size) and writes gradIn (the input size). Scales are never given (0).
// Case numbers are stable (bench/RESULTS.md quotes them): new rows go at the end.
#ifndef TOOLS_UPSAMPLE_GRAD_BENCH_SUITE_H_
#define TOOLS_UPSAMPLE_GRAD_BENCH_SUITE_H_

#include <array>
#include <cstdint>

#include "acl/acl_base.h"

namespace upsample_grad {

enum class SuiteLayout {
  kNchw,
  // Format NCHW with view dims (N, C, H, W) over channels-last memory: strides
  // (H*W*C, 1, W*C, C), storage (N, H, W, C), for both tensors.
  kNchwChannelsLastStrides,
};

struct SuiteCase {
  int id;
  // The operator's row in the library's table (aclnn_upsample_find_operator), by its command.
  const char* command;
  int64_t n, c;
  int64_t in_h, in_w;    // forward input = gradIn
  int64_t out_h, out_w;  // forward output = gradOut
  aclDataType dtype;
  bool align_corners;
  SuiteLayout layout;
  // Beyond the suite: shapes users hit that the suite lacks (Google Benchmark names
  // them BM_Extra/...).
  bool extra = false;
};

// The suite's names of its dtypes, in benchmark names and in the JSON listing.
constexpr const char* SuiteDtypeTag(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT:
      return "fp32";
    case ACL_FLOAT16:
      return "fp16";
    case ACL_BF16:
      return "bf16";
    default:
      return "unknown";
  }
}

inline constexpr SuiteLayout kNchw = SuiteLayout::kNchw;
inline constexpr SuiteLayout kChannelsLast = SuiteLayout::kNchwChannelsLastStrides;

inline constexpr std::array<SuiteCase, 46> kBenchSuite = {{
    // The suite: the backward operators.
    {1, "bilinear", 8, 64, 64, 64, 128, 128, ACL_FLOAT, false, kNchw},
    {2, "bilinear", 16, 256, 32, 32, 64, 64, ACL_FLOAT, false, kNchw},
    {3, "bilinear", 1, 21, 64, 64, 512, 512, ACL_FLOAT, true, kNchw},
    {4, "bilinear", 8, 3, 256, 256, 224, 224, ACL_FLOAT, false, kNchw},
    {5, "bilinear", 8, 64, 64, 64, 128, 128, ACL_BF16, false, kNchw},
    {6, "bilinear", 8, 64, 64, 64, 128, 128, ACL_FLOAT16, false, kNchw},
    {7, "bilinear", 8, 64, 64, 64, 128, 128, ACL_FLOAT, false, kChannelsLast},
    {8, "bicubic-aa", 8, 3, 512, 512, 128, 128, ACL_FLOAT, false, kNchw},
    {9, "bicubic-aa", 16, 3, 256, 256, 224, 224, ACL_FLOAT, false, kNchw},
    {10, "bicubic-aa", 8, 3, 128, 128, 256, 256, ACL_FLOAT, false, kNchw},
    {11, "bicubic-aa", 4, 3, 1024, 1024, 128, 128, ACL_FLOAT, false, kNchw},
    {12, "bicubic-aa", 8, 3, 512, 512, 128, 128, ACL_BF16, false, kNchw},
    // Case 7's shape in the 16-bit dtypes: the channels-last half-precision gradients that
    // mixed-precision training produces.
    {13, "bilinear", 8, 64, 64, 64, 128, 128, ACL_BF16, false, kChannelsLast, true},
    {14, "bilinear", 8, 64, 64, 64, 128, 128, ACL_FLOAT16, false, kChannelsLast, true},
    // The forward operators on the shapes of cases 1-12, in the same order (case N + 14 is the
    // forward of case N), plus bicubic AA over channels-last memory.
    {15, "bilinear-forward", 8, 64, 64, 64, 128, 128, ACL_FLOAT, false, kNchw},
    {16, "bilinear-forward", 16, 256, 32, 32, 64, 64, ACL_FLOAT, false, kNchw},
    {17, "bilinear-forward", 1, 21, 64, 64, 512, 512, ACL_FLOAT, true, kNchw},
    {18, "bilinear-forward", 8, 3, 256, 256, 224, 224, ACL_FLOAT, false, kNchw},
    {19, "bilinear-forward", 8, 64, 64, 64, 128, 128, ACL_BF16, false, kNchw},
    {20, "bilinear-forward", 8, 64, 64, 64, 128, 128, ACL_FLOAT16, false, kNchw},
    {21, "bilinear-forward", 8, 64, 64, 64, 128, 128, ACL_FLOAT, false, kChannelsLast},
    {22, "bicubic-aa-forward", 8, 3, 512, 512, 128, 128, ACL_FLOAT, false, kNchw},
    {23, "bicubic-aa-forward", 16, 3, 256, 256, 224, 224, ACL_FLOAT, false, kNchw},
    {24, "bicubic-aa-forward", 8, 3, 128, 128, 256, 256, ACL_FLOAT, false, kNchw},
    {25, "bicubic-aa-forward", 4, 3, 1024, 1024, 128, 128, ACL_FLOAT, false, kNchw},
    {26, "bicubic-aa-forward", 8, 3, 512, 512, 128, 128, ACL_BF16, false, kNchw},
    {27, "bicubic-aa-forward", 8, 3, 512, 512, 128, 128, ACL_FLOAT, false, kChannelsLast},
    // The rest of the 2-D family (issue 15), one case per operator. Feature maps upsampled 2x
    // take case 1's shape, so that each reads beside cases 1 and 15 (the issue asks nearest
    // backward to come at least as close to the roofline as bilinear backward); images take
    // the shapes they are resized at: bicubic 2x up, antialiased bilinear 2x down.
    {28, "bilinear-v1", 8, 64, 64, 64, 128, 128, ACL_FLOAT, false, kNchw},
    {29, "nearest-forward", 8, 64, 64, 64, 128, 128, ACL_FLOAT, false, kNchw},
    {30, "nearest", 8, 64, 64, 64, 128, 128, ACL_FLOAT, false, kNchw},
    {31, "nearest-v1-forward", 8, 64, 64, 64, 128, 128, ACL_FLOAT, false, kNchw},
    {32, "nearest-exact-forward", 8, 64, 64, 64, 128, 128, ACL_FLOAT, false, kNchw},
    {33, "nearest-exact", 8, 64, 64, 64, 128, 128, ACL_FLOAT, false, kNchw},
    {34, "bicubic-forward", 8, 3, 256, 256, 512, 512, ACL_FLOAT, false, kNchw},
    {35, "bicubic", 8, 3, 256, 256, 512, 512, ACL_FLOAT, false, kNchw},
    {36, "bilinear-aa-forward", 8, 3, 512, 512, 256, 256, ACL_FLOAT, false, kNchw},
    {37, "bilinear-aa", 8, 3, 512, 512, 256, 256, ACL_FLOAT, false, kNchw},
    // Many small planes (issue 14), as feature pyramids and detection heads run them: 4096 NCHW
    // planes of 14x14 <-> 28x28, bilinear 2x up and bicubic AA 2x down, both directions, fp32
    // and bf16; and the 1 MB example, 1024 planes of 7x7 -> 14x14.
    {38, "bilinear", 32, 128, 14, 14, 28, 28, ACL_FLOAT, false, kNchw, true},
    {39, "bilinear-forward", 32, 128, 14, 14, 28, 28, ACL_FLOAT, false, kNchw, true},
    {40, "bilinear", 32, 128, 14, 14, 28, 28, ACL_BF16, false, kNchw, true},
    {41, "bilinear-forward", 32, 128, 14, 14, 28, 28, ACL_BF16, false, kNchw, true},
    {42, "bicubic-aa", 32, 128, 28, 28, 14, 14, ACL_FLOAT, false, kNchw, true},
    {43, "bicubic-aa-forward", 32, 128, 28, 28, 14, 14, ACL_FLOAT, false, kNchw, true},
    {44, "bicubic-aa", 32, 128, 28, 28, 14, 14, ACL_BF16, false, kNchw, true},
    {45, "bicubic-aa-forward", 32, 128, 28, 28, 14, 14, ACL_BF16, false, kNchw, true},
    {46, "bilinear", 32, 32, 7, 7, 14, 14, ACL_FLOAT, false, kNchw, true},
}};

}  // namespace upsample_grad

#endif  // TOOLS_UPSAMPLE_GRAD_BENCH_SUITE_H_
