//===- SplitJoinAtMemory.cpp - hl.split / hl.join of halves in memory -----===//
//
// -dslc-split-join-at-memory (Passes.td). Helion's rotary embedding (and
// any "rotate half" kernel) pairs the two halves of a row with
//
//   x[..., :].reshape([..., 2, h]).permute(..., -1, -2)   # [..., h, 2]
//   first, second = hl.split(pair)                      # [..., h] each
//   out[..., :] = hl.join(a, b).permute(..., -1, -2).reshape([..., 2 * h])
//
// MLIRGen writes hl.split as a sum over the last dimension of 2 of the
// pair masked by `iota == c`, and hl.join as a select between the two
// broadcast along it. Held per thread, the transposes move every element
// through shared memory (rope at [1, 2] tokens: 74 barriers, 255
// registers, 2.8x a copy's time on an H100). But when the pair comes from
// a load (through element-wise casts) half c is just the load of the
// row's c-th half, and a join that is stored is two stores of halves: this
// pass rewrites
//
//   reduce sum (select(iota == c, transpose(reshape(casts(load))), 0))
//     -> casts(load of the elements [c * h, c * h + h) of the row)
//   store(casts(reshape(transpose(select(iota == c, bcast(a), bcast(b))))))
//     -> store(casts(a)) at c * h, store(casts(b)) at (1 - c) * h
//
// with the load's and store's limits kept (a masked tail stays masked
// element by element). The split is exact where the sum is not quite
// (-0.0 + 0.0 is +0.0). A pair with other users keeps its load (the split
// is left alone) so no byte is read twice.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/Passes.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dslc {
#define GEN_PASS_DEF_SPLITJOINATMEMORY
#include "compiler/Conversion/Passes.h.inc"
} // namespace dslc

using namespace mlir;
using namespace dslc;

namespace {

RankedTensorType tensorOf(Value v) {
  return dyn_cast<RankedTensorType>(v.getType());
}

/// Whether `perm` swaps the last two of its dimensions and keeps the rest.
bool swapsLastTwo(ArrayRef<int64_t> perm) {
  int64_t n = perm.size();
  if (n < 2 || perm[n - 1] != n - 2 || perm[n - 2] != n - 1)
    return false;
  for (int64_t i = 0; i + 2 < n; ++i)
    if (perm[i] != i)
      return false;
  return true;
}

/// The index c when `mask` is `iota == c` along the last dimension, of 2,
/// (a 1-d iota reshaped to [1, ..., 1, 2] and broadcast), else nullopt.
std::optional<int64_t> halfSelected(Value mask) {
  auto cmp = mask.getDefiningOp<arith::CmpIOp>();
  if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::eq)
    return std::nullopt;
  Value index = cmp.getLhs();
  APInt c;
  if (!matchPattern(cmp.getRhs(), m_ConstantInt(&c))) {
    index = cmp.getRhs();
    if (!matchPattern(cmp.getLhs(), m_ConstantInt(&c)))
      return std::nullopt;
  }
  if (auto b = index.getDefiningOp<tile::BroadcastOp>())
    index = b.getInput();
  if (auto r = index.getDefiningOp<tile::ReshapeOp>()) {
    RankedTensorType t = tensorOf(r.getResult());
    if (!t || t.getRank() < 1 || t.getShape().back() != 2 ||
        t.getNumElements() != 2)
      return std::nullopt;
    index = r.getInput();
  }
  auto iota = index.getDefiningOp<tile::IotaOp>();
  if (!iota || tensorOf(iota.getResult()).getNumElements() != 2 ||
      c.getZExtValue() > 1)
    return std::nullopt;
  return static_cast<int64_t>(c.getZExtValue());
}

/// Whether `op` is an element-wise op of one tile (a cast, a negation) that
/// a half of the tile can take in its place.
bool isElementwiseCast(Operation *op) {
  return op && op->getNumOperands() == 1 && op->getNumResults() == 1 &&
         op->hasTrait<OpTrait::Elementwise>() &&
         isa<RankedTensorType>(op->getOperand(0).getType());
}

/// h when `halves` is `whole` [..., 2h] with its last dimension split in
/// two: [..., 2, h]; else nullopt.
std::optional<int64_t> halfWidth(RankedTensorType whole,
                                 RankedTensorType halves) {
  int64_t n = halves ? halves.getRank() : 0;
  if (!whole || n < 2 || whole.getRank() != n - 1 ||
      halves.getShape()[n - 2] != 2 ||
      whole.getShape().back() != 2 * halves.getShape().back() ||
      whole.getShape().drop_back() != halves.getShape().drop_back(2))
    return std::nullopt;
  return halves.getShape().back();
}

