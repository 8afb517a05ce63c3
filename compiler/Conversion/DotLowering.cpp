//===- DotLowering.cpp - tile.dot on CUDA cores through shared memory -----===//
//
// `result = acc + lhs @ rhs` on 2-d tiles (3-d: a batch of them, row b * M
// + m of the result reading rhs matrix b), in f32 FMAs (widenDots first
// makes fp8 inputs f32 and every result f32, rounding a 16-bit result after
// the op):
//  1. the owners store lhs [M, K] and rhs [K, N] row-major, in their own
//     element type (f32, bf16 or f16), into the shared workspace
//     (storeDistributed: one writer per element); bar.sync;
//  2. each thread computes the elements of its own layout of [M, N]
//     (TileLayout.h): a loop over k < min(valid_k, K), in order of
//     increasing k, that reads lhs[row][k] for each of its rows and a
//     16-byte piece rhs[k][columns] for each of its pieces (widened to f32
//     exactly) and adds their products with FMAs into the thread's result,
//     which starts as acc (or 0): an outer product per k in registers, and
//     each element a chain of FMAs from acc;
//  3. a last bar.sync frees the workspace.
// The workspace holds M*K + K*N input elements, each region 16-byte
// aligned; more than kMaxSharedBytes is an error at the op naming its block
// sizes. This is the CUDA-core path: no tensor cores (mma.sync / wgmma).
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/LoweringUtils.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace dslc;

namespace {

/// The byte offsets of the two workspace regions of a dot.
struct DotRegions {
  int64_t batches, m, n, k;
  Type element; ///< The inputs' element type in shared memory.
  int64_t rhs, total;

