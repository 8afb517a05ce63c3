//===- DivideWithoutCalls.cpp - divisions ptxas does not call out ---------===//
//
// A call anywhere in a function makes ptxas serialize every wgmma in it
// (each product waited for before the next is issued), and ptxas turns
// some single PTX instructions into calls of its own subroutines: the
// IEEE f32 division (div.rn.f32, rcp.rn.f32: a slow path) and every 64-bit
// integer division or remainder (div.s64, div.u64, rem.*64). In every
// function, f32 divisions with `afn` (-dslc-narrowed-fast-math: rounded to
// 16 bits after) become div.full.f32. In a function
// LowerToLLVM marks (`dslc.without_calls`: a kernel on wgmma):
// - f32 divisions become div.full.f32 (within 2 ulp);
// - 64-bit divisions and remainders by a value that is not a constant
//   (Helion's `tile_m.begin // (M_per_rank // SPLITS_PER_RANK)`) divide in
//   32 bits when both operands fit, as sizes and indices do, and otherwise
//   by a 64-step shift-and-subtract loop, with the signs of sdiv and srem
//   fixed after. Division by zero and INT64_MIN / -1 stay undefined, as
//   in LLVM.
// The marker is removed. PtxChecks still warns about any call-like
// instruction left in a wgmma kernel's PTX.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"

namespace dslc {
#define GEN_PASS_DEF_DIVIDEWITHOUTCALLS
#include "compiler/Conversion/Passes.h.inc"
} // namespace dslc

using namespace mlir;

namespace {

/// f32 divisions (scalar or vector) as div.full.f32: all of them, or
/// only those with `afn` (-dslc-narrowed-fast-math's).
void divideF32(LLVM::LLVMFuncOp f, bool all) {
  SmallVector<LLVM::FDivOp> divs;
  f.walk([&](LLVM::FDivOp op) {
    if (getElementTypeOrSelf(op.getType()).isF32() &&
        (all || LLVM::bitEnumContainsAll(op.getFastmathFlags(),
                                         LLVM::FastmathFlags::afn)))
      divs.push_back(op);
  });
  for (LLVM::FDivOp op : divs) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Type f32 = b.getF32Type();
    auto full = [&](Value x, Value y) -> Value {
      return LLVM::CallIntrinsicOp::create(
                 b, loc, f32, b.getStringAttr("llvm.nvvm.div.full"),
                 ValueRange{x, y})
          .getResult(0);
    };
    Value result;
    if (auto vec = dyn_cast<VectorType>(op.getType())) {
      result = LLVM::PoisonOp::create(b, loc, vec);
      for (int64_t i = 0; i < vec.getNumElements(); ++i) {
        Value at = LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                            b.getI32IntegerAttr(i));
        Value x = LLVM::ExtractElementOp::create(b, loc, op.getLhs(), at);
        Value y = LLVM::ExtractElementOp::create(b, loc, op.getRhs(), at);
        result = LLVM::InsertElementOp::create(b, loc, result, full(x, y), at);
      }
    } else {
      result = full(op.getLhs(), op.getRhs());
    }
    op.replaceAllUsesWith(result);
    op.erase();
  }
}

