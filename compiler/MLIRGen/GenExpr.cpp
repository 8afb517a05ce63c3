//===- GenExpr.cpp - Names, attributes, calls and subscripts --------------===//

#include "compiler/MLIRGen/Generator.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

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
static const char *const kModules[] = {"torch", "hl", "helion", "dslc", "math"};

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
  case SemValue::Kind::Stack:
    return genRefAttribute(e, *base);
  case SemValue::Kind::Tile:
    return genTileAttribute(e, *base);
  case SemValue::Kind::TileData:
    if (name == "shape") { // the static shape, as a tuple of integers
      SemValue t = SemValue::ofKind(SemValue::Kind::Tuple);
      for (int64_t d :
           cast<RankedTensorType>(base->value.getType()).getShape())
        t.elements.push_back(SemValue::integer(d));
      return t;
    }
    if (name == "T" || name == "mT") { // reversed dimensions / the last two
      int64_t rank = cast<RankedTensorType>(base->value.getType()).getRank();
      SmallVector<int64_t> perm =
          llvm::to_vector(llvm::seq<int64_t>(0, rank));
      if (name == "T")
        std::reverse(perm.begin(), perm.end());
      else if (rank >= 2)
        std::swap(perm[rank - 1], perm[rank - 2]);
      return transposeTile(*base, perm, e);
    }
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
    auto type = RankedTensorType::get({base.block}, builder.getI32Type());
    Value iota = tile::IotaOp::create(builder, l, type);
    Value begin = arith::IndexCastOp::create(builder, l, builder.getI32Type(),
                                             base.begin);
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
  if (ref.kind != SemValue::Kind::Ref)
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

