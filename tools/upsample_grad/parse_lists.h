// Parsing of the comma-separated values that options such as --input-size take.
#ifndef TOOLS_UPSAMPLE_GRAD_PARSE_LISTS_H_
#define TOOLS_UPSAMPLE_GRAD_PARSE_LISTS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace upsample_grad {

// "1,2,3" -> {1, 2, 3}. Throws ToolError naming `option` and `expected` on anything else
// (empty items, signs other than a leading '-', trailing text, out-of-range values).
std::vector<int64_t> ParseIntegerList(const std::string& text, const std::string& option,
                                      const std::string& expected);

// "2,0.5" -> {2.0, 0.5}, with the same error behaviour.
std::vector<double> ParseNumberList(const std::string& text, const std::string& option,
                                    const std::string& expected);

}  // namespace upsample_grad

#endif  // TOOLS_UPSAMPLE_GRAD_PARSE_LISTS_H_
