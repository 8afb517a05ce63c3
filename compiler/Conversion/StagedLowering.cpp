//===- StagedLowering.cpp - async copies into staged buffers, staged dots -===//
//
// The ops of pipelined tensor-core loops (-dslc-pipeline-dots):
//  - tile.async_copy: the tile's rows are cut into 16-byte pieces, dealt
//    round-robin over the CTA's threads. When the tensor, the tile's first
//    element and the row pitch are 16-byte aligned (one test per copy, around
//    all its pieces), each piece is one cp.async.cg of 16 bytes whose source
//    size is the bytes inside the limits (0 for a row past them; the rest
//    zero-filled); else (a row pitch that is not a multiple of 16 bytes, a view
//    starting mid-row) every piece is copied element by element through
//    registers, zeros past the limits.
//  - tile.async_commit / tile.async_wait: cp.async.commit_group;
//    cp.async.wait_group N then bar.sync (the synchronous copies are
//    ordered by the barrier too).
//  - tile.staged_dot: the tensor-core k-steps (MmaLowering.h) on the
//    stage's operands, in place: no staging, no barrier of its own.
//  - tile.dot_wait: wgmma.wait_group 0, tied to the accumulator.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/LoweringUtils.h"
#include "compiler/Conversion/MmaLowering.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace dslc;
using lower::i64;

namespace {

Value arithAdd(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}

/// The byte address of stage `stage` (index) of `buffer` in the workspace.
Value stageBase(OpBuilder &b, Location loc, Operation *op,
                tile::StagedBufferAttr buffer, Value stage) {
  Value at = arith::AddIOp::create(
      b, loc, i64(b, loc, buffer.getOffset()),
      arith::MulIOp::create(b, loc, lower::toI64(b, loc, stage),
                            i64(b, loc, buffer.stageBytes())));
  Value base = lower::sharedWorkspace(b, loc, op);
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ArrayRef<LLVM::GEPArg>{at});
}

/// The byte offset in a stage of `buffer` of 16-byte unit `unit` of row
/// `row` (run-time i64s), in the layout #tile.staged describes
/// (TileDialect.td): padded rows, or swizzled atoms.
Value unitOffset(OpBuilder &b, Location loc, tile::StagedBufferAttr buffer,
                 Value row, Value unit) {
  int64_t w = buffer.getSwizzle();
  if (!w)
    return arithAdd(b, loc,
                    arith::MulIOp::create(
                        b, loc, row,
                        i64(b, loc, buffer.getPitch() * buffer.elementBytes())),
                    arith::MulIOp::create(b, loc, unit, i64(b, loc, 16)));
  int64_t perAtom = w / 16;
  Value atom = arith::DivUIOp::create(b, loc, unit, i64(b, loc, perAtom));
  Value u = arith::RemUIOp::create(b, loc, unit, i64(b, loc, perAtom));
  Value phase = arith::RemUIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, row, i64(b, loc, 128 / w)),
      i64(b, loc, perAtom));
  Value swizzled = arith::XOrIOp::create(b, loc, u, phase);
  return arithAdd(
      b, loc,
      arith::MulIOp::create(b, loc, atom,
                            i64(b, loc, buffer.getShape()[0] * w)),
      arithAdd(b, loc, arith::MulIOp::create(b, loc, row, i64(b, loc, w)),
               arith::MulIOp::create(b, loc, swizzled, i64(b, loc, 16))));
}

Value minS(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MinSIOp::create(b, loc, x, y);
}

