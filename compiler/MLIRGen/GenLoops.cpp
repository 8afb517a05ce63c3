//===- GenLoops.cpp - for loops: hl.tile, hl.grid, range, tuples ----------===//

#include "compiler/Limits.h"
#include "compiler/MLIRGen/Generator.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace dslc::mlirgen {

LogicalResult Generator::genFor(const ast::ForStmt &s) {
  if (!s.getElse().empty())
    return error(s.getRange(), "'for ... else' is not supported in kernels");
  const ast::Expr &iter = s.getIter();
  if (auto *call = ast::dyn_cast<ast::CallExpr>(&iter)) {
    if (failed(checkCallArguments(*call)))
      return failure();
    auto callee = ast::getDottedName(call->getCallee());
    if (callee && (*callee == "hl.tile" || *callee == "helion.language.tile"))
      return genTileLoop(s, *call, /*isGrid=*/false);
    if (callee && (*callee == "hl.grid" || *callee == "helion.language.grid"))
      return genTileLoop(s, *call, /*isGrid=*/true);
    if (callee && *callee == "range")
      return genRangeLoop(s, *call);
  }
  Result it = genExpr(iter);
  if (failed(it))
    return failure();
  if (it->kind == SemValue::Kind::PeerList) {
    for (int64_t p = 0; p < it->peers; ++p) {
      SemValue ref = SemValue::ofKind(SemValue::Kind::Ref);
      ref.value = comm::PeerOp::create(
          builder, loc(iter),
          tile::RefType::get(
              &ctx, cast<comm::StackType>(it->value.getType()).getElementType(),
              cast<comm::StackType>(it->value.getType()).getRank()),
          it->value, indexConst(loc(iter), p));
      ref.text = it->text + "[" + std::to_string(p) + "]";
      if (failed(genLoopBody(s, s.getTarget(), ref)))
        return failure();
    }
    return success();
  }
  if (it->kind == SemValue::Kind::Tuple) {
    for (const SemValue &el : it->elements)
      if (failed(genLoopBody(s, s.getTarget(), el)))
        return failure();
    return success();
  }
  return error(iter.getRange(),
               std::string("a kernel loops over hl.tile, hl.grid, range or "
                           "a tuple of tensors, not ") +
                   kindName(it->kind));
}

LogicalResult Generator::genRangeLoop(const ast::ForStmt &s,
                                      const ast::CallExpr &call) {
  const ast::Expr &iter = s.getIter();
  std::vector<SemValue> args;
  for (const ast::Argument &a : call.getArgs()) {
    if (a.kind != ast::Argument::Kind::Positional)
      return error(a.range, "range takes positional arguments");
    Result v = genExpr(*a.value);
    if (failed(v))
      return failure();
    if (v->kind == SemValue::Kind::Unbound)
      return error(a.value->getRange(), "constexpr '" + v->text +
                                            "' has no value: pass -D " +
                                            v->text + "=VALUE");
    args.push_back(*v);
  }
  if (args.empty() || args.size() > 3)
    return error(call.getRange(), "range takes 1 to 3 arguments");
  SemValue start = args.size() > 1 ? args[0] : SemValue::integer(0);
  SemValue stop = args.size() > 1 ? args[1] : args[0];
  SemValue step = args.size() > 2 ? args[2] : SemValue::integer(1);
  if (step.kind == SemValue::Kind::Int && step.intValue == 0)
    return error(call.getRange(), "range step must not be zero");
  bool constant = start.kind == SemValue::Kind::Int &&
                  stop.kind == SemValue::Kind::Int &&
                  step.kind == SemValue::Kind::Int;
  if (constant) {
    // The iteration count in 128 bits: `i += step` may pass INT64_MAX.
    __int128 first = start.intValue, last = stop.intValue,
             by = step.intValue;
    __int128 count = by > 0 ? (last > first ? (last - first + by - 1) / by : 0)
                            : (first > last ? (first - last - by - 1) / -by
                                            : 0);
    if (count > kMaxConstantRangeIterations)
      return error(call.getRange(),
                   "range with more than " +
                       std::to_string(kMaxConstantRangeIterations) +
                       " constant iterations");
    for (__int128 k = 0; k < count; ++k)
      if (failed(genLoopBody(s, s.getTarget(),
                             SemValue::integer(
                                 static_cast<int64_t>(first + k * by)))))
        return failure();
    return success();
  }
  auto lb = toIndex(start, iter), ub = toIndex(stop, iter),
       st = toIndex(step, iter);
  if (failed(lb) || failed(ub) || failed(st))
    return failure();
  return genRuntimeLoop(s, *lb, *ub, *st, [&](Value iv) {
    SemValue v = SemValue::ofKind(SemValue::Kind::Scalar);
    v.value = iv;
    return v;
  });
}

