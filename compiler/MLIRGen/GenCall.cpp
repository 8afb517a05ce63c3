//===- GenCall.cpp - Calls, methods and builtins --------------------------===//

#include "compiler/MLIRGen/Generator.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace dslc::mlirgen {

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
      return fail(callee.getRange(),
                  std::string(kindName(f->kind)) + " is not callable");
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
    if (std::optional<Result> r = genCompositeCall(e, fn, nullptr))
      return *r;
    if (std::optional<Result> r = genTransposeCall(e, fn, nullptr))
      return *r;
    if (std::optional<Result> r = genReductionCall(e, fn, nullptr))
      return *r;
    if (std::optional<Result> r = genMathCall(e, fn, nullptr))
      return *r;
    if (std::optional<Result> r = genScanCall(e, n, nullptr))
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
  if (n == "hl.subscript")
    return genHlSubscript(e);
  if (n == "hl.rand")
    return genRand(e);
  // torch.cat of tiles (in the loop; host code's torch.cat is the
  // caller's) is a stack whose new dimension merges with the next.
  if (n == "torch.stack" ||
      (inGrid &&
       (n == "torch.cat" || n == "torch.concat" || n == "torch.concatenate")))
    return genStack(e);
  if (llvm::StringRef(n).starts_with("hl.atomic_") && n != "hl.atomic_cas")
    return genAtomic(e, n);
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
      // The element count is the stored tensor's (no view of a permuted
      // tensor is row-major).
      if (base->kind == SemValue::Kind::PermutedRef && method == "numel")
        if (std::optional<Result> r = genRefMethod(e, storedRef(*base), method))
          return *r;
      if (base->kind == SemValue::Kind::Host)
        return hostValue(e);
      if (base->kind == SemValue::Kind::TileData &&
          (method == "view" || method == "reshape"))
        return genTileReshape(e, *base);
      if (inGrid && llvm::StringRef(method).starts_with("new_") &&
          (base->kind == SemValue::Kind::TileData ||
           base->kind == SemValue::Kind::Scalar))
        return genNewFill(e, *base, method);
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
  if (method == "size" || method == "dim" || method == "element_size")
    if (std::optional<Result> r = genSizeMethod(e, *attr, method))
      return *r;
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
  if (method == "reciprocal" || method == "logsumexp" ||
      method == "nan_to_num" || method == "norm" || method == "sign" ||
      method == "clamp_min" || method == "clamp_max" || method == "var" ||
      method == "std") {
    std::optional<std::string> dotted = ast::getDottedName(attr->getBase());
    if (!dotted || !isModulePath(*dotted))
      if (std::optional<Result> r =
              genCompositeCall(e, method, &attr->getBase()))
        return *r;
  }
  if (method == "cumsum" || method == "cumprod") {
    std::optional<std::string> dotted = ast::getDottedName(attr->getBase());
    if (!dotted || !isModulePath(*dotted))
      return genScanCall(e, "torch." + method, &attr->getBase()).value();
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

std::optional<Result> Generator::genSizeMethod(const ast::CallExpr &e,
                                               const ast::AttributeExpr &attr,
                                               const std::string &method) {
  const ast::Expr &callee = e.getCallee();
  // A tile value's size(): its static shape (or one extent).
  if (method == "size") {
    std::optional<std::string> dotted = ast::getDottedName(attr.getBase());
    if (!dotted || !isModulePath(*dotted)) {
      if (auto *n = ast::dyn_cast<ast::NameExpr>(&attr.getBase()))
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
    Result base = genExpr(attr.getBase());
    if (failed(base))
      return failure();
    if (base->kind == SemValue::Kind::Ref ||
        base->kind == SemValue::Kind::PermutedRef ||
        base->kind == SemValue::Kind::Stack) {
      Type element =
          base->kind != SemValue::Kind::Stack
              ? cast<tile::RefType>(base->value.getType()).getElementType()
              : cast<comm::StackType>(base->value.getType()).getElementType();
      if (method == "element_size")
        return SemValue::integer(
            std::max(1u, element.getIntOrFloatBitWidth() / 8));
      if (method == "dim")
        return SemValue::integer(
            base->kind != SemValue::Kind::Stack
                ? cast<tile::RefType>(base->value.getType()).getRank()
                : cast<comm::StackType>(base->value.getType()).getRank());
      return genSizeCall(e, *base, callee);
    }
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

} // namespace dslc::mlirgen
