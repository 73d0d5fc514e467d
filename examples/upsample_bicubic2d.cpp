// Call example of aclnnUpsampleBicubic2d, written the way CANN's aclnn examples are: set up the
// runtime, put the input in device memory, ask for the workspace, run, copy the result back and
// print it. The values are CANN's documented example: the 3 x 3 image 1..9 enlarged to 5 x 5,
// alignCorners false, scales not given.
//
// What every example shares (runtime, device tensors, phase 2, printing) is in
// acl_example_support.h, quoted in docs/ops/README.md.

#include "acl_example_support.h"
#include "aclnnop/aclnn_upsample_bicubic_2d.h"

int main() {
  AclExample example;  // the runtime; all it creates is released when main() returns

  aclTensor* self = example.CreateTensor({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  aclTensor* out = example.CreateOutputTensor({1, 1, 5, 5});
  aclIntArray* outputSize = example.CreateIntArray({5, 5});

  int ret = aclnnUpsampleBicubic2dGetWorkspaceSize(self, outputSize, /*alignCorners=*/false,
                                                   /*scalesH=*/0.0, /*scalesW=*/0.0, out,
                                                   &example.workspaceSize, &example.executor);
  CHECK_RET(ret == ACL_SUCCESS, return LogFailure("aclnnUpsampleBicubic2dGetWorkspaceSize", ret));
  return example.RunAndPrint("aclnnUpsampleBicubic2d", aclnnUpsampleBicubic2d, out);
}
