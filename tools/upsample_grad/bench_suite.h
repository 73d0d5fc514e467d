// The project's standard benchmark suite: the problem sizes that `upsample-grad bench` (and the
// benchmarks under bench/) measure. Sizes are those of the forward resize: input H,W -> output
// H,W; gradOut has the output size, gradIn the input size. Scales are never given (0).
#ifndef TOOLS_UPSAMPLE_GRAD_BENCH_SUITE_H_
#define TOOLS_UPSAMPLE_GRAD_BENCH_SUITE_H_

#include <array>
#include <cstdint>

#include "acl/acl_base.h"

namespace upsample_grad {

enum class SuiteOperator { kBilinear, kBicubicAA };

enum class SuiteLayout {
  kNchw,
  // Format NCHW with view dims (N, C, H, W) over channels-last memory: strides
  // (H*W*C, 1, W*C, C), storage (N, H, W, C), for both tensors.
  kNchwChannelsLastStrides,
};

struct SuiteCase {
  int id;
  SuiteOperator op;
  int64_t n, c;
  int64_t in_h, in_w;    // forward input = gradIn
  int64_t out_h, out_w;  // forward output = gradOut
  aclDataType dtype;
  bool align_corners;
  SuiteLayout layout;
};

inline constexpr std::array<SuiteCase, 12> kBenchSuite = {{
    {1, SuiteOperator::kBilinear, 8, 64, 64, 64, 128, 128, ACL_FLOAT, false, SuiteLayout::kNchw},
    {2, SuiteOperator::kBilinear, 16, 256, 32, 32, 64, 64, ACL_FLOAT, false, SuiteLayout::kNchw},
    {3, SuiteOperator::kBilinear, 1, 21, 64, 64, 512, 512, ACL_FLOAT, true, SuiteLayout::kNchw},
    {4, SuiteOperator::kBilinear, 8, 3, 256, 256, 224, 224, ACL_FLOAT, false, SuiteLayout::kNchw},
    {5, SuiteOperator::kBilinear, 8, 64, 64, 64, 128, 128, ACL_BF16, false, SuiteLayout::kNchw},
    {6, SuiteOperator::kBilinear, 8, 64, 64, 64, 128, 128, ACL_FLOAT16, false, SuiteLayout::kNchw},
    {7, SuiteOperator::kBilinear, 8, 64, 64, 64, 128, 128, ACL_FLOAT, false,
     SuiteLayout::kNchwChannelsLastStrides},
    {8, SuiteOperator::kBicubicAA, 8, 3, 512, 512, 128, 128, ACL_FLOAT, false, SuiteLayout::kNchw},
    {9, SuiteOperator::kBicubicAA, 16, 3, 256, 256, 224, 224, ACL_FLOAT, false, SuiteLayout::kNchw},
    {10, SuiteOperator::kBicubicAA, 8, 3, 128, 128, 256, 256, ACL_FLOAT, false, SuiteLayout::kNchw},
    {11, SuiteOperator::kBicubicAA, 4, 3, 1024, 1024, 128, 128, ACL_FLOAT, false,
     SuiteLayout::kNchw},
    {12, SuiteOperator::kBicubicAA, 8, 3, 512, 512, 128, 128, ACL_BF16, false, SuiteLayout::kNchw},
}};

}  // namespace upsample_grad

#endif  // TOOLS_UPSAMPLE_GRAD_BENCH_SUITE_H_
