//===- GenShape.cpp - Tensor accesses, None, broadcasting -----------------===//
//
// How a subscript of a tensor becomes a tile access (tiles, shifted tiles,
// `tile.index + k`, `:` over a static extent, constant slices, None), the
// valid counts a loaded tile carries for reductions, subscripts of tile
// values (`v[:, None]`), and torch's broadcasting between tiles.
//
//===----------------------------------------------------------------------===//

#include "compiler/MLIRGen/Generator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace dslc::mlirgen {

std::pair<unsigned, Type> refShape(const SemValue &ref) {
  if (auto t = dyn_cast<tile::RefType>(ref.value.getType()))
    return {t.getRank(), t.getElementType()};
  auto s = cast<comm::StackType>(ref.value.getType());
  return {s.getRank(), s.getElementType()};
}

std::optional<int64_t> Generator::staticSize(const SemValue &ref, unsigned d) {
  // A view's size: a constant, or computed from sizes --shape gives (then
  // compiled in).
  if (!ref.viewSizes.empty()) {
    const SemValue &size = ref.viewSizes[d];
    if (size.kind == SemValue::Kind::Int)
      return size.intValue;
    if (size.kind == SemValue::Kind::Scalar && size.known) {
      for (const SemValue::ShapeKnown::Size &s : size.known->sizes)
        compileSizeIn(s.param, s.dim, s.value);
      return size.known->value;
    }
    return std::nullopt;
  }
  std::vector<std::string> names{ref.text};
  for (const OutputDescription &o : desc.args)
    if (o.isOutput && o.name == ref.text && !o.like.empty())
      names.push_back(o.like);
  for (const Constraint &c : desc.constraints)
    if (c.dim == d && c.op == "==" &&
        std::holds_alternative<int64_t>(c.value) &&
        llvm::is_contained(names, c.param))
      return std::get<int64_t>(c.value);
  // -D 'P.size(d)=N' given but the size not read yet.
  for (const std::string &name : names) {
    std::string key = sizeKey(name, d);
    auto def = options.defines.find(key);
    int64_t n;
    if (def == options.defines.end() ||
        llvm::StringRef(def->second).trim().getAsInteger(0, n) || n < 0)
      continue;
    usedDefines.insert(key);
    compileSizeIn(name, d, n);
    desc.constants[key] = std::to_string(n);
    return n;
  }
  // Else the tensor's --shape.
  for (const std::string &name : names)
    if (std::optional<int64_t> n = shapeSize(name, d)) {
      compileSizeIn(name, d, *n);
      return n;
    }
  return std::nullopt;
}

FailureOr<Generator::Access> Generator::accessOf(const SemValue &ref,
                                                 const ast::Expr &index) {
  std::vector<const ast::Expr *> idx;
  if (auto *tuple = ast::dyn_cast<ast::TupleExpr>(&index))
    for (const ast::ExprPtr &x : tuple->getElements())
      idx.push_back(x.get());
  else
    idx.push_back(&index);
  return accessOfList(ref, idx, index);
}

LogicalResult Generator::accessSlice(const SemValue &ref, unsigned d,
                                     const ast::SliceExpr &slice, Access &a) {
  mlir::Location l = loc(slice);
  if (slice.getStep())
    return error(slice.getRange(), "a slice with a step is not supported in "
                                   "a tile index");
  if (std::optional<LogicalResult> r = accessRuntimeSlice(ref, d, slice, a))
    return *r;
  auto bound = [&](const ast::Expr &x) {
    return constIntOf(x, "a slice bound");
  };
  int64_t lower = 0;
  std::optional<int64_t> upper;
  if (const ast::Expr *x = slice.getLower()) {
    auto c = bound(*x);
    if (failed(c))
      return failure();
    lower = *c;
  }
  if (const ast::Expr *x = slice.getUpper()) {
    auto c = bound(*x);
    if (failed(c))
      return failure();
    upper = *c;
  } else {
    upper = staticSize(ref, d);
    if (!upper && sizeFailed(ref, d))
      return failure(); // reported where the size was first needed
    if (!upper) {
      markSizeFailed(ref.text, d);
      return error(slice.getRange(),
                   "':' needs the size of dimension " + std::to_string(d) +
                       " of '" + ref.text + "' at compile time: pass -D '" +
                       sizeKey(ref.text, d) + "=N'" + shapeAdvice(ref.text) +
                       " (or hl.specialize it, or assert it equals a "
                       "compile-time size), or index that dimension with a "
                       "tile");
    }
  }
  if (lower < 0 || *upper <= lower)
    return error(slice.getRange(), "the slice [" + std::to_string(lower) + ":" +
                                       std::to_string(*upper) +
                                       "] is empty or negative");
  if (!slice.getLower() && !slice.getUpper() && inGrid)
    fullRowExtents.insert(*upper); // a reduction dimension, in Helion's words
  a.offsets.push_back(indexConst(l, lower));
  a.limits.push_back(indexConst(l, *upper));
  a.dims.push_back(d);
  a.shape.push_back(*upper - lower);
  a.valid.push_back(ValidCount());
  return success();
}

