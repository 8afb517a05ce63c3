//===- InterpreterArith.cpp - arith ops and tile.reduce -------------------===//
//
// Scalars and elementwise tiles of the arith dialect, computed in double or
// int64 and rounded/wrapped to the result type; tile.reduce.
//
//===----------------------------------------------------------------------===//

#include "compiler/Simulator/Interpreter.h"
#include "compiler/Simulator/InterpreterSupport.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>

using namespace mlir;
using namespace dslc;
using namespace dslc::sim;

namespace {

ElemType elemTypeOf(Type t) {
  if (auto ranked = dyn_cast<RankedTensorType>(t))
    return ElemType::fromType(ranked.getElementType());
  return ElemType::fromType(t);
}

/// Applies `f` (on doubles) or `g` (on int64) elementwise / on scalars.
struct Elementwise {
  static double fop(StringRef name, double a, double b) {
    if (name == "arith.addf")
      return a + b;
    if (name == "arith.subf")
      return a - b;
    if (name == "arith.mulf")
      return a * b;
    if (name == "arith.divf")
      return a / b;
    if (name == "arith.remf")
      return std::fmod(a, b);
    if (name == "arith.maximumf")
      return maximumF(a, b);
    if (name == "arith.minimumf")
      return minimumF(a, b);
    if (name == "arith.maxnumf") // the number if one is NaN
      return std::fmax(a, b);
    if (name == "arith.minnumf")
      return std::fmin(a, b);
    return NAN;
  }
  static bool iop(StringRef name, int64_t a, int64_t b, int64_t &r) {
    uint64_t ua = a, ub = b;
    if (name == "arith.addi")
      r = int64_t(ua + ub);
    else if (name == "arith.subi")
      r = int64_t(ua - ub);
    else if (name == "arith.muli")
      r = int64_t(ua * ub);
    else if (name == "arith.andi")
      r = a & b;
    else if (name == "arith.ori")
      r = a | b;
    else if (name == "arith.xori")
      r = a ^ b;
    else if (name == "arith.maxsi")
      r = std::max(a, b);
    else if (name == "arith.minsi")
      r = std::min(a, b);
    else if (name == "arith.maxui")
      r = int64_t(std::max(ua, ub));
    else if (name == "arith.minui")
      r = int64_t(std::min(ua, ub));
    else if (name == "arith.shli")
      r = b >= 64 ? 0 : int64_t(ua << b);
    else if (name == "arith.shrsi")
      r = b >= 64 ? (a < 0 ? -1 : 0) : a >> b;
    else if (name == "arith.shrui")
      r = b >= 64 ? 0 : int64_t(ua >> b);
    else {
      if (b == 0)
        return false;
      if (name == "arith.divsi")
        r = a / b;
      else if (name == "arith.divui")
        r = int64_t(ua / ub);
      else if (name == "arith.remsi")
        r = a % b;
      else if (name == "arith.remui")
        r = int64_t(ua % ub);
      else if (name == "arith.floordivsi")
        r = a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
      else if (name == "arith.ceildivsi")
        r = a / b + ((a % b != 0) && ((a < 0) == (b < 0)));
      else if (name == "arith.ceildivui")
        r = int64_t(ua / ub + (ua % ub != 0));
      else
        return false;
    }
    return true;
  }
};

bool cmpInt(arith::CmpIPredicate p, int64_t a, int64_t b) {
  uint64_t ua = a, ub = b;
  switch (p) {
  case arith::CmpIPredicate::eq:
    return a == b;
  case arith::CmpIPredicate::ne:
    return a != b;
  case arith::CmpIPredicate::slt:
    return a < b;
  case arith::CmpIPredicate::sle:
    return a <= b;
  case arith::CmpIPredicate::sgt:
    return a > b;
  case arith::CmpIPredicate::sge:
    return a >= b;
  case arith::CmpIPredicate::ult:
    return ua < ub;
  case arith::CmpIPredicate::ule:
    return ua <= ub;
  case arith::CmpIPredicate::ugt:
    return ua > ub;
  case arith::CmpIPredicate::uge:
    return ua >= ub;
  }
  return false;
}

bool cmpFloat(arith::CmpFPredicate p, double a, double b) {
  bool unordered = std::isnan(a) || std::isnan(b);
  switch (p) {
  case arith::CmpFPredicate::AlwaysFalse:
    return false;
  case arith::CmpFPredicate::AlwaysTrue:
    return true;
  case arith::CmpFPredicate::OEQ:
    return !unordered && a == b;
  case arith::CmpFPredicate::OGT:
    return !unordered && a > b;
  case arith::CmpFPredicate::OGE:
    return !unordered && a >= b;
  case arith::CmpFPredicate::OLT:
    return !unordered && a < b;
  case arith::CmpFPredicate::OLE:
    return !unordered && a <= b;
  case arith::CmpFPredicate::ONE:
    return !unordered && a != b;
  case arith::CmpFPredicate::ORD:
    return !unordered;
  case arith::CmpFPredicate::UEQ:
    return unordered || a == b;
  case arith::CmpFPredicate::UGT:
    return unordered || a > b;
  case arith::CmpFPredicate::UGE:
    return unordered || a >= b;
  case arith::CmpFPredicate::ULT:
    return unordered || a < b;
  case arith::CmpFPredicate::ULE:
    return unordered || a <= b;
  case arith::CmpFPredicate::UNE:
    return unordered || a != b;
  case arith::CmpFPredicate::UNO:
    return unordered;
  }
  return false;
}

} // namespace

