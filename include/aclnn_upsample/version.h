/**
 * aclnn_upsample/version.h: what this build of the library is and which SIMD code it runs.
 *
 * A project extension, NOT part of CANN's API: code meant to run on Ascend must not call these.
 * Every function may be called at any time from any thread, before aclInit too, and returns a
 * static NUL-terminated string that stays valid for the life of the process.
 */
#ifndef ACLNN_UPSAMPLE_VERSION_H_
#define ACLNN_UPSAMPLE_VERSION_H_

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The library's version, "MAJOR.MINOR.PATCH", e.g. "0.1.0". */
ACL_FUNC_VISIBILITY const char* aclnn_upsample_version(void);

/**
 * The CMake build type it was built with ("Release", "Debug", ...), followed by
 * " +sanitize=LIST" when it was built with sanitizers.
 */
ACL_FUNC_VISIBILITY const char* aclnn_upsample_build_type(void);

/**
 * Highway's name of the SIMD target the kernels run on in this process: "AVX3", "AVX2", "SSE4",
 * "SSSE3" on x86-64, "NEON", "SVE", ... on AArch64, or the portable target, "SCALAR" or
 * "EMU128" (whichever the compiler allows). Fixed when the library loads: the best target the CPU
 * supports, or the one the environment variable ACLNN_UPSAMPLE_SIMD pins ("best", "portable", or
 * a name from aclnn_upsample_simd_targets() in lower case; anything else is ignored with one line
 * on stderr).
 */
ACL_FUNC_VISIBILITY const char* aclnn_upsample_simd_target(void);

/**
 * The SIMD targets compiled into the library that this CPU supports, best first, separated by
 * single spaces, the portable target last, e.g. "AVX3 AVX2 SSE4 SSSE3 SCALAR". A pin does not
 * change it.
 */
ACL_FUNC_VISIBILITY const char* aclnn_upsample_simd_targets(void);

/**
 * The instruction-set extensions the kernels use beyond their target's, separated by single
 * spaces, or "" for none. Today at most "AVX512_BF16": float32 rounded to bfloat16 by its
 * conversion instructions (the same bits as without them), on the AVX3 target of a CPU that has
 * them, unless ACLNN_UPSAMPLE_SIMD pins a target.
 */
ACL_FUNC_VISIBILITY const char* aclnn_upsample_simd_extensions(void);

/** Every SIMD target compiled into the library, in the same form, whatever the CPU supports. */
ACL_FUNC_VISIBILITY const char* aclnn_upsample_simd_compiled_targets(void);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_UPSAMPLE_VERSION_H_ */
