//===- GenReshape.cpp - Tile shapes: reshape, transpose, stack, split -----===//

#include "compiler/MLIRGen/Generator.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace dslc::mlirgen {

/// Whether `to` is `from` with dimensions same, same + 1, ... (at least
/// two) merged into one and the rest equal; their count.
static std::optional<size_t> mergedRun(ArrayRef<int64_t> from,
                                       ArrayRef<int64_t> to, size_t same) {
  if (same >= to.size() || same + 1 >= from.size())
    return std::nullopt;
  int64_t product = from[same];
  size_t end = same + 1;
  while (end < from.size() && product < to[same])
    product *= from[end++];
  if (product != to[same] || end - same < 2 ||
      from.size() - end != to.size() - same - 1)
    return std::nullopt;
  for (size_t k = end; k < from.size(); ++k)
    if (from[k] != to[k - end + same + 1])
      return std::nullopt;
  return end - same;
}

Result Generator::reshapeTile(const SemValue &v, ArrayRef<int64_t> shape,
                              const ast::Expr &where) {
  auto type = cast<RankedTensorType>(v.value.getType());
  SmallVector<int64_t> from, to;
  SmallVector<unsigned> fromDims, toDims;
  for (auto [d, n] : llvm::enumerate(type.getShape()))
    if (n != 1) {
      from.push_back(n);
      fromDims.push_back(d);
    }
  for (auto [d, n] : llvm::enumerate(shape))
    if (n != 1) {
      to.push_back(n);
      toDims.push_back(d);
    }
  int64_t count = 1;
  for (int64_t n : shape)
    count *= n;
  if (count != type.getNumElements())
    return fail(where.getRange(),
                "reshaping a tile of shape " + shapeText(type.getShape()) +
                    " to " + shapeText(shape) + ": the element counts differ");
  if (failed(checkTileSize(shape, where.getRange())))
    return failure();
  SemValue t = v;
  t.indexTile.reset();
  t.valid.assign(shape.size(), ValidCount());
  // The dimensions other than 1 that stay (a common prefix) keep their
  // valid counts; a split or merged one must have none.
  size_t same = 0;
  while (same < from.size() && same < to.size() && from[same] == to[same])
    ++same;
  // Dimension `same` merged with whole ones after it into one (int4_gemm's
  // [K, 2, N] -> [2K, N]): its valid count times their product.
  if (std::optional<size_t> run = mergedRun(from, to, same)) {
    unsigned src = fromDims[same];
    bool rest = true; // the other merged dimensions are whole
    for (size_t k = same + 1; k < same + *run; ++k)
      rest &= fromDims[k] >= v.valid.size() || v.valid[fromDims[k]].all();
    if (rest && src < v.valid.size() && !v.valid[src].all()) {
      mlir::Location l = loc(where);
      int64_t m = to[same] / from[same];
      Value count = materialize(v.valid[src], l);
      ValidCount merged;
      merged.bounds.push_back(
          {indexConst(l, 0),
           arith::MulIOp::create(builder, l, count, indexConst(l, m)), Value(),
           0});
      for (size_t k = 0; k < same; ++k)
        if (fromDims[k] < v.valid.size())
          t.valid[toDims[k]] = v.valid[fromDims[k]];
      t.valid[toDims[same]] = merged;
      for (size_t k = same + *run; k < from.size(); ++k)
        if (fromDims[k] < v.valid.size())
          t.valid[toDims[k - *run + 1]] = v.valid[fromDims[k]];
      if (shape != type.getShape())
        t.value = tile::ReshapeOp::create(
            builder, l, RankedTensorType::get(shape, type.getElementType()),
            v.value);
      return t;
    }
  }
  for (size_t k = 0; k < from.size(); ++k) {
    unsigned src = fromDims[k];
    bool masked = src < v.valid.size() && !v.valid[src].all();
    if (k < same && k < toDims.size()) {
      if (src < v.valid.size())
        t.valid[toDims[k]] = v.valid[src];
    } else if (masked) {
      return fail(where.getRange(),
                  "reshaping a tile of shape " + shapeText(type.getShape()) +
                      " to " + shapeText(shape) +
                      " splits or merges dimension " + std::to_string(src) +
                      ", which has a masked tail (a tile's rows past the "
                      "tensor's end): reshape a tile loaded whole along it "
                      "(`:`) instead");
    }
  }
  if (shape != type.getShape())
    t.value = tile::ReshapeOp::create(
        builder, loc(where),
        RankedTensorType::get(shape, type.getElementType()), v.value);
  return t;
}

