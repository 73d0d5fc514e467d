// Call example of aclnnUpsampleBicubic2dAA, written the way CANN's aclnn examples are: set up
// the runtime, put the input in device memory, ask for the workspace, run, copy the result back
// and print it. The image holds 0..31 in 8 x 4 and is reduced to 4 x 2 with scales 0.5 x 0.5,
// alignCorners false: the anti-aliased filter spans up to 8 inputs per output on each axis.
//
// What every example shares (runtime, device tensors, phase 2, printing) is in
// acl_example_support.h, quoted in docs/ops/README.md.

#include "acl_example_support.h"
#include "aclnnop/aclnn_upsample_bicubic2d_aa.h"

int main() {
  AclExample example;  // the runtime; all it creates is released when main() returns

  // aclnnUpsampleBicubic2dAA reduces x, the 8 x 4 image 0..31, into out, 4 x 2: a 2x reduction in
  // each axis (PyTorch's F.interpolate(x, scale_factor=0.5, mode="bicubic", antialias=True)).
  std::vector<float> xHostData(8 * 4);
  for (size_t i = 0; i < xHostData.size(); i++) xHostData[i] = static_cast<float>(i);
  aclTensor* x = example.CreateTensor({1, 1, 8, 4}, xHostData);
  aclTensor* out = example.CreateOutputTensor({1, 1, 4, 2});
  aclIntArray* outputSize = example.CreateIntArray({4, 2});

  int ret = aclnnUpsampleBicubic2dAAGetWorkspaceSize(x, outputSize, /*alignCorners=*/false,
                                                     /*scalesH=*/0.5, /*scalesW=*/0.5, out,
                                                     &example.workspaceSize, &example.executor);
  CHECK_RET(ret == ACL_SUCCESS, return LogFailure("aclnnUpsampleBicubic2dAAGetWorkspaceSize", ret));
  return example.RunAndPrint("aclnnUpsampleBicubic2dAA", aclnnUpsampleBicubic2dAA, out);
}
