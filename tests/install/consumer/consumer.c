/* Plain C, compiled against the installed headers alone: CANN-style code must build unchanged. */
#include <math.h>
#include <stdio.h>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnnop/aclnn_upsample_bicubic2d_aa_grad.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward_v2.h"

int main(void) {
  float grad[36], result[9];
  for (int i = 0; i < 36; ++i) grad[i] = 1.0f;
  const int64_t grad_dims[4] = {1, 1, 6, 6}, grad_strides[4] = {36, 36, 6, 1};
  const int64_t out_dims[4] = {1, 1, 3, 3}, out_strides[4] = {9, 9, 3, 1};
  const int64_t output_size[2] = {6, 6};
  if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 1;
  aclTensor* g = aclCreateTensor(grad_dims, 4, ACL_FLOAT, grad_strides, 0, ACL_FORMAT_NCHW,
                                 grad_dims, 4, grad);
  aclTensor* o =
      aclCreateTensor(out_dims, 4, ACL_FLOAT, out_strides, 0, ACL_FORMAT_NCHW, out_dims, 4, result);
  aclIntArray* os = aclCreateIntArray(output_size, 2);
  aclIntArray* is = aclCreateIntArray(out_dims, 4);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = NULL;
  void* workspace = NULL;
  if (aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize(g, os, is, true, 2.0, 2.0, o,
                                                        &workspace_size, &executor) != 0) {
    fprintf(stderr, "%s\n", aclGetRecentErrMsg());
    return 1;
  }
  if (workspace_size > 0) aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST);
  if (aclnnUpsampleBilinear2dBackwardV2(workspace, workspace_size, executor, NULL) != 0) return 1;
  if (workspace != NULL) aclrtFree(workspace);
  aclDestroyTensor(g);
  aclDestroyTensor(o);
  aclDestroyIntArray(os);
  aclDestroyIntArray(is);
  aclFinalize();
  printf("consumer: result[4] = %.6f\n", result[4]);
  return fabsf(result[4] - 5.76f) < 1e-5f ? 0 : 1;
}
