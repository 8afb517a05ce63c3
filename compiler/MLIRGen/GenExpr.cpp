//===- GenExpr.cpp - Names, attributes, calls and subscripts --------------===//

#include "compiler/MLIRGen/Generator.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

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
  case K::IfElse: {
    auto &ie = ast::cast<ast::IfElseExpr>(e);
    Result c = genExpr(ie.getCond());
    if (failed(c))
      return failure();
    if (c->kind != SemValue::Kind::Int)
      return fail(ie.getCond().getRange(),
                  "a conditional expression needs a compile-time condition");
    return genExpr(c->intValue ? ie.getThen() : ie.getElse());
  }
  default:
    return fail(e.getRange(), "this expression is not supported in a kernel");
  }
}

Result Generator::genSequence(const ast::ExprList &elements) {
  SemValue t = SemValue::ofKind(SemValue::Kind::Tuple);
  for (const ast::ExprPtr &el : elements) {
    Result v = genExpr(*el);
    if (failed(v))
      return failure();
    v->where = el.get();
    t.elements.push_back(*v);
  }
  return t;
}

Result Generator::genName(const ast::NameExpr &e) {
  if (SemValue *v = lookup(e.getName()))
    return *v;
  static const char *modules[] = {"torch", "hl", "helion", "dslc", "math"};
  for (const char *m : modules)
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
  case SemValue::Kind::Stack:
    return genRefAttribute(e, *base);
  case SemValue::Kind::Tile:
    return genTileAttribute(e, *base);
  case SemValue::Kind::TileData:
    if (name == "dtype") {
      SemValue v = SemValue::ofKind(SemValue::Kind::DType);
      Type t = cast<RankedTensorType>(base->value.getType()).getElementType();
      v.text = typeToDType(t);
      return v;
    }
    break;
  default:
    break;
  }
  return fail(e.getNameRange(), std::string(kindName(base->kind)) +
                                    " has no attribute '" + name + "'");
}

Result Generator::genRefAttribute(const ast::AttributeExpr &e,
                                  const SemValue &base) {
  const std::string &name = e.getName();
  mlir::Location l = loc(e);
  if (name == "dtype") {
    SemValue v = SemValue::ofKind(SemValue::Kind::DType);
    Type t = base.kind == SemValue::Kind::Ref
                 ? cast<tile::RefType>(base.value.getType()).getElementType()
                 : cast<comm::StackType>(base.value.getType()).getElementType();
    auto it = refDTypes.find(base.text);
    v.text = it != refDTypes.end() ? it->second : typeToDType(t);
    return v;
  }
  if (name == "device")
    return SemValue::none();
  if (name == "size" || name == "shape" || name == "ndim") {
    SemValue v = base;
    v.text = base.text;
    if (name == "ndim")
      return SemValue::integer(
          base.kind == SemValue::Kind::Ref
              ? cast<tile::RefType>(base.value.getType()).getRank()
              : cast<comm::StackType>(base.value.getType()).getRank());
    if (name == "shape") {
      // x.shape: the tuple of sizes.
      SemValue tuple = SemValue::ofKind(SemValue::Kind::Tuple);
      if (base.kind != SemValue::Kind::Ref)
        return fail(e.getRange(), "shape of a stack tensor");
      unsigned rank = cast<tile::RefType>(base.value.getType()).getRank();
      for (unsigned d = 0; d < rank; ++d) {
        SemValue s = SemValue::ofKind(SemValue::Kind::Scalar);
        s.value = tile::DimOp::create(builder, l, builder.getIndexType(),
                                      base.value, uint64_t(d));
        s.origin = ScalarOrigin{base.text, d};
        tuple.elements.push_back(s);
      }
      return tuple;
    }
    return v; // method, resolved by genCall
  }
  return fail(e.getNameRange(), "tensors have no attribute '" + name + "'");
}

Result Generator::genTileAttribute(const ast::AttributeExpr &e,
                                   const SemValue &base) {
  const std::string &name = e.getName();
  mlir::Location l = loc(e);
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
    auto type = RankedTensorType::get({base.block}, builder.getI32Type());
    Value iota = tile::IotaOp::create(builder, l, type);
    Value begin = arith::IndexCastOp::create(builder, l, builder.getI32Type(),
                                             base.begin);
    Value splat = tile::SplatOp::create(builder, l, type, begin);
    SemValue t = SemValue::ofKind(SemValue::Kind::TileData);
    t.value = arith::AddIOp::create(builder, l, iota, splat);
    return t;
  } else {
    return fail(e.getNameRange(),
                "tiles have .id, .begin, .end, .block_size and .index, not '" +
                    name + "'");
  }
  return v;
}

