//===- PacketLowering.cpp - LL packets and the per-CTA epoch to PTX ------===//
//
// LL packets carry data and a flag in one store, so a reader that sees the
// flag sees the data: no fence, no barrier (NCCL's LL protocols).
//   LL16: st.volatile.global.v4.b32 {d0, flag, d1, flag}   8 data bytes
//   LL8:  st.volatile.global.v2.b32 {d0, flag}             4 data bytes
// A thread's piece of the tile (TileLayout.h) becomes D / payload packets;
// packet k of the tile lives at scratch + (slot + k) * packet bytes. The
// reader polls its packets with ld.volatile.global until every flag word
// equals the flag, bounded by the kernel's timeout like a wait.
//
// comm.epoch is a per-CTA launch counter in the kernel's state buffer
// (state[blockIdx.x], 4 bytes): this launch's value is the stored one plus
// one. Every thread reads it once, at the kernel's start (DistributeTiles
// hoists the op there), so the read overlaps the first loads; the CTA's
// thread 0 stores the new value after a final bar.sync (no second read).
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/LoweringUtils.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace dslc;

namespace {

/// How a tile maps onto packets for one thread.
struct PacketPlan {
  TileLayout layout;
  int64_t packetBytes; ///< 8 or 16.
  int64_t payload;     ///< Data bytes per packet (half the packet).
  int64_t pieceBytes;  ///< Data bytes of one piece.
  int64_t perPiece;    ///< Packets per piece.
  unsigned elementBytes;
  int64_t packets; ///< Packets of the whole tile.
  /// The tile's last piece holds fewer than perPiece packets.
  bool partialPieces;
};

FailureOr<PacketPlan> planPackets(Operation *op, const KernelInfo &info,
                                  RankedTensorType tile, int64_t packet) {
  PacketPlan plan;
  plan.layout = info.layout(tile.getShape());
  plan.packetBytes = packet;
  plan.payload = comm::packetPayloadBytes(packet);
  plan.elementBytes = tile.getElementType().getIntOrFloatBitWidth() / 8;
  plan.pieceBytes = plan.layout.vec * plan.elementBytes;
  if (plan.pieceBytes % plan.payload != 0)
    return op->emitOpError()
           << "a thread's piece of this tile holds " << plan.pieceBytes
           << " bytes, not a whole number of " << plan.payload
           << "-byte packet payloads; use a larger tile";
  plan.perPiece = plan.pieceBytes / plan.payload;
  // Whole packets (the verifier: packetTileProblem).
  int64_t bytes = tile.getNumElements() * plan.elementBytes;
  plan.packets = bytes / plan.payload;
  plan.partialPieces = bytes % plan.pieceBytes != 0;
  return plan;
}

/// First tile element of piece `c` of this thread, and whether it is inside
/// the tile (threads past a small tile hold nothing).
std::pair<Value, Value> pieceStart(OpBuilder &b, Location loc,
                                   const PacketPlan &plan, int64_t c) {
  const TileLayout &l = plan.layout;
  Value tid = lower::threadId(b, loc);
  Value start = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, tid, lower::i64(b, loc, l.vec)),
      lower::i64(b, loc, c * l.threads * l.vec));
  Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, start,
                                       lower::i64(b, loc, l.inner));
  return {start, inside};
}

/// Whether packet `index` (i64, counted from the tile's first) is one of
/// the tile's.
Value packetInside(OpBuilder &b, Location loc, const PacketPlan &plan,
                   Value index) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index,
                               lower::i64(b, loc, plan.packets));
}

/// Address (i64) of packet `slot + index` of `scratch`.
Value packetAddress(OpBuilder &b, Location loc, Value scratchPtr, Value slot,
                    Value index, int64_t packetBytes) {
  Value packet = arith::AddIOp::create(b, loc, slot, index);
  Value offset =
      arith::MulIOp::create(b, loc, packet, lower::i64(b, loc, packetBytes));
  Value base = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), scratchPtr);
  return arith::AddIOp::create(b, loc, base, offset);
}

