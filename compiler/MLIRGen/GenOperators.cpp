//===- GenOperators.cpp - Binary, unary and comparison operators ----------===//

#include "compiler/MLIRGen/Generator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;

namespace dslc::mlirgen {

/// Whether a non-tile operand is a float (a constant or a run-time scalar).
bool GeneratorState::isIndexLike(const SemValue &v) {
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
  auto isTileValue = [](const SemValue &v) {
    return v.kind == SemValue::Kind::TileData || v.kind == SemValue::Kind::Ref;
  };
  if (op == BO::MatMul && (isTileValue(lhs) || isTileValue(rhs)))
    return genMatmulOperator(lhs, rhs, where);
  if (lhs.kind == SemValue::Kind::Int && rhs.kind == SemValue::Kind::Int)
    if (std::optional<Result> folded =
            foldIntegers(op, lhs.intValue, rhs.intValue, where))
      return *folded;
  if (isNumber(lhs) && isNumber(rhs))
    if (std::optional<Result> folded = foldNumbers(op, lhs, rhs, where))
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
  auto tileish = [](const SemValue &v) {
    return v.kind == SemValue::Kind::TileData || v.kind == SemValue::Kind::Ref;
  };
  if (op == BO::Pow && tileish(lhs))
    return tilePow(lhs, rhs, where);
  if (tileish(lhs) || tileish(rhs))
    return indexArith(op, std::move(lhs), std::move(rhs), where);
  if (std::optional<Result> logic = scalarLogic(op, lhs, rhs, where))
    return *logic;
  // Run-time scalars.
  auto scalar = [](const SemValue &v) {
    return isNumber(v) ||
           (v.kind == SemValue::Kind::Scalar &&
            isa<IndexType, IntegerType, FloatType>(v.value.getType()));
  };
  if (scalar(lhs) && scalar(rhs)) {
    if (isFloatScalar(lhs) || isFloatScalar(rhs))
      return floatScalarBinary(op, lhs, rhs, where);
    return scalarBinary(op, lhs, rhs, where);
  }
  if (lhs.kind == SemValue::Kind::Unbound ||
      rhs.kind == SemValue::Kind::Unbound) {
    const SemValue &u = lhs.kind == SemValue::Kind::Unbound ? lhs : rhs;
    return unboundError(u, where.getRange());
  }
  return fail(where.getRange(), std::string("operator '") +
                                    ast::getBinaryOpSpelling(op) +
                                    "' cannot combine " + kindName(lhs.kind) +
                                    " and " + kindName(rhs.kind));
}

Result Generator::indexArith(ast::BinaryOp op, SemValue lhs, SemValue rhs,
                             const ast::Expr &where) {
  using BO = ast::BinaryOp;
  // `tile.index + k`, `k + tile.index`, `tile.index - k` stay unit-stride
  // indices of the tile shifted by k.
  std::shared_ptr<SemValue> shifted;
  if ((op == BO::Add || op == BO::Sub) && lhs.indexTile && isIndexLike(rhs)) {
    SemValue by = rhs;
    if (op == BO::Sub) {
      Result neg = binaryOp(BO::Sub, SemValue::integer(0), rhs, where);
      if (failed(neg))
        return failure();
      by = *neg;
    }
    Result t = shiftTile(*lhs.indexTile, by, where);
    if (failed(t))
      return failure();
    shifted = std::make_shared<SemValue>(*t);
  } else if (op == BO::Add && rhs.indexTile && isIndexLike(lhs)) {
    Result t = shiftTile(*rhs.indexTile, lhs, where);
    if (failed(t))
      return failure();
    shifted = std::make_shared<SemValue>(*t);
  }
  Result r = tileBinary(op, std::move(lhs), std::move(rhs), where);
  if (succeeded(r))
    r->indexTile = shifted;
  return r;
}

Type Generator::promotedType(Type a, Type b) {
  if (a == b)
    return a;
  if (isa<FloatType>(a) != isa<FloatType>(b))
    return isa<FloatType>(a) ? a : b;
  if ((a.isBF16() && b.isF16()) || (a.isF16() && b.isBF16()))
    return builder.getF32Type();
  return a.getIntOrFloatBitWidth() >= b.getIntOrFloatBitWidth() ? a : b;
}

LogicalResult Generator::promoteTiles(SemValue &lhs, SemValue &rhs,
                                      RankedTensorType &type,
                                      const ast::Expr &where) {
  auto a = cast<RankedTensorType>(lhs.value.getType());
  auto b = cast<RankedTensorType>(rhs.value.getType());
  mlir::Location l = loc(where);
  if (a.getShape() != b.getShape()) {
    auto shape = broadcastShape(a.getShape(), b.getShape(), where);
    if (failed(shape) || failed(checkTileSize(*shape, where.getRange())))
      return failure();
    broadcastTo(lhs, *shape, l);
    broadcastTo(rhs, *shape, l);
  }
  Type wide = promotedType(a.getElementType(), b.getElementType());
  lhs.value = castValue(lhs.value, wide, l);
  rhs.value = castValue(rhs.value, wide, l);
  type = cast<RankedTensorType>(lhs.value.getType());
  return success();
}

Result Generator::tileBinary(ast::BinaryOp op, SemValue lhs, SemValue rhs,
                             const ast::Expr &where) {
  return combineTiles(
      std::move(lhs), std::move(rhs), where,
      [&](Value a, Value b, bool isFloat) -> FailureOr<Value> {
        Result r = tileArith(op, a, b, isFloat, where);
        if (failed(r))
          return failure();
        return r->value;
      },
      std::string("operator '") + ast::getBinaryOpSpelling(op) + "'");
}

Result Generator::combineTiles(
    SemValue lhs, SemValue rhs, const ast::Expr &where,
    llvm::function_ref<FailureOr<Value>(Value, Value, bool)> emit,
    llvm::StringRef what) {
  // A whole tensor in arithmetic is a tile (`w[:] * x`).
  for (SemValue *v : {&lhs, &rhs})
    if (v->kind == SemValue::Kind::Ref) {
      Result t = loadWhole(*v, where);
      if (failed(t))
        return failure();
      *v = *t;
    }
  bool lt = lhs.kind == SemValue::Kind::TileData,
       rt = rhs.kind == SemValue::Kind::TileData;
  for (const SemValue *v : {&lhs, &rhs})
    if (v->kind != SemValue::Kind::TileData && !isNumber(*v) &&
        !(v->kind == SemValue::Kind::Scalar &&
          isa<IntegerType, IndexType, FloatType>(v->value.getType())))
      return fail(where.getRange(), what.str() + " cannot combine " +
                                        kindName(lhs.kind) + " and " +
                                        kindName(rhs.kind));
  if (!lt && !rt)
    return fail(where.getRange(), what.str() + " takes a tile here, got " +
                                      kindName(lhs.kind) + " and " +
                                      kindName(rhs.kind));
  for (const SemValue *v : {&lhs, &rhs})
    if (v->kind == SemValue::Kind::TileData &&
        isFP8(getElementTypeOrSelf(v->value.getType())))
      return fail(where.getRange(),
                  "arithmetic on fp8 tiles: fp8 is a storage type, convert "
                  "with .to(torch.float32) first");
  RankedTensorType type =
      cast<RankedTensorType>((lt ? lhs : rhs).value.getType());
  // Promote to the wider element type of two tiles, in their broadcast
  // shape.
  if (lt && rt && failed(promoteTiles(lhs, rhs, type, where)))
    return failure();
  mlir::Location l = loc(where);
  // torch's promotion: a float scalar makes an integer tile float32; a
  // scalar never widens a tile's float type.
  if (!isa<FloatType>(type.getElementType()) &&
      (isFloatScalar(lhs) || isFloatScalar(rhs))) {
    type = RankedTensorType::get(type.getShape(), builder.getF32Type());
    for (SemValue *v : {&lhs, &rhs})
      if (v->kind == SemValue::Kind::TileData)
        v->value = castValue(v->value, type.getElementType(), l);
  }
  SmallVector<ValidCount, 4> valid = mergeValid(lhs.valid, rhs.valid);
  for (SemValue *v : {&lhs, &rhs}) {
    if (v->kind == SemValue::Kind::TileData)
      continue;
    auto t = coerceTile(*v, type, where);
    if (failed(t))
      return failure();
    *v = SemValue::ofKind(SemValue::Kind::TileData);
    v->value = *t;
  }
  FailureOr<Value> r =
      emit(lhs.value, rhs.value, isa<FloatType>(type.getElementType()));
  if (failed(r))
    return failure();
  SemValue out = SemValue::ofKind(SemValue::Kind::TileData);
  out.value = *r;
  out.valid = valid;
  return out;
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
  case BO::Div: // true division: integers become float32 (torch)
    if (!isFloat) {
      a = castValue(a, builder.getF32Type(), l);
      b = castValue(b, builder.getF32Type(), l);
    }
    r = arith::DivFOp::create(builder, l, a, b);
    break;
  case BO::FloorDiv:
    if (isFloat)
      return fail(where.getRange(), "'//' on float tiles is not supported: "
                                    "write torch.floor(a / b)... or convert "
                                    "to an integer tile first");
    r = arith::FloorDivSIOp::create(builder, l, a, b);
    break;
  case BO::Mod: {
    // Python's %: the result takes the divisor's sign.
    Value rem = isFloat ? Value(arith::RemFOp::create(builder, l, a, b))
                        : Value(arith::RemSIOp::create(builder, l, a, b));
    Value zero = arith::ConstantOp::create(
        builder, l, cast<TypedAttr>(builder.getZeroAttr(a.getType())));
    Value nonzero = isFloat
                        ? Value(arith::CmpFOp::create(
                              builder, l, arith::CmpFPredicate::ONE, rem, zero))
                        : Value(arith::CmpIOp::create(
                              builder, l, arith::CmpIPredicate::ne, rem, zero));
    auto negative = [&](Value v) {
      return isFloat ? Value(arith::CmpFOp::create(
                           builder, l, arith::CmpFPredicate::OLT, v, zero))
                     : Value(arith::CmpIOp::create(
                           builder, l, arith::CmpIPredicate::slt, v, zero));
    };
    Value differ =
        arith::XOrIOp::create(builder, l, negative(rem), negative(b));
    Value fix = arith::AndIOp::create(builder, l, nonzero, differ);
    Value shifted = isFloat ? Value(arith::AddFOp::create(builder, l, rem, b))
                            : Value(arith::AddIOp::create(builder, l, rem, b));
    r = arith::SelectOp::create(builder, l, fix, shifted, rem);
    break;
  }
  case BO::LShift:
  case BO::RShift:
    if (isFloat)
      return fail(where.getRange(), "a shift of float tiles");
    r = op == BO::LShift ? Value(arith::ShLIOp::create(builder, l, a, b))
                         : Value(arith::ShRSIOp::create(builder, l, a, b));
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
  case BO::Mod: // Python's: the sign of the divisor
    r = arith::SubIOp::create(
        builder, l, *a,
        arith::MulIOp::create(
            builder, l, arith::FloorDivSIOp::create(builder, l, *a, *b), *b));
    break;
  case BO::Div: // true division: a float
    return floatScalarBinary(op, lhs, rhs, where);
  default:
    return fail(where.getRange(), std::string("operator '") +
                                      ast::getBinaryOpSpelling(op) +
                                      "' is not supported on scalars");
  }
  SemValue v = SemValue::ofKind(SemValue::Kind::Scalar);
  v.value = r;
  v.origin = derivedOrigin(op, lhs, rhs);
  v.known = foldKnown(op, lhs, rhs);
  v.sizesRead = lhs.sizesRead;
  v.sizesRead.append(rhs.sizesRead.begin(), rhs.sizesRead.end());
  return v;
}

