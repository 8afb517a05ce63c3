//===- GenHelpers.cpp - Plain functions called from a kernel
//----------------===//
//
// A plain `def` of the kernel's file called from the kernel (or from another
// helper) is inlined: its parameters are bound to the caller's values
// (tiles, tensors, constants...) in a scope of its own, its body is
// generated in place and `return` gives the call's value. Recursion is an
// error, and so is nesting past kMaxCallDepth. An error inside a helper is
// followed by a note at each call site on the way out ("in call to 'f'").
//
//===----------------------------------------------------------------------===//

#include "compiler/MLIRGen/Generator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace dslc::mlirgen {

/// hl.load's eviction_policy=: "" (no hint), "evict_first" or "evict_last"
/// (what Triton's tl.load takes) set `evict`; None leaves it null (the
/// config's load_eviction_policies decide, as in Helion).
LogicalResult Generator::evictionPolicyArg(const ast::Expr &arg,
                                           tile::EvictionAttr &evict) {
  if (ast::isa<ast::NoneLiteralExpr>(&arg))
    return success();
  if (auto *str = ast::dyn_cast<ast::StringLiteralExpr>(&arg)) {
    const std::string &v = str->getValue();
    std::optional<tile::Eviction> e;
    if (v.empty())
      e = tile::Eviction::normal;
    else if (v == "evict_first")
      e = tile::Eviction::first;
    else if (v == "evict_last")
      e = tile::Eviction::last;
    if (e) {
      evict = tile::EvictionAttr::get(builder.getContext(), *e);
      return success();
    }
  }
  return error(arg.getRange(), "eviction_policy must be \"evict_first\", "
                               "\"evict_last\", \"\" or None");
}

const ast::FunctionDef *Generator::helperNamed(const std::string &name) {
  if (lookup(name))
    return nullptr; // a local name shadows the module's
  for (const ast::StmtPtr &s : module.getBody())
    if (auto *f = ast::dyn_cast<ast::FunctionDef>(s.get()))
      if (f->getName() == name)
        return f;
  return nullptr;
}

LogicalResult Generator::bindHelperArguments(
    const std::vector<HelperArg> &args, SourceRange callRange,
    const ast::FunctionDef &fn, std::map<std::string, SemValue> &scope) {
  const std::string &name = fn.getName();
  const std::vector<ast::Param> &params = fn.getParams();
  for (const ast::Param &p : params)
    if (p.kind != ast::Param::Kind::Normal)
      return error(p.range, "helper '" + name +
                                "' takes *args or "
                                "**kwargs, which dslc does not inline");
  size_t positional = 0;
  for (const HelperArg &a : args) {
    const ast::Param *p = nullptr;
    if (a.keyword.empty()) {
      if (positional >= params.size() || params[positional].keywordOnly)
        return error(a.range, name + "() takes " +
                                  std::to_string(params.size()) +
                                  " positional argument(s) but more were "
                                  "given");
      p = &params[positional++];
    } else {
      auto it = llvm::find_if(
          params, [&](const ast::Param &q) { return q.name == a.keyword; });
      if (it == params.end() || it->positionalOnly)
        return error(a.range, name +
                                  "() got an unexpected keyword argument "
                                  "'" +
                                  a.keyword + "'");
      p = &*it;
    }
    if (scope.count(p->name))
      return error(a.range, name + "() got multiple values for argument '" +
                                p->name + "'");
    Result v = a.given ? Result(*a.given) : genExpr(*a.value);
    if (failed(v))
      return failure();
    scope[p->name] = *v;
  }
  for (const ast::Param &p : params) {
    if (scope.count(p.name))
      continue;
    if (!p.defaultValue)
      return error(callRange, name + "() is missing argument '" + p.name + "'");
    if (!isConstantSyntax(*p.defaultValue))
      return error(p.defaultValue->getRange(),
                   "the default of a helper's parameter must be a constant");
    Result v = genExpr(*p.defaultValue);
    if (failed(v))
      return failure();
    scope[p.name] = *v;
  }
  return success();
}

Result Generator::genHelperCall(const ast::CallExpr &e,
                                const ast::FunctionDef &fn) {
  std::vector<HelperArg> args;
  for (const ast::Argument &a : e.getArgs()) {
    if (a.kind == ast::Argument::Kind::Star ||
        a.kind == ast::Argument::Kind::DoubleStar)
      return fail(a.range, "*args and **kwargs in a call are not supported");
    args.push_back({a.value.get(),
                    a.kind == ast::Argument::Kind::Keyword ? a.name : "",
                    a.range});
  }
  return inlineHelper(e.getRange(), e.getCallee().getRange(), args, fn);
}