/// Traps (error record status 3) when packets [slot, slot + count) do not
/// all fit in the scratch tensor, instead of writing past it.
void checkPacketRange(OpBuilder &b, Location loc, Operation *op, Value scratch,
                      tile::RefType scratchType, Value slot, int64_t count,
                      int64_t packetBytes) {
  Value bytes = lower::i64(
      b, loc, scratchType.getElementType().getIntOrFloatBitWidth() / 8);
  for (unsigned d = 0; d < scratchType.getRank(); ++d)
    bytes = arith::MulIOp::create(b, loc, bytes,
                                  lower::field(b, loc, scratch, 1 + d));
  Value capacity =
      arith::DivUIOp::create(b, loc, bytes, lower::i64(b, loc, packetBytes));
  Value end = arith::AddIOp::create(b, loc, slot, lower::i64(b, loc, count));
  Value outside =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, end, capacity);
  scf::IfOp::create(b, loc, outside, [&](OpBuilder &b, Location loc) {
    Value base = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(),
                                          lower::field(b, loc, scratch, 0));
    lower::SpinSite site{ErrorStatus::SlotOutOfBounds, slot, capacity, base};
    lower::recordErrorAndTrap(b, loc, op, site, end);
    scf::YieldOp::create(b, loc);
  });
}

