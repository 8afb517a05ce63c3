//===- GridLowering.cpp - tile.grid to a grid-stride loop over CTAs ------===//
//
// Tile t of the grid runs on CTA t mod gridDim.x: every CTA loops over
// tiles blockIdx.x, blockIdx.x + gridDim.x, ... so a persistent grid (fewer
// CTAs than tiles, all resident) and a one-tile-per-CTA grid are both right.
// Tile t is row-major over the grid's dimensions, or, with the kernel's
// tile.l2_grouping G > 1, grouped over the first two (G rows of tiles at a
// time, column by column) with the others row-major inside. Several
// tile.grid ops in a kernel (Helion's several top-level loops) become loops
// one after the other; a tile.grid_barrier between two waits for every CTA.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/LoweringUtils.h"
#include "compiler/Limits.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace dslc;

namespace {

/// `a` / `d` (with `rem`: `a` % `d`) for tile counts and indices, in 32-bit
/// arithmetic: they are below contract::kMaxGridTiles (the runtime refuses
/// a larger grid at launch), and a 64-bit division by a run-time value is a
/// call on the GPU (__cuda_sm20_div_u64), which makes ptxas serialize every
/// wgmma of the kernel.
Value tileDiv(OpBuilder &b, Location loc, Value a, Value d, bool rem = false) {
  Type i32 = b.getI32Type();
  Value a32 = arith::IndexCastUIOp::create(b, loc, i32, a);
  Value d32 = arith::IndexCastUIOp::create(b, loc, i32, d);
  Value q = rem ? Value(arith::RemUIOp::create(b, loc, a32, d32))
                : Value(arith::DivUIOp::create(b, loc, a32, d32));
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), q);
}

/// Tile `t` of an n0 x n1 grid in groups of `g` rows (Triton's
/// GROUP_SIZE_M; Helion's l2_groupings): group t / (g n1) holds rows
/// g k .. g k + g - 1 (fewer in the last), walked down each column, then
/// column by column, so the CTAs running at once touch g row panels and a
/// few column panels instead of one row panel and every column panel.
void groupedIds(OpBuilder &b, Location loc, Value t, Value n0, Value n1,
                int64_t g, Value &i0, Value &i1) {
  Value group = arith::ConstantIndexOp::create(b, loc, g);
  // min(g, n0) n1 <= n0 n1 tiles: 32 bits hold it (t / it is the same).
  Value inGroup = arith::MulIOp::create(
      b, loc, arith::MinUIOp::create(b, loc, group, n0), n1);
  Value first =
      arith::MulIOp::create(b, loc, tileDiv(b, loc, t, inGroup), group);
  Value rows = arith::MinUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, n0, first), group);
  Value at = tileDiv(b, loc, t, inGroup, /*rem=*/true);
  i0 = arith::AddIOp::create(b, loc, first,
                             tileDiv(b, loc, at, rows, /*rem=*/true));
  i1 = tileDiv(b, loc, at, rows);
}

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
    int64_t grouping = 1;
    if (auto func = op->getParentOfType<func::FuncOp>())
      if (auto g = func->getAttrOfType<IntegerAttr>(tile::kL2GroupingAttr))
        grouping = g.getInt();
    int64_t grouped = grouping > 1 && counts.size() >= 2 ? 2 : 0;
    for (int64_t d = counts.size() - 1; d >= grouped; --d) {
      if (d == 0) {
        ids[d] = rest;
        break;
      }
      ids[d] = tileDiv(rewriter, loc, rest, counts[d], /*rem=*/true);
      rest = tileDiv(rewriter, loc, rest, counts[d]);
    }
    if (grouped)
      groupedIds(rewriter, loc, rest, counts[0], counts[1], grouping, ids[0],
                 ids[1]);
    Block &body = op.getBody().front();
    Operation *yield = body.getTerminator();
    rewriter.eraseOp(yield);
    rewriter.inlineBlockBefore(&body, loop.getBody()->getTerminator(), ids);
    rewriter.eraseOp(op);
    return success();
  }
};

