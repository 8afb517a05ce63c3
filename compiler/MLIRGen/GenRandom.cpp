//===- GenRandom.cpp - hl.rand: Philox random numbers ---------------------===//
//
// hl.rand(shape, seed=..., offsets=None) is Helion's (and Triton's tl.rand)
// counter-based generator: element e of the result is Philox-4x32 with 10
// rounds of the counter (offset(e) low 32 bits, high 32 bits, 0, 0) under
// the key (seed low 32 bits, high 32 bits), its first word made a float in
// [0, 1): the word as a signed int32 x, (x < 0 ? -x - 1 : x) * 2**-31
// (rounded). offset(e) is the element's row-major position in the whole
// shape (a tile's dimension counts its loop's full extent), or `offsets`.
// Everything is integer arith on tiles (the multiplications widen to i64),
// so the simulator computes the GPU's bits exactly.
//
//===----------------------------------------------------------------------===//

#include "compiler/MLIRGen/Generator.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace dslc::mlirgen {

namespace {
constexpr int kPhiloxRounds = 10;
constexpr uint32_t kPhiloxKeyA = 0x9E3779B9, kPhiloxKeyB = 0xBB67AE85;
constexpr uint32_t kPhiloxRoundA = 0xD2511F53, kPhiloxRoundB = 0xCD9E8D57;
/// The largest float with 2**31 - 1 times it below 1 (Triton's scale).
constexpr float kUint32ToUniform = 4.6566127342e-10f;
} // namespace

/// A splat integer tile constant.
static Value splatInt(OpBuilder &builder, RankedTensorType type, int64_t v,
                      mlir::Location l) {
  auto attr = IntegerAttr::get(type.getElementType(), v);
  return arith::ConstantOp::create(
      builder, l, DenseElementsAttr::get(type, Attribute(attr)));
}

FailureOr<SemValue> Generator::randOffsets(const ast::Expr &shapeArg) {
  mlir::Location l = loc(shapeArg);
  Type i64 = builder.getI64Type();
  std::vector<const ast::Expr *> dims = elementsOf(shapeArg);
  if (dims.empty())
    return error(shapeArg.getRange(),
                 "hl.rand needs a shape: a list of tiles and sizes");
  // Per dimension: the indices (1-d i64), the full extent (i64 scalar).
  SmallVector<Value> indices, extents;
  SmallVector<int64_t> shape;
  SmallVector<ValidCount, 4> valid;
  for (const ast::Expr *d : dims) {
    Result v = genExpr(*d);
    if (failed(v))
      return failure();
    if (v->kind == SemValue::Kind::Tile) {
      auto type = RankedTensorType::get({v->block}, i64);
      Value iota = tile::IotaOp::create(builder, l, type);
      Value begin = castValue(v->begin, i64, l);
      indices.push_back(arith::AddIOp::create(
          builder, l, iota, tile::SplatOp::create(builder, l, type, begin)));
      extents.push_back(castValue(v->extent, i64, l));
      shape.push_back(v->block);
      ValidCount count;
      count.bounds.push_back({v->begin, v->end, Value(), 0});
      valid.push_back(count);
      continue;
    }
    FailureOr<int64_t> n = toConstInt(*v, *d, "a size of hl.rand's shape");
    if (failed(n))
      return failure();
    if (*n < 1)
      return error(d->getRange(), "a size of hl.rand's shape must be "
                                  "positive, got " +
                                      std::to_string(*n));
    auto type = RankedTensorType::get({*n}, i64);
    indices.push_back(tile::IotaOp::create(builder, l, type));
    extents.push_back(
        arith::ConstantOp::create(builder, l, builder.getI64IntegerAttr(*n)));
    shape.push_back(*n);
    valid.push_back(ValidCount());
  }
  if (failed(checkTileSize(shape, shapeArg.getRange())))
    return failure();
  // offset = sum_d index_d * (extent_{d+1} * ... * extent_{r-1}).
  auto type = RankedTensorType::get(shape, i64);
  Value offset = splatInt(builder, type, 0, l);
  Value stride;
  for (size_t d = dims.size(); d-- > 0;) {
    Value index = indices[d];
    if (shape.size() > 1) {
      SmallVector<int64_t> unit(shape.size(), 1);
      unit[d] = shape[d];
      index = tile::ReshapeOp::create(builder, l,
                                      RankedTensorType::get(unit, i64), index);
      index = tile::BroadcastOp::create(builder, l, type, index);
    }
    if (stride)
      index = arith::MulIOp::create(
          builder, l, index, tile::SplatOp::create(builder, l, type, stride));
    offset = arith::AddIOp::create(builder, l, offset, index);
    stride = stride
                 ? Value(arith::MulIOp::create(builder, l, stride, extents[d]))
                 : extents[d];
  }
  SemValue t = SemValue::ofKind(SemValue::Kind::TileData);
  t.value = offset;
  t.valid = valid;
  return t;
}

