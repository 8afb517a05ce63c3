//===- PipelineDots.cpp - tensor-core K loops, software pipelined ---------===//
//
// -dslc-pipeline-dots (Passes.td). A K loop of a tensor-core matmul reads
// its operand tiles from global memory, stages them in shared memory and
// runs mma.sync on them, one step after the other: every iteration waits
// for its loads. Here the operand tiles of S - 1 iterations ahead are in
// flight while an iteration computes (Triton's and CUTLASS's multistage
// loop):
//
//   for s in 0 .. S-2:  if (lb + s step < ub) async_copy(A, B -> stage s)
//                       async_commit
//   for iv (iteration i):
//     async_wait S-2            // stage i % S landed; everyone is done
//                               // with stage (i - 1) % S
//     if (iv + (S-1) step < ub) async_copy(A, B of that iteration
//                                          -> stage (i + S - 1) % S)
//     async_commit
//     acc = staged_dot(stage i % S, acc)
//   async_wait 0                // the workspace is free again
//
// On wgmma with at least 3 stages, a product whose accumulator is only
// chained from iteration to iteration stays in flight while the next
// iteration issues its own (staged_dot pending = 1, wgmma.wait_group 1;
// tile.dot_wait after the loop). The copies then come after the products
// (Triton's order), S - 1 iterations ahead, and one barrier per iteration
// serves both the stage the copies refill and the stage the next product
// reads:
//
//   copies of iterations 0 .. S-2 -> stages 0 .. S-2, a group each
//   async_wait S-2 {async_proxy}  // stage 0 landed (fenced, barrier)
//   for iv (iteration i):
//     acc = staged_dot(stage i % S, acc, pending 1)  // i - 1 complete
//     async_wait S-3 {async_proxy}  // stage i + 1 landed; after the
//                                   // barrier no warp reads (i - 1) % S
//     if (iv + (S-1) step < ub) async_copy(... -> stage (i + S - 1) % S)
//     async_commit
//
// Only loops whose body is the operand loads, the dots and scalar index
// arithmetic qualify (no other user of the shared workspace can run while
// the ring of stages is live); the loads' indices are recomputed for the
// iteration ahead from the induction variable. Elements past a load's
// limits arrive as zeros, so the dots need no valid_k.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/LoweringUtils.h"
#include "compiler/Conversion/MmaLayout.h"
#include "compiler/Conversion/MmaLowering.h"
#include "compiler/Conversion/Passes.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace dslc {
#define GEN_PASS_DEF_PIPELINEDOTS
#include "compiler/Conversion/Passes.h.inc"
} // namespace dslc

using namespace mlir;
using namespace dslc;

