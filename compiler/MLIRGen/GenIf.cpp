//===- GenIf.cpp - if on a run-time scalar: scf.if ------------------------===//
//
// An `if` whose condition is a run-time scalar (tile facts, scalar
// parameters, sizes, comparisons of those) becomes an scf.if. The
// condition is one value for the whole CTA, so every thread takes the same
// branch: barriers, reductions, signals and waits inside are fine.
//
// Python's scoping: each branch is generated with the bindings from before
// the `if`; afterwards a name one branch assigns holds, on each path, that
// path's value (the one from before the `if` where the path leaves it
// alone). Tile values and scalars that differ between the paths are the
// scf.if's results; a name some path leaves unassigned, or whose paths
// disagree on its type, is bound to an Unmerged value whose use is the
// error, as Python's NameError comes only at the use.
//
//===----------------------------------------------------------------------===//

#include "compiler/MLIRGen/Generator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace dslc::mlirgen {

namespace {

/// The first `return` in `body`, nested blocks included.
const ast::Stmt *findReturn(const ast::StmtList &body) {
  for (const ast::StmtPtr &s : body) {
    if (ast::isa<ast::ReturnStmt>(s.get()))
      return s.get();
    const ast::Stmt *found = nullptr;
    if (auto *f = ast::dyn_cast<ast::ForStmt>(s.get()))
      found = findReturn(f->getBody());
    else if (auto *i = ast::dyn_cast<ast::IfStmt>(s.get()))
      found = findReturn(i->getThen()) ? findReturn(i->getThen())
                                       : findReturn(i->getElse());
    if (found)
      return found;
  }
  return nullptr;
}

/// The last statement of `body` that assigns `name` (the innermost one of
/// a nested block), or null.
const ast::Stmt *lastAssignment(const ast::StmtList &body,
                                const std::string &name) {
  for (auto it = body.rbegin(); it != body.rend(); ++it) {
    std::set<std::string> names;
    assignedNames(**it, names);
    if (!names.count(name))
      continue;
    const ast::Stmt *inner = nullptr;
    if (auto *f = ast::dyn_cast<ast::ForStmt>(it->get()))
      inner = lastAssignment(f->getBody(), name);
    else if (auto *i = ast::dyn_cast<ast::IfStmt>(it->get()))
      inner = lastAssignment(i->getElse(), name)
                  ? lastAssignment(i->getElse(), name)
                  : lastAssignment(i->getThen(), name);
    return inner ? inner : it->get();
  }
  return nullptr;
}

std::string lineOf(SourceRange r) { return std::to_string(r.begin.line); }
std::string placeOf(SourceRange r) {
  return std::to_string(r.begin.line) + ":" + std::to_string(r.begin.column);
}

/// "a tile value of shape [32, 64] and dtype float32", "a scalar (int64)".
std::string describe(const SemValue &v) {
  if (v.kind == SemValue::Kind::TileData &&
      isa<RankedTensorType>(v.value.getType())) {
    auto t = cast<RankedTensorType>(v.value.getType());
    std::string shape;
    for (int64_t d : t.getShape())
      shape += (shape.empty() ? "" : ", ") + std::to_string(d);
    return "a tile value of shape [" + shape + "] and dtype " +
           typeToDType(t.getElementType());
  }
  if (v.kind == SemValue::Kind::Scalar) {
    Type t = v.value.getType();
    return std::string("a scalar (") +
           (t.isIndex()      ? "int"
            : t.isInteger(1) ? "bool"
                             : typeToDType(t)) +
           ")";
  }
  return kindName(v.kind);
}

/// Whether two bindings are the same value (a name no path changed).
bool sameValue(const SemValue &a, const SemValue &b) {
  using K = SemValue::Kind;
  if (a.kind != b.kind)
    return false;
  switch (a.kind) {
  case K::Int:
    return a.intValue == b.intValue;
  case K::Float:
    return a.floatValue == b.floatValue;
  case K::Tile:
    return a.id == b.id && a.begin == b.begin && a.end == b.end &&
           a.block == b.block;
  case K::Tuple:
    return a.elements.size() == b.elements.size() &&
           llvm::all_of(llvm::zip(a.elements, b.elements), [](auto p) {
             return sameValue(std::get<0>(p), std::get<1>(p));
           });
  case K::None:
  case K::Poison:
    return true;
  default:
    return a.value == b.value && a.text == b.text && a.peers == b.peers;
  }
}

bool isRuntime(const SemValue &v) {
  return v.kind == SemValue::Kind::TileData || v.kind == SemValue::Kind::Scalar;
}

/// Whether two paths' values merge into one result: tiles of one type, or
/// scalars and numbers (mergeIfScalars picks their type).
bool mergeable(const SemValue &a, const SemValue &b) {
  if (!(isRuntime(a) || isNumber(a)) || !(isRuntime(b) || isNumber(b)))
    return false;
  if (a.kind != SemValue::Kind::TileData && b.kind != SemValue::Kind::TileData)
    return true;
  return a.kind == b.kind && a.value.getType() == b.value.getType() &&
         isa<RankedTensorType>(a.value.getType());
}

} // namespace

