//===- SinkInvariantLoads.cpp - loads made again inside a loop ------------===//
//
// -dslc-sink-invariant-loads (Passes.td). Helion's LayerNorm backward loads
// its weight row once per CTA, `weight_cta = weight[None, :].to(f32)`, and
// reads it in every iteration of the loop over the CTA's rows: held across
// the loop, a 10240-wide f32 row is 20 registers a thread at 16 warps, on
// top of two accumulators and a row's x_hat and w * dy, and ptxas spills.
// Loaded again where the loop uses it, it is live only from that load to
// its last use, and the kernel fits (no spills at 8 and 16 warps). A value
// qualifies when (Passes.td):
//  - the loop uses it and it is defined outside the loop by a slice of ops
//    without regions that are side-effect free or are tile.loads, at least
//    one load among them; operands from outside the slice that are not
//    tiles (indices, scalars, block arguments) are reused as they are;
//  - nothing in the function may write what a load of the slice reads
//    (lower::mayClobber), and no load of it is ordered after the kernel's
//    own writes (lower::markReadsAfterWrites);
//  - every result of the slice is used only by the slice or in the loop,
//    so the originals die once the loop's uses read the copy.
// The copy goes right before the op of the loop's body that first uses
// the value. Loops are visited outer first, so a value used in a nested
// loop moves into the innermost loop that uses it.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/LoweringUtils.h"
#include "compiler/Conversion/Passes.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"

namespace dslc {
#define GEN_PASS_DEF_SINKINVARIANTLOADS
#include "compiler/Conversion/Passes.h.inc"
} // namespace dslc

using namespace mlir;
using namespace dslc;

namespace {

bool isTile(Value v) { return isa<RankedTensorType>(v.getType()); }

/// Whether `load` may be read again later: unordered, and nothing in
/// `func` may write what it reads.
bool stableLoad(tile::LoadOp load, func::FuncOp func) {
  if (load->hasAttr(lower::kCtaOrderedAttr))
    return false;
  return !func.walk([&](Operation *op) {
                if (op->getNumRegions() || !lower::mayClobber(op, load))
                  return WalkResult::advance();
                return WalkResult::interrupt();
              })
              .wasInterrupted();
}

/// The ops that compute tile `v` (defined outside the loop), operands
/// first, into `slice`; false when one may not be repeated (file comment).
bool collectSlice(Value v, func::FuncOp func,
                  llvm::SetVector<Operation *> &slice, bool &loads) {
  Operation *def = v.getDefiningOp();
  if (!def || !isTile(v))
    return true; // block arguments and scalars: reused as they are
  if (slice.contains(def))
    return true;
  if (def->getNumRegions())
    return false;
  if (auto load = dyn_cast<tile::LoadOp>(def)) {
    if (!stableLoad(load, func))
      return false;
    loads = true;
  } else if (!isPure(def)) {
    return false;
  }
  for (Value operand : def->getOperands())
    if (!collectSlice(operand, func, slice, loads))
      return false;
  slice.insert(def);
  return true;
}

/// Whether `op` is in `loop`'s body (the loop's own operands, its initial
/// values, are not).
bool inBody(Operation *op, scf::ForOp loop) {
  return op != loop && loop->isAncestor(op);
}

/// Whether every result of `slice` is used by `slice` or in `loop`'s body.
bool usedOnlyThere(const llvm::SetVector<Operation *> &slice, scf::ForOp loop) {
  for (Operation *op : slice)
    for (Operation *user : op->getUsers())
      if (!slice.contains(user) && !inBody(user, loop))
        return false;
  return true;
}

/// The op of `loop`'s body that holds the first use of `v` in it.
Operation *firstUserInBody(Value v, scf::ForOp loop) {
  Operation *first = nullptr;
  for (Operation *user : v.getUsers()) {
    if (!inBody(user, loop))
      continue;
    Operation *inBody = loop.getBody()->findAncestorOpInBlock(*user);
    if (inBody && (!first || inBody->isBeforeInBlock(first)))
      first = inBody;
  }
  return first;
}

/// The tiles defined outside `loop` that ops in it use, in first-use
/// order.
SmallVector<Value> outsideTiles(scf::ForOp loop) {
  llvm::SetVector<Value> found;
  loop.getBody()->walk([&](Operation *op) {
    for (Value v : op->getOperands())
      if (isTile(v) && v.getDefiningOp() &&
          !loop->isAncestor(v.getDefiningOp()))
        found.insert(v);
  });
  return found.takeVector();
}

/// Computes `v` again before its first use in `loop`'s body from a copy
/// of `slice`, and erases what of `slice` is then dead.
void sink(Value v, const llvm::SetVector<Operation *> &slice, scf::ForOp loop) {
  OpBuilder b(firstUserInBody(v, loop));
  IRMapping map;
  for (Operation *op : slice)
    b.clone(*op, map);
  Value copy = map.lookup(v);
  v.replaceUsesWithIf(
      copy, [&](OpOperand &use) { return inBody(use.getOwner(), loop); });
  for (Operation *op : llvm::reverse(slice))
    if (op->use_empty())
      op->erase();
}

/// Loads the qualifying values of `loop` again in it (with `apply`);
/// whether it found one. After each one sunk, the loop's outside values
/// are listed again (a slice erased may have defined some).
bool sinkInto(scf::ForOp loop, func::FuncOp func, bool apply) {
  bool found = false;
  llvm::DenseSet<Value> rejected; // compared, never read: may be erased
  for (bool again = true; again;) {
    again = false;
    for (Value v : outsideTiles(loop)) {
      if (rejected.contains(v))
        continue;
      llvm::SetVector<Operation *> slice;
      bool loads = false;
      if (!collectSlice(v, func, slice, loads) || !loads ||
          !usedOnlyThere(slice, loop)) {
        rejected.insert(v);
        continue;
      }
      found = true;
      if (!apply) {
        rejected.insert(v);
        continue;
      }
      sink(v, slice, loop);
      again = true;
      break;
    }
  }
  return found;
}

struct SinkInvariantLoadsPass
    : public dslc::impl::SinkInvariantLoadsBase<SinkInvariantLoadsPass> {
  using SinkInvariantLoadsBase::SinkInvariantLoadsBase;

  void runOnOperation() override {
    bool found = false;
    getOperation().walk([&](func::FuncOp func) {
      if (!func->hasAttr(tile::kKernelAttr))
        return;
      lower::markReadsAfterWrites(func);
      SmallVector<scf::ForOp> loops;
      func.walk<WalkOrder::PreOrder>(
          [&](scf::ForOp loop) { loops.push_back(loop); });
      for (scf::ForOp loop : loops)
        found |= sinkInto(loop, func, apply);
    });
    if (found)
      getOperation()->setAttr(kSinkableLoadsAttr, UnitAttr::get(&getContext()));
  }
};

} // namespace
