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

/// A binary float op of the arith dialect, or null.
double (*floatOp(StringRef name))(double, double) {
  static const std::pair<const char *, double (*)(double, double)> table[] = {
      {"arith.addf", [](double a, double b) { return a + b; }},
      {"arith.subf", [](double a, double b) { return a - b; }},
      {"arith.mulf", [](double a, double b) { return a * b; }},
      {"arith.divf", [](double a, double b) { return a / b; }},
      {"arith.remf", [](double a, double b) { return std::fmod(a, b); }},
      {"arith.maximumf", [](double a, double b) { return maximumF(a, b); }},
      {"arith.minimumf", [](double a, double b) { return minimumF(a, b); }},
      // The number if one is NaN.
      {"arith.maxnumf", [](double a, double b) { return std::fmax(a, b); }},
      {"arith.minnumf", [](double a, double b) { return std::fmin(a, b); }},
  };
  for (auto &[op, f] : table)
    if (name == op)
      return f;
  return nullptr;
}

/// A binary integer op on values of `bits` bits (stored sign-extended):
/// unsigned ops see them zero-extended; shifts past the width give 0 (or
/// the sign), as PTX clamps them; INT_MIN / -1 wraps. False for a division
/// by zero (`r` untouched).
using IntOp = bool (*)(int64_t a, int64_t b, uint64_t mask, int64_t &r);

IntOp intOp(StringRef name) {
  static const std::pair<const char *, IntOp> table[] = {
      {"arith.addi",
       [](int64_t a, int64_t b, uint64_t, int64_t &r) {
         r = int64_t(uint64_t(a) + uint64_t(b));
         return true;
       }},
      {"arith.subi",
       [](int64_t a, int64_t b, uint64_t, int64_t &r) {
         r = int64_t(uint64_t(a) - uint64_t(b));
         return true;
       }},
      {"arith.muli",
       [](int64_t a, int64_t b, uint64_t, int64_t &r) {
         r = int64_t(uint64_t(a) * uint64_t(b));
         return true;
       }},
      {"arith.andi", [](int64_t a, int64_t b, uint64_t,
                        int64_t &r) { return r = a & b, true; }},
      {"arith.ori", [](int64_t a, int64_t b, uint64_t,
                       int64_t &r) { return r = a | b, true; }},
      {"arith.xori", [](int64_t a, int64_t b, uint64_t,
                        int64_t &r) { return r = a ^ b, true; }},
      {"arith.maxsi", [](int64_t a, int64_t b, uint64_t,
                         int64_t &r) { return r = std::max(a, b), true; }},
      {"arith.minsi", [](int64_t a, int64_t b, uint64_t,
                         int64_t &r) { return r = std::min(a, b), true; }},
      {"arith.maxui",
       [](int64_t a, int64_t b, uint64_t m, int64_t &r) {
         return r = (uint64_t(a) & m) >= (uint64_t(b) & m) ? a : b, true;
       }},
      {"arith.minui",
       [](int64_t a, int64_t b, uint64_t m, int64_t &r) {
         return r = (uint64_t(a) & m) <= (uint64_t(b) & m) ? a : b, true;
       }},
      {"arith.shli",
       [](int64_t a, int64_t b, uint64_t m, int64_t &r) {
         uint64_t s = uint64_t(b) & m;
         return r = s >= 64 ? 0 : int64_t(uint64_t(a) << s), true;
       }},
      {"arith.shrsi",
       [](int64_t a, int64_t b, uint64_t m, int64_t &r) {
         uint64_t s = uint64_t(b) & m;
         return r = s >= 64 ? (a < 0 ? -1 : 0) : a >> s, true;
       }},
      {"arith.shrui",
       [](int64_t a, int64_t b, uint64_t m, int64_t &r) {
         uint64_t s = uint64_t(b) & m;
         return r = s >= 64 ? 0 : int64_t((uint64_t(a) & m) >> s), true;
       }},
      {"arith.divsi",
       [](int64_t a, int64_t b, uint64_t, int64_t &r) {
         if (b == 0)
           return false;
         return r = b == -1 ? int64_t(0 - uint64_t(a)) : a / b, true;
       }},
      {"arith.remsi",
       [](int64_t a, int64_t b, uint64_t, int64_t &r) {
         if (b == 0)
           return false;
         return r = b == -1 ? 0 : a % b, true;
       }},
      {"arith.divui",
       [](int64_t a, int64_t b, uint64_t m, int64_t &r) {
         if ((uint64_t(b) & m) == 0)
           return false;
         return r = int64_t((uint64_t(a) & m) / (uint64_t(b) & m)), true;
       }},
      {"arith.remui",
       [](int64_t a, int64_t b, uint64_t m, int64_t &r) {
         if ((uint64_t(b) & m) == 0)
           return false;
         return r = int64_t((uint64_t(a) & m) % (uint64_t(b) & m)), true;
       }},
      {"arith.floordivsi",
       [](int64_t a, int64_t b, uint64_t, int64_t &r) {
         if (b == 0)
           return false;
         if (b == -1)
           return r = int64_t(0 - uint64_t(a)), true;
         return r = a / b - ((a % b != 0) && ((a < 0) != (b < 0))), true;
       }},
      {"arith.ceildivsi",
       [](int64_t a, int64_t b, uint64_t, int64_t &r) {
         if (b == 0)
           return false;
         if (b == -1)
           return r = int64_t(0 - uint64_t(a)), true;
         return r = a / b + ((a % b != 0) && ((a < 0) == (b < 0))), true;
       }},
      {"arith.ceildivui",
       [](int64_t a, int64_t b, uint64_t m, int64_t &r) {
         uint64_t ua = uint64_t(a) & m, ub = uint64_t(b) & m;
         if (ub == 0)
           return false;
         return r = int64_t(ua / ub + (ua % ub != 0)), true;
       }},
  };
  for (auto &[op, f] : table)
    if (name == op)
      return f;
  return nullptr;
}

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

