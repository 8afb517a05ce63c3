//===- GenTile.cpp - Tile values: creation, casts, accesses ---------------===//

#include "compiler/MLIRGen/Generator.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace dslc::mlirgen {

LogicalResult Generator::checkTileSize(ArrayRef<int64_t> shape,
                                       SourceRange where) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d <= 0 || n > kMaxTileElements / d)
      return error(where, "a tile of more than " +
                              std::to_string(kMaxTileElements) +
                              " elements does not fit a CTA");
    n *= d;
  }
  int64_t threads = desc.numWarps * 32;
  if (n / threads > kMaxElementsPerThread)
    return error(where, "a tile of " + std::to_string(n) + " elements puts " +
                            std::to_string(n / threads) +
                            " in each of the CTA's " + std::to_string(threads) +
                            " threads (at most " +
                            std::to_string(kMaxElementsPerThread) +
                            "): raise num_warps or lower the block size");
  return success();
}

Result Generator::genEmptyLike(const ast::CallExpr &e) {
  const ast::Expr *arg = argument(e, 0, "input");
  if (!arg)
    return fail(e.getRange(), "torch.empty_like needs a tensor");
  Result like = genExpr(*arg);
  if (failed(like))
    return failure();
  if (like->kind != SemValue::Kind::Ref)
    return fail(arg->getRange(), "torch.empty_like takes a tensor parameter");
  auto type = cast<tile::RefType>(like->value.getType());
  std::string dtype = refDTypes.count(like->text) ? refDTypes[like->text] : "";
  if (const ast::Expr *dt = keyword(e, "dtype")) {
    Result d = genExpr(*dt);
    if (failed(d))
      return failure();
    if (d->kind != SemValue::Kind::DType)
      return fail(dt->getRange(), "dtype must be a torch dtype");
    dtype = d->text;
    type = tile::RefType::get(&ctx, dtypeToType(&ctx, dtype), type.getRank());
  }
  // The output becomes a kernel parameter after the inputs.
  std::string outName = "out";
  unsigned k = 0;
  while (llvm::any_of(
      desc.args, [&](const OutputDescription &o) { return o.name == outName; }))
    outName = "out" + std::to_string(++k);
  Block &entry = func.getBody().front();
  BlockArgument arg2 = entry.addArgument(type, loc(e));
  argNames.push_back(outName);
  func.setType(builder.getFunctionType(entry.getArgumentTypes(), {}));
  desc.args.push_back(OutputDescription::output(
      outName, contract::parseDType(dtype).value_or(contract::DType::Float32),
      type.getRank(), like->text));
  refDTypes[outName] = dtype;
  SemValue v = SemValue::ofKind(SemValue::Kind::Ref);
  v.value = arg2;
  v.text = outName;
  return v;
}