/// Uniform f32s in [0, 1) of i64 `offset` and i64 scalar `seed`.
static Value philoxUniform(OpBuilder &builder, Value offset, Value seed,
                           mlir::Location l) {
  auto type = cast<RankedTensorType>(offset.getType());
  Type i32 = builder.getI32Type(), i64 = builder.getI64Type();
  auto t32 = RankedTensorType::get(type.getShape(), i32);
  auto t64 = RankedTensorType::get(type.getShape(), i64);
  Value c32 = splatInt(builder, t64, 32, l);
  auto hiWord = [&](Value v) {
    return arith::TruncIOp::create(builder, l, t32,
                                   arith::ShRUIOp::create(builder, l, v, c32));
  };
  Value c0 = arith::TruncIOp::create(builder, l, t32, offset);
  Value c1 = hiWord(offset);
  Value c2 = splatInt(builder, t32, 0, l), c3 = c2;
  Value k0 = arith::TruncIOp::create(builder, l, i32, seed);
  Value k1 = arith::TruncIOp::create(
      builder, l, i32,
      arith::ShRUIOp::create(builder, l, seed,
                             arith::ConstantOp::create(
                                 builder, l, builder.getI64IntegerAttr(32))));
  auto key = [&](uint32_t v) {
    return arith::ConstantOp::create(builder, l,
                                     builder.getI32IntegerAttr(int32_t(v)));
  };
  // The 64-bit product of a word and a constant: (high word, low word).
  auto mulWide = [&](uint32_t a, Value c) {
    Value wide = arith::ExtUIOp::create(builder, l, t64, c);
    Value p = arith::MulIOp::create(
        builder, l, wide, splatInt(builder, t64, int64_t(uint64_t(a)), l));
    return std::make_pair(Value(hiWord(p)),
                          Value(arith::TruncIOp::create(builder, l, t32, p)));
  };
  for (int r = 0; r < kPhiloxRounds; ++r) {
    auto [hiB, loB] = mulWide(kPhiloxRoundB, c2);
    auto [hiA, loA] = mulWide(kPhiloxRoundA, c0);
    Value sk0 = tile::SplatOp::create(builder, l, t32, k0);
    Value sk1 = tile::SplatOp::create(builder, l, t32, k1);
    c0 = arith::XOrIOp::create(builder, l,
                               arith::XOrIOp::create(builder, l, hiB, c1), sk0);
    c2 = arith::XOrIOp::create(builder, l,
                               arith::XOrIOp::create(builder, l, hiA, c3), sk1);
    c1 = loB;
    c3 = loA;
    if (r + 1 < kPhiloxRounds) {
      k0 = arith::AddIOp::create(builder, l, k0, key(kPhiloxKeyA));
      k1 = arith::AddIOp::create(builder, l, k1, key(kPhiloxKeyB));
    }
  }
  // c0 as a signed word x: (x < 0 ? ~x : x) * 2**-31.
  Value negative = arith::CmpIOp::create(builder, l, arith::CmpIPredicate::slt,
                                         c0, splatInt(builder, t32, 0, l));
  Value inverted =
      arith::XOrIOp::create(builder, l, c0, splatInt(builder, t32, -1, l));
  Value magnitude = arith::SelectOp::create(builder, l, negative, inverted, c0);
  auto f32 = RankedTensorType::get(type.getShape(), builder.getF32Type());
  Value x = arith::SIToFPOp::create(builder, l, f32, magnitude);
  Value scale = arith::ConstantOp::create(
      builder, l,
      DenseElementsAttr::get(
          f32, Attribute(builder.getF32FloatAttr(kUint32ToUniform))));
  return arith::MulFOp::create(builder, l, x, scale);
}

Result Generator::genRand(const ast::CallExpr &e) {
  if (failed(
          checkKeywords(e, "hl.rand", {"shape", "seed", "device", "offsets"})))
    return failure();
  if (!inGrid)
    return fail(e.getRange(), "hl.rand makes a tile: call it inside the "
                              "kernel's tile loop");
  const ast::Expr *shapeArg = argument(e, 0, "shape");
  const ast::Expr *seedArg = argument(e, 1, "seed");
  const ast::Expr *offsetsArg = keyword(e, "offsets");
  if (!seedArg)
    return fail(e.getRange(), "hl.rand needs a seed (seed=...): an integer");
  if (!shapeArg && !offsetsArg)
    return fail(e.getRange(), "hl.rand needs a shape (a list of tiles and "
                              "sizes) or offsets=");
  Result seed = genExpr(*seedArg);
  if (failed(seed))
    return failure();
  mlir::Location l = loc(e);
  Type i64 = builder.getI64Type();
  Value seedValue;
  if (seed->kind == SemValue::Kind::Int)
    seedValue = arith::ConstantOp::create(
        builder, l, builder.getI64IntegerAttr(seed->intValue));
  else if (seed->kind == SemValue::Kind::Scalar &&
           !isa<FloatType>(seed->value.getType()))
    seedValue = castValue(seed->value, i64, l);
  else if (seed->kind == SemValue::Kind::Poison)
    return failure();
  else
    return fail(seedArg->getRange(),
                std::string("hl.rand's seed is an integer (an int parameter "
                            "or a constant), got ") +
                    (seed->kind == SemValue::Kind::Scalar ||
                             seed->kind == SemValue::Kind::Float
                         ? "a float"
                         : kindName(seed->kind)));
  SemValue offsets;
  if (offsetsArg) {
    Result o = genExpr(*offsetsArg);
    if (failed(o))
      return failure();
    Result t = asTile(*o, *offsetsArg);
    if (failed(t))
      return failure();
    auto type = cast<RankedTensorType>(t->value.getType());
    if (!type.getElementType().isSignlessInteger())
      return fail(offsetsArg->getRange(),
                  "hl.rand's offsets are an integer tile");
    offsets = *t;
    offsets.value = castValue(t->value, i64, l);
  } else {
    FailureOr<SemValue> o = randOffsets(*shapeArg);
    if (failed(o))
      return failure();
    offsets = *o;
  }
  SemValue r = SemValue::ofKind(SemValue::Kind::TileData);
  r.value = philoxUniform(builder, offsets.value, seedValue, l);
  r.valid = offsets.valid;
  return r;
}

} // namespace dslc::mlirgen
