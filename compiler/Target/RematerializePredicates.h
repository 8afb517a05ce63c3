//===- RematerializePredicates.h - Compares recomputed in loops -*- C++ -*-===//
//
// LLVM's -O3 hoists loop-invariant compares out of loops (LICM), so the i1
// results the loop uses stay live across it. On NVPTX an i1 is a predicate
// register, and a thread has 7: past them ptxas moves predicates through
// local memory, which counts as spills even when most general registers
// are free (a tile load's per-element bounds, `remaining > v`, are such
// compares, V per piece). This pass, run after the -O3 pipeline, recomputes
// every i1 compare (and the and/or/xor of such compares) that an inner
// loop uses but defines outside it, next to each use in the loop, when
// there are far more of them than predicate registers (kMaxLivePredicates,
// measured on Helion's examples): the loop then keeps the compares'
// integer operands live instead, which it mostly does anyway (the same
// bounds feed the addresses). Fewer are left where LICM put them (the
// copies would cost instructions and integer registers for nothing).
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_COMPILER_TARGET_REMATERIALIZEPREDICATES_H
#define DSLC_COMPILER_TARGET_REMATERIALIZEPREDICATES_H

#include "llvm/IR/PassManager.h"

namespace dslc {

struct RematerializePredicatesPass
    : llvm::PassInfoMixin<RematerializePredicatesPass> {
  llvm::PreservedAnalyses run(llvm::Function &f,
                              llvm::FunctionAnalysisManager &fam);
};

} // namespace dslc

#endif // DSLC_COMPILER_TARGET_REMATERIALIZEPREDICATES_H