Interpreter::Outcome Interpreter::execArith(Task &task, Operation &op) {
  StringRef name = op.getName().getStringRef();
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    Attribute value = c.getValue();
    if (auto i = dyn_cast<IntegerAttr>(value)) {
      ElemType t = ElemType::fromType(i.getType());
      task.values[c.getResult()] =
          RtValue::ofInt(wrapInt(t, t.bits == 1 ? i.getValue().getZExtValue()
                                                : i.getValue().getSExtValue()));
    } else if (auto f = dyn_cast<FloatAttr>(value)) {
      task.values[c.getResult()] = RtValue::ofFloat(f.getValueAsDouble());
    } else if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
      auto tile = emptyTile(c.getType());
      int64_t k = 0;
      if (tile->type.isFloat())
        for (APFloat v : dense.getValues<APFloat>())
          tile->f[k++] = v.convertToDouble();
      else
        for (APInt v : dense.getValues<APInt>())
          tile->i[k++] = wrapInt(tile->type, tile->type.bits == 1
                                                 ? int64_t(v.getZExtValue())
                                                 : v.getSExtValue());
      task.values[c.getResult()] = RtValue::ofTile(tile);
    } else {
      return fail(task, op, "unsupported constant");
    }
    return Outcome::Next;
  }

  if (op.getNumResults() != 1)
    return fail(task, op, "unsupported op '" + name.str() + "'");
  Type resultType = op.getResult(0).getType();
  ElemType rt = elemTypeOf(resultType);
  bool isTile = isa<RankedTensorType>(resultType);
  std::shared_ptr<TileVal> out = isTile ? emptyTile(resultType) : nullptr;
  int64_t n = isTile ? out->numel() : 1;

  // Element k of operand `v` as double / int.
  auto fAt = [&](const RtValue &v, int64_t k) -> double {
    if (v.kind == RtValue::Kind::Tile)
      return v.tile->type.isFloat() ? v.tile->f[k] : double(v.tile->i[k]);
    return v.kind == RtValue::Kind::Float ? v.f : double(v.i);
  };
  auto iAt = [&](const RtValue &v, int64_t k) -> int64_t {
    if (v.kind == RtValue::Kind::Tile)
      return v.tile->type.isFloat() ? int64_t(v.tile->f[k]) : v.tile->i[k];
    return v.kind == RtValue::Kind::Float ? int64_t(v.f) : v.i;
  };
  auto operandType = [&](unsigned k) {
    return elemTypeOf(op.getOperand(k).getType());
  };
  std::vector<const RtValue *> in;
  for (Value v : op.getOperands())
    in.push_back(&get(task, v));

  auto setF = [&](int64_t k, double v) {
    if (isTile)
      out->f[k] = v;
    else
      task.values[op.getResult(0)] = RtValue::ofFloat(v);
  };
  auto setI = [&](int64_t k, int64_t v) {
    if (isTile)
      out->i[k] = v;
    else
      task.values[op.getResult(0)] = RtValue::ofInt(v);
  };

  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    ElemType t = operandType(0);
    for (int64_t k = 0; k < n; ++k) {
      int64_t a = iAt(*in[0], k), b = iAt(*in[1], k);
      if (t.isUnsigned || t.bits < 64) {
        // Compare as the operand's width (sign bits already in place).
      }
      setI(k, cmpInt(cmp.getPredicate(), a, b));
    }
  } else if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    for (int64_t k = 0; k < n; ++k)
      setI(k, cmpFloat(cmp.getPredicate(), fAt(*in[0], k), fAt(*in[1], k)));
  } else if (isa<arith::SelectOp>(op)) {
    for (int64_t k = 0; k < n; ++k) {
      bool c = iAt(*in[0], in[0]->kind == RtValue::Kind::Tile ? k : 0);
      const RtValue &pick = c ? *in[1] : *in[2];
      if (rt.isFloat())
        setF(k, fAt(pick, k));
      else
        setI(k, iAt(pick, k));
    }
  } else if (isa<arith::NegFOp>(op)) {
    for (int64_t k = 0; k < n; ++k)
      setF(k, -fAt(*in[0], k));
  } else if (isa<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp>(op)) {
    for (int64_t k = 0; k < n; ++k)
      setF(k, roundTo(rt, fAt(*in[0], k)));
  } else if (isa<arith::UIToFPOp>(op)) {
    ElemType from = operandType(0);
    for (int64_t k = 0; k < n; ++k) {
      int64_t v = iAt(*in[0], k);
      uint64_t u = from.bits >= 64
                       ? uint64_t(v)
                       : uint64_t(v) & ((uint64_t(1) << from.bits) - 1);
      setF(k, roundTo(rt, double(u)));
    }
  } else if (isa<arith::FPToSIOp, arith::FPToUIOp>(op)) {
    ElemType to = rt;
    to.isUnsigned = isa<arith::FPToUIOp>(op);
    for (int64_t k = 0; k < n; ++k)
      setI(k, wrapInt(rt, toInteger(to, fAt(*in[0], k))));
  } else if (isa<arith::ExtUIOp, arith::IndexCastUIOp>(op)) {
    ElemType from = operandType(0);
    for (int64_t k = 0; k < n; ++k) {
      int64_t v = iAt(*in[0], k);
      uint64_t u = from.bits >= 64
                       ? uint64_t(v)
                       : uint64_t(v) & ((uint64_t(1) << from.bits) - 1);
      setI(k, wrapInt(rt, int64_t(u)));
    }
  } else if (isa<arith::ExtSIOp, arith::TruncIOp, arith::IndexCastOp>(op)) {
    for (int64_t k = 0; k < n; ++k)
      setI(k, wrapInt(rt, iAt(*in[0], k)));
  } else if (op.getNumOperands() == 2 && rt.isFloat()) {
    for (int64_t k = 0; k < n; ++k)
      setF(k,
           roundTo(rt, Elementwise::fop(name, fAt(*in[0], k), fAt(*in[1], k))));
    if (!name.ends_with("f"))
      return fail(task, op, "unsupported op '" + name.str() + "'");
  } else if (op.getNumOperands() == 2) {
    for (int64_t k = 0; k < n; ++k) {
      int64_t r = 0;
      if (!Elementwise::iop(name, iAt(*in[0], k), iAt(*in[1], k), r))
        return fail(task, op,
                    iAt(*in[1], k) == 0 && name.contains("div")
                        ? "integer division by zero"
                        : "unsupported op '" + name.str() + "'");
      setI(k, wrapInt(rt, r));
    }
  } else {
    return fail(task, op, "unsupported op '" + name.str() + "'");
  }
  if (isTile)
    task.values[op.getResult(0)] = RtValue::ofTile(out);
  return Outcome::Next;
}