Result Generator::genCall(const ast::CallExpr &e) {
  const ast::Expr &callee = e.getCallee();
  if (failed(checkCallArguments(e)))
    return failure();
  if (std::optional<Result> method = genMethodCall(e))
    return *method;
  std::optional<std::string> name = ast::getDottedName(callee);
  if (!name || (ast::isa<ast::NameExpr>(callee) && lookup(*name) &&
                lookup(*name)->kind == SemValue::Kind::Callable)) {
    // A function value: a lambda, or a parameter defaulting to one.
    Result f = genExpr(callee);
    if (failed(f))
      return failure();
    if (f->kind != SemValue::Kind::Callable)
      return fail(callee.getRange(), std::string(kindName(f->kind)) +
                                         " is not callable");
    return genCallableCall(e, *f);
  }
  std::string n = *name;
  if (isHelionSymmMemSync(callee)) {
    std::vector<HelperArg> args;
    for (const ast::Argument &a : e.getArgs())
      args.push_back({a.value.get(),
                      a.kind == ast::Argument::Kind::Keyword ? a.name : "",
                      a.range});
    return genSymmMemSync(e.getRange(), args);
  }
  if (ast::isa<ast::NameExpr>(callee)) {
    if (const ast::FunctionDef *fn = helperNamed(n))
      return genHelperCall(e, *fn);
    if (std::optional<Result> r = genHelionRuntimeCall(e, n))
      return *r;
    if (!lookup(n))
      if (std::optional<Result> r = hostCodeCall(n, callee.getRange()))
        return *r;
  }
  // A module imported under another name (`import torch.nn.functional as
  // F`, `from torch import nn`): its full path.
  std::string first = n.substr(0, n.find('.'));
  if (!llvm::is_contained(kModules, first) && !lookup(first))
      if (std::optional<std::string> full = importedFromModule(n))
        if (llvm::StringRef(*full).starts_with("torch.") ||
            llvm::StringRef(*full).starts_with("helion.language."))
          n = *full;
  if (llvm::StringRef(n).starts_with("helion.language."))
    n = "hl." + n.substr(16);
  if (std::optional<Result> r = genForeignCall(e, n))
    return *r;
  if (std::optional<Result> r = genHelionFunction(e, n))
    return *r;
  if (std::optional<Result> made = genMakeTensor(e, n))
    return *made;
  if (llvm::StringRef(n).starts_with("math.") && !lookup("math"))
    return genPythonMathCall(e, llvm::StringRef(n).drop_front(5)).value();
  if (n == "torch.broadcast_tensors")
    return genBroadcastTensors(e);
  if ((n == "float" || n == "int") && !lookup(n))
    return genNumberCast(e, n == "float");
  // torch functions of tensors outside the loop: host code.
  if (!inGrid && llvm::StringRef(n).starts_with("torch.") &&
      !llvm::StringRef(n).starts_with("torch.ops.") &&
      n != "torch.promote_types")
    for (const ast::Argument &a : e.getArgs()) {
      Result v = genExpr(*a.value);
      if (failed(v))
        return failure();
      if (isHostTensor(*v))
        return hostValue(e);
    }
  if (llvm::StringRef(n).starts_with("torch.")) {
    llvm::StringRef fn = llvm::StringRef(n).drop_front(6);
    if (std::optional<Result> r = genActivationCall(e, fn, nullptr))
      return *r;
    if (std::optional<Result> r = genTransposeCall(e, fn, nullptr))
      return *r;
    if (std::optional<Result> r = genReductionCall(e, fn, nullptr))
      return *r;
    if (std::optional<Result> r = genMathCall(e, fn, nullptr))
      return *r;
  }
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

  if (n == "len")
    return genLen(e);
  if (n == "hl.tile" || n == "hl.grid" || n == "hl.static_range")
    return fail(e.getRange(), n + " is only allowed as the iterable of a "
                                  "'for' loop");
  if (n == "min" || n == "max")
    return genMinMax(e, n == "min");
  if (n == "abs" && e.getArgs().size() == 1) {
    Result v = genExpr(*e.getArgs()[0].value);
    if (failed(v))
      return failure();
    return genUnaryMath("abs", *v, e);
  }
  if (n == "zip" || n == "enumerate" || n == "list" || n == "tuple")
    return genSequenceBuiltin(e, n);
  if (n == "hl.register_block_size")
    return genRegisterBlockSize(e);
  if (n == "hl.split" || n == "hl.join")
    return genSplitJoin(e, n == "hl.join");
  if (n == "hl.register_tunable")
    return genRegisterTunable(e);
  if (n == "helion.next_power_of_2" || n == "helion.cdiv" ||
      n == "triton.next_power_of_2" || n == "triton.cdiv")
    return genHelionIntFunction(e, llvm::StringRef(n).rsplit('.').second);
  if (llvm::StringRef(n).starts_with("torch.") ||
      llvm::StringRef(n).starts_with("hl."))
    return fail(callee.getRange(),
                "'" + *name +
                    "' is not supported in a dslc kernel "
                    "(docs/language.md lists the functions a kernel may call)");
  return fail(callee.getRange(),
              "unknown function '" + *name +
                  "' (a kernel calls the functions of docs/language.md and "
                  "plain defs of its file)");
}