/// One tile.async_copy cut into 16-byte pieces dealt round-robin over the
/// CTA's threads: where the tile is (built once, before the pieces) and
/// how each piece is copied.
class CopyPieces {
public:
  CopyPieces(OpBuilder &b, Location loc, tile::AsyncCopyOp op,
             tile::AsyncCopyOp::Adaptor adaptor, int64_t threads)
      : buffer(op.getBuffer()),
        element(lower::storageType(buffer.getElement())),
        bytes(buffer.elementBytes()), vec(16 / bytes),
        perRow(buffer.getShape()[1] / vec),
        pieces(buffer.getShape()[0] * perRow), threads(threads),
        rowDim(op.getDims()[0]), colDim(op.getRef().getType().getRank() - 1),
        wholeRows(threads % perRow == 0) {
    int64_t rank = colDim + 1;
    Value ref = adaptor.getRef();
    ptr = lower::field(b, loc, ref, 0);
    SmallVector<Value> sizes, offsets;
    strides.resize(rank);
    for (int64_t d = 0; d < rank; ++d) {
      sizes.push_back(lower::field(b, loc, ref, 1 + d));
      offsets.push_back(lower::toI64(b, loc, adaptor.getOffsets()[d]));
    }
    for (int64_t d = rank - 1; d >= 0; --d)
      strides[d] = d == rank - 1 ? i64(b, loc, 1)
                                 : arith::MulIOp::create(b, loc, strides[d + 1],
                                                         sizes[d + 1])
                                       .getResult();
    auto end = [&](int64_t d) {
      return minS(b, loc, lower::toI64(b, loc, adaptor.getLimits()[d]),
                  sizes[d]);
    };
    // The dimensions indexed by their offset alone: in bounds or nothing
    // is; and the element offset of the tile's first element.
    fixedOk = arith::ConstantIntOp::create(b, loc, 1, 1);
    origin = i64(b, loc, 0);
    for (int64_t d = 0; d < rank; ++d) {
      origin = arith::AddIOp::create(
          b, loc, origin,
          arith::MulIOp::create(b, loc, offsets[d], strides[d]));
      if (d == rowDim || d == colDim)
        continue;
      fixedOk = arith::AndIOp::create(
          b, loc, fixedOk,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, offsets[d],
                                end(d)));
    }
    rowOffset = offsets[rowDim];
    colOffset = offsets[colDim];
    rowEnd = end(rowDim);
    colEnd = end(colDim);
    // Every piece starts 16-byte aligned when the tensor's address, the
    // tile's first element and the row pitch are (a piece is 16 bytes
    // along the contiguous dimension): one test for the whole copy.
    Value misaligned = arith::OrIOp::create(
        b, loc, LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), ptr),
        arith::MulIOp::create(
            b, loc, arith::OrIOp::create(b, loc, origin, strides[rowDim]),
            i64(b, loc, bytes)));
    alignedAll = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        arith::AndIOp::create(b, loc, misaligned, i64(b, loc, 15)),
        i64(b, loc, 0));
    dst0 = stageBase(b, loc, op, buffer, adaptor.getStage());
    tid = lower::threadId(b, loc);
    // When the threads cover whole rows per round, a thread's pieces
    // share their column and step by whole rows: their addresses are one
    // base plus constant multiples of the pitch (not a division per
    // piece, nor a pointer per piece kept live).
    tidRow = arith::DivUIOp::create(b, loc, tid, i64(b, loc, perRow));
    tidInRow = arith::RemUIOp::create(b, loc, tid, i64(b, loc, perRow));
    if (wholeRows)
      roundPitch = arith::MulIOp::create(b, loc, strides[rowDim],
                                         i64(b, loc, threads / perRow));
  }

  /// Whether every piece starts 16-byte aligned (one cp.async each).
  Value aligned() const { return alignedAll; }

  /// Every piece of the tile, each thread's in turn, copied by `copy`
  /// (asyncPiece or elementPiece); a last round with fewer pieces than
  /// threads tests its own.
  template <typename Copy>
  void everyPiece(OpBuilder &b, Location loc, Copy copy) {
    previousSrc = Value();
    for (int64_t first = 0; first < pieces; first += threads) {
      if (first + threads <= pieces) {
        (this->*copy)(b, loc, first);
        continue;
      }
      Value piece = arith::AddIOp::create(b, loc, tid, i64(b, loc, first));
      Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            piece, i64(b, loc, pieces));
      scf::IfOp::create(b, loc, inRange, [&](OpBuilder &b, Location loc) {
        (this->*copy)(b, loc, first);
        scf::YieldOp::create(b, loc);
      });
    }
  }

  /// One cp.async of 16 bytes, the bytes past the limits zero-filled.
  void asyncPiece(OpBuilder &b, Location loc, int64_t first) {
    Piece p = pieceAt(b, loc, first);
    auto globalPtr = LLVM::LLVMPointerType::get(b.getContext(), 1);
    Value global = p.src.getType() == globalPtr
                       ? p.src
                       : LLVM::AddrSpaceCastOp::create(b, loc, globalPtr, p.src)
                             .getResult();
    Value size = arith::TruncIOp::create(
        b, loc, b.getI32Type(),
        arith::MulIOp::create(b, loc, p.count, i64(b, loc, bytes)));
    NVVM::CpAsyncOp::create(b, loc, p.dst, global, /*size=*/16u,
                            NVVM::LoadCacheModifierKind::CG, size);
  }

  /// Element by element through registers, zeros past the limits.
  void elementPiece(OpBuilder &b, Location loc, int64_t first) {
    Piece p = pieceAt(b, loc, first);
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
    for (int64_t v = 0; v < vec; ++v) {
      Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                       p.count, i64(b, loc, v));
      auto load = scf::IfOp::create(b, loc, TypeRange{element}, in,
                                    /*withElseRegion=*/true);
      OpBuilder then = load.getThenBodyBuilder();
      Value x = LLVM::LoadOp::create(
          then, loc, element,
          lower::elementPtr(then, loc, p.src, element, i64(then, loc, v)));
      scf::YieldOp::create(then, loc, x);
      OpBuilder otherwise = load.getElseBodyBuilder();
      scf::YieldOp::create(otherwise, loc, zero);
      LLVM::StoreOp::create(
          b, loc, load.getResult(0),
          lower::elementPtr(b, loc, p.dst, element, i64(b, loc, v)));
    }
  }

