/**
 * aclnn_upsample/operators.h: the table of operators this library implements, one row each.
 *
 * A project extension, NOT part of CANN's API: code meant to run on Ascend must not call these.
 * It exists so that tools, tests, benchmarks, fuzzers and bindings iterate one list instead of
 * naming operators one by one: a new operator is its folder under src/ops/ plus one row here.
 *
 * Every operator is one of the separable 2-D resizes y = A_H x A_W^T (forward) or its adjoint
 * gradIn = A_H^T gradOut A_W (backward). A forward operator and its backward share a `mode`,
 * which fixes the 1-D matrices A, so that the two are exact adjoints for the same outputSize,
 * alignCorners and scales.
 */
#ifndef ACLNN_UPSAMPLE_OPERATORS_H_
#define ACLNN_UPSAMPLE_OPERATORS_H_

#include <stddef.h>

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  ACLNN_UPSAMPLE_FORWARD = 0,  /** reads the image (N, C, H_in, W_in), writes (N, C, outputSize) */
  ACLNN_UPSAMPLE_BACKWARD = 1, /** reads gradOut (N, C, outputSize), writes inputSize's shape */
} aclnn_upsample_direction;

/**
 * Phase 1 of any operator with one signature: `source` is the tensor the operator reads (self,
 * x, gradOut or gradOutput in CANN's names). A forward operator ignores `inputSize` (its input's
 * shape gives it); a backward operator needs it.
 */
typedef aclnnStatus (*aclnn_upsample_get_workspace_size_fn)(
    const aclTensor* source, const aclIntArray* outputSize, const aclIntArray* inputSize,
    bool alignCorners, double scalesH, double scalesW, aclTensor* out, uint64_t* workspaceSize,
    aclOpExecutor** executor);

/** Phase 2 of any operator: CANN's own signature. */
typedef aclnnStatus (*aclnn_upsample_run_fn)(void* workspace, uint64_t workspaceSize,
                                             aclOpExecutor* executor, aclrtStream stream);

typedef struct {
  /** CANN's operator name, e.g. "aclnnUpsampleBilinear2dBackwardV2". */
  const char* name;
  /**
   * The 1-D weights, shared by a forward/backward pair: "bilinear", "bicubic_aa", "bilinear_aa",
   * "bicubic", "nearest", "nearest_exact".
   */
  const char* mode;
  aclnn_upsample_direction direction;
  /** The upsample-grad subcommand, e.g. "bilinear" or "bilinear-forward". */
  const char* command;
  /** CANN's name of the tensor the operator reads: "self", "x", "gradOut", "gradOutput". */
  const char* source_name;
  /** Formats besides NCHW: NHWC (channels last, dims (N, H, W, C)), ND (read as NCHW). */
  bool accepts_nhwc;
  bool accepts_nd;
  /** N or C of 0 is an empty problem (success, nothing written); else PARAM_INVALID. */
  bool accepts_empty;
  /** A negative scale is PARAM_INVALID; else it means "not given". */
  bool rejects_negative_scales;
  /**
   * Scales are used only when outputSize == floor(size * scales) and 1/scales >= 0.01 (the
   * bilinear rule of OPERATORS.md 1.3), else read as not given; otherwise any positive scale is
   * used as given (its inverse must be finite).
   */
  bool scales_need_consistent_size;
  /** The largest upscaling factor per axis (in/out ratio >= 1/this), or 0 for no limit. */
  double max_upscale;
  aclnn_upsample_get_workspace_size_fn get_workspace_size;
  aclnn_upsample_run_fn run;
  /**
   * Whether the operator has an alignCorners parameter (the nearest family has none): where it
   * does not, get_workspace_size ignores the one it is passed.
   */
  bool takes_align_corners;
  /** Whether the operator has scales parameters (aclnnUpsampleNearest2d has none): likewise. */
  bool takes_scales;
  /** CANN's name of the tensor the operator writes: "out" or "gradInput". */
  const char* result_name;
  /**
   * Whether CANN's prototype declares the scales float (aclnnUpsampleNearest2dV2): the table's
   * double scales then reach the operator rounded to float, as through its C entry point.
   */
  bool scales_are_float;
} aclnn_upsample_operator;

/** The number of rows in the table. */
ACL_FUNC_VISIBILITY size_t aclnn_upsample_operator_count(void);

/** Row `index` (0 .. count-1), or NULL past the end. Rows live as long as the process. */
ACL_FUNC_VISIBILITY const aclnn_upsample_operator* aclnn_upsample_operator_at(size_t index);

/** The row whose `name` or `command` equals `key`, or NULL. */
ACL_FUNC_VISIBILITY const aclnn_upsample_operator* aclnn_upsample_find_operator(const char* key);

/** The row of the same mode and the other direction (forward <-> backward), or NULL. */
ACL_FUNC_VISIBILITY const aclnn_upsample_operator* aclnn_upsample_adjoint_operator(
    const aclnn_upsample_operator* op);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_UPSAMPLE_OPERATORS_H_ */