Result Generator::genTileReshape(const ast::CallExpr &e, const SemValue &v) {
  auto type = cast<RankedTensorType>(v.value.getType());
  std::vector<const ast::Expr *> dims;
  for (const ast::Argument &a : e.getArgs())
    if (a.kind == ast::Argument::Kind::Positional)
      dims.push_back(a.value.get());
  if (dims.size() == 1 &&
      (ast::isa<ast::ListExpr>(*dims[0]) || ast::isa<ast::TupleExpr>(*dims[0])))
    dims = elementsOf(*dims[0]);
  SmallVector<int64_t> shape;
  std::optional<size_t> inferred;
  for (const ast::Expr *d : dims) {
    Result s = genExpr(*d);
    if (failed(s))
      return failure();
    if (s->kind == SemValue::Kind::Tile) {
      shape.push_back(s->block); // reshape([tile_m, 1]): the tile's block
      continue;
    }
    FailureOr<int64_t> n = toConstInt(*s, *d, "a tile's size");
    if (failed(n))
      return failure();
    if (*n == -1 && !inferred) {
      inferred = shape.size();
      shape.push_back(1);
      continue;
    }
    if (*n < 1)
      return fail(d->getRange(), "a tile's size must be positive");
    shape.push_back(*n);
  }
  if (inferred) {
    int64_t known = 1;
    for (int64_t n : shape)
      known *= n;
    shape[*inferred] = type.getNumElements() / known;
  }
  return reshapeTile(v, shape, e);
}

Result Generator::genTileSqueeze(const ast::CallExpr &e, const SemValue &v,
                                 bool unsqueeze) {
  auto type = cast<RankedTensorType>(v.value.getType());
  int64_t rank = type.getRank();
  const ast::Expr *dimArg = argument(e, 0, "dim");
  SmallVector<int64_t> shape(type.getShape());
  if (!dimArg) {
    if (unsqueeze)
      return fail(e.getRange(), "unsqueeze takes a dimension");
    SmallVector<int64_t> kept;
    for (int64_t n : shape)
      if (n != 1)
        kept.push_back(n);
    return reshapeTile(v, kept, e);
  }
  FailureOr<int64_t> d = constIntOf(*dimArg, "a dimension");
  if (failed(d))
    return failure();
  int64_t limit = unsqueeze ? rank + 1 : rank;
  int64_t dd = *d < 0 ? *d + limit : *d;
  if (dd < 0 || dd >= limit)
    return fail(dimArg->getRange(), "dimension " + std::to_string(*d) +
                                        " is out of range for a " +
                                        std::to_string(rank) + "-d tile");
  if (unsqueeze)
    shape.insert(shape.begin() + dd, 1);
  else if (shape[dd] == 1)
    shape.erase(shape.begin() + dd);
  return reshapeTile(v, shape, e);
}

Result Generator::transposeTile(const SemValue &v,
                                ArrayRef<int64_t> permutation,
                                const ast::Expr &where) {
  auto type = cast<RankedTensorType>(v.value.getType());
  SmallVector<int64_t> shape;
  for (int64_t p : permutation)
    shape.push_back(type.getDimSize(p));
  if (failed(checkTileSize(shape, where.getRange())))
    return failure();
  SemValue t = v;
  t.indexTile.reset();
  t.valid.assign(shape.size(), ValidCount());
  for (auto [k, p] : llvm::enumerate(permutation))
    if (size_t(p) < v.valid.size())
      t.valid[k] = v.valid[p];
  if (!llvm::equal(permutation, llvm::seq<int64_t>(0, shape.size())))
    t.value = tile::TransposeOp::create(
        builder, loc(where),
        RankedTensorType::get(shape, type.getElementType()), v.value,
        permutation);
  return t;
}

