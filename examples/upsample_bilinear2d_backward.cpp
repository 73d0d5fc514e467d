// Call example of aclnnUpsampleBilinear2dBackward, written the way CANN's aclnn examples are: set
// up the runtime, put the inputs in device memory, ask for the workspace, run, copy the result back
// and print it. The values are CANN's documented example with other scales: a 6 x 6 gradient of
// ones back onto a 3 x 3 input, alignCorners false, scales 1.5 x 1.5. The scales disagree with the
// sizes (floor(3*1.5) = 4, not 6), and this V1 operator uses them as given, ratio 1/1.5, as
// PyTorch's upsample_bilinear2d_backward does; the V2 operator would use the sizes' ratio 3/6.
//
// What every example shares (runtime, device tensors, phase 2, printing) is in
// acl_example_support.h, quoted in docs/ops/README.md.

#include "acl_example_support.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward.h"

int main() {
  AclExample example;  // the runtime; all it creates is released when main() returns

  aclTensor* gradOut = example.CreateTensor({1, 1, 6, 6}, std::vector<float>(6 * 6, 1.0f));
  aclTensor* out = example.CreateOutputTensor({1, 1, 3, 3});
  aclIntArray* outputSize = example.CreateIntArray({6, 6});
  aclIntArray* inputSize = example.CreateIntArray({1, 1, 3, 3});

  int ret = aclnnUpsampleBilinear2dBackwardGetWorkspaceSize(
      gradOut, outputSize, inputSize, /*alignCorners=*/false, /*scalesH=*/1.5, /*scalesW=*/1.5, out,
      &example.workspaceSize, &example.executor);
  CHECK_RET(ret == ACL_SUCCESS,
            return LogFailure("aclnnUpsampleBilinear2dBackwardGetWorkspaceSize", ret));
  return example.RunAndPrint("aclnnUpsampleBilinear2dBackward", aclnnUpsampleBilinear2dBackward,
                             out);
}