/// `tile.to(dtype)`: the tile converted to another element type.
Result Generator::genCast(const ast::CallExpr &e, const ast::Expr &value) {
  Result v = genExpr(value);
  if (failed(v))
    return failure();
  if (v->kind != SemValue::Kind::TileData)
    return fail(value.getRange(), std::string(".to(dtype) converts a tile "
                                              "value, not ") +
                                      kindName(v->kind));
  const ast::Expr *dtypeArg = argument(e, 0, "dtype");
  if (!dtypeArg || e.getArgs().size() != 1)
    return fail(e.getRange(), ".to takes one dtype");
  Result dt = genExpr(*dtypeArg);
  if (failed(dt))
    return failure();
  if (dt->kind != SemValue::Kind::DType)
    return fail(dtypeArg->getRange(), ".to takes a dtype (torch.float32, "
                                      "x.dtype, ...)");
  auto cast = castTile(v->value, dtypeToType(&ctx, dt->text), loc(e));
  if (failed(cast))
    return failure();
  v->value = *cast;
  return *v;
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

Result Generator::genZerosFull(const ast::CallExpr &e, bool full) {
  const ast::Expr *shapeArg = argument(e, 0, "shape");
  if (!shapeArg)
    return fail(e.getRange(), "the tile's shape is missing");
  const ast::Expr *valueArg = full ? argument(e, 1, "value") : nullptr;
  if (full && !valueArg)
    return fail(e.getRange(), "hl.full needs a fill value");
  std::string dtype = "float32";
  if (const ast::Expr *dt = keyword(e, "dtype")) {
    Result d = genExpr(*dt);
    if (failed(d))
      return failure();
    if (d->kind != SemValue::Kind::DType)
      return fail(dt->getRange(), std::string("dtype must be a torch dtype, "
                                              "got ") +
                                      kindName(d->kind));
    dtype = d->text;
  }
  Type elementType = dtypeToType(&ctx, dtype);
  auto type = tileShapeOf(*shapeArg, elementType);
  if (failed(type))
    return failure();
  mlir::Location l = loc(e);
  TypedAttr fill;
  if (!full) {
    fill = builder.getZeroAttr(elementType);
  } else {
    Result v = genExpr(*valueArg);
    if (failed(v))
      return failure();
    if (v->kind == SemValue::Kind::Int)
      fill = isa<FloatType>(elementType)
                 ? TypedAttr(builder.getFloatAttr(elementType, v->intValue))
                 : TypedAttr(builder.getIntegerAttr(elementType, v->intValue));
    else if (v->kind == SemValue::Kind::Float && isa<FloatType>(elementType))
      fill = builder.getFloatAttr(elementType, v->floatValue);
    else
      return fail(valueArg->getRange(),
                  "hl.full's value must be a constant of the tile's dtype");
  }
  SemValue t = SemValue::ofKind(SemValue::Kind::TileData);
  t.value = arith::ConstantOp::create(builder, l,
                                      DenseElementsAttr::get(*type, fill));
  return t;
}

FailureOr<Generator::Access> Generator::accessOf(const SemValue &ref,
                                                 unsigned rank,
                                                 const ast::Expr &index) {
  std::vector<const ast::Expr *> idx;
  if (auto *tuple = ast::dyn_cast<ast::TupleExpr>(&index))
    for (const ast::ExprPtr &x : tuple->getElements())
      idx.push_back(x.get());
  else
    idx.push_back(&index);
  return accessOfList(rank, idx, index);
}

FailureOr<Generator::Access>
Generator::accessOfList(unsigned rank,
                        const std::vector<const ast::Expr *> &idx,
                        const ast::Expr &index) {
  if (idx.size() != rank)
    return error(index.getRange(), "a " + std::to_string(rank) +
                                       "-d tensor needs " +
                                       std::to_string(rank) + " indices, got " +
                                       std::to_string(idx.size()));
  Access a;
  mlir::Location l = loc(index);
  for (unsigned d = 0; d < rank; ++d) {
    if (auto *slice = ast::dyn_cast<ast::SliceExpr>(idx[d])) {
      if (slice->getLower() || slice->getUpper() || slice->getStep())
        return error(idx[d]->getRange(),
                     "only the full slice ':' is supported in a tile index");
      return error(idx[d]->getRange(),
                   "a full slice ':' needs a static size; index with a tile");
    }
    Result v = genExpr(*idx[d]);
    if (failed(v))
      return failure();
    if (v->kind == SemValue::Kind::Tile) {
      a.offsets.push_back(v->begin);
      a.limits.push_back(v->end);
      a.dims.push_back(d);
      a.shape.push_back(v->block);
      continue;
    }
    auto i = toIndex(*v, *idx[d]);
    if (failed(i))
      return failure();
    a.offsets.push_back(*i);
    a.limits.push_back(arith::AddIOp::create(builder, l, *i, indexConst(l, 1)));
  }
  if (a.dims.empty())
    return error(index.getRange(),
                 "index the tensor with at least one tile (scalar element "
                 "access is not supported)");
  if (failed(checkTileSize(a.shape, index.getRange())))
    return failure();
  return a;
}

FailureOr<Value> Generator::castTile(Value v, Type elementType,
                                     mlir::Location l) {
  auto type = cast<RankedTensorType>(v.getType());
  Type from = type.getElementType();
  if (from == elementType)
    return v;
  auto to = RankedTensorType::get(type.getShape(), elementType);
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(elementType);
  // bf16 <-> f16: one width, neither extf nor truncf; through f32.
  if (fromFloat && toFloat &&
      from.getIntOrFloatBitWidth() == elementType.getIntOrFloatBitWidth()) {
    auto wide = castTile(v, builder.getF32Type(), l);
    return failed(wide) ? wide : castTile(*wide, elementType, l);
  }
  if (fromFloat && toFloat)
    return from.getIntOrFloatBitWidth() < elementType.getIntOrFloatBitWidth()
               ? Value(arith::ExtFOp::create(builder, l, to, v))
               : Value(arith::TruncFOp::create(builder, l, to, v));
  if (!fromFloat && !toFloat)
    return from.getIntOrFloatBitWidth() < elementType.getIntOrFloatBitWidth()
               ? Value(arith::ExtSIOp::create(builder, l, to, v))
               : Value(arith::TruncIOp::create(builder, l, to, v));
  if (fromFloat)
    return Value(arith::FPToSIOp::create(builder, l, to, v));
  return Value(arith::SIToFPOp::create(builder, l, to, v));
}

FailureOr<Value> Generator::coerceTile(SemValue v, RankedTensorType type,
                                       const ast::Expr &where) {
  mlir::Location l = loc(where);
  if (v.kind == SemValue::Kind::TileData) {
    auto t = cast<RankedTensorType>(v.value.getType());
    if (t.getShape() != type.getShape())
      return error(where.getRange(),
                   "a tile of shape " + std::to_string(t.getNumElements()) +
                       " elements cannot be stored into a tile of " +
                       std::to_string(type.getNumElements()));
    return castTile(v.value, type.getElementType(), l);
  }
  if (v.kind == SemValue::Kind::Int || v.kind == SemValue::Kind::Float) {
    Type et = type.getElementType();
    TypedAttr a = isa<FloatType>(et)
                      ? TypedAttr(builder.getFloatAttr(
                            et, v.kind == SemValue::Kind::Int ? v.intValue
                                                              : v.floatValue))
                      : TypedAttr(builder.getIntegerAttr(et, v.intValue));
    return Value(
        arith::ConstantOp::create(builder, l, DenseElementsAttr::get(type, a)));
  }
  return error(where.getRange(), std::string("cannot store ") +
                                     kindName(v.kind) + " into a tile");
}

} // namespace dslc::mlirgen
