//===- ChunkLoops.h - Loops over a row's chunks that load -------*- C++ -*-===//
//
// The one rule for which loops of a tile kernel are loops over a row's
// chunks whose loads may be issued iterations ahead: the innermost scf.for
// loops whose body loads directly (a tile.load in the body's own block) and
// that hold no matrix product (those loops are -dslc-pipeline-dots'). MLIRGen
// lists a num_stages tunable for a kernel that has one; -dslc-prefetch-loads
// picks, in each, the loads it may repeat ahead.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_COMPILER_ANALYSIS_CHUNKLOOPS_H
#define DSLC_COMPILER_ANALYSIS_CHUNKLOOPS_H

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace dslc {

/// The chunk loops of `root` (file comment), in post-order.
llvm::SmallVector<mlir::scf::ForOp> chunkLoops(mlir::Operation *root);

} // namespace dslc

#endif // DSLC_COMPILER_ANALYSIS_CHUNKLOOPS_H
