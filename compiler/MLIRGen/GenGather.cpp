//===- GenGather.cpp - Accesses at computed indices ----------------------===//
//
// A subscript with an integer tile of computed indices (`weight[idx, tile]`,
// `hl.load(x_flat, [rows * v + labels])`) or a load with `extra_mask=` is a
// gather (a store, a scatter): every element addressed on its own. Each
// index of the subscript contributes dimensions to the result, in order: a
// tile or a slice one (its indices), an index tile its own, None a unit
// one, a scalar none. Every index is then a tile of the result's shape
// (tile.gather takes one per tensor dimension); a tile's indices past its
// end (an hl.tile(begin, end) walk) are masked off, and so is `extra_mask`.
//
//===----------------------------------------------------------------------===//

#include "compiler/MLIRGen/Generator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace dslc::mlirgen {

bool GeneratorState::isGatherIndex(const SemValue &v) {
  if (v.kind != SemValue::Kind::TileData || v.indexTile)
    return false;
  return isa<IntegerType, IndexType>(
      cast<RankedTensorType>(v.value.getType()).getElementType());
}

/// `v` (a tile whose dimensions are result dimensions [at, at + rank)) as a
/// tile of `shape`: unit dimensions around it, then broadcast.
static Value placeTile(OpBuilder &b, mlir::Location l, Value v,
                       ArrayRef<int64_t> shape, size_t at) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> padded(shape.size(), 1);
  for (int64_t k = 0; k < type.getRank(); ++k)
    padded[at + k] = type.getDimSize(k);
  if (ArrayRef<int64_t>(padded) != type.getShape())
    v = tile::ReshapeOp::create(
        b, l, RankedTensorType::get(padded, type.getElementType()), v);
  if (ArrayRef<int64_t>(padded) != shape)
    v = tile::BroadcastOp::create(
        b, l, RankedTensorType::get(shape, type.getElementType()), v);
  return v;
}

