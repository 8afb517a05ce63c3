//===- CommLowering.cpp - stacks, signal and wait to PTX -----------------===//
//
// The memory semantics are Helion's, spelled in PTX (docs/compiler.md,
// "Memory semantics"):
//   signal: bar.sync (with has_previous_mem_access), then per slot and peer
//           atom.<sem>.<scope>.global.exch, or a bounded CAS loop
//           wait_for -> signal;
//   wait:   one thread per slot spins on ld.<sem>.<scope>.global (or
//           atom.<sem>.<scope>.global.cas signal -> update), bounded by the
//           kernel's timeout; then bar.sync (with has_subsequent_mem_access).
// The flag accesses are inline PTX so that the ordering and scope reach the
// assembler exactly as written (llc drops them on some atomics).
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/LoweringUtils.h"

#include "dialects/Comm/CommDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace dslc;

namespace {

std::string scopeSuffix(comm::MemScope scope) {
  return scope == comm::MemScope::sys ? ".sys" : ".gpu";
}

std::string semSuffix(comm::MemSem sem) {
  switch (sem) {
  case comm::MemSem::relaxed:
    return ".relaxed";
  case comm::MemSem::acquire:
    return ".acquire";
  case comm::MemSem::release:
    return ".release";
  case comm::MemSem::acq_rel:
    return ".acq_rel";
  }
  llvm_unreachable("unknown memory ordering");
}

Value buildStruct(OpBuilder &b, Location loc, Type type, ValueRange fields) {
  Value s = LLVM::UndefOp::create(b, loc, type);
  for (auto [i, f] : llvm::enumerate(fields))
    s = LLVM::InsertValueOp::create(b, loc, s, f,
                                    ArrayRef<int64_t>{(int64_t)i});
  return s;
}

/// Address of peer `peer` (i64) in the table of a converted stack.
Value peerAddress(OpBuilder &b, Location loc, Value table, Value peer) {
  Value entry = lower::elementPtr(b, loc, table, b.getI64Type(), peer);
  Value address = LLVM::LoadOp::create(b, loc, b.getI64Type(), entry, 8);
  return LLVM::IntToPtrOp::create(b, loc, lower::ptrType(b.getContext()),
                                  address);
}

/// The slots of a signal or wait: a box `extents` at `indices` in a pad of
/// `sizes`. Slot number `s` (i64) of the box, as pad coordinates.
SmallVector<Value> slotCoords(OpBuilder &b, Location loc, ValueRange indices,
                              ArrayRef<int64_t> extents, Value s) {
  SmallVector<Value> coords(indices.size());
  Value rest = s;
  for (int64_t d = extents.size() - 1; d >= 0; --d) {
    Value idx = lower::toI64(b, loc, indices[d]);
    if (extents[d] == 1) {
      coords[d] = idx;
      continue;
    }
    Value e = lower::i64(b, loc, extents[d]);
    coords[d] = arith::AddIOp::create(b, loc, idx,
                                      arith::RemUIOp::create(b, loc, rest, e));
    rest = arith::DivUIOp::create(b, loc, rest, e);
  }
  return coords;
}

/// Traps with an error record when a slot coordinate is outside its pad.
void checkSlotBounds(OpBuilder &b, Location loc, Operation *op,
                     ValueRange coords, ValueRange sizes, Value linear,
                     Value address) {
  for (auto [coord, size] : llvm::zip(coords, sizes)) {
    Value outside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, coord, size);
    scf::IfOp::create(b, loc, outside, [&](OpBuilder &b, Location loc) {
      lower::SpinSite site{ErrorStatus::SlotOutOfBounds, linear, size, address};
      lower::recordErrorAndTrap(b, loc, op, site, coord);
      scf::YieldOp::create(b, loc);
    });
  }
}

/// `for (w = tid; w < count; w += threads) body(w)`, w an i64.
void forEachThreadItem(
    OpBuilder &b, Location loc, int64_t threads, Value count,
    const std::function<void(OpBuilder &, Location, Value)> &body) {
  Value lb = lower::toIndex(b, loc, lower::threadId(b, loc));
  Value ub = lower::toIndex(b, loc, count);
  Value step = arith::ConstantIndexOp::create(b, loc, threads);
  scf::ForOp::create(b, loc, lb, ub, step, ValueRange{},
                     [&](OpBuilder &b, Location loc, Value iv, ValueRange) {
                       body(b, loc, lower::toI64(b, loc, iv));
                       scf::YieldOp::create(b, loc);
                     });
}

