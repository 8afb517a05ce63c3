//===- LoopRematerialization.cpp - Values recomputed inside loops ---------===//

#include "compiler/Target/LoopRematerialization.h"

#include "llvm/IR/Instructions.h"

using namespace llvm;

Loop *dslc::loopLiveAcross(LoopInfo &loops, const Use &u,
                           const BasicBlock *def) {
  const auto *user = cast<Instruction>(u.getUser());
  Loop *loop = loops.getLoopFor(user->getParent());
  if (isa<PHINode>(user) || !loop || loop->contains(def))
    return nullptr;
  while (loop->getParentLoop() && !loop->getParentLoop()->contains(def))
    loop = loop->getParentLoop();
  return loop;
}

void dslc::eraseUnused(Function &f,
                       function_ref<bool(const Instruction &)> recomputable) {
  for (bool erased = true; erased;) {
    erased = false;
    for (BasicBlock &block : f)
      for (Instruction &inst : make_early_inc_range(block))
        if (recomputable(inst) && inst.use_empty()) {
          inst.eraseFromParent();
          erased = true;
        }
  }
}