Result Generator::genSizeCall(const ast::CallExpr &e, const SemValue &ref,
                              const ast::Expr &callee) {
  mlir::Location l = loc(e);
  if (ref.kind != SemValue::Kind::Ref)
    return fail(callee.getRange(), "size() of a stack tensor");
  unsigned rank = cast<tile::RefType>(ref.value.getType()).getRank();
  auto dimValue = [&](unsigned d) {
    SemValue s = SemValue::ofKind(SemValue::Kind::Scalar);
    s.value = tile::DimOp::create(builder, l, builder.getIndexType(), ref.value,
                                  uint64_t(d));
    s.origin = ScalarOrigin{ref.text, d};
    return s;
  };
  if (e.getArgs().empty()) {
    SemValue tuple = SemValue::ofKind(SemValue::Kind::Tuple);
    for (unsigned d = 0; d < rank; ++d)
      tuple.elements.push_back(dimValue(d));
    return tuple;
  }
  if (e.getArgs().size() != 1)
    return fail(e.getRange(), "size() takes at most one argument");
  Result d = genExpr(*e.getArgs()[0].value);
  if (failed(d))
    return failure();
  auto dim = toConstInt(*d, *e.getArgs()[0].value, "a dimension");
  if (failed(dim))
    return failure();
  int64_t dd = *dim < 0 ? *dim + rank : *dim;
  if (dd < 0 || dd >= rank)
    return fail(e.getArgs()[0].value->getRange(),
                "dimension " + std::to_string(*dim) +
                    " is out of range for a " + std::to_string(rank) +
                    "-d tensor");
  return dimValue(dd);
}

Result Generator::genCall(const ast::CallExpr &e) {
  const ast::Expr &callee = e.getCallee();
  if (failed(checkCallArguments(e)))
    return failure();
  if (std::optional<Result> method = genMethodCall(e))
    return *method;
  std::optional<std::string> name = ast::getDottedName(callee);
  if (!name)
    return fail(callee.getRange(), "only named functions can be called");
  std::string n = *name;
  if (llvm::StringRef(n).starts_with("helion.language."))
    n = "hl." + n.substr(16);
  if (n == "hl.zeros")
    return genZerosFull(e, false);
  if (n == "hl.full")
    return genZerosFull(e, true);
  if (n == "hl.signal")
    return genSignalWait(e, true);
  if (n == "hl.wait")
    return genSignalWait(e, false);
  if (n == "hl.epoch")
    return genEpoch(e);
  if (n == "hl.ll_put")
    return genPacket(e, /*isPut=*/true);
  if (n == "hl.ll_get")
    return genPacket(e, /*isPut=*/false);
  if (n == "hl.stacktensor_like" || n == "hl.multicast_like")
    return genStackTensor(e);
  if (n == "torch.ops.symm_mem.get_remote_tensors")
    return genRemoteTensors(e);
  if (n == "hl.specialize")
    return genSpecialize(e);
  if (n == "torch.empty_like")
    return genEmptyLike(e);
  if (n == "len")
    return genLen(e);
  if (n == "hl.tile" || n == "hl.grid")
    return fail(e.getRange(), n + " is only allowed as the iterable of a "
                                  "'for' loop");
  if (n == "min" || n == "max")
    return genMinMax(e, n == "min");
  return fail(callee.getRange(), "unknown function '" + *name + "'");
}