std::optional<LogicalResult>
Generator::accessRuntimeSlice(const SemValue &ref, unsigned d,
                              const ast::SliceExpr &slice, Access &a) {
  // `x[s : s + k]` with a run-time s and a compile-time k: a tile of k at
  // s (masked past the tensor's end), as Helion's int4_gemm writes
  // `A[tile_m, b : b + 2 * block]`.
  const ast::Expr *lo = slice.getLower(), *hi = slice.getUpper();
  if (!lo || !hi || slice.getStep())
    return std::nullopt;
  Result start = genExpr(*lo);
  if (failed(start))
    return LogicalResult(failure());
  // A start computed from tensor sizes is accessSlice's: compiled in from
  // --shape, or its error names the size to give.
  if (start->kind != SemValue::Kind::Scalar || start->known ||
      !start->sizesRead.empty() || !start->value.getType().isIntOrIndex())
    return std::nullopt;
  Result stop = genExpr(*hi);
  if (failed(stop))
    return LogicalResult(failure());
  // stop = start + k: an addi of start's value and a constant.
  Value low = start->value;
  Value high = stop->kind == SemValue::Kind::Scalar ? stop->value : Value();
  auto add = high ? high.getDefiningOp<arith::AddIOp>() : nullptr;
  APInt k;
  if (!add || add.getLhs() != low ||
      !matchPattern(add.getRhs(), m_ConstantInt(&k))) {
    if (stop->kind == SemValue::Kind::Scalar &&
        (stop->known || !stop->sizesRead.empty()))
      return std::nullopt; // accessSlice says what it needs
    return LogicalResult(error(
        slice.getRange(),
        "a slice with a run-time start needs a compile-time length: write "
        "x[s : s + k] with k a compile-time integer (a tile's extent)"));
  }
  int64_t n = k.getSExtValue();
  if (n <= 0)
    return LogicalResult(error(slice.getRange(), "the slice is empty"));
  mlir::Location l = loc(slice);
  Value begin = castValue(low, builder.getIndexType(), l);
  Value end = castValue(high, builder.getIndexType(), l);
  a.offsets.push_back(begin);
  a.limits.push_back(end);
  a.dims.push_back(d);
  a.shape.push_back(n);
  ValidCount valid;
  valid.bounds.push_back(
      {begin, end,
       isa<tile::RefType>(ref.value.getType()) ? ref.value : Value(), d});
  a.valid.push_back(valid);
  return LogicalResult(success());
}

void Generator::recordSameSize(const SemValue &ref, unsigned d,
                               const SemValue &t, const ast::Expr &where) {
  if (!t.extentOrigin || !t.extentOrigin->plain() || !ref.windowStarts.empty())
    return;
  // Only a parameter itself: a view's dimensions are not its tensor's.
  auto arg = dyn_cast<BlockArgument>(ref.value);
  if (!arg || arg.getOwner() != &func.getBody().front())
    return;
  const ScalarOrigin &o = *t.extentOrigin;
  if (o.param == ref.text && o.dim == d)
    return;
  addSameSize(contract::SameSize{ref.text, d, o.param, o.dim, ""},
              where.getRange());
}

