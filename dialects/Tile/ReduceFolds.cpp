//===- ReduceFolds.cpp - tile.reduce canonicalization ---------------------===//
//
// Counting the indices of a tile below a bound, Helion's spelling of a
// tile's valid length (`(tile_n.index < n).to(torch.int32).sum()`, its
// welford example), is a sum over a mask computed element by element: an
// add, a compare, a widening and a masked add an element (in i64 after
// torch's promotion), a third of welford's first loop. It is a clamp of
// the bound minus the tile's begin: `clamp(n - s, 0, valid)`.
//
// A `valid` count that is a constant at least the reduced extent (a
// compiled-in row length the block divides) masks nothing: it is dropped,
// so the lowering emits no compare and select an element.
//
//===----------------------------------------------------------------------===//

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace dslc::tile;

namespace {

/// The scalar `s` of `splat(s)`, else null.
Value splatValue(Value v) {
  auto splat = v.getDefiningOp<SplatOp>();
  return splat ? splat.getValue() : Value();
}

/// The begin `s` of an index tile `iota + splat(s)` (or `splat(s) + iota`;
/// a constant 0 for `iota` alone), else null.
Value indexBegin(Value v, PatternRewriter &rewriter) {
  if (auto iota = v.getDefiningOp<IotaOp>())
    return arith::ConstantOp::create(
        rewriter, iota.getLoc(),
        rewriter.getIntegerAttr(getElementTypeOrSelf(v.getType()), 0));
  auto add = v.getDefiningOp<arith::AddIOp>();
  if (!add)
    return Value();
  if (add.getLhs().getDefiningOp<IotaOp>())
    return splatValue(add.getRhs());
  if (add.getRhs().getDefiningOp<IotaOp>())
    return splatValue(add.getLhs());
  return Value();
}

/// `a pred b` as `b mirrored(pred) a`, for the signed orderings.
arith::CmpIPredicate mirrored(arith::CmpIPredicate pred) {
  switch (pred) {
  case arith::CmpIPredicate::slt:
    return arith::CmpIPredicate::sgt;
  case arith::CmpIPredicate::sgt:
    return arith::CmpIPredicate::slt;
  case arith::CmpIPredicate::sle:
    return arith::CmpIPredicate::sge;
  case arith::CmpIPredicate::sge:
    return arith::CmpIPredicate::sle;
  default:
    return pred;
  }
}

/// `sum(ext(cmpi(pred, iota + splat(s), splat(n))), 0 valid v)` over a 1-d
/// tile of E elements (either operand order; ext a chain of widenings whose
/// first is an `extui` of the i1 mask): the number of i in [0, min(E, v))
/// with `pred(i + s, n)`, computed as a clamp of `n - s` in 64 bits.
/// Signed predicates only (torch's comparisons of int32/int64 indices).
/// Exact where `i + s` does not wrap in the index tile's type (MLIRGen's
/// int32 `tile.index` of a dimension below 2^31 - E); where it would wrap
/// the element-wise count was wrong and this one is the intended count.
struct CountIndicesBelow : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType input = op.getInput().getType();
    auto resultInt = dyn_cast<IntegerType>(input.getElementType());
    if (op.getKind() != ReduceKind::sum || input.getRank() != 1 || !resultInt ||
        resultInt.getWidth() > 64 || resultInt.getWidth() < 2)
      return failure();
    // The widening chain down to the i1 mask.
    Operation *def = op.getInput().getDefiningOp();
    while (isa_and_nonnull<arith::ExtSIOp, arith::ExtUIOp>(def) &&
           !getElementTypeOrSelf(def->getOperand(0).getType()).isInteger(1))
      def = def->getOperand(0).getDefiningOp();
    auto zext = dyn_cast_or_null<arith::ExtUIOp>(def);
    if (!zext)
      return failure();
    auto cmp = zext.getIn().getDefiningOp<arith::CmpIOp>();
    if (!cmp)
      return failure();
    arith::CmpIPredicate pred = cmp.getPredicate();
    Value bound = splatValue(cmp.getRhs());
    Value index = cmp.getLhs();
    if (!bound) { // `n pred index`: the index on the left, mirrored
      bound = splatValue(cmp.getLhs());
      index = cmp.getRhs();
      pred = mirrored(pred);
    }
    auto indexInt =
        dyn_cast<IntegerType>(getElementTypeOrSelf(index.getType()));
    if (!bound || !indexInt || indexInt.getWidth() > 64)
      return failure();
    bool below =
        pred == arith::CmpIPredicate::slt || pred == arith::CmpIPredicate::sle;
    bool above =
        pred == arith::CmpIPredicate::sgt || pred == arith::CmpIPredicate::sge;
    if (!below && !above)
      return failure();
    rewriter.setInsertionPoint(op);
    Value begin = indexBegin(index, rewriter);
    if (!begin)
      return failure();
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    auto wide = [&](Value x) -> Value {
      if (x.getType() == i64)
        return x;
      if (x.getType().isIndex())
        return arith::IndexCastOp::create(rewriter, loc, i64, x);
      return arith::ExtSIOp::create(rewriter, loc, i64, x);
    };
    auto constant = [&](int64_t c) -> Value {
      return arith::ConstantIntOp::create(rewriter, loc, i64, c);
    };
    auto clamp = [&](Value x, Value hi) -> Value {
      return arith::MaxSIOp::create(
          rewriter, loc, arith::MinSIOp::create(rewriter, loc, x, hi),
          constant(0));
    };
    // Positions counted: [0, min(E, valid)).
    Value extent = constant(input.getDimSize(0));
    if (Value valid = op.getValid())
      extent = clamp(wide(valid), extent);
    // i + s < n  <=>  i < n - s;  i + s <= n  <=>  i < n - s + 1.
    Value gap = arith::SubIOp::create(rewriter, loc, wide(bound), wide(begin));
    bool inclusive =
        pred == arith::CmpIPredicate::sle || pred == arith::CmpIPredicate::sgt;
    if (inclusive)
      gap = arith::AddIOp::create(rewriter, loc, gap, constant(1));
    Value count = clamp(gap, extent);
    if (above) // i + s > n is the complement of i + s <= n (>= of <)
      count = arith::SubIOp::create(rewriter, loc, extent, count);
    if (resultInt != i64)
      count = arith::TruncIOp::create(rewriter, loc, resultInt, count);
    Value result = count;
    if (auto tensor = dyn_cast<RankedTensorType>(op.getResult().getType()))
      result = SplatOp::create(rewriter, loc, tensor, count);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// `reduce ... valid c` with a constant c >= the reduced extent: the
/// reduction without `valid`.
struct DropWholeValid : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    Value valid = op.getValid();
    APInt count;
    if (!valid || !matchPattern(valid, m_ConstantInt(&count)))
      return failure();
    int64_t extent = op.getInput().getType().getDimSize(op.getDim());
    if (ShapedType::isDynamic(extent) || count.getSExtValue() < extent)
      return failure();
    rewriter.modifyOpInPlace(op, [&] { op.getValidMutable().clear(); });
    return success();
  }
};

} // namespace

void ReduceOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<CountIndicesBelow, DropWholeValid>(context);
}