Value Generator::truthValue(const SemValue &v, mlir::Location l) {
  return castValue(v.value, builder.getI1Type(), l);
}

LogicalResult Generator::genRuntimeIf(const ast::IfStmt &s,
                                      const SemValue &cond) {
  const ast::Expr &condExpr = s.getCond();
  std::string where = placeOf(condExpr.getRange());
  if (!inGrid)
    return error(condExpr.getRange(),
                 "an 'if' outside the tile loop needs a compile-time "
                 "condition, got a run-time scalar: branch inside the "
                 "hl.tile/hl.grid loop");
  for (const ast::StmtList *body : {&s.getThen(), &s.getElse()})
    if (const ast::Stmt *r = findReturn(*body)) {
      (void)error(r->getRange(),
                  "'return' inside an 'if' on a run-time condition: a "
                  "helper returns at its end or in a compile-time 'if'; "
                  "assign the value to a name in both branches and return "
                  "it after the 'if'");
      diags->note(condExpr.getRange(), "the run-time condition");
      return failure();
    }
  mlir::Location l = loc(s.getRange());
  Value flag = truthValue(cond, loc(condExpr));

  std::set<std::string> names;
  assignedNames(s.getThen(), names);
  assignedNames(s.getElse(), names);
  std::map<std::string, SemValue> before;
  for (const std::string &n : names)
    if (SemValue *v = lookup(n))
      before[n] = *v;

  auto ifOp = scf::IfOp::create(builder, l, TypeRange{}, flag,
                                /*withElseRegion=*/true);
  IfPath paths[2] = {{ifOp.thenBlock(), &s.getThen(), {}, {}},
                     {ifOp.elseBlock(), &s.getElse(), {}, {}}};
  bool ok = true;
  for (IfPath &p : paths) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(p.block->getTerminator());
    scopes.emplace_back(); // names new in the branch
    ok &= succeeded(genBlock(*p.body));
    for (const std::string &n : names)
      if (SemValue *v = lookup(n))
        p.values[n] = *v;
    scopes.pop_back();
    for (auto &[n, v] : before)
      bind(n, v);
  }
  if (!ok)
    return failure();

  // Merge: per name, bind the common value, or yield each path's value.
  std::vector<std::pair<std::string, SemValue>> merged;
  auto site = [&](unsigned k, const std::string &n) {
    const ast::Stmt *a = lastAssignment(*paths[k].body, n);
    return a ? "line " + lineOf(a->getRange()) : std::string("before the 'if'");
  };
  for (const std::string &n : names) {
    auto t = paths[0].values.find(n), e = paths[1].values.find(n);
    if (t == paths[0].values.end() || e == paths[1].values.end()) {
      SemValue u = SemValue::ofKind(SemValue::Kind::Unmerged);
      u.text = "'" + n + "' is assigned only when the condition at " + where +
               (t == paths[0].values.end() ? " does not hold" : " holds") +
               ": assign it on every path (or before the 'if')";
      bind(n, u);
      continue;
    }
    const SemValue &a = t->second, &b = e->second;
    if (sameValue(a, b)) {
      bind(n, a);
      continue;
    }
    // A path where an earlier failure or an earlier if left the name
    // unusable: so it stays (with that if's message, or silent).
    auto unusable = [](const SemValue &v) {
      return v.kind == SemValue::Kind::Poison ||
             v.kind == SemValue::Kind::Unmerged;
    };
    if (unusable(a) || unusable(b)) {
      bool aFirst = a.kind == SemValue::Kind::Poison ||
                    (unusable(a) && b.kind != SemValue::Kind::Poison);
      bind(n, aFirst ? a : b);
      continue;
    }
    bool tiles = a.kind == SemValue::Kind::TileData ||
                 b.kind == SemValue::Kind::TileData;
    if (!mergeable(a, b)) {
      SemValue u = SemValue::ofKind(SemValue::Kind::Unmerged);
      u.text = "'" + n + "' has different types after the 'if' at " + where +
               ": " + describe(a) + " when the condition holds (" + site(0, n) +
               ") and " + describe(b) + " when it does not (" + site(1, n) +
               "); a run-time 'if' merges tile values and scalars of one "
               "type: give it one on every path";
      bind(n, u);
      continue;
    }
    merged.emplace_back(n, tiles ? mergeIfTiles(a, b, paths, ifOp, l)
                                 : mergeIfScalars(a, b, paths, l));
  }

  if (paths[0].yields.empty()) {
    if (s.getElse().empty())
      ifOp.getElseRegion().front().erase();
    return success();
  }
  Operation *result = withResults(ifOp, paths, flag, l);
  // The merged values take the results in the order they were yielded.
  unsigned r = 0;
  for (auto &[n, v] : merged) {
    takeResults(result, v, r);
    bind(n, v);
  }
  return success();
}

