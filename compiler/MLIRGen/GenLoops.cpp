//===- GenLoops.cpp - for loops: hl.tile, hl.grid, range, tuples ----------===//

#include "compiler/Limits.h"
#include "compiler/MLIRGen/Generator.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;

namespace dslc::mlirgen {

LogicalResult Generator::genFor(const ast::ForStmt &s) {
  ++loopDepth;
  LogicalResult r = genForLoop(s);
  --loopDepth;
  return r;
}

LogicalResult Generator::genForLoop(const ast::ForStmt &s) {
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
      return genRangeLoop(s, *call, /*forceUnroll=*/false);
    if (callee && (*callee == "hl.static_range" ||
                   *callee == "helion.language.static_range"))
      return genRangeLoop(s, *call, /*forceUnroll=*/true);
    if (callee && (*callee == "enumerate" || *callee == "zip"))
      if (auto r = genZippedPeerLoop(s, *call, *callee == "enumerate"))
        return *r;
  }
  Result it = genExpr(iter);
  if (failed(it))
    return failure();
  if (it->kind == SemValue::Kind::PeerList) {
    auto n = peerCount(*it, iter);
    if (failed(n))
      return failure();
    const SemValue &list = *it;
    return genPeerLoop(
        s, *n, [&](Value p) { return peer(list, p, iter); },
        [&](int64_t p) { return peer(list, p, iter); });
  }
  if (it->kind == SemValue::Kind::Tuple) {
    const std::vector<SemValue> elements = it->elements;
    if (failed(reserveUnrolled(elements.size(), s, std::nullopt)))
      return failure();
    return genUnrolled(s, elements.size(), [&](int64_t k) {
      return genLoopBody(s, s.getTarget(), elements[k]);
    });
  }
  return error(iter.getRange(),
               std::string("a kernel loops over hl.tile, hl.grid, range or "
                           "a tuple of tensors, not ") +
                   kindName(it->kind));
}

LogicalResult Generator::genRangeLoop(const ast::ForStmt &s,
                                      const ast::CallExpr &call,
                                      bool forceUnroll) {
  const ast::Expr &iter = s.getIter();
  std::vector<SemValue> args;
  for (const ast::Argument &a : call.getArgs()) {
    if (a.kind != ast::Argument::Kind::Positional)
      return error(a.range, "range takes positional arguments");
    Result v = genExpr(*a.value);
    if (failed(v))
      return failure();
    if (v->kind == SemValue::Kind::Unbound)
      return unboundError(*v, a.value->getRange());
    args.push_back(*v);
  }
  if (args.empty() || args.size() > 3)
    return error(call.getRange(), "range takes 1 to 3 arguments");
  SemValue start = args.size() > 1 ? args[0] : SemValue::integer(0);
  SemValue stop = args.size() > 1 ? args[1] : args[0];
  SemValue step = args.size() > 2 ? args[2] : SemValue::integer(1);
  if (step.kind != SemValue::Kind::Int)
    return error(args.size() > 2 ? call.getArgs()[2].value->getRange()
                                 : call.getRange(),
                 "the step of a range must be a compile-time integer");
  if (step.intValue == 0)
    return error(call.getRange(), "range step must not be zero");
  if (step.intValue == std::numeric_limits<int64_t>::min()) // |step| overflows
    return error(call.getArgs()[2].value->getRange(),
                 "range step must be above -2**63");
  for (const SemValue *bound : {&start, &stop})
    if (!isIndexLike(*bound))
      return error(call.getRange(), std::string("range takes integers, got ") +
                                        kindName(bound->kind));
  if (start.kind == SemValue::Kind::Int && stop.kind == SemValue::Kind::Int) {
    // Iterations of range(start, stop, step), without overflow.
    __int128 span = step.intValue > 0
                        ? __int128(stop.intValue) - start.intValue
                        : __int128(start.intValue) - stop.intValue;
    __int128 by = step.intValue > 0 ? step.intValue : -__int128(step.intValue);
    int64_t count = span <= 0 ? 0 : int64_t((span + by - 1) / by);
    if (count == 0)
      return success();
    return genConstantRange(s, start.intValue, step.intValue, count,
                            forceUnroll);
  }
  if (forceUnroll)
    return error(call.getRange(), "hl.static_range needs compile-time bounds");
  // A run-time range: iterations k = 0 .. count-1 of start + k * step.
  mlir::Location l = loc(iter);
  auto lb = toIndex(start, iter), ub = toIndex(stop, iter);
  if (failed(lb) || failed(ub))
    return failure();
  int64_t by = step.intValue > 0 ? step.intValue : -step.intValue;
  Value span = step.intValue > 0 ? arith::SubIOp::create(builder, l, *ub, *lb)
                                 : arith::SubIOp::create(builder, l, *lb, *ub);
  Value zero = indexConst(l, 0);
  Value count = arith::CeilDivSIOp::create(
      builder, l, arith::MaxSIOp::create(builder, l, span, zero),
      indexConst(l, by));
  return genRuntimeLoop(s, zero, count, indexConst(l, 1), [&](Value k) {
    SemValue v = SemValue::ofKind(SemValue::Kind::Scalar);
    v.value = arith::AddIOp::create(
        builder, l, *lb,
        arith::MulIOp::create(builder, l, k, indexConst(l, step.intValue)));
    return v;
  });
}

