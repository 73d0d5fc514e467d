#include "parse_lists.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "tool_error.h"

namespace upsample_grad {
namespace {

std::vector<std::string> SplitOnCommas(const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  for (;;) {
    size_t comma = text.find(',', start);
    items.push_back(text.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

[[noreturn]] void Reject(const std::string& text, const std::string& option,
                         const std::string& expected) {
  throw ToolError(option + " '" + text + "' is not valid; expected " + expected);
}

}  // namespace

std::vector<int64_t> ParseIntegerList(const std::string& text, const std::string& option,
                                      const std::string& expected) {
  std::vector<int64_t> values;
  for (const std::string& item : SplitOnCommas(text)) {
    if (item.empty() || item.find_first_not_of("-0123456789") != std::string::npos) {
      Reject(text, option, expected);
    }
    char* end = nullptr;
    errno = 0;
    long long value = std::strtoll(item.c_str(), &end, 10);
    if (errno != 0 || *end != '\0') Reject(text, option, expected);
    values.push_back(value);
  }
  return values;
}

std::vector<double> ParseNumberList(const std::string& text, const std::string& option,
                                    const std::string& expected) {
  std::vector<double> values;
  for (const std::string& item : SplitOnCommas(text)) {
    if (item.empty() || item.find_first_not_of("+-.0123456789eE") != std::string::npos) {
      Reject(text, option, expected);
    }
    char* end = nullptr;
    errno = 0;
    double value = std::strtod(item.c_str(), &end);
    if (errno != 0 || *end != '\0' || !std::isfinite(value)) Reject(text, option, expected);
    values.push_back(value);
  }
  return values;
}

}  // namespace upsample_grad
