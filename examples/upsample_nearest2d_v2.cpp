// Call example of aclnnUpsampleNearest2dV2, written the way CANN's aclnn examples are: set up the
// runtime, put the input in device memory, ask for the workspace, run, copy the result back and
// print it. The image is CANN's documented example, the 4 x 2 image 0..7, here enlarged to 6 x 3
// with the float scales 2.5 x 3, used as given although they disagree with the sizes: output row o
// reads input row floor(o*0.4), output column o reads input column floor(o/3) (without the scales:
// rows floor(o*4/6), columns floor(o*2/3)).
//
// What every example shares (runtime, device tensors, phase 2, printing) is in
// acl_example_support.h, quoted in docs/ops/README.md.

#include "acl_example_support.h"
#include "aclnnop/aclnn_upsample_nearest_2d_v2.h"

int main() {
  AclExample example;  // the runtime; all it creates is released when main() returns

  aclTensor* self = example.CreateTensor({1, 1, 4, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  aclTensor* out = example.CreateOutputTensor({1, 1, 6, 3});
  aclIntArray* outputSize = example.CreateIntArray({6, 3});

  int ret =
      aclnnUpsampleNearest2dV2GetWorkspaceSize(self, outputSize, /*scalesH=*/2.5f, /*scalesW=*/3.0f,
                                               out, &example.workspaceSize, &example.executor);
  CHECK_RET(ret == ACL_SUCCESS, return LogFailure("aclnnUpsampleNearest2dV2GetWorkspaceSize", ret));
  return example.RunAndPrint("aclnnUpsampleNearest2dV2", aclnnUpsampleNearest2dV2, out);
}
