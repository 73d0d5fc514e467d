// Small text helpers for tests that read the library's target lists and the tool's output.
#ifndef ACLNN_UPSAMPLE_TESTS_SUPPORT_TEXT_H_
#define ACLNN_UPSAMPLE_TESTS_SUPPORT_TEXT_H_

#include <cctype>
#include <sstream>
#include <string>
#include <vector>

namespace support {

// The whitespace-separated words of `text`, in order.
inline std::vector<std::string> Words(const std::string& text) {
  std::istringstream words(text);
  std::vector<std::string> result;
  for (std::string word; words >> word;) result.push_back(word);
  return result;
}

// ASCII lower case: Highway's target names as ACLNN_UPSAMPLE_SIMD takes them.
inline std::string LowerCase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace support

#endif  // ACLNN_UPSAMPLE_TESTS_SUPPORT_TEXT_H_
