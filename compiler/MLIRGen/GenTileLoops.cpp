//===- GenTileLoops.cpp - hl.tile and hl.grid loops -----------------------===//

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

LogicalResult Generator::genTileLoop(const ast::ForStmt &s,
                                     const ast::CallExpr &call, bool isGrid) {
  // Extents: hl.tile(n), hl.tile([m, n]) or hl.tile(begin, end) (the
  // tiles of [begin, end), in turn; nested in the grid loop, lists of
  // begins and ends too).
  const ast::Expr *extentArg = argument(call, 0, "begin_or_end");
  if (!extentArg)
    return error(call.getRange(), "hl.tile needs the extent to iterate");
  const ast::Expr *beginArg = nullptr;
  if (const ast::Expr *endArg = argument(call, 1, "end_or_none")) {
    if (!ast::isa<ast::NoneLiteralExpr>(*endArg)) {
      auto isList = [](const ast::Expr &x) {
        return ast::isa<ast::ListExpr>(x) || ast::isa<ast::TupleExpr>(x);
      };
      if (isList(*extentArg) && !inGrid)
        return error(extentArg->getRange(),
                     "hl.tile(begin, end) of the grid loop takes scalars (a "
                     "1-d range); a nested loop may take lists");
      if (isList(*extentArg) != isList(*endArg))
        return error(extentArg->getRange(),
                     "hl.tile(begin, end) takes two scalars or two lists");
      beginArg = extentArg;
      extentArg = endArg;
    }
  }
  std::vector<const ast::Expr *> extentExprs = elementsOf(*extentArg);
  if (extentExprs.empty())
    return error(extentArg->getRange(), "hl.tile needs at least one extent");
  // The extents' values; one expression may hold them all
  // (hl.tile(x.size()), hl.tile(out.shape)).
  std::vector<std::pair<SemValue, const ast::Expr *>> extents;
  for (const ast::Expr *x : extentExprs) {
    Result v = genExpr(*x);
    if (failed(v))
      return failure();
    if (v->kind == SemValue::Kind::Tuple && extentExprs.size() == 1) {
      for (const SemValue &el : v->elements)
        extents.push_back({el, x});
      if (extents.empty())
        return error(x->getRange(), "hl.tile needs at least one extent");
      continue;
    }
    extents.push_back({*v, x});
  }
  // A loop nested in the grid loop runs inside one CTA over a dimension
  // the grid does not split (a row's columns, a reduction): under
  // static_shapes (Helion's default) its extent is compiled in where
  // --shape gives it, a launch constraint like hl.specialize, so the
  // tiles' valid counts, masks and bound checks fold where the block
  // divides it. The grid's extents (the token count) stay run-time sizes.
  if (inGrid && staticShapes)
    for (auto &[v, x] : extents)
      if (v.kind == SemValue::Kind::Scalar && v.known) {
        FailureOr<int64_t> n = toConstInt(v, *x, "a loop extent");
        if (failed(n))
          return failure();
        // The size it was read from stays its origin: a tensor another
        // dimension of which this loop's tiles index must still have that
        // size (a same-size rule the launch checks).
        std::optional<ScalarOrigin> origin = v.origin;
        v = SemValue::integer(*n);
        v.origin = std::move(origin);
      }
  // The extents --shape gives: the largest sensible block (Helion clamps
  // its default block size to them).
  SmallVector<int64_t> hints;
  for (const auto &[v, x] : extents)
    hints.push_back(v.kind == SemValue::Kind::Int ? v.intValue
                    : v.kind == SemValue::Kind::Scalar && v.known
                        ? v.known->value
                        : 0);
  std::vector<int> blockIndices(extents.size(), -1);
  auto blocks =
      tileBlockSizes(call, extents.size(), isGrid, hints, blockIndices);
  if (failed(blocks))
    return failure();
  // The grid loop's tunable blocks size the launch (the tuner's CTA count).
  if (!inGrid)
    for (int index : blockIndices)
      for (contract::Tunable &t : desc.tunables)
        if (index >= 0 && t.kind == contract::Tunable::Kind::BlockSize &&
            t.index == unsigned(index))
          t.tilesGrid = true;

  std::vector<TileDim> dims(extents.size());
  for (size_t d = 0; d < extents.size(); ++d) {
    const auto &[v, x] = extents[d];
    dims[d].extentExpr = x;
    dims[d].block = (*blocks)[d];
    dims[d].blockIndex = blockIndices[d];
    if (v.kind == SemValue::Kind::Int && v.intValue < 0)
      return error(x->getRange(), "a loop extent cannot be negative, got " +
                                      std::to_string(v.intValue));
    auto idx = toIndex(v, *x);
    if (failed(idx))
      return failure();
    dims[d].extent = v;
    dims[d].extentIndex = *idx;
  }
  // Names for the per-dimension tile variables; one name for several
  // dimensions is the tuple of their tiles (`for tile in hl.tile([m, n])`).
  std::vector<const ast::Expr *> targets;
  if (extents.size() == 1 || ast::isa<ast::NameExpr>(s.getTarget())) {
    targets.push_back(&s.getTarget());
  } else if (auto *tuple = ast::dyn_cast<ast::TupleExpr>(&s.getTarget())) {
    for (const ast::ExprPtr &e : tuple->getElements())
      targets.push_back(e.get());
  }
  if (targets.size() != 1 || extents.size() == 1) {
    if (targets.size() != extents.size())
      return error(s.getTarget().getRange(),
                   "a " + std::to_string(extents.size()) +
                       "-d tile loop needs as many loop variables");
    for (size_t d = 0; d < extents.size(); ++d)
      dims[d].target = targets[d];
  }
  if (!inGrid) {
    int64_t shift = 0;
    if (beginArg) {
      // A grid over [begin, end): the tiles of end - begin, shifted.
      auto c = constIntOf(*beginArg, "the begin of the kernel's grid");
      if (failed(c))
        return failure();
      Result n = binaryOp(ast::BinaryOp::Sub, dims[0].extent,
                          SemValue::integer(*c), call);
      auto idx = succeeded(n) ? toIndex(*n, call) : FailureOr<Value>(failure());
      if (failed(idx))
        return failure();
      dims[0].extent = *n;
      dims[0].extentIndex = *idx;
      shift = *c;
    }
    return genGridLoop(s, dims, isGrid, shift);
  }
  return genNestedTileLoop(s, call, beginArg, dims, isGrid);
}

