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

#include <memory>

namespace dslc::sim {

/// `v` rounded to the precision of `type` (a no-op for f32/f64 values that
/// fit).
inline double roundTo(const ElemType &type, double v) {
  return roundFloat(type.kind, v);
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
