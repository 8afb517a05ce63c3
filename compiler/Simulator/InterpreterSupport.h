//===- InterpreterSupport.h - Helpers of the interpreter's files -*- C++
//-*-===//
//
// Private to compiler/Simulator: what Interpreter.cpp (dispatch, control
// flow), InterpreterArith.cpp (arith, tile.reduce), InterpreterMemory.cpp
// (loads, stores, multicast loads) and InterpreterComm.cpp (stacks, peers,
// signal/wait, LL packets, epochs) share.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_SIMULATOR_INTERPRETERSUPPORT_H
#define DSLC_COMPILER_SIMULATOR_INTERPRETERSUPPORT_H

#include "compiler/Simulator/Numerics.h"
#include "compiler/Simulator/Values.h"

#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace dslc::sim {

/// `v` rounded to the precision of `type` (a no-op for f32/f64 values that
/// fit).
inline double roundTo(const ElemType &type, double v) {
  // The common kinds inline (elementwise loops call this per element).
  if (type.kind == ElemType::Kind::F32)
    return static_cast<float>(v);
  if (type.kind == ElemType::Kind::F64)
    return v;
  return roundFloat(type.kind, v);
}

/// arith.maximumf / minimumf (PTX max.NaN / min.NaN): NaN if either is,
/// and +0 above -0.
inline double maximumF(double x, double y) {
  if (std::isnan(x) || std::isnan(y))
    return std::nan("");
  if (x == y)
    return std::signbit(x) ? y : x;
  return x > y ? x : y;
}
inline double minimumF(double x, double y) {
  if (std::isnan(x) || std::isnan(y))
    return std::nan("");
  if (x == y)
    return std::signbit(x) ? x : y;
  return x < y ? x : y;
}

/// A float converted to the integer `type` as the GPU's cvt.rzi does:
/// toward zero, saturated to the type's range, NaN to 0.
inline int64_t toInteger(const ElemType &type, double v) {
  if (std::isnan(v))
    return 0;
  double t = std::trunc(v);
  if (type.bits == 1)
    return t != 0;
  if (type.kind == ElemType::Kind::Index || type.bits >= 64) {
    if (type.isUnsigned)
      return t <= 0 ? 0 : t >= 0x1p64 ? -1 : int64_t(uint64_t(t));
    return t <= -0x1p63 ? INT64_MIN : t >= 0x1p63 ? INT64_MAX : int64_t(t);
  }
  double lo = type.isUnsigned ? 0 : -std::ldexp(1.0, type.bits - 1);
  double hi = type.isUnsigned ? std::ldexp(1.0, type.bits) - 1
                              : std::ldexp(1.0, type.bits - 1) - 1;
  return wrapInt(type, int64_t(std::clamp(t, lo, hi)));
}

/// A tile value of the shape and element type of `t` (a ranked tensor),
/// zero-filled.
inline std::shared_ptr<TileVal> emptyTile(mlir::Type t) {
  auto ranked = mlir::cast<mlir::RankedTensorType>(t);
  auto tile = std::make_shared<TileVal>();
  tile->shape.assign(ranked.getShape().begin(), ranked.getShape().end());
  tile->type = ElemType::fromType(ranked.getElementType());
  if (tile->type.isFloat())
    tile->f.resize(tile->numel());
  else
    tile->i.resize(tile->numel());
  return tile;
}

} // namespace dslc::sim

#endif // DSLC_COMPILER_SIMULATOR_INTERPRETERSUPPORT_H
