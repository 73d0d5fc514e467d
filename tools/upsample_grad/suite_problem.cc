#include "suite_problem.h"

#include <array>
#include <cstdint>
#include <cstring>

#include "float16.h"

namespace upsample_grad {

Problem SuiteProblem(const SuiteCase& suite_case) {
  const aclnn_upsample_operator& op = FindOperator(suite_case.command);
  std::array<int64_t, 4> input{suite_case.n, suite_case.c, suite_case.in_h, suite_case.in_w};
  std::array<int64_t, 4> output{suite_case.n, suite_case.c, suite_case.out_h, suite_case.out_w};
  Problem problem =
      MakeContiguousProblem(op, suite_case.dtype, ACL_FORMAT_NCHW, IsForward(op) ? input : output,
                            IsForward(op) ? output : input, suite_case.align_corners, 0, 0);
  if (suite_case.layout == SuiteLayout::kNchwChannelsLastStrides) {
    for (TensorView* view : {&problem.source, &problem.result}) {
      auto [n, c, h, w] = view->dims;
      view->strides = {h * w * c, 1, w * c, c};
      view->storage_dims = {n, h, w, c};
    }
  }
  return problem;
}

std::vector<std::byte> SuiteSource(const Problem& problem) {
  int64_t count = problem.source.StorageElements();
  size_t element_size = DataTypeSize(problem.dtype);
  std::vector<std::byte> data(static_cast<size_t>(count) * element_size);
  uint32_t state = 12345u;
  for (int64_t i = 0; i < count; ++i) {
    state = state * 1664525u + 1013904223u;
    float value = static_cast<float>(state >> 8) / static_cast<float>(1u << 23) - 1.0f;
    std::byte* target = data.data() + static_cast<size_t>(i) * element_size;
    if (problem.dtype == ACL_FLOAT) {
      std::memcpy(target, &value, sizeof(value));
    } else {
      uint16_t bits =
          problem.dtype == ACL_FLOAT16 ? FloatToHalfBits(value) : FloatToBf16Bits(value);
      std::memcpy(target, &bits, sizeof(bits));
    }
  }
  return data;
}

}  // namespace upsample_grad
