/** CANN-compatible umbrella header of the ACL runtime. */
#ifndef ACL_ACL_H_
#define ACL_ACL_H_

#include "acl/acl_base.h"
#include "acl/acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Initialises the runtime; configPath may be NULL. Calling it again is harmless. */
ACL_FUNC_VISIBILITY aclError aclInit(const char* configPath);
ACL_FUNC_VISIBILITY aclError aclFinalize(void);

#ifdef __cplusplus
}
#endif

#endif  // ACL_ACL_H_