std::optional<Result> Generator::genMethodCall(const ast::CallExpr &e) {
  const ast::Expr &callee = e.getCallee();
  auto *attr = ast::dyn_cast<ast::AttributeExpr>(&callee);
  if (!attr)
    return std::nullopt;
  const std::string &method = attr->getName();
  // Views and new tensors (GenHost.cpp).
  if (isViewMethod(method)) {
    std::optional<std::string> dotted = ast::getDottedName(attr->getBase());
    if (!dotted || !isModulePath(*dotted)) {
      Result base = genExpr(attr->getBase());
      if (failed(base))
        return failure();
      if (base->kind == SemValue::Kind::Ref)
        if (std::optional<Result> r = genRefMethod(e, *base, method))
          return *r;
      if (base->kind == SemValue::Kind::Host)
        return hostValue(e);
      if (base->kind == SemValue::Kind::TileData &&
          (method == "view" || method == "reshape"))
        return genTileReshape(e, *base);
      return fail(callee.getRange(), std::string(kindName(base->kind)) +
                                         " has no method '" + method + "'");
    }
  }
  if (method == "expand" || method == "expand_as") {
    Result base = genExpr(attr->getBase());
    if (failed(base))
      return failure();
    if (base->kind == SemValue::Kind::TileData)
      return genTileExpand(e, *base, method == "expand_as");
    if (isHostTensor(*base))
      return hostValue(e);
    return fail(callee.getRange(), std::string(kindName(base->kind)) +
                                       " has no method '" + method + "'");
  }
  if (method == "to" && !inGrid) {
    // Outside the loop: a tensor converted to its own dtype is itself;
    // another dtype is a new tensor host code makes.
    Result base = genExpr(attr->getBase());
    if (failed(base))
      return failure();
    if (base->kind == SemValue::Kind::Ref) {
      const ast::Expr *dtypeArg = argument(e, 0, "dtype");
      FailureOr<std::string> dt =
          dtypeArg ? dtypeValue(*dtypeArg) : FailureOr<std::string>(failure());
      std::string own = refDTypes.count(base->text)
                            ? refDTypes[base->text]
                            : typeToDType(refShape(*base).second);
      if (succeeded(dt) && *dt == own)
        return *base;
      return hostValue(e);
    }
  }
  if (method == "squeeze" || method == "unsqueeze") {
    Result base = genExpr(attr->getBase());
    if (failed(base))
      return failure();
    if (base->kind == SemValue::Kind::TileData)
      return genTileSqueeze(e, *base, method == "unsqueeze");
    if (isHostTensor(*base))
      return hostValue(e);
    return fail(callee.getRange(), std::string(kindName(base->kind)) +
                                       " has no method '" + method + "'");
  }
  // Outside the loop, what a tensor's methods compute is host code.
  if (!inGrid && method != "size" && method != "dim" &&
      method != "element_size") {
    std::optional<std::string> dotted = ast::getDottedName(attr->getBase());
    if (!dotted || !isModulePath(*dotted)) {
      Result base = genExpr(attr->getBase());
      if (failed(base))
        return failure();
      if (isHostTensor(*base))
        return hostValue(e);
    }
  }
  // A tile value's size(): its static shape (or one extent).
  if (method == "size") {
    std::optional<std::string> dotted = ast::getDottedName(attr->getBase());
    if (!dotted || !isModulePath(*dotted) ) {
      if (auto *n = ast::dyn_cast<ast::NameExpr>(&attr->getBase()))
        if (SemValue *v = lookup(n->getName()))
          if (v->kind == SemValue::Kind::TileData) {
            auto shape = cast<RankedTensorType>(v->value.getType()).getShape();
            if (e.getArgs().empty()) {
              SemValue t = SemValue::ofKind(SemValue::Kind::Tuple);
              for (int64_t d : shape)
                t.elements.push_back(SemValue::integer(d));
              return Result(t);
            }
            FailureOr<int64_t> d =
                constIntOf(*e.getArgs()[0].value, "a dimension");
            if (failed(d))
              return Result(failure());
            int64_t dd = *d < 0 ? *d + int64_t(shape.size()) : *d;
            if (dd < 0 || dd >= int64_t(shape.size()))
              return fail(e.getRange(), "dimension out of range");
            return Result(SemValue::integer(shape[dd]));
          }
    }
  }
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
  if (method == "t" || method == "transpose" || method == "permute" ||
      method == "swapaxes") {
    std::optional<std::string> dotted = ast::getDottedName(attr->getBase());
    if (!dotted || !isModulePath(*dotted))
      return genTransposeCall(e, method, &attr->getBase());
  }
  if (method == "softmax" || method == "log_softmax") {
    std::optional<std::string> dotted = ast::getDottedName(attr->getBase());
    if (!dotted || !isModulePath(*dotted))
      return genActivationCall(e, method, &attr->getBase());
  }
  if (isReduction(method) || isUnaryMath(method) || method == "clamp" ||
      method == "clip" || method == "maximum" || method == "minimum" ||
      method == "pow") {
    // Only on values (not on modules: torch.sum is a function).
    std::optional<std::string> dotted = ast::getDottedName(attr->getBase());
    if (!dotted || !isModulePath(*dotted)) {
      if (isReduction(method))
        return genReductionCall(e, method, &attr->getBase());
      return genMathCall(e, method, &attr->getBase());
    }
  }
  if (method == "float" || method == "half" || method == "bfloat16" ||
      method == "int" || method == "bool") {
    std::optional<std::string> dotted = ast::getDottedName(attr->getBase());
    if (!dotted || !isModulePath(*dotted))
      return genCastTo(e, attr->getBase(),
                       method == "float"  ? "float32"
                       : method == "half" ? "float16"
                       : method == "int"  ? "int32"
                                          : method.c_str());
  }
  return std::nullopt;
}