LogicalResult Generator::genConstantRange(const ast::ForStmt &s, int64_t start,
                                          int64_t step, int64_t count,
                                          bool forceUnroll) {
  // A loop over constants stays an scf.for unless it is short
  // (kAutoUnrollIterations) with copies within kMaxAutoUnrolledWork, or its
  // body needs the loop variable as a compile-time value (a tuple index, an
  // `if`, a shape...): the body is generated once with a run-time variable,
  // quietly; if that fails, the loop is unrolled (bounded by
  // kMaxUnrolledBodies and kMaxUnrolledLoopWork).
  std::optional<Diagnostic> why;
  if (!forceUnroll && count > 1) {
    mlir::Location l = loc(s.getIter());
    int64_t before = work.total;
    auto keep = [&] {
      int64_t body = std::max<int64_t>(work.total - before, 1);
      return count > kAutoUnrollIterations ||
             body > kMaxAutoUnrolledWork / count;
    };
    bool kept = speculate(
        [&]() -> LogicalResult {
          return genRuntimeLoop(
              s, indexConst(l, 0), indexConst(l, count), indexConst(l, 1),
              [&](Value k) {
                SemValue v = SemValue::ofKind(SemValue::Kind::Scalar);
                v.value = arith::AddIOp::create(
                    builder, l, indexConst(l, start),
                    arith::MulIOp::create(builder, l, k, indexConst(l, step)));
                return v;
              });
        },
        why, keep);
    if (kept)
      return success();
    if (count <= kAutoUnrollIterations)
      why.reset(); // unrolled for being short, whatever the body needs
  }
  if (failed(reserveUnrolled(count, s, why)))
    return failure();
  // Step from value to value: each lies between start and the stop, so it
  // fits in int64, where k * step need not (range(-2**63 + 1, 2**63 - 1,
  // 2**62): 2 * 2**62 overflows).
  int64_t value = start;
  return genUnrolled(s, count, [&](int64_t k) {
    if (failed(genLoopBody(s, s.getTarget(), SemValue::integer(value))))
      return failure();
    if (k + 1 < count)
      value += step;
    return success();
  });
}

std::optional<LogicalResult>
Generator::genZippedPeerLoop(const ast::ForStmt &s, const ast::CallExpr &call,
                             bool enumerate) {
  // Only names bound to peer lists: looking them up has no side effects, so
  // anything else is generated as before.
  std::vector<SemValue> lists;
  const ast::Expr *startArg = nullptr;
  for (const ast::Argument &a : call.getArgs()) {
    if (a.kind == ast::Argument::Kind::Keyword && enumerate &&
        a.name == "start" && !startArg) {
      startArg = a.value.get();
      continue;
    }
    auto *name = ast::dyn_cast<ast::NameExpr>(a.value.get());
    SemValue *v = name ? lookup(name->getName()) : nullptr;
    if (a.kind != ast::Argument::Kind::Positional || !v ||
        v->kind != SemValue::Kind::PeerList)
      return std::nullopt;
    lists.push_back(*v);
  }
  if (lists.empty() || (enumerate && lists.size() != 1))
    return std::nullopt;
  int64_t start = 0;
  if (startArg) {
    auto c = constIntOf(*startArg, "enumerate's start");
    if (failed(c))
      return failure();
    start = *c;
  }
  const ast::Expr &iter = s.getIter();
  int64_t peers = std::numeric_limits<int64_t>::max();
  for (const SemValue &list : lists) {
    auto n = peerCount(list, iter);
    if (failed(n))
      return failure();
    peers = std::min(peers, *n);
  }
  // enumerate: (index, copy); zip: a copy of each list.
  auto make = [&](auto index, auto copy) {
    SemValue t = SemValue::ofKind(SemValue::Kind::Tuple);
    if (enumerate)
      t.elements.push_back(index());
    for (const SemValue &list : lists)
      t.elements.push_back(copy(list));
    return t;
  };
  mlir::Location l = loc(iter);
  return genPeerLoop(
      s, peers,
      [&](Value p) {
        return make(
            [&] {
              SemValue i = SemValue::ofKind(SemValue::Kind::Scalar);
              i.value =
                  arith::AddIOp::create(builder, l, p, indexConst(l, start));
              return i;
            },
            [&](const SemValue &list) { return peer(list, p, iter); });
      },
      [&](int64_t p) {
        return make([&] { return SemValue::integer(start + p); },
                    [&](const SemValue &list) { return peer(list, p, iter); });
      });
}

