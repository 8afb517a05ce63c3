//===- AST.cpp - Syntax tree of a tile program ----------------------------===//

#include "compiler/Frontend/AST.h"

namespace dslc {
namespace ast {

const char *getUnaryOpSpelling(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg:
    return "-";
  case UnaryOp::Pos:
    return "+";
  case UnaryOp::Invert:
    return "~";
  case UnaryOp::Not:
    return "not";
  }
  return "?";
}

const char *getBinaryOpSpelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::FloorDiv:
    return "//";
  case BinaryOp::Mod:
    return "%";
  case BinaryOp::MatMul:
    return "@";
  case BinaryOp::Pow:
    return "**";
  case BinaryOp::LShift:
    return "<<";
  case BinaryOp::RShift:
    return ">>";
  case BinaryOp::BitAnd:
    return "&";
  case BinaryOp::BitOr:
    return "|";
  case BinaryOp::BitXor:
    return "^";
  case BinaryOp::And:
    return "and";
  case BinaryOp::Or:
    return "or";
  }
  return "?";
}

const char *getCompareOpSpelling(CompareOp op) {
  switch (op) {
  case CompareOp::Eq:
    return "==";
  case CompareOp::NotEq:
    return "!=";
  case CompareOp::Lt:
    return "<";
  case CompareOp::LtE:
    return "<=";
  case CompareOp::Gt:
    return ">";
  case CompareOp::GtE:
    return ">=";
  case CompareOp::Is:
    return "is";
  case CompareOp::IsNot:
    return "is not";
  case CompareOp::In:
    return "in";
  case CompareOp::NotIn:
    return "not in";
  }
  return "?";
}

static unsigned argsHeight(const ExprPtr &callee,
                           const std::vector<Argument> &args) {
  unsigned h = callee ? callee->getHeight() : 0;
  for (const Argument &a : args)
    if (a.value)
      h = std::max(h, a.value->getHeight());
  return h + 1;
}

CallExpr::CallExpr(SourceRange range, ExprPtr callee,
                   std::vector<Argument> args)
    : Expr(Kind::Call, range, argsHeight(callee, args)),
      callee(std::move(callee)), args(std::move(args)) {}

const Expr *CallExpr::getKeyword(const std::string &name) const {
  for (const Argument &a : args)
    if (a.kind == Argument::Kind::Keyword && a.name == name)
      return a.value.get();
  return nullptr;
}

const Expr *CallExpr::getPositional(size_t index) const {
  for (const Argument &a : args)
    if (a.kind == Argument::Kind::Positional && index-- == 0)
      return a.value.get();
  return nullptr;
}

size_t CallExpr::getNumPositional() const {
  size_t n = 0;
  for (const Argument &a : args)
    n += a.kind == Argument::Kind::Positional;
  return n;
}

std::optional<std::string> getDottedName(const Expr &expr) {
  if (auto *name = dyn_cast<NameExpr>(&expr))
    return name->getName();
  if (auto *attr = dyn_cast<AttributeExpr>(&expr)) {
    std::optional<std::string> base = getDottedName(attr->getBase());
    if (!base)
      return std::nullopt;
    return *base + "." + attr->getName();
  }
  return std::nullopt;
}

void walkExprs(const Expr &e, const std::function<void(const Expr &)> &fn) {
  fn(e);
  auto sub = [&](const Expr *x) {
    if (x)
      walkExprs(*x, fn);
  };
  switch (e.getKind()) {
  case Expr::Kind::Unary:
    sub(&cast<UnaryExpr>(e).getOperand());
    break;
  case Expr::Kind::Binary:
    sub(&cast<BinaryExpr>(e).getLHS());
    sub(&cast<BinaryExpr>(e).getRHS());
    break;
  case Expr::Kind::Compare:
    for (const ExprPtr &x : cast<CompareExpr>(e).getOperands())
      sub(x.get());
    break;
  case Expr::Kind::IfElse:
    sub(&cast<IfElseExpr>(e).getCond());
    sub(&cast<IfElseExpr>(e).getThen());
    sub(&cast<IfElseExpr>(e).getElse());
    break;
  case Expr::Kind::Call:
    sub(&cast<CallExpr>(e).getCallee());
    for (const Argument &a : cast<CallExpr>(e).getArgs())
      sub(a.value.get());
    break;
  case Expr::Kind::Attribute:
    sub(&cast<AttributeExpr>(e).getBase());
    break;
  case Expr::Kind::Subscript:
    sub(&cast<SubscriptExpr>(e).getBase());
    sub(&cast<SubscriptExpr>(e).getIndex());
    break;
  case Expr::Kind::Slice:
    sub(cast<SliceExpr>(e).getLower());
    sub(cast<SliceExpr>(e).getUpper());
    sub(cast<SliceExpr>(e).getStep());
    break;
  case Expr::Kind::Tuple:
    for (const ExprPtr &x : cast<TupleExpr>(e).getElements())
      sub(x.get());
    break;
  case Expr::Kind::List:
    for (const ExprPtr &x : cast<ListExpr>(e).getElements())
      sub(x.get());
    break;
  case Expr::Kind::Dict:
    for (const ExprPtr &x : cast<DictExpr>(e).getKeys())
      sub(x.get());
    for (const ExprPtr &x : cast<DictExpr>(e).getValues())
      sub(x.get());
    break;
  case Expr::Kind::Starred:
    sub(&cast<StarredExpr>(e).getValue());
    break;
  case Expr::Kind::Lambda:
    for (const LambdaExpr::Param &p : cast<LambdaExpr>(e).getParams())
      sub(p.defaultValue.get());
    sub(&cast<LambdaExpr>(e).getBody());
    break;
  default:
    break;
  }
}