void Generator::addSameSize(contract::SameSize s, SourceRange where) {
  s.where = module.getFileName() + ":" + std::to_string(where.begin.line) +
            ":" + std::to_string(where.begin.column);
  // One rule per pair: what the kernel asserts replaces what a tile
  // implies; a tile adds nothing to a pair already related.
  for (contract::SameSize &known : desc.sameSizes) {
    if (!known.samePair(s))
      continue;
    if (s.asserted && !known.asserted)
      known = std::move(s);
    return;
  }
  desc.sameSizes.push_back(std::move(s));
}

LogicalResult Generator::accessTile(const SemValue &ref, unsigned d,
                                    const SemValue &t, const ast::Expr &where,
                                    Access &a) {
  a.offsets.push_back(t.begin);
  a.limits.push_back(t.end);
  a.dims.push_back(d);
  a.shape.push_back(t.block);
  // The elements that hold data: [begin, min(end, size)).
  ValidCount valid;
  valid.bounds.push_back(
      {t.begin, t.end,
       isa<tile::RefType>(ref.value.getType()) ? ref.value : Value(), d});
  a.valid.push_back(valid);
  return success();
}

FailureOr<const ast::SliceExpr *> Generator::sliceCall(const ast::Expr &x) {
  auto *call = ast::dyn_cast<ast::CallExpr>(&x);
  if (!call || ast::getDottedName(call->getCallee()) != "slice" ||
      lookup("slice"))
    return static_cast<const ast::SliceExpr *>(nullptr);
  for (const ast::Argument &a : call->getArgs())
    if (a.kind != ast::Argument::Kind::Positional ||
        !ast::isa<ast::NoneLiteralExpr>(*a.value))
      return error(x.getRange(), "slice(...) in an index takes None only "
                                 "(the whole dimension): write a:b for "
                                 "other bounds");
  synthesizedSlices.push_back(std::make_unique<ast::SliceExpr>(
      x.getRange(), nullptr, nullptr, nullptr));
  return synthesizedSlices.back().get();
}

FailureOr<Generator::Access>
Generator::accessOfList(const SemValue &ref,
                        const std::vector<const ast::Expr *> &idx,
                        const ast::Expr &index, bool forceGather) {
  unsigned rank = refShape(ref).first;
  // The indices, evaluated: a name bound to a tuple of tiles (`for tile in
  // hl.tile([m, n])`) indexes one dimension per tile.
  std::vector<IndexEntry> entries;
  bool gather = forceGather;
  for (const ast::Expr *x : idx) {
    if (auto *name = ast::dyn_cast<ast::NameExpr>(x))
      if (SemValue *v = lookup(name->getName()))
        if (v->kind == SemValue::Kind::Tuple && !v->elements.empty() &&
            llvm::all_of(v->elements, [](const SemValue &t) {
              return t.kind == SemValue::Kind::Tile;
            })) {
          for (const SemValue &t : v->elements)
            entries.push_back({x, nullptr, false, t});
          continue;
        }
    const ast::SliceExpr *slice = ast::dyn_cast<ast::SliceExpr>(x);
    if (!slice) {
      FailureOr<const ast::SliceExpr *> s = sliceCall(*x);
      if (failed(s))
        return failure();
      slice = *s;
    }
    IndexEntry e{x, slice, ast::isa<ast::NoneLiteralExpr>(*x), std::nullopt};
    if (!e.slice && !e.none) {
      Result v = genExpr(*x);
      if (failed(v))
        return failure();
      e.value = *v;
      gather |= isGatherIndex(*v);
    }
    entries.push_back(std::move(e));
  }
  unsigned indexed =
      llvm::count_if(entries, [](const IndexEntry &x) { return !x.none; });
  if (indexed != rank)
    return error(index.getRange(), "a " + std::to_string(rank) +
                                       "-d tensor needs " +
                                       std::to_string(rank) + " indices, got " +
                                       std::to_string(indexed));
  Access a;
  if (gather) { // computed indices: tile.gather / tile.scatter (GenGather.cpp)
    a.gather = true;
    a.entries = std::move(entries);
    return a;
  }
  mlir::Location l = loc(index);
  unsigned d = 0;
  for (const IndexEntry &e : entries) {
    const ast::Expr *x = e.expr;
    if (e.none) {
      a.unitDims.push_back(a.shape.size() + a.unitDims.size());
      continue;
    }
    if (e.slice) {
      if (failed(accessSlice(ref, d++, *e.slice, a)))
        return failure();
      continue;
    }
    SemValue v = *e.value;
    // `tile.index + k` indexes like the tile shifted by k.
    if (v.kind == SemValue::Kind::TileData && v.indexTile)
      v = *v.indexTile;
    else if (v.kind == SemValue::Kind::Tile)
      recordSameSize(ref, d, v, *x); // the tile itself, not shifted
    else if (v.kind == SemValue::Kind::TileData)
      return error(x->getRange(),
                   "a tensor is indexed with integer tiles (a gather); this "
                   "tile holds " +
                       typeToDType(getElementTypeOrSelf(v.value.getType())) +
                       " values");
    if (v.kind == SemValue::Kind::Tile) {
      if (failed(accessTile(ref, d++, v, *x, a)))
        return failure();
      continue;
    }
    auto i = toIndex(v, *x);
    if (failed(i))
      return failure();
    a.offsets.push_back(*i);
    a.limits.push_back(arith::AddIOp::create(builder, l, *i, indexConst(l, 1)));
    ++d;
  }
  if (a.dims.empty()) {
    // One element (x[i, j] with scalar indices): a one-element tile of
    // the last dimension, read as a scalar (genLoad) or stored from one.
    a.dims.push_back(rank - 1);
    a.shape.push_back(1);
    a.valid.push_back(ValidCount());
    a.element = true;
  }
  if (failed(checkTileSize(a.shape, index.getRange())))
    return failure();
  if (!ref.windowStarts.empty())
    shiftToWindow(ref, a, l);
  return a;
}