std::optional<Result> Generator::genMethodCall(const ast::CallExpr &e) {
  const ast::Expr &callee = e.getCallee();
  auto *attr = ast::dyn_cast<ast::AttributeExpr>(&callee);
  if (!attr)
    return std::nullopt;
  const std::string &method = attr->getName();
  // Methods on tensors: x.size(d), x.dim(), x.element_size().
  if (method == "size" || method == "dim" || method == "element_size") {
    Result base = genExpr(attr->getBase());
    if (failed(base))
      return failure();
    if (base->kind == SemValue::Kind::Ref ||
        base->kind == SemValue::Kind::Stack) {
      Type element =
          base->kind == SemValue::Kind::Ref
              ? cast<tile::RefType>(base->value.getType()).getElementType()
              : cast<comm::StackType>(base->value.getType()).getElementType();
      if (method == "element_size")
        return SemValue::integer(
            std::max(1u, element.getIntOrFloatBitWidth() / 8));
      if (method == "dim")
        return SemValue::integer(
            base->kind == SemValue::Kind::Ref
                ? cast<tile::RefType>(base->value.getType()).getRank()
                : cast<comm::StackType>(base->value.getType()).getRank());
      return genSizeCall(e, *base, callee);
    }
  }
  if (method == "sum")
    if (auto *sub = ast::dyn_cast<ast::SubscriptExpr>(&attr->getBase())) {
      Result base = genExpr(sub->getBase());
      if (failed(base))
        return failure();
      if (base->kind == SemValue::Kind::Stack)
        return genLoadReduce(e, *base, *sub);
    }
  if (method == "to")
    return genCast(e, attr->getBase());
  return std::nullopt;
}

Result Generator::genLen(const ast::CallExpr &e) {
  if (e.getArgs().size() != 1)
    return fail(e.getRange(), "len takes one argument");
  Result v = genExpr(*e.getArgs()[0].value);
  if (failed(v))
    return failure();
  if (v->kind == SemValue::Kind::PeerList)
    return SemValue::integer(v->peers);
  if (v->kind == SemValue::Kind::Tuple)
    return SemValue::integer(v->elements.size());
  return fail(e.getRange(), "len of " + std::string(kindName(v->kind)));
}

Result Generator::genMinMax(const ast::CallExpr &e, bool isMin) {
  if (e.getArgs().size() != 2)
    return fail(e.getRange(),
                std::string(isMin ? "min" : "max") + " takes two arguments");
  Result a = genExpr(*e.getArgs()[0].value);
  Result b = genExpr(*e.getArgs()[1].value);
  if (failed(a) || failed(b))
    return failure();
  if (a->kind == SemValue::Kind::Int && b->kind == SemValue::Kind::Int)
    return SemValue::integer(isMin ? std::min(a->intValue, b->intValue)
                                   : std::max(a->intValue, b->intValue));
  auto ai = toIndex(*a, *e.getArgs()[0].value);
  auto bi = toIndex(*b, *e.getArgs()[1].value);
  if (failed(ai) || failed(bi))
    return failure();
  SemValue s = SemValue::ofKind(SemValue::Kind::Scalar);
  s.value = isMin ? Value(arith::MinSIOp::create(builder, loc(e), *ai, *bi))
                  : Value(arith::MaxSIOp::create(builder, loc(e), *ai, *bi));
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
    auto type = cast<tile::RefType>(base->value.getType());
    auto access = accessOf(*base, type.getRank(), e.getIndex());
    if (failed(access))
      return failure();
    auto tileType = RankedTensorType::get(access->shape, type.getElementType());
    SemValue t = SemValue::ofKind(SemValue::Kind::TileData);
    t.value = tile::LoadOp::create(builder, loc(e), tileType, base->value,
                                   access->offsets, access->limits,
                                   access->dims, TypedAttr());
    return t;
  }
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
  Result i = genExpr(e.getIndex());
  if (failed(i))
    return failure();
  auto k = toConstInt(*i, e.getIndex(), "a tuple index");
  if (failed(k))
    return failure();
  int64_t n =
      base.kind == SemValue::Kind::Tuple ? base.elements.size() : base.peers;
  if (*k < 0 || *k >= n)
    return fail(e.getIndex().getRange(), "index " + std::to_string(*k) +
                                             " is out of range for " +
                                             std::to_string(n) + " elements");
  if (base.kind == SemValue::Kind::Tuple)
    return base.elements[*k];
  auto st = cast<comm::StackType>(base.value.getType());
  SemValue r = SemValue::ofKind(SemValue::Kind::Ref);
  r.value = comm::PeerOp::create(
      builder, loc(e),
      tile::RefType::get(&ctx, st.getElementType(), st.getRank()), base.value,
      indexConst(loc(e), *k));
  return r;
}

} // namespace dslc::mlirgen