/// The element-wise casts from a tile.load to `v` (outermost last) and the
/// load, when `v` is one (each with one use); else a null load.
tile::LoadOp castsOfLoad(Value v, SmallVectorImpl<Operation *> &casts) {
  while (true) {
    if (auto load = v.getDefiningOp<tile::LoadOp>())
      return load.getResult().hasOneUse() ? load : tile::LoadOp();
    Operation *op = v.getDefiningOp();
    if (!isElementwiseCast(op) || !op->getResult(0).hasOneUse())
      return tile::LoadOp();
    casts.insert(casts.begin(), op);
    v = op->getOperand(0);
  }
}

/// `op`'s casts applied to `v` again, at `v`'s shape.
Value applyCasts(PatternRewriter &rewriter, ArrayRef<Operation *> casts,
                 Value v) {
  for (Operation *op : casts) {
    IRMapping map;
    map.map(op->getOperand(0), v);
    Operation *copy = rewriter.clone(*op, map);
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    copy->getResult(0).setType(
        RankedTensorType::get(tensorOf(v).getShape(), type.getElementType()));
    v = copy->getResult(0);
  }
  return v;
}

/// `offsets` with `delta` added at ref dimension `dim`.
SmallVector<Value> shifted(PatternRewriter &rewriter, Location loc,
                           ValueRange offsets, int64_t dim, int64_t delta) {
  SmallVector<Value> out(offsets.begin(), offsets.end());
  if (delta != 0)
    out[dim] = arith::AddIOp::create(
        rewriter, loc, out[dim],
        arith::ConstantIndexOp::create(rewriter, loc, delta));
  return out;
}

/// The pair [..., h, 2] a split reads: transpose(reshape(x [..., 2h])).
/// Returns the reshape's input and h, or a null value.
std::pair<Value, int64_t> pairSource(Value pair) {
  auto tr = pair.getDefiningOp<tile::TransposeOp>();
  if (!tr || !swapsLastTwo(tr.getPermutation()))
    return {};
  auto rs = tr.getInput().getDefiningOp<tile::ReshapeOp>();
  if (!rs || !rs.getResult().hasOneUse())
    return {};
  std::optional<int64_t> h =
      halfWidth(tensorOf(rs.getInput()), tensorOf(rs.getResult()));
  if (!h)
    return {};
  return {rs.getInput(), *h};
}

/// The half (0 or 1) `select` takes of its pair, when it is a split's
/// masked pair: select(iota == c, pair, 0) takes c, select(iota == c, 0,
/// pair) takes 1 - c; and its one user is a sum over the last dimension.
std::optional<int64_t> splitHalf(arith::SelectOp select, Value pair) {
  if (!select.getResult().hasOneUse())
    return std::nullopt;
  auto reduce = dyn_cast<tile::ReduceOp>(*select.getResult().user_begin());
  RankedTensorType t = tensorOf(pair);
  if (!reduce || !t || reduce.getKind() != tile::ReduceKind::sum ||
      reduce.getValid() || reduce.getDim() != uint64_t(t.getRank() - 1))
    return std::nullopt;
  std::optional<int64_t> c = halfSelected(select.getCondition());
  if (!c)
    return std::nullopt;
  auto zero = [](Value v) {
    return matchPattern(v, m_AnyZeroFloat()) || matchPattern(v, m_Zero());
  };
  if (select.getTrueValue() == pair && zero(select.getFalseValue()))
    return *c;
  if (select.getFalseValue() == pair && zero(select.getTrueValue()))
    return 1 - *c;
  return std::nullopt;
}

