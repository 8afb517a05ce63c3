//===- LoweringUtils.cpp - Shared helpers of the tile lowering -----------===//

#include "compiler/Conversion/LoweringUtils.h"

#include "contract/KernelConfig.h"
#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace dslc;

TileTypeConverter::TileTypeConverter(MLIRContext *ctx, const KernelInfo &info)
    : info(info) {
  addConversion([](Type t) { return t; });
  addConversion([this](RankedTensorType t) -> Type {
    int64_t n = lower::mmaElementsPerThread(t).value_or(
        this->info.layout(t.getShape()).perThread());
    return VectorType::get({n}, lower::storageType(t.getElementType()));
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

TypedAttr reduceIdentity(tile::ReduceKind kind, Type element) {
  Builder b(element.getContext());
  if (auto f = dyn_cast<FloatType>(element)) {
    const llvm::fltSemantics &sem = f.getFloatSemantics();
    switch (kind) {
    case tile::ReduceKind::sum:
      return b.getFloatAttr(f, llvm::APFloat::getZero(sem));
    case tile::ReduceKind::prod:
      return b.getFloatAttr(f, llvm::APFloat::getOne(sem));
    case tile::ReduceKind::max:
      return b.getFloatAttr(f, llvm::APFloat::getInf(sem, /*Negative=*/true));
    case tile::ReduceKind::min:
      return b.getFloatAttr(f, llvm::APFloat::getInf(sem));
    }
  }
  unsigned width = element.getIntOrFloatBitWidth();
  bool isBool = width == 1;
  llvm::APInt value;
  switch (kind) {
  case tile::ReduceKind::sum:
    value = llvm::APInt::getZero(width);
    break;
  case tile::ReduceKind::prod:
    value = llvm::APInt(width, 1);
    break;
  case tile::ReduceKind::max:
    value = isBool ? llvm::APInt::getZero(width)
                   : llvm::APInt::getSignedMinValue(width);
    break;
  case tile::ReduceKind::min:
    value = isBool ? llvm::APInt::getAllOnes(width)
                   : llvm::APInt::getSignedMaxValue(width);
    break;
  }
  return b.getIntegerAttr(element, value);
}

Value reduceCombine(OpBuilder &b, Location loc, tile::ReduceKind kind, Value x,
                    Value y) {
  Type element = getElementTypeOrSelf(x.getType());
  bool isFloat = isa<FloatType>(element);
  bool isBool = element.isInteger(1);
  switch (kind) {
  case tile::ReduceKind::sum:
    return isFloat ? Value(arith::AddFOp::create(b, loc, x, y))
                   : Value(arith::AddIOp::create(b, loc, x, y));
  case tile::ReduceKind::prod:
    return isFloat ? Value(arith::MulFOp::create(b, loc, x, y))
                   : Value(arith::MulIOp::create(b, loc, x, y));
  case tile::ReduceKind::max:
    if (isFloat)
      return arith::MaximumFOp::create(b, loc, x, y);
    return isBool ? Value(arith::MaxUIOp::create(b, loc, x, y))
                  : Value(arith::MaxSIOp::create(b, loc, x, y));
  case tile::ReduceKind::min:
    if (isFloat)
      return arith::MinimumFOp::create(b, loc, x, y);
    return isBool ? Value(arith::MinUIOp::create(b, loc, x, y))
                  : Value(arith::MinSIOp::create(b, loc, x, y));
  }
  llvm_unreachable("unknown reduction kind");
}

Type storageType(Type element) {
  if (tile::isFp8Type(element))
    return IntegerType::get(element.getContext(), 8);
  return element;
}

Type memoryType(Type storage) {
  if (storage.isInteger(1))
    return IntegerType::get(storage.getContext(), 8);
  return storage;
}

TypedAttr storageAttr(TypedAttr value) {
  auto f = dyn_cast<FloatAttr>(value);
  if (!f || !tile::isFp8Type(f.getType()))
    return value;
  return IntegerAttr::get(storageType(f.getType()),
                          f.getValue().bitcastToAPInt());
}

Value splatConstant(OpBuilder &b, Location loc, VectorType type,
                    TypedAttr value) {
  return arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, storageAttr(value)));
}

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

/// Inline PTX; `effects`: with side effects and a memory clobber (neither
/// dropped nor moved across memory accesses), else a pure function of its
/// operands that LLVM may share and hoist.
static LLVM::InlineAsmOp buildAsm(OpBuilder &b, Location loc, Type type,
                                  StringRef asmString, StringRef constraints,
                                  ValueRange operands, bool effects = true) {
  std::string allConstraints = constraints.str();
  if (effects)
    allConstraints += allConstraints.empty() ? "~{memory}" : ",~{memory}";
  return LLVM::InlineAsmOp::create(
      b, loc, type, operands, b.getStringAttr(asmString),
      b.getStringAttr(allConstraints), effects ? b.getUnitAttr() : UnitAttr(),
      UnitAttr(), LLVM::TailCallKindAttr(),
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

Value globalLoad(OpBuilder &b, Location loc, Type type, Value ptr,
                 int64_t align, tile::Eviction evict) {
  auto vector = dyn_cast<VectorType>(type);
  Type element = vector ? vector.getElementType() : type;
  int64_t bits =
      element.getIntOrFloatBitWidth() * (vector ? vector.getNumElements() : 1);
  if (evict == tile::Eviction::normal ||
      (bits != 16 && bits != 32 && bits != 64 && bits != 128))
    return LLVM::LoadOp::create(b, loc, type, ptr, align);
  std::string which = evict == tile::Eviction::first ? "first" : "last";
  // The policy depends on nothing: LLVM may share and hoist it.
  Value policy =
      buildAsm(b, loc, b.getI64Type(),
               "createpolicy.fractional.L2::evict_" + which + ".b64 $0, 1.0;",
               "=l", ValueRange(), /*effects=*/false)
          .getResult(0);
  // 16 bits: one b16 register; else b32 registers (v2, v4).
  int64_t regs = bits == 16 ? 1 : bits / 32;
  Type reg = bits == 16 ? b.getI16Type() : b.getI32Type();
  std::string dests, constraints;
  for (int64_t r = 0; r < regs; ++r) {
    dests += (r ? ", $" : "$") + std::to_string(r);
    constraints += bits == 16 ? "=h," : "=r,";
  }
  if (regs > 1)
    dests = "{" + dests + "}";
  std::string asmString =
      "ld.global.L1::evict_" + which + ".L2::cache_hint" +
      (regs > 1 ? ".v" + std::to_string(regs) : std::string()) +
      (bits == 16 ? ".b16 " : ".b32 ") + dests + ", [$" + std::to_string(regs) +
      "], $" + std::to_string(regs + 1) + ";";
  Type resultType = regs == 1
                        ? reg
                        : LLVM::LLVMStructType::getLiteral(
                              b.getContext(), SmallVector<Type>(regs, reg));
  // A read of memory: with side effects and a memory clobber, so that it
  // is neither dropped nor moved across a store (asmValue).
  Value loaded = asmValue(b, loc, resultType, asmString, constraints + "l,l",
                          {ptr, policy});
  if (regs > 1) {
    SmallVector<Value> parts;
    for (int64_t r = 0; r < regs; ++r)
      parts.push_back(LLVM::ExtractValueOp::create(b, loc, loaded, r));
    loaded = vector::FromElementsOp::create(
        b, loc, VectorType::get({regs}, reg), parts);
  }
  return loaded.getType() == type
             ? loaded
             : LLVM::BitcastOp::create(b, loc, type, loaded).getResult();
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

/// The kernel's one out-of-line error path (docs/kernel-abi.md), built once
/// per module:
///   __dslc_error_trap(record, status, line, column, slot, expected, seen,
///                     address)
/// claims the error record (status 0 -> 0xffffffff), fills it, fences and
/// publishes the status, then traps; a thread that lost the claim polls the
/// status for a bounded number of rounds before trapping, so the winner can
/// finish (a trap ends the whole grid).
///
/// It is out of line, ends in an inline-asm `trap` and a return that LLVM
/// takes at its word, and every call of it is followed by a return from the
/// kernel (LowerToLLVM adds it after each call marked kErrorExitAttr). That
/// is what keeps ptxas's register use down, measured with ptxas 13.0 on the
/// LL examples at world size 8: with the record written inline and ending
/// in `trap` (with or without a return after it), or with a call LLVM knows
/// never returns (LLVM then lays the cold paths one after another and each
/// call falls through into the next), ptxas keeps each spin's slot, address
/// and loaded flag words live across all later spins: 255 registers and
/// spills. With a returning call and a kernel return the values die with
/// their spin (48 to 56 registers for the one-shot), and the 32 inlined
/// copies of the record become one function.
static LLVM::LLVMFuncOp errorTrapFunction(Operation *inKernel) {
  auto module = inKernel->getParentOfType<ModuleOp>();
  if (auto f = module.lookupSymbol<LLVM::LLVMFuncOp>(kErrorTrapFunction))
    return f;
  MLIRContext *ctx = module.getContext();
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  Location loc = b.getUnknownLoc();
  Type i32 = b.getI32Type(), i64 = b.getI64Type(), i8 = b.getI8Type();
  Type ptr = ptrType(ctx);
  auto type = LLVM::LLVMFunctionType::get(
      LLVM::LLVMVoidType::get(ctx), {ptr, i32, i32, i32, i64, i64, i64, i64});
  auto func = LLVM::LLVMFuncOp::create(b, loc, kErrorTrapFunction, type,
                                       LLVM::Linkage::Internal);
  func.setNoInline(true);
  Block *entry = func.addEntryBlock(b);
  Block *claim = new Block(), *fill = new Block(), *wait = new Block(),
        *trap = new Block();
  func.getBody().push_back(claim);
  func.getBody().push_back(fill);
  func.getBody().push_back(wait);
  func.getBody().push_back(trap);
  wait->addArgument(i32, loc);
  Value record = entry->getArgument(0);
  auto c32 = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i32, v);
  };

  b.setInsertionPointToEnd(entry);
  Value null = LLVM::ZeroOp::create(b, loc, ptr);
  Value hasRecord =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, record, null);
  LLVM::CondBrOp::create(b, loc, hasRecord, claim, trap);

  // Claim the record: status 0 -> 0xffffffff (being filled).
  b.setInsertionPointToEnd(claim);
  Value address = LLVM::PtrToIntOp::create(b, loc, i64, record);
  Value claimed =
      asmValue(b, loc, i32, "atom.relaxed.sys.global.cas.b32 $0, [$1], 0, -1;",
               "=r,l", ValueRange{address});
  Value won =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, claimed, c32(0));
  LLVM::CondBrOp::create(b, loc, won, fill, ValueRange{}, wait,
                         ValueRange{c32(0)});

  // Field offsets of DslcErrorRecord (docs/kernel-abi.md); 8-byte fields
  // are 8-byte aligned.
  b.setInsertionPointToEnd(fill);
  auto store = [&](int32_t offset, Value v) {
    Value p = LLVM::GEPOp::create(b, loc, ptr, i8, record,
                                  ArrayRef<LLVM::GEPArg>{offset});
    unsigned align = v.getType().getIntOrFloatBitWidth() / 8;
    LLVM::StoreOp::create(b, loc, v, p, align, /*isVolatile=*/true);
  };
  store(4, entry->getArgument(2));
  store(8, entry->getArgument(3));
  store(12, NVVM::BlockIdXOp::create(b, loc, i32));
  store(16, entry->getArgument(4));
  store(24, entry->getArgument(5));
  store(32, entry->getArgument(6));
  store(40, entry->getArgument(7));
  asmStatement(b, loc, "fence.sc.sys;", "", {});
  store(0, entry->getArgument(1));
  asmStatement(b, loc, "fence.sc.sys;", "", {});
  LLVM::BrOp::create(b, loc, ValueRange{}, trap);

  // A thread that lost the claim lets the winner finish the record.
  b.setInsertionPointToEnd(wait);
  Value round = wait->getArgument(0);
  Value status = asmValue(b, loc, i32, "ld.volatile.global.b32 $0, [$1];",
                          "=r,l", ValueRange{address});
  Value filling =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, status, c32(-1));
  Value rounds = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::slt, round,
                                      c32(1 << 20));
  Value more = LLVM::AndOp::create(b, loc, filling, rounds);
  Value next = LLVM::AddOp::create(b, loc, round, c32(1));
  LLVM::CondBrOp::create(b, loc, more, wait, ValueRange{next}, trap,
                         ValueRange{});

  // An inline-asm trap, not llvm.trap: LLVM must not learn that the function
  // never returns (see above).
  b.setInsertionPointToEnd(trap);
  asmStatement(b, loc, "trap;", "", {});
  LLVM::ReturnOp::create(b, loc, ValueRange{});
  return func;
}

