//===- DotLowering.cpp - tile.dot on CUDA cores through shared memory -----===//
//
// `result = acc + lhs @ rhs` on 2-d tiles, in f32 FMAs (widenDots first
// makes every input f32 and rounds a 16-bit result after the op):
//  1. the owners store lhs [M, K] and rhs [K, N] row-major into the shared
//     workspace (storeDistributed: one writer per element);
//     bar.sync;
//  2. the M * N products are dealt out evenly: thread t computes elements
//     t, t + T, t + 2T, ... (row-major), each a chain of FMAs over
//     k < min(valid_k, K) in order of increasing k starting from 0 (a warp
//     reads one or two lhs rows, broadcast, and consecutive rhs columns,
//     so neither read has bank conflicts), and stores it into a third
//     region of the workspace; bar.sync;
//  3. every thread reads the elements its layout of [M, N] holds and adds
//     them to acc; a last bar.sync frees the workspace.
// The workspace holds (M*K + K*N + M*N) f32, each region 16-byte aligned;
// more than kMaxSharedBytes is an error at the op naming its block sizes.
// This is the CUDA-core path: no tensor cores (mma.sync / wgmma) yet.
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

/// The f32 element offsets of the three workspace regions of a dot.
struct DotRegions {
  int64_t m, n, k;
  int64_t lhs = 0, rhs, product, total;

  explicit DotRegions(tile::DotOp op)
      : m(op.getLhs().getType().getDimSize(0)),
        n(op.getRhs().getType().getDimSize(1)),
        k(op.getLhs().getType().getDimSize(1)) {
    // Four f32 are 16 bytes: each region starts 16-byte aligned.
    rhs = llvm::alignTo(m * k, 4);
    product = rhs + llvm::alignTo(k * n, 4);
    total = product + llvm::alignTo(m * n, 4);
  }
};

