//===- MmaLowering.h - Tensor-core code shared by the lowerings -*- C++ -*-===//
//
// What tile.dot's tensor-core lowering (MmaLowering.cpp) and the staged
// dots of pipelined loops (StagedLowering.cpp) share.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_CONVERSION_MMALOWERING_H
#define DSLC_COMPILER_CONVERSION_MMALOWERING_H

#include "compiler/Conversion/MmaLayout.h"

#include "mlir/IR/Builders.h"

#include <optional>

namespace dslc::lower {

/// The #tile.mma layout of `type`, if it has one.
std::optional<MmaLayout> mmaLayoutOf(mlir::Type type);

/// The k-steps of a tensor-core product (MmaLayout.h) with operands of
/// `element` (bf16 or f16) in shared memory, lhs [M, kp] at `lhsBase` (rows
/// `pitchA` elements apart) and rhs [kp, N] at `rhsBase` (`pitchB`; [N, kp]
/// when `rhsTransposed`; a batch's matrices one after another), onto
/// this thread's accumulator fragments `init` (vector<perThread x f32>);
/// returns the sums. kp is a multiple of 16. No barrier: the caller makes
/// the operands visible before and keeps them until every warp is done.
mlir::Value mmaKSteps(mlir::OpBuilder &b, mlir::Location loc,
                      const MmaLayout &layout, mlir::Type element,
                      mlir::Value lhsBase, int64_t pitchA, mlir::Value rhsBase,
                      int64_t pitchB, int64_t kp, mlir::Value init,
                      bool rhsTransposed = false);

} // namespace dslc::lower

#endif // DSLC_COMPILER_CONVERSION_MMALOWERING_H
