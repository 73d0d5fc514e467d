// Call example of aclnnUpsampleNearestExact2d, written the way CANN's aclnn examples are: set up
// the runtime, put the input in device memory, ask for the workspace, run, copy the result back and
// print it. The image is CANN's documented example, the 4 x 2 image 0..7, here reduced to 3 x 2
// with scales not given: output row o reads input row floor((o+0.5)*4/3), so rows 0, 2 and 3.
//
// What every example shares (runtime, device tensors, phase 2, printing) is in
// acl_example_support.h, quoted in docs/ops/README.md.

#include "acl_example_support.h"
#include "aclnnop/aclnn_upsample_nearest_exact2d.h"

int main() {
  AclExample example;  // the runtime; all it creates is released when main() returns

  aclTensor* self = example.CreateTensor({1, 1, 4, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  aclTensor* out = example.CreateOutputTensor({1, 1, 3, 2});
  aclIntArray* outputSize = example.CreateIntArray({3, 2});

  int ret = aclnnUpsampleNearestExact2dGetWorkspaceSize(self, outputSize, /*scalesH=*/0.0,
                                                        /*scalesW=*/0.0, out,
                                                        &example.workspaceSize, &example.executor);
  CHECK_RET(ret == ACL_SUCCESS,
            return LogFailure("aclnnUpsampleNearestExact2dGetWorkspaceSize", ret));
  return example.RunAndPrint("aclnnUpsampleNearestExact2d", aclnnUpsampleNearestExact2d, out);
}