std::optional<Result> Generator::genWindow(const SemValue &ref,
                                           const ast::SubscriptExpr &e) {
  const ast::Expr &index = e.getIndex();
  std::vector<const ast::Expr *> idx = elementsOf(index);
  if (!ast::isa<ast::TupleExpr>(index))
    idx = {&index};
  unsigned rank = refShape(ref).first;
  if (idx.size() != rank)
    return std::nullopt;
  for (const ast::Expr *x : idx) {
    auto *s = ast::dyn_cast<ast::SliceExpr>(x);
    if (!s || s->getStep())
      return std::nullopt;
  }
  auto sizes = refSizes(ref, e);
  if (failed(sizes))
    return Result(failure());
  SemValue w = ref;
  w.viewSizes.clear();
  w.windowStarts.clear();
  w.where = &e;
  for (unsigned d = 0; d < rank; ++d) {
    auto *s = ast::cast<ast::SliceExpr>(idx[d]);
    const SemValue &size = (*sizes)[d];
    // A bound: a constant (negative: from the end) or a run-time index.
    auto bound = [&](const ast::Expr *x, SemValue dflt) -> Result {
      if (!x)
        return dflt;
      Result v = genExpr(*x);
      if (failed(v))
        return failure();
      if (v->kind == SemValue::Kind::Int && v->intValue < 0)
        return binaryOp(ast::BinaryOp::Add, size, *v, *x);
      if (v->kind != SemValue::Kind::Int && v->kind != SemValue::Kind::Scalar)
        return fail(x->getRange(), "a slice bound of a tensor before the "
                                   "loop is an integer");
      return *v;
    };
    Result lower = bound(s->getLower(), SemValue::integer(0));
    if (failed(lower))
      return Result(failure());
    Result upper = bound(s->getUpper(), size);
    if (failed(upper))
      return Result(failure());
    Result n = binaryOp(ast::BinaryOp::Sub, *upper, *lower, *s);
    if (failed(n))
      return Result(failure());
    SemValue start =
        ref.windowStarts.empty() ? SemValue::integer(0) : ref.windowStarts[d];
    Result at = binaryOp(ast::BinaryOp::Add, start, *lower, *s);
    if (failed(at))
      return Result(failure());
    w.viewSizes.push_back(*n);
    w.windowStarts.push_back(*at);
  }
  return Result(w);
}