int64_t boxSize(ArrayRef<int64_t> extents) {
  int64_t n = 1;
  for (int64_t e : extents)
    n *= e;
  return n;
}

struct StackViewOpLowering : OpConversionPattern<comm::StackViewOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(comm::StackViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> fields{
        lower::field(rewriter, loc, adaptor.getTable(), 0),
        lower::field(rewriter, loc, adaptor.getTable(), 1)};
    for (unsigned d = 0; d < op.getLike().getType().getRank(); ++d)
      fields.push_back(lower::field(rewriter, loc, adaptor.getLike(), 1 + d));
    Type type = getTypeConverter()->convertType(op.getResult().getType());
    rewriter.replaceOp(op, buildStruct(rewriter, loc, type, fields));
    return success();
  }
};

struct PeerOpLowering : OpConversionPattern<comm::PeerOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(comm::PeerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value table = lower::field(rewriter, loc, adaptor.getStack(), 0);
    Value peer = lower::toI64(rewriter, loc, adaptor.getPeer());
    SmallVector<Value> fields{peerAddress(rewriter, loc, table, peer)};
    for (unsigned d = 0; d < op.getResult().getType().getRank(); ++d)
      fields.push_back(lower::field(rewriter, loc, adaptor.getStack(), 2 + d));
    Type type = getTypeConverter()->convertType(op.getResult().getType());
    rewriter.replaceOp(op, buildStruct(rewriter, loc, type, fields));
    return success();
  }
};

struct SignalOpLowering : TilePattern<comm::SignalOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(comm::SignalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    bool isStack = isa<comm::StackType>(op.getPad().getType());
    Value pad = adaptor.getPad();
    unsigned rank = op.getIndices().size();
    unsigned firstSize = isStack ? 2 : 1;
    SmallVector<Value> sizes;
    for (unsigned d = 0; d < rank; ++d)
      sizes.push_back(lower::field(rewriter, loc, pad, firstSize + d));
    Value base = lower::field(rewriter, loc, pad, 0);
    int64_t slots = boxSize(op.getExtents());
    Value peers = isStack ? lower::field(rewriter, loc, pad, 1)
                          : lower::i64(rewriter, loc, 1);
    Value count = arith::MulIOp::create(rewriter, loc, peers,
                                        lower::i64(rewriter, loc, slots));

    if (op.getHasPreviousMemAccess())
      lower::ctaBarrier(rewriter, loc);

    std::string suffix = semSuffix(op.getSem()) + scopeSuffix(op.getScope());
    int64_t value = op.getSignal();
    std::optional<int64_t> waitFor = op.getWaitFor();
    Operation *anchor = op;
    forEachThreadItem(
        rewriter, loc, info.threads, count,
        [&](OpBuilder &b, Location loc, Value item) {
          Value slotsV = lower::i64(b, loc, slots);
          Value slot = arith::RemUIOp::create(b, loc, item, slotsV);
          Value ptr = base;
          if (isStack) {
            Value peer = arith::DivUIOp::create(b, loc, item, slotsV);
            ptr = peerAddress(b, loc, base, peer);
          }
          SmallVector<Value> coords =
              slotCoords(b, loc, adaptor.getIndices(), op.getExtents(), slot);
          Value linear = lower::linearIndex(b, loc, coords, sizes);
          Value flag = lower::elementPtr(b, loc, ptr, b.getI32Type(), linear);
          Value address =
              LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), flag);
          checkSlotBounds(b, loc, anchor, coords, sizes, linear, address);
          Value newValue = lower::i32(b, loc, static_cast<int32_t>(value));
          if (!waitFor) {
            lower::asmValue(b, loc, b.getI32Type(),
                            "atom" + suffix + ".global.exch.b32 $0, [$1], $2;",
                            "=r,l,r", ValueRange{address, newValue});
            return;
          }
          Value expected = lower::i32(b, loc, static_cast<int32_t>(*waitFor));
          lower::SpinSite site{ErrorStatus::WaitTimeout, linear,
                               lower::i64(b, loc, *waitFor), address};
          lower::boundedSpin(
              b, loc, anchor,
              [&](OpBuilder &b, Location loc) {
                Value old = lower::asmValue(
                    b, loc, b.getI32Type(),
                    "atom" + suffix + ".global.cas.b32 $0, [$1], $2, $3;",
                    "=r,l,r,r", ValueRange{address, expected, newValue});
                Value done = arith::CmpIOp::create(
                    b, loc, arith::CmpIPredicate::eq, old, expected);
                Value seen =
                    arith::ExtSIOp::create(b, loc, b.getI64Type(), old);
                return std::make_pair(done, seen);
              },
              site);
        });
    rewriter.eraseOp(op);
    return success();
  }
};