LogicalResult
Generator::genPeerLoop(const ast::ForStmt &s, int64_t peers,
                       llvm::function_ref<SemValue(Value)> item,
                       llvm::function_ref<SemValue(int64_t)> itemAt) {
  // Unrolled, the copies' loads from every peer are in flight together; but
  // a wide world of wide bodies makes code the backend takes minutes over
  // (a one-shot at 64 ranks, 64 elements per thread: 1.8 MB of PTX, 54 s).
  // The body is generated once as a loop over the peer table and kept when
  // its copies would pass kMaxAutoUnrolledWork; a body that needs the peer
  // at compile time is unrolled.
  const ast::Expr &iter = s.getIter();
  mlir::Location l = loc(iter);
  std::optional<Diagnostic> why;
  int64_t before = work.total;
  auto loop = [&]() -> LogicalResult {
    return genRuntimeLoop(s, indexConst(l, 0), indexConst(l, peers),
                          indexConst(l, 1), item);
  };
  auto wide = [&] {
    int64_t body = std::max<int64_t>(work.total - before, 1);
    return body > kMaxAutoUnrolledWork / peers;
  };
  if (peers > 1 && speculate(loop, why, wide))
    return success();
  if (failed(reserveUnrolled(peers, s, std::nullopt)))
    return failure();
  return genUnrolled(s, peers, [&](int64_t p) {
    return genLoopBody(s, s.getTarget(), itemAt(p));
  });
}

LogicalResult
Generator::genUnrolled(const ast::ForStmt &s, int64_t copies,
                       llvm::function_ref<LogicalResult(int64_t)> genCopy) {
  int64_t before = work.total;
  for (int64_t k = 0; k < copies; ++k) {
    if (failed(genCopy(k)))
      return failure();
    if (work.total - before <= kMaxUnrolledLoopWork || workReported)
      continue;
    // The backend's time grows faster than the copies' code: stop here.
    std::string blocks;
    for (int64_t b : blockSizes)
      blocks += (blocks.empty() ? "" : ", ") + std::to_string(b);
    workReported = true;
    return error(
        s.getRange(),
        "this loop is unrolled into " + std::to_string(copies) +
            " copies whose per-thread work passes " +
            std::to_string(kMaxUnrolledLoopWork) +
            " tile elements per thread at copy " + std::to_string(k + 1) +
            " (kMaxUnrolledLoopWork, compiler/Limits.h; config block_sizes=[" +
            blocks + "], num_warps=" + std::to_string(work.threads / 32) +
            "): iterate at run time (over the peers or a range, not "
            "hl.static_range), or use more warps or a smaller block");
  }
  return success();
}

LogicalResult Generator::reserveUnrolled(int64_t copies, const ast::ForStmt &s,
                                         const std::optional<Diagnostic> &why) {
  if (copies <= kMaxUnrolledBodies - unrolledBodies) {
    unrolledBodies += copies;
    return success();
  }
  std::string reason =
      why ? " because its body needs the loop variable at compile time" : "";
  (void)error(s.getRange(),
              "this loop is unrolled" + reason + " and would bring the " +
                  "kernel to more than " + std::to_string(kMaxUnrolledBodies) +
                  " unrolled loop bodies (" + std::to_string(copies) +
                  " here, " + std::to_string(unrolledBodies) +
                  " before it): use the loop variable as a run-time value "
                  "or shorten the loop");
  if (why)
    diags->note(why->range, "with a run-time loop variable: " + why->message);
  return failure();
}

