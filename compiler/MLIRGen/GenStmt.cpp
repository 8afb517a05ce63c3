//===- GenStmt.cpp - Statements -------------------------------------------===//

#include "compiler/MLIRGen/Generator.h"
#include "compiler/Limits.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace dslc::mlirgen {

LogicalResult Generator::genBlock(const ast::StmtList &body) {
  bool ok = true;
  for (const ast::StmtPtr &s : body) {
    if (diags.limitReached())
      return failure();
    if (returned)
      return error(s->getRange(), "statement after 'return' is unreachable");
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
    if (failed(genStmt(*s)))
      ok = false;
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
  for (Type t : op->getResultTypes())
    if (auto tile = dyn_cast<RankedTensorType>(t))
      if (tile.hasStaticShape())
        total += std::max<int64_t>(1, tile.getNumElements() / threads);
}

LogicalResult Generator::genStmt(const ast::Stmt &s) {
  // The grid loop is the kernel's body: after it only `return` (and pass or
  // a docstring) may follow; a CTA-less statement or a second grid has no
  // meaning on the GPU.
  if (gridLoop && !inGrid && !ast::isa<ast::ReturnStmt>(&s) &&
      !ast::isa<ast::PassStmt>(&s)) {
    auto *e = ast::dyn_cast<ast::ExprStmt>(&s);
    if (!e || !ast::isa<ast::StringLiteralExpr>(e->getExpr())) {
      (void)error(s.getRange(),
                  "a statement after the grid loop: the kernel's work is "
                  "its top-level hl.tile/hl.grid loop, and only 'return' "
                  "may follow it (a kernel has one grid)");
      diags.note(gridLoop->getRange(), "the grid loop");
      return failure();
    }
  }
  if (auto *e = ast::dyn_cast<ast::ExprStmt>(&s)) {
    // Docstrings and other bare strings are comments.
    if (ast::isa<ast::StringLiteralExpr>(e->getExpr()))
      return success();
    return success(succeeded(genExpr(e->getExpr())));
  }
  if (auto *a = ast::dyn_cast<ast::AssignStmt>(&s)) {
    Result v = genExpr(a->getValue());
    if (failed(v))
      return failure();
    for (const ast::ExprPtr &t : a->getTargets())
      if (failed(genAssign(*t, *v, a->getRange())))
        return failure();
    return success();
  }
  if (auto *a = ast::dyn_cast<ast::AnnAssignStmt>(&s)) {
    if (!a->getValue())
      return success();
    Result v = genExpr(*a->getValue());
    if (failed(v))
      return failure();
    return genAssign(a->getTarget(), *v, a->getRange());
  }
  if (auto *a = ast::dyn_cast<ast::AugAssignStmt>(&s)) {
    Result lhs = genExpr(a->getTarget());
    if (failed(lhs))
      return failure();
    Result rhs = genExpr(a->getValue());
    if (failed(rhs))
      return failure();
    Result v = binaryOp(a->getOp(), *lhs, *rhs, a->getValue());
    if (failed(v))
      return failure();
    return genAssign(a->getTarget(), *v, a->getRange());
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
    Result t = genExpr(a->getTest());
    if (failed(t))
      return failure();
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
                 "'break' and 'continue' are not supported in kernels");
  if (ast::isa<ast::FunctionDef>(s))
    return error(s.getRange(), "nested functions are not supported");
  return error(s.getRange(), "this statement is not supported in a kernel");
}

LogicalResult Generator::genIf(const ast::IfStmt &s) {
  Result c = genExpr(s.getCond());
  if (failed(c))
    return failure();
  if (c->kind == SemValue::Kind::Int)
    return genBlock(c->intValue ? s.getThen() : s.getElse());
  if (c->kind == SemValue::Kind::None)
    return genBlock(s.getElse());
  return error(s.getCond().getRange(),
               std::string("'if' needs a compile-time condition (a "
                           "constexpr or a specialized size), got ") +
                   kindName(c->kind));
}

LogicalResult Generator::genReturn(const ast::ReturnStmt &s) {
  if (inGrid)
    return error(s.getRange(), "'return' inside a tile loop");
  if (const ast::Expr *v = s.getValue()) {
    Result value = genExpr(*v);
    if (failed(value))
      return failure();
    auto isOutput = [&](const SemValue &x) {
      return x.kind == SemValue::Kind::Ref &&
             llvm::any_of(desc.args, [&](const OutputDescription &o) {
               return o.isOutput && o.name == x.text;
             });
    };
    bool ok = value->kind == SemValue::Kind::None || isOutput(*value) ||
              (value->kind == SemValue::Kind::Tuple &&
               llvm::all_of(value->elements, isOutput));
    if (!ok)
      return error(v->getRange(), "a kernel returns the tensors it made with "
                                  "torch.empty_like (or nothing)");
  }
  returned = true;
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

LogicalResult Generator::genStore(const ast::SubscriptExpr &target,
                                  SemValue value) {
  Result base = genExpr(target.getBase());
  if (failed(base))
    return failure();
  if (base->kind != SemValue::Kind::Ref && base->kind != SemValue::Kind::Stack)
    return error(target.getBase().getRange(),
                 std::string("cannot store into ") + kindName(base->kind));
  unsigned rank;
  Type elementType;
  if (base->kind == SemValue::Kind::Ref) {
    auto t = cast<tile::RefType>(base->value.getType());
    rank = t.getRank();
    elementType = t.getElementType();
  } else {
    auto t = cast<comm::StackType>(base->value.getType());
    rank = t.getRank();
    elementType = t.getElementType();
  }
  auto access = accessOf(*base, rank, target.getIndex());
  if (failed(access))
    return failure();
  auto type = RankedTensorType::get(access->shape, elementType);
  auto tileValue = coerceTile(value, type, target);
  if (failed(tileValue))
    return failure();
  mlir::Location l = loc(target);
  if (base->kind == SemValue::Kind::Ref) {
    tile::StoreOp::create(builder, l, *tileValue, base->value, access->offsets,
                          access->limits, access->dims);
  } else {
    auto mode = options.multicast == MulticastMode::NVLS
                    ? comm::MulticastMode::nvls
                    : comm::MulticastMode::software;
    comm::MulticastStoreOp::create(builder, l, *tileValue, base->value,
                                   access->offsets, access->limits,
                                   access->dims, mode);
  }
  return success();
}

} // namespace dslc::mlirgen