/// The value of `a op b` when --shape gives both (or they are constants),
/// with the sizes read; nullopt otherwise or when it does not fold exactly.
std::optional<SemValue::ShapeKnown>
Generator::foldKnown(ast::BinaryOp op, const SemValue &a, const SemValue &b) {
  using BO = ast::BinaryOp;
  auto known = [](const SemValue &v) -> std::optional<SemValue::ShapeKnown> {
    if (v.kind == SemValue::Kind::Int)
      return SemValue::ShapeKnown{v.intValue, {}};
    if (v.kind == SemValue::Kind::Scalar)
      return v.known;
    return std::nullopt;
  };
  std::optional<SemValue::ShapeKnown> x = known(a), y = known(b);
  if (!x || !y || (x->sizes.empty() && y->sizes.empty()))
    return std::nullopt;
  int64_t p = x->value, q = y->value, r = 0;
  bool overflow = false;
  switch (op) {
  case BO::Add:
    overflow = __builtin_add_overflow(p, q, &r);
    break;
  case BO::Sub:
    overflow = __builtin_sub_overflow(p, q, &r);
    break;
  case BO::Mul:
    overflow = __builtin_mul_overflow(p, q, &r);
    break;
  case BO::FloorDiv:
  case BO::Mod: {
    if (q == 0 || (p == INT64_MIN && q == -1))
      return std::nullopt;
    int64_t d = p / q - ((p % q != 0) && ((p < 0) != (q < 0)));
    r = op == BO::FloorDiv ? d : p - d * q;
    break;
  }
  default:
    return std::nullopt;
  }
  if (overflow)
    return std::nullopt;
  x->value = r;
  x->sizes.append(y->sizes.begin(), y->sizes.end());
  return x;
}