bool Generator::speculate(llvm::function_ref<LogicalResult()> gen,
                          std::optional<Diagnostic> &firstError,
                          llvm::function_ref<bool()> accept) {
  Block *block = builder.getInsertionBlock();
  Block::iterator point = builder.getInsertionPoint();
  Operation *before = point == block->begin() ? nullptr : &*std::prev(point);
  Snapshot saved = snapshot();
  DiagnosticEngine quiet(diags->getSourceManager(), nullptr);
  quiet.setErrorLimit(1);
  DiagnosticEngine *outer = diags;
  diags = &quiet;
  LogicalResult result = gen();
  diags = outer;
  bool ok = succeeded(result) && !quiet.hasErrors();
  if (ok && (!accept || accept())) {
    for (const Diagnostic &d : quiet.getDiagnostics())
      diags->report(d.range, d.severity, d.message);
    return true;
  }
  // Roll back: the ops made since `before`, then the generator's state.
  Operation *first = before ? before->getNextNode() : &block->front();
  Operation *stop = point == block->end() ? nullptr : &*point;
  SmallVector<Operation *> made;
  for (Operation *op = first; op && op != stop; op = op->getNextNode())
    made.push_back(op);
  for (Operation *op : llvm::reverse(made)) {
    op->dropAllUses();
    op->erase();
  }
  builder.setInsertionPoint(block, stop ? Block::iterator(stop) : block->end());
  restore(saved);
  for (const Diagnostic &d : quiet.getDiagnostics())
    if (!ok && d.severity == Severity::Error) {
      firstError = d;
      break;
    }
  return false;
}

Generator::Snapshot Generator::snapshot() {
  return Snapshot{scopes,      nextBlockSize,  usedDefines,  reportedUnbound,
                  failedSizes, refDTypes,      argNames,     desc,
                  inGrid,      returned,       workReported, unrolledBodies,
                  work.total,  work.statements};
}

void Generator::restore(const Snapshot &s) {
  // The arguments added since (outputs at the end, implicit pads after
  // their tables): those whose names the snapshot does not have.
  Block &entry = func.getBody().front();
  llvm::BitVector added(entry.getNumArguments());
  for (unsigned i = 0; i < argNames.size() && i < added.size(); ++i)
    added[i] = !llvm::is_contained(s.argNames, argNames[i]);
  if (added.any()) {
    entry.eraseArguments(added);
    func.setType(builder.getFunctionType(entry.getArgumentTypes(), {}));
  }
  scopes = s.scopes;
  nextBlockSize = s.nextBlockSize;
  usedDefines = s.usedDefines;
  reportedUnbound = s.reportedUnbound;
  failedSizes = s.failedSizes;
  refDTypes = s.refDTypes;
  argNames = s.argNames;
  desc = s.desc;
  inGrid = s.inGrid;
  returned = s.returned;
  unrolledBodies = s.unrolledBodies;
  workReported = s.workReported;
  work.total = s.workTotal;
  work.statements = s.workStatements;
}

LogicalResult Generator::genLoopBody(const ast::ForStmt &s,
                                     const ast::Expr &target, SemValue item) {
  if (failed(genAssign(target, std::move(item), s.getRange())))
    return failure();
  return genBlock(s.getBody());
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
    if (v && v->kind == SemValue::Kind::Unmerged) { // an if's paths differ
      std::string message = v->text;
      *v = SemValue::ofKind(SemValue::Kind::Poison); // one error
      scopes.pop_back();
      return error(s.getRange(), message);
    }
    if (!v || !v->value || v->value.getType() != inits[i].getType()) {
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
    // Facts about the last iteration's value that name values of the loop
    // body do not hold after it: a tail masked in one iteration was
    // filled by the earlier ones.
    v.indexTile.reset();
    for (ValidCount &count : v.valid)
      llvm::erase_if(count.bounds, [&](const ValidCount::Bound &b) {
        return llvm::any_of(
            std::initializer_list<Value>{b.begin, b.end, b.ref},
            [&](Value x) { return x && !loop.isDefinedOutsideOfLoop(x); });
      });
    bind(name, v);
  }
  return success();
}

} // namespace dslc::mlirgen
