// Call example of aclnnUpsampleBilinear2dBackwardV2, written the way CANN's aclnn examples are:
// set up the runtime, put the inputs in device memory, ask for the workspace, run, copy the
// result back and print it. The values are the documented ones (contract section 1.4): a 6 x 6
// gradient of ones back onto a 3 x 3 input, align_corners true, scales 2 x 2.
//
// What every example shares (runtime, device tensors, phase 2, printing) is in
// acl_example_support.h, quoted in docs/ops/README.md.

#include "acl_example_support.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward_v2.h"

int main() {
  AclExample example;  // the runtime; all it creates is released when main() returns

  aclTensor* gradOut = example.CreateTensor({1, 1, 6, 6}, std::vector<float>(6 * 6, 1.0f));
  aclTensor* out = example.CreateOutputTensor({1, 1, 3, 3});
  aclIntArray* outputSize = example.CreateIntArray({6, 6});
  aclIntArray* inputSize = example.CreateIntArray({1, 1, 3, 3});

  int ret = aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize(
      gradOut, outputSize, inputSize, /*alignCorners=*/true, /*scalesH=*/2.0, /*scalesW=*/2.0, out,
      &example.workspaceSize, &example.executor);
  CHECK_RET(ret == ACL_SUCCESS,
            return LogFailure("aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize", ret));
  return example.RunAndPrint("aclnnUpsampleBilinear2dBackwardV2", aclnnUpsampleBilinear2dBackwardV2,
                             out);
}
