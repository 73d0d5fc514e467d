// Call example of aclnnUpsampleNearest2dBackward, written the way CANN's aclnn examples are: set up
// the runtime, put the inputs in device memory, ask for the workspace, run, copy the result back
// and print it. The values are CANN's documented example: a 2 x 2 x 3 x 3 gradient holding 1..36
// back onto 2 x 2 x 1 x 1 inputs, scales not given: each input element receives the sum of its 3 x
// 3 plane.
//
// What every example shares (runtime, device tensors, phase 2, printing) is in
// acl_example_support.h, quoted in docs/ops/README.md.

#include "acl_example_support.h"
#include "aclnnop/aclnn_upsample_nearest_2d_backward.h"

int main() {
  AclExample example;  // the runtime; all it creates is released when main() returns

  std::vector<float> gradOutHostData(2 * 2 * 3 * 3);
  for (size_t i = 0; i < gradOutHostData.size(); i++) gradOutHostData[i] = i + 1.0f;
  aclTensor* gradOut = example.CreateTensor({2, 2, 3, 3}, gradOutHostData);
  aclTensor* out = example.CreateOutputTensor({2, 2, 1, 1});
  aclIntArray* outputSize = example.CreateIntArray({3, 3});
  aclIntArray* inputSize = example.CreateIntArray({2, 2, 1, 1});

  int ret = aclnnUpsampleNearest2dBackwardGetWorkspaceSize(
      gradOut, outputSize, inputSize, /*scalesH=*/0.0, /*scalesW=*/0.0, out, &example.workspaceSize,
      &example.executor);
  CHECK_RET(ret == ACL_SUCCESS,
            return LogFailure("aclnnUpsampleNearest2dBackwardGetWorkspaceSize", ret));
  return example.RunAndPrint("aclnnUpsampleNearest2dBackward", aclnnUpsampleNearest2dBackward, out);
}