/// hl.barrier(): every CTA's threads finish the grid before it (bar.sync),
/// then thread 0 reads the barrier's generation, arrives (acq_rel add on the
/// arrivals word of the kernel's state) and, unless it is the last to
/// arrive, spins (bounded by the kernel's timeout) until the generation
/// moves; the last resets the arrivals and moves the generation (release).
/// The words persist across launches, each barrier leaving the arrivals at
/// 0 and the generation one on. Fences make every CTA's stores before the
/// barrier visible to every CTA's loads after it.
struct GridBarrierOpLowering : OpConversionPattern<tile::GridBarrierOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::GridBarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Operation *anchor = op;
    Type word = rewriter.getI32Type();
    lower::ctaBarrier(rewriter, loc);
    Value tid =
        lower::asmValue(rewriter, loc, word, "mov.u32 $0, %tid.x;", "=r", {});
    Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        tid, lower::i32(rewriter, loc, 0));
    scf::IfOp::create(rewriter, loc, first, [&](OpBuilder &b, Location loc) {
      Value state = lower::hiddenArgs(anchor).state;
      int64_t at = kGridBarrierStateOffset / 4;
      Value arrivals = LLVM::PtrToIntOp::create(
          b, loc, b.getI64Type(),
          lower::elementPtr(b, loc, state, word, lower::i64(b, loc, at)));
      Value generation = LLVM::PtrToIntOp::create(
          b, loc, b.getI64Type(),
          lower::elementPtr(b, loc, state, word, lower::i64(b, loc, at + 1)));
      Value before =
          lower::asmValue(b, loc, word, "ld.relaxed.gpu.global.b32 $0, [$1];",
                          "=r,l", ValueRange{generation});
      lower::asmStatement(b, loc, "fence.acq_rel.gpu;", "", ValueRange{});
      Value arrived = lower::asmValue(
          b, loc, word, "atom.acq_rel.gpu.global.add.u32 $0, [$1], 1;", "=r,l",
          ValueRange{arrivals});
      Value ctas = lower::asmValue(b, loc, word, "mov.u32 $0, %nctaid.x;", "=r",
                                   ValueRange{});
      Value last = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq, arrived,
          arith::SubIOp::create(b, loc, ctas, lower::i32(b, loc, 1)));
      scf::IfOp::create(
          b, loc, last,
          [&](OpBuilder &b, Location loc) {
            lower::asmStatement(b, loc,
                                "st.relaxed.gpu.global.b32 [$0], 0;\n\t"
                                "red.release.gpu.global.add.u32 [$1], 1;",
                                "l,l", ValueRange{arrivals, generation});
            scf::YieldOp::create(b, loc);
          },
          [&](OpBuilder &b, Location loc) {
            lower::SpinSite site{
                ErrorStatus::WaitTimeout, lower::i64(b, loc, 0),
                arith::ExtUIOp::create(
                    b, loc, b.getI64Type(),
                    arith::AddIOp::create(b, loc, before,
                                          lower::i32(b, loc, 1))),
                generation};
            lower::boundedSpin(
                b, loc, anchor,
                [&](OpBuilder &b, Location loc) {
                  Value seen = lower::asmValue(
                      b, loc, word, "ld.acquire.gpu.global.b32 $0, [$1];",
                      "=r,l", ValueRange{generation});
                  Value moved = arith::CmpIOp::create(
                      b, loc, arith::CmpIPredicate::ne, seen, before);
                  return std::make_pair(moved,
                                        Value(arith::ExtUIOp::create(
                                            b, loc, b.getI64Type(), seen)));
                },
                site);
            scf::YieldOp::create(b, loc);
          });
      lower::asmStatement(b, loc, "fence.acq_rel.gpu;", "", ValueRange{});
      scf::YieldOp::create(b, loc);
    });
    lower::ctaBarrier(rewriter, loc);
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
  patterns.add<GridOpLowering, GridBarrierOpLowering, YieldOpLowering>(
      converter, patterns.getContext());
}
