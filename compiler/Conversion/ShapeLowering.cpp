//===- ShapeLowering.cpp - tile.broadcast and tile.reshape ---------------===//
//
// A broadcast repeats unit dimensions. Each thread already holds the input
// elements it needs (TileLayout.h): a leading dimension other than the
// first is held whole; a first dimension is dealt over the groups alike in
// input and output, or is 1 in the input (held by every group); and a
// broadcast last dimension comes from a replicated input. So a broadcast
// is one shuffle of the per-thread vector with a static mask.
//
// A transpose permutes dimensions through the shared workspace.
//
// A reshape inserts or removes unit dimensions. The per-thread vector is
// unchanged unless the layouts differ (the last dimension goes from > 1 to
// 1 or back, the rank crosses 2, another first dimension is dealt):
// LayoutConversion.cpp.
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

/// Row `o` of the result's leading dimensions `to` as a row of the input's
/// leading dimensions `from` (same rank; a unit input dimension is index 0).
int64_t sourceRow(int64_t o, ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  SmallVector<int64_t> coords(to.size());
  for (int64_t k = to.size() - 1; k >= 0; --k) {
    coords[k] = o % to[k];
    o /= to[k];
  }
  int64_t row = 0;
  for (size_t k = 0; k < from.size(); ++k)
    row = row * from[k] + (from[k] == 1 ? 0 : coords[k]);
  return row;
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
    TileLayout in = info.layout(from), out = info.layout(to);
    // The dimensions between the first and the last.
    ArrayRef<int64_t> fromMiddle, toMiddle;
    if (from.size() >= 2) {
      fromMiddle = from.drop_front().drop_back();
      toMiddle = to.drop_front().drop_back();
    }
    SmallVector<int64_t> mask;
    for (int64_t o = 0; o < out.outer; ++o) {
      // Row o holds the output's r0-th first index of this thread; the
      // input holds the same one, or its only one.
      int64_t r0 = o / out.rest;
      int64_t row = (in.dim0 == 1 ? 0 : r0) * in.rest +
                    sourceRow(o % out.rest, fromMiddle, toMiddle);
      for (int64_t c = 0; c < out.chunks; ++c)
        for (int64_t v = 0; v < out.vec; ++v)
          // A replicated input holds its row's one element; otherwise the
          // last dimensions are equal and so are the layouts of a row.
          mask.push_back(in.replicated ? row : in.position(row, c, v));
    }
    rewriter.replaceOpWithNewOp<vector::ShuffleOp>(op, input, input, mask);
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
    Location loc = op.getLoc();
    ArrayRef<int64_t> from = op.getInput().getType().getShape();
    ArrayRef<int64_t> to = op.getResult().getType().getShape();
    ArrayRef<int64_t> perm = op.getPermutation();
    Value value = adaptor.getInput();
    auto valueType = cast<VectorType>(value.getType());
    Type element = valueType.getElementType();
    bool isBool = element.isInteger(1);
    Type memElement = lower::memoryType(element);
    if (isBool)
      value = arith::ExtUIOp::create(
          rewriter, loc, VectorType::get(valueType.getShape(), memElement),
          value);
    Value base = lower::sharedWorkspace(rewriter, loc, op);
    lower::storeDistributed(rewriter, loc, info, from, value, base);
    lower::ctaBarrier(rewriter, loc);
    // Input strides in the order of the result's dimensions.
    int64_t rank = from.size();
    SmallVector<int64_t> inStride(rank, 1), stride(rank);
    for (int64_t d = rank - 1; d > 0; --d)
      inStride[d - 1] = inStride[d] * from[d];
    for (int64_t k = 0; k < rank; ++k)
      stride[k] = inStride[perm[k]];
    TileLayout layout = info.layout(to);
    auto [lane, group] = lower::laneAndGroup(rewriter, loc, layout);
    auto i64 = [&](int64_t v) { return lower::i64(rewriter, loc, v); };
    SmallVector<Value> elements;
    for (int64_t o = 0; o < layout.outer; ++o) {
      // The row's indices along the result's leading dimensions.
      Value row = lower::rowInBounds(rewriter, loc, layout, o, group);
      SmallVector<Value> j(rank);
      for (int64_t k = rank - 2; k >= 0; --k) {
        j[k] = arith::RemUIOp::create(rewriter, loc, row, i64(to[k]));
        row = arith::DivUIOp::create(rewriter, loc, row, i64(to[k]));
      }
      Value rowOffset = i64(0);
      for (int64_t k = 0; k + 1 < rank; ++k)
        rowOffset = arith::AddIOp::create(
            rewriter, loc, rowOffset,
            arith::MulIOp::create(rewriter, loc, j[k], i64(stride[k])));
      for (int64_t c = 0; c < layout.chunks; ++c)
        for (int64_t v = 0; v < layout.vec; ++v) {
          Value column =
              layout.replicated
                  ? i64(0)
                  : arith::AddIOp::create(
                        rewriter, loc,
                        arith::MulIOp::create(
                            rewriter, loc,
                            arith::AddIOp::create(
                                rewriter, loc, lane,
                                i64(c * layout.rowThreads)),
                            i64(layout.vec)),
                        i64(v))
                        .getResult();
          column = arith::MinUIOp::create(rewriter, loc, column,
                                          i64(layout.inner - 1));
          Value linear = arith::AddIOp::create(
              rewriter, loc, rowOffset,
              arith::MulIOp::create(rewriter, loc, column,
                                    i64(stride[rank - 1])));
          elements.push_back(LLVM::LoadOp::create(
              rewriter, loc, memElement,
              lower::elementPtr(rewriter, loc, base, memElement, linear),
              memElement.getIntOrFloatBitWidth() / 8));
        }
    }
    lower::ctaBarrier(rewriter, loc);
    Value result = vector::FromElementsOp::create(
        rewriter, loc, VectorType::get({layout.perThread()}, memElement),
        elements);
    if (isBool)
      result = arith::TruncIOp::create(
          rewriter, loc, VectorType::get({layout.perThread()}, element),
          result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void dslc::populateShapeLoweringPatterns(TileTypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<BroadcastOpLowering, ReshapeOpLowering, TransposeOpLowering>(
      converter, patterns.getContext());
}
