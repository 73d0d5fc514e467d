// Call example of aclnnUpsampleBicubic2dAAGrad, written the way CANN's aclnn examples are:
// set up the runtime, put the inputs in device memory, ask for the workspace, run, copy the
// result back and print it. The values are the documented ones (contract section 1.4): a 4 x 2
// gradient holding 0..7 back onto an 8 x 4 input, align_corners true, scales 2 x 2.
//
// What every example shares (runtime, device tensors, phase 2, printing) is in
// acl_example_support.h, quoted in docs/ops/README.md.

#include "acl_example_support.h"
#include "aclnnop/aclnn_upsample_bicubic2d_aa_grad.h"

int main() {
  AclExample example;  // the runtime; all it creates is released when main() returns

  aclTensor* gradOutput = example.CreateTensor({1, 1, 4, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  aclTensor* out = example.CreateOutputTensor({1, 1, 8, 4});
  aclIntArray* outputSize = example.CreateIntArray({4, 2});
  aclIntArray* inputSize = example.CreateIntArray({1, 1, 8, 4});

  int ret = aclnnUpsampleBicubic2dAAGradGetWorkspaceSize(
      gradOutput, outputSize, inputSize, /*alignCorners=*/true, /*scalesH=*/2.0, /*scalesW=*/2.0,
      out, &example.workspaceSize, &example.executor);
  CHECK_RET(ret == ACL_SUCCESS,
            return LogFailure("aclnnUpsampleBicubic2dAAGradGetWorkspaceSize", ret));
  return example.RunAndPrint("aclnnUpsampleBicubic2dAAGrad", aclnnUpsampleBicubic2dAAGrad, out);
}
