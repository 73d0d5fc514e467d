// Small helpers shared by the reliability tests: 16-bit float bits, tensors over caller-owned
// buffers, and one call of either operator through the public C API only.
#ifndef ACLNN_UPSAMPLE_TESTS_RELIABILITY_RELIABILITY_UTIL_H_
#define ACLNN_UPSAMPLE_TESTS_RELIABILITY_RELIABILITY_UTIL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn_upsample/operators.h"

namespace reliability {

// The weights a reliability case exercises; the call goes to that mode's backward row of the
// operator table.
enum class Op { kBilinear, kBicubicAA };

inline const char* OpName(Op op) { return op == Op::kBilinear ? "bilinear" : "bicubicAA"; }

inline const aclnn_upsample_operator& BackwardRow(Op op) {
  const char* mode = op == Op::kBilinear ? "bilinear" : "bicubic_aa";
  for (size_t i = 0; i < aclnn_upsample_operator_count(); ++i) {
    const aclnn_upsample_operator* row = aclnn_upsample_operator_at(i);
    if (row->direction == ACLNN_UPSAMPLE_BACKWARD && std::string(row->mode) == mode) return *row;
  }
  std::abort();  // the table lost the backward operator of a mode these tests exercise
}

inline size_t ElementSize(aclDataType dtype) { return dtype == ACL_FLOAT ? 4 : 2; }

// IEEE half from a value that is exactly representable in it (test data only uses such).
inline uint16_t HalfBits(double v) {
  if (v == 0) return std::signbit(v) ? 0x8000 : 0;
  const uint16_t sign = v < 0 ? 0x8000 : 0;
  const double a = std::fabs(v);
  if (a < 0x1.0p-14) return sign | static_cast<uint16_t>(std::lround(a * 0x1.0p24));
  const int e = std::ilogb(a);
  const long mantissa = std::lround(std::ldexp(a, 10 - e)) - 1024;
  return sign | static_cast<uint16_t>((e + 15) << 10) | static_cast<uint16_t>(mantissa);
}

inline double HalfValue(uint16_t h) {
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  const int e = (h >> 10) & 0x1F, m = h & 0x3FF;
  if (e == 0x1F) return m ? NAN : sign * INFINITY;
  if (e == 0) return sign * std::ldexp(m, -24);
  return sign * std::ldexp(1024 + m, e - 25);
}

// bfloat16 by truncation: test data only uses values exact in bfloat16.
inline uint16_t BFloat16Bits(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  return static_cast<uint16_t>(u >> 16);
}

inline double BFloat16Value(uint16_t b) {
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline void Store(aclDataType dtype, double v, uint8_t* p) {
  if (dtype == ACL_FLOAT) {
    const float f = static_cast<float>(v);
    std::memcpy(p, &f, 4);
    return;
  }
  const uint16_t h = dtype == ACL_FLOAT16 ? HalfBits(v) : BFloat16Bits(static_cast<float>(v));
  std::memcpy(p, &h, 2);
}

inline double Load(aclDataType dtype, const uint8_t* p) {
  if (dtype == ACL_FLOAT) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, p, 2);
  return dtype == ACL_FLOAT16 ? HalfValue(h) : BFloat16Value(h);
}

// A tensor description over caller-owned storage; strides empty means contiguous.
struct TensorDesc {
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;
  aclDataType dtype = ACL_FLOAT;
  aclFormat format = ACL_FORMAT_NCHW;
  int64_t storage_elements = 0;  // 0: exactly what the view needs
  int64_t offset = 0;

  std::vector<int64_t> Strides() const {
    if (!strides.empty()) return strides;
    std::vector<int64_t> s(dims.size(), 1);
    for (size_t d = dims.size(); d-- > 1;) s[d - 1] = s[d] * dims[d];
    return s;
  }
  int64_t StorageElements() const {
    if (storage_elements > 0) return storage_elements;
    int64_t last = offset;
    const std::vector<int64_t> s = Strides();
    for (size_t d = 0; d < dims.size(); ++d) last += (dims[d] - 1) * s[d];
    return last + 1;
  }
  aclTensor* Create(void* data) const {
    const std::vector<int64_t> s = Strides();
    const int64_t storage = StorageElements();
    return aclCreateTensor(dims.data(), dims.size(), dtype, s.data(), offset, format, &storage, 1,
                           data);
  }
};

// The arguments of one call besides the tensors.
struct CallArgs {
  Op op = Op::kBilinear;
  std::vector<int64_t> output_size;
  std::vector<int64_t> input_size;
  bool align_corners = false;
  double scales_h = 0.0;
  double scales_w = 0.0;
};

inline aclnnStatus GetWorkspace(const CallArgs& a, const aclTensor* grad, aclTensor* out,
                                uint64_t* ws, aclOpExecutor** executor) {
  aclIntArray* output_size = aclCreateIntArray(a.output_size.data(), a.output_size.size());
  aclIntArray* input_size = aclCreateIntArray(a.input_size.data(), a.input_size.size());
  const aclnnStatus status = BackwardRow(a.op).get_workspace_size(
      grad, output_size, input_size, a.align_corners, a.scales_h, a.scales_w, out, ws, executor);
  aclDestroyIntArray(output_size);
  aclDestroyIntArray(input_size);
  return status;
}

inline aclnnStatus Execute(Op op, void* ws, uint64_t size, aclOpExecutor* executor,
                           aclrtStream stream) {
  return BackwardRow(op).run(ws, size, executor, stream);
}

// Both phases on caller-owned buffers; returns the first failing status (message in `error`).
inline aclnnStatus RunOnce(const CallArgs& a, const TensorDesc& grad_desc, const void* grad_data,
                           const TensorDesc& out_desc, void* out_data, aclrtStream stream,
                           std::string* error) {
  aclTensor* grad = grad_desc.Create(const_cast<void*>(grad_data));
  aclTensor* out = out_desc.Create(out_data);
  uint64_t ws_size = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = GetWorkspace(a, grad, out, &ws_size, &executor);
  aclDestroyTensor(grad);
  aclDestroyTensor(out);
  if (status != ACLNN_SUCCESS) {
    if (error) *error = aclGetRecentErrMsg();
    return status;
  }
  void* ws = nullptr;
  if (ws_size > 0 && aclrtMalloc(&ws, ws_size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    aclDestroyAclOpExecutor(executor);
    if (error) *error = aclGetRecentErrMsg();
    return ACLNN_ERR_INNER;
  }
  status = Execute(a.op, ws, ws_size, executor, stream);
  if (status == ACLNN_SUCCESS && aclrtSynchronizeStream(stream) != ACL_SUCCESS) {
    status = ACLNN_ERR_RUNTIME_ERROR;
  }
  if (status != ACLNN_SUCCESS && error) *error = aclGetRecentErrMsg();
  if (ws != nullptr) aclrtFree(ws);
  return status;
}

}  // namespace reliability

#endif  // ACLNN_UPSAMPLE_TESTS_RELIABILITY_RELIABILITY_UTIL_H_
