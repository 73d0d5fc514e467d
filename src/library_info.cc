// The build's identity for include/aclnn_upsample/version.h; the SIMD functions are in
// kernels/dispatch.cc, next to the selection they report.
#include "aclnn_upsample/version.h"

// src/CMakeLists.txt defines both; a compile outside CMake (the AArch64 check) still builds.
#ifndef ACLNN_UPSAMPLE_VERSION
#define ACLNN_UPSAMPLE_VERSION "unknown"
#endif
#ifndef ACLNN_UPSAMPLE_BUILD_TYPE
#define ACLNN_UPSAMPLE_BUILD_TYPE "unknown"
#endif

extern "C" {

const char* aclnn_upsample_version(void) { return ACLNN_UPSAMPLE_VERSION; }

const char* aclnn_upsample_build_type(void) { return ACLNN_UPSAMPLE_BUILD_TYPE; }

}  // extern "C"