std::optional<Result> Generator::genMakeTensor(const ast::CallExpr &e,
                                               const std::string &n) {
  const char *fn = n.c_str();
  if (n == "torch.empty_like" || n == "torch.zeros_like")
    return genOutputLike(e, n, n == "torch.zeros_like");
  if (n == "torch.full_like" || n == "torch.ones_like") {
    const ast::Expr *arg = argument(e, 0, "input");
    const ast::Expr *value =
        n == "torch.full_like" ? argument(e, 1, "fill_value") : nullptr;
    if (!arg || (n == "torch.full_like" && !value))
      return fail(e.getRange(), n + " takes a tile value" +
                                    (value ? "" : " and a fill value"));
    Result like = genExpr(*arg);
    if (failed(like))
      return failure();
    if (like->kind != SemValue::Kind::TileData)
      return fail(arg->getRange(),
                  n + " makes a tile like a tile value (dslc does not fill "
                      "outputs: make one with torch.empty_like and store "
                      "into it)");
    return genFillLike(e, *like, value, n == "torch.ones_like" ? 1 : 0);
  }
  bool torchMake = n == "torch.empty" || n == "torch.zeros" ||
                   n == "torch.ones" || n == "torch.full";
  if (torchMake && !inGrid) {
    if (n == "torch.ones" || n == "torch.full")
      return fail(e.getRange(),
                  n + " outside the tile loop would be an output filled "
                      "before the kernel, which dslc does not do: make it "
                      "with torch.empty and store the values in the loop");
    return genOutputShaped(e, n, n == "torch.zeros");
  }
  if (torchMake || n == "hl.zeros" || n == "hl.full") {
    bool full = n == "hl.full" || n == "torch.full";
    const ast::Expr *shape = argument(e, 0, torchMake ? "size" : "shape");
    const ast::Expr *value =
        full ? argument(e, 1, torchMake ? "fill_value" : "value") : nullptr;
    if (!shape)
      return fail(e.getRange(), n + ": the tile's shape is missing");
    if (full && !value)
      return fail(e.getRange(), n + " needs a fill value");
    return genTileFill(e, fn, *shape, value, "float32",
                       n == "torch.ones" ? 1 : 0);
  }
  return std::nullopt;
}

FailureOr<std::vector<SemValue>>
Generator::sequenceItems(const SemValue &v, const ast::Expr &where) {
  if (v.kind == SemValue::Kind::Tuple)
    return v.elements;
  if (v.kind == SemValue::Kind::PeerList) {
    auto n = peerCount(v, where);
    if (failed(n))
      return failure();
    std::vector<SemValue> items;
    for (int64_t p = 0; p < *n; ++p)
      items.push_back(peer(v, p, where));
    return items;
  }
  return error(where.getRange(),
               std::string("expected a tuple, got ") + kindName(v.kind));
}

