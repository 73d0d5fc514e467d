// The median of timings or rates, shared by the tool's bench, its roofline and bench/target_ab.
#ifndef TOOLS_UPSAMPLE_GRAD_MEDIAN_H_
#define TOOLS_UPSAMPLE_GRAD_MEDIAN_H_

#include <algorithm>
#include <cstddef>
#include <vector>

namespace upsample_grad {

// The middle value, or the mean of the two middle ones for an even count; `values` not empty.
inline double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

}  // namespace upsample_grad

#endif  // TOOLS_UPSAMPLE_GRAD_MEDIAN_H_
