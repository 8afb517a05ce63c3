//===- ShapeLowering.cpp - tile.broadcast and tile.reshape ---------------===//
//
// A broadcast repeats unit dimensions. Where each thread already holds the
// input elements it needs at the same position whatever its group
// (TileLayout.h: rows every group holds, or rows dealt alike; a broadcast
// last dimension from a replicated input), it is one shuffle of the
// per-thread vector with a static mask (broadcastShuffle decides); else
// it goes through the shared workspace like a transpose.
//
// A transpose permutes dimensions through the shared workspace; a shift
// moves elements along one dimension the same way.
//
// A reshape keeps the row-major order. The per-thread vector is unchanged
// unless the layouts differ (the last dimension changes, the rank crosses
// 2, other rows are dealt): LayoutConversion.cpp.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/LoweringUtils.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace dslc;

namespace {

/// Row-major strides of `shape`.
SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d > 0; --d)
    strides[d - 1] = strides[d] * shape[d];
  return strides;
}

/// Goes through the shared workspace: the owners store `value` (a tile of
/// `from`) row-major, and after a bar.sync each thread loads its elements
/// of a tile of `to` from their positions by `strides` (in the order of
/// `to`'s dimensions), then bar.sync.
Value throughWorkspace(
    OpBuilder &b, Location loc, const KernelInfo &info, ArrayRef<int64_t> from,
    ArrayRef<int64_t> to, ArrayRef<int64_t> strides, Value value, Operation *op,
    std::optional<lower::ElementShift> shift = std::nullopt) {
  auto valueType = cast<VectorType>(value.getType());
  Type element = valueType.getElementType();
  bool isBool = element.isInteger(1);
  Type memElement = lower::memoryType(element);
  if (isBool)
    value = arith::ExtUIOp::create(
        b, loc, VectorType::get(valueType.getShape(), memElement), value);
  Value base = lower::sharedWorkspace(b, loc, op);
  lower::storeDistributed(b, loc, info, from, value, base);
  lower::ctaBarrier(b, loc);
  Value result = lower::loadStrided(b, loc, info, to, memElement, base, strides,
                                    /*offset=*/0, shift);
  lower::ctaBarrier(b, loc);
  if (isBool)
    result = arith::TruncIOp::create(
        b, loc,
        VectorType::get(cast<VectorType>(result.getType()).getShape(), element),
        result);
  return result;
}

struct BroadcastOpLowering : TilePattern<tile::BroadcastOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ArrayRef<int64_t> from = op.getInput().getType().getShape();
    ArrayRef<int64_t> to = op.getResult().getType().getShape();
    Value input = adaptor.getInput();
    if (from == to) {
      rewriter.replaceOp(op, input);
      return success();
    }
    if (std::optional<SmallVector<int64_t>> mask =
            broadcastShuffle(info.layout(from), info.layout(to), from, to)) {
      rewriter.replaceOpWithNewOp<vector::ShuffleOp>(op, input, input, *mask);
      return success();
    }
    SmallVector<int64_t> strides = rowMajorStrides(from);
    for (auto [d, n] : llvm::enumerate(from))
      if (n == 1)
        strides[d] = 0;
    rewriter.replaceOp(op, throughWorkspace(rewriter, op.getLoc(), info, from,
                                            to, strides, input, op));
    return success();
  }
};

struct ReshapeOpLowering : TilePattern<tile::ReshapeOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ArrayRef<int64_t> from = op.getInput().getType().getShape();
    ArrayRef<int64_t> to = op.getResult().getType().getShape();
    rewriter.replaceOp(op,
                       lower::convertLayout(rewriter, op.getLoc(), info, from,
                                            to, adaptor.getInput(), op));
    return success();
  }
};

/// A transpose goes through the shared workspace: the owners store the
/// input row-major; after a bar.sync each thread reads each element of its
/// layout of the result from the input's position (a scalar load per
/// element; padding reads the result's first element), then bar.sync.
struct TransposeOpLowering : TilePattern<tile::TransposeOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ArrayRef<int64_t> from = op.getInput().getType().getShape();
    ArrayRef<int64_t> to = op.getResult().getType().getShape();
    ArrayRef<int64_t> perm = op.getPermutation();
    // Input strides in the order of the result's dimensions.
    SmallVector<int64_t> inStride = rowMajorStrides(from), strides;
    for (int64_t p : perm)
      strides.push_back(inStride[p]);
    rewriter.replaceOp(op,
                       throughWorkspace(rewriter, op.getLoc(), info, from, to,
                                        strides, adaptor.getInput(), op));
    return success();
  }
};

/// A shift goes through the shared workspace too: each thread reads each
/// of its elements from the position one coordinate moved (or its own).
struct ShiftOpLowering : TilePattern<tile::ShiftOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::ShiftOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ArrayRef<int64_t> shape = op.getInput().getType().getShape();
    lower::ElementShift shift{static_cast<int64_t>(op.getDim()),
                              static_cast<int64_t>(op.getOffset())};
    rewriter.replaceOp(op, throughWorkspace(rewriter, op.getLoc(), info, shape,
                                            shape, rowMajorStrides(shape),
                                            adaptor.getInput(), op, shift));
    return success();
  }
};

} // namespace

void dslc::populateShapeLoweringPatterns(TileTypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<BroadcastOpLowering, ReshapeOpLowering, TransposeOpLowering,
               ShiftOpLowering>(converter, patterns.getContext());
}
