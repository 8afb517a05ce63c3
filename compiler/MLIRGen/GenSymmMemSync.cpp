//===- GenSymmMemSync.cpp - Helion's symm_mem_sync ------------------------===//
//
// Helion's distributed examples synchronize the CTAs of every rank with
// `hl.triton_kernel(symm_mem_sync, args=(signal_pad_ptrs, None, RANK,
// WORLD_SIZE, prev, subs), output_like=None)`, symm_mem_sync being a Triton
// function of helion.runtime.triton.dist_utils. dslc does not compile
// Triton code; it knows what that function does and generates it as the
// DSL would (tests/compiler/MLIRGen/Inputs/helion_distributed.py,
// pad_barrier): a signal (CAS 0 -> 1, release, scope sys) to slot [block,
// rank] of every peer's pad through the table, then a wait (CAS 1 -> 0,
// acquire, scope sys) on slots [block, 0..world) of the local pad, with a
// CTA barrier before the signal when prev and after the wait when subs.
// (Helion relaxes the signal without prev and the wait without subs; see
// genSymmMemSync for why dslc does not.)
//
// Helion passes only the table of pad addresses; dslc's callers allocate a
// pad from a kernel parameter (role signal_pad) and fill its table. So the
// compiler adds that parameter: `TABLE.pad`, the local pad the table points
// at, marked implicit in the metadata (docs/kernel-abi.md, "Implicit
// parameters"); every caller binds it like any signal pad, and never from
// the user's arguments.
//
//===----------------------------------------------------------------------===//

#include "compiler/MLIRGen/Generator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <array>

using namespace mlir;

