//===- Numerics.h - Element types and their rounding ------------*- C++ -*-===//
//
// The simulator keeps every element as a double (floats) or an int64_t
// (integers). An ElemType says which, and rounds a computed value to what
// the GPU would hold: bf16 and f16 are rounded to nearest even from the f32
// result (as the GPU computes 16-bit float arithmetic in f32), f32 to
// nearest even, integers wrap to their width. The fp8 storage types
// (f8E4M3FN, f8E5M2) round from f32 as PTX's cvt.rn.satfinite does: to
// nearest even, magnitudes beyond the largest finite value (448, 57344;
// infinities too) saturate to it, NaN stays NaN. The codecs are the
// contract's (contract/Numerics.h); the simulator's own NaN rules: it keeps
// a computed NaN as it is, holds a NaN read from f16 or fp8 memory as
// std::nan(""), and writes every f16 NaN as 0x7e00.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_SIMULATOR_NUMERICS_H
#define DSLC_COMPILER_SIMULATOR_NUMERICS_H

#include "mlir/IR/Types.h"

#include <cstdint>
#include <string>

namespace dslc::sim {

struct ElemType {
  enum class Kind { F8E4M3FN, F8E5M2, BF16, F16, F32, F64, Int, Index };
  Kind kind = Kind::F32;
  unsigned bits = 32; ///< Integers: 1, 8, 16, 32, 64.
  bool isUnsigned = false;

  bool isFloat() const { return kind <= Kind::F64; }
  unsigned byteSize() const;
  std::string name() const;

  /// From an MLIR element type (integer, index or float).
  static ElemType fromType(mlir::Type type);
  /// From a dtype name of docs/kernel-abi.md.
  static ElemType fromDType(const std::string &dtype);
};

double roundFloat(ElemType::Kind kind, double value);
int64_t wrapInt(const ElemType &type, int64_t value);

/// The unit roundoff of a float type: half its ulp at 1.0 (bf16 2^-8, f16
/// 2^-11, f32 2^-24, f64 2^-53, f8E4M3FN 2^-4, f8E5M2 2^-3); 0 for
/// integers.
double unitRoundoff(const ElemType &type);

/// Encodes `value` (already rounded to `type`) as the bytes the GPU holds.
void encode(const ElemType &type, double f, int64_t i, unsigned char *out);

/// The converse of encode: the value of the bytes `in` (float types set
/// `f`, integer types `i`, wrapped to the type's width).
void decode(const ElemType &type, const unsigned char *in, double &f,
            int64_t &i);

} // namespace dslc::sim

#endif // DSLC_COMPILER_SIMULATOR_NUMERICS_H
