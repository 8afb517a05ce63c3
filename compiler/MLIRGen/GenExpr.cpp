//===- GenExpr.cpp - Names, attributes, calls and subscripts --------------===//

#include "compiler/MLIRGen/Generator.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;

namespace dslc::mlirgen {

Result Generator::genExpr(const ast::Expr &e) {
  using K = ast::Expr::Kind;
  switch (e.getKind()) {
  case K::Name:
    return genName(ast::cast<ast::NameExpr>(e));
  case K::IntLiteral: {
    auto &lit = ast::cast<ast::IntLiteralExpr>(e);
    if (!lit.fitsInt64())
      return fail(e.getRange(), "integer literal does not fit in 64 bits");
    return SemValue::integer(lit.getValue());
  }
  case K::FloatLiteral: {
    SemValue v = SemValue::ofKind(SemValue::Kind::Float);
    v.floatValue = ast::cast<ast::FloatLiteralExpr>(e).getValue();
    return v;
  }
  case K::BoolLiteral:
    return SemValue::integer(ast::cast<ast::BoolLiteralExpr>(e).getValue());
  case K::StringLiteral: {
    SemValue v = SemValue::ofKind(SemValue::Kind::String);
    v.text = ast::cast<ast::StringLiteralExpr>(e).getValue();
    return v;
  }
  case K::NoneLiteral:
    return SemValue::none();
  case K::Attribute:
    return genAttribute(ast::cast<ast::AttributeExpr>(e));
  case K::Call:
    return genCall(ast::cast<ast::CallExpr>(e));
  case K::Subscript:
    return genSubscript(ast::cast<ast::SubscriptExpr>(e));
  case K::Binary:
    return genBinary(ast::cast<ast::BinaryExpr>(e));
  case K::Unary:
    return genUnary(ast::cast<ast::UnaryExpr>(e));
  case K::Compare:
    return genCompare(ast::cast<ast::CompareExpr>(e));
  case K::Tuple:
    return genSequence(ast::cast<ast::TupleExpr>(e).getElements());
  case K::List:
    return genSequence(ast::cast<ast::ListExpr>(e).getElements());
  case K::Lambda: {
    SemValue f = SemValue::ofKind(SemValue::Kind::Callable);
    f.lambda = &ast::cast<ast::LambdaExpr>(e);
    return f;
  }
  case K::IfElse: {
    auto &ie = ast::cast<ast::IfElseExpr>(e);
    Result c = genExpr(ie.getCond());
    if (failed(c))
      return failure();
    if (c->kind == SemValue::Kind::Scalar)
      return genRuntimeIfExpr(ie, *c);
    if (c->kind != SemValue::Kind::Int)
      return fail(ie.getCond().getRange(),
                  "a conditional expression needs a compile-time condition "
                  "or a run-time scalar, got " +
                      std::string(kindName(c->kind)) +
                      "; per element, use torch.where(mask, a, b)");
    return genExpr(c->intValue ? ie.getThen() : ie.getElse());
  }
  default:
    return fail(e.getRange(), "this expression is not supported in a kernel");
  }
}

Result Generator::genSequence(const ast::ExprList &elements) {
  SemValue t = SemValue::ofKind(SemValue::Kind::Tuple);
  for (const ast::ExprPtr &el : elements) {
    // `[n, *w.shape]`: the starred sequence's items in place.
    if (auto *star = ast::dyn_cast<ast::StarredExpr>(el.get())) {
      Result v = genExpr(star->getValue());
      if (failed(v))
        return failure();
      auto items = sequenceItems(*v, star->getValue());
      if (failed(items))
        return failure();
      t.elements.insert(t.elements.end(), items->begin(), items->end());
      continue;
    }
    Result v = genExpr(*el);
    if (failed(v))
      return failure();
    v->where = el.get();
    t.elements.push_back(*v);
  }
  return t;
}

/// Names that are modules unless a kernel binds them.
bool Generator::isModulePath(const std::string &dotted) {
  std::string first = dotted.substr(0, dotted.find('.'));
  if (lookup(first))
    return false;
  if (llvm::is_contained(kModules, first))
    return true;
  for (const ast::StmtPtr &s : module.getBody())
    if (auto *imp = ast::dyn_cast<ast::ImportStmt>(s.get()))
      for (const ast::ImportAlias &a : imp->getNames())
        if ((a.asName.empty() ? a.name : a.asName) == first)
          return true;
  return false;
}

Result Generator::genName(const ast::NameExpr &e) {
  if (SemValue *v = lookup(e.getName())) {
    if (v->kind == SemValue::Kind::Poison)
      return failure(); // its definition's error is reported
    if (v->kind == SemValue::Kind::Unmerged) {
      std::string message = v->text;
      bind(e.getName(), SemValue::ofKind(SemValue::Kind::Poison));
      return fail(e.getRange(), message);
    }
    if (v->kind == SemValue::Kind::Host && inGrid) {
      SemValue host = *v;
      bind(e.getName(), SemValue::ofKind(SemValue::Kind::Poison));
      return hostValueUsed(host, e);
    }
    return *v;
  }
  for (const char *m : kModules)
    if (e.getName() == m) {
      SemValue v = SemValue::ofKind(SemValue::Kind::Module);
      v.text = m;
      return v;
    }
  // Module-level imports of other names: `from torch import Tensor`, ...
  for (const ast::StmtPtr &s : module.getBody())
    if (auto *imp = ast::dyn_cast<ast::ImportStmt>(s.get()))
      for (const ast::ImportAlias &a : imp->getNames())
        if ((a.asName.empty() ? a.name : a.asName) == e.getName()) {
          SemValue v = SemValue::ofKind(SemValue::Kind::Module);
          v.text = a.name == "helion.language" ? "hl" : a.name;
          return v;
        }
  if (std::optional<Result> c = moduleConstant(e.getName()))
    return *c;
  // A def of the file as a value (a scan's combine function, an epilogue
  // passed on): a function to inline where it is called.
  if (const ast::FunctionDef *fn = helperNamed(e.getName())) {
    SemValue v = SemValue::ofKind(SemValue::Kind::Callable);
    v.function = fn;
    v.text = e.getName();
    return v;
  }
  return fail(e.getRange(), "unknown name '" + e.getName() + "'");
}

Result Generator::genAttribute(const ast::AttributeExpr &e) {
  Result base = genExpr(e.getBase());
  if (failed(base))
    return failure();
  const std::string &name = e.getName();
  switch (base->kind) {
  case SemValue::Kind::Module: {
    std::string path = base->text + "." + name;
    if (base->text == "math") { // Python's constants
      SemValue f = SemValue::ofKind(SemValue::Kind::Float);
      f.floatValue = name == "pi"    ? M_PI
                     : name == "e"   ? M_E
                     : name == "tau" ? 2 * M_PI
                     : name == "inf" ? std::numeric_limits<double>::infinity()
                     : name == "nan" ? std::numeric_limits<double>::quiet_NaN()
                                     : 0;
      if (name == "pi" || name == "e" || name == "tau" || name == "inf" ||
          name == "nan")
        return f;
    }
    if (base->text == "torch" || base->text == "tl")
      if (auto dt = canonicalDType(name)) {
        SemValue v = SemValue::ofKind(SemValue::Kind::DType);
        v.text = *dt;
        return v;
      }
    SemValue v = SemValue::ofKind(SemValue::Kind::Module);
    v.text = path;
    return v;
  }
  case SemValue::Kind::Ref:
  case SemValue::Kind::PermutedRef:
  case SemValue::Kind::Stack:
    return genRefAttribute(e, *base);
  case SemValue::Kind::Tile:
    return genTileAttribute(e, *base);
  case SemValue::Kind::TileData:
    if (name == "shape") { // the static shape, as a tuple of integers
      SemValue t = SemValue::ofKind(SemValue::Kind::Tuple);
      for (int64_t d : cast<RankedTensorType>(base->value.getType()).getShape())
        t.elements.push_back(SemValue::integer(d));
      return t;
    }
    if (name == "T" || name == "mT")
      return transposeTile(
          *base,
          transposePermutation(
              name, cast<RankedTensorType>(base->value.getType()).getRank()),
          e);
    if (name == "dtype") {
      SemValue v = SemValue::ofKind(SemValue::Kind::DType);
      Type t = cast<RankedTensorType>(base->value.getType()).getElementType();
      v.text = typeToDType(t);
      return v;
    }
    break;
  case SemValue::Kind::Tuple:
    // torch.max/min(t, dim)'s (values, indices), by name too.
    if (base->text == kValuesIndices && base->elements.size() == 2 &&
        (name == "values" || name == "indices"))
      return base->elements[name == "values" ? 0 : 1];
    break;
  default:
    break;
  }
  return fail(e.getNameRange(), std::string(kindName(base->kind)) +
                                    " has no attribute '" + name + "'");
}

SmallVector<int64_t> Generator::transposePermutation(llvm::StringRef name,
                                                     int64_t rank) {
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  if (name == "T")
    std::reverse(perm.begin(), perm.end());
  else if (rank >= 2)
    std::swap(perm[rank - 1], perm[rank - 2]);
  return perm;
}

Result Generator::genRefAttribute(const ast::AttributeExpr &e,
                                  const SemValue &base) {
  const std::string &name = e.getName();
  if (name == "dtype") {
    SemValue v = SemValue::ofKind(SemValue::Kind::DType);
    Type t = base.kind != SemValue::Kind::Stack
                 ? cast<tile::RefType>(base.value.getType()).getElementType()
                 : cast<comm::StackType>(base.value.getType()).getElementType();
    auto it = refDTypes.find(base.text);
    v.text = it != refDTypes.end() ? it->second : typeToDType(t);
    return v;
  }
  if (name == "device")
    return SemValue::none();
  if ((name == "T" || name == "mT") && base.kind != SemValue::Kind::Stack) {
    // The tensor with its dimensions reversed (the last two swapped), read
    // through its stored layout (GenDimOrder.cpp).
    unsigned rank = cast<tile::RefType>(base.value.getType()).getRank();
    if (rank < 2 && name == "T")
      return base; // torch: a 0-d or 1-d tensor's .T is itself
    if (rank < 2)
      return fail(e.getNameRange(), ".mT of a " + std::to_string(rank) +
                                        "-d tensor: it needs 2 or more "
                                        "dimensions");
    return permuteRef(base, transposePermutation(name, rank), e);
  }
  if (name == "size" || name == "shape" || name == "ndim") {
    SemValue v = base;
    v.text = base.text;
    if (name == "ndim")
      return SemValue::integer(
          base.kind != SemValue::Kind::Stack
              ? cast<tile::RefType>(base.value.getType()).getRank()
              : cast<comm::StackType>(base.value.getType()).getRank());
    if (name == "shape") {
      // x.shape: the tuple of sizes.
      SemValue tuple = SemValue::ofKind(SemValue::Kind::Tuple);
      if (base.kind == SemValue::Kind::Stack)
        return fail(e.getRange(), "shape of a stack tensor");
      auto sizes = refSizes(base, e);
      if (failed(sizes))
        return failure();
      tuple.elements = *sizes;
      return tuple;
    }
    return v; // method, resolved by genCall
  }
  return fail(e.getNameRange(), "tensors have no attribute '" + name + "'");
}

Result Generator::genTileAttribute(const ast::AttributeExpr &e,
                                   const SemValue &base) {
  const std::string &name = e.getName();
  if (name != "id" && name != "begin" && name != "end" &&
      name != "block_size" && name != "index")
    return fail(e.getNameRange(),
                "tiles have .id, .begin, .end, .block_size and .index, not '" +
                    name + "'");
  return genTileFact(base, name, e);
}

Result Generator::genTileFact(const SemValue &base, llvm::StringRef name,
                              const ast::Expr &where) {
  mlir::Location l = loc(where);
  SemValue v = SemValue::ofKind(SemValue::Kind::Scalar);
  if (name == "id") {
    v.value = base.id;
  } else if (name == "begin") {
    v.value = base.begin;
  } else if (name == "end") {
    v.value = base.end;
  } else if (name == "block_size") {
    return SemValue::integer(base.block);
  } else if (name == "index") {
    IntegerType element = indexValueType();
    auto type = RankedTensorType::get({base.block}, element);
    Value iota = tile::IotaOp::create(builder, l, type);
    Value begin = arith::IndexCastOp::create(builder, l, element, base.begin);
    Value splat = tile::SplatOp::create(builder, l, type, begin);
    SemValue t = SemValue::ofKind(SemValue::Kind::TileData);
    t.value = arith::AddIOp::create(builder, l, iota, splat);
    t.indexTile = std::make_shared<SemValue>(base);
    ValidCount valid;
    valid.bounds.push_back({base.begin, base.end, Value(), 0});
    t.valid = {valid};
    return t;
  }
  return v;
}

Result Generator::genSizeCall(const ast::CallExpr &e, const SemValue &ref,
                              const ast::Expr &callee) {
  if (ref.kind == SemValue::Kind::Stack)
    return fail(callee.getRange(), "size() of a stack tensor");
  unsigned rank = cast<tile::RefType>(ref.value.getType()).getRank();
  if (e.getArgs().empty()) {
    auto sizes = refSizes(ref, e);
    if (failed(sizes))
      return failure();
    SemValue tuple = SemValue::ofKind(SemValue::Kind::Tuple);
    tuple.elements = *sizes;
    return tuple;
  }
  if (e.getArgs().size() != 1)
    return fail(e.getRange(), "size() takes at most one argument");
  auto dim = constIntOf(*e.getArgs()[0].value, "a dimension");
  if (failed(dim))
    return failure();
  int64_t dd = *dim < 0 ? *dim + rank : *dim;
  if (dd < 0 || dd >= rank)
    return fail(e.getArgs()[0].value->getRange(),
                "dimension " + std::to_string(*dim) +
                    " is out of range for a " + std::to_string(rank) +
                    "-d tensor");
  return tensorSize(ref, dd, e);
}

Result Generator::tensorSize(const SemValue &ref, unsigned d,
                             const ast::Expr &where) {
  if (ref.kind == SemValue::Kind::PermutedRef)
    return tensorSize(storedRef(ref), storedDim(ref, d), where);
  if (!ref.viewSizes.empty())
    return ref.viewSizes[d]; // a view's sizes are what it was given
  // `-D 'x.size(1)=8192'` compiles the size in (checked at launch).
  std::string key = ref.text + ".size(" + std::to_string(d) + ")";
  auto def = options.defines.find(key);
  if (def != options.defines.end()) {
    usedDefines.insert(key);
    auto v = defineValue(key, def->second, where.getRange());
    if (failed(v))
      return failure();
    if (v->kind != SemValue::Kind::Int || v->intValue < 0)
      return fail(where.getRange(), "-D " + key +
                                        " must be a non-negative "
                                        "integer");
    compileSizeIn(ref.text, d, v->intValue);
    desc.constants[key] = std::to_string(v->intValue);
    return *v;
  }
  SemValue s = SemValue::ofKind(SemValue::Kind::Scalar);
  s.value = tile::DimOp::create(builder, loc(where), builder.getIndexType(),
                                ref.value, uint64_t(d));
  s.origin = ScalarOrigin{ref.text, d};
  s.sizesRead.push_back({ref.text, d});
  if (std::optional<int64_t> n = shapeSize(ref.text, d))
    s.known = SemValue::ShapeKnown{*n, {{ref.text, d, *n}}};
  return s;
}

Result Generator::genSubscript(const ast::SubscriptExpr &e) {
  Result base = genExpr(e.getBase());
  if (failed(base))
    return failure();
  if (base->kind == SemValue::Kind::Tuple ||
      base->kind == SemValue::Kind::PeerList)
    return genTupleItem(e, *base);
  if (base->kind == SemValue::Kind::Ref) {
    // `t[:]` of a 1-d tensor: the whole tensor (e.g. a pointer table).
    if (auto *slice = ast::dyn_cast<ast::SliceExpr>(&e.getIndex()))
      if (!slice->getLower() && !slice->getUpper() && !slice->getStep())
        return *base;
    if (!inGrid) {
      if (std::optional<Result> w = genWindow(*base, e))
        return *w; // x[a:b, :] before the loop: a window on x
      return hostValue(e);
    }
    return genLoad(*base, e.getIndex(), e);
  }
  if (base->kind == SemValue::Kind::PermutedRef)
    return genPermutedLoad(*base, e.getIndex(), e);
  if (base->kind == SemValue::Kind::Host)
    return hostValue(e);
  if (base->kind == SemValue::Kind::TileData)
    return genTileSubscript(*base, e);
  if (base->kind == SemValue::Kind::Stack)
    return fail(e.getRange(),
                "a stack tensor is loaded as the sum over its peers, "
                "`stack[:, index].sum(0)`; to read one peer, loop over "
                "torch.ops.symm_mem.get_remote_tensors(...)");
  return fail(e.getBase().getRange(),
              std::string("cannot index ") + kindName(base->kind));
}

Result Generator::genTupleItem(const ast::SubscriptExpr &e,
                               const SemValue &base) {
  if (base.kind == SemValue::Kind::PeerList) {
    // A peer chosen at run time (`peers[r]` in a loop over the ranks): an
    // index into the peer table, which must hold it (the simulator checks).
    Result v = genExpr(e.getIndex());
    if (failed(v))
      return failure();
    if (v->kind == SemValue::Kind::Scalar && !v->known) {
      auto index = toIndex(*v, e.getIndex());
      if (failed(index))
        return failure();
      return peer(base, *index, e);
    }
  }
  // `t[a:b:c]` of a tuple (`q.size()[:-1]`): the tuple of those items,
  // Python's slice of compile-time bounds.
  if (auto *slice = ast::dyn_cast<ast::SliceExpr>(&e.getIndex());
      slice && base.kind == SemValue::Kind::Tuple) {
    int64_t n = base.elements.size(), bound[3] = {0, n, 1};
    const ast::Expr *parts[3] = {slice->getLower(), slice->getUpper(),
                                 slice->getStep()};
    for (int i = 0; i < 3; ++i) {
      if (!parts[i])
        continue;
      auto v = constIntOf(*parts[i], "a tuple slice's bound");
      if (failed(v))
        return failure();
      bound[i] = *v;
    }
    int64_t step = bound[2];
    if (step == 0)
      return fail(slice->getStep()->getRange(), "slice step cannot be zero");
    auto clamp = [&](const ast::Expr *part, int64_t v, int64_t dflt) {
      if (!part)
        return dflt;
      if (v < 0)
        v += n;
      return step > 0 ? std::clamp<int64_t>(v, 0, n)
                      : std::clamp<int64_t>(v, -1, n - 1);
    };
    int64_t lo = clamp(parts[0], bound[0], step > 0 ? 0 : n - 1);
    int64_t hi = clamp(parts[1], bound[1], step > 0 ? n : -1);
    SemValue t = SemValue::ofKind(SemValue::Kind::Tuple);
    for (int64_t i = lo; step > 0 ? i < hi : i > hi; i += step)
      t.elements.push_back(base.elements[i]);
    return t;
  }
  auto k = constIntOf(e.getIndex(), "a tuple index");
  if (failed(k))
    return failure();
  int64_t n = base.elements.size();
  if (base.kind == SemValue::Kind::PeerList) {
    auto count = peerCount(base, e.getBase());
    if (failed(count))
      return failure();
    n = *count;
  }
  int64_t at = *k < 0 ? *k + n : *k; // Python: t[-1] is the last
  if (at < 0 || at >= n)
    return fail(e.getIndex().getRange(), "index " + std::to_string(*k) +
                                             " is out of range for " +
                                             std::to_string(n) + " elements");
  if (base.kind == SemValue::Kind::Tuple)
    return base.elements[at];
  return peer(base, at, e);
}

SemValue Generator::peer(const SemValue &list, int64_t p,
                         const ast::Expr &where) {
  return peer(list, indexConst(loc(where), p), where);
}

SemValue Generator::peer(const SemValue &list, Value p,
                         const ast::Expr &where) {
  auto st = cast<comm::StackType>(list.value.getType());
  SemValue r = SemValue::ofKind(SemValue::Kind::Ref);
  r.value = comm::PeerOp::create(
      builder, loc(where),
      tile::RefType::get(&ctx, st.getElementType(), st.getRank()), list.value,
      p);
  // Every copy has the parameter's dtype and sizes.
  r.text = list.text;
  return r;
}

FailureOr<int64_t> Generator::peerCount(const SemValue &list,
                                        const ast::Expr &where) {
  if (list.peers > 0)
    return list.peers;
  if (desc.worldSize)
    return *desc.worldSize;
  if (!reportedUnbound.insert("world_size").second)
    return failure();
  return error(where.getRange(),
               "'" + list.text +
                   "' holds one tensor per rank: its length is the world "
                   "size, which is not known here: " +
                   worldSizeHint());
}

std::string Generator::worldSizeHint() const {
  // A -D in a world-size spelling that the kernel has no parameter for
  // sets nothing: say so instead of asking for it again.
  for (std::string_view name : kWorldSizeNames) {
    auto d = options.defines.find(std::string(name));
    if (d != options.defines.end() && !usedDefines.count(d->first))
      return "-D " + d->first + "=" + d->second +
             " names no parameter of kernel '" + kernel.getName() +
             "', so it sets nothing; pass --world-size " + d->second +
             " (the launch's world size, whatever the kernel calls it)";
  }
  return "pass --world-size N (or -D NAME=N for the kernel's world-size "
         "constexpr)";
}

} // namespace dslc::mlirgen
