//===- LoweringUtils.cpp - Shared helpers of the tile lowering -----------===//

#include "compiler/Conversion/LoweringUtils.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace dslc;

TileTypeConverter::TileTypeConverter(MLIRContext *ctx, const KernelInfo &info)
    : info(info) {
  addConversion([](Type t) { return t; });
  addConversion([this](RankedTensorType t) -> Type {
    return VectorType::get({this->info.layout(t.getShape()).perThread()},
                           t.getElementType());
  });
  addConversion([ctx](tile::RefType t) -> Type {
    SmallVector<Type> fields{lower::ptrType(ctx)};
    fields.append(t.getRank(), IntegerType::get(ctx, 64));
    return LLVM::LLVMStructType::getLiteral(ctx, fields);
  });
  // A stack: the peer address table, the number of peers, then the sizes.
  addConversion([ctx](comm::StackType t) -> Type {
    SmallVector<Type> fields{lower::ptrType(ctx), IntegerType::get(ctx, 64)};
    fields.append(t.getRank(), IntegerType::get(ctx, 64));
    return LLVM::LLVMStructType::getLiteral(ctx, fields);
  });
  auto cast = [](OpBuilder &b, Type type, ValueRange inputs,
                 Location loc) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, type, inputs)
        .getResult(0);
  };
  addSourceMaterialization(cast);
  addTargetMaterialization(cast);
}

namespace dslc::lower {

Type ptrType(MLIRContext *ctx) { return LLVM::LLVMPointerType::get(ctx, 1); }

Value i64(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 64);
}

Value i32(OpBuilder &b, Location loc, int32_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 32);
}

Value threadId(OpBuilder &b, Location loc) {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  return arith::ExtUIOp::create(b, loc, b.getI64Type(), tid);
}

Value toI64(OpBuilder &b, Location loc, Value index) {
  if (index.getType().isInteger(64))
    return index;
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

Value toIndex(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isIndex())
    return v;
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

Value field(OpBuilder &b, Location loc, Value s, int64_t i) {
  return LLVM::ExtractValueOp::create(b, loc, s, ArrayRef<int64_t>{i});
}

Value elementPtr(OpBuilder &b, Location loc, Value base, Type elementType,
                 Value index) {
  return LLVM::GEPOp::create(b, loc, base.getType(), elementType, base,
                             ValueRange{index});
}

Value linearIndex(OpBuilder &b, Location loc, ValueRange coords,
                  ValueRange sizes) {
  Value linear = coords.front();
  for (size_t d = 1; d < coords.size(); ++d) {
    linear = arith::MulIOp::create(b, loc, linear, sizes[d]);
    linear = arith::AddIOp::create(b, loc, linear, coords[d]);
  }
  return linear;
}

static LLVM::InlineAsmOp buildAsm(OpBuilder &b, Location loc, Type type,
                                  StringRef asmString, StringRef constraints,
                                  ValueRange operands) {
  std::string allConstraints = constraints.str();
  allConstraints += allConstraints.empty() ? "~{memory}" : ",~{memory}";
  return LLVM::InlineAsmOp::create(
      b, loc, type, operands, b.getStringAttr(asmString),
      b.getStringAttr(allConstraints), b.getUnitAttr(), UnitAttr(),
      LLVM::TailCallKindAttr(),
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      ArrayAttr());
}

Value asmValue(OpBuilder &b, Location loc, Type type, StringRef asmString,
               StringRef constraints, ValueRange operands) {
  return buildAsm(b, loc, type, asmString, constraints, operands).getResult(0);
}

void asmStatement(OpBuilder &b, Location loc, StringRef asmString,
                  StringRef constraints, ValueRange operands) {
  buildAsm(b, loc, Type(), asmString, constraints, operands);
}

void ctaBarrier(OpBuilder &b, Location loc) {
  NVVM::Barrier0Op::create(b, loc);
}

HiddenArgs hiddenArgs(Operation *inKernel) {
  auto func = inKernel->getParentOfType<func::FuncOp>();
  assert(func && func.getNumArguments() >= kNumHiddenArgs &&
         "kernel signature not flattened");
  unsigned n = func.getNumArguments();
  return {func.getArgument(n - 3), func.getArgument(n - 2),
          func.getArgument(n - 1)};
}

std::pair<unsigned, unsigned> lineAndColumn(Location loc) {
  if (auto flc = dyn_cast<FileLineColLoc>(loc))
    return {flc.getLine(), flc.getColumn()};
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations()) {
      auto lc = lineAndColumn(inner);
      if (lc.first)
        return lc;
    }
  if (auto named = dyn_cast<NameLoc>(loc))
    return lineAndColumn(named.getChildLoc());
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return lineAndColumn(callSite.getCallee());
  return {0, 0};
}

