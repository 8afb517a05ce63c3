//===- ElementTypes.h - Host-side bf16/f16/f32 element helpers --*- C++ -*-===//
//
// The one place where the tools convert between float and the floating
// element types of kernel tensors (bfloat16, float16, float32), read and
// write elements of host copies of device buffers, and measure distances in
// units in the last place. Rounding is to nearest, ties to even, as the GPU's
// cvt.rn does.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLING_HARNESS_ELEMENTTYPES_H
#define DSLC_TOOLING_HARNESS_ELEMENTTYPES_H

#include "runtime/DType.h"

#include <cstdint>

namespace dslc::run {

uint16_t floatToBf16(float f);
float bf16ToFloat(uint16_t h);
/// IEEE binary16: overflow gives infinity, tiny values subnormals.
uint16_t floatToHalf(float f);
float halfToFloat(uint16_t h);

/// bfloat16, float16 or float32: the element types the harness handles.
bool isHarnessFloat(rt::DType t);

/// `v` rounded to `t` (bfloat16, float16 or float32) and back.
float roundTo(float v, rt::DType t);
/// Element `i` of a host buffer of type `t` (bfloat16, float16, float32).
float loadElement(const void *base, int64_t i, rt::DType t);
/// Stores `v` rounded to `t` into element `i`.
void storeElement(void *base, int64_t i, rt::DType t, float v);
/// The raw bits of element `i` (2 or 4 bytes), for bitwise comparisons.
uint32_t elementBits(const void *base, int64_t i, rt::DType t);

/// fp8 storage types (float8_e4m3fn: bias 7, no infinity, NaN S.1111.111;
/// float8_e5m2: bias 15, IEEE-like): the value of a byte, and a double
/// rounded to nearest even and saturated to the largest finite value, as
/// the GPU's cvt.rn.satfinite does (NaN stays NaN).
double fp8ToDouble(uint8_t bits, rt::DType t);
uint8_t doubleToFp8(double v, rt::DType t);

/// Element `i` of a host buffer of any dtype, as a double (bool 0/1).
double loadAny(const void *base, int64_t i, rt::DType t);
/// Stores `v` into element `i` of any dtype (floats rounded to nearest
/// even; integers truncated toward zero; bool: v != 0).
void storeAny(void *base, int64_t i, rt::DType t, double v);

/// The seeded input element `k` of `rank` (what the harness fills every
/// input with): multiples of 1/37 in [-27, 27] for floats (exact in
/// bfloat16 and its sums in float32), 0..7 for integers, 0/1 for bool;
/// `stream` tells apart several inputs of one kernel.
double seededElement(uint32_t seed, int rank, int64_t k, rt::DType t,
                     uint32_t stream = 0);
/// The same for the floating types the collective harness handles.
float seededValue(uint32_t seed, int rank, int64_t k, rt::DType t);

/// The spacing of `t`'s representable values at magnitude `m` >= 0 (the ulp
/// of a value of that magnitude; at 0, the smallest subnormal).
double ulpAt(double m, rt::DType t);

} // namespace dslc::run

#endif // DSLC_TOOLING_HARNESS_ELEMENTTYPES_H
