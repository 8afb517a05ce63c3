//===- GenTile.cpp - Tile values: creation, casts, accesses ---------------===//

#include "compiler/MLIRGen/Generator.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace dslc::mlirgen {

LogicalResult Generator::checkTileSize(ArrayRef<int64_t> shape,
                                       SourceRange where) {
  if (int64_t(shape.size()) > tile::kMaxTileRank)
    return error(where, "a tile of " + std::to_string(shape.size()) +
                            " dimensions: tiles have at most " +
                            std::to_string(tile::kMaxTileRank));
  int64_t n = 1;
  bool tooMany = false;
  for (int64_t d : shape) {
    if (d <= 0)
      return error(where, "a tile dimension must be positive");
    tooMany |= n > kMaxTileElements / d;
    if (!tooMany)
      n *= d;
  }
  int64_t threads = desc.numWarps * 32;
  // Whole rows of a `:` dimension that do not fit: computed a chunk at a
  // time (RollReductions), as Helion's reduction loops do.
  bool mustRoll = tooMany || n / threads > kMaxElementsPerThread;
  if ((mustRoll || n / threads > kAutoRollAbove) && !shape.empty() &&
      fullRowExtents.count(shape.back())) {
    int64_t rows = 1;
    for (int64_t d : shape.drop_back())
      rows *= d;
    int64_t chunk = llvm::PowerOf2Ceil(shape.back());
    while (chunk > 1 && rows * chunk / threads > kAutoRollElementsPerThread)
      chunk /= 2;
    AutoRoll &r = autoRollChunks[shape.back()];
    r.chunk = r.chunk ? std::min(r.chunk, chunk) : chunk;
    r.required |= mustRoll;
    work.rolled[shape.back()] = r.chunk;
    return success();
  }
  if (tooMany)
    return error(where, "a tile of shape " + shapeText(shape) + " (more than " +
                            std::to_string(kMaxTileElements) +
                            " elements) does not fit a CTA, with " +
                            configText() + ": lower the block sizes");
  if (n / threads > kMaxElementsPerThread)
    return error(
        where, "a tile of shape " + shapeText(shape) + " (" +
                   std::to_string(n) + " elements) puts " +
                   std::to_string(n / threads) + " in each of the CTA's " +
                   std::to_string(threads) + " threads (at most " +
                   std::to_string(kMaxElementsPerThread) + "), with " +
                   configText() + ": raise num_warps or lower the block sizes");
  return success();
}

std::string GeneratorState::shapeText(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (size_t k = 0; k < shape.size(); ++k)
    s += (k ? ", " : "") + std::to_string(shape[k]);
  return s + "]";
}

std::string Generator::configText() const {
  std::string s = "block_sizes=[";
  for (size_t k = 0; k < blockSizes.size(); ++k)
    s += (k ? ", " : "") + std::to_string(blockSizes[k]);
  s += "], num_warps=" + std::to_string(desc.numWarps);
  if (!defaultedBlockSizes.empty())
    s += " (dslc's defaults: no config gives the block sizes)";
  return s;
}

/// `tile.to(dtype)`: the tile converted to another element type.
Result Generator::genCast(const ast::CallExpr &e, const ast::Expr &value) {
  const ast::Expr *dtypeArg = argument(e, 0, "dtype");
  if (!dtypeArg || e.getNumPositional() > 1)
    return fail(e.getRange(), ".to takes one dtype");
  Result v = genExpr(value);
  if (failed(v))
    return failure();
  auto dtype = dtypeValue(*dtypeArg);
  if (failed(dtype))
    return failure();
  return castSemValue(*v, dtypeToType(&ctx, *dtype), value, e);
}

Result Generator::genCastTo(const ast::CallExpr &e, const ast::Expr &value,
                            llvm::StringRef dtype) {
  if (!e.getArgs().empty())
    return fail(e.getRange(), "." + dtype.str() + "() takes no arguments");
  Result v = genExpr(value);
  if (failed(v))
    return failure();
  return castSemValue(*v, dtypeToType(&ctx, dtype), value, e);
}

