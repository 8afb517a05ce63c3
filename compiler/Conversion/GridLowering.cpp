//===- GridLowering.cpp - tile.grid to a grid-stride loop over CTAs ------===//
//
// Tile t of the grid runs on CTA t mod gridDim.x: every CTA loops over
// tiles blockIdx.x, blockIdx.x + gridDim.x, ... so a persistent grid (fewer
// CTAs than tiles, all resident) and a one-tile-per-CTA grid are both right.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/LoweringUtils.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace dslc;

namespace {

struct GridOpLowering : OpConversionPattern<tile::GridOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::GridOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // Tiles per dimension, and in all.
    SmallVector<Value> counts;
    Value total = arith::ConstantIndexOp::create(rewriter, loc, 1);
    for (auto [extent, block] :
         llvm::zip(adaptor.getExtents(), op.getBlocks())) {
      Value b = arith::ConstantIndexOp::create(rewriter, loc, block);
      Value n = arith::CeilDivUIOp::create(rewriter, loc, extent, b);
      counts.push_back(n);
      total = arith::MulIOp::create(rewriter, loc, total, n);
    }
    Value cta = NVVM::BlockIdXOp::create(rewriter, loc, rewriter.getI32Type());
    Value ctas = NVVM::GridDimXOp::create(rewriter, loc, rewriter.getI32Type());
    Value lb = arith::IndexCastUIOp::create(rewriter, loc,
                                            rewriter.getIndexType(), cta);
    Value step = arith::IndexCastUIOp::create(rewriter, loc,
                                              rewriter.getIndexType(), ctas);
    auto loop = scf::ForOp::create(rewriter, loc, lb, total, step);
    rewriter.setInsertionPointToStart(loop.getBody());
    // Row-major decomposition of the linear tile index.
    SmallVector<Value> ids(counts.size());
    Value rest = loop.getInductionVar();
    for (int64_t d = counts.size() - 1; d >= 0; --d) {
      if (d == 0) {
        ids[d] = rest;
        break;
      }
      ids[d] = arith::RemUIOp::create(rewriter, loc, rest, counts[d]);
      rest = arith::DivUIOp::create(rewriter, loc, rest, counts[d]);
    }
    Block &body = op.getBody().front();
    Operation *yield = body.getTerminator();
    rewriter.eraseOp(yield);
    rewriter.inlineBlockBefore(&body, loop.getBody()->getTerminator(), ids);
    rewriter.eraseOp(op);
    return success();
  }
};

struct YieldOpLowering : OpConversionPattern<tile::YieldOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::YieldOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void dslc::populateGridLoweringPatterns(TileTypeConverter &converter,
                                        RewritePatternSet &patterns) {
  patterns.add<GridOpLowering, YieldOpLowering>(converter,
                                                patterns.getContext());
}