  explicit DotRegions(tile::DotOp op)
      : element(op.getLhs().getType().getElementType()) {
    RankedTensorType lhsType = op.getLhs().getType();
    int64_t b = lhsType.getRank() - 2; // a batch dimension first, or none
    batches = b ? lhsType.getDimSize(0) : 1;
    m = lhsType.getDimSize(b);
    k = lhsType.getDimSize(b + 1);
    n = op.getRhs().getType().getDimSize(b + 1);
    // fp8 is widened to f32 before the lowering (widenDots).
    int64_t bytes =
        tile::isFp8Type(element) ? 4 : element.getIntOrFloatBitWidth() / 8;
    rhs = llvm::alignTo(batches * m * k * bytes, 16);
    total = rhs + llvm::alignTo(batches * k * n * bytes, 16);
  }
  bool batched() const { return batches > 1; }
  /// The shapes of the operands and the result ([B,] ...).
  SmallVector<int64_t> shape(int64_t rows, int64_t columns,
                             bool hasBatch) const {
    if (hasBatch)
      return {batches, rows, columns};
    return {rows, columns};
  }
};

/// `x` (a scalar or vector of bf16, f16 or f32) as f32, exactly.
Value toF32(OpBuilder &b, Location loc, Value x) {
  Type f32 = b.getF32Type();
  Type type = x.getType();
  if (auto v = dyn_cast<VectorType>(type)) {
    if (v.getElementType().isF32())
      return x;
    return arith::ExtFOp::create(b, loc, VectorType::get(v.getShape(), f32), x);
  }
  return type.isF32() ? x : arith::ExtFOp::create(b, loc, f32, x).getResult();
}

struct DotOpLowering : TilePattern<tile::DotOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    if (op.getResult().getType().getEncoding())
      return rewriter.notifyMatchFailure(op, "a tensor-core dot");
    DotRegions r(op);
    if (tile::isFp8Type(r.element) ||
        op.getResult().getType().getElementType() != f32)
      return rewriter.notifyMatchFailure(op, "widenDots runs first");
    OpBuilder &b = rewriter;
    Type e = r.element;
    Value lhs = lower::sharedWorkspace(b, loc, op);
    Value rhs = LLVM::GEPOp::create(
        b, loc, lhs.getType(), b.getI8Type(), lhs,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(r.rhs)});
    bool hasBatch = op.getLhs().getType().getRank() == 3;
    lower::storeDistributed(b, loc, info, r.shape(r.m, r.k, hasBatch),
                            adaptor.getLhs(), lhs);
    lower::storeDistributed(b, loc, info, r.shape(r.k, r.n, hasBatch),
                            adaptor.getRhs(), rhs);
    lower::ctaBarrier(b, loc);

    // This thread's rows (their lhs offsets; in a batch, row b * M + m of
    // the result reads rhs matrix b) and pieces (their first columns,
    // clamped so padding reads inside the row).
    TileLayout layout = info.layout(r.shape(r.m, r.n, hasBatch));
    auto [lane, group] = lower::laneAndGroup(b, loc, layout);
    SmallVector<Value> lhsRow, rhsMatrix;
    for (int64_t o = 0; o < layout.outer; ++o) {
      Value row = lower::rowInBounds(b, loc, layout, o, group);
      lhsRow.push_back(
          arith::MulIOp::create(b, loc, row, lower::i64(b, loc, r.k)));
      if (hasBatch)
        rhsMatrix.push_back(arith::MulIOp::create(
            b, loc,
            arith::DivUIOp::create(b, loc, row, lower::i64(b, loc, r.m)),
            lower::i64(b, loc, r.k * r.n)));
    }
    bool whole = r.n % layout.vec == 0;
    SmallVector<Value> column;
    for (int64_t c = 0; c < layout.chunks; ++c) {
      Value first = layout.replicated
                        ? lower::i64(b, loc, 0)
                        : arith::MulIOp::create(
                              b, loc,
                              arith::AddIOp::create(
                                  b, loc, lane,
                                  lower::i64(b, loc, c * layout.rowThreads)),
                              lower::i64(b, loc, layout.vec))
                              .getResult();
      if (whole)
        first = arith::MinUIOp::create(b, loc, first,
                                       lower::i64(b, loc, r.n - layout.vec));
      column.push_back(first);
    }

    auto resultType = VectorType::get({layout.perThread()}, f32);
    Value init = adaptor.getAcc();
    if (!init)
      init = arith::ConstantOp::create(b, loc, b.getZeroAttr(resultType));
    Value end = lower::i64(b, loc, r.k);
    if (Value valid = adaptor.getValidK()) {
      // Positions at or past valid_k (the masked tail) contribute nothing.
      Value v = arith::MaxSIOp::create(b, loc, lower::toI64(b, loc, valid),
                                       lower::i64(b, loc, 0));
      end = arith::MinSIOp::create(b, loc, v, end);
    }
    int64_t bytes = e.getIntOrFloatBitWidth() / 8;
    auto pieceType = VectorType::get({layout.vec}, e);
    auto piece32 = VectorType::get({layout.vec}, f32);
    auto loop = scf::ForOp::create(
        b, loc, lower::i64(b, loc, 0), end, lower::i64(b, loc, 1),
        ValueRange{init},
        [&](OpBuilder &b, Location loc, Value kk, ValueRange sums) {
          auto at = [&](Value base, Value index) {
            return lower::elementPtr(b, loc, base, e, index);
          };
          Value kRow =
              arith::MulIOp::create(b, loc, kk, lower::i64(b, loc, r.n));
          // The pieces of rhs row k (of matrix `matrix` in a batch).
          auto piecesAt = [&](Value rhsRow) {
            SmallVector<Value> pieces;
            for (int64_t c = 0; c < layout.chunks; ++c) {
              Value start = arith::AddIOp::create(b, loc, rhsRow, column[c]);
              Value p;
              if (whole) {
                p = LLVM::LoadOp::create(
                    b, loc, pieceType, at(rhs, start),
                    std::min<int64_t>(16, layout.vec * bytes));
              } else {
                p = arith::ConstantOp::create(b, loc, b.getZeroAttr(pieceType));
                for (int64_t v = 0; v < layout.vec; ++v) {
                  Value col = arith::MinUIOp::create(
                      b, loc,
                      arith::AddIOp::create(b, loc, column[c],
                                            lower::i64(b, loc, v)),
                      lower::i64(b, loc, r.n - 1));
                  Value x = LLVM::LoadOp::create(
                      b, loc, e,
                      at(rhs, arith::AddIOp::create(b, loc, rhsRow, col)),
                      bytes);
                  p = vector::InsertOp::create(b, loc, x, p,
                                               ArrayRef<int64_t>{v});
                }
              }
              pieces.push_back(toF32(b, loc, p));
            }
            return pieces;
          };
          SmallVector<Value> pieces;
          if (!hasBatch)
            pieces = piecesAt(kRow);
          Value sum = sums[0];
          for (int64_t o = 0; o < layout.outer; ++o) {
            if (hasBatch)
              pieces =
                  piecesAt(arith::AddIOp::create(b, loc, rhsMatrix[o], kRow));
            Value a = LLVM::LoadOp::create(
                b, loc, e,
                at(lhs, arith::AddIOp::create(b, loc, lhsRow[o], kk)), bytes);
            Value as =
                vector::BroadcastOp::create(b, loc, piece32, toF32(b, loc, a));
            for (int64_t c = 0; c < layout.chunks; ++c) {
              int64_t at0 = layout.position(o, c, 0);
              Value old = vector::ExtractStridedSliceOp::create(
                  b, loc, sum, ArrayRef<int64_t>{at0},
                  ArrayRef<int64_t>{layout.vec}, ArrayRef<int64_t>{1});
              Value next = LLVM::FMAOp::create(b, loc, as, pieces[c], old);
              sum = vector::InsertStridedSliceOp::create(b, loc, next, sum,
                                                         ArrayRef<int64_t>{at0},
                                                         ArrayRef<int64_t>{1});
            }
          }
          scf::YieldOp::create(b, loc, sum);
        });
    lower::ctaBarrier(b, loc);
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

} // namespace

