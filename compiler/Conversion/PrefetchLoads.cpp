//===- PrefetchLoads.cpp - loop loads issued iterations ahead -------------===//
//
// -dslc-prefetch-loads (Passes.td). A loop over the chunks of a row (the
// `for tile_n in hl.tile(n)` of a two-pass softmax or a Welford LayerNorm,
// a rolled reduction) loads a chunk and then reduces it: every iteration
// waits for its own load, and nothing else is in flight while the
// reduction runs. Neither LLVM nor ptxas moves a load across iterations.
// Here, on the tiles, such a loop keeps the loads of the next S - 1
// iterations in registers (S = the kernel's num_stages): they are issued
// before the loop for its first iterations, and each iteration issues the
// load of the iteration S - 1 ahead as its first op and takes its own tile
// from the loop-carried values. A load past the loop's end reads nothing
// (its first limit is 0).
//
// The loops are the innermost loops that load and hold no matrix product
// (compiler/Analysis/ChunkLoops.h; loops with products are
// -dslc-pipeline-dots'). A load
// qualifies when it sits directly in the loop's body, its operands
// are computed there from the induction variable and values from outside
// by side-effect-free ops without regions, and nothing in the loop may
// write what it reads (lower::mayClobber: stores into other parameters do
// not, communication does). At most kPrefetchBytes a thread are held ahead per
// loop (fewer stages, then none, when the loads are wider).
//
//===----------------------------------------------------------------------===//

#include "compiler/Analysis/ChunkLoops.h"
#include "compiler/Conversion/LoweringUtils.h"
#include "compiler/Conversion/Passes.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace dslc {
#define GEN_PASS_DEF_PREFETCHLOADS
#include "compiler/Conversion/Passes.h.inc"
} // namespace dslc

using namespace mlir;
using namespace dslc;

