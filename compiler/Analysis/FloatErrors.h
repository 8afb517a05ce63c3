//===- FloatErrors.h - Where an f32 value's rounding errors go --*- C++ -*-===//
//
// The one rule for which f32 exps and divisions dslc approximates by
// default (-dslc-narrowed-fast-math; docs/compiler.md "Math"): an f32 value
// is *narrowed* when every use of it ends, through f32 element-wise
// arithmetic, broadcasts, reshapes, splats, reductions and the values
// loops carry (or branches yield), in a rounding to a float of at most 16
// bits, whose unit roundoff dwarfs the approximations' few f32 ulps; an
// f32 exp whose every use is a sum along a dimension of at least
// kMinSummedTerms elements is approximated too. The pass applies it, and
// MLIRGen lists the fast_math tunable only where it leaves an f32 exp or
// log exact (where fast_math would change the code).
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_COMPILER_ANALYSIS_FLOATERRORS_H
#define DSLC_COMPILER_ANALYSIS_FLOATERRORS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace dslc {

/// Whether `op` is element-wise tile arithmetic: arith or math ops with
/// the Elementwise trait (arithmetic, math, comparisons, selects,
/// conversions), which act alike on any shape of their tiles.
bool isElementwiseArith(mlir::Operation *op);

/// Whether `v` is an f32 scalar or a tile of f32.
bool isF32Valued(mlir::Value v);

/// Whether every path of the f32 value `start`'s rounding errors ends in a
/// rounding to a float of at most 16 bits (the file comment); a search
/// that reaches more than 4096 values counts as not narrowed (bounded
/// work on any kernel).
bool isNarrowed(mlir::Value start);

/// Fewest terms a sum of exps adds for its exps to be approximated: each
/// term's relative error bounds the sum's, and ex2.approx of x * log2(e)
/// is within 2 + 1.173 |x| ulp of exp(x), at most 107 ulp for a finite
/// normal result, below the (n - 1) 2^-24 a sum of n >= 256 terms may lose.
inline constexpr int64_t kMinSummedTerms = 256;

/// Whether every use of `r` is a sum along a dimension of at least
/// kMinSummedTerms elements.
bool isOnlySummedWide(mlir::Value r);

/// Whether `op`, a math.exp or math.exp2, is approximated without the
/// config's fast_math (bf16/f16 values, or narrowed, or a wide sum's term).
bool isExpApproximatedByDefault(mlir::Operation *op);

/// Whether fast_math would change `func`: it computes an f32 log or log2,
/// or an f32 exp or exp2 that stays exact by default.
bool fastMathChangesMath(mlir::func::FuncOp func);

} // namespace dslc

#endif // DSLC_COMPILER_ANALYSIS_FLOATERRORS_H
