//===- GenParams.cpp - Helion's parameter kinds ---------------------------===//
//
// What a kernel parameter's annotation makes it, beyond tensors and `int` /
// `float` scalars (GenSignature.cpp): Helion specializes a kernel on its
// `str`, `bool` and list arguments, so dslc compiles them in like
// hl.constexpr (-D NAME=VALUE, or the default); a `Callable` parameter (an
// epilogue with a lambda default) is the function it defaults to, inlined
// where it is called; a `torch.Tensor | None` parameter is None unless
// --signature types it.
//
//===----------------------------------------------------------------------===//

#include "compiler/MLIRGen/Generator.h"

using namespace mlir;

namespace dslc::mlirgen {

/// Whether `name` (a dotted annotation) is the base of a callable type.
static bool isCallableName(llvm::StringRef name) {
  return name == "Callable" || name == "typing.Callable" ||
         name == "collections.abc.Callable" || name == "callable";
}

/// Whether `a` is `X | None`, `None | X` or `Optional[X]`; `inner` is X.
static bool isOptional(const ast::Expr &a, const ast::Expr *&inner) {
  if (auto *b = ast::dyn_cast<ast::BinaryExpr>(&a))
    if (b->getOp() == ast::BinaryOp::BitOr) {
      if (ast::isa<ast::NoneLiteralExpr>(b->getRHS())) {
        inner = &b->getLHS();
        return true;
      }
      if (ast::isa<ast::NoneLiteralExpr>(b->getLHS())) {
        inner = &b->getRHS();
        return true;
      }
    }
  if (auto *sub = ast::dyn_cast<ast::SubscriptExpr>(&a)) {
    auto base = ast::getDottedName(sub->getBase());
    if (base && (*base == "Optional" || *base == "typing.Optional")) {
      inner = &sub->getIndex();
      return true;
    }
  }
  return false;
}

/// Whether `a` names a tensor type (torch.Tensor, Tensor, with or without
/// [DTYPE, RANK]).
static bool isTensorAnnotation(const ast::Expr &a) {
  const ast::Expr *base = &a;
  if (auto *sub = ast::dyn_cast<ast::SubscriptExpr>(&a))
    base = &sub->getBase();
  auto name = ast::getDottedName(*base);
  return name && (*name == "torch.Tensor" || *name == "Tensor");
}

const ast::Expr &GeneratorState::unwrapOptional(const ast::Expr &a) {
  const ast::Expr *inner = nullptr;
  return isOptional(a, inner) ? *inner : a;
}

/// Whether `body` calls hl.specialize(NAME) on the parameter `name`.
static bool specializedInBody(const ast::StmtList &body,
                              const std::string &name) {
  bool found = false;
  ast::walkExprs(body, [&](const ast::Expr &e) {
    auto *call = ast::dyn_cast<ast::CallExpr>(&e);
    if (!call || call->getArgs().size() != 1)
      return;
    auto callee = ast::getDottedName(call->getCallee());
    auto *arg = ast::dyn_cast<ast::NameExpr>(call->getArgs()[0].value.get());
    if (callee &&
        (*callee == "hl.specialize" ||
         *callee == "helion.language.specialize") &&
        arg && arg->getName() == name)
      found = true;
  });
  return found;
}

Generator::ParamCategory Generator::paramCategory(const ast::Param &p) {
  if (p.defaultValue && ast::isa<ast::LambdaExpr>(*p.defaultValue))
    return ParamCategory::Callable;
  // An int that the kernel specializes on (hl.specialize(chunk_size)): a
  // compile-time value, as Helion recompiles per value.
  std::optional<std::string> annot =
      p.annotation ? ast::getDottedName(*p.annotation) : std::nullopt;
  if ((!annot || *annot == "int") && !options.signature.count(p.name) &&
      specializedInBody(kernel.getBody(), p.name))
    return ParamCategory::Constexpr;
  if (!p.annotation)
    return ParamCategory::Value;
  const ast::Expr &a = *p.annotation;
  const ast::Expr *inner = nullptr;
  if (isOptional(a, inner))
    return isTensorAnnotation(*inner) ? ParamCategory::OptionalTensor
                                      : ParamCategory::Constexpr;
  const ast::Expr *base = &a;
  if (auto *sub = ast::dyn_cast<ast::SubscriptExpr>(&a))
    base = &sub->getBase();
  std::optional<std::string> name = ast::getDottedName(*base);
  if (!name)
    return ParamCategory::Value;
  if (isCallableName(*name))
    return ParamCategory::Callable;
  // Helion specializes on these: compile-time values in dslc.
  if (*name == "str" || *name == "bool" || *name == "list" || *name == "List" ||
      *name == "typing.List" || *name == "Sequence" ||
      *name == "typing.Sequence" || *name == "collections.abc.Sequence")
    return ParamCategory::Constexpr;
  // tuple[int, ...] (not the peers' tuple[torch.Tensor, ...]).
  if ((*name == "tuple" || *name == "Tuple" || *name == "typing.Tuple") &&
      base != &a) {
    std::vector<const ast::Expr *> elements =
        elementsOf(ast::cast<ast::SubscriptExpr>(a).getIndex());
    if (!elements.empty() && !isTensorAnnotation(*elements[0]))
      return ParamCategory::Constexpr;
  }
  return ParamCategory::Value;
}

FailureOr<SemValue> Generator::callableParam(const ast::Param &p) {
  if (options.defines.count(p.name))
    return error(p.range, "-D " + p.name + ": '" + p.name +
                              "' is a function parameter; dslc compiles the "
                              "function its default gives");
  if (!p.defaultValue) {
    // An error where the kernel calls it (genCallableCall).
    SemValue v = SemValue::ofKind(SemValue::Kind::Callable);
    v.unboundParam = &p;
    v.text = p.name;
    return v;
  }
  if (auto *lambda = ast::dyn_cast<ast::LambdaExpr>(p.defaultValue.get())) {
    SemValue v = SemValue::ofKind(SemValue::Kind::Callable);
    v.lambda = lambda;
    v.isolated = true; // defined at the top of the file
    v.text = p.name;
    return v;
  }
  if (auto *name = ast::dyn_cast<ast::NameExpr>(p.defaultValue.get()))
    if (const ast::FunctionDef *fn = helperNamed(name->getName())) {
      SemValue v = SemValue::ofKind(SemValue::Kind::Callable);
      v.function = fn;
      v.text = p.name;
      return v;
    }
  return error(p.defaultValue->getRange(),
               "the default of function parameter '" + p.name +
                   "' must be a lambda or a def of this file");
}

FailureOr<SemValue> Generator::optionalTensorParam(const ast::Param &p) {
  auto def = options.defines.find(p.name);
  if (def != options.defines.end()) {
    usedDefines.insert(p.name);
    if (llvm::StringRef(def->second).trim() != "None")
      return error(p.range, "-D " + p.name + "=" + def->second + ": '" +
                                p.name +
                                "' is a tensor or None: give None, or type "
                                "the tensor with --signature " +
                                p.name + "=DTYPE[RANK]");
    return SemValue::none();
  }
  if (!p.defaultValue || !ast::isa<ast::NoneLiteralExpr>(*p.defaultValue))
    diags->warning(p.range, "'" + p.name +
                                "' is compiled as None: no --signature "
                                "types it (pass --signature " +
                                p.name + "=DTYPE[RANK] for a tensor)");
  return SemValue::none();
}

} // namespace dslc::mlirgen
