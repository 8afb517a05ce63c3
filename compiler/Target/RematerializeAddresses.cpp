//===- RematerializeAddresses.cpp - Constant offsets recomputed in loops --===//

#include "compiler/Target/RematerializeAddresses.h"
#include "compiler/Target/LoopRematerialization.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace {

/// Whether `v` is a GEP with constant indices (folded into the accesses).
bool isConstantOffset(const Value *v) {
  const auto *gep = dyn_cast<GetElementPtrInst>(v);
  return gep && gep->hasAllConstantIndices();
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
  // Each use gets the chain of constant-offset GEPs down to its first
  // other base.
  auto recomputable = [](const Instruction &inst) {
    return isConstantOffset(&inst);
  };
  RecomputeMemo made;
  for (auto [u, loop] : uses)
    u->set(recomputeInLoop(u->get(), cast<Instruction>(u->getUser()), loop,
                           made, recomputable));
  // The originals no longer used.
  eraseUnused(f, recomputable);
  PreservedAnalyses kept;
  kept.preserveSet<CFGAnalyses>();
  return kept;
}