Result Generator::inlineHelper(SourceRange callRange, SourceRange calleeRange,
                               const std::vector<HelperArg> &args,
                               const ast::FunctionDef &fn) {
  const std::string &name = fn.getName();
  if (fn.isKernel())
    return fail(calleeRange,
                "'" + name +
                    "' is a kernel; a kernel calls plain functions "
                    "(a def without the decorator), which dslc inlines");
  for (const CallFrame &f : calls)
    if (f.fn == &fn)
      return fail(callRange, "recursive call to '" + name +
                                 "': helpers are inlined into the kernel, "
                                 "so they cannot call themselves");
  if (calls.size() >= kMaxCallDepth)
    return fail(callRange, "helper calls nest deeper than " +
                               std::to_string(kMaxCallDepth));
  std::map<std::string, SemValue> scope;
  unsigned errorsBefore = diags->getNumErrors();
  LogicalResult bound = bindHelperArguments(args, callRange, fn, scope);
  if (failed(bound))
    return failure();
  // The helper sees its parameters (and the modules), not the caller's
  // names: a scope stack of its own.
  std::vector<std::map<std::string, SemValue>> callerScopes;
  std::swap(scopes, callerScopes);
  scopes.push_back(std::move(scope));
  calls.push_back({&fn, callRange, std::nullopt, false, loopDepth});
  LogicalResult body = genBlock(fn.getBody());
  CallFrame frame = calls.back();
  calls.pop_back();
  std::swap(scopes, callerScopes);
  if (failed(body) || diags->getNumErrors() > errorsBefore) {
    diags->note(callRange, "in call to '" + name + "'");
    return failure();
  }
  return frame.result ? *frame.result : SemValue::none();
}

LogicalResult Generator::genHelperReturn(const ast::ReturnStmt &s) {
  CallFrame &frame = calls.back();
  if (loopDepth > frame.loopDepth)
    return error(s.getRange(),
                 "'return' inside a loop of helper '" + frame.fn->getName() +
                     "': a helper returns at its end or in a compile-time "
                     "`if`");
  SemValue v = SemValue::none();
  if (const ast::Expr *x = s.getValue()) {
    Result r = genExpr(*x);
    if (failed(r))
      return failure();
    v = *r;
  }
  frame.result = v;
  frame.returned = true;
  return success();
}

/// Helion functions dslc does not have, and what to write instead.
static const std::pair<const char *, const char *> kUnsupported[] = {
    {"hl.inline_triton", "embeds Triton code, which dslc does not compile"},
    {"hl.inline_asm_elementwise",
     "embeds inline assembly, which dslc does not compile"},
    {"hl.barrier", "is a grid-wide barrier: call it at the kernel's top "
                   "level, between two top-level hl.tile loops, not inside "
                   "one (CTAs that skip it would wait forever)"},
    {"hl.jagged_tile", "is not supported: loop with hl.tile over the longest "
                       "extent and mask with torch.where"},
    {"hl.randint", "is not supported"},
    {"hl.device_print", "is not supported: run the kernel with --simulate "
                        "and --dump-dir to look at its values"},
    {"hl.atomic_cas", "(atomics) is not supported: flags are hl.signal with "
                      "wait_for"},
};

/// What to write instead of Triton code (hl.triton_kernel, hl.inline_triton).
static const char kWriteInDSL[] =
    "write it in the DSL as a plain def of this file (inlined; a sync is "
    "hl.signal to every peer's pad and hl.wait on the local pad, and "
    "Helion's own symm_mem_sync, imported from "
    "helion.runtime.triton.dist_utils, is compiled as what it does: "
    "docs/language.md, \"Helion's constructs\")";

std::optional<Result> Generator::hostCodeCall(const std::string &name,
                                              SourceRange where) {
  const ast::HostCode *h = module.lookupHostCode(name);
  if (!h)
    return std::nullopt;
  diags->error(where, "'" + name +
                          "' is host code, not DSL code (dslc leaves it out "
                          "of the kernels): " +
                          h->problem);
  diags->note(h->firstProblem, "here");
  return failure();
}

