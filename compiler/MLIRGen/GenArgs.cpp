//===- GenArgs.cpp - Call arguments and keyword helpers -------------------===//

#include "compiler/MLIRGen/Generator.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace dslc::mlirgen {

std::vector<const ast::Expr *> elementsOf(const ast::Expr &e) {
  const ast::ExprList *elements = nullptr;
  if (auto *list = ast::dyn_cast<ast::ListExpr>(&e))
    elements = &list->getElements();
  else if (auto *tuple = ast::dyn_cast<ast::TupleExpr>(&e))
    elements = &tuple->getElements();
  if (!elements)
    return {&e};
  std::vector<const ast::Expr *> result;
  for (const ast::ExprPtr &x : *elements)
    result.push_back(x.get());
  return result;
}

const ast::Expr *Generator::keyword(const ast::CallExpr &e,
                                    llvm::StringRef name) {
  for (const ast::Argument &a : e.getArgs())
    if (a.kind == ast::Argument::Kind::Keyword && a.name == name)
      return a.value.get();
  return nullptr;
}

const ast::Expr *Generator::argument(const ast::CallExpr &e, size_t position,
                                     llvm::StringRef name) {
  size_t i = 0;
  for (const ast::Argument &a : e.getArgs()) {
    if (a.kind != ast::Argument::Kind::Positional)
      continue;
    if (i++ != position)
      continue;
    // Python: "got multiple values for argument"; neither value is taken.
    if (const ast::Expr *k = keyword(e, name))
      if (reportedDoubleArguments.insert(k).second)
        (void)error(k->getRange(),
                    "argument '" + name.str() + "' is given twice: by " +
                        "position (argument " + std::to_string(position + 1) +
                        ") and by keyword");
    return a.value.get();
  }
  return keyword(e, name);
}

LogicalResult Generator::checkCallArguments(const ast::CallExpr &e) {
  for (const ast::Argument &a : e.getArgs())
    if (a.kind == ast::Argument::Kind::Star ||
        a.kind == ast::Argument::Kind::DoubleStar)
      return error(a.range,
                   std::string(a.kind == ast::Argument::Kind::Star
                                   ? "'*' (unpacked positional)"
                                   : "'**' (unpacked keyword)") +
                       " arguments are not supported: dslc binds every "
                       "argument at compile time; write them out");
  return success();
}

LogicalResult
Generator::checkKeywords(const ast::CallExpr &e, llvm::StringRef fn,
                         llvm::ArrayRef<llvm::StringRef> allowed) {
  for (const ast::Argument &a : e.getArgs())
    if (a.kind == ast::Argument::Kind::Keyword &&
        !llvm::is_contained(allowed, a.name))
      return error(a.range, fn.str() + " has no argument '" + a.name + "'");
  return success();
}

FailureOr<std::optional<int64_t>>
Generator::constIntArgument(const ast::CallExpr &e, const char *key,
                            std::optional<int64_t> dflt, size_t position) {
  const ast::Expr *x = argument(e, position, key);
  if (!x)
    return dflt;
  Result v = genExpr(*x);
  if (failed(v))
    return failure();
  if (v->kind == SemValue::Kind::None)
    return std::optional<int64_t>();
  auto c = toConstInt(*v, *x, std::string("'") + key + "'");
  if (failed(c))
    return failure();
  if (*c < INT32_MIN || *c > UINT32_MAX)
    return error(x->getRange(),
                 std::string("'") + key + "' must fit in 32 bits");
  return std::optional<int64_t>(*c);
}

FailureOr<std::string> Generator::stringKeyword(const ast::CallExpr &e,
                                                const char *key,
                                                const std::string &dflt) {
  const ast::Expr *x = keyword(e, key);
  if (!x)
    return dflt;
  Result v = genExpr(*x);
  if (failed(v))
    return failure();
  if (v->kind != SemValue::Kind::String)
    return error(x->getRange(), std::string("'") + key + "' must be a string");
  return v->text;
}

FailureOr<bool> Generator::boolKeyword(const ast::CallExpr &e, const char *key,
                                       bool dflt) {
  return boolValue(keyword(e, key), key, dflt);
}

FailureOr<bool> Generator::boolArgument(const ast::CallExpr &e, size_t position,
                                        const char *key, bool dflt) {
  return boolValue(argument(e, position, key), key, dflt);
}

FailureOr<bool> Generator::boolValue(const ast::Expr *x, const char *key,
                                     bool dflt) {
  if (!x)
    return dflt;
  Result v = genExpr(*x);
  if (failed(v))
    return failure();
  if (v->kind != SemValue::Kind::Int)
    return error(x->getRange(),
                 std::string("'") + key + "' must be True or False");
  return v->intValue != 0;
}

FailureOr<std::string> Generator::dtypeValue(const ast::Expr &e) {
  Result v = genExpr(e);
  if (failed(v))
    return failure();
  if (v->kind == SemValue::Kind::DType)
    return v->text;
  if (v->kind == SemValue::Kind::Module &&
      llvm::StringRef(v->text).starts_with("torch."))
    return error(e.getRange(), "unknown dtype '" + v->text +
                                   "' (torch.bfloat16, torch.float16, "
                                   "torch.float32, torch.int32, "
                                   "torch.float8_e4m3fn, ...)");
  return error(e.getRange(), std::string("expected a dtype (torch.float32, "
                                         "x.dtype, ...), got ") +
                                 kindName(v->kind));
}

FailureOr<std::string> Generator::dtypeArgument(const ast::CallExpr &e,
                                                size_t position,
                                                const std::string &dflt) {
  const ast::Expr *x = argument(e, position, "dtype");
  if (!x)
    return dflt;
  return dtypeValue(*x);
}

} // namespace dslc::mlirgen