namespace dslc::mlirgen {

/// Where Helion defines symm_mem_sync (v1.4.0 and later releases).
static const char *const kHelionSyncPaths[] = {
    "helion.runtime.triton.dist_utils.symm_mem_sync",
    "helion.runtime.dist_utils.symm_mem_sync"};

/// symm_mem_sync's parameters, in order; the last two default to False.
static const char *const kSyncParams[] = {"signal_pad_ptrs",
                                          "block_id",
                                          "rank",
                                          "world_size",
                                          "hasPreviousMemAccess",
                                          "hasSubsequentMemAccess"};
static constexpr size_t kSyncRequired = 4;

bool Generator::isHelionSymmMemSync(const ast::Expr &callee) {
  std::optional<std::string> dotted = ast::getDottedName(callee);
  if (!dotted)
    return false;
  std::string first = dotted->substr(0, dotted->find('.'));
  if (lookup(first) || helperNamed(first))
    return false;
  return llvm::is_contained(kHelionSyncPaths, importedFromModule(*dotted));
}

Value Generator::flatGridTileId(mlir::Location l) {
  Operation *at = builder.getInsertionBlock()->getParentOp();
  auto grid = isa<tile::GridOp>(at) ? cast<tile::GridOp>(at)
                                    : at->getParentOfType<tile::GridOp>();
  Block &body = grid.getBody().front();
  Value flat = body.getArgument(0);
  for (unsigned d = 1; d < grid.getNumDims(); ++d) {
    // tiles of dimension d: ceil(extent / block).
    Value tiles = arith::CeilDivUIOp::create(
        builder, l, grid.getExtents()[d], indexConst(l, grid.getBlocks()[d]));
    flat = arith::AddIOp::create(builder, l,
                                 arith::MulIOp::create(builder, l, flat, tiles),
                                 body.getArgument(d));
  }
  return flat;
}

SemValue Generator::implicitPad(const SemValue &table, int64_t world,
                                mlir::Location l) {
  std::string name = table.text + ".pad";
  Block &entry = func.getBody().front();
  SemValue pad = SemValue::ofKind(SemValue::Kind::Ref);
  pad.text = name;
  auto known = llvm::find(argNames, name);
  if (known != argNames.end()) {
    pad.value = entry.getArgument(known - argNames.begin());
    return pad;
  }
  // Right after the table (and its own peers slot, if it had one).
  auto at = llvm::find(argNames, table.text) + 1;
  if (at != argNames.end() && *at == table.text + ".peers")
    ++at;
  unsigned index = at - argNames.begin();
  auto type = tile::RefType::get(&ctx, builder.getI32Type(), 2);
  pad.value = entry.insertArgument(index, type, l);
  argNames.insert(argNames.begin() + index, name);
  func.setType(builder.getFunctionType(entry.getArgumentTypes(), {}));
  ParamDescription spec;
  spec.name = name;
  spec.dtype = contract::DType::Int32;
  spec.rank = 2;
  spec.implicit = true;
  desc.args.insert(desc.args.begin() + desc.findArg(table.text) + 1, spec);
  refDTypes[name] = "int32";
  // One row per tile of the grid, one flag per rank (the constrained shape
  // callers allocate, contract/Sizing.h).
  addConstraint({name, 1, "==", world});
  addConstraint({name, 0, ">=", contract::NumTiles{}});
  return pad;
}

Result Generator::genSymmMemSync(SourceRange callRange,
                                 const std::vector<HelperArg> &args) {
  const char *fn = "symm_mem_sync";
  std::string usage = "(signal_pad_ptrs, block_id, rank, world_size, "
                      "hasPreviousMemAccess=False, "
                      "hasSubsequentMemAccess=False)";
  // The arguments by parameter (null: not given).
  std::array<const HelperArg *, std::size(kSyncParams)> given{};
  size_t positional = 0;
  for (const HelperArg &a : args) {
    size_t i = 0;
    if (a.keyword.empty()) {
      if (positional >= std::size(kSyncParams))
        return fail(a.range, std::string(fn) + "() takes at most 6 arguments " +
                                 usage + ", got " +
                                 std::to_string(args.size()));
      i = positional++;
    } else {
      i = llvm::find(kSyncParams, a.keyword) - std::begin(kSyncParams);
      if (i == std::size(kSyncParams))
        return fail(a.range, std::string(fn) +
                                 "() got an unexpected keyword argument '" +
                                 a.keyword + "'; it takes " + usage);
    }
    if (given[i])
      return fail(a.range, std::string(fn) +
                               "() got multiple values for argument '" +
                               kSyncParams[i] + "'");
    given[i] = &a;
  }
  for (size_t i = 0; i < kSyncRequired; ++i)
    if (!given[i])
      return fail(callRange, std::string(fn) + "() is missing argument '" +
                                 kSyncParams[i] + "'; it takes " + usage);
  if (!inGrid)
    return fail(callRange, std::string(fn) +
                               " synchronizes the CTAs that run one tile "
                               "on every rank: call it inside the "
                               "kernel's tile loop");

  // The table: a uint64 tensor parameter of the kernel.
  const HelperArg &tableArg = *given[0];
  Result table = genExpr(*tableArg.value);
  if (failed(table))
    return failure();
  int tableIndex =
      table->kind == SemValue::Kind::Ref ? desc.findArg(table->text) : -1;
  auto tableType = table->kind == SemValue::Kind::Ref
                       ? cast<tile::RefType>(table->value.getType())
                       : tile::RefType();
  if (tableIndex < 0 || desc.args[tableIndex].isOutput ||
      desc.args[tableIndex].implicit || tableType.getRank() != 1 ||
      !tableType.getElementType().isInteger(64))
    return fail(tableArg.range,
                std::string(fn) +
                    ": signal_pad_ptrs must be a 1-d uint64 tensor parameter "
                    "of the kernel (the table of every rank's signal pad "
                    "address), got " +
                    (table->kind == SemValue::Kind::Ref
                         ? "'" + table->text + "'"
                         : std::string(kindName(table->kind))));

  // block_id: None is this CTA's tile.
  const HelperArg *blockArg = given[1];
  Result block = genExpr(*blockArg->value);
  if (failed(block))
    return failure();
  bool ownTile = block->kind == SemValue::Kind::None;
  if (!ownTile && block->kind != SemValue::Kind::Int &&
      !(block->kind == SemValue::Kind::Scalar &&
        isa<IntegerType, IndexType>(block->value.getType())))
    return fail(blockArg->range,
                std::string(fn) +
                    ": block_id must be None (this CTA's tile) "
                    "or an integer such as tile.id, got " +
                    kindName(block->kind));
  if (block->kind == SemValue::Kind::Int && block->intValue < 0)
    return fail(blockArg->range,
                std::string(fn) + ": block_id cannot be negative");

  // rank, world_size and the two flags: compile-time values.
  std::array<int64_t, 4> consts{0, 0, 0, 0}; // rank, world, prev, subs
  for (size_t i = 2; i < std::size(kSyncParams); ++i) {
    if (!given[i])
      continue;
    Result v = genExpr(*given[i]->value);
    if (failed(v))
      return failure();
    FailureOr<int64_t> c =
        toConstInt(*v, *given[i]->value,
                   std::string(fn) + "'s " + kSyncParams[i] +
                       (i < 4 ? " (a constexpr)" : " (True or False)"));
    if (failed(c))
      return failure();
    consts[i - 2] = *c;
  }
  auto [rank, world, prev, subs] = consts;
  const ast::Expr &rankExpr = *given[2]->value, &worldExpr = *given[3]->value;
  if (!desc.worldSize)
    return fail(worldExpr.getRange(), std::string(fn) +
                                          " needs the world size the kernel is "
                                          "compiled for: pass --world-size " +
                                          std::to_string(world));
  if (world != *desc.worldSize)
    return fail(worldExpr.getRange(),
                std::string(fn) + ": world_size is " + std::to_string(world) +
                    " but the kernel is compiled for a world of " +
                    std::to_string(*desc.worldSize));
  if (rank < 0 || rank >= world)
    return fail(rankExpr.getRange(),
                std::string(fn) + ": rank " + std::to_string(rank) +
                    " is outside the world of " + std::to_string(world));
  if (desc.rank && rank != *desc.rank)
    return fail(rankExpr.getRange(),
                std::string(fn) + ": rank is " + std::to_string(rank) +
                    " but the kernel is compiled for rank " +
                    std::to_string(*desc.rank));

  mlir::Location l = loc(callRange);
  Value slot;
  if (ownTile) {
    slot = flatGridTileId(l);
  } else {
    FailureOr<Value> i = toIndex(*block, *blockArg->value);
    if (failed(i))
      return failure();
    slot = *i;
  }
  SemValue pad = implicitPad(*table, world, l);
  SemValue peers = stackOf(pad, *table, l);

  SignalOptions signal;
  signal.extra = 0; // CAS 0 -> 1: a peer's flag is reset before reuse
  signal.scope = comm::MemScope::sys;
  // Release and acquire whatever the flags say (they place the barriers):
  // Helion's relaxed variants order nothing, so a peer's read after pattern
  // 0 would not be ordered after this rank's writes before the launch (the
  // host's refill of an input), which the PTX memory model does not make
  // visible; --simulate reports that as a race. pad_barrier's choice too.
  signal.sem = comm::MemSem::release;
  signal.memAccess = prev != 0;
  emitSignalWait(/*isSignal=*/true, peers.value,
                 {{slot, indexConst(l, rank)}, {1, 1}}, signal, l);
  SignalOptions wait;
  wait.extra = 0; // CAS 1 -> 0: the pad resets itself
  wait.scope = comm::MemScope::sys;
  wait.sem = comm::MemSem::acquire;
  wait.memAccess = subs != 0;
  emitSignalWait(/*isSignal=*/false, pad.value,
                 {{slot, indexConst(l, 0)}, {1, world}}, wait, l);
  return SemValue::none();
}

} // namespace dslc::mlirgen
