//===- ShapeLowering.cpp - tile.broadcast and tile.reshape ---------------===//
//
// A broadcast repeats unit dimensions. Each thread already holds the input
// elements it needs (TileLayout.h): a leading dimension other than the
// first is held whole; a first dimension is dealt over the groups alike in
// input and output, or is 1 in the input (held by every group); and a
// broadcast last dimension comes from a replicated input. So a broadcast
// is one shuffle of the per-thread vector with a static mask.
//
// A reshape inserts or removes unit dimensions. The per-thread vector is
// unchanged unless the layouts differ (the last dimension goes from > 1 to
// 1 or back, the rank crosses 2, another first dimension is dealt):
// LayoutConversion.cpp.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/LoweringUtils.h"

#include "dialects/Tile/TileDialect.h"

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

} // namespace

void dslc::populateShapeLoweringPatterns(TileTypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<BroadcastOpLowering, ReshapeOpLowering>(converter,
                                                       patterns.getContext());
}
