//===- IssueLoadsEarly.cpp - loads issued above barriers ------------------===//
//
// -dslc-issue-loads-early (Passes.td). A load written after a reduction
// (RMSNorm's `weight[None, :]` after `torch.mean(v * v)`) is issued after
// the reduction's barriers: its latency adds to every row's. Neither LLVM
// nor ptxas moves a load across bar.sync, so the move is made here, on the
// tiles: each tile.load climbs its block over side-effect-free ops (the
// reductions, element-wise math, broadcasts) until it meets the op that
// defines one of its operands, one that touches memory or synchronizes (a
// store, an atomic, another load, a signal or wait, a loop or branch) or
// a matrix product, and lands just above the earliest op on its way that
// may wait at a barrier (a reduction, a layout change through shared
// memory) or gathers (whose addresses wait for values loaded before
// them: issueEarly); with none on its way it stays. Program order between
// the load and every write is kept, so tensors that overlap are read as
// written. Tiles of more than max-bytes-per-thread bytes a thread do not
// climb over barriers: their registers would stay live across the work in
// between (kWideEarlyLoadBytes, and kNarrowEarlyLoadBytes where that
// spilled: Passes.h); they climb over gathers only.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/LoweringUtils.h"
#include "compiler/Conversion/Passes.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace dslc {
#define GEN_PASS_DEF_ISSUELOADSEARLY
#include "compiler/Conversion/Passes.h.inc"
} // namespace dslc

using namespace mlir;
using namespace dslc;

namespace {

/// Whether a load may move above `op`: it neither touches memory nor
/// synchronizes nor holds code (a loop or branch may do either), and is no
/// matrix product (whose own work hides the load's latency, and whose
/// operands already fill the registers). Loads keep their order.
bool mayClimbOver(Operation *op) {
  return !op->getNumRegions() && !isa<tile::DotOp>(op) && isPure(op);
}

/// Whether `op` may wait at a CTA barrier (its threads exchange values
/// through shared memory): what a load is worth moving above.
bool mayBarrier(Operation *op) {
  return isa<tile::ReduceOp, tile::ConvertLayoutOp, tile::TransposeOp,
             tile::BroadcastOp, tile::ReshapeOp, tile::ShiftOp>(op);
}

/// Where a load moved: not at all, above a gather only, or above an op
/// that may wait at a barrier (its registers then live across that work).
enum class Moved { No, AboveGather, AboveBarrier };

/// Moves `load` up its block, as far as mayClimbOver allows, to just above
/// the earliest op on the way that may wait at a barrier or gathers;
/// where none is on the way the load stays (LLVM schedules it among the
/// other code). A gather's addresses come from values it waits for (a
/// label loaded just before: cross entropy's `logits[row, label]`), and
/// a masked access lowers to a branch: a load written after it is not
/// issued before the gather's index arrives, one DRAM round trip late,
/// unless it comes first. Climbing over a gather (a read) keeps what
/// every access reads; a `wide` load (more bytes a thread than the
/// barrier climb allows) climbs over gathers and their index math only.
Moved issueEarly(tile::LoadOp load, bool wide) {
  Operation *above = nullptr;
  Moved moved = Moved::No;
  for (Operation *prev = load->getPrevNode(); prev;
       prev = prev->getPrevNode()) {
    if (llvm::any_of(prev->getResults(), [&](Value r) {
          return llvm::is_contained(load->getOperands(), r);
        }))
      break;
    bool gather = isa<tile::GatherOp>(prev);
    if (!gather && !mayClimbOver(prev))
      break;
    if (gather) {
      above = prev;
      moved = std::max(moved, Moved::AboveGather);
    } else if (mayBarrier(prev)) {
      if (wide)
        break;
      above = prev;
      moved = Moved::AboveBarrier;
    }
  }
  if (above)
    load->moveBefore(above);
  return moved;
}

struct IssueLoadsEarlyPass
    : dslc::impl::IssueLoadsEarlyBase<IssueLoadsEarlyPass> {
  using IssueLoadsEarlyBase::IssueLoadsEarlyBase;
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      if (!func->hasAttr(tile::kKernelAttr))
        return;
      // Loads of tensors the kernel wrote before are ordered by a barrier
      // of their own (lower::markReadsAfterWrites): they stay.
      lower::markReadsAfterWrites(func);
      int64_t threads = lower::kernelThreads(func);
      SmallVector<tile::LoadOp> loads;
      func.walk([&](tile::LoadOp load) {
        if (!load->hasAttr(lower::kCtaOrderedAttr))
          loads.push_back(load);
      });
      for (tile::LoadOp load : loads) {
        int64_t bytes = lower::loadBytesPerThread(load, threads);
        if (issueEarly(load, bytes > maxBytesPerThread) ==
                Moved::AboveBarrier &&
            bytes > kNarrowEarlyLoadBytes)
          getOperation()->setAttr(kWideEarlyLoadsAttr,
                                  UnitAttr::get(&getContext()));
      }
    });
  }
};

} // namespace
