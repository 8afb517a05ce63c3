//===- SplitWideDots.cpp - a matrix product over a whole operand, in K chunks //
//
// Helion's se_block multiplies a row tile by a whole weight matrix
// (`x[tile_m, :] @ w[:, :]`): the [K, N] operand is one tile, far more
// than one CTA's registers hold, and Helion (through Triton) compiles it
// as written. A dot whose operand is a load (possibly converted) too big
// for the registers is computed here as a loop over chunks of K: each
// iteration loads both operands' K-chunk at its offset and accumulates a
// product in f32, onto the dot's own accumulator (zero when it has none);
// a result of a narrower type is rounded once after the loop. tile.dot's
// meaning (a chain of f32 FMAs in order of increasing k from the
// accumulator, rounded once) makes the loop compute the same values. The
// chunk divides K, so every chunk stays inside the slice the load read;
// elements past the load's limits are zeros, as before. A load is repeated
// only from the dot's block with nothing between it and the dot that may
// write what it read (lower::mayClobber, as RollReductions).
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/LoweringUtils.h"
#include "compiler/Conversion/Passes.h"
#include "compiler/Limits.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

namespace dslc {
#define GEN_PASS_DEF_SPLITWIDEDOTS
#include "compiler/Conversion/Passes.h.inc"
} // namespace dslc

using namespace mlir;
using namespace dslc;

