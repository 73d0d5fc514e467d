// The three element types the operators accept, and exact scalar conversions between them and
// float32. The scalar conversions are the reference that the vector kernels are tested against:
// float32 -> 16-bit rounds to nearest even, keeps subnormals, overflows to Inf and keeps NaN a
// (quiet) NaN.
#ifndef ACLNN_UPSAMPLE_ENGINE_DTYPE_H_
#define ACLNN_UPSAMPLE_ENGINE_DTYPE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace aclnn_upsample {

enum class DType : uint8_t { kFloat32, kFloat16, kBFloat16 };

inline size_t DTypeSize(DType dtype) { return dtype == DType::kFloat32 ? 4 : 2; }
const char* DTypeName(DType dtype);

inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}
inline float BitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

inline float BFloat16ToFloat(uint16_t h) { return BitsToFloat(static_cast<uint32_t>(h) << 16); }

inline uint16_t FloatToBFloat16(float f) {
  const uint32_t u = FloatBits(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);  // NaN
  // Round to nearest even: add 0x7FFF plus the lowest kept bit; a carry into the exponent
  // correctly rounds up to the next binade or to Inf.
  const uint32_t rounded = u + 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(rounded >> 16);
}

inline float Float16ToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1Fu;
  const uint32_t mantissa = h & 0x3FFu;
  if (exponent == 0x1F) return BitsToFloat(sign | 0x7F800000u | (mantissa << 13));
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24 is exact in float32.
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return sign ? -magnitude : magnitude;
  }
  return BitsToFloat(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

inline uint16_t FloatToFloat16(float f) {
  const uint32_t u = FloatBits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t magnitude = u & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) {
    return sign | 0x7E00u | static_cast<uint16_t>((magnitude >> 13) & 0x1FFu);  // quiet NaN
  }
  if (magnitude >= 0x477FF000u) return sign | 0x7C00u;  // rounds to beyond 65504: Inf
  if (magnitude < 0x38800000u) {
    // Subnormal or zero in float16, i.e. a multiple of 2^-24. 0.5f has an ulp of 2^-24, so the
    // float32 addition rounds |f| to that grid with round-to-nearest-even; the bits above 0.5
    // are the float16 bits (1024 being the smallest normal, 0x0400, as it should).
    const float scaled = BitsToFloat(magnitude) + 0.5f;
    return sign | static_cast<uint16_t>(FloatBits(scaled) - FloatBits(0.5f));
  }
  // Normal: rebias the exponent and round the 13 dropped mantissa bits to nearest even.
  const uint32_t rebiased = magnitude - (112u << 23);
  const uint32_t rounded = rebiased + 0xFFFu + ((rebiased >> 13) & 1u);
  return sign | static_cast<uint16_t>(rounded >> 13);
}

template <DType kType>
struct DTypeTraits;
template <>
struct DTypeTraits<DType::kFloat32> {
  using Storage = float;
  static float ToFloat(float v) { return v; }
  static float FromFloat(float v) { return v; }
};
template <>
struct DTypeTraits<DType::kFloat16> {
  using Storage = uint16_t;
  static float ToFloat(uint16_t v) { return Float16ToFloat(v); }
  static uint16_t FromFloat(float v) { return FloatToFloat16(v); }
};
template <>
struct DTypeTraits<DType::kBFloat16> {
  using Storage = uint16_t;
  static float ToFloat(uint16_t v) { return BFloat16ToFloat(v); }
  static uint16_t FromFloat(float v) { return FloatToBFloat16(v); }
};

}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_ENGINE_DTYPE_H_