void Generator::shiftToWindow(const SemValue &ref, Access &a,
                              mlir::Location l) {
  std::vector<Value> starts, sizes;
  for (size_t d = 0; d < ref.windowStarts.size(); ++d) {
    const SemValue &s = ref.windowStarts[d], &n = ref.viewSizes[d];
    starts.push_back(s.kind == SemValue::Kind::Int
                         ? indexConst(l, s.intValue)
                         : castValue(s.value, builder.getIndexType(), l));
    sizes.push_back(n.kind == SemValue::Kind::Int
                        ? indexConst(l, n.intValue)
                        : castValue(n.value, builder.getIndexType(), l));
  }
  for (size_t d = 0; d < a.offsets.size() && d < starts.size(); ++d) {
    a.offsets[d] = arith::AddIOp::create(builder, l, a.offsets[d], starts[d]);
    Value end = arith::AddIOp::create(builder, l, starts[d], sizes[d]);
    a.limits[d] = arith::MinSIOp::create(
        builder, l, arith::AddIOp::create(builder, l, a.limits[d], starts[d]),
        end);
  }
  // Valid counts in the window's indices: bounded by its sizes, not by the
  // tensor's.
  for (size_t j = 0; j < a.valid.size() && j < a.dims.size(); ++j)
    for (ValidCount::Bound &b : a.valid[j].bounds)
      if (b.ref) {
        b.end = arith::MinSIOp::create(builder, l, b.end, sizes[a.dims[j]]);
        b.ref = Value();
      }
}

Result Generator::genLoad(const SemValue &ref, const ast::Expr &index,
                          const ast::Expr &where) {
  auto access = accessOf(ref, index);
  if (failed(access))
    return failure();
  if (access->gather)
    return genGatherLoad(ref, access->entries, nullptr, where);
  Result t = genAccessLoad(ref, *access, where);
  if (failed(t) || !access->element)
    return t;
  return loadedElement(ref, t->value, where);
}

SemValue Generator::loadedElement(const SemValue &ref, Value tile,
                                  const ast::Expr &where) {
  SemValue s = SemValue::ofKind(SemValue::Kind::Scalar);
  s.value =
      tile::ReduceOp::create(builder, loc(where), refShape(ref).second, tile,
                             uint64_t(0), tile::ReduceKind::sum, Value());
  return s;
}

Result Generator::genAccessLoad(const SemValue &ref, const Access &access,
                                const ast::Expr &where,
                                tile::EvictionAttr evict) {
  Type element = refShape(ref).second;
  auto tileType = RankedTensorType::get(access.shape, element);
  SemValue t = SemValue::ofKind(SemValue::Kind::TileData);
  t.value = tile::LoadOp::create(builder, loc(where), tileType, ref.value,
                                 access.offsets, access.limits, access.dims,
                                 TypedAttr(), evict);
  t.valid = access.valid;
  if (access.unitDims.empty())
    return t;
  // `x[None, :]`: unit dimensions inserted into the loaded tile.
  SmallVector<int64_t> shape(access.shape.begin(), access.shape.end());
  for (unsigned p : access.unitDims) {
    shape.insert(shape.begin() + p, 1);
    t.valid.insert(t.valid.begin() + p, ValidCount());
  }
  t.value = tile::ReshapeOp::create(
      builder, loc(where), RankedTensorType::get(shape, element), t.value);
  return t;
}

Result Generator::loadWhole(const SemValue &ref, const ast::Expr &where) {
  auto type = cast<tile::RefType>(ref.value.getType());
  Access a;
  mlir::Location l = loc(where);
  for (unsigned d = 0; d < type.getRank(); ++d) {
    std::optional<int64_t> n = staticSize(ref, d);
    if (!n && sizeFailed(ref, d))
      return failure(); // reported where the size was first needed
    if (!n) {
      markSizeFailed(ref.text, d);
      return fail(where.getRange(),
                  "'" + ref.text +
                      "' is used as a tile, which needs its "
                      "sizes at compile time: pass -D '" +
                      sizeKey(ref.text, d) + "=N'" + shapeAdvice(ref.text) +
                      " (or hl.specialize it, or assert it equals a "
                      "compile-time size), or load a tile of it (" +
                      ref.text + "[tile])");
    }
    a.offsets.push_back(indexConst(l, 0));
    a.limits.push_back(indexConst(l, *n));
    a.dims.push_back(d);
    a.shape.push_back(*n);
  }
  if (failed(checkTileSize(a.shape, where.getRange())))
    return failure();
  SemValue t = SemValue::ofKind(SemValue::Kind::TileData);
  t.value = tile::LoadOp::create(
      builder, l, RankedTensorType::get(a.shape, type.getElementType()),
      ref.value, a.offsets, a.limits, a.dims, TypedAttr(),
      tile::EvictionAttr());
  t.valid.assign(a.shape.size(), ValidCount());
  return t;
}

