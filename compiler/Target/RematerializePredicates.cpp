//===- RematerializePredicates.cpp - Compares recomputed in loops ---------===//

#include "compiler/Target/RematerializePredicates.h"
#include "compiler/Target/LoopRematerialization.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace {

/// Predicate registers of a thread (PTX's %p are allocated onto them).
constexpr unsigned kPredicateRegisters = 7;
/// A loop recomputes the predicates it uses when more than this many are
/// live across it: well past the registers, since ptxas keeps a few more
/// in general registers, and the copies cost integer registers (measured
/// on Helion's examples: at 20, helion_gdn_fwd_h's loop of 22 predicates,
/// each used 4 times, spilled 40 B; at 32, squeeze_and_excitation_net's
/// loops of 29 still spilled 8 B).
constexpr unsigned kMaxLivePredicates = 3 * kPredicateRegisters + 3;

/// Whether `v` is a predicate this pass recomputes: an i1 compare of
/// integers, or an and/or/xor of such predicates.
bool isRecomputable(const Value *v) {
  const auto *inst = dyn_cast<Instruction>(v);
  if (!inst || !inst->getType()->isIntegerTy(1))
    return false;
  if (const auto *cmp = dyn_cast<ICmpInst>(inst))
    return !cmp->getOperand(0)->getType()->isIntegerTy(1);
  if (const auto *op = dyn_cast<BinaryOperator>(inst)) {
    unsigned code = op->getOpcode();
    return (code == Instruction::And || code == Instruction::Or ||
            code == Instruction::Xor) &&
           all_of(op->operands(), [](const Value *x) {
             return isa<Constant>(x) || isRecomputable(x);
           });
  }
  return false;
}

} // namespace

PreservedAnalyses
dslc::RematerializePredicatesPass::run(Function &f,
                                       FunctionAnalysisManager &fam) {
  LoopInfo &loops = fam.getResult<LoopAnalysis>(f);
  // Per loop, the uses in it of predicates defined outside it (the
  // outermost such loop: the one they are live across); phis read on an
  // edge and are left alone.
  MapVector<Loop *, SmallVector<Use *>> liveIn;
  MapVector<Loop *, SmallPtrSet<Instruction *, 16>> predicates;
  for (BasicBlock &block : f)
    for (Instruction &inst : block) {
      if (!isRecomputable(&inst))
        continue;
      for (Use &u : inst.uses()) {
        Loop *loop = loopLiveAcross(loops, u, &block);
        if (!loop)
          continue;
        liveIn[loop].push_back(&u);
        predicates[loop].insert(&inst);
      }
    }
  RecomputeMemo made;
  auto recomputable = [](const Instruction &inst) {
    return isRecomputable(&inst);
  };
  bool changed = false;
  for (auto &[loop, uses] : liveIn) {
    // Few enough for the registers: left to ptxas. So are those hoisted
    // out of the outermost loop (the grid-stride loop: bounds computed
    // once per kernel): recomputing them per tile cost
    // fused_all_reduce_rmsnorm_fp8 (216 of them, ptxas at 128 registers)
    // 12 B of spills; the ones that spilled are a tile's bounds live
    // across an inner loop (squeeze_and_excitation_net's loop over k).
    if (predicates[loop].size() <= kMaxLivePredicates || !loop->getParentLoop())
      continue;
    for (Use *u : uses) {
      u->set(recomputeInLoop(u->get(), cast<Instruction>(u->getUser()), loop,
                             made, recomputable));
      changed = true;
    }
  }
  if (!changed)
    return PreservedAnalyses::all();
  // The originals the loops no longer use.
  eraseUnused(f, recomputable);
  PreservedAnalyses kept;
  kept.preserveSet<CFGAnalyses>();
  return kept;
}