Result Generator::genTritonKernel(const ast::CallExpr &e) {
  if (failed(checkKeywords(e, "hl.triton_kernel",
                           {"triton_source_or_fn", "args", "output_like"})))
    return failure();
  const ast::Expr *fnArg = argument(e, 0, "triton_source_or_fn");
  const ast::Expr *argsArg = argument(e, 1, "args");
  const ast::Expr *outArg = argument(e, 2, "output_like");
  if (!fnArg || !argsArg)
    return fail(e.getRange(), "hl.triton_kernel takes a function, args= "
                              "and output_like=");
  auto *fnName = ast::dyn_cast<ast::NameExpr>(fnArg);
  const ast::FunctionDef *fn =
      fnName ? helperNamed(fnName->getName()) : nullptr;
  bool helionSync = !fn && fnName && isHelionSymmMemSync(*fnArg);
  if (!fn && !helionSync) {
    // One mistake, however many calls name the function.
    if (fnName &&
        !reportedUnbound.insert("hl.triton_kernel " + fnName->getName()).second)
      return failure();
    if (fnName && !fn)
      if (std::optional<Result> r =
              hostCodeCall(fnName->getName(), fnArg->getRange()))
        return *r;
    std::string what =
        fnName ? "'" + fnName->getName() + "' is not a def of this file"
        : ast::isa<ast::StringLiteralExpr>(*fnArg)
            ? "Triton source in a string"
            : "a function dslc cannot see";
    return fail(fnArg->getRange(),
                "hl.triton_kernel runs Triton code, which dslc does not "
                "compile (" +
                    what + "): " + kWriteInDSL +
                    ", which hl.triton_kernel then inlines");
  }
  std::vector<HelperArg> args;
  if (auto *d = ast::dyn_cast<ast::DictExpr>(argsArg)) {
    for (size_t i = 0; i < d->getKeys().size(); ++i) {
      auto *key = d->getKeys()[i]
                      ? ast::dyn_cast<ast::StringLiteralExpr>(&*d->getKeys()[i])
                      : nullptr;
      if (!key)
        return fail(d->getRange(), "the args= of hl.triton_kernel as a dict "
                                   "maps parameter names (strings) to values");
      args.push_back({&*d->getValues()[i], key->getValue(), key->getRange()});
    }
  } else {
    const ast::ExprList *elements = nullptr;
    if (auto *t = ast::dyn_cast<ast::TupleExpr>(argsArg))
      elements = &t->getElements();
    else if (auto *l = ast::dyn_cast<ast::ListExpr>(argsArg))
      elements = &l->getElements();
    if (!elements)
      return fail(argsArg->getRange(),
                  "the args= of hl.triton_kernel is written out: a tuple of "
                  "the function's arguments, or a dict of them by name");
    for (const ast::ExprPtr &x : *elements) {
      if (ast::isa<ast::StarredExpr>(*x))
        return fail(x->getRange(), "'*' in hl.triton_kernel's args= is not "
                                   "supported: write the arguments out");
      args.push_back({&*x, "", x->getRange()});
    }
  }
  if (helionSync) {
    if (outArg && !ast::isa<ast::NoneLiteralExpr>(*outArg))
      return fail(outArg->getRange(),
                  "output_like= is given, but symm_mem_sync returns nothing");
    return genSymmMemSync(e.getRange(), args);
  }
  Result r = inlineHelper(e.getRange(), fnArg->getRange(), args, *fn);
  // A @triton.jit helper is compiled as DSL code: say so where it fails
  // (Triton's own language, tl.*, is not DSL code).
  if (failed(r) && isTritonJit(*fn))
    diags->note(fn->getNameRange(),
                "'" + fn->getName() +
                    "' is a @triton.jit function: dslc compiles its body as "
                    "DSL code (Helion's runtime triton_wait_signal is "
                    "known; Triton's tl.* is not): " +
                    kWriteInDSL);
  if (succeeded(r) && outArg && !ast::isa<ast::NoneLiteralExpr>(*outArg) &&
      r->kind == SemValue::Kind::None)
    return fail(outArg->getRange(), "output_like= is given, but '" +
                                        fn->getName() + "' returns nothing");
  return r;
}

/// Matrix multiplications GenDot.cpp does not lower (kNoMatmul says what
/// to write).
static const char *const kMatmuls[] = {
    "hl.dot_scaled", "torch.nn.functional.linear", "torch._scaled_mm"};