namespace {

/// A dot of the loop body with both operands loaded in the body for it;
/// fp8 operands through the widening to f16 that -dslc-mma-layouts put
/// before the dot (`lhsWiden`, `rhsWiden`), which wgmma does not need.
struct Candidate {
  tile::DotOp dot;
  tile::LoadOp lhs, rhs;
  arith::ExtFOp lhsWiden, rhsWiden;
};

/// Whether `dot` (a candidate) runs on wgmma: the kernel asks for it and
/// its fragments are one m64 row block per warpgroup (-dslc-mma-layouts
/// chose that layout for it).
bool onWgmma(tile::DotOp dot, bool wgmmaEngine) {
  return wgmmaEngine &&
         lower::mmaLayoutOf(dot.getResult().getType())->isWgmma();
}

/// The load `operand` of a dot reads, directly or, for wgmma, through the
/// widening of an fp8 tile (`widen` is then set).
tile::LoadOp operandLoad(Value operand, bool wgmma, arith::ExtFOp &widen) {
  if (auto load = operand.getDefiningOp<tile::LoadOp>())
    return load;
  auto ext = operand.getDefiningOp<arith::ExtFOp>();
  if (!wgmma || !ext || !ext->hasOneUse() ||
      !tile::isFp8Type(getElementTypeOrSelf(ext.getIn().getType())))
    return {};
  widen = ext;
  return ext.getIn().getDefiningOp<tile::LoadOp>();
}

/// The bytes of a row of a 2-d tile of `type`.
int64_t rowBytes(RankedTensorType type) {
  return type.getDimSize(1) * type.getElementTypeBitWidth() / 8;
}

/// Whether `load` can be an async copy into a staged buffer: loaded in
/// `body` for the dot alone, rows along a leading dimension and whole
/// 16-byte units along the contiguous last one, masked elements zero;
/// fp8 for wgmma only.
bool isStageable(tile::LoadOp load, Block *body, bool wgmma) {
  // A tensor the kernel also writes is read in program order, after a
  // barrier (lower::markReadsAfterWrites), not ahead of time.
  if (!load || load->getBlock() != body || !load->hasOneUse() ||
      load->hasAttr(lower::kCtaOrderedAttr))
    return false;
  // The copies ahead are issued before the loop too: the tensor (a view
  // made in the body, say) must exist there.
  if (Operation *def = load.getRef().getDefiningOp();
      def && body->getParentOp()->isAncestor(def))
    return false;
  RankedTensorType type = load.getResult().getType();
  Type e = type.getElementType();
  bool fp8 = tile::isFp8Type(e);
  if (type.getRank() != 2 || type.getEncoding() ||
      !(e.isBF16() || e.isF16() || (fp8 && wgmma)))
    return false;
  if (rowBytes(type) % 16)
    return false;
  if (auto other = load.getOtherAttr()) {
    auto f = dyn_cast<FloatAttr>(other);
    if (!f || !f.getValue().isZero())
      return false;
  }
  ArrayRef<int64_t> dims = load.getDims();
  int64_t rank = load.getRef().getType().getRank();
  return dims.size() == 2 && dims[1] == rank - 1 && dims[0] < dims[1];
}

/// Whether `op` may stay in a pipelined body: the operand loads and dots
/// of `candidates`, the terminator, and side-effect-free scalar code.
bool isAllowedInBody(Operation *op, ArrayRef<Candidate> candidates) {
  for (const Candidate &c : candidates)
    if (op == c.dot || op == c.lhs || op == c.rhs || op == c.lhsWiden ||
        op == c.rhsWiden)
      return true;
  if (isa<scf::YieldOp>(op))
    return true;
  if (op->getNumRegions() || !isPure(op))
    return false;
  return llvm::none_of(op->getResultTypes(),
                       [](Type t) { return isa<ShapedType>(t); });
}

/// Whether `v` can be computed for another iteration of `body`'s loop: what
/// it depends on in the body is side-effect-free scalar code over the
/// induction variable `iv` (a loop-carried value is not known ahead).
bool recomputable(Value v, Block *body, Value iv) {
  if (v == iv)
    return true;
  if (auto arg = dyn_cast<BlockArgument>(v))
    return arg.getOwner() != body;
  Operation *def = v.getDefiningOp();
  if (def->getBlock() != body)
    return true;
  return isPure(def) && def->getNumRegions() == 0 &&
         llvm::all_of(def->getOperands(),
                      [&](Value o) { return recomputable(o, body, iv); });
}

/// The dots of `loop` to pipeline: every tensor-core dot of its body, when
/// all qualify and the body holds nothing else that could touch the shared
/// workspace; else none. A dot by a transposed rhs ([N, K] loaded) and a
/// dot of fp8 tiles (which wgmma reads K-major only) qualify on wgmma.
SmallVector<Candidate> candidatesOf(scf::ForOp loop, bool wgmmaEngine) {
  Block *body = loop.getBody();
  SmallVector<Candidate> found;
  for (Operation &op : *body) {
    auto dot = dyn_cast<tile::DotOp>(&op);
    if (!dot)
      continue;
    auto type = cast<RankedTensorType>(dot.getResult().getType());
    if (!isa_and_present<tile::MmaEncodingAttr>(type.getEncoding()) ||
        type.getRank() != 2)
      return {};
    bool wgmma = onWgmma(dot, wgmmaEngine);
    if (dot.getRhsTransposed() && !wgmma)
      return {};
    Candidate c{dot};
    c.lhs = operandLoad(dot.getLhs(), wgmma, c.lhsWiden);
    c.rhs = operandLoad(dot.getRhs(), wgmma, c.rhsWiden);
    // wgmma reads an fp8 rhs K-major only (a 16-bit one either way: a
    // transposed rhs, x @ w.T, is staged as loaded with K-major
    // descriptors, k16 or k32 a step).
    if (!isStageable(c.lhs, body, wgmma) || !isStageable(c.rhs, body, wgmma) ||
        c.lhs == c.rhs || bool(c.lhsWiden) != bool(c.rhsWiden) ||
        (c.lhsWiden && !dot.getRhsTransposed()))
      return {};
    RankedTensorType lhsType = c.lhs.getResult().getType();
    if (rowBytes(lhsType) % tile::kStagedStepBytes ||
        lhsType.getElementType() !=
            c.rhs.getResult().getType().getElementType())
      return {};
    found.push_back(c);
  }
  if (found.empty() || !loop.getInductionVar().getType().isIndex())
    return {};
  for (Operation &op : *body)
    if (!isAllowedInBody(&op, found))
      return {};
  // Operand indices must be recomputable for another iteration.
  Value iv = loop.getInductionVar();
  for (const Candidate &c : found)
    for (tile::LoadOp load : {c.lhs, c.rhs})
      for (Value index : load->getOperands().drop_front())
        if (!recomputable(index, body, iv))
          return {};
  return found;
}

/// The staged buffer for `load`'s tile at `offset` bytes: rows padded for
/// ldmatrix, or swizzled in atoms of the widest of 128, 64 and 32 bytes
/// that divides a row for wgmma.
tile::StagedBufferAttr bufferFor(tile::LoadOp load, int64_t offset,
                                 int64_t stages, bool wgmma) {
  RankedTensorType type = load.getResult().getType();
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  int64_t cols = type.getDimSize(1);
  if (wgmma) {
    int64_t swizzle = 128;
    while (cols * bytes % swizzle)
      swizzle /= 2;
    return tile::StagedBufferAttr::get(
        load.getContext(), type.getElementType(), type.getShape(),
        llvm::alignTo(offset, 1024), cols, stages, swizzle);
  }
  return tile::StagedBufferAttr::get(load.getContext(), type.getElementType(),
                                     type.getShape(), offset,
                                     MmaLayout::pitchFor(cols, bytes), stages,
                                     /*swizzle=*/0);
}

/// Clones into `b` the body ops `v` depends on (its backward slice within
/// `body`), with `map` giving the induction variable's replacement.
Value recompute(OpBuilder &b, Value v, Block *body, IRMapping &map) {
  if (Value known = map.lookupOrNull(v))
    return known;
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != body)
    return v; // defined outside the loop
  for (Value operand : def->getOperands())
    recompute(b, operand, body, map);
  b.clone(*def, map);
  return map.lookup(v);
}