Result Generator::asTile(const SemValue &v, const ast::Expr &where) {
  if (v.kind == SemValue::Kind::TileData)
    return v;
  if (v.kind == SemValue::Kind::Ref)
    return loadWhole(v, where);
  return fail(where.getRange(),
              std::string("expected a tile value, got ") + kindName(v.kind));
}

/// `:` written as a slice, or as Python's `slice(None)` (hl.subscript's
/// lists cannot hold `:`).
static bool isWholeSlice(const ast::Expr &x) {
  if (auto *slice = ast::dyn_cast<ast::SliceExpr>(&x))
    return !slice->getLower() && !slice->getUpper() && !slice->getStep();
  auto *call = ast::dyn_cast<ast::CallExpr>(&x);
  if (!call || ast::getDottedName(call->getCallee()) != "slice" ||
      call->getArgs().size() != 1 ||
      call->getArgs()[0].kind != ast::Argument::Kind::Positional)
    return false;
  return ast::isa<ast::NoneLiteralExpr>(*call->getArgs()[0].value);
}

Result Generator::genTileSubscript(const SemValue &base,
                                   const ast::SubscriptExpr &e) {
  return genTileSubscript(base, elementsOf(e.getIndex()), e.getIndex(), e);
}

Result Generator::genTileSubscript(const SemValue &base,
                                   const std::vector<const ast::Expr *> &idx,
                                   const ast::Expr &index, const ast::Expr &e) {
  auto type = cast<RankedTensorType>(base.value.getType());
  SmallVector<int64_t> shape;
  SmallVector<ValidCount, 4> valid;
  unsigned d = 0;
  for (const ast::Expr *x : idx) {
    if (ast::isa<ast::NoneLiteralExpr>(*x)) {
      shape.push_back(1);
      valid.push_back(ValidCount());
      continue;
    }
    if (!isWholeSlice(*x))
      return fail(x->getRange(),
                  "a tile value is indexed only with ':' and None (to insert "
                  "a unit dimension, e.g. v[:, None])");
    if (d >= unsigned(type.getRank()))
      return fail(index.getRange(),
                  "the tile has " + std::to_string(type.getRank()) +
                      " dimension(s): write one ':' for each");
    shape.push_back(type.getDimSize(d));
    valid.push_back(d < base.valid.size() ? base.valid[d] : ValidCount());
    ++d;
  }
  if (d != unsigned(type.getRank()))
    return fail(index.getRange(), "the tile has " +
                                      std::to_string(type.getRank()) +
                                      " dimension(s): write one ':' for each");
  if (failed(checkTileSize(shape, e.getRange())))
    return failure();
  SemValue t = base;
  t.indexTile.reset();
  t.valid = valid;
  if (ArrayRef<int64_t>(shape) != type.getShape())
    t.value = tile::ReshapeOp::create(
        builder, loc(e), RankedTensorType::get(shape, type.getElementType()),
        base.value);
  return t;
}