int64_t dslc::lower::dotSharedBytes(Operation *op) {
  return DotRegions(cast<tile::DotOp>(op)).total;
}

LogicalResult dslc::lower::checkDotFits(Operation *op) {
  auto dot = cast<tile::DotOp>(op);
  if (dot.getResult().getType().getEncoding())
    return success(); // at most kMaxSharedBytes: checkAndReserve says so
  DotRegions r(dot);
  if (r.total <= kMaxSharedBytes)
    return success();
  return op->emitError() << "a matmul of block sizes "
                         << (r.batched()
                                 ? "B=" + std::to_string(r.batches) + ", "
                                 : std::string())
                         << "M=" << r.m << ", N=" << r.n << ", K=" << r.k
                         << " stages " << r.total
                         << " bytes of operands in shared memory; at most "
                         << kMaxSharedBytes
                         << " are available: use smaller block sizes "
                            "((M*K + K*N) elements of the input type, fp8 "
                            "as 4 bytes, must fit)";
}

void dslc::lower::widenDots(func::FuncOp func) {
  SmallVector<tile::DotOp> dots;
  func.walk([&](tile::DotOp op) { dots.push_back(op); });
  for (tile::DotOp op : dots) {
    Type f32 = Float32Type::get(op.getContext());
    RankedTensorType resultType = op.getResult().getType();
    bool fp8 = tile::isFp8Type(op.getLhs().getType().getElementType());
    if (!fp8 && resultType.getElementType() == f32)
      continue;
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto widen = [&](Value v) -> Value {
      auto t = cast<RankedTensorType>(v.getType());
      if (!fp8)
        return v;
      return arith::ExtFOp::create(b, loc, t.clone(f32), v);
    };
    Value dot =
        tile::DotOp::create(b, loc, resultType.clone(f32), widen(op.getLhs()),
                            widen(op.getRhs()), op.getAcc(), op.getValidK());
    if (resultType.getElementType() != f32)
      dot = arith::TruncFOp::create(b, loc, resultType, dot);
    op.replaceAllUsesWith(dot);
    op.erase();
  }
}

void dslc::populateDotLoweringPatterns(TileTypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<DotOpLowering>(converter, patterns.getContext());
}