/// tile.async_copy of `load`, as the iteration whose induction variable is
/// `iv` would load it, into stage `stage` of `buffer`.
void copyAhead(OpBuilder &b, tile::LoadOp load, tile::StagedBufferAttr buffer,
               Value iv, Value stage, Value loopIv) {
  IRMapping map;
  map.map(loopIv, iv);
  Block *body = load->getBlock();
  SmallVector<Value> offsets, limits;
  for (Value o : load.getOffsets())
    offsets.push_back(recompute(b, o, body, map));
  for (Value l : load.getLimits())
    limits.push_back(recompute(b, l, body, map));
  tile::AsyncCopyOp::create(b, load.getLoc(), load.getRef(), offsets, limits,
                            stage, load.getDimsAttr(), buffer);
}

/// Whether the candidates' products may stay in flight across iterations
/// (wgmma's `pending = 1`): each accumulates onto a loop-carried value or
/// another candidate's product, and each product is read only by the loop's
/// yield or as another candidate's accumulator (so nothing in the loop
/// reads registers the tensor cores still write; tile.dot_wait completes
/// them after the loop).
bool chainsAcrossIterations(scf::ForOp loop, ArrayRef<Candidate> candidates) {
  auto isCandidateDot = [&](Operation *op) {
    return llvm::any_of(candidates,
                        [&](const Candidate &c) { return c.dot == op; });
  };
  for (Candidate c : candidates) {
    Value acc = c.dot.getAcc();
    if (!acc)
      return false;
    auto arg = dyn_cast<BlockArgument>(acc);
    bool carried = arg && arg.getOwner() == loop.getBody() &&
                   arg != loop.getInductionVar() && arg.hasOneUse();
    if (!carried && !isCandidateDot(acc.getDefiningOp()))
      return false;
    for (OpOperand &use : c.dot.getResult().getUses()) {
      Operation *user = use.getOwner();
      bool chained =
          isCandidateDot(user) && cast<tile::DotOp>(user).getAcc() == use.get();
      if (!chained && !isa<scf::YieldOp>(user))
        return false;
    }
  }
  return true;
}

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// Pipelines `loop` over `stages` stages (its candidates' buffers given).
void pipeline(
    scf::ForOp loop, ArrayRef<Candidate> candidates,
    ArrayRef<std::pair<tile::StagedBufferAttr, tile::StagedBufferAttr>> buffers,
    int64_t stages) {
  Location loc = loop.getLoc();
  Value iv = loop.getInductionVar();
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
        step = loop.getStep();
  arith::CmpIPredicate below = loop.getUnsignedCmp()
                                   ? arith::CmpIPredicate::ult
                                   : arith::CmpIPredicate::slt;
  // Copies of every candidate for the iteration at `at` into `stage`, when
  // that iteration exists; then the group is closed (empty or not, so
  // that the count of groups stays one per iteration).
  auto copyGroup = [&](OpBuilder &b, Value at, Value stage) {
    Value exists = arith::CmpIOp::create(b, loc, below, at, ub);
    auto guard = scf::IfOp::create(b, loc, exists, /*withElse=*/false);
    OpBuilder in = guard.getThenBodyBuilder();
    for (auto [c, buf] : llvm::zip(candidates, buffers)) {
      copyAhead(in, c.lhs, buf.first, at, stage, iv);
      copyAhead(in, c.rhs, buf.second, at, stage, iv);
    }
    tile::AsyncCommitOp::create(b, loc);
  };

  // wgmma reads the stages through the async proxy: the copies' writes are
  // fenced for it before the barrier. Its products may stay in flight one
  // iteration when there are stages to spare; the copies of an iteration
  // then come after its products (the file's comment).
  bool asyncProxy = llvm::any_of(
      buffers, [](const auto &pair) { return pair.first.getSwizzle() != 0; });
  bool inFlight =
      asyncProxy && stages >= 3 && chainsAcrossIterations(loop, candidates);
  int64_t distance = stages - 1;

  OpBuilder b(loop);
  for (int64_t s = 0; s < distance; ++s) {
    Value at = arith::AddIOp::create(
        b, loc, lb, arith::MulIOp::create(b, loc, step, indexConst(b, loc, s)));
    copyGroup(b, at, indexConst(b, loc, s));
  }
  // In flight, each iteration's one barrier is at its end (for the next
  // iteration's stage): the first stage's is before the loop.
  if (inFlight)
    tile::AsyncWaitOp::create(b, loc, distance - 1, /*async_proxy=*/true);

  b.setInsertionPointToStart(loop.getBody());
  if (!inFlight)
    tile::AsyncWaitOp::create(b, loc, distance - 1, asyncProxy);
  Value i = arith::DivUIOp::create(b, loc,
                                   arith::SubIOp::create(b, loc, iv, lb), step);
  Value count = indexConst(b, loc, stages);
  Value stage = arith::RemUIOp::create(b, loc, i, count);
  Value ahead = indexConst(b, loc, distance);
  Value at = arith::AddIOp::create(b, loc, iv,
                                   arith::MulIOp::create(b, loc, step, ahead));
  Value aheadStage = arith::RemUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, i, ahead), count);
  if (!inFlight)
    copyGroup(b, at, aheadStage);

  for (auto [candidate, buf] : llvm::zip(candidates, buffers)) {
    Candidate c = candidate;
    b.setInsertionPoint(c.dot);
    auto type = cast<RankedTensorType>(c.dot.getResult().getType());
    Value acc = c.dot.getAcc();
    if (!acc)
      acc = arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
    Value result = tile::StagedDotOp::create(
        b, c.dot.getLoc(), type, buf.first, buf.second, stage, acc,
        /*pending=*/inFlight ? 1 : 0,
        /*rhs_k_major=*/c.dot.getRhsTransposed());
    c.dot.replaceAllUsesWith(result);
    c.dot.erase();
    for (arith::ExtFOp widen : {c.lhsWiden, c.rhsWiden})
      if (widen)
        widen.erase();
  }
  if (inFlight) {
    // One barrier for two needs: every warpgroup's previous product is
    // complete (its stage is free for the copies that follow) and every
    // thread's copies of the next iteration's stage have landed, fenced
    // for the async proxy (S - 3 groups newer than that one may pend).
    // The copies read the loads' index arithmetic, so the loads go only
    // after them.
    b.setInsertionPoint(loop.getBody()->getTerminator());
    tile::AsyncWaitOp::create(b, loc, distance - 2, /*async_proxy=*/true);
    copyGroup(b, at, aheadStage);
  }
  for (Candidate c : candidates) {
    c.lhs.erase();
    c.rhs.erase();
  }

  // Products still in flight are complete before anything reads them or
  // the barrier below lets the workspace be reused. The accumulators'
  // initial values pass through a wait too (nothing is in flight there):
  // its registers are opaque to LLVM, which would otherwise rematerialize
  // a constant (zeros) on the path that skips the loop, after the loop in
  // the code's layout, and ptxas then serializes every wgmma of the kernel
  // for a write to accumulator registers inside a product's pipeline stage
  // (its warning C7515).
  b.setInsertionPointAfter(loop);
  if (inFlight) {
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (auto [index, value] : llvm::enumerate(yield.getOperands())) {
      if (!value.getDefiningOp<tile::StagedDotOp>())
        continue;
      Value result = loop.getResult(index);
      auto done = tile::DotWaitOp::create(b, loc, result.getType(), result);
      result.replaceAllUsesExcept(done.getResult(), done);
      OpOperand &init = loop.getInitsMutable()[index];
      OpBuilder before(loop);
      init.set(tile::DotWaitOp::create(before, loc, init.get().getType(),
                                       init.get()));
    }
  }
  tile::AsyncWaitOp::create(b, loc, 0, /*async_proxy=*/false);
}