Result Generator::floatScalarBinary(ast::BinaryOp op, const SemValue &lhs,
                                    const SemValue &rhs,
                                    const ast::Expr &where) {
  using BO = ast::BinaryOp;
  mlir::Location l = loc(where);
  Type f32 = builder.getF32Type();
  Value a = scalarAs(lhs, f32, l), b = scalarAs(rhs, f32, l), r;
  switch (op) {
  case BO::Add:
    r = arith::AddFOp::create(builder, l, a, b);
    break;
  case BO::Sub:
    r = arith::SubFOp::create(builder, l, a, b);
    break;
  case BO::Mul:
    r = arith::MulFOp::create(builder, l, a, b);
    break;
  case BO::Div:
    r = arith::DivFOp::create(builder, l, a, b);
    break;
  default:
    return fail(where.getRange(), std::string("operator '") +
                                      ast::getBinaryOpSpelling(op) +
                                      "' is not supported on float scalars");
  }
  SemValue v = SemValue::ofKind(SemValue::Kind::Scalar);
  v.value = r;
  return v;
}

Result Generator::genBinary(const ast::BinaryExpr &e) {
  Result a = genExpr(e.getLHS());
  if (failed(a))
    return failure();
  Result b = genExpr(e.getRHS());
  if (failed(b))
    return failure();
  if (isHostTensor(*a) || isHostTensor(*b))
    return hostValue(e); // arithmetic on tensors outside the loop
  return binaryOp(e.getOp(), *a, *b, e);
}

