//===- LoopRematerialization.h - Values recomputed inside loops -*- C++ -*-===//
//
// What RematerializePredicates and RematerializeAddresses share: which
// loop a value defined outside it is live across at a use, the copy of a
// value next to a use in it, and the removal of the originals their
// copies replaced.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_COMPILER_TARGET_LOOPREMATERIALIZATION_H
#define DSLC_COMPILER_TARGET_LOOPREMATERIALIZATION_H

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Function.h"

namespace dslc {

/// The outermost loop holding use `u` of an instruction of `def` but not
/// `def` itself: the one the value is live across at the use; null for a
/// use outside any such loop, or in a phi (read on an edge).
llvm::Loop *loopLiveAcross(llvm::LoopInfo &loops, const llvm::Use &u,
                           const llvm::BasicBlock *def);

/// Copies made per (original, block), reused within the block.
using RecomputeMemo =
    llvm::DenseMap<std::pair<llvm::Value *, llvm::BasicBlock *>, llvm::Value *>;

/// A copy of `v` computed right before `at`, in `loop`, when `v` is an
/// instruction `recomputable` accepts defined outside the loop (else `v`),
/// its operands copied the same way (so a chain of such instructions is
/// copied down to its first other operands, which dominate `at` since `v`
/// does).
llvm::Value *recomputeInLoop(
    llvm::Value *v, llvm::Instruction *at, const llvm::Loop *loop,
    RecomputeMemo &made,
    llvm::function_ref<bool(const llvm::Instruction &)> recomputable);

/// Erases the unused instructions `recomputable` accepts, repeatedly (else
/// codegen's CSE would take the originals again for their copies).
void eraseUnused(
    llvm::Function &f,
    llvm::function_ref<bool(const llvm::Instruction &)> recomputable);

} // namespace dslc

#endif // DSLC_COMPILER_TARGET_LOOPREMATERIALIZATION_H