/// Pipelines the qualifying loops of kernel `func` over `stages` stages
/// (fewer where the ring would not fit in shared memory).
void pipelineKernel(func::FuncOp func, int64_t stages, bool wgmmaEngine) {
  SmallVector<scf::ForOp> loops;
  func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
  for (scf::ForOp loop : loops) {
    SmallVector<Candidate> candidates = candidatesOf(loop, wgmmaEngine);
    if (candidates.empty())
      continue;
    // Per stage: each candidate's two tiles, 128-byte aligned.
    auto ringBytes = [&](int64_t s) {
      int64_t total = 0;
      for (const Candidate &c : candidates)
        for (tile::LoadOp load : {c.lhs, c.rhs})
          total +=
              s *
              bufferFor(load, 0, 1, onWgmma(c.dot, wgmmaEngine)).stageBytes();
      return total;
    };
    int64_t s = stages;
    while (s > 2 && ringBytes(s) > kMaxSharedBytes)
      --s;
    if (ringBytes(s) > kMaxSharedBytes) {
      candidates.front().dot.emitWarning()
          << "this matrix product's loop is not pipelined: two stages of "
             "its operand tiles take "
          << ringBytes(2) << " bytes of shared memory, more than the "
          << kMaxSharedBytes << " a CTA may have (use smaller block sizes)";
      continue;
    }
    SmallVector<std::pair<tile::StagedBufferAttr, tile::StagedBufferAttr>>
        buffers;
    int64_t offset = 0;
    for (const Candidate &c : candidates) {
      bool wgmma = onWgmma(c.dot, wgmmaEngine);
      tile::StagedBufferAttr lhs = bufferFor(c.lhs, offset, s, wgmma);
      tile::StagedBufferAttr rhs = bufferFor(c.rhs, lhs.endBytes(), s, wgmma);
      offset = rhs.endBytes();
      buffers.push_back({lhs, rhs});
      // wgmma needs sm_90a's arch-specific features (Backend.cpp).
      if (wgmma)
        func->getParentOfType<ModuleOp>()->setAttr(
            kNeedsSm90aAttr, UnitAttr::get(func.getContext()));
    }
    pipeline(loop, candidates, buffers, s);
  }
}

struct PipelineDotsPass : dslc::impl::PipelineDotsBase<PipelineDotsPass> {
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      if (func->hasAttr(tile::kKernelAttr))
        lower::markReadsAfterWrites(func);
      auto engine =
          func->getAttrOfType<tile::DotEngineAttr>(tile::kDotEngineAttr);
      if (!func->hasAttr(tile::kKernelAttr) || !engine ||
          engine.getValue() == tile::DotEngine::fma)
        return;
      bool wgmma = engine.getValue() == tile::DotEngine::wgmma;
      int64_t stages = contract::defaultNumStages(
          wgmma ? contract::DotEngine::Wgmma : contract::DotEngine::MmaSync);
      if (auto s = func->getAttrOfType<IntegerAttr>(tile::kNumStagesAttr))
        stages = s.getInt();
      if (stages >= 2)
        pipelineKernel(func, stages, wgmma);
    });
  }
};

} // namespace