struct WaitOpLowering : TilePattern<comm::WaitOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(comm::WaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value pad = adaptor.getPad();
    unsigned rank = op.getIndices().size();
    SmallVector<Value> sizes;
    for (unsigned d = 0; d < rank; ++d)
      sizes.push_back(lower::field(rewriter, loc, pad, 1 + d));
    Value base = lower::field(rewriter, loc, pad, 0);
    int64_t slots = boxSize(op.getExtents());
    std::string scope = scopeSuffix(op.getScope());
    // A plain load can only acquire; an update is a CAS with the op's order.
    comm::MemSem sem = op.getSem();
    std::string loadSem =
        sem == comm::MemSem::relaxed ? ".relaxed" : ".acquire";
    int64_t value = op.getSignal();
    std::optional<int64_t> update = op.getUpdate();
    Operation *anchor = op;
    forEachThreadItem(
        rewriter, loc, info.threads, lower::i64(rewriter, loc, slots),
        [&](OpBuilder &b, Location loc, Value slot) {
          SmallVector<Value> coords =
              slotCoords(b, loc, adaptor.getIndices(), op.getExtents(), slot);
          Value linear = lower::linearIndex(b, loc, coords, sizes);
          Value flag = lower::elementPtr(b, loc, base, b.getI32Type(), linear);
          Value address =
              LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), flag);
          checkSlotBounds(b, loc, anchor, coords, sizes, linear, address);
          Value expected = lower::i32(b, loc, static_cast<int32_t>(value));
          lower::SpinSite site{ErrorStatus::WaitTimeout, linear,
                               lower::i64(b, loc, value), address};
          lower::boundedSpin(
              b, loc, anchor,
              [&](OpBuilder &b, Location loc) {
                Value seen;
                if (update) {
                  Value newValue =
                      lower::i32(b, loc, static_cast<int32_t>(*update));
                  seen = lower::asmValue(
                      b, loc, b.getI32Type(),
                      "atom" + semSuffix(sem) + scope +
                          ".global.cas.b32 $0, [$1], $2, $3;",
                      "=r,l,r,r", ValueRange{address, expected, newValue});
                } else {
                  seen = lower::asmValue(b, loc, b.getI32Type(),
                                         "ld" + loadSem + scope +
                                             ".global.b32 $0, [$1];",
                                         "=r,l", ValueRange{address});
                }
                Value done = arith::CmpIOp::create(
                    b, loc, arith::CmpIPredicate::eq, seen, expected);
                return std::make_pair(done, Value(arith::ExtSIOp::create(
                                                b, loc, b.getI64Type(), seen)));
              },
              site);
        });
    if (op.getHasSubsequentMemAccess())
      lower::ctaBarrier(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

/// `for (p = 0; p < peers; ++p) body(p)`, p an i64, carrying `init`.
ValueRange
forEachPeer(OpBuilder &b, Location loc, Value peers, ValueRange init,
            const std::function<SmallVector<Value>(OpBuilder &, Location, Value,
                                                   ValueRange)> &body) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, zero, lower::toIndex(b, loc, peers), one, init,
      [&](OpBuilder &b, Location loc, Value iv, ValueRange carried) {
        scf::YieldOp::create(b, loc,
                             body(b, loc, lower::toI64(b, loc, iv), carried));
      });
  return loop.getResults();
}