std::optional<Result> Generator::genTransposeCall(const ast::CallExpr &e,
                                                  llvm::StringRef fn,
                                                  const ast::Expr *self) {
  if (fn != "t" && fn != "transpose" && fn != "permute" && fn != "swapaxes")
    return std::nullopt;
  const ast::Expr *input = self ? self : argument(e, 0, "input");
  if (!input)
    return fail(e.getRange(), "torch." + fn.str() + " needs a tile");
  Result v = genExpr(*input);
  if (failed(v))
    return failure();
  Result t = asTile(*v, e);
  if (failed(t))
    return failure();
  int64_t rank = cast<RankedTensorType>(t->value.getType()).getRank();
  SmallVector<int64_t> dims;
  size_t first = self ? 0 : 1;
  for (size_t i = first; i < e.getArgs().size(); ++i) {
    const ast::Argument &a = e.getArgs()[i];
    if (a.kind != ast::Argument::Kind::Positional)
      continue;
    Result d = genExpr(*a.value);
    if (failed(d))
      return failure();
    std::vector<SemValue> items = d->kind == SemValue::Kind::Tuple
                                      ? d->elements
                                      : std::vector<SemValue>{*d};
    for (const SemValue &x : items) {
      FailureOr<int64_t> k = toConstInt(x, *a.value, "a dimension");
      if (failed(k))
        return failure();
      int64_t kk = *k < 0 ? *k + rank : *k;
      if (kk < 0 || kk >= rank)
        return fail(a.value->getRange(), "dimension " + std::to_string(*k) +
                                             " is out of range for a " +
                                             std::to_string(rank) + "-d tile");
      dims.push_back(kk);
    }
  }
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  if (fn == "t") {
    if (rank > 2 || !dims.empty())
      return fail(e.getRange(), "t() transposes a tile of at most 2 "
                                "dimensions: use transpose(a, b)");
    std::reverse(perm.begin(), perm.end());
  } else if (fn == "transpose" || fn == "swapaxes") {
    if (dims.size() != 2)
      return fail(e.getRange(), fn.str() + " takes two dimensions");
    std::swap(perm[dims[0]], perm[dims[1]]);
  } else {
    SmallVector<int64_t> sorted(dims);
    llvm::sort(sorted);
    if (int64_t(dims.size()) != rank ||
        !llvm::equal(sorted, llvm::seq<int64_t>(0, rank)))
      return fail(e.getRange(), "permute takes a permutation of the tile's " +
                                    std::to_string(rank) + " dimensions");
    perm = dims;
  }
  return transposeTile(*t, perm, e);
}

Result Generator::genTileExpand(const ast::CallExpr &e, const SemValue &v,
                                bool asOther) {
  auto type = cast<RankedTensorType>(v.value.getType());
  SmallVector<int64_t> shape;
  if (asOther) {
    const ast::Expr *other = argument(e, 0, "other");
    Result o = other ? genExpr(*other) : Result(failure());
    if (!other || failed(o))
      return other ? Result(failure())
                   : fail(e.getRange(), "expand_as takes a tile");
    Result t = asTile(*o, *other);
    if (failed(t))
      return failure();
    auto ot = cast<RankedTensorType>(t->value.getType()).getShape();
    shape.assign(ot.begin(), ot.end());
  } else {
    std::vector<const ast::Expr *> dims;
    for (const ast::Argument &a : e.getArgs())
      if (a.kind == ast::Argument::Kind::Positional)
        dims.push_back(a.value.get());
    if (dims.size() == 1 && (ast::isa<ast::ListExpr>(*dims[0]) ||
                             ast::isa<ast::TupleExpr>(*dims[0])))
      dims = elementsOf(*dims[0]);
    size_t lead = dims.size() >= size_t(type.getRank())
                      ? dims.size() - type.getRank()
                      : 0;
    for (auto [k, d] : llvm::enumerate(dims)) {
      Result s = genExpr(*d);
      if (failed(s))
        return failure();
      if (s->kind == SemValue::Kind::Tile) {
        shape.push_back(s->block);
        continue;
      }
      FailureOr<int64_t> n = toConstInt(*s, *d, "an expanded size");
      if (failed(n))
        return failure();
      if (*n == -1 && k >= lead) // -1: the tile's own extent
        n = type.getDimSize(k - lead);
      shape.push_back(*n);
    }
  }
  auto out = broadcastShape(type.getShape(), shape, e);
  if (failed(out) || ArrayRef<int64_t>(*out) != ArrayRef<int64_t>(shape))
    return failed(out) ? Result(failure())
                       : fail(e.getRange(), "expand: the tile does not "
                                            "broadcast to that shape");
  if (failed(checkTileSize(shape, e.getRange())))
    return failure();
  SemValue t = v;
  broadcastTo(t, shape, loc(e));
  return t;
}