void walkExprs(const StmtList &body,
               const std::function<void(const Expr &)> &fn) {
  for (const StmtPtr &s : body) {
    auto sub = [&](const Expr *x) {
      if (x)
        walkExprs(*x, fn);
    };
    if (auto *x = dyn_cast<ExprStmt>(s.get())) {
      sub(&x->getExpr());
    } else if (auto *a = dyn_cast<AssignStmt>(s.get())) {
      for (const ExprPtr &t : a->getTargets())
        sub(t.get());
      sub(&a->getValue());
    } else if (auto *a = dyn_cast<AugAssignStmt>(s.get())) {
      sub(&a->getTarget());
      sub(&a->getValue());
    } else if (auto *a = dyn_cast<AnnAssignStmt>(s.get())) {
      sub(&a->getTarget());
      sub(a->getValue());
    } else if (auto *f = dyn_cast<ForStmt>(s.get())) {
      sub(&f->getTarget());
      sub(&f->getIter());
      walkExprs(f->getBody(), fn);
      walkExprs(f->getElse(), fn);
    } else if (auto *w = dyn_cast<WhileStmt>(s.get())) {
      sub(&w->getCond());
      walkExprs(w->getBody(), fn);
      walkExprs(w->getElse(), fn);
    } else if (auto *i = dyn_cast<IfStmt>(s.get())) {
      sub(&i->getCond());
      walkExprs(i->getThen(), fn);
      walkExprs(i->getElse(), fn);
    } else if (auto *r = dyn_cast<ReturnStmt>(s.get())) {
      sub(r->getValue());
    } else if (auto *a = dyn_cast<AssertStmt>(s.get())) {
      sub(&a->getTest());
      sub(a->getMessage());
    }
  }
}

std::string ImportAlias::getBoundName(bool fromImport) const {
  if (!asName.empty())
    return asName;
  if (fromImport)
    return name;
  return name.substr(0, name.find('.'));
}

bool FunctionDef::isKernelDecoratorName(const std::string &dottedName) {
  return dottedName == "helion.kernel" || dottedName == "helion.jit" ||
         dottedName == "dslc.kernel" || dottedName == "dslc.jit";
}

const Decorator *FunctionDef::getKernelDecorator() const {
  for (const Decorator &d : decorators) {
    const Expr *e = d.expr.get();
    if (!e)
      continue;
    if (auto *call = dyn_cast<CallExpr>(e))
      e = &call->getCallee();
    std::optional<std::string> dotted = getDottedName(*e);
    if (dotted && isKernelDecoratorName(*dotted))
      return &d;
  }
  return nullptr;
}

const Expr *FunctionDef::getDecoratorKeyword(const std::string &name) const {
  const Decorator *d = getKernelDecorator();
  if (!d)
    return nullptr;
  if (auto *call = dyn_cast<CallExpr>(d->expr.get()))
    return call->getKeyword(name);
  return nullptr;
}

std::vector<const FunctionDef *> Module::getFunctions() const {
  std::vector<const FunctionDef *> result;
  for (const StmtPtr &s : body)
    if (auto *fn = dyn_cast<FunctionDef>(s.get()))
      result.push_back(fn);
  return result;
}

std::vector<const FunctionDef *> Module::getKernels() const {
  std::vector<const FunctionDef *> result;
  for (const FunctionDef *fn : getFunctions())
    if (fn->isKernel())
      result.push_back(fn);
  return result;
}

const FunctionDef *Module::lookupFunction(const std::string &name) const {
  for (const FunctionDef *fn : getFunctions())
    if (fn->getName() == name)
      return fn;
  return nullptr;
}

const HostCode *Module::lookupHostCode(const std::string &name) const {
  for (const HostCode &h : hostCode)
    if (!h.name.empty() && h.name == name)
      return &h;
  return nullptr;
}

} // namespace ast
} // namespace dslc