private:
  /// Where a piece reads (`src`, `count` elements inside the limits) and
  /// writes (`dst`).
  struct Piece {
    Value count, src, dst;
  };

  /// Piece `first` + tid.
  Piece pieceAt(OpBuilder &b, Location loc, int64_t first) {
    Value r = tidRow, inRow = tidInRow;
    if (!wholeRows || first) {
      Value piece = arith::AddIOp::create(b, loc, tid, i64(b, loc, first));
      r = wholeRows ? arith::AddIOp::create(b, loc, tidRow,
                                            i64(b, loc, first / perRow))
                          .getResult()
                    : arith::DivUIOp::create(b, loc, piece, i64(b, loc, perRow))
                          .getResult();
      if (!wholeRows)
        inRow = arith::RemUIOp::create(b, loc, piece, i64(b, loc, perRow));
    }
    Value c = arith::MulIOp::create(b, loc, inRow, i64(b, loc, vec));
    Value row = arith::AddIOp::create(b, loc, rowOffset, r);
    Value col = arith::AddIOp::create(b, loc, colOffset, c);
    Value valid = arith::AndIOp::create(
        b, loc, fixedOk,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, row, rowEnd));
    // Elements of the piece inside the limits: clamp(colEnd - col, 0, V).
    Value left = arith::MaxSIOp::create(
        b, loc, i64(b, loc, 0),
        minS(b, loc, arith::SubIOp::create(b, loc, colEnd, col),
             i64(b, loc, vec)));
    Value count = arith::SelectOp::create(b, loc, valid, left, i64(b, loc, 0));
    Value at = arith::AddIOp::create(
        b, loc, origin,
        arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, r, strides[rowDim]), c));
    // A piece with nothing to read (count 0) reads no byte of `src`:
    // cp.async's source size is 0, the element copies are skipped. A
    // thread's next piece of whole rows is one round of rows further: a
    // pointer bumped by a constant pitch, not one kept per piece.
    Value src =
        wholeRows && previousSrc
            ? lower::elementPtr(b, loc, previousSrc, element, roundPitch)
            : lower::elementPtr(b, loc, ptr, element, at);
    previousSrc = src;
    Value dst = LLVM::GEPOp::create(
        b, loc, dst0.getType(), b.getI8Type(), dst0,
        ArrayRef<LLVM::GEPArg>{unitOffset(b, loc, buffer, r, inRow)});
    return Piece{count, src, dst};
  }

  tile::StagedBufferAttr buffer;
  Type element;
  int64_t bytes, vec, perRow, pieces, threads, rowDim, colDim;
  bool wholeRows;
  Value ptr, fixedOk, origin, rowOffset, colOffset, rowEnd, colEnd;
  Value alignedAll, dst0;
  SmallVector<Value> strides;
  Value tid, tidRow, tidInRow, roundPitch;
  Value previousSrc; ///< the last piece's source (a whole-rows chain)
};