struct LLPutOpLowering : TilePattern<comm::LLPutOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(comm::LLPutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType tile = op.getValue().getType();
    auto plan = planPackets(op, info, tile, op.getPacket());
    if (failed(plan))
      return failure();
    Value scratch = lower::field(rewriter, loc, adaptor.getScratch(), 0);
    Value slot = lower::toI64(rewriter, loc, adaptor.getSlot());
    Value flag = adaptor.getFlag();
    Value value = adaptor.getValue();
    checkPacketRange(rewriter, loc, op, adaptor.getScratch(),
                     op.getScratch().getType(), slot, plan->packets,
                     op.getPacket());
    auto words = VectorType::get({plan->pieceBytes / 4}, rewriter.getI32Type());
    for (int64_t c = 0; c < plan->layout.chunks; ++c) {
      auto [start, inside] = pieceStart(rewriter, loc, *plan, c);
      scf::IfOp::create(rewriter, loc, inside, [&](OpBuilder &b, Location loc) {
        Value piece = vector::ExtractStridedSliceOp::create(
            b, loc, value, ArrayRef<int64_t>{plan->layout.position(0, c, 0)},
            ArrayRef<int64_t>{plan->layout.vec}, ArrayRef<int64_t>{1});
        Value w = LLVM::BitcastOp::create(b, loc, words, piece);
        Value first = arith::DivUIOp::create(
            b, loc,
            arith::MulIOp::create(b, loc, start,
                                  lower::i64(b, loc, plan->elementBytes)),
            lower::i64(b, loc, plan->payload));
        int64_t wordsPerPacket = plan->payload / 4;
        for (int64_t k = 0; k < plan->perPiece; ++k) {
          Value index =
              arith::AddIOp::create(b, loc, first, lower::i64(b, loc, k));
          auto store = [&](OpBuilder &b, Location loc) {
            Value address =
                packetAddress(b, loc, scratch, slot, index, plan->packetBytes);
            SmallVector<Value> operands{address};
            for (int64_t j = 0; j < wordsPerPacket; ++j) {
              operands.push_back(vector::ExtractOp::create(
                  b, loc, w, ArrayRef<int64_t>{k * wordsPerPacket + j}));
              operands.push_back(flag);
            }
            if (plan->packetBytes == 16)
              lower::asmStatement(
                  b, loc, "st.volatile.global.v4.b32 [$0], {$1, $2, $3, $4};",
                  "l,r,r,r,r", operands);
            else
              lower::asmStatement(b, loc,
                                  "st.volatile.global.v2.b32 [$0], {$1, $2};",
                                  "l,r,r", operands);
          };
          if (!plan->partialPieces) {
            store(b, loc);
            continue;
          }
          // The last piece of a tile that is not a whole number of pieces:
          // only its packets inside the tile are written (the others are
          // the next slots' packets, or past the scratch).
          scf::IfOp::create(b, loc, packetInside(b, loc, *plan, index),
                            [&](OpBuilder &b, Location loc) {
                              store(b, loc);
                              scf::YieldOp::create(b, loc);
                            });
        }
        scf::YieldOp::create(b, loc);
      });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct LLGetOpLowering : TilePattern<comm::LLGetOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(comm::LLGetOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType tile = op.getResult().getType();
    auto plan = planPackets(op, info, tile, op.getPacket());
    if (failed(plan))
      return failure();
    auto resultType = cast<VectorType>(getTypeConverter()->convertType(tile));
    Type element = tile.getElementType();
    Value scratch = lower::field(rewriter, loc, adaptor.getScratch(), 0);
    Value slot = lower::toI64(rewriter, loc, adaptor.getSlot());
    Value flag = adaptor.getFlag();
    checkPacketRange(rewriter, loc, op, adaptor.getScratch(),
                     op.getScratch().getType(), slot, plan->packets,
                     op.getPacket());
    Type i32 = rewriter.getI32Type();
    auto pieceType = VectorType::get({plan->layout.vec}, element);
    auto words = VectorType::get({plan->pieceBytes / 4}, i32);
    int64_t wordsPerPacket = plan->payload / 4;
    Value result = arith::ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(resultType, rewriter.getZeroAttr(element)));
    Operation *anchor = op;
    for (int64_t c = 0; c < plan->layout.chunks; ++c) {
      auto [start, inside] = pieceStart(rewriter, loc, *plan, c);
      auto ifOp = scf::IfOp::create(
          rewriter, loc, inside,
          [&](OpBuilder &b, Location loc) {
            Value first = arith::DivUIOp::create(
                b, loc,
                arith::MulIOp::create(b, loc, start,
                                      lower::i64(b, loc, plan->elementBytes)),
                lower::i64(b, loc, plan->payload));
            Value w = LLVM::UndefOp::create(b, loc, words);
            // Poll the piece's packets together: every attempt loads all of
            // them (independent loads, one round trip) and succeeds when
            // every flag word holds the flag; the spin returns the words of
            // the successful attempt.
            Type fields = plan->packetBytes == 16
                              ? LLVM::LLVMStructType::getLiteral(
                                    b.getContext(), {i32, i32, i32, i32})
                              : LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                                 {i32, i32});
            // A packet past the tile (in the last piece of a tile that is
            // not a whole number of pieces) is not polled: its address is
            // the piece's first packet's, and its flag counts as seen.
            SmallVector<Value> addresses, inside;
            for (int64_t k = 0; k < plan->perPiece; ++k) {
              Value index =
                  arith::AddIOp::create(b, loc, first, lower::i64(b, loc, k));
              Value address = packetAddress(b, loc, scratch, slot, index,
                                            plan->packetBytes);
              if (plan->partialPieces && k > 0) {
                Value in = packetInside(b, loc, *plan, index);
                address = arith::SelectOp::create(b, loc, in, address,
                                                  addresses.front());
                inside.push_back(in);
              } else {
                inside.push_back(Value());
              }
              addresses.push_back(address);
            }
            lower::SpinSite site{
                ErrorStatus::PacketTimeout,
                arith::AddIOp::create(b, loc, slot, first),
                arith::ExtSIOp::create(b, loc, b.getI64Type(), flag),
                addresses.front()};
            SmallVector<Type> types(plan->perPiece, fields);
            SmallVector<Value> got = lower::boundedSpinWithValues(
                b, loc, anchor, types,
                [&](OpBuilder &b, Location loc) {
                  SmallVector<Value> loaded;
                  for (Value address : addresses)
                    loaded.push_back(
                        plan->packetBytes == 16
                            ? lower::asmValue(
                                  b, loc, fields,
                                  "ld.volatile.global.v4.b32 {$0, $1, $2, "
                                  "$3}, [$4];",
                                  "=r,=r,=r,=r,l", ValueRange{address})
                            : lower::asmValue(
                                  b, loc, fields,
                                  "ld.volatile.global.v2.b32 {$0, $1}, [$2];",
                                  "=r,=r,l", ValueRange{address}));
                  Value done = arith::ConstantIntOp::create(b, loc, 1, 1);
                  Value seen;
                  for (auto [packet, in] : llvm::zip(loaded, inside))
                    for (int64_t j = 0; j < wordsPerPacket; ++j) {
                      Value f = lower::field(b, loc, packet, 2 * j + 1);
                      Value ok = arith::CmpIOp::create(
                          b, loc, arith::CmpIPredicate::eq, f, flag);
                      if (in)
                        ok = arith::OrIOp::create(
                            b, loc, ok,
                            arith::XOrIOp::create(
                                b, loc, in,
                                arith::ConstantIntOp::create(b, loc, 1, 1)));
                      // Report the first flag word that is not there yet.
                      seen =
                          seen ? arith::SelectOp::create(b, loc, done, f, seen)
                               : f;
                      done = arith::AndIOp::create(b, loc, done, ok);
                    }
                  return std::make_tuple(done,
                                         Value(arith::ExtSIOp::create(
                                             b, loc, b.getI64Type(), seen)),
                                         loaded);
                },
                site);
            for (int64_t k = 0; k < plan->perPiece; ++k)
              for (int64_t j = 0; j < wordsPerPacket; ++j)
                w = vector::InsertOp::create(
                    b, loc, lower::field(b, loc, got[k], 2 * j), w,
                    ArrayRef<int64_t>{k * wordsPerPacket + j});
            scf::YieldOp::create(
                b, loc, Value(LLVM::BitcastOp::create(b, loc, pieceType, w)));
          },
          [&](OpBuilder &b, Location loc) {
            Value zero = arith::ConstantOp::create(
                b, loc,
                DenseElementsAttr::get(pieceType, b.getZeroAttr(element)));
            scf::YieldOp::create(b, loc, zero);
          });
      result = vector::InsertStridedSliceOp::create(
          rewriter, loc, ifOp.getResult(0), result,
          ArrayRef<int64_t>{plan->layout.position(0, c, 0)},
          ArrayRef<int64_t>{1});
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct EpochOpLowering : OpConversionPattern<comm::EpochOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(comm::EpochOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value counter = lower::epochCounter(rewriter, loc, op);
    Value stored =
        LLVM::LoadOp::create(rewriter, loc, rewriter.getI32Type(), counter, 4);
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, stored,
                                               lower::i32(rewriter, loc, 1));
    return success();
  }
};

} // namespace