namespace {

/// Elements a thread holds of a chunk operand at most (half the register
/// budget: both operands and the accumulator share it).
constexpr int64_t kChunkElementsPerThread = kMaxElementsPerThread / 2;
/// The widest K chunk (a tensor-core k-step is 16; 64 is the usual block).
constexpr int64_t kMaxChunk = 64;

/// Whether `op` only converts its one operand's elements (the operand of a
/// product as `.to(...)` leaves it).
bool isConversion(Operation *op) {
  return isa<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp, arith::UIToFPOp>(
      op);
}

/// The load `v` is (through conversions) when a chunk of it can be loaded
/// anew at `at`: its masked elements are zeros, and it is in `at`'s block
/// with nothing between them that may write what it read.
tile::LoadOp reloadableLoad(Value v, Operation *at) {
  Operation *op = v.getDefiningOp();
  while (op && isConversion(op))
    op = op->getOperand(0).getDefiningOp();
  auto load = dyn_cast_or_null<tile::LoadOp>(op);
  if (!load || load->getBlock() != at->getBlock())
    return nullptr;
  if (auto other = load.getOtherAttr();
      other && !matchPattern(other, m_AnyZeroFloat()) &&
      !matchPattern(other, m_Zero()))
    return nullptr;
  for (Operation *o = load->getNextNode(); o != at; o = o->getNextNode())
    if (lower::mayClobber(o, load))
      return nullptr;
  return load;
}

/// `v` (a reloadable load, through conversions) for the `chunk` elements
/// from `k0` along tensor dimension `dim`.
Value chunkOf(OpBuilder &b, Value v, unsigned dim, Value k0, int64_t chunk) {
  Operation *op = v.getDefiningOp();
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = chunk;
  Location loc = op->getLoc();
  if (auto load = dyn_cast<tile::LoadOp>(op)) {
    SmallVector<Value> offsets(load.getOffsets());
    int64_t refDim = load.getDims()[dim];
    offsets[refDim] = arith::AddIOp::create(b, loc, offsets[refDim], k0);
    return tile::LoadOp::create(b, loc, type.clone(shape), load.getRef(),
                                offsets, load.getLimits(), load.getDimsAttr(),
                                load.getOtherAttr(), load.getEvictAttr());
  }
  Value in = chunkOf(b, op->getOperand(0), dim, k0, chunk);
  Operation *copy = b.clone(*op);
  copy->setOperand(0, in);
  copy->getResult(0).setType(type.clone(shape));
  return copy->getResult(0);
}

/// Erases `v`'s defining op and the conversions and load under it that
/// nothing else uses any more.
void eraseDead(Value v) {
  Operation *op = v.getDefiningOp();
  while (op && op->use_empty()) {
    Value in = isConversion(op) ? op->getOperand(0) : Value();
    op->erase();
    op = in ? in.getDefiningOp() : nullptr;
  }
}

/// The K chunk for a product of [M, K] x [K, N] in a CTA of `threads`
/// threads: the widest power of two up to kMaxChunk that divides K and
/// keeps each operand chunk within kChunkElementsPerThread; 0 if none.
int64_t chooseChunk(int64_t m, int64_t k, int64_t n, int64_t threads) {
  for (int64_t c = kMaxChunk; c >= 1; c /= 2)
    if (k % c == 0 && c < k && m * c <= kChunkElementsPerThread * threads &&
        c * n <= kChunkElementsPerThread * threads)
      return c;
  return 0;
}

/// Rewrites `dot` as the loop over K chunks (the file's comment), when an
/// operand is too big for the registers and both can be reloaded by chunk.
void split(tile::DotOp dot, int64_t threads) {
  auto lhsType = cast<RankedTensorType>(dot.getLhs().getType());
  auto rhsType = cast<RankedTensorType>(dot.getRhs().getType());
  if (lhsType.getRank() != 2 || rhsType.getRank() != 2 ||
      !lhsType.hasStaticShape() || !rhsType.hasStaticShape())
    return;
  int64_t m = lhsType.getDimSize(0), k = lhsType.getDimSize(1),
          n = rhsType.getDimSize(1);
  int64_t budget = kMaxElementsPerThread * threads;
  if (m * k <= budget && k * n <= budget)
    return;
  if (!reloadableLoad(dot.getLhs(), dot) || !reloadableLoad(dot.getRhs(), dot))
    return;
  int64_t chunk = chooseChunk(m, k, n, threads);
  if (chunk == 0)
    return;

  OpBuilder b(dot);
  Location loc = dot.getLoc();
  auto resultType = cast<RankedTensorType>(dot.getResult().getType());
  auto accType = resultType.clone(b.getF32Type());
  Value init = dot.getAcc();
  if (!init)
    init = arith::ConstantOp::create(b, loc, accType, b.getZeroAttr(accType));
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  auto loop = scf::ForOp::create(b, loc, index(0), index(k), index(chunk),
                                 ValueRange{init});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value k0 = loop.getInductionVar();
    Value lhs = chunkOf(b, dot.getLhs(), 1, k0, chunk);
    Value rhs = chunkOf(b, dot.getRhs(), 0, k0, chunk);
    Value validK;
    if (Value valid = dot.getValidK()) {
      // the chunk's share of the valid positions: clamp(valid - k0, 0, c)
      Value left = arith::SubIOp::create(b, loc, valid, k0);
      validK = arith::MinSIOp::create(
          b, loc,
          arith::MaxSIOp::create(b, loc, left,
                                 arith::ConstantIndexOp::create(b, loc, 0)),
          arith::ConstantIndexOp::create(b, loc, chunk));
    }
    Value part = tile::DotOp::create(b, loc, accType, lhs, rhs,
                                     loop.getRegionIterArgs()[0], validK);
    scf::YieldOp::create(b, loc, part);
  }
  Value result = loop.getResult(0);
  if (resultType != accType)
    result = arith::TruncFOp::create(b, loc, resultType, result);
  Value lhs = dot.getLhs(), rhs = dot.getRhs();
  dot.getResult().replaceAllUsesWith(result);
  dot.erase();
  eraseDead(lhs);
  eraseDead(rhs);
}

struct SplitWideDotsPass
    : public dslc::impl::SplitWideDotsBase<SplitWideDotsPass> {
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      if (!func->hasAttr(tile::kKernelAttr))
        return;
      int64_t threads = lower::kernelThreads(func);
      SmallVector<tile::DotOp> dots;
      func.walk([&](tile::DotOp dot) { dots.push_back(dot); });
      for (tile::DotOp dot : dots)
        split(dot, threads);
    });
  }
};

} // namespace