struct AsyncCopyLowering : TilePattern<tile::AsyncCopyOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::AsyncCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    CopyPieces copy(b, loc, op, adaptor, info.threads);
    // One test for the whole copy, outside the pieces: the aligned path is
    // one block of cp.async that ptxas schedules together (a branch per
    // piece kept each piece's address arithmetic in a block of its own,
    // serialized by its latencies).
    scf::IfOp::create(
        b, loc, copy.aligned(),
        [&](OpBuilder &b, Location loc) {
          copy.everyPiece(b, loc, &CopyPieces::asyncPiece);
          scf::YieldOp::create(b, loc);
        },
        [&](OpBuilder &b, Location loc) {
          copy.everyPiece(b, loc, &CopyPieces::elementPiece);
          scf::YieldOp::create(b, loc);
        });
    rewriter.eraseOp(op);
    return success();
  }
};

struct AsyncCommitLowering : TilePattern<tile::AsyncCommitOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::AsyncCommitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncCommitGroupOp::create(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

struct AsyncWaitLowering : TilePattern<tile::AsyncWaitOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::AsyncWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncWaitGroupOp::create(
        rewriter, op.getLoc(),
        rewriter.getI32IntegerAttr(op.getPendingAttr().getInt()));
    if (op.getAsyncProxy())
      NVVM::FenceProxyOp::create(
          rewriter, op.getLoc(), NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(rewriter.getContext(),
                                     NVVM::SharedSpace::shared_cta));
    lower::ctaBarrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

/// A wgmma shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor
/// Format"): start address, leading and stride byte offsets (each >> 4 in
/// 14 bits), swizzle mode in bits 62-63 (1: 128-byte, 2: 64, 3: 32).
Value descriptor(OpBuilder &b, Location loc, Value address, int64_t leading,
                 int64_t stride, int64_t swizzle) {
  int64_t mode = swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3;
  uint64_t fixed = (uint64_t(leading >> 4) & 0x3FFF) << 16 |
                   (uint64_t(stride >> 4) & 0x3FFF) << 32 |
                   uint64_t(mode) << 62;
  Value start = arith::ShRUIOp::create(
      b, loc, arith::AndIOp::create(b, loc, address, i64(b, loc, 0x3FFFF)),
      i64(b, loc, 4));
  return arith::OrIOp::create(b, loc, start,
                              i64(b, loc, static_cast<int64_t>(fixed)));
}

/// wgmma's name for `element`'s type.
NVVM::WGMMATypes wgmmaType(Type element) {
  if (element.isBF16())
    return NVVM::WGMMATypes::bf16;
  if (element.isF16())
    return NVVM::WGMMATypes::f16;
  return isa<Float8E5M2Type>(element) ? NVVM::WGMMATypes::e5m2
                                      : NVVM::WGMMATypes::e4m3;
}

/// The k-steps of a staged dot on wgmma.mma_async (m64nNk16 on 16-bit
/// inputs, m64nNk32 on fp8, f32 accumulate): warpgroup g multiplies rows
/// 64 g .. 64 g + 63 of the K-major lhs by the rhs, onto this thread's
/// fragments `acc` (wgmma's accumulator order is MmaLayout's with warpsN =
/// 1). A k-step is 32 bytes of a K-major row: the lhs (and a K-major rhs,
/// `rhsKMajor`: [N, K] staged) is read from the atom of its k-step (at
/// byte 32 s % W of every row, atoms `rows * W` bytes apart), 8-row groups
/// `8 W` apart (the stride byte offset). An N-major rhs ([K, N] staged,
/// 16-bit only) is read from its k-step's 16 rows (16 W bytes on), its N
/// atoms `K * W` bytes apart (the leading byte offset).
/// Fenced before (the accumulator registers may have been written by
/// ordinary instructions), committed after, then waited for until at most
/// `pending` groups run: with 0 the stage may be refilled once the barrier
/// that follows passes; with 1 this product stays in flight (the previous
/// one is complete) and the result is only chained into the next product
/// or waited for by tile.dot_wait.
Value wgmmaKSteps(OpBuilder &b, Location loc, const MmaLayout &layout,
                  tile::StagedBufferAttr lhs, tile::StagedBufferAttr rhs,
                  bool rhsKMajor, Value lhsBase, Value rhsBase, Value acc,
                  int64_t pending) {
  int64_t m = layout.m, n = layout.n, k = lhs.getShape()[1];
  int64_t wa = lhs.getSwizzle(), wb = rhs.getSwizzle();
  int64_t bytes = lhs.elementBytes();
  int64_t step = tile::kStagedStepBytes / bytes; // elements of a k-step
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  SmallVector<Type> fields(n / 2, f32);
  auto structType = LLVM::LLVMStructType::getLiteral(ctx, fields);
  Value regs = LLVM::UndefOp::create(b, loc, structType);
  for (int64_t i = 0; i < n / 2; ++i)
    regs = LLVM::InsertValueOp::create(
        b, loc, regs,
        vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{i}), i);
  Value group =
      arith::DivUIOp::create(b, loc, lower::threadId(b, loc), i64(b, loc, 128));
  Value aAddr = arith::AddIOp::create(
      b, loc, LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), lhsBase),
      arith::MulIOp::create(b, loc, group, i64(b, loc, 64 * wa)));
  Value bAddr = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), rhsBase);
  NVVM::WGMMATypes type = wgmmaType(lhs.getElement());
  // The byte offset of k-step `kk` in a K-major buffer of `rows` rows
  // swizzled in atoms of `w` bytes.
  auto kMajorOffset = [&](int64_t kk, int64_t rows, int64_t w) {
    return kk * bytes / w * (rows * w) + kk * bytes % w;
  };
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (int64_t kk = 0; kk < k; kk += step) {
    Value descA =
        descriptor(b, loc,
                   arith::AddIOp::create(b, loc, aAddr,
                                         i64(b, loc, kMajorOffset(kk, m, wa))),
                   /*leading=*/16, /*stride=*/8 * wa, wa);
    Value descB =
        rhsKMajor
            ? descriptor(
                  b, loc,
                  arith::AddIOp::create(
                      b, loc, bAddr,
                      i64(b, loc, kMajorOffset(kk, rhs.getShape()[0], wb))),
                  /*leading=*/16, /*stride=*/8 * wb, wb)
            : descriptor(
                  b, loc,
                  arith::AddIOp::create(b, loc, bAddr, i64(b, loc, kk * wb)),
                  /*leading=*/k * wb, /*stride=*/8 * wb, wb);
    regs = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, structType, regs, descA, descB,
        NVVM::MMAShapeAttr::get(ctx, 64, n, step),
        NVVM::WGMMATypesAttr::get(ctx, type),
        NVVM::WGMMATypesAttr::get(ctx, type),
        NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
        NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::one),
        NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
        NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
        NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row),
        NVVM::MMALayoutAttr::get(ctx, rhsKMajor ? NVVM::MMALayout::col
                                                : NVVM::MMALayout::row),
        /*satfinite=*/NVVM::MMAIntOverflowAttr());
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, pending);
  SmallVector<Value> elements;
  for (int64_t i = 0; i < n / 2; ++i)
    elements.push_back(LLVM::ExtractValueOp::create(b, loc, regs, i));
  return vector::FromElementsOp::create(b, loc, VectorType::get({n / 2}, f32),
                                        elements);
}

