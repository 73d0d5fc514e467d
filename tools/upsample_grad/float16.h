// Conversions between float and the two 16-bit float formats, rounding to nearest even as the
// library does, so that the tool's inputs and the library's outputs agree bit for bit.
#ifndef TOOLS_UPSAMPLE_GRAD_FLOAT16_H_
#define TOOLS_UPSAMPLE_GRAD_FLOAT16_H_

#include <cmath>
#include <cstdint>
#include <cstring>

namespace upsample_grad {

inline uint32_t FloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

inline float FloatFromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

inline uint16_t FloatToHalfBits(float value) {
  constexpr uint32_t kFloatInfinity = 255u << 23;
  constexpr uint32_t kHalfOverflow = (127u + 16u) << 23;  // 65536.0f
  constexpr uint32_t kHalfNormalMin = 113u << 23;         // 2^-14
  // Adding this float aligns a subnormal half's mantissa with the float's low bits, and the FPU's
  // own round-to-nearest-even does the rounding.
  constexpr uint32_t kSubnormalMagic = ((127u - 15u) + (23u - 10u) + 1u) << 23;
  uint32_t bits = FloatBits(value);
  uint32_t sign = bits & 0x80000000u;
  bits ^= sign;
  uint32_t half;
  if (bits >= kHalfOverflow) {
    half = bits > kFloatInfinity ? 0x7e00u : 0x7c00u;
  } else if (bits < kHalfNormalMin) {
    float shifted = FloatFromBits(bits) + FloatFromBits(kSubnormalMagic);
    half = FloatBits(shifted) - kSubnormalMagic;
  } else {
    uint32_t mantissa_odd = (bits >> 13) & 1u;
    bits += ((15u - 127u) << 23) + 0xfffu + mantissa_odd;
    half = bits >> 13;
  }
  return static_cast<uint16_t>(half | (sign >> 16));
}

inline float HalfBitsToFloat(uint16_t half) {
  uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  uint32_t exponent = (half >> 10) & 0x1fu;
  uint32_t mantissa = half & 0x3ffu;
  if (exponent == 0x1fu) return FloatFromBits(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  return FloatFromBits(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

inline uint16_t FloatToBf16Bits(float value) {
  uint32_t bits = FloatBits(value);
  // Keep NaN a NaN: rounding could carry its payload into the exponent and make it infinite.
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

inline float Bf16BitsToFloat(uint16_t bf16) {
  return FloatFromBits(static_cast<uint32_t>(bf16) << 16);
}

}  // namespace upsample_grad

#endif  // TOOLS_UPSAMPLE_GRAD_FLOAT16_H_