std::optional<Result> Generator::genForeignCall(const ast::CallExpr &e,
                                                const std::string &n) {
  if (n == "hl.triton_kernel")
    return genTritonKernel(e);
  if (std::optional<Result> r = genMatmulCall(e, n))
    return *r;
  if (llvm::is_contained(kMatmuls, n))
    return fail(e.getCallee().getRange(), n + " " + kNoMatmul);
  if (n == "torch.promote_types") {
    // The dtype of torch's promotion of two tensors' dtypes.
    if (failed(checkKeywords(e, n, {})) || e.getArgs().size() != 2)
      return fail(e.getRange(), "torch.promote_types takes two dtypes");
    FailureOr<std::string> a = dtypeValue(*e.getArgs()[0].value);
    FailureOr<std::string> b = dtypeValue(*e.getArgs()[1].value);
    if (failed(a) || failed(b))
      return Result(failure());
    SemValue v = SemValue::ofKind(SemValue::Kind::DType);
    v.text =
        typeToDType(promotedType(dtypeToType(&ctx, *a), dtypeToType(&ctx, *b)));
    return v;
  }
  if (llvm::StringRef(n).starts_with("hl."))
    if (std::optional<Result> r = genScanCall(e, n, nullptr))
      return *r;
  for (auto [name, why] : kUnsupported)
    if (n == name) {
      std::string advice = llvm::StringRef(why).starts_with("embeds")
                               ? std::string(": ") + kWriteInDSL
                               : "";
      return fail(e.getRange(), n + " " + why + advice);
    }
  return std::nullopt;
}

std::optional<Result> Generator::genHelionFunction(const ast::CallExpr &e,
                                                   const std::string &n) {
  static const std::pair<const char *, const char *> tileFunctions[] = {
      {"hl.tile_index", "index"},
      {"hl.tile_begin", "begin"},
      {"hl.tile_end", "end"},
      {"hl.tile_block_size", "block_size"},
      {"hl.tile_id", "id"}};
  for (auto [name, attr] : tileFunctions)
    if (n == name) {
      const ast::Expr *arg = argument(e, 0, "tile");
      if (!arg)
        return fail(e.getRange(), n + " takes a tile");
      Result t = genExpr(*arg);
      if (failed(t))
        return failure();
      if (t->kind != SemValue::Kind::Tile)
        return fail(arg->getRange(),
                    n + " takes a tile, got " + std::string(kindName(t->kind)));
      return genTileFact(*t, attr, e);
    }
  if (n == "hl.load" || n == "hl.store") {
    bool store = n == "hl.store";
    const ast::Expr *tensor = argument(e, 0, "tensor");
    const ast::Expr *index = argument(e, 1, "index");
    const ast::Expr *value = store ? argument(e, 2, "value") : nullptr;
    if (!tensor || !index || (store && !value))
      return fail(e.getRange(), n + (store ? " takes (tensor, index, value)"
                                           : " takes (tensor, index)"));
    Result base = genExpr(*tensor);
    if (failed(base))
      return failure();
    if (base->kind != SemValue::Kind::Ref)
      return fail(tensor->getRange(), n + " takes a tensor");
    std::vector<const ast::Expr *> idx = elementsOf(*index);
    // extra_mask: only the elements it allows are accessed (a load reads
    // zeros elsewhere), element by element (GenGather.cpp).
    std::optional<SemValue> extraMask;
    if (const ast::Expr *m = keyword(e, "extra_mask")) {
      Result mv = genExpr(*m);
      if (failed(mv))
        return failure();
      if (mv->kind != SemValue::Kind::None)
        extraMask = *mv;
    }
    const SemValue *mask = extraMask ? &*extraMask : nullptr;
    // eviction_policy= (Triton's strings): this load's cache hint.
    tile::EvictionAttr evict;
    if (const ast::Expr *p = keyword(e, "eviction_policy")) {
      if (store)
        return fail(p->getRange(), "hl.store takes no eviction_policy (a "
                                   "hint of loads)");
      if (failed(evictionPolicyArg(*p, evict)))
        return failure();
    }
    auto access = accessOfList(*base, idx, *index, /*forceGather=*/mask);
    if (failed(access))
      return failure();
    if (!store)
      return access->gather
                 ? genGatherLoad(*base, access->entries, mask, e, evict)
                 : genAccessLoad(*base, *access, e, evict);
    Result v = genExpr(*value);
    if (failed(v))
      return failure();
    if (access->gather) {
      if (failed(genScatterStore(*base, access->entries, *v, e, mask)))
        return failure();
    } else if (failed(storeAccess(*base, *access, *index, *v, e))) {
      return failure();
    }
    return SemValue::none();
  }
  if (n == "hl.arange") {
    // hl.arange(end) / hl.arange(begin, end): a constant index vector.
    std::vector<int64_t> bounds;
    for (const ast::Argument &a : e.getArgs()) {
      auto c = constIntOf(*a.value, "a bound of hl.arange");
      if (failed(c))
        return failure();
      bounds.push_back(*c);
    }
    if (bounds.empty() || bounds.size() > 2)
      return fail(e.getRange(), "hl.arange takes (end) or (begin, end)");
    int64_t begin = bounds.size() == 2 ? bounds[0] : 0, end = bounds.back();
    if (end <= begin || failed(checkTileSize({end - begin}, e.getRange())))
      return fail(e.getRange(), "hl.arange needs begin < end");
    mlir::Location l = loc(e);
    IntegerType element = indexValueType();
    auto type = RankedTensorType::get({end - begin}, element);
    SemValue t = SemValue::ofKind(SemValue::Kind::TileData);
    t.value = tile::IotaOp::create(builder, l, type);
    if (begin)
      t.value = arith::AddIOp::create(
          builder, l, t.value,
          tile::SplatOp::create(builder, l, type,
                                arith::ConstantIntOp::create(
                                    builder, l, begin, element.getWidth())));
    return t;
  }
  return std::nullopt;
}

} // namespace dslc::mlirgen

