#include "runtime/error.h"

#include <utility>

#include "acl/acl_base.h"

namespace aclnn_upsample {
namespace {
// Thread-local: aclGetRecentErrMsg() reports the failure of the calling thread only.
thread_local std::string recent_error;
}  // namespace

void SetRecentError(std::string message) { recent_error = std::move(message); }

aclnnStatus Fail(aclnnStatus status, const std::string& where, const std::string& parameter,
                 const std::string& expected, const std::string& actual) {
  SetRecentError(where + ": " + parameter + ": expected " + expected + ", got " + actual);
  return status;
}

}  // namespace aclnn_upsample

extern "C" const char* aclGetRecentErrMsg(void) { return aclnn_upsample::recent_error.c_str(); }