Operation *Generator::withResults(Operation *op, IfPath (&paths)[2], Value flag,
                                  mlir::Location l) {
  auto ifOp = cast<scf::IfOp>(op);
  builder.setInsertionPoint(ifOp);
  auto result = scf::IfOp::create(builder, l,
                                  ValueRange(paths[0].yields).getTypes(), flag,
                                  /*withElseRegion=*/true);
  for (unsigned k = 0; k < 2; ++k) {
    Region &into = k ? result.getElseRegion() : result.getThenRegion();
    into.takeBody(k ? ifOp.getElseRegion() : ifOp.getThenRegion());
    Block &block = into.front();
    block.getTerminator()->erase();
    builder.setInsertionPointToEnd(&block);
    scf::YieldOp::create(builder, l, paths[k].yields);
  }
  ifOp.erase();
  builder.setInsertionPointAfter(result);
  return result;
}

void Generator::takeResults(Operation *ifOp, SemValue &v, unsigned &next) {
  v.value = ifOp->getResult(next++);
  for (ValidCount &c : v.valid)
    for (ValidCount::Bound &x : c.bounds)
      if (!x.end)
        x.end = ifOp->getResult(next++);
}

Result Generator::genRuntimeIfExpr(const ast::IfElseExpr &e,
                                   const SemValue &cond) {
  const ast::Expr &condExpr = e.getCond();
  if (!inGrid)
    return fail(condExpr.getRange(),
                "a conditional expression outside the tile loop needs a "
                "compile-time condition, got a run-time scalar");
  mlir::Location l = loc(e);
  Value flag = truthValue(cond, loc(condExpr));
  auto ifOp = scf::IfOp::create(builder, l, TypeRange{}, flag,
                                /*withElseRegion=*/true);
  IfPath paths[2] = {{ifOp.thenBlock(), nullptr, {}, {}},
                     {ifOp.elseBlock(), nullptr, {}, {}}};
  SemValue values[2];
  for (unsigned k = 0; k < 2; ++k) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(paths[k].block->getTerminator());
    Result v = genExpr(k ? e.getElse() : e.getThen());
    if (failed(v)) {
      ifOp.erase();
      return failure();
    }
    values[k] = *v;
  }
  const SemValue &a = values[0], &b = values[1];
  bool tiles =
      a.kind == SemValue::Kind::TileData || b.kind == SemValue::Kind::TileData;
  if (!mergeable(a, b)) {
    // Described before the branches (which define the values) go.
    std::string what = "a conditional expression on a run-time condition "
                       "gives one type on both paths (tiles of one shape "
                       "and dtype, or scalars): got " +
                       describe(a) + " and " + describe(b) +
                       "; per element, use torch.where(mask, a, b)";
    ifOp.erase();
    return fail(e.getRange(), what);
  }
  SemValue m = tiles ? mergeIfTiles(a, b, paths, ifOp, l)
                     : mergeIfScalars(a, b, paths, l);
  Operation *result = withResults(ifOp, paths, flag, l);
  unsigned r = 0;
  takeResults(result, m, r);
  return m;
}

