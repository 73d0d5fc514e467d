#include "typed_array.h"

#include <cstring>
#include <utility>

#include "float16.h"
#include "tool_error.h"

namespace upsample_grad {
namespace {

template <typename T>
T Load(const std::vector<std::byte>& data, int64_t index) {
  T value;
  std::memcpy(&value, data.data() + static_cast<size_t>(index) * sizeof(T), sizeof(T));
  return value;
}

template <typename T>
void Store(std::vector<std::byte>& data, int64_t index, T value) {
  std::memcpy(data.data() + static_cast<size_t>(index) * sizeof(T), &value, sizeof(T));
}

}  // namespace

const char* ElementTypeName(ElementType type) {
  switch (type) {
    case ElementType::kFloat32:
      return "float32";
    case ElementType::kFloat16:
      return "float16";
    case ElementType::kBFloat16:
      return "bfloat16";
    case ElementType::kFloat64:
      return "float64";
  }
  return "?";
}

size_t ElementSize(ElementType type) {
  switch (type) {
    case ElementType::kFloat32:
      return 4;
    case ElementType::kFloat16:
      return 2;
    case ElementType::kBFloat16:
      return 2;
    case ElementType::kFloat64:
      return 8;
  }
  return 0;
}

const char* NpyDescr(ElementType type) {
  switch (type) {
    case ElementType::kFloat32:
      return "<f4";
    case ElementType::kFloat16:
      return "<f2";
    case ElementType::kBFloat16:
      return "<u2";
    case ElementType::kFloat64:
      return "<f8";
  }
  return "?";
}

DtypeChoice ParseDtypeChoice(const std::string& text) {
  if (text == "auto") return DtypeChoice::kAuto;
  if (text == "fp32" || text == "float32") return DtypeChoice::kFloat32;
  if (text == "fp16" || text == "float16") return DtypeChoice::kFloat16;
  if (text == "bf16" || text == "bfloat16") return DtypeChoice::kBFloat16;
  throw ToolError("--dtype '" + text + "' is not known; expected auto, fp32, fp16 or bf16");
}

int64_t TypedArray::ElementCount() const {
  int64_t count = 1;
  for (int64_t dim : shape) count *= dim;
  return count;
}

double TypedArray::ValueAt(int64_t index) const {
  switch (type) {
    case ElementType::kFloat32:
      return Load<float>(data, index);
    case ElementType::kFloat16:
      return HalfBitsToFloat(Load<uint16_t>(data, index));
    case ElementType::kBFloat16:
      return Bf16BitsToFloat(Load<uint16_t>(data, index));
    case ElementType::kFloat64:
      return Load<double>(data, index);
  }
  return 0.0;
}

uint64_t TypedArray::BitsAt(int64_t index) const {
  switch (type) {
    case ElementType::kFloat32:
      return Load<uint32_t>(data, index);
    case ElementType::kFloat16:
    case ElementType::kBFloat16:
      return Load<uint16_t>(data, index);
    case ElementType::kFloat64:
      return Load<uint64_t>(data, index);
  }
  return 0;
}

TypedArray FromNpy(npy::Array array, DtypeChoice choice, const std::string& source) {
  const std::string& descr = array.descr;
  bool is_16bit = descr == "<f2" || descr == "<u2" || descr == "<i2";
  ElementType type = ElementType::kFloat32;
  switch (choice) {
    case DtypeChoice::kAuto:
      if (descr == "<f4") {
        type = ElementType::kFloat32;
      } else if (descr == "<f2") {
        type = ElementType::kFloat16;
      } else if (descr == "<f8") {
        type = ElementType::kFloat64;
      } else if (is_16bit) {
        throw ToolError("'" + source + "' holds 16-bit integers ('" + descr +
                        "'); if they are raw bfloat16 values, pass --dtype bf16");
      } else {
        throw ToolError("'" + source + "': unsupported dtype '" + descr +
                        "'; expected float32 ('<f4'), float16 ('<f2'), float64 ('<f8') or raw "
                        "bfloat16 ('<u2', '<i2' with --dtype bf16)");
      }
      break;
    case DtypeChoice::kFloat32:
      if (descr != "<f4" && descr != "<f8") {
        throw ToolError("--dtype fp32 needs float32 ('<f4') or float64 ('<f8') data; '" + source +
                        "' holds '" + descr + "'");
      }
      type = descr == "<f4" ? ElementType::kFloat32 : ElementType::kFloat64;
      break;
    case DtypeChoice::kFloat16:
    case DtypeChoice::kBFloat16: {
      const char* option = choice == DtypeChoice::kFloat16 ? "fp16" : "bf16";
      if (!is_16bit) {
        throw ToolError(std::string("--dtype ") + option +
                        " needs 16-bit data ('<f2', '<u2' or '<i2'); '" + source + "' holds '" +
                        descr + "'");
      }
      type = choice == DtypeChoice::kFloat16 ? ElementType::kFloat16 : ElementType::kBFloat16;
      break;
    }
  }
  TypedArray result;
  result.type = type;
  result.shape = std::move(array.shape);
  result.data = std::move(array.data);
  return result;
}

TypedArray LoadTypedArray(const std::string& path, DtypeChoice choice) {
  return FromNpy(npy::ReadNpy(path), choice, path);
}

npy::Array ToNpy(const TypedArray& array) {
  npy::Array result;
  result.descr = NpyDescr(array.type);
  result.shape = array.shape;
  result.data = array.data;
  return result;
}

TypedArray ConvertTo(const TypedArray& array, ElementType type) {
  if (array.type == type) return array;
  TypedArray result;
  result.type = type;
  result.shape = array.shape;
  int64_t count = array.ElementCount();
  result.data.resize(static_cast<size_t>(count) * ElementSize(type));
  for (int64_t i = 0; i < count; ++i) {
    double value = array.ValueAt(i);
    switch (type) {
      case ElementType::kFloat32:
        Store(result.data, i, static_cast<float>(value));
        break;
      case ElementType::kFloat64:
        Store(result.data, i, value);
        break;
      case ElementType::kFloat16:
        Store(result.data, i, FloatToHalfBits(static_cast<float>(value)));
        break;
      case ElementType::kBFloat16:
        Store(result.data, i, FloatToBf16Bits(static_cast<float>(value)));
        break;
    }
  }
  return result;
}

}  // namespace upsample_grad