/// reduce sum (select(iota == c, transpose(reshape(casts(load))), 0)) ->
/// casts(load of half c).
struct SplitOfLoad : OpRewritePattern<tile::ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::ReduceOp reduce,
                                PatternRewriter &rewriter) const override {
    auto select = reduce.getInput().getDefiningOp<arith::SelectOp>();
    if (!select)
      return failure();
    Value pair = select.getTrueValue();
    if (!pair.getDefiningOp<tile::TransposeOp>())
      pair = select.getFalseValue();
    auto [row, h] = pairSource(pair);
    if (!row)
      return failure();
    std::optional<int64_t> half = splitHalf(select, pair);
    if (!half)
      return failure();
    // Every user of the pair is a split: then the whole row dies and no
    // element is loaded twice.
    for (Operation *user : pair.getUsers()) {
      auto other = dyn_cast<arith::SelectOp>(user);
      if (!other || !splitHalf(other, pair))
        return failure();
    }
    SmallVector<Operation *> casts;
    tile::LoadOp load = castsOfLoad(row, casts);
    if (!load)
      return failure();
    // The sum's result: the half [..., h], or its keepdim [..., h, 1].
    auto want = dyn_cast<RankedTensorType>(reduce.getResult().getType());
    if (!want || want.getNumElements() != tensorOf(row).getNumElements() / 2)
      return failure();
    Location loc = reduce.getLoc();
    // The half is read where the row was: a store between the row's load
    // and the split must not be seen.
    rewriter.setInsertionPointAfter(load);
    RankedTensorType loaded = tensorOf(load.getResult());
    SmallVector<int64_t> shape(loaded.getShape());
    shape.back() = h;
    int64_t refDim = load.getDims().back();
    auto halfLoad = tile::LoadOp::create(
        rewriter, loc, RankedTensorType::get(shape, loaded.getElementType()),
        load.getRef(),
        shifted(rewriter, loc, load.getOffsets(), refDim, *half * h),
        load.getLimits(), load.getDims(), load.getOtherAttr(),
        load.getEvictAttr());
    Value v = applyCasts(rewriter, casts, halfLoad.getResult());
    if (v.getType() != want)
      v = tile::ReshapeOp::create(rewriter, loc, want, v);
    rewriter.replaceOp(reduce, v);
    return success();
  }
};

/// The [..., h, 1] tile a join's operand broadcasts along the last
/// dimension (broadcast to [..., h, 2]), or a null value.
Value joinOperand(Value v) {
  auto b = v.getDefiningOp<tile::BroadcastOp>();
  if (!b)
    return {};
  RankedTensorType in = tensorOf(b.getInput()), out = tensorOf(v);
  if (!in || in.getShape().back() != 1 ||
      in.getShape().drop_back() != out.getShape().drop_back())
    return {};
  return b.getInput();
}

/// `x` [..., h, 1] as [..., h] (the tile it was reshaped from, if any).
Value dropUnitDim(PatternRewriter &rewriter, Location loc, Value x) {
  RankedTensorType t = tensorOf(x);
  if (auto r = x.getDefiningOp<tile::ReshapeOp>())
    if (tensorOf(r.getInput()).getShape() == t.getShape().drop_back())
      return r.getInput();
  return tile::ReshapeOp::create(
      rewriter, loc,
      RankedTensorType::get(t.getShape().drop_back(), t.getElementType()), x);
}

/// store(casts(reshape(transpose(select(iota == c, bcast(a), bcast(b)))))) ->
/// store(casts(a)) at half c, store(casts(b)) at half 1 - c.
struct JoinToStore : OpRewritePattern<tile::StoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tile::StoreOp store,
                                PatternRewriter &rewriter) const override {
    SmallVector<Operation *> casts;
    Value v = store.getValue();
    while (Operation *op = v.getDefiningOp()) {
      if (isa<tile::ReshapeOp>(op))
        break;
      if (!isElementwiseCast(op))
        return failure();
      casts.insert(casts.begin(), op);
      v = op->getOperand(0);
    }
    auto rs = v.getDefiningOp<tile::ReshapeOp>();
    if (!rs)
      return failure();
    auto tr = rs.getInput().getDefiningOp<tile::TransposeOp>();
    if (!tr || !swapsLastTwo(tr.getPermutation()))
      return failure();
    std::optional<int64_t> h =
        halfWidth(tensorOf(rs.getResult()), tensorOf(rs.getInput()));
    if (!h)
      return failure();
    auto select = tr.getInput().getDefiningOp<arith::SelectOp>();
    if (!select)
      return failure();
    std::optional<int64_t> c = halfSelected(select.getCondition());
    if (!c)
      return failure();
    Value first = joinOperand(select.getTrueValue());
    Value second = joinOperand(select.getFalseValue());
    if (!first || !second)
      return failure();
    Location loc = store.getLoc();
    int64_t refDim = store.getDims().back();
    for (auto [x, half] : {std::pair{first, *c}, std::pair{second, 1 - *c}}) {
      Value value = applyCasts(rewriter, casts, dropUnitDim(rewriter, loc, x));
      tile::StoreOp::create(
          rewriter, loc, value, store.getRef(),
          shifted(rewriter, loc, store.getOffsets(), refDim, half * *h),
          store.getLimits(), store.getDims());
    }
    rewriter.eraseOp(store);
    return success();
  }
};

struct SplitJoinAtMemoryPass
    : dslc::impl::SplitJoinAtMemoryBase<SplitJoinAtMemoryPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SplitOfLoad, JoinToStore>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