Result Generator::genUnary(const ast::UnaryExpr &e) {
  Result v = genExpr(e.getOperand());
  if (failed(v))
    return failure();
  if (isHostTensor(*v) && e.getOp() != ast::UnaryOp::Not)
    return hostValue(e);
  bool tile =
      v->kind == SemValue::Kind::TileData || v->kind == SemValue::Kind::Ref;
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
    if (tile)
      return genUnaryMath("neg", *v, e);
    return binaryOp(ast::BinaryOp::Sub, SemValue::integer(0), *v, e);
  case ast::UnaryOp::Pos:
    return *v;
  case ast::UnaryOp::Not:
    if (v->kind == SemValue::Kind::Int)
      return SemValue::integer(!v->intValue);
    if (v->kind == SemValue::Kind::None)
      return SemValue::integer(1);
    if (v->kind == SemValue::Kind::Scalar) { // a bool: not bool(x)
      SemValue r = SemValue::ofKind(SemValue::Kind::Scalar);
      r.value = arith::XOrIOp::create(
          builder, loc(e), truthValue(*v, loc(e)),
          arith::ConstantIntOp::create(builder, loc(e), 1, 1));
      return r;
    }
    if (tile)
      return fail(e.getRange(), "'not' of a tile: write ~mask for the "
                                "elementwise negation of a bool tile");
    break;
  case ast::UnaryOp::Invert:
    if (v->kind == SemValue::Kind::Int)
      return SemValue::integer(~v->intValue);
    if (tile) {
      Result t = asTile(*v, e);
      if (failed(t))
        return failure();
      Type element = getElementTypeOrSelf(t->value.getType());
      if (isa<FloatType>(element))
        return fail(e.getRange(), "'~' of a float tile");
      // ~x is x ^ -1 (for bool: logical not).
      return combineTiles(
          *t, SemValue::integer(-1), e,
          [&](Value a, Value b, bool) -> FailureOr<Value> {
            return Value(arith::XOrIOp::create(builder, loc(e), a, b));
          },
          "operator '~'");
    }
    break;
  }
  return fail(e.getRange(), std::string("operator '") +
                                ast::getUnaryOpSpelling(e.getOp()) +
                                "' is not supported on " + kindName(v->kind));
}

} // namespace dslc::mlirgen
