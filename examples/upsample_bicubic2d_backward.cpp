// Call example of aclnnUpsampleBicubic2dBackward, written the way CANN's aclnn examples are: set up
// the runtime, put the inputs in device memory, ask for the workspace, run, copy the result back
// and print it. The values are CANN's documented example: a 2 x 2 gradient 1, 2, 3, 4.1 back onto a
// 3 x 3 input, alignCorners true, scales 1.1 x 1.1 (which alignCorners leaves unused).
//
// What every example shares (runtime, device tensors, phase 2, printing) is in
// acl_example_support.h, quoted in docs/ops/README.md.

#include "acl_example_support.h"
#include "aclnnop/aclnn_upsample_bicubic_2d_backward.h"

int main() {
  AclExample example;  // the runtime; all it creates is released when main() returns

  aclTensor* gradOut = example.CreateTensor({1, 1, 2, 2}, {1, 2, 3, 4.1f});
  aclTensor* out = example.CreateOutputTensor({1, 1, 3, 3});
  aclIntArray* outputSize = example.CreateIntArray({2, 2});
  aclIntArray* inputSize = example.CreateIntArray({1, 1, 3, 3});

  int ret = aclnnUpsampleBicubic2dBackwardGetWorkspaceSize(
      gradOut, outputSize, inputSize, /*alignCorners=*/true, /*scalesH=*/1.1, /*scalesW=*/1.1, out,
      &example.workspaceSize, &example.executor);
  CHECK_RET(ret == ACL_SUCCESS,
            return LogFailure("aclnnUpsampleBicubic2dBackwardGetWorkspaceSize", ret));
  return example.RunAndPrint("aclnnUpsampleBicubic2dBackward", aclnnUpsampleBicubic2dBackward, out);
}
