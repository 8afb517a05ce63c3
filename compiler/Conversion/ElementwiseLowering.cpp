//===- ElementwiseLowering.cpp - arith/math on tiles, per thread ---------===//
//
// Tile arithmetic is arith/math on ranked tensors. Every thread holds the
// same positions of every tile of one shape (TileLayout.h), so an
// elementwise op on tiles is the same op on the per-thread vectors.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace dslc;

namespace {

bool isElementwiseDialect(Operation *op) {
  return isa<arith::ArithDialect, math::MathDialect>(op->getDialect());
}

struct ElementwiseOpLowering : ConversionPattern {
  ElementwiseOpLowering(TileTypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isElementwiseDialect(op) || op->getNumRegions() != 0)
      return failure();
    // Splat constants become splat vectors.
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
      if (!dense)
        return failure();
      if (!dense.isSplat())
        return rewriter.notifyMatchFailure(
            op, "only splat tile constants can be distributed");
      auto type =
          cast<ShapedType>(getTypeConverter()->convertType(constant.getType()));
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(
          op, DenseElementsAttr::get(type, dense.getSplatValue<Attribute>()));
      return success();
    }
    SmallVector<Type> resultTypes;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(),
                                                resultTypes)))
      return failure();
    OperationState state(op->getLoc(), op->getName().getStringRef(), operands,
                         resultTypes, op->getAttrs());
    Operation *converted = rewriter.create(state);
    rewriter.replaceOp(op, converted->getResults());
    return success();
  }
};

} // namespace

void dslc::populateElementwiseLoweringPatterns(TileTypeConverter &converter,
                                               RewritePatternSet &patterns) {
  patterns.add<ElementwiseOpLowering>(converter, patterns.getContext());
}
