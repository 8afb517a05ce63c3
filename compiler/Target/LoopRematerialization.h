//===- LoopRematerialization.h - Values recomputed inside loops -*- C++ -*-===//
//
// What RematerializePredicates and RematerializeAddresses share: which
// loop a value defined outside it is live across at a use, and the
// removal of the originals their copies replaced.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_COMPILER_TARGET_LOOPREMATERIALIZATION_H
#define DSLC_COMPILER_TARGET_LOOPREMATERIALIZATION_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Function.h"

namespace dslc {

/// The outermost loop holding use `u` of an instruction of `def` but not
/// `def` itself: the one the value is live across at the use; null for a
/// use outside any such loop, or in a phi (read on an edge).
llvm::Loop *loopLiveAcross(llvm::LoopInfo &loops, const llvm::Use &u,
                           const llvm::BasicBlock *def);

/// Erases the unused instructions `recomputable` accepts, repeatedly (else
/// codegen's CSE would take the originals again for their copies).
void eraseUnused(
    llvm::Function &f,
    llvm::function_ref<bool(const llvm::Instruction &)> recomputable);

} // namespace dslc

#endif // DSLC_COMPILER_TARGET_LOOPREMATERIALIZATION_H