/// A 64-bit division or remainder `op` (sdiv, udiv, srem, urem) as the
/// blocks the file's comment describes; its result becomes an argument of
/// the block that held what followed it.
void divide64(Operation *op) {
  bool isSigned = isa<LLVM::SDivOp, LLVM::SRemOp>(op);
  bool isRem = isa<LLVM::SRemOp, LLVM::URemOp>(op);
  Location loc = op->getLoc();
  OpBuilder b(op);
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  auto c64 = [&](int64_t v) {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v))
        .getResult();
  };
  auto cmp = [&](LLVM::ICmpPredicate p, Value x, Value y) {
    return LLVM::ICmpOp::create(b, loc, p, x, y).getResult();
  };
  Value a = op->getOperand(0), d = op->getOperand(1);

  // Magnitudes (as unsigned) and the result's sign.
  Value ua = a, ud = d, negative;
  if (isSigned) {
    Value aNeg = cmp(LLVM::ICmpPredicate::slt, a, c64(0));
    Value dNeg = cmp(LLVM::ICmpPredicate::slt, d, c64(0));
    ua = LLVM::SelectOp::create(b, loc, aNeg,
                                LLVM::SubOp::create(b, loc, c64(0), a), a);
    ud = LLVM::SelectOp::create(b, loc, dNeg,
                                LLVM::SubOp::create(b, loc, c64(0), d), d);
    negative = isRem ? aNeg : LLVM::XOrOp::create(b, loc, aNeg, dNeg);
  }
  Value small = cmp(
      LLVM::ICmpPredicate::eq,
      LLVM::LShrOp::create(b, loc, LLVM::OrOp::create(b, loc, ua, ud), c64(32)),
      c64(0));

  Block *before = op->getBlock();
  Block *after = before->splitBlock(op);
  Region *region = before->getParent();
  auto newBlock = [&](ArrayRef<Type> types) {
    Block *block = new Block();
    region->getBlocks().insert(after->getIterator(), block);
    for (Type t : types)
      block->addArgument(t, loc);
    return block;
  };
  Block *fast = newBlock({});
  Block *header = newBlock({i64, i64, i64}); // step, quotient, remainder
  Block *body = newBlock({});
  Block *done = newBlock({i64});
  b.setInsertionPointToEnd(before);
  LLVM::CondBrOp::create(b, loc, small, fast, ValueRange{}, header,
                         ValueRange{c64(0), c64(0), c64(0)});

  // Both fit 32 bits: one 32-bit division.
  b.setInsertionPointToStart(fast);
  Value a32 = LLVM::TruncOp::create(b, loc, i32, ua);
  Value d32 = LLVM::TruncOp::create(b, loc, i32, ud);
  Value r32 = isRem ? LLVM::URemOp::create(b, loc, a32, d32).getResult()
                    : LLVM::UDivOp::create(b, loc, a32, d32).getResult();
  LLVM::BrOp::create(b, loc, ValueRange{LLVM::ZExtOp::create(b, loc, i64, r32)},
                     done);

  // Otherwise: a bit of the quotient a step, from the top.
  b.setInsertionPointToStart(header);
  Value step = header->getArgument(0), q = header->getArgument(1),
        r = header->getArgument(2);
  LLVM::CondBrOp::create(b, loc, cmp(LLVM::ICmpPredicate::ult, step, c64(64)),
                         body, ValueRange{}, done, ValueRange{isRem ? r : q});
  b.setInsertionPointToStart(body);
  Value bit = LLVM::AndOp::create(
      b, loc,
      LLVM::LShrOp::create(b, loc, ua,
                           LLVM::SubOp::create(b, loc, c64(63), step)),
      c64(1));
  Value shifted =
      LLVM::OrOp::create(b, loc, LLVM::ShlOp::create(b, loc, r, c64(1)), bit);
  // The remainder before the shift is below ud < 2^64, so when its top bit
  // was set the shifted value wrapped: it is then at least ud too.
  Value wrapped = cmp(LLVM::ICmpPredicate::slt, r, c64(0));
  Value fits = LLVM::OrOp::create(b, loc, wrapped,
                                  cmp(LLVM::ICmpPredicate::uge, shifted, ud));
  Value nextR = LLVM::SelectOp::create(
      b, loc, fits, LLVM::SubOp::create(b, loc, shifted, ud), shifted);
  Value nextQ =
      LLVM::OrOp::create(b, loc, LLVM::ShlOp::create(b, loc, q, c64(1)),
                         LLVM::ZExtOp::create(b, loc, i64, fits));
  LLVM::BrOp::create(
      b, loc,
      ValueRange{LLVM::AddOp::create(b, loc, step, c64(1)), nextQ, nextR},
      header);

  // The sign, then on with what followed.
  b.setInsertionPointToStart(done);
  Value result = done->getArgument(0);
  if (isSigned)
    result = LLVM::SelectOp::create(
        b, loc, negative, LLVM::SubOp::create(b, loc, c64(0), result), result);
  BlockArgument out = after->addArgument(i64, loc);
  LLVM::BrOp::create(b, loc, ValueRange{result}, after);
  op->getResult(0).replaceAllUsesWith(out);
  op->erase();
}

/// 64-bit integer divisions and remainders by a non-constant value.
void divideI64(LLVM::LLVMFuncOp f) {
  SmallVector<Operation *> ops;
  f.walk([&](Operation *op) {
    if (isa<LLVM::SDivOp, LLVM::UDivOp, LLVM::SRemOp, LLVM::URemOp>(op) &&
        op->getResult(0).getType().isInteger(64) &&
        !matchPattern(op->getOperand(1), m_Constant()))
      ops.push_back(op);
  });
  for (Operation *op : ops)
    divide64(op);
}

struct DivideWithoutCallsPass
    : public dslc::impl::DivideWithoutCallsBase<DivideWithoutCallsPass> {
  void runOnOperation() override {
    getOperation().walk([&](LLVM::LLVMFuncOp f) {
      if (!f->hasAttr(dslc::kWithoutCallsAttr)) {
        divideF32(f, /*all=*/false);
        return;
      }
      divideF32(f, /*all=*/true);
      divideI64(f);
      f->removeAttr(dslc::kWithoutCallsAttr);
    });
  }
};

} // namespace