SemValue Generator::mergeIfTiles(const SemValue &a, const SemValue &b,
                                 IfPath (&paths)[2], Operation *ifOp,
                                 mlir::Location l) {
  SemValue m = a;
  m.indexTile.reset();
  m.value = Value();
  paths[0].yields.push_back(a.value);
  paths[1].yields.push_back(b.value);
  // The valid counts: kept when both paths agree on bounds made before the
  // if; otherwise each path's count is a result.
  auto outside = [&](const ValidCount &c) {
    return llvm::all_of(c.bounds, [&](const ValidCount::Bound &x) {
      return llvm::none_of(
          std::initializer_list<Value>{x.begin, x.end, x.ref}, [&](Value v) {
            return v && ifOp->isAncestor(v.getParentBlock()->getParentOp());
          });
    });
  };
  bool agree = a.valid.size() == b.valid.size();
  for (size_t d = 0; agree && d < a.valid.size(); ++d)
    agree = a.valid[d].bounds == b.valid[d].bounds && outside(a.valid[d]);
  if (agree)
    return m;
  auto shape = cast<RankedTensorType>(a.value.getType()).getShape();
  m.valid.assign(shape.size(), ValidCount());
  for (size_t d = 0; d < shape.size(); ++d) {
    const ValidCount *c[2] = {d < a.valid.size() ? &a.valid[d] : nullptr,
                              d < b.valid.size() ? &b.valid[d] : nullptr};
    if ((!c[0] || c[0]->all()) && (!c[1] || c[1]->all()))
      continue;
    for (unsigned k = 0; k < 2; ++k) {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPoint(paths[k].block->getTerminator());
      Value count = c[k] ? materialize(*c[k], l) : Value();
      paths[k].yields.push_back(count ? count : indexConst(l, shape[d]));
    }
    // [0, count): its end is the if's result.
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(ifOp);
    m.valid[d].bounds.push_back(
        {indexConst(l, 0), Value(), Value(), unsigned(d)});
  }
  return m;
}

SemValue Generator::mergeIfScalars(const SemValue &a, const SemValue &b,
                                   IfPath (&paths)[2], mlir::Location l) {
  // f32 when either is a float; else the scalars' one type, or the
  // scalar's type against a constant; else index.
  Type type = builder.getIndexType();
  if (isFloatScalar(a) || isFloatScalar(b))
    type = builder.getF32Type();
  else if (a.kind == SemValue::Kind::Scalar &&
           (b.kind != SemValue::Kind::Scalar ||
            a.value.getType() == b.value.getType()))
    type = a.value.getType();
  else if (b.kind == SemValue::Kind::Scalar && a.kind != SemValue::Kind::Scalar)
    type = b.value.getType();
  for (unsigned k = 0; k < 2; ++k) {
    const SemValue &v = k ? b : a;
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(paths[k].block->getTerminator());
    paths[k].yields.push_back(scalarAs(v, type, l));
  }
  SemValue m = SemValue::ofKind(SemValue::Kind::Scalar);
  m.sizesRead = a.sizesRead;
  m.sizesRead.append(b.sizesRead.begin(), b.sizesRead.end());
  return m;
}

} // namespace dslc::mlirgen
