// Call example of aclnnUpsampleBilinear2dAABackward, written the way CANN's aclnn examples are: set
// up the runtime, put the inputs in device memory, ask for the workspace, run, copy the result back
// and print it. The values are CANN's documented example: a 4 x 2 gradient holding 0..7 back onto
// an 8 x 4 input, alignCorners true, scales 0.5 x 0.5 (which alignCorners leaves unused).
//
// What every example shares (runtime, device tensors, phase 2, printing) is in
// acl_example_support.h, quoted in docs/ops/README.md.

#include "acl_example_support.h"
#include "aclnnop/aclnn_upsample_bilinear2d_aa_backward.h"

int main() {
  AclExample example;  // the runtime; all it creates is released when main() returns

  aclTensor* gradOutput = example.CreateTensor({1, 1, 4, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  aclTensor* out = example.CreateOutputTensor({1, 1, 8, 4});
  aclIntArray* outputSize = example.CreateIntArray({4, 2});
  aclIntArray* inputSize = example.CreateIntArray({1, 1, 8, 4});

  int ret = aclnnUpsampleBilinear2dAABackwardGetWorkspaceSize(
      gradOutput, outputSize, inputSize, /*alignCorners=*/true, /*scalesH=*/0.5, /*scalesW=*/0.5,
      out, &example.workspaceSize, &example.executor);
  CHECK_RET(ret == ACL_SUCCESS,
            return LogFailure("aclnnUpsampleBilinear2dAABackwardGetWorkspaceSize", ret));
  return example.RunAndPrint("aclnnUpsampleBilinear2dAABackward", aclnnUpsampleBilinear2dAABackward,
                             out);
}
