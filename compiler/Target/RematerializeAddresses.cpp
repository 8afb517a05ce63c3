//===- RematerializeAddresses.cpp - Constant offsets recomputed in loops --===//

#include "compiler/Target/RematerializeAddresses.h"
#include "compiler/Target/LoopRematerialization.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace {

/// Whether `v` is a GEP with constant indices (folded into the accesses).
bool isConstantOffset(const Value *v) {
  const auto *gep = dyn_cast<GetElementPtrInst>(v);
  return gep && gep->hasAllConstantIndices();
}

/// A copy of address `v` computed right before `at` (in `loop`): the chain
/// of constant-offset GEPs outside the loop down to its first other base;
/// copies made for one block are reused within it.
Value *recompute(Value *v, Instruction *at, const Loop *loop,
                 DenseMap<std::pair<Value *, BasicBlock *>, Value *> &made) {
  auto *inst = dyn_cast<Instruction>(v);
  if (!inst || !isConstantOffset(inst) || loop->contains(inst->getParent()))
    return v;
  auto key = std::make_pair(v, at->getParent());
  if (Value *done = made.lookup(key))
    if (cast<Instruction>(done)->comesBefore(at))
      return done;
  Instruction *copy = inst->clone();
  copy->insertBefore(at->getIterator());
  Use &base = copy->getOperandUse(0);
  base.set(recompute(base.get(), copy, loop, made));
  made[key] = copy;
  return copy;
}

} // namespace

PreservedAnalyses
dslc::RematerializeAddressesPass::run(Function &f,
                                      FunctionAnalysisManager &fam) {
  LoopInfo &loops = fam.getResult<LoopAnalysis>(f);
  // The uses, in a loop, of constant-offset addresses defined outside it
  // (with the outermost loop they are live across); phis read on an edge
  // and are left alone.
  SmallVector<std::pair<Use *, Loop *>> uses;
  for (BasicBlock &block : f)
    for (Instruction &inst : block) {
      if (!isConstantOffset(&inst))
        continue;
      for (Use &u : inst.uses())
        if (Loop *loop = loopLiveAcross(loops, u, &block))
          uses.push_back({&u, loop});
    }
  if (uses.empty())
    return PreservedAnalyses::all();
  DenseMap<std::pair<Value *, BasicBlock *>, Value *> made;
  for (auto [u, loop] : uses)
    u->set(recompute(u->get(), cast<Instruction>(u->getUser()), loop, made));
  // The originals no longer used.
  eraseUnused(f,
              [](const Instruction &inst) { return isConstantOffset(&inst); });
  PreservedAnalyses kept;
  kept.preserveSet<CFGAnalyses>();
  return kept;
}