struct StagedDotLowering : TilePattern<tile::StagedDotOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::StagedDotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<MmaLayout> layout =
        lower::mmaLayoutOf(op.getResult().getType());
    if (!layout)
      return rewriter.notifyMatchFailure(op, "needs a #tile.mma result");
    Location loc = op.getLoc();
    tile::StagedBufferAttr lhs = op.getLhs(), rhs = op.getRhs();
    Value lhsBase = stageBase(rewriter, loc, op, lhs, adaptor.getStage());
    Value rhsBase = stageBase(rewriter, loc, op, rhs, adaptor.getStage());
    Value sum =
        lhs.getSwizzle()
            ? wgmmaKSteps(rewriter, loc, *layout, lhs, rhs, op.getRhsKMajor(),
                          lhsBase, rhsBase, adaptor.getAcc(), op.getPending())
            : lower::mmaKSteps(rewriter, loc, *layout, lhs.getElement(),
                               lhsBase, lhs.getPitch(), rhsBase, rhs.getPitch(),
                               lhs.getShape()[1], adaptor.getAcc());
    rewriter.replaceOp(op, sum);
    return success();
  }
};

/// tile.dot_wait: wgmma.wait_group 0 as inline assembly whose outputs are
/// the accumulator's registers, tied to its inputs, so that every read of
/// the result comes after the wait (an untied wait would let LLVM move a
/// read of a register the tensor cores still write above it).
struct DotWaitLowering : TilePattern<tile::DotWaitOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::DotWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value acc = adaptor.getAcc();
    auto vecType = dyn_cast<VectorType>(acc.getType());
    if (!vecType || !vecType.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "needs an f32 fragment vector");
    int64_t n = vecType.getNumElements();
    SmallVector<Value> elements;
    std::string constraints;
    for (int64_t i = 0; i < n; ++i) {
      elements.push_back(
          vector::ExtractOp::create(rewriter, loc, acc, ArrayRef<int64_t>{i}));
      constraints += i ? ",=f" : "=f";
    }
    for (int64_t i = 0; i < n; ++i)
      constraints += "," + std::to_string(i);
    SmallVector<Type> fields(n, rewriter.getF32Type());
    auto structType =
        LLVM::LLVMStructType::getLiteral(rewriter.getContext(), fields);
    Value wait = lower::asmValue(rewriter, loc, structType,
                                 "wgmma.wait_group.sync.aligned 0;",
                                 constraints, elements);
    SmallVector<Value> done;
    for (int64_t i = 0; i < n; ++i)
      done.push_back(LLVM::ExtractValueOp::create(rewriter, loc, wait, i));
    rewriter.replaceOp(
        op, vector::FromElementsOp::create(rewriter, loc, vecType, done));
    return success();
  }
};

} // namespace

void dslc::populateStagedLoweringPatterns(TileTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<AsyncCopyLowering, AsyncCommitLowering, AsyncWaitLowering,
               StagedDotLowering, DotWaitLowering>(converter,
                                                   patterns.getContext());
}