Result Generator::genStack(const ast::CallExpr &e) {
  // Each tile reshaped with a unit dimension at `dim`, broadcast to the
  // stack's N there, the result element i along it chosen from tile i (as
  // hl.join, along any dimension). torch.cat (concat, concatenate) of N
  // tiles of one shape is that stack with the new dimension merged into
  // the next: element k * size + i along `dim` is tile k's element i.
  std::string fn = ast::getDottedName(e.getCallee()).value_or("torch.stack");
  bool cat = fn != "torch.stack";
  if (failed(checkKeywords(e, fn, {"tensors", "dim"})))
    return failure();
  if (!inGrid)
    return fail(e.getRange(), "torch.stack of tiles: call it inside the "
                              "kernel's tile loop");
  const ast::Expr *listArg = argument(e, 0, "tensors");
  if (!listArg)
    return fail(e.getRange(), fn + " takes a list of tiles");
  std::vector<const ast::Expr *> items = elementsOf(*listArg);
  if (items.empty())
    return fail(listArg->getRange(), fn + " takes a list of tiles");
  auto tileText = [](Value v) { // "bfloat16 [16, 64]"
    auto t = cast<RankedTensorType>(v.getType());
    return typeToDType(t.getElementType()) + " " + shapeText(t.getShape());
  };
  std::vector<SemValue> in;
  for (const ast::Expr *x : items) {
    Result v = genExpr(*x);
    if (failed(v))
      return failure();
    Result t = asTile(*v, *x);
    if (failed(t))
      return failure();
    if (!in.empty() && t->value.getType() != in[0].value.getType())
      return fail(
          x->getRange(),
          cat ? fn +
                    " of tiles of different shapes or dtypes ("
                    "dslc concatenates tiles of one shape and dtype): " +
                    tileText(in[0].value) + " and " + tileText(t->value)
              : fn + " takes tiles of one type");
    in.push_back(*t);
  }
  auto type = cast<RankedTensorType>(in[0].value.getType());
  int64_t rank = type.getRank();
  auto dim = constIntArgument(e, "dim", 0, 1);
  if (failed(dim))
    return failure();
  int64_t d = dim->value_or(0);
  if (d < 0)
    d += cat ? rank : rank + 1;
  if (d < 0 || d > (cat ? rank - 1 : rank))
    return fail(e.getRange(), fn + "'s dim is out of range for " +
                                  std::to_string(rank) + "-d tiles");
  if (cat)
    for (auto [x, v] : llvm::zip(items, in))
      if (size_t(d) < v.valid.size() && !v.valid[d].all())
        return fail(x->getRange(),
                    fn + " along dimension " + std::to_string(d) +
                        ", where this tile has a masked tail (elements past "
                        "the tensor's end): concatenate along a dimension "
                        "loaded whole, or load the tiles whole (`:`)");
  mlir::Location l = loc(e);
  int64_t n = int64_t(in.size());
  SmallVector<int64_t> shape(type.getShape());
  shape.insert(shape.begin() + d, n);
  if (failed(checkTileSize(shape, e.getRange())))
    return failure();
  SmallVector<int64_t> unit(type.getShape());
  unit.insert(unit.begin() + d, 1);
  // The index along the stacked dimension, broadcast.
  SmallVector<int64_t> along(shape.size(), 1);
  along[d] = n;
  auto i32 = builder.getI32Type();
  Value index =
      tile::IotaOp::create(builder, l, RankedTensorType::get({n}, i32));
  index = tile::ReshapeOp::create(builder, l, RankedTensorType::get(along, i32),
                                  index);
  auto indexType = RankedTensorType::get(shape, i32);
  if (along != shape)
    index = tile::BroadcastOp::create(builder, l, indexType, index);
  SemValue r;
  for (int64_t k = n; k-- > 0;) {
    SemValue x = in[k];
    x.value = tile::ReshapeOp::create(
        builder, l, RankedTensorType::get(unit, type.getElementType()),
        x.value);
    x.valid.insert(x.valid.begin() + std::min<int64_t>(d, x.valid.size()),
                   ValidCount());
    x.indexTile.reset();
    broadcastTo(x, shape, l);
    if (k + 1 == n) {
      r = x;
      continue;
    }
    Value isK = arith::CmpIOp::create(
        builder, l, arith::CmpIPredicate::eq, index,
        arith::ConstantOp::create(
            builder, l,
            DenseElementsAttr::get(indexType, builder.getI32IntegerAttr(k))));
    r.value = arith::SelectOp::create(builder, l, isK, x.value, r.value);
    r.valid = mergeValid(r.valid, x.valid);
  }
  if (!cat)
    return r;
  SmallVector<int64_t> merged(type.getShape());
  merged[d] *= n;
  return reshapeTile(r, merged, e);
}