Result Generator::genHlSubscript(const ast::CallExpr &e) {
  static const llvm::StringRef keys[] = {"tensor", "index"};
  if (failed(checkKeywords(e, "hl.subscript", keys)))
    return failure();
  const ast::Expr *tensorArg = argument(e, 0, "tensor");
  const ast::Expr *indexArg = argument(e, 1, "index");
  if (!tensorArg || !indexArg)
    return fail(e.getRange(), "hl.subscript takes a tile value and a list of "
                              "indices (None and slice(None))");
  Result base = genExpr(*tensorArg);
  if (failed(base))
    return failure();
  if (base->kind != SemValue::Kind::TileData)
    return fail(tensorArg->getRange(),
                std::string("hl.subscript indexes a tile value (a tensor "
                            "in the kernel), not ") +
                    kindName(base->kind) + "; to load, write x[tile]");
  if (!ast::isa<ast::ListExpr>(*indexArg) &&
      !ast::isa<ast::TupleExpr>(*indexArg))
    return fail(indexArg->getRange(),
                "hl.subscript's index is a list of None and slice(None)");
  return genTileSubscript(*base, elementsOf(*indexArg), *indexArg, e);
}

FailureOr<SmallVector<int64_t>>
Generator::broadcastShape(ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                          const ast::Expr &where) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> shape(rank);
  for (size_t k = 0; k < rank; ++k) {
    int64_t x = k < rank - a.size() ? 1 : a[k - (rank - a.size())];
    int64_t y = k < rank - b.size() ? 1 : b[k - (rank - b.size())];
    if (x != y && x != 1 && y != 1) {
      auto text = [](ArrayRef<int64_t> s) {
        std::string t = "[";
        for (size_t i = 0; i < s.size(); ++i)
          t += (i ? ", " : "") + std::to_string(s[i]);
        return t + "]";
      };
      return error(where.getRange(),
                   "tiles of shapes " + text(a) + " and " + text(b) +
                       " do not broadcast (dimension " + std::to_string(k) +
                       ": " + std::to_string(x) + " vs " + std::to_string(y) +
                       "); insert unit dimensions with None, e.g. v[:, None]");
    }
    shape[k] = std::max(x, y);
  }
  return shape;
}

void Generator::broadcastTo(SemValue &v, ArrayRef<int64_t> shape,
                            mlir::Location l) {
  auto type = cast<RankedTensorType>(v.value.getType());
  if (type.getShape() == shape)
    return;
  // Leading unit dimensions first (torch right-aligns shapes).
  size_t lead = shape.size() - type.getRank();
  if (lead) {
    SmallVector<int64_t> padded(lead, 1);
    padded.append(type.getShape().begin(), type.getShape().end());
    type = RankedTensorType::get(padded, type.getElementType());
    v.value = tile::ReshapeOp::create(builder, l, type, v.value);
    v.valid.insert(v.valid.begin(), lead, ValidCount());
  }
  v.valid.resize(shape.size());
  for (size_t k = 0; k < shape.size(); ++k)
    if (type.getDimSize(k) != shape[k])
      v.valid[k] = ValidCount(); // a repeated unit dimension is all valid
  if (type.getShape() != shape)
    v.value = tile::BroadcastOp::create(
        builder, l, RankedTensorType::get(shape, type.getElementType()),
        v.value);
  v.indexTile.reset();
}

SmallVector<ValidCount, 4> GeneratorState::mergeValid(ArrayRef<ValidCount> a,
                                                      ArrayRef<ValidCount> b) {
  SmallVector<ValidCount, 4> out(std::max(a.size(), b.size()));
  for (size_t k = 0; k < out.size(); ++k)
    for (ArrayRef<ValidCount> side : {a, b})
      if (k < side.size())
        for (const ValidCount::Bound &bound : side[k].bounds)
          if (!llvm::is_contained(out[k].bounds, bound))
            out[k].bounds.push_back(bound);
  return out;
}

Value Generator::materialize(const ValidCount &v, mlir::Location l) {
  Value count;
  for (const ValidCount::Bound &b : v.bounds) {
    Value last = b.end;
    if (b.ref)
      last = arith::MinSIOp::create(
          builder, l, b.end,
          tile::DimOp::create(builder, l, builder.getIndexType(), b.ref,
                              uint64_t(b.dim)));
    Value n = arith::MaxSIOp::create(
        builder, l, arith::SubIOp::create(builder, l, last, b.begin),
        indexConst(l, 0));
    count = count ? Value(arith::MinSIOp::create(builder, l, count, n)) : n;
  }
  return count;
}

} // namespace dslc::mlirgen