LogicalResult Generator::genLoopBody(const ast::ForStmt &s,
                                     const ast::Expr &target, SemValue item) {
  if (failed(genAssign(target, std::move(item), s.getRange())))
    return failure();
  return genBlock(s.getBody());
}

/// Names assigned anywhere in `body` (loop targets included).
static void assignedNames(const ast::StmtList &body,
                          std::set<std::string> &names);
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
static void assignedNames(const ast::StmtList &body,
                          std::set<std::string> &names) {
  for (const ast::StmtPtr &s : body) {
    if (auto *a = ast::dyn_cast<ast::AssignStmt>(s.get()))
      for (const ast::ExprPtr &t : a->getTargets())
        assignedTargets(*t, names);
    else if (auto *a = ast::dyn_cast<ast::AugAssignStmt>(s.get()))
      assignedTargets(a->getTarget(), names);
    else if (auto *a = ast::dyn_cast<ast::AnnAssignStmt>(s.get()))
      assignedTargets(a->getTarget(), names);
    else if (auto *f = ast::dyn_cast<ast::ForStmt>(s.get())) {
      assignedTargets(f->getTarget(), names);
      assignedNames(f->getBody(), names);
    } else if (auto *i = ast::dyn_cast<ast::IfStmt>(s.get())) {
      assignedNames(i->getThen(), names);
      assignedNames(i->getElse(), names);
    }
  }
}

LogicalResult
Generator::genRuntimeLoop(const ast::ForStmt &s, Value lb, Value ub, Value step,
                          const std::function<SemValue(Value)> &item) {
  // Values carried around the loop: names bound before it and assigned in
  // it, holding run-time values.
  std::set<std::string> assigned;
  assignedNames(s.getBody(), assigned);
  std::vector<std::string> carried;
  SmallVector<Value> inits;
  for (const std::string &name : assigned) {
    SemValue *v = lookup(name);
    if (!v)
      continue;
    if (v->kind == SemValue::Kind::TileData ||
        v->kind == SemValue::Kind::Scalar) {
      carried.push_back(name);
      inits.push_back(v->value);
    } else if (v->kind == SemValue::Kind::Int ||
               v->kind == SemValue::Kind::Float) {
      return error(s.getRange(),
                   "'" + name +
                       "' is a compile-time constant before this loop and "
                       "is reassigned in it; give it a run-time value first "
                       "(e.g. hl.zeros)");
    }
  }
  mlir::Location l = loc(s.getRange());
  auto loop = scf::ForOp::create(builder, l, lb, ub, step, inits);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(loop.getBody());
  scopes.emplace_back();
  for (auto [i, name] : llvm::enumerate(carried)) {
    SemValue v = *lookup(name);
    v.value = loop.getRegionIterArgs()[i];
    bind(name, v);
  }
  LogicalResult body =
      genLoopBody(s, s.getTarget(), item(loop.getInductionVar()));
  if (failed(body)) {
    scopes.pop_back();
    return failure();
  }
  SmallVector<Value> yields;
  for (auto [i, name] : llvm::enumerate(carried)) {
    SemValue *v = lookup(name);
    if (!v || v->value.getType() != inits[i].getType()) {
      scopes.pop_back();
      return error(s.getRange(),
                   "'" + name + "' changes its type inside the loop");
    }
    yields.push_back(v->value);
  }
  scopes.pop_back();
  builder.setInsertionPointToEnd(loop.getBody());
  if (loop.getBody()->mightHaveTerminator())
    loop.getBody()->getTerminator()->erase();
  scf::YieldOp::create(builder, l, yields);
  for (auto [i, name] : llvm::enumerate(carried)) {
    SemValue v = *lookup(name);
    v.value = loop.getResult(i);
    bind(name, v);
  }
  return success();
}