void recordErrorAndTrap(OpBuilder &b, Location loc, Operation *inKernel,
                        const SpinSite &site, Value seen) {
  HiddenArgs hidden = hiddenArgs(inKernel);
  MLIRContext *ctx = b.getContext();
  Type i8 = b.getI8Type();
  Value record = hidden.error;
  Value null = LLVM::ZeroOp::create(b, loc, ptrType(ctx));
  Value hasRecord =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, record, null);
  scf::IfOp::create(b, loc, hasRecord, [&](OpBuilder &b, Location loc) {
    // Claim the record: status 0 -> 0xffffffff (being filled).
    Value claimed = asmValue(
        b, loc, b.getI32Type(),
        "atom.relaxed.sys.global.cas.b32 $0, [$1], 0, -1;", "=r,l",
        ValueRange{LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), record)});
    Value won = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, claimed,
                                      i32(b, loc, 0));
    scf::IfOp::create(b, loc, won, [&](OpBuilder &b, Location loc) {
      // Field offsets of DslcErrorRecord (docs/kernel-abi.md); 8-byte
      // fields are 8-byte aligned.
      auto store = [&](int32_t offset, Value v) {
        Value p = LLVM::GEPOp::create(b, loc, ptrType(ctx), i8, record,
                                      ArrayRef<LLVM::GEPArg>{offset});
        unsigned align = v.getType().getIntOrFloatBitWidth() / 8;
        LLVM::StoreOp::create(b, loc, v, p, align, /*isVolatile=*/true);
      };
      auto [line, column] = lineAndColumn(loc);
      store(4, i32(b, loc, line));
      store(8, i32(b, loc, column));
      store(12, NVVM::BlockIdXOp::create(b, loc, b.getI32Type()));
      store(16, site.slot);
      store(24, site.expected);
      store(32, seen);
      store(40, site.address);
      asmStatement(b, loc, "fence.sc.sys;", "", {});
      store(0, i32(b, loc, static_cast<int32_t>(site.status)));
      asmStatement(b, loc, "fence.sc.sys;", "", {});
      scf::YieldOp::create(b, loc);
    });
    // A thread that lost the claim lets the winner finish the record before
    // trapping (a trap ends the whole grid): it polls the status for a
    // bounded number of rounds.
    Value lost = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                       claimed, i32(b, loc, 0));
    scf::IfOp::create(b, loc, lost, [&](OpBuilder &b, Location loc) {
      Value address =
          LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), record);
      scf::WhileOp::create(
          b, loc, TypeRange{b.getI32Type()}, ValueRange{i32(b, loc, 0)},
          [&](OpBuilder &b, Location loc, ValueRange args) {
            Value status = asmValue(b, loc, b.getI32Type(),
                                    "ld.volatile.global.b32 $0, [$1];", "=r,l",
                                    ValueRange{address});
            Value filling = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::eq, status, i32(b, loc, -1));
            Value rounds = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::slt, args[0],
                i32(b, loc, 1 << 20));
            Value more = arith::AndIOp::create(b, loc, filling, rounds);
            scf::ConditionOp::create(b, loc, more, args);
          },
          [&](OpBuilder &b, Location loc, ValueRange args) {
            Value next = arith::AddIOp::create(b, loc, args[0], i32(b, loc, 1));
            scf::YieldOp::create(b, loc, next);
          });
      scf::YieldOp::create(b, loc);
    });
    scf::YieldOp::create(b, loc);
  });
  LLVM::Trap::create(b, loc);
}

SmallVector<Value> boundedSpinWithValues(
    OpBuilder &b, Location loc, Operation *inKernel, TypeRange types,
    const std::function<std::tuple<Value, Value, SmallVector<Value>>(
        OpBuilder &, Location)> &attempt,
    const SpinSite &site) {
  HiddenArgs hidden = hiddenArgs(inKernel);
  Value start = NVVM::GlobalTimerOp::create(b, loc, b.getI64Type());
  auto loop = scf::WhileOp::create(
      b, loc, types, ValueRange{},
      [&](OpBuilder &b, Location loc, ValueRange) {
        auto [done, seen, values] = attempt(b, loc);
        Value pending = arith::XOrIOp::create(
            b, loc, done, arith::ConstantIntOp::create(b, loc, 1, 1));
        Value bounded = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ne, hidden.timeoutNs, i64(b, loc, 0));
        Value check = arith::AndIOp::create(b, loc, pending, bounded);
        scf::IfOp::create(b, loc, check, [&](OpBuilder &b, Location loc) {
          Value now = NVVM::GlobalTimerOp::create(b, loc, b.getI64Type());
          Value elapsed = arith::SubIOp::create(b, loc, now, start);
          Value expired = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ugt, elapsed, hidden.timeoutNs);
          scf::IfOp::create(b, loc, expired, [&](OpBuilder &b, Location loc) {
            recordErrorAndTrap(b, loc, inKernel, site, seen);
            scf::YieldOp::create(b, loc);
          });
          scf::YieldOp::create(b, loc);
        });
        scf::ConditionOp::create(b, loc, pending, values);
      },
      [&](OpBuilder &b, Location loc, ValueRange) {
        scf::YieldOp::create(b, loc);
      });
  return SmallVector<Value>(loop.getResults());
}

void boundedSpin(
    OpBuilder &b, Location loc, Operation *inKernel,
    const std::function<std::pair<Value, Value>(OpBuilder &, Location)>
        &attempt,
    const SpinSite &site) {
  boundedSpinWithValues(
      b, loc, inKernel, TypeRange{},
      [&](OpBuilder &b, Location loc) {
        auto [done, seen] = attempt(b, loc);
        return std::make_tuple(done, seen, SmallVector<Value>{});
      },
      site);
}

} // namespace dslc::lower
