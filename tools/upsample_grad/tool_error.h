#ifndef TOOLS_UPSAMPLE_GRAD_TOOL_ERROR_H_
#define TOOLS_UPSAMPLE_GRAD_TOOL_ERROR_H_

#include <stdexcept>
#include <string>

namespace upsample_grad {

// Every bad input and every library failure ends the tool with this status, so that scripts can
// tell "the inputs were wrong" (2) apart from "the arrays differ" (1, compare only).
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitMismatch = 1;

// A failure the user can act on. The message is a single line that says what was wrong and what
// was expected; main() prefixes it with the program name and prints it on stderr.
class ToolError : public std::runtime_error {
 public:
  explicit ToolError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace upsample_grad

#endif  // TOOLS_UPSAMPLE_GRAD_TOOL_ERROR_H_