/// With --multicast=nvls the stack's address table holds one more entry
/// after the peers: the multicast (multimem) address of the buffer.
Value multicastAddress(OpBuilder &b, Location loc, Value stack) {
  return peerAddress(b, loc, lower::field(b, loc, stack, 0),
                     lower::field(b, loc, stack, 1));
}

/// The PTX type suffix of a 16-byte multimem access of `element`s.
std::optional<std::string> multimemType(Type element) {
  if (element.isBF16())
    return std::string("bf16x2");
  if (element.isF16())
    return std::string("f16x2");
  if (element.isF32())
    return std::string("f32");
  return std::nullopt;
}

/// Whether the pieces of a tile of `layout` are the 16 bytes one multimem
/// access moves (not those of a replicated tile, nor the wider pieces of a
/// kernel whose bulk is fp8): the others go peer by peer.
bool multimemPieces(Type element, const TileLayout &layout) {
  return layout.vec * element.getIntOrFloatBitWidth() == 128;
}

struct MulticastStoreOpLowering : TilePattern<comm::MulticastStoreOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(comm::MulticastStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType tile = op.getValue().getType();
    Value stack = adaptor.getStack();
    Value value = adaptor.getValue();
    Value table = lower::field(rewriter, loc, stack, 0);
    Value peers = lower::field(rewriter, loc, stack, 1);
    auto pieceOf = [&](OpBuilder &b, Location loc,
                       const lower::AccessPiece &piece) {
      return vector::ExtractStridedSliceOp::create(
          b, loc, value, ArrayRef<int64_t>{piece.position},
          ArrayRef<int64_t>{piece.vec}, ArrayRef<int64_t>{1});
    };
    // Software multicast: the same store into every peer's tensor. With
    // `tailsOnly`, only the pieces that are not full (after NVLS stored
    // the full ones).
    auto storeEverywhere = [&](OpBuilder &b, Location loc, bool tailsOnly) {
      forEachPeer(
          b, loc, peers, {},
          [&](OpBuilder &b, Location loc, Value p, ValueRange) {
            lower::TileAccess a = lower::makeAccess(
                b, loc, stack, /*firstSize=*/2, peerAddress(b, loc, table, p),
                adaptor.getOffsets(), adaptor.getLimits(), op.getDims(), tile);
            a.writes = true;
            lower::forEachPiece(
                b, loc, info, a, [&](const lower::AccessPiece &piece) {
                  if (!tailsOnly) {
                    lower::storePiece(b, loc, piece, pieceOf(b, loc, piece));
                    return;
                  }
                  Value partial = arith::XOrIOp::create(
                      b, loc, piece.full,
                      arith::ConstantIntOp::create(b, loc, 1, 1));
                  scf::IfOp::create(b, loc, partial,
                                    [&](OpBuilder &b, Location loc) {
                                      lower::storePiece(b, loc, piece,
                                                        pieceOf(b, loc, piece));
                                      scf::YieldOp::create(b, loc);
                                    });
                });
            return SmallVector<Value>{};
          });
    };
    auto type = multimemType(tile.getElementType());
    if (op.getMode() == comm::MulticastMode::nvls && !type)
      return rewriter.notifyMatchFailure(
          op, "multimem stores need bf16, f16 or f32 tiles");
    if (op.getMode() == comm::MulticastMode::software ||
        !multimemPieces(tile.getElementType(), info.layout(tile.getShape()))) {
      storeEverywhere(rewriter, loc, /*tailsOnly=*/false);
      rewriter.eraseOp(op);
      return success();
    }
    // NVLS: one multimem.st per full 16-byte piece through the multicast
    // address; partial pieces (the masked tail) go peer by peer.
    Value mc = multicastAddress(rewriter, loc, stack);
    lower::TileAccess a = lower::makeAccess(
        rewriter, loc, stack, /*firstSize=*/2, mc, adaptor.getOffsets(),
        adaptor.getLimits(), op.getDims(), tile);
    a.writes = true;
    Value anyPartial = arith::ConstantIntOp::create(rewriter, loc, 0, 1);
    lower::forEachPiece(
        rewriter, loc, info, a, [&](const lower::AccessPiece &piece) {
          Value words = LLVM::BitcastOp::create(
              rewriter, loc, VectorType::get({4}, rewriter.getI32Type()),
              pieceOf(rewriter, loc, piece));
          scf::IfOp::create(
              rewriter, loc, piece.full, [&](OpBuilder &b, Location loc) {
                SmallVector<Value> operands{LLVM::PtrToIntOp::create(
                    b, loc, b.getI64Type(), piece.base)};
                for (int64_t i = 0; i < 4; ++i)
                  operands.push_back(vector::ExtractOp::create(
                      b, loc, words, ArrayRef<int64_t>{i}));
                lower::asmStatement(b, loc,
                                    "multimem.st.relaxed.sys.global.v4." +
                                        *type + " [$0], {$1, $2, $3, $4};",
                                    "l,r,r,r,r", operands);
                scf::YieldOp::create(b, loc);
              });
          Value partial = arith::XOrIOp::create(
              rewriter, loc, piece.full,
              arith::ConstantIntOp::create(rewriter, loc, 1, 1));
          anyPartial = arith::OrIOp::create(rewriter, loc, anyPartial, partial);
        });
    scf::IfOp::create(rewriter, loc, anyPartial,
                      [&](OpBuilder &b, Location loc) {
                        storeEverywhere(b, loc, /*tailsOnly=*/true);
                        scf::YieldOp::create(b, loc);
                      });
    rewriter.eraseOp(op);
    return success();
  }
};