FailureOr<std::vector<int64_t>>
Generator::tileBlockSizes(const ast::CallExpr &call, size_t numDims,
                          bool isGrid, ArrayRef<int64_t> hints,
                          std::vector<int> &indices) {
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
      auto v = constIntOf(*blockExprs[d], "a block size");
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
    indices[d] = int(nextBlockSize);
    FailureOr<int64_t> block = takeBlockSize(call.getRange(), "this tile", 1, 0,
                                             d < hints.size() ? hints[d] : 0);
    if (failed(block))
      return failure();
    blocks.push_back(*block);
  }
  return blocks;
}

void Generator::recordTileBlock(const TileDim &dim, const SemValue &tile) {
  if (probe && dim.blockIndex >= 0 && tile.kind == SemValue::Kind::Tile)
    probe->tileBlocks[tile.begin] = unsigned(dim.blockIndex);
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
  recordTileBlock(dim, t);
  t.extentOrigin = dim.extent.origin;
  t.extent = dim.extentIndex;
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
  } else if (extent.kind == SemValue::Kind::Scalar &&
             !extent.sizesRead.empty()) {
    // Computed from several sizes (x.numel(), b * m): the launch sizes its
    // tiles from one size or a constant, so --shape compiles it in.
    FailureOr<int64_t> n =
        toConstInt(extent, *dim.extentExpr, "the grid's extent");
    if (failed(n))
      return failure();
    ge.constant = *n;
  } else {
    return error(dim.extentExpr->getRange(),
                 "the grid's extent must be a tensor size, a scalar "
                 "parameter or a constant");
  }
  return ge;
}

LogicalResult Generator::genGridLoop(const ast::ForStmt &s,
                                     std::vector<TileDim> &dims, bool isGrid,
                                     int64_t shift) {
  // The outermost tile loop: the grid of CTAs.
  mlir::Location l = loc(s.getRange());
  SmallVector<Value> extentIndex;
  SmallVector<int64_t> blocks;
  for (const TileDim &d : dims) {
    extentIndex.push_back(d.extentIndex);
    blocks.push_back(d.block);
  }
  // A later top-level loop: its tiles go to the metadata's more loops.
  std::vector<GridExtent> &extents =
      gridLoop ? desc.moreGrids.emplace_back() : desc.grid;
  gridLoop = &s;
  pendingBarrier = nullptr; // a barrier before this loop orders it
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
    extents.push_back(*ge);
  }
  scopes.emplace_back();
  inGrid = true;
  SemValue tiles = SemValue::ofKind(SemValue::Kind::Tuple);
  for (size_t d = 0; d < dims.size(); ++d) {
    SemValue t = makeTile(dims[d], body->getArgument(d), isGrid);
    if (shift) {
      Result shifted =
          isGrid ? binaryOp(ast::BinaryOp::Add, t, SemValue::integer(shift),
                            s.getIter())
                 : shiftTile(t, SemValue::integer(shift), s.getIter());
      if (failed(shifted))
        return failure();
      t = *shifted;
      recordTileBlock(dims[d], t);
    }
    t.gridTile = true;
    if (!dims[d].target) {
      tiles.elements.push_back(t);
      continue;
    }
    if (failed(genAssign(*dims[d].target, t, s.getRange()))) {
      inGrid = false;
      scopes.pop_back();
      return failure();
    }
  }
  if (!tiles.elements.empty() &&
      failed(genAssign(s.getTarget(), tiles, s.getRange()))) {
    inGrid = false;
    scopes.pop_back();
    return failure();
  }
  LogicalResult r = genBlock(s.getBody());
  inGrid = false;
  scopes.pop_back();
  return r;
}