namespace dslc::lower {

Value epochCounter(OpBuilder &b, Location loc, Operation *inKernel) {
  HiddenArgs hidden = hiddenArgs(inKernel);
  Value cta = arith::ExtUIOp::create(
      b, loc, b.getI64Type(), NVVM::BlockIdXOp::create(b, loc, b.getI32Type()));
  return elementPtr(b, loc, hidden.state, b.getI32Type(), cta);
}

void advanceEpoch(OpBuilder &b, Location loc, Operation *inKernel,
                  Value epoch) {
  ctaBarrier(b, loc);
  // %tid.x and %ctaid.x are read again here, in inline asm that LLVM cannot
  // merge with the reads at the kernel's start: merged, the thread id or
  // the counter's address is live across the whole grid-stride loop, and
  // ptxas parks it in local memory (an 8-byte stack frame and a spill in LL
  // kernels that otherwise need 40 to 80 registers).
  Type word = b.getI32Type();
  Value tid = asmValue(b, loc, word, "mov.u32 $0, %tid.x;", "=r", ValueRange{});
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                      i32(b, loc, 0));
  scf::IfOp::create(b, loc, first, [&](OpBuilder &b, Location loc) {
    Value cta = arith::ExtUIOp::create(
        b, loc, b.getI64Type(),
        asmValue(b, loc, word, "mov.u32 $0, %ctaid.x;", "=r", ValueRange{}));
    Value counter = elementPtr(b, loc, hiddenArgs(inKernel).state, word, cta);
    LLVM::StoreOp::create(b, loc, epoch, counter, 4);
    scf::YieldOp::create(b, loc);
  });
}

} // namespace dslc::lower

void dslc::populatePacketLoweringPatterns(TileTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<LLPutOpLowering, LLGetOpLowering>(converter, ctx);
  patterns.add<EpochOpLowering>(converter, ctx);
}
