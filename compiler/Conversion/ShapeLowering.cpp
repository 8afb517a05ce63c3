//===- ShapeLowering.cpp - tile.broadcast and tile.reshape ---------------===//
//
// A broadcast repeats unit dimensions. Each thread already holds the input
// elements it needs (TileLayout.h): a leading dimension is held whole, and
// a broadcast last dimension comes from a replicated input. So a broadcast
// is one shuffle of the per-thread vector with a static mask.
//
// A reshape inserts or removes unit dimensions. The per-thread vector is
// unchanged unless the last dimension goes from > 1 to 1 (distributed to
// replicated: a gather through the shared workspace) or from 1 to > 1
// (replicated to distributed: a local selection), LayoutConversion.cpp.
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
    ArrayRef<int64_t> fromLeading = from.drop_back();
    ArrayRef<int64_t> toLeading = to.drop_back();
    SmallVector<int64_t> mask;
    for (int64_t o = 0; o < out.outer; ++o) {
      int64_t row = sourceRow(o, fromLeading, toLeading);
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
    TileLayout in = info.layout(from), out = info.layout(to);
    Value input = adaptor.getInput();
    if (in.replicated == out.replicated) {
      // The same last dimension (or both 1) and the same rows.
      rewriter.replaceOp(op, input);
      return success();
    }
    if (out.replicated) {
      rewriter.replaceOp(op, lower::gatherDistributed(rewriter, op.getLoc(),
                                                      info, from, input, op));
      return success();
    }
    rewriter.replaceOp(op, lower::distributeReplicated(rewriter, op.getLoc(),
                                                       info, to, input));
    return success();
  }
};

} // namespace

void dslc::populateShapeLoweringPatterns(TileTypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<BroadcastOpLowering, ReshapeOpLowering>(converter,
                                                       patterns.getContext());
}