LogicalResult Generator::genGridBarrier(const ast::CallExpr &call) {
  if (!call.getArgs().empty())
    return error(call.getRange(), "hl.barrier takes no arguments");
  // Every CTA of the launch arrives at the barrier words after the epochs
  // in the kernel's state, so the kernel spins (the runtime caps its grid
  // at the CTAs that fit at once).
  tile::GridBarrierOp::create(builder, loc(call.getRange()));
  desc.spins = true;
  desc.stateBytes = std::max(desc.stateBytes, kGridBarrierStateEnd);
  pendingBarrier = &call;
  return success();
}

LogicalResult Generator::genNestedTileLoop(const ast::ForStmt &s,
                                           const ast::CallExpr &call,
                                           const ast::Expr *beginArg,
                                           std::vector<TileDim> &dims,
                                           bool isGrid) {
  // A nested tile loop: sequential inside the CTA. Over several
  // dimensions, one loop over every combination of tiles, the last
  // dimension fastest.
  mlir::Location l = loc(s.getRange());
  Value zero = indexConst(l, 0);
  Value one = indexConst(l, 1);
  SmallVector<Value> firsts(dims.size(), zero);
  if (beginArg) {
    std::vector<const ast::Expr *> begins = elementsOf(*beginArg);
    if (begins.empty())
      begins.push_back(beginArg);
    if (begins.size() != dims.size())
      return error(beginArg->getRange(),
                   "hl.tile has " + std::to_string(begins.size()) +
                       " begin(s) for " + std::to_string(dims.size()) +
                       " end(s)");
    for (size_t d = 0; d < dims.size(); ++d) {
      Result b = genExpr(*begins[d]);
      if (failed(b))
        return failure();
      auto idx = toIndex(*b, *begins[d]);
      if (failed(idx))
        return failure();
      firsts[d] = *idx;
    }
  }
  // Tiles of [first, end) per dimension: none when end <= first.
  SmallVector<Value> counts;
  Value total;
  for (size_t d = 0; d < dims.size(); ++d) {
    Value span = arith::SubIOp::create(
        builder, l,
        arith::MaxSIOp::create(builder, l, dims[d].extentIndex, firsts[d]),
        firsts[d]);
    counts.push_back(arith::CeilDivUIOp::create(builder, l, span,
                                                indexConst(l, dims[d].block)));
    total = total
                ? Value(arith::MulIOp::create(builder, l, total, counts.back()))
                : counts.back();
  }
  bool tuple = dims.size() > 1;
  return genRuntimeLoop(s, zero, total, one, [&](Value iv) {
    SemValue tiles = SemValue::ofKind(SemValue::Kind::Tuple);
    std::vector<SemValue> perDim(dims.size());
    for (size_t d = dims.size(); d-- > 0;) {
      Value id = iv;
      if (d > 0) {
        id = arith::RemUIOp::create(builder, l, iv, counts[d]);
        iv = arith::DivUIOp::create(builder, l, iv, counts[d]);
      }
      SemValue t = makeTile(dims[d], id, isGrid);
      if (beginArg) {
        mlir::Location tl = loc(*dims[d].extentExpr);
        t.begin = arith::AddIOp::create(builder, tl, t.begin, firsts[d]);
        t.end = arith::MinUIOp::create(
            builder, tl,
            arith::AddIOp::create(builder, tl, t.begin,
                                  indexConst(tl, dims[d].block)),
            dims[d].extentIndex);
        recordTileBlock(dims[d], t);
      }
      perDim[d] = t;
    }
    if (!tuple)
      return perDim[0];
    tiles.elements = std::move(perDim);
    return tiles;
  });
}

} // namespace dslc::mlirgen