namespace dslc::mlirgen {

Result Generator::genCallableCall(const ast::CallExpr &e, const SemValue &f) {
  if (f.unboundParam)
    return fail(f.unboundParam->range,
                "function parameter '" + f.unboundParam->name +
                    "' has no default: dslc compiles a kernel from its file "
                    "alone, so a function passed at run time cannot be "
                    "compiled in; give the parameter a default (a lambda or "
                    "a def of this file), or call a def of this file in the "
                    "kernel instead");
  std::vector<HelperArg> args;
  for (const ast::Argument &a : e.getArgs())
    args.push_back({a.value.get(),
                    a.kind == ast::Argument::Kind::Keyword ? a.name : "",
                    a.range});
  if (f.function)
    return inlineHelper(e.getRange(), e.getCallee().getRange(), args,
                        *f.function);
  return callLambda(e, f, args);
}

Result Generator::callLambda(const ast::CallExpr &e, const SemValue &f,
                             const std::vector<HelperArg> &args) {
  const ast::LambdaExpr &lambda = *f.lambda;
  if (lambdaDepth >= kMaxCallDepth)
    return fail(e.getRange(), "lambda calls nest deeper than " +
                                  std::to_string(kMaxCallDepth));
  // Bind the parameters as Python does, the arguments evaluated here.
  const auto &params = lambda.getParams();
  std::map<std::string, SemValue> scope;
  size_t positional = 0;
  for (const HelperArg &a : args) {
    const ast::LambdaExpr::Param *p = nullptr;
    if (a.keyword.empty()) {
      if (positional >= params.size())
        return fail(a.range, "the lambda takes " +
                                 std::to_string(params.size()) +
                                 " argument(s) but more were given");
      p = &params[positional++];
    } else {
      auto it = llvm::find_if(params, [&](const ast::LambdaExpr::Param &q) {
        return q.name == a.keyword;
      });
      if (it == params.end())
        return fail(a.range, "the lambda has no parameter '" + a.keyword + "'");
      p = &*it;
    }
    if (scope.count(p->name))
      return fail(a.range,
                  "the lambda got multiple values for '" + p->name + "'");
    Result v = a.given ? Result(*a.given) : genExpr(*a.value);
    if (failed(v))
      return failure();
    scope[p->name] = *v;
  }
  for (const ast::LambdaExpr::Param &p : params) {
    if (scope.count(p.name))
      continue;
    if (!p.defaultValue)
      return fail(e.getRange(),
                  "the lambda is missing argument '" + p.name + "'");
    Result v = genExpr(*p.defaultValue);
    if (failed(v))
      return failure();
    scope[p.name] = *v;
  }
  // A lambda of the file's top level sees its parameters and the modules; one
  // written in the kernel sees the kernel's names too (Python's closure).
  unsigned errorsBefore = diags->getNumErrors();
  std::vector<std::map<std::string, SemValue>> callerScopes;
  if (f.isolated)
    std::swap(scopes, callerScopes);
  scopes.push_back(std::move(scope));
  ++lambdaDepth;
  Result r = genExpr(lambda.getBody());
  --lambdaDepth;
  scopes.pop_back();
  if (f.isolated)
    std::swap(scopes, callerScopes);
  if (failed(r) || diags->getNumErrors() > errorsBefore) {
    diags->note(e.getRange(),
                "in call to the lambda at line " +
                    std::to_string(lambda.getLoc().line) +
                    (f.text.empty() ? "" : " ('" + f.text + "')"));
    return failure();
  }
  return r;
}

} // namespace dslc::mlirgen