/// The tile of a dense constant.
std::shared_ptr<TileVal> constantTile(Type type, DenseElementsAttr dense) {
  auto tile = emptyTile(type);
  auto decodeF = [](const APFloat &v) { return v.convertToDouble(); };
  auto decodeI = [&](const APInt &v) {
    return wrapInt(tile->type, tile->type.bits == 1 ? int64_t(v.getZExtValue())
                                                    : v.getSExtValue());
  };
  if (dense.isSplat()) {
    if (tile->type.isFloat())
      std::fill(tile->f.begin(), tile->f.end(),
                decodeF(dense.getSplatValue<APFloat>()));
    else
      std::fill(tile->i.begin(), tile->i.end(),
                decodeI(dense.getSplatValue<APInt>()));
    return tile;
  }
  int64_t k = 0;
  if (tile->type.isFloat())
    for (APFloat v : dense.getValues<APFloat>())
      tile->f[k++] = decodeF(v);
  else
    for (APInt v : dense.getValues<APInt>())
      tile->i[k++] = decodeI(v);
  return tile;
}

} // namespace

Interpreter::Outcome Interpreter::execConstant(Task &task, Operation &op) {
  auto c = cast<arith::ConstantOp>(op);
  Attribute value = c.getValue();
  if (auto i = dyn_cast<IntegerAttr>(value)) {
    ElemType t = ElemType::fromType(i.getType());
    task.values[c.getResult()] =
        RtValue::ofInt(wrapInt(t, t.bits == 1 ? i.getValue().getZExtValue()
                                              : i.getValue().getSExtValue()));
  } else if (auto f = dyn_cast<FloatAttr>(value)) {
    task.values[c.getResult()] = RtValue::ofFloat(f.getValueAsDouble());
  } else if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    // Decoded once per op (tiles are never changed in place).
    std::shared_ptr<TileVal> &tile = world.constants[&op];
    if (!tile)
      tile = constantTile(c.getType(), dense);
    task.values[c.getResult()] = RtValue::ofTile(tile);
  } else {
    return fail(task, op, "unsupported constant");
  }
  return Outcome::Next;
}

Interpreter::Outcome Interpreter::execArith(Task &task, Operation &op) {
  StringRef name = op.getName().getStringRef();
  if (isa<arith::ConstantOp>(op))
    return execConstant(task, op);
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
  } else if (auto f = op.getNumOperands() == 2 && rt.isFloat() ? floatOp(name)
                                                               : nullptr) {
    bool tiles = isTile && in[0]->kind == RtValue::Kind::Tile &&
                 in[1]->kind == RtValue::Kind::Tile &&
                 in[0]->tile->type.isFloat() && in[1]->tile->type.isFloat();
    if (tiles) { // the common case, without per-element dispatch
      const double *a = in[0]->tile->f.data(), *b = in[1]->tile->f.data();
      double *r = out->f.data();
      if (rt.kind == ElemType::Kind::F32)
        for (int64_t k = 0; k < n; ++k)
          r[k] = static_cast<float>(f(a[k], b[k]));
      else
        for (int64_t k = 0; k < n; ++k)
          r[k] = roundTo(rt, f(a[k], b[k]));
    } else {
      for (int64_t k = 0; k < n; ++k)
        setF(k, roundTo(rt, f(fAt(*in[0], k), fAt(*in[1], k))));
    }
  } else if (auto g = op.getNumOperands() == 2 && !rt.isFloat() ? intOp(name)
                                                                : nullptr) {
    ElemType t = operandType(0);
    uint64_t mask = t.bits >= 64 || t.kind == ElemType::Kind::Index
                        ? ~uint64_t(0)
                        : (uint64_t(1) << t.bits) - 1;
    for (int64_t k = 0; k < n; ++k) {
      int64_t r = 0;
      if (!g(iAt(*in[0], k), iAt(*in[1], k), mask, r))
        return fail(task, op, "integer division by zero");
      setI(k, wrapInt(rt, r));
    }
  } else {
    return fail(task, op, "unsupported op '" + name.str() + "'");
  }
  if (isTile)
    task.values[op.getResult(0)] = RtValue::ofTile(out);
  return Outcome::Next;
}
