// Independent float16 conversions for tests, by plain arithmetic on doubles (not the library's
// bit manipulation, and not the compiler's _Float16, which clang 14 lacks on x86).
#ifndef ACLNN_UPSAMPLE_TESTS_SUPPORT_HALF_REFERENCE_H_
#define ACLNN_UPSAMPLE_TESTS_SUPPORT_HALF_REFERENCE_H_

#include <cmath>
#include <cstdint>

namespace half_reference {

// Rounds to the nearest float16 (ties to even, in the default rounding mode) and returns its
// bits. Overflow gives Inf, NaN a quiet NaN.
inline uint16_t FromDouble(double value) {
  const uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  const double a = std::fabs(value);
  if (std::isnan(value)) return sign | 0x7E00;
  if (a >= 65520.0) return sign | 0x7C00;  // 65520 is the tie between 65504 and 2^16: even is Inf
  if (a < std::ldexp(1.0, -14)) {
    // Subnormal grid of 2^-24; nearbyint rounds ties to even. 1024 lands on the smallest normal.
    return sign | static_cast<uint16_t>(std::nearbyint(std::ldexp(a, 24)));
  }
  int exponent;
  std::frexp(a, &exponent);                          // a = f * 2^exponent, f in [0.5, 1)
  int e = exponent - 1;                              // a in [2^e, 2^(e+1))
  double m = std::nearbyint(std::ldexp(a, 10 - e));  // 1024..2048
  if (m == 2048.0) {
    m = 1024.0;
    ++e;
  }
  if (e > 15) return sign | 0x7C00;
  return sign | static_cast<uint16_t>(((e + 15) << 10) | (static_cast<int>(m) - 1024));
}

inline double ToDouble(uint16_t bits) {
  const double sign = (bits & 0x8000) ? -1.0 : 1.0;
  const int exponent = (bits >> 10) & 0x1F;
  const int mantissa = bits & 0x3FF;
  if (exponent == 0x1F) return mantissa ? std::nan("") : sign * INFINITY;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

}  // namespace half_reference

#endif  // ACLNN_UPSAMPLE_TESTS_SUPPORT_HALF_REFERENCE_H_
