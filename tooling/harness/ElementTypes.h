//===- ElementTypes.h - Host-side element helpers ---------------*- C++ -*-===//
//
// Reading and writing elements of host copies of device buffers, and the
// harness's seeded inputs. The float formats themselves (codecs, rounding,
// ulps, NaN rules) are the contract's: contract/Numerics.h.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLING_HARNESS_ELEMENTTYPES_H
#define DSLC_TOOLING_HARNESS_ELEMENTTYPES_H

#include "contract/Numerics.h"
#include "runtime/DType.h"

#include <cstdint>

namespace dslc::run {

// The codecs are the contract's (contract/Numerics.h).
using contract::bf16ToFloat;
using contract::floatToBf16;
using contract::floatToHalf;
using contract::halfToFloat;

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

/// fp8 storage types: the value of a byte, and a double rounded as the
/// GPU's cvt.rn.satfinite does (contract/Numerics.h).
inline double fp8ToDouble(uint8_t bits, rt::DType t) {
  return contract::fp8Value(bits, t);
}
using contract::doubleToFp8;

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

/// The spacing of a float format's values at a magnitude (the contract's).
using contract::ulpAt;

} // namespace dslc::run

#endif // DSLC_TOOLING_HARNESS_ELEMENTTYPES_H
