// Error reporting: every failing call records one message for aclGetRecentErrMsg() on the
// calling thread, naming the operator (or API function), the parameter, what was expected and
// what arrived.
#ifndef ACLNN_UPSAMPLE_RUNTIME_ERROR_H_
#define ACLNN_UPSAMPLE_RUNTIME_ERROR_H_

#include <cstdint>
#include <string>

#include "aclnn/acl_meta.h"

namespace aclnn_upsample {

// Replaces this thread's most recent error message.
void SetRecentError(std::string message);

// Formats "<where>: <parameter>: expected <expected>, got <actual>", records it and returns
// `status`, so that a check reads `return Fail(status, ...)`.
aclnnStatus Fail(aclnnStatus status, const std::string& where, const std::string& parameter,
                 const std::string& expected, const std::string& actual);

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_RUNTIME_ERROR_H_
