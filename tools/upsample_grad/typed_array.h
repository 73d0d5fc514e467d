// An array of one of the element types the tool works with, loaded from and saved to .npy.
#ifndef TOOLS_UPSAMPLE_GRAD_TYPED_ARRAY_H_
#define TOOLS_UPSAMPLE_GRAD_TYPED_ARRAY_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "npy.h"

namespace upsample_grad {

enum class ElementType { kFloat32, kFloat16, kBFloat16, kFloat64 };

// "float32", "float16", "bfloat16", "float64".
const char* ElementTypeName(ElementType type);
size_t ElementSize(ElementType type);
// The descr the tool writes: bfloat16 has no NumPy type, so it travels as raw '<u2'.
const char* NpyDescr(ElementType type);

// How to read 16-bit data; --dtype on the command line.
enum class DtypeChoice { kAuto, kFloat32, kFloat16, kBFloat16 };

// Parses "fp32"/"float32", "fp16"/"float16", "bf16"/"bfloat16" and "auto"; throws ToolError.
DtypeChoice ParseDtypeChoice(const std::string& text);

struct TypedArray {
  ElementType type = ElementType::kFloat32;
  std::vector<int64_t> shape;
  std::vector<std::byte> data;  // little-endian elements in C order

  int64_t ElementCount() const;
  double ValueAt(int64_t index) const;
  // The element's bit pattern, for ulp distances.
  uint64_t BitsAt(int64_t index) const;
};

// Interprets an .npy array: '<f4' float32, '<f2' float16, '<f8' float64; 16-bit raw data
// ('<u2', '<i2', and '<f2' too) is bfloat16 when `choice` says so. Throws ToolError naming
// `source` when the dtype does not fit.
TypedArray FromNpy(npy::Array array, DtypeChoice choice, const std::string& source);
TypedArray LoadTypedArray(const std::string& path, DtypeChoice choice);
npy::Array ToNpy(const TypedArray& array);

// Converts element by element, rounding to nearest even; float64 -> float32 and back, float32
// <-> float16/bfloat16.
TypedArray ConvertTo(const TypedArray& array, ElementType type);

}  // namespace upsample_grad

#endif  // TOOLS_UPSAMPLE_GRAD_TYPED_ARRAY_H_
