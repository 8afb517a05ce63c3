//===- GenCompare.cpp - Comparisons and run-time logic --------------------===//

#include "compiler/MLIRGen/Generator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;

namespace dslc::mlirgen {

/// A comparison of two compile-time values; nullopt when they are not
/// comparable at compile time.
static std::optional<bool>
compareConstants(ast::CompareOp op, const SemValue &a, const SemValue &b) {
  using CO = ast::CompareOp;
  using K = SemValue::Kind;
  if ((op == CO::Is || op == CO::IsNot) &&
      (a.kind == K::None || b.kind == K::None)) {
    bool same = a.kind == b.kind;
    return op == CO::Is ? same : !same;
  }
  if (a.kind == b.kind && (a.kind == K::String || a.kind == K::DType) &&
      (op == CO::Eq || op == CO::NotEq))
    return (a.text == b.text) == (op == CO::Eq);
  auto number = [](const SemValue &v) -> std::optional<double> {
    if (v.kind == K::Int)
      return double(v.intValue);
    if (v.kind == K::Float)
      return v.floatValue;
    return std::nullopt;
  };
  if (a.kind == K::Int && b.kind == K::Int) {
    int64_t x = a.intValue, y = b.intValue;
    switch (op) {
    case CO::Eq:
      return x == y;
    case CO::NotEq:
      return x != y;
    case CO::Lt:
      return x < y;
    case CO::LtE:
      return x <= y;
    case CO::Gt:
      return x > y;
    case CO::GtE:
      return x >= y;
    default:
      return std::nullopt;
    }
  }
  std::optional<double> x = number(a), y = number(b);
  if (!x || !y)
    return std::nullopt;
  switch (op) {
  case CO::Eq:
    return *x == *y;
  case CO::NotEq:
    return *x != *y;
  case CO::Lt:
    return *x < *y;
  case CO::LtE:
    return *x <= *y;
  case CO::Gt:
    return *x > *y;
  case CO::GtE:
    return *x >= *y;
  default:
    return std::nullopt;
  }
}

Result Generator::genCompare(const ast::CompareExpr &e) {
  bool all = true;
  std::optional<SemValue> mask;    // comparisons of tiles, and-ed
  std::optional<SemValue> runtime; // comparisons of run-time scalars, and-ed
  for (size_t i = 0; i < e.getOps().size(); ++i) {
    Result a = genExpr(*e.getOperands()[i]);
    Result b = genExpr(*e.getOperands()[i + 1]);
    if (failed(a) || failed(b))
      return failure();
    ast::CompareOp op = e.getOps()[i];
    // `x is None`: decided by what x is (a tensor, a tile, None...).
    if ((op == ast::CompareOp::Is || op == ast::CompareOp::IsNot) &&
        (a->kind == SemValue::Kind::None || b->kind == SemValue::Kind::None)) {
      all &= *compareConstants(op, *a, *b);
      continue;
    }
    auto tileish = [](const SemValue &v) {
      return v.kind == SemValue::Kind::TileData ||
             v.kind == SemValue::Kind::Ref;
    };
    if (tileish(*a) || tileish(*b)) {
      Result m = genTileCompare(op, *a, *b, e);
      if (failed(m))
        return failure();
      if (mask)
        m = binaryOp(ast::BinaryOp::BitAnd, *mask, *m, e);
      if (failed(m))
        return failure();
      mask = *m;
      continue;
    }
    if (a->kind == SemValue::Kind::Tuple && b->kind == SemValue::Kind::Tuple &&
        (op == ast::CompareOp::Eq || op == ast::CompareOp::NotEq)) {
      Result c = compareTuples(op, *a, *b, e);
      if (failed(c))
        return failure();
      if (c->kind == SemValue::Kind::Int) {
        all &= c->intValue != 0;
        continue;
      }
      if (runtime)
        c = scalarLogic(ast::BinaryOp::And, *runtime, *c, e).value();
      if (failed(c))
        return failure();
      runtime = *c;
      continue;
    }
    std::optional<bool> r = compareConstants(op, *a, *b);
    if (!r) {
      auto scalarish = [](const SemValue &v) {
        return isNumber(v) || v.kind == SemValue::Kind::Scalar;
      };
      if (!scalarish(*a) || !scalarish(*b))
        return fail(e.getRange(),
                    std::string("cannot compare ") + kindName(a->kind) +
                        " and " + kindName(b->kind) +
                        ": comparisons take numbers, run-time scalars, "
                        "tiles (a mask), or dtypes/strings for == and !=");
      Result c = scalarCompare(op, *a, *b, e);
      if (succeeded(c) && runtime)
        c = scalarLogic(ast::BinaryOp::And, *runtime, *c, e).value();
      if (failed(c))
        return failure();
      runtime = *c;
      continue;
    }
    all &= *r;
  }
  if (!all) // a constant part is false: so is the chain
    return mask
               ? binaryOp(ast::BinaryOp::BitAnd, *mask, SemValue::integer(0), e)
               : Result(SemValue::integer(0));
  if (runtime && mask)
    return binaryOp(ast::BinaryOp::BitAnd, *mask, *runtime, e);
  if (runtime)
    return *runtime;
  if (!mask)
    return SemValue::integer(all);
  return *mask;
}

Result Generator::compareTuples(ast::CompareOp op, const SemValue &a,
                                const SemValue &b, const ast::Expr &where) {
  bool eq = op == ast::CompareOp::Eq;
  if (a.elements.size() != b.elements.size())
    return SemValue::integer(!eq);
  // Python: equal when every pair is (a size compared with itself is).
  SemValue all = SemValue::integer(1);
  for (auto [x, y] : llvm::zip(a.elements, b.elements)) {
    if (x.kind == SemValue::Kind::Scalar && y.kind == SemValue::Kind::Scalar &&
        x.value == y.value)
      continue;
    SemValue pair;
    if (x.kind == SemValue::Kind::Tuple && y.kind == SemValue::Kind::Tuple) {
      Result r = compareTuples(ast::CompareOp::Eq, x, y, where);
      if (failed(r))
        return failure();
      pair = *r;
    } else if (std::optional<bool> r =
                   compareConstants(ast::CompareOp::Eq, x, y)) {
      pair = SemValue::integer(*r);
    } else if ((isNumber(x) || x.kind == SemValue::Kind::Scalar) &&
               (isNumber(y) || y.kind == SemValue::Kind::Scalar)) {
      Result r = scalarCompare(ast::CompareOp::Eq, x, y, where);
      if (failed(r))
        return failure();
      pair = *r;
    } else {
      return fail(where.getRange(), std::string("cannot compare ") +
                                        kindName(x.kind) + " and " +
                                        kindName(y.kind) + " in tuples");
    }
    if (pair.kind == SemValue::Kind::Int) {
      if (!pair.intValue)
        return SemValue::integer(!eq);
      continue;
    }
    if (all.kind == SemValue::Kind::Int) {
      all = pair;
      continue;
    }
    Result both = scalarLogic(ast::BinaryOp::And, all, pair, where).value();
    if (failed(both))
      return failure();
    all = *both;
  }
  if (eq || all.kind == SemValue::Kind::Int)
    return eq ? all : SemValue::integer(!all.intValue);
  SemValue r = SemValue::ofKind(SemValue::Kind::Scalar);
  mlir::Location l = loc(where);
  r.value =
      arith::XOrIOp::create(builder, l, truthValue(all, l),
                            arith::ConstantIntOp::create(builder, l, 1, 1));
  if (all.known)
    r.known = SemValue::ShapeKnown{!all.known->value, all.known->sizes};
  return r;
}

Result Generator::scalarCompare(ast::CompareOp op, const SemValue &a,
                                const SemValue &b, const ast::Expr &where) {
  using CO = ast::CompareOp;
  mlir::Location l = loc(where);
  if (op == CO::Is || op == CO::IsNot || op == CO::In || op == CO::NotIn)
    return fail(where.getRange(),
                std::string("operator '") + ast::getCompareOpSpelling(op) +
                    "' on a run-time scalar: compare it with ==, !=, <, ...");
  SemValue r = SemValue::ofKind(SemValue::Kind::Scalar);
  if (isFloatScalar(a) || isFloatScalar(b)) {
    // Python's float comparisons: false with a NaN, except !=.
    Type f32 = builder.getF32Type();
    using P = arith::CmpFPredicate;
    P pred = op == CO::Eq      ? P::OEQ
             : op == CO::NotEq ? P::UNE
             : op == CO::Lt    ? P::OLT
             : op == CO::LtE   ? P::OLE
             : op == CO::Gt    ? P::OGT
                               : P::OGE;
    r.value = arith::CmpFOp::create(builder, l, pred, scalarAs(a, f32, l),
                                    scalarAs(b, f32, l));
    return r;
  }
  // Integers (bools as 0/1) compare as signed 64-bit indices.
  auto value = [&](const SemValue &v) -> FailureOr<Value> {
    if (v.kind == SemValue::Kind::Scalar && v.value.getType().isInteger(1))
      return castValue(v.value, builder.getIndexType(), l);
    return toIndex(v, where);
  };
  auto x = value(a), y = value(b);
  if (failed(x) || failed(y))
    return failure();
  using P = arith::CmpIPredicate;
  P pred = op == CO::Eq      ? P::eq
           : op == CO::NotEq ? P::ne
           : op == CO::Lt    ? P::slt
           : op == CO::LtE   ? P::sle
           : op == CO::Gt    ? P::sgt
                             : P::sge;
  r.value = arith::CmpIOp::create(builder, l, pred, *x, *y);
  r.known = foldKnownCompare(op, a, b);
  r.sizesRead = a.sizesRead;
  r.sizesRead.append(b.sizesRead.begin(), b.sizesRead.end());
  return r;
}

std::optional<Result> Generator::scalarLogic(ast::BinaryOp op,
                                             const SemValue &a,
                                             const SemValue &b,
                                             const ast::Expr &where) {
  using BO = ast::BinaryOp;
  using K = SemValue::Kind;
  if (op != BO::And && op != BO::Or)
    return std::nullopt;
  if (a.kind != K::Scalar && b.kind != K::Scalar)
    return std::nullopt;
  auto operand = [](const SemValue &v) {
    return isNumber(v) || v.kind == K::Scalar;
  };
  if (!operand(a) || !operand(b))
    return fail(where.getRange(),
                std::string("operator '") + ast::getBinaryOpSpelling(op) +
                    "' cannot combine " + kindName(a.kind) + " and " +
                    kindName(b.kind) + " (for masks of tiles write & and |)");
  // A constant left operand decides as in Python: `False and x` is False,
  // `True and x` is x.
  if (isNumber(a)) {
    bool truth = a.kind == K::Int ? a.intValue != 0 : a.floatValue != 0;
    return (op == BO::And) == truth ? b : a;
  }
  // Otherwise the result is a bool: the truth values combined.
  mlir::Location l = loc(where);
  auto truth = [&](const SemValue &v) -> Value {
    if (v.kind == K::Scalar)
      return truthValue(v, l);
    bool t = v.kind == K::Int ? v.intValue != 0 : v.floatValue != 0;
    return arith::ConstantIntOp::create(builder, l, t, 1);
  };
  SemValue r = SemValue::ofKind(K::Scalar);
  Value x = truth(a), y = truth(b);
  r.value = op == BO::And ? Value(arith::AndIOp::create(builder, l, x, y))
                          : Value(arith::OrIOp::create(builder, l, x, y));
  // Both truths known from --shape: so is the result's.
  auto known = [](const SemValue &v) -> std::optional<SemValue::ShapeKnown> {
    if (v.kind == K::Int)
      return SemValue::ShapeKnown{v.intValue != 0, {}};
    if (v.kind == K::Scalar && v.known)
      return SemValue::ShapeKnown{v.known->value != 0, v.known->sizes};
    return std::nullopt;
  };
  r.sizesRead = a.sizesRead;
  r.sizesRead.append(b.sizesRead.begin(), b.sizesRead.end());
  std::optional<SemValue::ShapeKnown> p = known(a), q = known(b);
  if (p && q) {
    r.known = SemValue::ShapeKnown{
        op == BO::And ? p->value && q->value : p->value || q->value, p->sizes};
    r.known->sizes.append(q->sizes.begin(), q->sizes.end());
  }
  return Result(r);
}

std::optional<SemValue::ShapeKnown>
Generator::foldKnownCompare(ast::CompareOp op, const SemValue &a,
                            const SemValue &b) {
  using CO = ast::CompareOp;
  auto known = [](const SemValue &v) -> std::optional<SemValue::ShapeKnown> {
    if (v.kind == SemValue::Kind::Int)
      return SemValue::ShapeKnown{v.intValue, {}};
    if (v.kind == SemValue::Kind::Scalar && v.known)
      return v.known;
    return std::nullopt;
  };
  std::optional<SemValue::ShapeKnown> x = known(a), y = known(b);
  if (!x || !y || (x->sizes.empty() && y->sizes.empty()))
    return std::nullopt;
  int64_t p = x->value, q = y->value;
  bool r = op == CO::Eq      ? p == q
           : op == CO::NotEq ? p != q
           : op == CO::Lt    ? p < q
           : op == CO::LtE   ? p <= q
           : op == CO::Gt    ? p > q
                             : p >= q;
  x->value = r;
  x->sizes.append(y->sizes.begin(), y->sizes.end());
  return x;
}

} // namespace dslc::mlirgen