struct DotOpLowering : TilePattern<tile::DotOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    if (op.getLhs().getType().getElementType() != f32 ||
        op.getResult().getType().getElementType() != f32)
      return rewriter.notifyMatchFailure(op, "widenDots makes dots f32");
    DotRegions r(op);
    OpBuilder &b = rewriter;
    auto at = [&](Value base, Value index) {
      return lower::elementPtr(b, loc, base, f32, index);
    };
    Value ws = lower::sharedWorkspace(b, loc, op);
    Value lhs = ws;
    Value rhs = at(ws, lower::i64(b, loc, r.rhs));
    Value product = at(ws, lower::i64(b, loc, r.product));
    lower::storeDistributed(b, loc, info, {r.m, r.k}, adaptor.getLhs(), lhs);
    lower::storeDistributed(b, loc, info, {r.k, r.n}, adaptor.getRhs(), rhs);
    lower::ctaBarrier(b, loc);

    // 2. This thread's products: elements tid + s * T, s < S.
    int64_t elements = r.m * r.n;
    int64_t slots = llvm::divideCeil(elements, info.threads);
    Value tid = lower::threadId(b, loc);
    SmallVector<Value> element, lhsRow, rhsColumn, inits;
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
    for (int64_t s = 0; s < slots; ++s) {
      Value e = arith::AddIOp::create(b, loc, tid,
                                      lower::i64(b, loc, s * info.threads));
      element.push_back(e);
      // Past the last element (the last slot of some threads): compute
      // element M*N - 1 again and do not store it.
      Value clamped =
          arith::MinUIOp::create(b, loc, e, lower::i64(b, loc, elements - 1));
      Value row =
          arith::DivUIOp::create(b, loc, clamped, lower::i64(b, loc, r.n));
      lhsRow.push_back(
          arith::MulIOp::create(b, loc, row, lower::i64(b, loc, r.k)));
      rhsColumn.push_back(
          arith::RemUIOp::create(b, loc, clamped, lower::i64(b, loc, r.n)));
      inits.push_back(zero);
    }
    Value end = lower::i64(b, loc, r.k);
    if (Value valid = adaptor.getValidK()) {
      // Positions at or past valid_k (the masked tail) contribute nothing.
      Value v = arith::MaxSIOp::create(b, loc, lower::toI64(b, loc, valid),
                                       lower::i64(b, loc, 0));
      end = arith::MinSIOp::create(b, loc, v, end);
    }
    auto loop = scf::ForOp::create(
        b, loc, lower::i64(b, loc, 0), end, lower::i64(b, loc, 1), inits,
        [&](OpBuilder &b, Location loc, Value kk, ValueRange sums) {
          Value rhsRow =
              arith::MulIOp::create(b, loc, kk, lower::i64(b, loc, r.n));
          SmallVector<Value> next;
          for (int64_t s = 0; s < slots; ++s) {
            Value x = LLVM::LoadOp::create(
                b, loc, f32,
                at(lhs, arith::AddIOp::create(b, loc, lhsRow[s], kk)));
            Value y = LLVM::LoadOp::create(
                b, loc, f32,
                at(rhs, arith::AddIOp::create(b, loc, rhsRow, rhsColumn[s])));
            next.push_back(LLVM::FMAOp::create(b, loc, x, y, sums[s]));
          }
          scf::YieldOp::create(b, loc, next);
        });
    for (int64_t s = 0; s < slots; ++s) {
      auto store = [&](OpBuilder &b, Location loc) {
        LLVM::StoreOp::create(b, loc, loop.getResult(s),
                              at(product, element[s]), /*alignment=*/4);
      };
      if ((s + 1) * info.threads <= elements) {
        store(b, loc);
        continue;
      }
      Value in =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, element[s],
                                lower::i64(b, loc, elements));
      scf::IfOp::create(b, loc, in, [&](OpBuilder &b, Location loc) {
        store(b, loc);
        scf::YieldOp::create(b, loc);
      });
    }
    lower::ctaBarrier(b, loc);

    // 3. The elements of this thread's layout of [M, N], plus acc, added
    // piece by piece so acc's registers free as the result's fill (a
    // whole-vector add keeps both alive).
    Value acc = adaptor.getAcc();
    Value result = lower::loadDistributed(
        b, loc, info, {r.m, r.n}, f32, product,
        [&](int64_t position, Value piece) -> Value {
          if (!acc)
            return piece;
          int64_t n = cast<VectorType>(piece.getType()).getNumElements();
          return arith::AddFOp::create(
              b, loc,
              vector::ExtractStridedSliceOp::create(
                  b, loc, acc, ArrayRef<int64_t>{position},
                  ArrayRef<int64_t>{n}, ArrayRef<int64_t>{1}),
              piece);
        });
    lower::ctaBarrier(b, loc);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

int64_t dslc::lower::dotSharedBytes(Operation *op) {
  return DotRegions(cast<tile::DotOp>(op)).total * 4;
}

LogicalResult dslc::lower::checkDotFits(Operation *op) {
  auto dot = cast<tile::DotOp>(op);
  DotRegions r(dot);
  int64_t bytes = r.total * 4;
  if (bytes <= kMaxSharedBytes)
    return success();
  return op->emitError() << "a matmul of block sizes M=" << r.m << ", N=" << r.n
                         << ", K=" << r.k << " stages " << bytes
                         << " bytes of f32 operands and product in shared "
                            "memory; at most "
                         << kMaxSharedBytes
                         << " are available: use smaller block sizes "
                            "(4 * (M*K + K*N + M*N) bytes must fit)";
}

void dslc::lower::widenDots(func::FuncOp func) {
  SmallVector<tile::DotOp> dots;
  func.walk([&](tile::DotOp op) { dots.push_back(op); });
  for (tile::DotOp op : dots) {
    Type f32 = Float32Type::get(op.getContext());
    RankedTensorType resultType = op.getResult().getType();
    if (op.getLhs().getType().getElementType() == f32 &&
        resultType.getElementType() == f32)
      continue;
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto widen = [&](Value v) -> Value {
      auto t = cast<RankedTensorType>(v.getType());
      if (t.getElementType() == f32)
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