namespace {

/// The ops of `loop`'s body that compute `v` (in program order into
/// `slice`), or failure when one may not be repeated ahead: it has regions
/// or effects, or sits deeper in the loop. Values from outside the loop and
/// the induction variable end the walk.
LogicalResult collectSlice(Value v, scf::ForOp loop,
                           llvm::SetVector<Operation *> &slice) {
  Operation *def = v.getDefiningOp();
  if (!def) {
    auto arg = cast<BlockArgument>(v);
    if (arg.getOwner() != loop.getBody())
      return success(!loop->isAncestor(arg.getOwner()->getParentOp()));
    return success(arg == loop.getInductionVar());
  }
  if (!loop->isAncestor(def))
    return success();
  if (def->getBlock() != loop.getBody() || def->getNumRegions() || !isPure(def))
    return failure();
  if (slice.contains(def))
    return success();
  for (Value operand : def->getOperands())
    if (failed(collectSlice(operand, loop, slice)))
      return failure();
  slice.insert(def);
  return success();
}

/// A load of `loop` that may be issued iterations ahead, with the body's
/// ops that compute its operands.
struct Candidate {
  tile::LoadOp load;
  SmallVector<Operation *> slice;
};

/// The loads of chunk loop `loop` (compiler/Analysis/ChunkLoops.h) that
/// qualify (file comment).
SmallVector<Candidate> candidates(scf::ForOp loop) {
  SmallVector<Candidate> found;
  for (auto load : loop.getBody()->getOps<tile::LoadOp>()) {
    if (load.getLimits().empty() || load->hasAttr(lower::kCtaOrderedAttr))
      continue;
    llvm::SetVector<Operation *> slice;
    if (llvm::any_of(load->getOperands(), [&](Value v) {
          return failed(collectSlice(v, loop, slice));
        }))
      continue;
    bool clobbered = loop->walk([&](Operation *op) {
                           if (op == loop || op->getNumRegions() ||
                               !lower::mayClobber(op, load))
                             return WalkResult::advance();
                           return WalkResult::interrupt();
                         })
                         .wasInterrupted();
    if (clobbered)
      continue;
    SmallVector<Operation *> ordered(slice.begin(), slice.end());
    llvm::sort(ordered, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    found.push_back({load, std::move(ordered)});
  }
  return found;
}

/// The load of `c` for induction value `iv` at `b`'s point: its slice
/// cloned with `iv` for the loop's induction variables `indVars` (the
/// loop's and its replacement's), and its first limit 0 when `iv` is not
/// below the loop's upper bound `end`.
Value loadAt(OpBuilder &b, const Candidate &c, ArrayRef<Value> indVars,
             Value iv, Value end) {
  tile::LoadOp original = c.load;
  Location loc = original.getLoc();
  IRMapping map;
  for (Value v : indVars)
    map.map(v, iv);
  for (Operation *op : c.slice)
    b.clone(*op, map);
  Value inLoop =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv, end);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value limit = arith::SelectOp::create(
      b, loc, inLoop, map.lookupOrDefault(original.getLimits()[0]), zero);
  auto load = cast<tile::LoadOp>(b.clone(*original, map));
  load.getLimitsMutable()[0].set(limit);
  return load.getResult();
}

/// `iv` plus `k` times `step`.
Value stepsAhead(OpBuilder &b, Location loc, Value step, Value iv, int64_t k) {
  if (k == 0)
    return iv;
  Value steps = arith::MulIOp::create(
      b, loc, step, arith::ConstantIndexOp::create(b, loc, k));
  return arith::AddIOp::create(b, loc, iv, steps);
}

/// Issues `found`'s loads `ahead` iterations ahead in `loop`.
void prefetch(scf::ForOp loop, ArrayRef<Candidate> found, int64_t ahead) {
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  Value step = loop.getStep(), end = loop.getUpperBound();
  // Iterations 0 .. ahead - 1, before the loop: per load, `ahead` tiles.
  SmallVector<Value> inits;
  for (const Candidate &c : found)
    for (int64_t k = 0; k < ahead; ++k)
      inits.push_back(loadAt(b, c, {loop.getInductionVar()},
                             stepsAhead(b, loc, step, loop.getLowerBound(), k),
                             end));
  IRRewriter rewriter(loop->getContext());
  auto newYields = [&](OpBuilder &b, Location loc,
                       ArrayRef<BlockArgument> carried) {
    // The new loop's body: the loads ahead are its first ops (the old
    // body's ops, which may still use the old induction variable, follow).
    Block *body = carried.front().getOwner();
    Value indVar = body->getArgument(0);
    Value indVars[] = {loop.getInductionVar(), indVar};
    SmallVector<Value> yields;
    b.setInsertionPointToStart(body);
    for (auto [i, c] : llvm::enumerate(found)) {
      ArrayRef<BlockArgument> tiles = carried.slice(i * ahead, ahead);
      for (int64_t k = 1; k < ahead; ++k)
        yields.push_back(tiles[k]);
      yields.push_back(
          loadAt(b, c, indVars, stepsAhead(b, loc, step, indVar, ahead), end));
    }
    return yields;
  };
  rewriter.setInsertionPoint(loop);
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, inits, /*replaceInitOperandUsesInLoop=*/false, newYields);
  if (failed(replaced))
    return;
  auto newLoop = cast<scf::ForOp>(replaced->getOperation());
  unsigned first = newLoop.getNumRegionIterArgs() - inits.size();
  for (auto [i, c] : llvm::enumerate(found)) {
    tile::LoadOp load = c.load;
    load.getResult().replaceAllUsesWith(
        newLoop.getRegionIterArgs()[first + i * ahead]);
    load->erase();
    // The body's own index math, now unused (unless shared).
    for (Operation *op : llvm::reverse(c.slice))
      if (op->use_empty())
        op->erase();
  }
}

struct PrefetchLoadsPass : dslc::impl::PrefetchLoadsBase<PrefetchLoadsPass> {
  using PrefetchLoadsBase::PrefetchLoadsBase;
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      if (!func->hasAttr(tile::kKernelAttr))
        return;
      int64_t stages = contract::kDefaultLoopStages;
      if (auto s = func->getAttrOfType<IntegerAttr>(tile::kNumStagesAttr))
        stages = s.getInt();
      if (stages < 2)
        return;
      // Loads of tensors the kernel wrote before stay in program order.
      lower::markReadsAfterWrites(func);
      int64_t threads = lower::kernelThreads(func);
      for (scf::ForOp loop : chunkLoops(func)) {
        SmallVector<Candidate> found = candidates(loop);
        int64_t bytes = 0;
        for (const Candidate &c : found)
          bytes += lower::loadBytesPerThread(c.load, threads);
        if (!bytes)
          continue;
        int64_t ahead = std::min(stages - 1, maxBytesPerThread / bytes);
        if (ahead < 1)
          continue;
        prefetch(loop, found, ahead);
        getOperation()->setAttr(kPrefetchedLoadsAttr,
                                UnitAttr::get(&getContext()));
      }
    });
  }
};

} // namespace