Result Generator::genSplitJoin(const ast::CallExpr &e, bool join) {
  // hl.split(x): x[..., 0] and x[..., 1] of a last dimension of 2, each the
  // sum along it of x where the index is that half (the other half zero:
  // exact); hl.join(a, b): a and b stacked as a new last dimension of 2,
  // chosen by the index.
  mlir::Location l = loc(e);
  std::vector<SemValue> in;
  for (const ast::Argument &a : e.getArgs()) {
    Result v = genExpr(*a.value);
    if (failed(v))
      return failure();
    Result t = asTile(*v, *a.value);
    if (failed(t))
      return failure();
    in.push_back(*t);
  }
  if (in.size() != (join ? 2u : 1u))
    return fail(e.getRange(),
                join ? "hl.join takes two tiles" : "hl.split takes one tile");
  auto type = cast<RankedTensorType>(in[0].value.getType());
  SmallVector<int64_t> shape(type.getShape());
  if (!join) {
    if (shape.empty() || shape.back() != 2)
      return fail(e.getRange(), "hl.split splits a last dimension of 2");
  } else {
    if (cast<RankedTensorType>(in[1].value.getType()) != type)
      return fail(e.getRange(), "hl.join takes two tiles of one type");
    shape.push_back(2);
    if (failed(checkTileSize(shape, e.getRange())))
      return failure();
  }
  // The index along the last dimension of 2, broadcast.
  auto iotaType = RankedTensorType::get({2}, builder.getI32Type());
  SemValue half = SemValue::ofKind(SemValue::Kind::TileData);
  half.value = tile::IotaOp::create(builder, l, iotaType);
  SmallVector<int64_t> full =
      join ? shape : SmallVector<int64_t>(type.getShape());
  broadcastTo(half, full, l);
  auto isFirst = [&]() -> Value {
    Value zero = arith::ConstantOp::create(
        builder, l,
        DenseElementsAttr::get(
            RankedTensorType::get(full, builder.getI32Type()),
            builder.getI32IntegerAttr(0)));
    return arith::CmpIOp::create(builder, l, arith::CmpIPredicate::eq,
                                 half.value, zero);
  };
  if (join) {
    SemValue a = in[0], b = in[1];
    for (SemValue *x : {&a, &b}) {
      SmallVector<int64_t> unit(type.getShape());
      unit.push_back(1);
      x->value = tile::ReshapeOp::create(
          builder, l, RankedTensorType::get(unit, type.getElementType()),
          x->value);
      x->valid.push_back(ValidCount());
      broadcastTo(*x, shape, l);
    }
    SemValue r = a;
    r.value = arith::SelectOp::create(builder, l, isFirst(), a.value, b.value);
    r.valid = mergeValid(a.valid, b.valid);
    return r;
  }
  Value first = isFirst();
  Value zero = arith::ConstantOp::create(
      builder, l,
      DenseElementsAttr::get(
          type, cast<TypedAttr>(builder.getZeroAttr(type.getElementType()))));
  SemValue out = SemValue::ofKind(SemValue::Kind::Tuple);
  for (bool takeFirst : {true, false}) {
    SemValue part = in[0];
    part.indexTile.reset();
    part.value =
        takeFirst
            ? arith::SelectOp::create(builder, l, first, in[0].value, zero)
            : arith::SelectOp::create(builder, l, first, zero, in[0].value);
    Result r = reduceTile("sum", part, {type.getRank() - 1}, false, e);
    if (failed(r))
      return failure();
    out.elements.push_back(*r);
  }
  return out;
}

} // namespace dslc::mlirgen