FailureOr<Generator::Gather> Generator::gatherOf(const SemValue &ref,
                                                 ArrayRef<IndexEntry> entries,
                                                 const SemValue *extraMask,
                                                 const ast::Expr &where) {
  if (!ref.windowStarts.empty())
    return error(where.getRange(),
                 "computed indices into a slice taken before the loop are "
                 "not supported: index the tensor itself (add the slice's "
                 "start to the indices)");
  mlir::Location l = loc(where);
  Type i64 = builder.getI64Type();
  unsigned d = 0; // the tensor dimension
  // Each index: its index tile (null for None), the first result
  // dimension it fills, and a mask of its own (a tile's end).
  struct Part {
    Value index, mask;
    size_t at = 0;
  };
  SmallVector<Part> parts;
  Gather g;
  auto iotaFrom = [&](Value first, int64_t n) {
    auto type = RankedTensorType::get({n}, i64);
    Value iota = tile::IotaOp::create(builder, l, type);
    return arith::AddIOp::create(
        builder, l, iota,
        tile::SplatOp::create(builder, l, type, castValue(first, i64, l)));
  };
  for (const IndexEntry &e : entries) {
    Part p;
    p.at = g.shape.size();
    if (e.none) {
      g.shape.push_back(1);
      g.valid.push_back(ValidCount());
      parts.push_back(p); // no index: a unit result dimension
      continue;
    }
    if (e.slice) {
      Access a;
      if (failed(accessSlice(ref, d, *e.slice, a)))
        return failure();
      p.index = iotaFrom(a.offsets.front(), a.shape.front());
      g.shape.push_back(a.shape.front());
      g.valid.push_back(ValidCount());
    } else if (e.value->kind == SemValue::Kind::Tile ||
               (e.value->kind == SemValue::Kind::TileData &&
                e.value->indexTile)) {
      const SemValue &t = e.value->kind == SemValue::Kind::Tile
                              ? *e.value
                              : *e.value->indexTile;
      Value idx = iotaFrom(t.begin, t.block);
      p.index = idx;
      p.mask = arith::CmpIOp::create(
          builder, l, arith::CmpIPredicate::slt, idx,
          tile::SplatOp::create(builder, l, idx.getType(),
                                castValue(t.end, i64, l)));
      g.shape.push_back(t.block);
      ValidCount valid;
      valid.bounds.push_back({t.begin, t.end, ref.value, d});
      g.valid.push_back(valid);
    } else if (isGatherIndex(*e.value)) {
      p.index = castValue(e.value->value, i64, l);
      auto type = cast<RankedTensorType>(p.index.getType());
      for (int64_t k = 0; k < type.getRank(); ++k) {
        g.shape.push_back(type.getDimSize(k));
        g.valid.push_back(size_t(k) < e.value->valid.size() ? e.value->valid[k]
                                                            : ValidCount());
      }
    } else {
      auto i = toIndex(*e.value, *e.expr); // one index for every element
      if (failed(i))
        return failure();
      p.index = castValue(*i, i64, l);
    }
    ++d;
    parts.push_back(p);
  }
  if (failed(checkTileSize(g.shape, where.getRange())))
    return failure();
  for (const Part &p : parts) {
    if (!p.index)
      continue;
    if (isa<RankedTensorType>(p.index.getType()))
      g.indices.push_back(placeTile(builder, l, p.index, g.shape, p.at));
    else
      g.indices.push_back(tile::SplatOp::create(
          builder, l, RankedTensorType::get(g.shape, i64), p.index));
    if (p.mask) {
      Value m = placeTile(builder, l, p.mask, g.shape, p.at);
      g.mask =
          g.mask ? arith::AndIOp::create(builder, l, g.mask, m).getResult() : m;
    }
  }
  if (extraMask) {
    Result m = asTile(*extraMask, where);
    if (failed(m))
      return failure();
    if (!getElementTypeOrSelf(m->value.getType()).isInteger(1))
      return error(where.getRange(), "extra_mask must be a bool tile (a "
                                     "comparison)");
    auto shape = broadcastShape(
        cast<RankedTensorType>(m->value.getType()).getShape(), g.shape, where);
    if (failed(shape))
      return failure();
    if (ArrayRef<int64_t>(*shape) != ArrayRef<int64_t>(g.shape))
      return error(where.getRange(),
                   "extra_mask does not broadcast to the accessed tile's "
                   "shape");
    SemValue mask = *m;
    broadcastTo(mask, g.shape, l);
    g.mask =
        g.mask
            ? arith::AndIOp::create(builder, l, g.mask, mask.value).getResult()
            : mask.value;
  }
  return g;
}

Result Generator::genGatherLoad(const SemValue &ref,
                                ArrayRef<IndexEntry> entries,
                                const SemValue *extraMask,
                                const ast::Expr &where,
                                tile::EvictionAttr evict) {
  FailureOr<Gather> g = gatherOf(ref, entries, extraMask, where);
  if (failed(g))
    return failure();
  SemValue t = SemValue::ofKind(SemValue::Kind::TileData);
  t.value = tile::GatherOp::create(
      builder, loc(where),
      RankedTensorType::get(g->shape, refShape(ref).second), ref.value,
      g->indices, g->mask, evict);
  t.valid = g->valid;
  return t;
}

LogicalResult Generator::genScatterStore(const SemValue &ref,
                                         ArrayRef<IndexEntry> entries,
                                         const SemValue &value,
                                         const ast::Expr &where,
                                         const SemValue *extraMask) {
  if (ref.kind != SemValue::Kind::Ref)
    return error(where.getRange(), "a store at computed indices goes into a "
                                   "tensor (not a stack tensor)");
  FailureOr<Gather> g = gatherOf(ref, entries, extraMask, where);
  if (failed(g))
    return failure();
  auto type = RankedTensorType::get(g->shape, refShape(ref).second);
  FailureOr<Value> v = coerceTile(value, type, where);
  if (failed(v))
    return failure();
  tile::ScatterOp::create(builder, loc(where), *v, ref.value, g->indices,
                          g->mask);
  return success();
}

} // namespace dslc::mlirgen