struct MulticastLoadReduceOpLowering
    : TilePattern<comm::MulticastLoadReduceOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(comm::MulticastLoadReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType tile = op.getResult().getType();
    Type element = tile.getElementType();
    auto resultType = cast<VectorType>(getTypeConverter()->convertType(tile));
    bool isFloat = isa<FloatType>(element);
    // 16-bit floats are summed in f32 and rounded once.
    Type accElement = isFloat && element.getIntOrFloatBitWidth() < 32
                          ? Type(rewriter.getF32Type())
                          : element;
    auto accType = VectorType::get(resultType.getShape(), accElement);
    Value stack = adaptor.getStack();
    Value table = lower::field(rewriter, loc, stack, 0);
    Value peers = lower::field(rewriter, loc, stack, 1);
    TileLayout layout = info.layout(tile.getShape());
    auto pieceType = VectorType::get({layout.vec}, element);
    Value zeroPiece = arith::ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(pieceType, rewriter.getZeroAttr(element)));
    Value init = arith::ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(accType, rewriter.getZeroAttr(accElement)));
    auto add = [&](OpBuilder &b, Location loc, Value x, Value y) -> Value {
      return isFloat ? Value(arith::AddFOp::create(b, loc, x, y))
                     : Value(arith::AddIOp::create(b, loc, x, y));
    };
    auto widen = [&](OpBuilder &b, Location loc, Value v) -> Value {
      if (accElement == element)
        return v;
      auto t =
          VectorType::get(cast<VectorType>(v.getType()).getShape(), accElement);
      return arith::ExtFOp::create(b, loc, t, v);
    };
    auto type = multimemType(element);
    if (op.getMode() == comm::MulticastMode::nvls && !type)
      return rewriter.notifyMatchFailure(
          op, "multimem reductions need bf16, f16 or f32 tiles");
    Value acc;
    if (op.getMode() == comm::MulticastMode::software ||
        !multimemPieces(element, layout)) {
      acc = forEachPeer(
          rewriter, loc, peers, init,
          [&](OpBuilder &b, Location loc, Value p, ValueRange carried) {
            Value sum = carried[0];
            lower::TileAccess a = lower::makeAccess(
                b, loc, stack, /*firstSize=*/2, peerAddress(b, loc, table, p),
                adaptor.getOffsets(), adaptor.getLimits(), op.getDims(), tile);
            lower::forEachPiece(
                b, loc, info, a, [&](const lower::AccessPiece &piece) {
                  Value v =
                      widen(b, loc, lower::loadPiece(b, loc, piece, zeroPiece));
                  Value old = vector::ExtractStridedSliceOp::create(
                      b, loc, sum, ArrayRef<int64_t>{piece.position},
                      ArrayRef<int64_t>{piece.vec}, ArrayRef<int64_t>{1});
                  sum = vector::InsertStridedSliceOp::create(
                      b, loc, add(b, loc, old, v), sum,
                      ArrayRef<int64_t>{piece.position}, ArrayRef<int64_t>{1});
                });
            return SmallVector<Value>{sum};
          })[0];
    } else {
      // NVLS: multimem.ld_reduce of full pieces through the multicast
      // address; the masked tail reads peer by peer.
      Value mc = multicastAddress(rewriter, loc, stack);
      lower::TileAccess a = lower::makeAccess(
          rewriter, loc, stack, /*firstSize=*/2, mc, adaptor.getOffsets(),
          adaptor.getLimits(), op.getDims(), tile);
      acc = init;
      lower::forEachPiece(
          rewriter, loc, info, a, [&](const lower::AccessPiece &piece) {
            auto words = VectorType::get({4}, rewriter.getI32Type());
            auto ifOp = scf::IfOp::create(
                rewriter, loc, piece.full,
                [&](OpBuilder &b, Location loc) {
                  Type i32 = b.getI32Type();
                  auto resultStruct = LLVM::LLVMStructType::getLiteral(
                      b.getContext(), {i32, i32, i32, i32});
                  Value r = lower::asmValue(
                      b, loc, resultStruct,
                      "multimem.ld_reduce.relaxed.sys.global.add.v4." + *type +
                          " {$0, $1, $2, $3}, [$4];",
                      "=r,=r,=r,=r,l",
                      ValueRange{LLVM::PtrToIntOp::create(
                          b, loc, b.getI64Type(), piece.base)});
                  Value w = LLVM::UndefOp::create(b, loc, words);
                  for (int64_t i = 0; i < 4; ++i)
                    w = vector::InsertOp::create(b, loc,
                                                 lower::field(b, loc, r, i), w,
                                                 ArrayRef<int64_t>{i});
                  Value v = LLVM::BitcastOp::create(b, loc, pieceType, w);
                  scf::YieldOp::create(b, loc, widen(b, loc, v));
                },
                [&](OpBuilder &b, Location loc) {
                  Value sum = forEachPeer(
                      b, loc, peers, ValueRange{widen(b, loc, zeroPiece)},
                      [&](OpBuilder &b, Location loc, Value p,
                          ValueRange carried) {
                        lower::AccessPiece peerPiece = piece;
                        Value offset = arith::SubIOp::create(
                            b, loc,
                            LLVM::PtrToIntOp::create(b, loc, b.getI64Type(),
                                                     piece.base),
                            LLVM::PtrToIntOp::create(b, loc, b.getI64Type(),
                                                     mc));
                        Value base = LLVM::PtrToIntOp::create(
                            b, loc, b.getI64Type(),
                            peerAddress(b, loc, table, p));
                        peerPiece.base = LLVM::IntToPtrOp::create(
                            b, loc, lower::ptrType(b.getContext()),
                            Value(arith::AddIOp::create(b, loc, base, offset)));
                        peerPiece.full =
                            arith::ConstantIntOp::create(b, loc, 0, 1);
                        Value v = widen(
                            b, loc,
                            lower::loadPiece(b, loc, peerPiece, zeroPiece));
                        return SmallVector<Value>{add(b, loc, carried[0], v)};
                      })[0];
                  scf::YieldOp::create(b, loc, sum);
                });
            acc = vector::InsertStridedSliceOp::create(
                rewriter, loc, ifOp.getResult(0), acc,
                ArrayRef<int64_t>{piece.position}, ArrayRef<int64_t>{1});
          });
    }
    if (accElement != element)
      acc = arith::TruncFOp::create(rewriter, loc, resultType, acc);
    rewriter.replaceOp(op, acc);
    return success();
  }
};

} // namespace

void dslc::populateCommLoweringPatterns(TileTypeConverter &converter,
                                        RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<StackViewOpLowering, PeerOpLowering>(converter, ctx);
  patterns.add<SignalOpLowering, WaitOpLowering, MulticastStoreOpLowering,
               MulticastLoadReduceOpLowering>(converter, ctx);
}
