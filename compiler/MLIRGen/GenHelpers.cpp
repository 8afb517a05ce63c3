//===- GenHelpers.cpp - Plain functions called from a kernel ----------------===//
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

using namespace mlir;

namespace dslc::mlirgen {

const ast::FunctionDef *Generator::helperNamed(const std::string &name) {
  if (lookup(name))
    return nullptr; // a local name shadows the module's
  for (const ast::StmtPtr &s : module.getBody())
    if (auto *f = ast::dyn_cast<ast::FunctionDef>(s.get()))
      if (f->getName() == name)
        return f;
  return nullptr;
}

LogicalResult
Generator::bindHelperArguments(const ast::CallExpr &e,
                               const ast::FunctionDef &fn,
                               std::map<std::string, SemValue> &scope) {
  const std::string &name = fn.getName();
  const std::vector<ast::Param> &params = fn.getParams();
  for (const ast::Param &p : params)
    if (p.kind != ast::Param::Kind::Normal)
      return error(p.range, "helper '" + name + "' takes *args or "
                            "**kwargs, which dslc does not inline");
  size_t positional = 0;
  for (const ast::Argument &a : e.getArgs()) {
    if (a.kind == ast::Argument::Kind::Star ||
        a.kind == ast::Argument::Kind::DoubleStar)
      return error(a.range, "*args and **kwargs in a call are not supported");
    const ast::Param *p = nullptr;
    if (a.kind == ast::Argument::Kind::Positional) {
      if (positional >= params.size() || params[positional].keywordOnly)
        return error(a.range, name + "() takes " +
                                  std::to_string(params.size()) +
                                  " positional argument(s) but more were "
                                  "given");
      p = &params[positional++];
    } else {
      auto it = llvm::find_if(params, [&](const ast::Param &q) {
        return q.name == a.name;
      });
      if (it == params.end() || it->positionalOnly)
        return error(a.range, name + "() got an unexpected keyword argument "
                                     "'" + a.name + "'");
      p = &*it;
    }
    if (scope.count(p->name))
      return error(a.range, name + "() got multiple values for argument '" +
                                p->name + "'");
    Result v = genExpr(*a.value);
    if (failed(v))
      return failure();
    scope[p->name] = *v;
  }
  for (const ast::Param &p : params) {
    if (scope.count(p.name))
      continue;
    if (!p.defaultValue)
      return error(e.getRange(), name + "() is missing argument '" + p.name +
                                     "'");
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
  const std::string &name = fn.getName();
  if (fn.isKernel())
    return fail(e.getCallee().getRange(),
                "'" + name + "' is a kernel; a kernel calls plain functions "
                "(a def without the decorator), which dslc inlines");
  for (const CallFrame &f : calls)
    if (f.fn == &fn)
      return fail(e.getRange(), "recursive call to '" + name +
                                    "': helpers are inlined into the kernel, "
                                    "so they cannot call themselves");
  if (calls.size() >= kMaxCallDepth)
    return fail(e.getRange(), "helper calls nest deeper than " +
                                  std::to_string(kMaxCallDepth));
  std::map<std::string, SemValue> scope;
  unsigned errorsBefore = diags->getNumErrors();
  LogicalResult bound = bindHelperArguments(e, fn, scope);
  if (failed(bound))
    return failure();
  // The helper sees its parameters (and the modules), not the caller's
  // names: a scope stack of its own.
  std::vector<std::map<std::string, SemValue>> callerScopes;
  std::swap(scopes, callerScopes);
  scopes.push_back(std::move(scope));
  calls.push_back({&fn, e.getRange(), std::nullopt, false, loopDepth});
  LogicalResult body = genBlock(fn.getBody());
  CallFrame frame = calls.back();
  calls.pop_back();
  std::swap(scopes, callerScopes);
  if (failed(body) || diags->getNumErrors() > errorsBefore) {
    diags->note(e.getRange(), "in call to '" + name + "'");
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

/// Calls of Triton and inline code Helion has and dslc does not.
static const char *const kForeignCalls[] = {
    "hl.triton_kernel", "hl.inline_triton", "hl.inline_asm_elementwise"};

std::optional<Result> Generator::genForeignCall(const ast::CallExpr &e,
                                                const std::string &n) {
  if (!llvm::is_contained(kForeignCalls, n))
    return std::nullopt;
  return fail(e.getRange(),
              n + " embeds Triton code, which dslc does not compile: write "
                  "it in the DSL as a plain def in this file (it is inlined; "
                  "a sync such as symm_mem_sync is hl.signal to every peer "
                  "and hl.wait on the local pad, see docs/language.md)");
}

} // namespace dslc::mlirgen
