//===- Numerics.h - Float formats: codecs, rounding, ulps, NaNs -*- C++ -*-===//
//
// The one place that knows the bits of the floating element types of kernel
// tensors (bfloat16, float16, float32, float64 and the fp8 storage types
// float8_e4m3fn and float8_e5m2): their codecs, how a value rounds to them
// as the GPU rounds, the spacing of their values and the distance in units
// in the last place between two bit patterns. The simulator (its element
// types), the harness (host copies of device buffers) and the differential
// check of a simulation dump all use it.
//
// Rounding is to nearest, ties to even, as the GPU's cvt.rn does; fp8 as
// cvt.rn.satfinite: magnitudes beyond the largest finite value (448, 57344;
// infinities too) saturate to it.
//
// NaN rules: bf16 and f16 encoders keep a NaN's sign and make it quiet
// (bf16: the f32's top half with the quiet bit, f16: 0x7e00 with the sign);
// the fp8 encoder writes 0x7f for any NaN (float8_e4m3fn has no other, and
// the sign of a NaN is not kept); decoders give a NaN with the sign of its
// bits. A NaN is never within any distance of another value (ulpDistance).
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_CONTRACT_NUMERICS_H
#define DSLC_CONTRACT_NUMERICS_H

#include "contract/DType.h"

#include <cstdint>

namespace dslc::contract {

/// bfloat16: the top half of an f32, rounded to nearest even.
uint16_t floatToBf16(float f);
float bf16ToFloat(uint16_t h);
/// IEEE binary16: overflow gives infinity, tiny values subnormals.
uint16_t floatToHalf(float f);
float halfToFloat(uint16_t h);

/// float8_e4m3fn or float8_e5m2.
bool isFp8(DType t);
/// A floating format, fp8 storage types included (contract::isFloating
/// covers the four arithmetic ones).
bool isFloatFormat(DType t);

/// `v` rounded to the fp8 type `t` (nearest even, saturated to the largest
/// finite value); a NaN is returned as it is.
double roundToFp8(double v, DType t);
/// The bits of a value of fp8 type `t` (one roundToFp8 gave: representable);
/// any NaN is 0x7f.
uint8_t fp8Bits(double v, DType t);
/// The value of fp8 bits (float8_e4m3fn: bias 7, no infinity, NaN
/// S.1111.111; float8_e5m2: bias 15, IEEE-like infinities and NaNs).
double fp8Value(uint8_t bits, DType t);
/// fp8Bits(roundToFp8(v, t), t).
uint8_t doubleToFp8(double v, DType t);

/// The exponent and stored mantissa widths of a float format (float64 for
/// any other type).
struct FloatLayout {
  int expBits = 11, mantBits = 52;
};
FloatLayout floatLayout(DType t);

/// Whether the bits of float format `t` are a NaN.
bool isNaNBits(DType t, uint64_t bits);

/// The distance that ulpDistance gives when it means nothing.
inline constexpr uint64_t kUlpInfinite = ~uint64_t(0);

/// Distance in ulps between two values of float format `t` given as raw
/// bits (the number of representable values between them; +0 and -0 are 0
/// apart); kUlpInfinite when either is a NaN with different bits. Other
/// types: 0 when equal, else kUlpInfinite.
uint64_t ulpDistance(DType t, uint64_t a, uint64_t b);

/// The spacing of float format `t`'s representable values at magnitude
/// `m` (the ulp of a value of that magnitude; at 0, the smallest
/// subnormal). 0 for a type that is not a float format.
double ulpAt(double m, DType t);

} // namespace dslc::contract

#endif // DSLC_CONTRACT_NUMERICS_H
