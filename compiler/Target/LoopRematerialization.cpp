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

Value *
dslc::recomputeInLoop(Value *v, Instruction *at, const Loop *loop,
                      RecomputeMemo &made,
                      function_ref<bool(const Instruction &)> recomputable) {
  auto *inst = dyn_cast<Instruction>(v);
  if (!inst || !recomputable(*inst) || loop->contains(inst->getParent()))
    return v;
  auto key = std::make_pair(v, at->getParent());
  if (Value *done = made.lookup(key))
    if (cast<Instruction>(done)->comesBefore(at))
      return done;
  Instruction *copy = inst->clone();
  copy->insertBefore(at->getIterator());
  for (Use &u : copy->operands())
    u.set(recomputeInLoop(u.get(), copy, loop, made, recomputable));
  made[key] = copy;
  return copy;
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