LogicalResult Generator::genTileLoop(const ast::ForStmt &s,
                                     const ast::CallExpr &call, bool isGrid) {
  // Extents: hl.tile(n), hl.tile([m, n]) or, nested in the grid loop,
  // hl.tile(begin, end) (1-d: the tiles of [begin, end), in turn).
  const ast::Expr *extentArg = argument(call, 0, "begin_or_end");
  if (!extentArg)
    return error(call.getRange(), "hl.tile needs the extent to iterate");
  const ast::Expr *beginArg = nullptr;
  if (const ast::Expr *endArg = argument(call, 1, "end_or_none")) {
    if (!ast::isa<ast::NoneLiteralExpr>(*endArg)) {
      if (!inGrid)
        return error(call.getRange(),
                     "hl.tile(begin, end) is a loop inside the grid; the "
                     "grid itself is hl.tile(end)");
      if (!elementsOf(*extentArg).empty() &&
          (ast::isa<ast::ListExpr>(*extentArg) ||
           ast::isa<ast::TupleExpr>(*extentArg)))
        return error(extentArg->getRange(),
                     "hl.tile(begin, end) takes scalars (a 1-d range)");
      beginArg = extentArg;
      extentArg = endArg;
    }
  }
  std::vector<const ast::Expr *> extents = elementsOf(*extentArg);
  if (extents.empty())
    return error(extentArg->getRange(), "hl.tile needs at least one extent");
  auto blocks = tileBlockSizes(call, extents.size(), isGrid);
  if (failed(blocks))
    return failure();

  std::vector<TileDim> dims(extents.size());
  for (size_t d = 0; d < extents.size(); ++d) {
    dims[d].extentExpr = extents[d];
    dims[d].block = (*blocks)[d];
    Result v = genExpr(*extents[d]);
    if (failed(v))
      return failure();
    if (v->kind == SemValue::Kind::Int && v->intValue < 0)
      return error(extents[d]->getRange(),
                   "a loop extent cannot be negative, got " +
                       std::to_string(v->intValue));
    auto idx = toIndex(*v, *extents[d]);
    if (failed(idx))
      return failure();
    dims[d].extent = *v;
    dims[d].extentIndex = *idx;
  }
  // Names for the per-dimension tile variables.
  std::vector<const ast::Expr *> targets;
  if (extents.size() == 1) {
    targets.push_back(&s.getTarget());
  } else if (auto *tuple = ast::dyn_cast<ast::TupleExpr>(&s.getTarget())) {
    for (const ast::ExprPtr &e : tuple->getElements())
      targets.push_back(e.get());
  }
  if (targets.size() != extents.size())
    return error(s.getTarget().getRange(),
                 "a " + std::to_string(extents.size()) +
                     "-d tile loop needs as many loop variables");
  for (size_t d = 0; d < extents.size(); ++d)
    dims[d].target = targets[d];
  if (!inGrid)
    return genGridLoop(s, dims, isGrid);
  return genNestedTileLoop(s, call, beginArg, dims, isGrid);
}

FailureOr<std::vector<int64_t>>
Generator::tileBlockSizes(const ast::CallExpr &call, size_t numDims,
                          bool isGrid) {
  // block_size= (an int, a list, or None = tunable).
  std::vector<int64_t> blocks;
  const ast::Expr *blockArg = keyword(call, "block_size");
  std::vector<const ast::Expr *> blockExprs;
  if (blockArg && !ast::isa<ast::NoneLiteralExpr>(*blockArg)) {
    if (auto *list = ast::dyn_cast<ast::ListExpr>(blockArg))
      for (const ast::ExprPtr &e : list->getElements())
        blockExprs.push_back(e.get());
    else
      blockExprs.push_back(blockArg);
    if (blockExprs.size() != numDims)
      return error(blockArg->getRange(),
                   "block_size needs one entry per tiled dimension");
  }
  for (size_t d = 0; d < numDims; ++d) {
    if (isGrid) {
      blocks.push_back(1);
      continue;
    }
    if (d < blockExprs.size() &&
        !ast::isa<ast::NoneLiteralExpr>(*blockExprs[d])) {
      Result b = genExpr(*blockExprs[d]);
      if (failed(b))
        return failure();
      auto v = toConstInt(*b, *blockExprs[d], "a block size");
      if (failed(v))
        return failure();
      if (!contract::isValidBlockSize(*v))
        return error(blockExprs[d]->getRange(),
                     "block size must be between 1 and " +
                         std::to_string(kMaxBlockSize) + ", got " +
                         std::to_string(*v));
      blocks.push_back(*v);
      continue;
    }
    unsigned i = nextBlockSize++;
    if (i >= blockSizes.size())
      return error(call.getRange(),
                   "this tile's block size is tunable but the config gives " +
                       std::to_string(blockSizes.size()) +
                       " block size(s); add one to block_sizes");
    blocks.push_back(blockSizes[i]);
    desc.tunables.push_back(contract::Tunable::blockSize(i, blockSizes[i]));
  }
  return blocks;
}

SemValue Generator::makeTile(const TileDim &dim, Value id, bool isGrid) {
  SemValue t = SemValue::ofKind(SemValue::Kind::Tile);
  mlir::Location tl = loc(*dim.extentExpr);
  t.id = id;
  t.block = dim.block;
  t.begin = arith::MulIOp::create(builder, tl, id, indexConst(tl, dim.block));
  Value next =
      arith::AddIOp::create(builder, tl, t.begin, indexConst(tl, dim.block));
  t.end = arith::MinUIOp::create(builder, tl, next, dim.extentIndex);
  t.extentOrigin = dim.extent.origin;
  if (isGrid) {
    SemValue scalar = SemValue::ofKind(SemValue::Kind::Scalar);
    scalar.value = id;
    return scalar;
  }
  return t;
}

