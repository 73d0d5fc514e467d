// Call example of aclnnUpsampleNearest2d, written the way CANN's aclnn examples are: set up the
// runtime, put the input in device memory, ask for the workspace, run, copy the result back and
// print it. The values are CANN's documented example: the 4 x 2 image 0..7 enlarged to 8 x 4 (this
// operator has no scales: outputSize alone decides).
//
// What every example shares (runtime, device tensors, phase 2, printing) is in
// acl_example_support.h, quoted in docs/ops/README.md.

#include "acl_example_support.h"
#include "aclnnop/aclnn_upsample_nearest_2d.h"

int main() {
  AclExample example;  // the runtime; all it creates is released when main() returns

  aclTensor* self = example.CreateTensor({1, 1, 4, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  aclTensor* out = example.CreateOutputTensor({1, 1, 8, 4});
  aclIntArray* outputSize = example.CreateIntArray({8, 4});

  int ret = aclnnUpsampleNearest2dGetWorkspaceSize(self, outputSize, out, &example.workspaceSize,
                                                   &example.executor);
  CHECK_RET(ret == ACL_SUCCESS, return LogFailure("aclnnUpsampleNearest2dGetWorkspaceSize", ret));
  return example.RunAndPrint("aclnnUpsampleNearest2d", aclnnUpsampleNearest2d, out);
}
