//===- WorkCounter.h - Per-thread work of what MLIRGen makes ----*- C++ -*-===//
//
// The measure behind compiler/Limits.h's bounds on generated code: every
// tile operation inserted counts the elements one thread holds of it
// (GenStmt.cpp). Generator checks kMaxPerThreadWork after each statement,
// kMaxUnrolledLoopWork after each unrolled copy, and decides by it whether a
// loop it may unroll stays a loop (kMaxAutoUnrolledWork, GenLoops.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_MLIRGEN_WORKCOUNTER_H
#define DSLC_COMPILER_MLIRGEN_WORKCOUNTER_H

#include "mlir/IR/Builders.h"

#include <cstdint>
#include <map>

namespace dslc::mlirgen {

/// Counts the per-thread work (kMaxPerThreadWork, compiler/Limits.h) of the
/// operations MLIRGen inserts.
class WorkCounter : public mlir::OpBuilder::Listener {
public:
  int64_t threads = 128;
  int64_t total = 0;
  /// Whole-row extents computed a chunk at a time (extent -> its chunk):
  /// their tiles count as one chunk.
  std::map<int64_t, int64_t> rolled;
  /// Statements generated (kMaxGeneratedStatements), unrolled copies
  /// included.
  int64_t statements = 0;
  void notifyOperationInserted(mlir::Operation *op,
                               mlir::OpBuilder::InsertPoint) override;
};

} // namespace dslc::mlirgen

#endif // DSLC_COMPILER_MLIRGEN_WORKCOUNTER_H