FailureOr<GridExtent> Generator::gridExtent(const TileDim &dim) {
  GridExtent ge;
  ge.block = dim.block;
  const SemValue &extent = dim.extent;
  if (extent.kind == SemValue::Kind::Int) {
    ge.constant = extent.intValue;
  } else if (extent.origin) {
    ge.param = extent.origin->param;
    ge.dim = extent.origin->dim;
    ge.add = extent.origin->add;
    ge.div = extent.origin->div;
  } else if (extent.kind == SemValue::Kind::Scalar &&
             isa<BlockArgument>(extent.value)) {
    unsigned n = cast<BlockArgument>(extent.value).getArgNumber();
    ge.scalar = argNames[n];
  } else {
    return error(dim.extentExpr->getRange(),
                 "the grid's extent must be a tensor size, a scalar "
                 "parameter or a constant");
  }
  return ge;
}

LogicalResult Generator::genGridLoop(const ast::ForStmt &s,
                                     std::vector<TileDim> &dims, bool isGrid) {
  // The outermost tile loop: the grid of CTAs.
  mlir::Location l = loc(s.getRange());
  SmallVector<Value> extentIndex;
  SmallVector<int64_t> blocks;
  for (const TileDim &d : dims) {
    extentIndex.push_back(d.extentIndex);
    blocks.push_back(d.block);
  }
  gridLoop = &s;
  auto grid = tile::GridOp::create(builder, l, extentIndex, blocks);
  // Statements after the grid go after it, not into its body.
  OpBuilder::InsertionGuard guard(builder);
  Block *body = builder.createBlock(&grid.getBody());
  for (size_t d = 0; d < dims.size(); ++d)
    body->addArgument(builder.getIndexType(), l);
  builder.setInsertionPointToStart(body);
  tile::YieldOp::create(builder, l);
  builder.setInsertionPointToStart(body);
  int64_t constantCtas = 1; // of the dimensions with constant extents
  for (const TileDim &d : dims) {
    FailureOr<GridExtent> ge = gridExtent(d);
    if (failed(ge))
      return failure();
    if (ge->constant) {
      int64_t tiles = *ge->constant / d.block + (*ge->constant % d.block != 0);
      if (llvm::MulOverflow(constantCtas, tiles, constantCtas) ||
          constantCtas > kMaxGridCtas)
        return error(d.extentExpr->getRange(),
                     "the grid has more than " + std::to_string(kMaxGridCtas) +
                         " CTAs (CUDA's largest grid): an extent of " +
                         std::to_string(*ge->constant) + " in blocks of " +
                         std::to_string(d.block));
    }
    desc.grid.push_back(*ge);
  }
  scopes.emplace_back();
  inGrid = true;
  for (size_t d = 0; d < dims.size(); ++d) {
    SemValue t = makeTile(dims[d], body->getArgument(d), isGrid);
    t.gridTile = true;
    if (failed(genAssign(*dims[d].target, t, s.getRange()))) {
      inGrid = false;
      scopes.pop_back();
      return failure();
    }
  }
  LogicalResult r = genBlock(s.getBody());
  inGrid = false;
  scopes.pop_back();
  return r;
}

LogicalResult Generator::genNestedTileLoop(const ast::ForStmt &s,
                                           const ast::CallExpr &call,
                                           const ast::Expr *beginArg,
                                           std::vector<TileDim> &dims,
                                           bool isGrid) {
  // A nested tile loop: sequential inside the CTA.
  if (dims.size() != 1)
    return error(call.getRange(),
                 "nested multi-dimensional tile loops are not supported");
  mlir::Location l = loc(s.getRange());
  const TileDim &dim = dims[0];
  Value zero = indexConst(l, 0);
  Value one = indexConst(l, 1);
  Value first = zero;
  if (beginArg) {
    Result b = genExpr(*beginArg);
    if (failed(b))
      return failure();
    auto idx = toIndex(*b, *beginArg);
    if (failed(idx))
      return failure();
    first = *idx;
  }
  // Tiles of [first, end): none when end <= first.
  Value span = arith::SubIOp::create(
      builder, l, arith::MaxSIOp::create(builder, l, dim.extentIndex, first),
      first);
  Value count =
      arith::CeilDivUIOp::create(builder, l, span, indexConst(l, dim.block));
  return genRuntimeLoop(s, zero, count, one, [&](Value iv) {
    SemValue t = makeTile(dim, iv, isGrid);
    if (beginArg) {
      mlir::Location tl = loc(*dim.extentExpr);
      t.begin = arith::AddIOp::create(builder, tl, t.begin, first);
      t.end = arith::MinUIOp::create(
          builder, tl,
          arith::AddIOp::create(builder, tl, t.begin,
                                indexConst(tl, dim.block)),
          dim.extentIndex);
    }
    return t;
  });
}

} // namespace dslc::mlirgen
