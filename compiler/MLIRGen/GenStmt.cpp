//===- GenStmt.cpp - Statements -------------------------------------------===//

#include "compiler/Limits.h"
#include "compiler/MLIRGen/Generator.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <algorithm>

using namespace mlir;

namespace dslc::mlirgen {

/// Adds the names a target binds.
static void assignedTargets(const ast::Expr &t, std::set<std::string> &names) {
  if (auto *n = ast::dyn_cast<ast::NameExpr>(&t))
    names.insert(n->getName());
  else if (auto *tu = ast::dyn_cast<ast::TupleExpr>(&t))
    for (const ast::ExprPtr &e : tu->getElements())
      assignedTargets(*e, names);
  else if (auto *li = ast::dyn_cast<ast::ListExpr>(&t))
    for (const ast::ExprPtr &e : li->getElements())
      assignedTargets(*e, names);
}
void assignedNames(const ast::Stmt &s, std::set<std::string> &names) {
  if (auto *a = ast::dyn_cast<ast::AssignStmt>(&s))
    for (const ast::ExprPtr &t : a->getTargets())
      assignedTargets(*t, names);
  else if (auto *a = ast::dyn_cast<ast::AugAssignStmt>(&s))
    assignedTargets(a->getTarget(), names);
  else if (auto *a = ast::dyn_cast<ast::AnnAssignStmt>(&s))
    assignedTargets(a->getTarget(), names);
  else if (auto *f = ast::dyn_cast<ast::ForStmt>(&s)) {
    assignedTargets(f->getTarget(), names);
    assignedNames(f->getBody(), names);
  } else if (auto *i = ast::dyn_cast<ast::IfStmt>(&s)) {
    assignedNames(i->getThen(), names);
    assignedNames(i->getElse(), names);
  }
}
void assignedNames(const ast::StmtList &body, std::set<std::string> &names) {
  for (const ast::StmtPtr &s : body)
    assignedNames(*s, names);
}

void Generator::poisonAssigned(const ast::Stmt &s) {
  std::set<std::string> names;
  if (ast::isa<ast::ForStmt>(&s) || ast::isa<ast::IfStmt>(&s))
    assignedNames(s, names);
  for (const std::string &name : names)
    if (!lookup(name))
      bind(name, SemValue::ofKind(SemValue::Kind::Poison));
}

LogicalResult Generator::genBlock(const ast::StmtList &body) {
  bool ok = true;
  for (const ast::StmtPtr &s : body) {
    if (diags->limitReached())
      return failure();
    if (!calls.empty() && calls.back().returned)
      return success(ok); // the rest of the helper is not executed
    if (returned)
      return success(ok); // not executed, as in Python
    // Fatal bounds: past them, unrolling would go on for minutes.
    if (++work.statements > kMaxGeneratedStatements) {
      if (!workReported)
        (void)error(s->getRange(),
                    "the kernel unrolls to more than " +
                        std::to_string(kMaxGeneratedStatements) +
                        " statements here (loops over constant ranges and "
                        "over peers are unrolled, and nested ones "
                        "multiply): make the loop a run-time one or "
                        "shorten it");
      workReported = true;
      return failure();
    }
    if (failed(genStmt(*s))) {
      ok = false;
      poisonAssigned(*s);
    }
    if (work.total > kMaxPerThreadWork) {
      if (!workReported)
        (void)error(s->getRange(),
                    "the kernel's per-thread work passes " +
                        std::to_string(kMaxPerThreadWork) +
                        " tile elements per thread here (each tile "
                        "operation counts its elements / threads; unrolled "
                        "loops over peers and constant ranges count every "
                        "copy): use more warps, a smaller block or fewer "
                        "ranks");
      workReported = true;
      return failure();
    }
  }
  return success(ok);
}

void WorkCounter::notifyOperationInserted(Operation *op,
                                          OpBuilder::InsertPoint) {
  auto perThread = [&](Type t) -> int64_t {
    auto tile = dyn_cast<RankedTensorType>(t);
    if (!tile || !tile.hasStaticShape())
      return 0;
    int64_t n = tile.getNumElements();
    if (tile.getRank() >= 1)
      if (auto it = rolled.find(tile.getShape().back()); it != rolled.end())
        n = n / it->first * it->second;
    return std::max<int64_t>(1, n / threads);
  };
  int64_t work = 0;
  for (Type t : op->getResultTypes())
    work += perThread(t);
  // An operation that makes no tile (a store, an LL put) works on the
  // widest tile it consumes.
  if (!work)
    for (Value v : op->getOperands())
      work = std::max(work, perThread(v.getType()));
  if (isa<comm::LLPutOp, comm::LLGetOp>(op))
    work *= std::clamp<int64_t>(work / kLLWorkStep, 1, kLLWorkWeight);
  total += work;
}

LogicalResult Generator::genStmt(const ast::Stmt &s) {
  // The grid loop is the kernel's body: after it only `return` (and pass or
  // a docstring) may follow; a CTA-less statement or a second grid has no
  // meaning on the GPU.
  // After the grid loop: host code (Helion runs it as PyTorch on the
  // kernel's outputs). Device work there (a second loop, hl.*) would need
  // a second grid.
  auto *call =
      ast::isa<ast::ExprStmt>(s)
          ? ast::dyn_cast<ast::CallExpr>(&ast::cast<ast::ExprStmt>(s).getExpr())
          : nullptr;
  bool barrier = call && ast::getDottedName(call->getCallee()) == "hl.barrier";
  if (barrier && !gridLoop && !inGrid && calls.empty())
    return error(s.getRange(), "hl.barrier before the first top-level loop "
                               "orders nothing: it goes between two "
                               "top-level hl.tile loops");
  if (gridLoop && !inGrid && calls.empty() && isDeviceCode(s)) {
    // Helion's several top-level loops in one launch: each CTA strides over
    // each loop's tiles in turn; hl.barrier() between two orders them.
    if (isTopLevelTileLoop(s))
      return genFor(ast::cast<ast::ForStmt>(s));
    if (barrier)
      return genGridBarrier(*call);
    (void)error(s.getRange(),
                "a statement after the grid loop: the kernel's work is its "
                "top-level hl.tile/hl.grid loops, and between them only "
                "hl.barrier() and after them only host code (PyTorch on its "
                "outputs) and 'return' may come (write a second kernel for "
                "other device work)");
    diags->note(gridLoop->getRange(), "the grid loop");
    return failure();
  }
  if (auto *e = ast::dyn_cast<ast::ExprStmt>(&s)) {
    // Docstrings and other bare strings are comments.
    if (ast::isa<ast::StringLiteralExpr>(e->getExpr()))
      return success();
    return success(succeeded(genExpr(e->getExpr())));
  }
  if (auto *a = ast::dyn_cast<ast::AssignStmt>(&s)) {
    // `y = torch.empty_like(x)`: the output the call makes is named y.
    outputNameHint.clear();
    if (a->getTargets().size() == 1)
      if (auto *n = ast::dyn_cast<ast::NameExpr>(a->getTargets()[0].get()))
        outputNameHint = n->getName();
    Result v = genExpr(a->getValue());
    outputNameHint.clear();
    for (const ast::ExprPtr &t : a->getTargets())
      if (failed(v) || failed(genAssign(*t, *v, a->getRange()))) {
        for (const ast::ExprPtr &target : a->getTargets())
          poisonTargets(*target);
        return failure();
      }
    return success();
  }
  if (auto *a = ast::dyn_cast<ast::AnnAssignStmt>(&s)) {
    if (!a->getValue())
      return success();
    Result v = genExpr(*a->getValue());
    if (failed(v) || failed(genAssign(a->getTarget(), *v, a->getRange()))) {
      poisonTargets(a->getTarget());
      return failure();
    }
    return success();
  }
  if (auto *a = ast::dyn_cast<ast::AugAssignStmt>(&s)) {
    Result lhs = genExpr(a->getTarget());
    Result rhs = succeeded(lhs) ? genExpr(a->getValue()) : Result(failure());
    Result v = succeeded(rhs) ? binaryOp(a->getOp(), *lhs, *rhs, a->getValue())
                              : Result(failure());
    if (failed(v) || failed(genAssign(a->getTarget(), *v, a->getRange()))) {
      poisonTargets(a->getTarget());
      return failure();
    }
    return success();
  }
  if (auto *f = ast::dyn_cast<ast::ForStmt>(&s))
    return genFor(*f);
  if (auto *i = ast::dyn_cast<ast::IfStmt>(&s))
    return genIf(*i);
  if (auto *r = ast::dyn_cast<ast::ReturnStmt>(&s))
    return genReturn(*r);
  if (ast::isa<ast::PassStmt>(s) || ast::isa<ast::ImportStmt>(s) ||
      ast::isa<ast::ImportFromStmt>(s))
    return success();
  if (auto *a = ast::dyn_cast<ast::AssertStmt>(&s)) {
    if (std::optional<LogicalResult> checked =
            genSizeAssert(a->getTest(), a->getRange()))
      return *checked;
    Result t = genExpr(a->getTest());
    if (failed(t))
      return failure();
    // A condition on sizes --shape gives: those sizes are compiled in
    // (launch checks) and the assert decided now, as Helion's host does.
    if (t->kind == SemValue::Kind::Scalar &&
        (t->known || !t->sizesRead.empty())) {
      FailureOr<int64_t> v =
          toConstInt(*t, a->getTest(), "the condition of an assert on sizes");
      if (failed(v))
        return failure();
      t = SemValue::integer(*v);
    }
    if (t->kind == SemValue::Kind::Tuple || t->kind == SemValue::Kind::String)
      t = SemValue::integer(t->kind == SemValue::Kind::Tuple
                                ? !t->elements.empty()
                                : !t->text.empty()); // Python's truth
    if (t->kind == SemValue::Kind::Int) {
      if (!t->intValue)
        return error(a->getRange(), "assertion is false at compile time");
      return success();
    }
    return error(a->getTest().getRange(),
                 "'assert' needs a compile-time condition");
  }
  if (ast::isa<ast::WhileStmt>(s))
    return error(s.getRange(), "'while' loops are not supported in kernels; "
                               "use hl.tile, hl.grid or range");
  if (ast::isa<ast::BreakStmt>(s) || ast::isa<ast::ContinueStmt>(s))
    return error(s.getRange(),
                 "'break' and 'continue' are not supported in kernels: a "
                 "loop runs all its iterations (select values with "
                 "torch.where, or loop over a computed range)");
  if (ast::isa<ast::FunctionDef>(s))
    return error(s.getRange(), "nested functions are not supported: define "
                               "the helper at the top level of the file");
  return error(s.getRange(), "this statement is not supported in a kernel");
}

bool GeneratorState::isTopLevelTileLoop(const ast::Stmt &s) {
  auto *loop = ast::dyn_cast<ast::ForStmt>(&s);
  auto *call = loop ? ast::dyn_cast<ast::CallExpr>(&loop->getIter()) : nullptr;
  std::optional<std::string> callee =
      call ? ast::getDottedName(call->getCallee()) : std::nullopt;
  return callee && (*callee == "hl.tile" || *callee == "hl.grid" ||
                    *callee == "helion.language.tile" ||
                    *callee == "helion.language.grid");
}

bool GeneratorState::isDeviceCode(const ast::Stmt &s) {
  if (ast::isa<ast::ForStmt>(s) || ast::isa<ast::WhileStmt>(s))
    return true;
  bool device = false;
  ast::StmtList one;
  auto visit = [&](const ast::Expr &e) {
    auto *call = ast::dyn_cast<ast::CallExpr>(&e);
    std::optional<std::string> callee =
        call ? ast::getDottedName(call->getCallee()) : std::nullopt;
    if (callee && (llvm::StringRef(*callee).starts_with("hl.") ||
                   llvm::StringRef(*callee).starts_with("helion.language.")))
      device = true;
  };
  if (auto *i = ast::dyn_cast<ast::IfStmt>(&s)) {
    ast::walkExprs(i->getCond(), visit);
    for (const ast::StmtList *b : {&i->getThen(), &i->getElse()})
      for (const ast::StmtPtr &x : *b)
        device |= isDeviceCode(*x);
    return device;
  }
  if (auto *x = ast::dyn_cast<ast::ExprStmt>(&s))
    ast::walkExprs(x->getExpr(), visit);
  else if (auto *a = ast::dyn_cast<ast::AssignStmt>(&s))
    ast::walkExprs(a->getValue(), visit);
  else if (auto *a = ast::dyn_cast<ast::AugAssignStmt>(&s))
    ast::walkExprs(a->getValue(), visit);
  return device;
}

std::optional<LogicalResult> Generator::genSizeAssert(const ast::Expr &test,
                                                      SourceRange where) {
  // `assert a and b`: each part.
  if (auto *both = ast::dyn_cast<ast::BinaryExpr>(&test))
    if (both->getOp() == ast::BinaryOp::And) {
      std::optional<LogicalResult> l = genSizeAssert(both->getLHS(), where);
      std::optional<LogicalResult> r = genSizeAssert(both->getRHS(), where);
      if (!l || !r)
        return std::nullopt;
      return success(succeeded(*l) && succeeded(*r));
    }
  // `assert x.size(0) == n` with a compile-time n: checked at launch.
  auto *cmp = ast::dyn_cast<ast::CompareExpr>(&test);
  if (!cmp || cmp->getOps().size() != 1)
    return std::nullopt;
  if (cmp->getOps()[0] != ast::CompareOp::Eq)
    return sizesAssertedOrdered(*cmp, where);
  Result l = genExpr(*cmp->getOperands()[0]);
  Result r = genExpr(*cmp->getOperands()[1]);
  if (failed(l) || failed(r)) {
    // A size asserted equal to a value that failed (a failed
    // hl.specialize, an unknown name) has no compile-time value either.
    for (const Result &side : {l, r})
      if (succeeded(side) && isPlainSize(*side))
        markSizeFailed(side->origin->param, side->origin->dim);
    return LogicalResult(failure());
  }
  const SemValue *size = isPlainSize(*l) ? &*l : &*r;
  const SemValue *value = size == &*l ? &*r : &*l;
  if (!isPlainSize(*size))
    return std::nullopt;
  const std::string &param = size->origin->param;
  unsigned dim = size->origin->dim;
  if (value->kind == SemValue::Kind::Unbound) {
    markSizeFailed(param, dim);
    return unboundError(*value, cmp->getRange());
  }
  if (isPlainSize(*value))
    return sizesAssertedEqual(*size, *value, where);
  if (value->kind != SemValue::Kind::Int)
    return std::nullopt;
  // The asserted value is compiled in even when --shape contradicts it
  // (reported), so later uses see one size.
  compileSizeIn(param, dim, value->intValue);
  if (std::optional<int64_t> shaped = shapeSize(param, dim))
    if (*shaped != value->intValue)
      return error(where, "assert " + sizeKey(param, dim) +
                              " == " + std::to_string(value->intValue) +
                              " fails for " + shapeSpelling(param));
  return success();
}

std::optional<LogicalResult>
Generator::sizesAssertedOrdered(const ast::CompareExpr &cmp,
                                SourceRange where) {
  using Relation = contract::SameSize::Relation;
  ast::CompareOp op = cmp.getOps()[0];
  bool greater = op == ast::CompareOp::Gt || op == ast::CompareOp::GtE;
  if (!greater && op != ast::CompareOp::Lt && op != ast::CompareOp::LtE)
    return std::nullopt;
  Result l = genExpr(*cmp.getOperands()[0]);
  Result r = genExpr(*cmp.getOperands()[1]);
  if (failed(l) || failed(r) || !isPlainSize(*l) || !isPlainSize(*r))
    return std::nullopt;
  // Written as `bigger >= smaller` (or >): a launch check, and the
  // equality a tile indexing both would imply no longer holds.
  const ScalarOrigin &big = greater ? *l->origin : *r->origin;
  const ScalarOrigin &small = greater ? *r->origin : *l->origin;
  contract::SameSize s{big.param, big.dim, small.param, small.dim, ""};
  s.asserted = true;
  s.relation = op == ast::CompareOp::Gt || op == ast::CompareOp::Lt
                   ? Relation::Gt
                   : Relation::Ge;
  // Sizes --shape gives both are also compared now, as Helion's host
  // would.
  std::optional<int64_t> sb = shapeSize(big.param, big.dim);
  std::optional<int64_t> ss = shapeSize(small.param, small.dim);
  std::string why = s.problem(sb.value_or(0), ss.value_or(0));
  addSameSize(std::move(s), where);
  if (sb && ss && !why.empty())
    return LogicalResult(error(
        where,
        "assert " + sizeKey(big.param, big.dim) +
            (op == ast::CompareOp::Gt || op == ast::CompareOp::Lt ? " > "
                                                                  : " >= ") +
            sizeKey(small.param, small.dim) + " fails for " +
            shapeSpelling(big.param) + " and " + shapeSpelling(small.param)));
  return LogicalResult(success());
}

LogicalResult Generator::sizesAssertedEqual(const SemValue &a,
                                            const SemValue &b,
                                            SourceRange where) {
  const ScalarOrigin &x = *a.origin, &y = *b.origin;
  std::optional<int64_t> sx = shapeSize(x.param, x.dim);
  std::optional<int64_t> sy = shapeSize(y.param, y.dim);
  if (!sx && !sy) {
    // Both run-time: checked where every launch is planned (metadata
    // same_sizes, the binding plan), as a tile indexing both would be.
    if (x.param != y.param || x.dim != y.dim) {
      contract::SameSize s{x.param, x.dim, y.param, y.dim, ""};
      s.asserted = true;
      addSameSize(std::move(s), where);
    }
    return success();
  }
  // Equal sizes: both compiled in as the one --shape gives (the first's
  // when the shapes contradict the assert, reported).
  int64_t v = sx ? *sx : *sy;
  compileSizeIn(x.param, x.dim, v);
  compileSizeIn(y.param, y.dim, v);
  if (sx && sy && *sx != *sy)
    return error(where, "assert " + sizeKey(x.param, x.dim) +
                            " == " + sizeKey(y.param, y.dim) + " fails for " +
                            shapeSpelling(x.param) + " and " +
                            shapeSpelling(y.param));
  return success();
}

LogicalResult Generator::genIf(const ast::IfStmt &s) {
  Result c = genExpr(s.getCond());
  if (failed(c))
    return failure();
  switch (c->kind) {
  case SemValue::Kind::Int:
    return genBlock(c->intValue ? s.getThen() : s.getElse());
  case SemValue::Kind::Float:
    return genBlock(c->floatValue != 0 ? s.getThen() : s.getElse());
  case SemValue::Kind::None:
    return genBlock(s.getElse());
  case SemValue::Kind::Scalar:
    return genRuntimeIf(s, *c);
  case SemValue::Kind::TileData:
  case SemValue::Kind::Ref:
  case SemValue::Kind::Tile:
    return error(s.getCond().getRange(),
                 std::string("the condition of an 'if' is ") +
                     kindName(c->kind) +
                     " (one value per element): an 'if' takes a compile-time "
                     "or run-time scalar, the same for every thread; select "
                     "elementwise with torch.where(mask, a, b), or mask the "
                     "load/store");
  case SemValue::Kind::Unbound:
    return unboundError(*c, s.getCond().getRange());
  default:
    return error(s.getCond().getRange(),
                 std::string("'if' needs a compile-time condition or a "
                             "run-time scalar, got ") +
                     kindName(c->kind));
  }
}

/// The name `e` gives a tensor by, as it is or viewed (`out`,
/// `out.view(...)`, `inv_rms.reshape(-1, 1)`): returning it returns that
/// memory. Null for anything else.
static const ast::NameExpr *viewedName(const ast::Expr &e) {
  if (auto *name = ast::dyn_cast<ast::NameExpr>(&e))
    return name;
  auto *call = ast::dyn_cast<ast::CallExpr>(&e);
  auto *attr =
      call ? ast::dyn_cast<ast::AttributeExpr>(&call->getCallee()) : nullptr;
  if (!attr)
    return nullptr;
  llvm::StringRef m = attr->getName();
  if (m != "view" && m != "reshape" && m != "view_as" && m != "contiguous" &&
      m != "flatten")
    return nullptr;
  return viewedName(attr->getBase());
}

/// The sizes of a returned view as the metadata writes them: constants and
/// (floored, shifted) tensor sizes; at most one other size (a -1, or one
/// host code computes), left for the caller to infer. Empty when more are
/// not expressible. (A size --shape makes known is not a constant: the
/// kernel runs at other sizes unless it compiled that one in.)
static std::vector<contract::ViewDim>
viewDims(const std::vector<SemValue> &sizes) {
  std::vector<contract::ViewDim> dims;
  int inferred = 0;
  for (const SemValue &s : sizes) {
    contract::ViewDim d;
    if (s.kind == SemValue::Kind::Int && s.intValue >= 0) {
      d.size.emplace();
      d.size->constant = s.intValue;
    } else if (s.kind == SemValue::Kind::Scalar && s.origin) {
      d.size.emplace();
      d.size->param = s.origin->param;
      d.size->dim = s.origin->dim;
      d.size->add = s.origin->add;
      d.size->div = s.origin->div;
    } else if (++inferred > 1) {
      return {};
    }
    dims.push_back(std::move(d));
  }
  return dims;
}

LogicalResult Generator::genReturn(const ast::ReturnStmt &s) {
  if (!calls.empty())
    return genHelperReturn(s);
  if (inGrid)
    return error(s.getRange(), "'return' inside a tile loop");
  // What a kernel returns is host code: the tensors it made (torch.empty &
  // co.) or was given, as the metadata's "returns" lists them for its
  // callers. A returned view of a tensor is that tensor; anything else
  // host code computes from them is left to the caller (a warning says
  // what).
  returned = true;
  const ast::Expr *v = s.getValue();
  if (!v)
    return success();
  contract::Returns returns;
  std::vector<const ast::Expr *> parts = {v};
  if (ast::isa<ast::TupleExpr>(*v) || ast::isa<ast::ListExpr>(*v)) {
    parts = elementsOf(*v);
    returns.tuple = true;
  }
  for (const ast::Expr *part : parts) {
    std::optional<std::string> tensor;
    std::vector<contract::ViewDim> view;
    const ast::NameExpr *name = viewedName(*part);
    SemValue *x = name ? lookup(name->getName()) : nullptr;
    if (x && x->kind == SemValue::Kind::Ref) {
      tensor = x->text;
      // A view (`out.view(q.size())`, or a name bound to one): its sizes,
      // when host code can say them (else the tensor as it is).
      std::optional<SemValue> viewed;
      std::optional<Diagnostic> ignored;
      speculate(
          [&]() -> LogicalResult {
            Result v = genExpr(*part);
            if (failed(v))
              return failure();
            viewed = *v;
            return success();
          },
          ignored);
      if (viewed && viewed->kind == SemValue::Kind::Ref && viewed->value &&
          viewed->value.getDefiningOp<tile::ViewOp>())
        view = viewDims(viewed->viewSizes);
    }
    bool reported = x && (x->kind == SemValue::Kind::None ||
                          x->kind == SemValue::Kind::Poison);
    if (!tensor && !reported && !ast::isa<ast::NoneLiteralExpr>(*part))
      diags->warning(part->getRange(),
                     "host code: the kernel returns a value computed from "
                     "its tensors after its loop, which Helion computes with "
                     "PyTorch; dslc's kernel returns None in its place and "
                     "leaves this to the caller");
    returns.values.push_back(tensor);
    returns.views.push_back(std::move(view));
  }
  if (llvm::all_of(returns.views, [](const auto &v) { return v.empty(); }))
    returns.views.clear();
  desc.returns = std::move(returns);
  return success();
}

LogicalResult Generator::genAssign(const ast::Expr &target, SemValue value,
                                   SourceRange where) {
  if (auto *name = ast::dyn_cast<ast::NameExpr>(&target)) {
    if (name->getName() == "_")
      return success();
    bind(name->getName(), std::move(value));
    return success();
  }
  if (ast::isa<ast::TupleExpr>(target) || ast::isa<ast::ListExpr>(target)) {
    const ast::ExprList &targets =
        ast::isa<ast::TupleExpr>(target)
            ? ast::cast<ast::TupleExpr>(target).getElements()
            : ast::cast<ast::ListExpr>(target).getElements();
    if (value.kind != SemValue::Kind::Tuple)
      return error(target.getRange(),
                   std::string("cannot unpack ") + kindName(value.kind));
    if (value.elements.size() != targets.size())
      return error(target.getRange(),
                   "cannot unpack " + std::to_string(value.elements.size()) +
                       " values into " + std::to_string(targets.size()) +
                       " names");
    for (size_t i = 0; i < targets.size(); ++i)
      if (failed(genAssign(*targets[i], value.elements[i], where)))
        return failure();
    return success();
  }
  if (auto *sub = ast::dyn_cast<ast::SubscriptExpr>(&target))
    return genStore(*sub, std::move(value));
  return error(target.getRange(), "cannot assign to this expression");
}

void Generator::poisonTargets(const ast::Expr &target) {
  if (auto *name = ast::dyn_cast<ast::NameExpr>(&target)) {
    if (name->getName() != "_")
      bind(name->getName(), SemValue::ofKind(SemValue::Kind::Poison));
    return;
  }
  for (const ast::Expr *e : elementsOf(target))
    if (e != &target)
      poisonTargets(*e);
}

LogicalResult Generator::genStore(const ast::SubscriptExpr &target,
                                  SemValue value) {
  Result base = genExpr(target.getBase());
  if (failed(base))
    return failure();
  if (!inGrid && (base->kind == SemValue::Kind::Ref ||
                  base->kind == SemValue::Kind::Host)) {
    if (!gridLoop)
      return error(target.getRange(),
                   "a store before the kernel's loop is host code (PyTorch "
                   "writing a tensor before the kernel runs): do it before "
                   "calling the kernel");
    diags->warning(target.getRange(),
                   "host code: a store after the kernel's loop, which Helion "
                   "runs with PyTorch on the kernel's outputs; dslc's kernel "
                   "ends at its loop and leaves this to the caller");
    return success();
  }
  if (base->kind != SemValue::Kind::Ref && base->kind != SemValue::Kind::Stack)
    return error(target.getBase().getRange(),
                 std::string("cannot store into ") + kindName(base->kind));
  std::vector<const ast::Expr *> idx;
  if (auto *tuple = ast::dyn_cast<ast::TupleExpr>(&target.getIndex()))
    for (const ast::ExprPtr &x : tuple->getElements())
      idx.push_back(x.get());
  else
    idx.push_back(&target.getIndex());
  return storeTo(*base, idx, target.getIndex(), std::move(value), target);
}

LogicalResult Generator::storeTo(const SemValue &base,
                                 const std::vector<const ast::Expr *> &idx,
                                 const ast::Expr &index, SemValue value,
                                 const ast::Expr &where) {
  auto access = accessOfList(base, idx, index);
  if (failed(access))
    return failure();
  if (access->gather)
    return genScatterStore(base, access->entries, value, where);
  return storeAccess(base, *access, index, std::move(value), where);
}

LogicalResult Generator::storeAccess(const SemValue &base, const Access &access,
                                     const ast::Expr &index, SemValue value,
                                     const ast::Expr &where) {
  Type elementType = refShape(base).second;
  if (!access.unitDims.empty())
    return error(index.getRange(), "None in the index of a store: store a "
                                   "tile of the indexed shape");
  auto type = RankedTensorType::get(access.shape, elementType);
  auto tileValue = coerceTile(value, type, where);
  if (failed(tileValue))
    return failure();
  mlir::Location l = loc(where);
  if (base.kind == SemValue::Kind::Ref) {
    tile::StoreOp::create(builder, l, *tileValue, base.value, access.offsets,
                          access.limits, access.dims);
  } else {
    auto mode = options.multicast == MulticastMode::NVLS
                    ? comm::MulticastMode::nvls
                    : comm::MulticastMode::software;
    comm::MulticastStoreOp::create(builder, l, *tileValue, base.value,
                                   access.offsets, access.limits, access.dims,
                                   mode);
  }
  return success();
}

} // namespace dslc::mlirgen