Result Generator::castSemValue(SemValue v, Type to, const ast::Expr &value,
                               const ast::Expr &where) {
  if (v.kind == SemValue::Kind::Ref) {
    Result whole = loadWhole(v, value);
    if (failed(whole))
      return failure();
    v = *whole;
  }
  switch (v.kind) {
  case SemValue::Kind::TileData:
  case SemValue::Kind::Scalar:
    v.value = castValue(v.value, to, loc(where));
    v.indexTile.reset();
    return v;
  case SemValue::Kind::Int:
  case SemValue::Kind::Float: {
    // A constant stays a constant, with the dtype's value.
    if (isa<FloatType>(to)) {
      SemValue f = SemValue::ofKind(SemValue::Kind::Float);
      f.floatValue =
          v.kind == SemValue::Kind::Int ? double(v.intValue) : v.floatValue;
      return f;
    }
    int64_t i =
        v.kind == SemValue::Kind::Int ? v.intValue : int64_t(v.floatValue);
    if (to.isInteger(1))
      i = v.kind == SemValue::Kind::Int ? i != 0 : v.floatValue != 0;
    return SemValue::integer(i);
  }
  default:
    return fail(value.getRange(),
                std::string(".to(dtype) converts a tile value or a number, "
                            "not ") +
                    kindName(v.kind));
  }
}

FailureOr<RankedTensorType> Generator::tileShapeOf(const ast::Expr &list,
                                                   Type elementType) {
  std::vector<const ast::Expr *> dims = elementsOf(list);
  SmallVector<int64_t> shape;
  for (const ast::Expr *d : dims) {
    Result v = genExpr(*d);
    if (failed(v))
      return failure();
    if (v->kind == SemValue::Kind::Tile) {
      shape.push_back(v->block);
      continue;
    }
    auto c = toConstInt(*v, *d, "a tile dimension");
    if (failed(c))
      return failure();
    if (*c <= 0)
      return error(d->getRange(), "a tile dimension must be positive");
    shape.push_back(*c);
  }
  if (shape.empty())
    return error(list.getRange(), "a tile needs at least one dimension");
  if (failed(checkTileSize(shape, list.getRange())))
    return failure();
  return RankedTensorType::get(shape, elementType);
}

Result Generator::fillValue(const ast::Expr *valueArg, int64_t constantFill) {
  if (!valueArg)
    return SemValue::integer(constantFill);
  Result v = genExpr(*valueArg);
  if (failed(v))
    return failure();
  if (v->kind != SemValue::Kind::Int && v->kind != SemValue::Kind::Float &&
      v->kind != SemValue::Kind::Scalar)
    return fail(valueArg->getRange(),
                std::string("the fill value must be a number, got ") +
                    kindName(v->kind));
  return v;
}

Result Generator::genTileFill(const ast::CallExpr &e, const char *fn,
                              const ast::Expr &shapeArg,
                              const ast::Expr *valueArg,
                              const std::string &dflt, int64_t constantFill) {
  if (!inGrid)
    return fail(e.getRange(), std::string(fn) +
                                  " makes a tile: call it inside the "
                                  "kernel's tile loop");
  auto dtype = dtypeArgument(e, ~size_t(0), dflt);
  if (failed(dtype))
    return failure();
  Type elementType = dtypeToType(&ctx, *dtype);
  auto type = tileShapeOf(shapeArg, elementType);
  if (failed(type))
    return failure();
  Result fill = fillValue(valueArg, constantFill);
  if (failed(fill))
    return failure();
  auto value = coerceTile(*fill, *type, *(valueArg ? valueArg : &shapeArg));
  if (failed(value))
    return failure();
  SemValue t = SemValue::ofKind(SemValue::Kind::TileData);
  t.value = *value;
  return t;
}