void recordErrorAndTrap(OpBuilder &b, Location loc, Operation *inKernel,
                        const SpinSite &site, Value seen) {
  HiddenArgs hidden = hiddenArgs(inKernel);
  LLVM::LLVMFuncOp func = errorTrapFunction(inKernel);
  auto [line, column] = lineAndColumn(loc);
  auto call = LLVM::CallOp::create(
      b, loc, func,
      ValueRange{hidden.error, i32(b, loc, static_cast<int32_t>(site.status)),
                 i32(b, loc, line), i32(b, loc, column), site.slot,
                 site.expected, seen, site.address});
  call->setAttr(kErrorExitAttr, b.getUnitAttr());
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
        Value bounded = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                              hidden.timeoutNs, i64(b, loc, 0));
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

int64_t loadBytesPerThread(tile::LoadOp load, int64_t threads) {
  auto type = load.getResult().getType();
  Type element = type.getElementType();
  int64_t bits = type.getNumElements() *
                 (element.isIntOrFloat()
                      ? static_cast<int64_t>(element.getIntOrFloatBitWidth())
                      : 64);
  return llvm::divideCeil(llvm::divideCeil(bits, 8), threads);
}

int64_t kernelThreads(func::FuncOp func) {
  if (auto warps = func->getAttrOfType<IntegerAttr>(tile::kNumWarpsAttr))
    return warps.getInt() * contract::kWarpSize;
  return KernelInfo().threads;
}

bool mayWrite(Operation *op) {
  if (isa<comm::CommDialect>(op->getDialect()))
    return !isa<comm::PeerOp, comm::EpochOp>(op);
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return !isPure(op) && !op->hasTrait<OpTrait::IsTerminator>();
  return effects.hasEffect<MemoryEffects::Write>();
}

bool mayClobber(Operation *op, tile::LoadOp load) {
  if (auto store = dyn_cast<tile::StoreOp>(op)) {
    auto a = dyn_cast<BlockArgument>(tile::viewedTensor(store.getRef()));
    auto b = dyn_cast<BlockArgument>(tile::viewedTensor(load.getRef()));
    if (a && b && a != b && isa<func::FuncOp>(a.getOwner()->getParentOp()) &&
        isa<func::FuncOp>(b.getOwner()->getParentOp()))
      return false;
  }
  return mayWrite(op);
}

} // namespace dslc::lower