Result Generator::genSequenceBuiltin(const ast::CallExpr &e,
                                     const std::string &n) {
  std::vector<std::vector<SemValue>> inputs;
  bool copy = (n == "list" || n == "tuple") && e.getArgs().size() == 1;
  for (const ast::Argument &a : e.getArgs()) {
    if (a.kind != ast::Argument::Kind::Positional)
      continue;
    Result v = genExpr(*a.value);
    if (failed(v))
      return failure();
    // Still every rank's copy: loops over it roll like loops over peers.
    if (copy && v->kind == SemValue::Kind::PeerList)
      return *v;
    auto items = sequenceItems(*v, *a.value);
    if (failed(items))
      return failure();
    inputs.push_back(*items);
  }
  if (inputs.empty() || (n != "zip" && inputs.size() != 1))
    return fail(e.getRange(),
                n + " takes " + (n == "zip" ? "tuples" : "one tuple"));
  SemValue out = SemValue::ofKind(SemValue::Kind::Tuple);
  if (n == "list" || n == "tuple") {
    out.elements = inputs[0];
    return out;
  }
  if (n == "enumerate") {
    int64_t start = 0;
    if (const ast::Expr *s = keyword(e, "start")) {
      auto c = constIntOf(*s, "enumerate's start");
      if (failed(c))
        return failure();
      start = *c;
    }
    for (auto [i, x] : llvm::enumerate(inputs[0])) {
      SemValue pair = SemValue::ofKind(SemValue::Kind::Tuple);
      pair.elements = {SemValue::integer(start + int64_t(i)), x};
      out.elements.push_back(pair);
    }
    return out;
  }
  size_t shortest = inputs[0].size();
  for (const auto &items : inputs)
    shortest = std::min(shortest, items.size());
  for (size_t i = 0; i < shortest; ++i) {
    SemValue row = SemValue::ofKind(SemValue::Kind::Tuple);
    for (const auto &items : inputs)
      row.elements.push_back(items[i]);
    out.elements.push_back(row);
  }
  return out;
}

Result Generator::genRegisterBlockSize(const ast::CallExpr &e) {
  // hl.register_block_size(max) or (min, max): the config's next block size.
  std::vector<int64_t> bounds;
  int64_t hint = 0; // the largest size --shape gives
  for (const ast::Argument &a : e.getArgs()) {
    Result v = genExpr(*a.value);
    if (failed(v))
      return failure();
    if (v->kind == SemValue::Kind::Int)
      bounds.push_back(v->intValue);
    else if (v->kind != SemValue::Kind::Scalar)
      return fail(a.value->getRange(),
                  "hl.register_block_size takes sizes (max, or min and max)");
    else if (v->known)
      hint = v->known->value;
  }
  if (!bounds.empty())
    hint = bounds.back();
  // Bounds known at compile time: (max) or (min, max).
  int64_t lo = bounds.size() == 2 ? bounds[0] : 1;
  int64_t hi = bounds.empty() ? 0 : bounds.back();
  if (e.getArgs().size() == 2 && bounds.size() == 1)
    lo = 1, hi = 0; // one of the two is a run-time size: neither is used
  FailureOr<int64_t> block =
      takeBlockSize(e.getRange(), "hl.register_block_size", lo, hi, hint);
  if (failed(block))
    return failure();
  return SemValue::integer(*block);
}

Result Generator::genLen(const ast::CallExpr &e) {
  if (e.getArgs().size() != 1)
    return fail(e.getRange(), "len takes one argument");
  Result v = genExpr(*e.getArgs()[0].value);
  if (failed(v))
    return failure();
  if (v->kind == SemValue::Kind::PeerList) {
    auto n = peerCount(*v, *e.getArgs()[0].value);
    if (failed(n))
      return failure();
    return SemValue::integer(*n);
  }
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
  auto tileish = [](const SemValue &v) {
    return v.kind == SemValue::Kind::TileData || v.kind == SemValue::Kind::Ref;
  };
  if (tileish(*a) || tileish(*b))
    return genMinMax2(!isMin, *a, *b, e);
  if (isNumber(*a) && isNumber(*b) &&
      (a->kind == SemValue::Kind::Float || b->kind == SemValue::Kind::Float)) {
    double x = a->kind == SemValue::Kind::Int ? a->intValue : a->floatValue;
    double y = b->kind == SemValue::Kind::Int ? b->intValue : b->floatValue;
    return (isMin ? x <= y : x >= y) ? *a : *b;
  }
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
    if (!inGrid)
      return hostValue(e); // a slice of a tensor before the loop
    return genLoad(*base, e.getIndex(), e);
  }
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