Result Generator::genNewFill(const ast::CallExpr &e, const SemValue &base,
                             llvm::StringRef method) {
  // x.new_full(size, fill_value), x.new_ones(size), x.new_zeros(size),
  // x.new_empty(size) (zeros) in the loop: x's dtype unless dtype= says.
  Type own = getElementTypeOrSelf(base.value.getType());
  if (own.isIndex())
    own = builder.getI64Type();
  const ast::Expr *sizeArg = argument(e, 0, "size");
  bool full = method == "new_full";
  const ast::Expr *valueArg = full ? argument(e, 1, "fill_value") : nullptr;
  if (!sizeArg)
    return fail(e.getRange(), method.str() + " needs a size");
  if (full && !valueArg)
    return fail(e.getRange(), "new_full needs a fill value");
  int64_t constant = method == "new_ones" ? 1 : 0;
  std::string fn = "x." + method.str();
  if (!elementsOf(*sizeArg).empty())
    return genTileFill(e, fn.c_str(), *sizeArg, valueArg, typeToDType(own),
                       constant);
  // size () or []: a 0-d value, a scalar here.
  auto dtype = dtypeArgument(e, ~size_t(0), typeToDType(own));
  if (failed(dtype))
    return failure();
  Type et = dtypeToType(&ctx, *dtype);
  Result fill = fillValue(valueArg, constant);
  if (failed(fill))
    return failure();
  SemValue s = SemValue::ofKind(SemValue::Kind::Scalar);
  s.value = scalarAs(*fill, et, loc(e));
  return s;
}

Result Generator::genFillLike(const ast::CallExpr &e, const SemValue &like,
                              const ast::Expr *valueArg, int64_t constantFill) {
  auto likeType = cast<RankedTensorType>(like.value.getType());
  auto dtype =
      dtypeArgument(e, ~size_t(0), typeToDType(likeType.getElementType()));
  if (failed(dtype))
    return failure();
  auto type =
      RankedTensorType::get(likeType.getShape(), dtypeToType(&ctx, *dtype));
  Result fill = fillValue(valueArg, constantFill);
  if (failed(fill))
    return failure();
  auto value = coerceTile(*fill, type, *(valueArg ? valueArg : &e));
  if (failed(value))
    return failure();
  SemValue t = SemValue::ofKind(SemValue::Kind::TileData);
  t.value = *value;
  t.valid = like.valid;
  return t;
}

FailureOr<Value> Generator::castTile(Value v, Type elementType,
                                     mlir::Location l) {
  return castValue(v, elementType, l);
}

TypedAttr Generator::constantAttr(Type et, const SemValue &v) {
  bool isInt = v.kind == SemValue::Kind::Int;
  if (isa<FloatType>(et))
    return builder.getFloatAttr(et, isInt ? double(v.intValue) : v.floatValue);
  int64_t i = isInt ? v.intValue : int64_t(v.floatValue);
  if (et.isInteger(1))
    i = isInt ? v.intValue != 0 : v.floatValue != 0;
  return builder.getIntegerAttr(et, i);
}

Value Generator::scalarAs(const SemValue &v, Type t, mlir::Location l) {
  if (v.kind == SemValue::Kind::Scalar)
    return castValue(v.value, t, l);
  return arith::ConstantOp::create(builder, l, constantAttr(t, v));
}

/// `t` with its element type (a tensor's, or a scalar type) replaced.
static Type withElementType(Type t, Type element) {
  if (auto ranked = dyn_cast<RankedTensorType>(t))
    return RankedTensorType::get(ranked.getShape(), element);
  return element;
}

