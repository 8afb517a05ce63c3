//===- GenOperators.cpp - Binary, unary and comparison operators ----------===//

#include "compiler/MLIRGen/Generator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;

namespace dslc::mlirgen {

bool Generator::isIndexLike(const SemValue &v) {
  return v.kind == SemValue::Kind::Int ||
         (v.kind == SemValue::Kind::Scalar &&
          isa<IndexType, IntegerType>(v.value.getType()));
}

Result Generator::shiftTile(SemValue tile, const SemValue &by,
                            const ast::Expr &where) {
  mlir::Location l = loc(where);
  auto offset = toIndex(by, where);
  if (failed(offset))
    return failure();
  Value k = *offset;
  tile.begin = arith::AddIOp::create(builder, l, tile.begin, k);
  tile.end = arith::AddIOp::create(builder, l, tile.end, k);
  return tile;
}

/// The grid rule of `lhs op rhs` when one side is a tensor size (or a
/// rule already derived from one) and the other a constant: `N + k`, `N - k`
/// and then `// d`, so that `(N + W - 1) // W` stays a rule the runtime can
/// evaluate.
static std::optional<ScalarOrigin>
derivedOrigin(ast::BinaryOp op, const SemValue &lhs, const SemValue &rhs) {
  using BO = ast::BinaryOp;
  const SemValue *sized = lhs.origin ? &lhs : rhs.origin ? &rhs : nullptr;
  const SemValue *constant = sized == &lhs ? &rhs : &lhs;
  if (!sized || constant->kind != SemValue::Kind::Int)
    return std::nullopt;
  ScalarOrigin o = *sized->origin;
  int64_t k = constant->intValue;
  switch (op) {
  case BO::Add:
    if (o.div != 1 || llvm::AddOverflow(o.add, k, o.add))
      return std::nullopt;
    return o;
  case BO::Sub:
    if (o.div != 1 || sized != &lhs || llvm::SubOverflow(o.add, k, o.add))
      return std::nullopt;
    return o;
  case BO::FloorDiv:
    if (o.div != 1 || sized != &lhs || k <= 0)
      return std::nullopt;
    o.div = k;
    return o;
  default:
    return std::nullopt;
  }
}

Result Generator::binaryOp(ast::BinaryOp op, SemValue lhs, SemValue rhs,
                           const ast::Expr &where) {
  using BO = ast::BinaryOp;
  if (lhs.kind == SemValue::Kind::Int && rhs.kind == SemValue::Kind::Int)
    if (std::optional<Result> folded =
            foldIntegers(op, lhs.intValue, rhs.intValue, where))
      return *folded;
  // A tile shifted by a scalar: `a[base + tile]` reads the tile's elements
  // at an offset (the masked tail moves with it).
  if (op == BO::Add && lhs.kind == SemValue::Kind::Tile && isIndexLike(rhs))
    return shiftTile(lhs, rhs, where);
  if (op == BO::Add && rhs.kind == SemValue::Kind::Tile && isIndexLike(lhs))
    return shiftTile(rhs, lhs, where);
  if (lhs.kind == SemValue::Kind::Tile || rhs.kind == SemValue::Kind::Tile)
    return fail(where.getRange(),
                std::string("operator '") + ast::getBinaryOpSpelling(op) +
                    "' on a tile: a tile is only shifted, `offset + tile` "
                    "with an integer offset (its elements' indices are "
                    "tile.index)");
  if (lhs.kind == SemValue::Kind::TileData ||
      rhs.kind == SemValue::Kind::TileData)
    return tileBinary(op, std::move(lhs), std::move(rhs), where);
  // Run-time scalars (index arithmetic).
  // (Two constants were folded above: at least one side is a Scalar here.)
  bool scalarish =
      (lhs.kind == SemValue::Kind::Scalar &&
       (rhs.kind == SemValue::Kind::Scalar ||
        rhs.kind == SemValue::Kind::Int)) ||
      (lhs.kind == SemValue::Kind::Int && rhs.kind == SemValue::Kind::Scalar);
  if (scalarish &&
      isa<IndexType, IntegerType>(
          (lhs.kind == SemValue::Kind::Scalar ? lhs : rhs).value.getType()))
    return scalarBinary(op, lhs, rhs, where);
  if (lhs.kind == SemValue::Kind::Unbound ||
      rhs.kind == SemValue::Kind::Unbound) {
    const SemValue &u = lhs.kind == SemValue::Kind::Unbound ? lhs : rhs;
    return fail(where.getRange(), "constexpr '" + u.text +
                                      "' has no value: pass -D " + u.text +
                                      "=VALUE");
  }
  return fail(where.getRange(), std::string("operator '") +
                                    ast::getBinaryOpSpelling(op) +
                                    "' cannot combine " + kindName(lhs.kind) +
                                    " and " + kindName(rhs.kind));
}

LogicalResult Generator::promoteTiles(SemValue &lhs, SemValue &rhs,
                                      RankedTensorType &type,
                                      const ast::Expr &where) {
  auto other = cast<RankedTensorType>(rhs.value.getType());
  if (type.getShape() != other.getShape())
    return error(where.getRange(), "tiles of different shapes");
  Type a = type.getElementType(), b = other.getElementType();
  if (a == b)
    return success();
  Type wide = a.getIntOrFloatBitWidth() >= b.getIntOrFloatBitWidth() ? a : b;
  if (isa<FloatType>(a) != isa<FloatType>(b))
    wide = isa<FloatType>(a) ? a : b;
  if (a.isBF16() && b.isF16())
    wide = builder.getF32Type();
  if (a.isF16() && b.isBF16())
    wide = builder.getF32Type();
  mlir::Location l = loc(where);
  auto la = castTile(lhs.value, wide, l);
  auto rb = castTile(rhs.value, wide, l);
  if (failed(la) || failed(rb))
    return failure();
  lhs.value = *la;
  rhs.value = *rb;
  type = RankedTensorType::get(type.getShape(), wide);
  return success();
}

Result Generator::tileBinary(ast::BinaryOp op, SemValue lhs, SemValue rhs,
                             const ast::Expr &where) {
  bool lt = lhs.kind == SemValue::Kind::TileData,
       rt = rhs.kind == SemValue::Kind::TileData;
  RankedTensorType type =
      cast<RankedTensorType>((lt ? lhs : rhs).value.getType());
  // Promote to the wider element type of two tiles.
  if (lt && rt && failed(promoteTiles(lhs, rhs, type, where)))
    return failure();
  for (const SemValue *v : {&lhs, &rhs})
    if (v->kind != SemValue::Kind::TileData && v->kind != SemValue::Kind::Int &&
        v->kind != SemValue::Kind::Float)
      return fail(where.getRange(),
                  std::string("operator '") + ast::getBinaryOpSpelling(op) +
                      "' cannot combine " + kindName(lhs.kind) + " and " +
                      kindName(rhs.kind));
  auto coerce = [&](SemValue &v) -> LogicalResult {
    if (v.kind == SemValue::Kind::TileData)
      return success();
    auto t = coerceTile(v, type, where);
    if (failed(t))
      return failure();
    v = SemValue::ofKind(SemValue::Kind::TileData);
    v.value = *t;
    return success();
  };
  if (failed(coerce(lhs)) || failed(coerce(rhs)))
    return failure();
  return tileArith(op, lhs.value, rhs.value,
                   isa<FloatType>(type.getElementType()), where);
}

Result Generator::tileArith(ast::BinaryOp op, Value a, Value b, bool isFloat,
                            const ast::Expr &where) {
  using BO = ast::BinaryOp;
  mlir::Location l = loc(where);
  Value r;
  switch (op) {
  case BO::Add:
    r = isFloat ? Value(arith::AddFOp::create(builder, l, a, b))
                : Value(arith::AddIOp::create(builder, l, a, b));
    break;
  case BO::Sub:
    r = isFloat ? Value(arith::SubFOp::create(builder, l, a, b))
                : Value(arith::SubIOp::create(builder, l, a, b));
    break;
  case BO::Mul:
    r = isFloat ? Value(arith::MulFOp::create(builder, l, a, b))
                : Value(arith::MulIOp::create(builder, l, a, b));
    break;
  case BO::Div:
    if (!isFloat)
      return fail(where.getRange(), "'/' on integer tiles; use '//'");
    r = arith::DivFOp::create(builder, l, a, b);
    break;
  case BO::FloorDiv:
    if (isFloat)
      return fail(where.getRange(), "'//' on float tiles is not supported");
    r = arith::FloorDivSIOp::create(builder, l, a, b);
    break;
  case BO::BitAnd:
  case BO::BitOr:
  case BO::BitXor:
    if (isFloat)
      return fail(where.getRange(), "bitwise operation on float tiles");
    r = op == BO::BitAnd  ? Value(arith::AndIOp::create(builder, l, a, b))
        : op == BO::BitOr ? Value(arith::OrIOp::create(builder, l, a, b))
                          : Value(arith::XOrIOp::create(builder, l, a, b));
    break;
  default:
    return fail(where.getRange(), std::string("operator '") +
                                      ast::getBinaryOpSpelling(op) +
                                      "' is not supported on tiles");
  }
  SemValue v = SemValue::ofKind(SemValue::Kind::TileData);
  v.value = r;
  return v;
}

Result Generator::scalarBinary(ast::BinaryOp op, const SemValue &lhs,
                               const SemValue &rhs, const ast::Expr &where) {
  using BO = ast::BinaryOp;
  mlir::Location l = loc(where);
  if ((op == BO::FloorDiv || op == BO::Mod) &&
      rhs.kind == SemValue::Kind::Int && rhs.intValue == 0)
    return fail(where.getRange(), "division by zero");
  auto a = toIndex(lhs, where), b = toIndex(rhs, where);
  if (failed(a) || failed(b))
    return failure();
  Value r;
  switch (op) {
  case BO::Add:
    r = arith::AddIOp::create(builder, l, *a, *b);
    break;
  case BO::Sub:
    r = arith::SubIOp::create(builder, l, *a, *b);
    break;
  case BO::Mul:
    r = arith::MulIOp::create(builder, l, *a, *b);
    break;
  case BO::FloorDiv:
    r = arith::FloorDivSIOp::create(builder, l, *a, *b);
    break;
  case BO::Mod:
    r = arith::RemSIOp::create(builder, l, *a, *b);
    break;
  default:
    return fail(where.getRange(), std::string("operator '") +
                                      ast::getBinaryOpSpelling(op) +
                                      "' is not supported on scalars");
  }
  SemValue v = SemValue::ofKind(SemValue::Kind::Scalar);
  v.value = r;
  v.origin = derivedOrigin(op, lhs, rhs);
  return v;
}

Result Generator::genBinary(const ast::BinaryExpr &e) {
  Result a = genExpr(e.getLHS());
  if (failed(a))
    return failure();
  Result b = genExpr(e.getRHS());
  if (failed(b))
    return failure();
  return binaryOp(e.getOp(), *a, *b, e);
}

Result Generator::genUnary(const ast::UnaryExpr &e) {
  Result v = genExpr(e.getOperand());
  if (failed(v))
    return failure();
  switch (e.getOp()) {
  case ast::UnaryOp::Neg:
    if (v->kind == SemValue::Kind::Int) {
      if (v->intValue == std::numeric_limits<int64_t>::min())
        return fail(e.getRange(), "integer overflow: -(" +
                                      std::to_string(v->intValue) +
                                      ") does not fit in 64 bits "
                                      "(constants are int64)");
      return SemValue::integer(-v->intValue);
    }
    if (v->kind == SemValue::Kind::Float) {
      v->floatValue = -v->floatValue;
      return *v;
    }
    if (v->kind == SemValue::Kind::TileData &&
        isa<FloatType>(
            cast<RankedTensorType>(v->value.getType()).getElementType())) {
      v->value = arith::NegFOp::create(builder, loc(e), v->value);
      return *v;
    }
    return binaryOp(ast::BinaryOp::Sub, SemValue::integer(0), *v, e);
  case ast::UnaryOp::Pos:
    return *v;
  case ast::UnaryOp::Not:
    if (v->kind == SemValue::Kind::Int)
      return SemValue::integer(!v->intValue);
    if (v->kind == SemValue::Kind::None)
      return SemValue::integer(1);
    break;
  case ast::UnaryOp::Invert:
    if (v->kind == SemValue::Kind::Int)
      return SemValue::integer(~v->intValue);
    break;
  }
  return fail(e.getRange(), std::string("operator '") +
                                ast::getUnaryOpSpelling(e.getOp()) +
                                "' is not supported on " + kindName(v->kind));
}

Result Generator::genCompare(const ast::CompareExpr &e) {
  bool all = true;
  for (size_t i = 0; i < e.getOps().size(); ++i) {
    Result a = genExpr(*e.getOperands()[i]);
    Result b = genExpr(*e.getOperands()[i + 1]);
    if (failed(a) || failed(b))
      return failure();
    using CO = ast::CompareOp;
    CO op = e.getOps()[i];
    if ((op == CO::Is || op == CO::IsNot) &&
        (a->kind == SemValue::Kind::None || b->kind == SemValue::Kind::None)) {
      bool same = a->kind == b->kind;
      all &= op == CO::Is ? same : !same;
      continue;
    }
    if (a->kind == SemValue::Kind::String &&
        b->kind == SemValue::Kind::String &&
        (op == CO::Eq || op == CO::NotEq)) {
      all &= (a->text == b->text) == (op == CO::Eq);
      continue;
    }
    if (a->kind == SemValue::Kind::DType && b->kind == SemValue::Kind::DType &&
        (op == CO::Eq || op == CO::NotEq)) {
      all &= (a->text == b->text) == (op == CO::Eq);
      continue;
    }
    if (a->kind != SemValue::Kind::Int || b->kind != SemValue::Kind::Int)
      return fail(e.getRange(),
                  "comparisons are evaluated at compile time and need "
                  "constants (or dtypes/strings for == and !=)");
    int64_t x = a->intValue, y = b->intValue;
    bool r = false;
    switch (op) {
    case CO::Eq:
      r = x == y;
      break;
    case CO::NotEq:
      r = x != y;
      break;
    case CO::Lt:
      r = x < y;
      break;
    case CO::LtE:
      r = x <= y;
      break;
    case CO::Gt:
      r = x > y;
      break;
    case CO::GtE:
      r = x >= y;
      break;
    default:
      return fail(e.getRange(), "unsupported comparison");
    }
    all &= r;
  }
  return SemValue::integer(all);
}

} // namespace dslc::mlirgen