Value Generator::castValue(Value v, Type to, mlir::Location l) {
  Type from = getElementTypeOrSelf(v.getType());
  if (from == to)
    return v;
  Type result = withElementType(v.getType(), to);
  // Index scalars go through i64.
  if (from.isIndex()) {
    Value i = arith::IndexCastOp::create(builder, l, builder.getI64Type(), v);
    return castValue(i, to, l);
  }
  if (to.isIndex()) {
    Value i = castValue(v, builder.getI64Type(), l);
    return arith::IndexCastOp::create(builder, l, result, i);
  }
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  unsigned fromBits = from.getIntOrFloatBitWidth(),
           toBits = to.getIntOrFloatBitWidth();
  // To bool: nonzero (torch's .to(torch.bool)).
  if (to.isInteger(1)) {
    Value zero = arith::ConstantOp::create(
        builder, l, cast<TypedAttr>(builder.getZeroAttr(v.getType())));
    return fromFloat ? Value(arith::CmpFOp::create(
                           builder, l, arith::CmpFPredicate::UNE, v, zero))
                     : Value(arith::CmpIOp::create(
                           builder, l, arith::CmpIPredicate::ne, v, zero));
  }
  // fp8 converts only to and from f32 (and f16 upward): others via f32.
  bool fp8 = isFP8(from) || isFP8(to);
  if (fp8 && fromFloat && toFloat && !from.isF32() && !to.isF32() &&
      !(isFP8(from) && to.isF16()))
    return castValue(castValue(v, builder.getF32Type(), l), to, l);
  // bf16 <-> f16: one width, neither extf nor truncf; through f32.
  if (fromFloat && toFloat && fromBits == toBits)
    return castValue(castValue(v, builder.getF32Type(), l), to, l);
  if (fromFloat && toFloat)
    return fromBits < toBits
               ? Value(arith::ExtFOp::create(builder, l, result, v))
               : Value(arith::TruncFOp::create(builder, l, result, v));
  bool fromBool = from.isInteger(1);
  if (!fromFloat && !toFloat) {
    if (fromBits < toBits)
      return fromBool ? Value(arith::ExtUIOp::create(builder, l, result, v))
                      : Value(arith::ExtSIOp::create(builder, l, result, v));
    return arith::TruncIOp::create(builder, l, result, v);
  }
  if (fromFloat) {
    if (isFP8(from))
      return castValue(castValue(v, builder.getF32Type(), l), to, l);
    return arith::FPToSIOp::create(builder, l, result, v);
  }
  if (isFP8(to))
    return castValue(castValue(v, builder.getF32Type(), l), to, l);
  return fromBool ? Value(arith::UIToFPOp::create(builder, l, result, v))
                  : Value(arith::SIToFPOp::create(builder, l, result, v));
}

FailureOr<Value> Generator::coerceTile(SemValue v, RankedTensorType type,
                                       const ast::Expr &where) {
  mlir::Location l = loc(where);
  if (v.kind == SemValue::Kind::Ref) {
    Result whole = loadWhole(v, where);
    if (failed(whole))
      return failure();
    v = *whole;
  }
  if (v.kind == SemValue::Kind::TileData) {
    auto t = cast<RankedTensorType>(v.value.getType());
    if (t.getShape() != type.getShape()) {
      // torch's broadcasting into the target's shape.
      auto shape = broadcastShape(t.getShape(), type.getShape(), where);
      if (failed(shape))
        return failure();
      if (ArrayRef<int64_t>(*shape) != type.getShape())
        return error(where.getRange(),
                     "a tile of shape " + shapeText(t.getShape()) +
                         " does not fit the shape " +
                         shapeText(type.getShape()) +
                         " it is stored into: dslc broadcasts as torch does "
                         "(a size-1 dimension stretches, a missing leading "
                         "one is added) and drops no dimension; index the "
                         "tile or reshape it to fit");
      broadcastTo(v, type.getShape(), l);
    }
    return castTile(v.value, type.getElementType(), l);
  }
  if (v.kind == SemValue::Kind::Int || v.kind == SemValue::Kind::Float) {
    TypedAttr a = constantAttr(type.getElementType(), v);
    return Value(
        arith::ConstantOp::create(builder, l, DenseElementsAttr::get(type, a)));
  }
  if (v.kind == SemValue::Kind::Scalar &&
      isa<IntegerType, IndexType, FloatType>(v.value.getType())) {
    Value s = castValue(v.value, type.getElementType(), l);
    return Value(tile::SplatOp::create(builder, l, type, s));
  }
  return error(where.getRange(), std::string("cannot store ") +
                                     kindName(v.kind) + " into a tile");
}

} // namespace dslc::mlirgen
