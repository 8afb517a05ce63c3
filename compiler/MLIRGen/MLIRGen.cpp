//===- MLIRGen.cpp - AST of a kernel to the Tile and Comm dialects -------===//
//
// The entry point: sets up the module and the kernel function, runs the
// generator over the kernel's body (Generator.h lists the file of each
// concern) and attaches what later stages read to the function.
//
//===----------------------------------------------------------------------===//

#include "compiler/MLIRGen/MLIRGen.h"
#include "compiler/Analysis/ChunkLoops.h"
#include "compiler/Analysis/FloatErrors.h"
#include "compiler/MLIRGen/AccessAnalysis.h"
#include "compiler/MLIRGen/Generator.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace dslc;

namespace dslc::mlirgen {

const char *kindName(SemValue::Kind k) {
  switch (k) {
  case SemValue::Kind::None:
    return "None";
  case SemValue::Kind::Int:
    return "an integer constant";
  case SemValue::Kind::Float:
    return "a float constant";
  case SemValue::Kind::String:
    return "a string";
  case SemValue::Kind::DType:
    return "a dtype";
  case SemValue::Kind::Scalar:
    return "a scalar";
  case SemValue::Kind::Ref:
    return "a tensor";
  case SemValue::Kind::PermutedRef:
    return "a tensor with permuted dimensions (a transposed argument, "
           "--dim-order, or x.T)";
  case SemValue::Kind::Stack:
    return "a stack tensor";
  case SemValue::Kind::PeerList:
    return "a tuple of peer tensors";
  case SemValue::Kind::Tile:
    return "a tile";
  case SemValue::Kind::TileData:
    return "a tile value";
  case SemValue::Kind::Tuple:
    return "a tuple";
  case SemValue::Kind::Module:
    return "a module";
  case SemValue::Kind::Unbound:
    return "a constexpr without a value";
  case SemValue::Kind::Poison:
    return "a value whose definition failed";
  case SemValue::Kind::Unmerged:
    return "a name some paths of an 'if' leave unassigned";
  case SemValue::Kind::Callable:
    return "a function";
  case SemValue::Kind::Host:
    return "a tensor host code computes";
  }
  return "a value";
}

/// For a kernel with one block size: the elements of its largest tile per
/// unit of the block (tuner: elements per thread of a row-tile kernel,
/// `x[rows, :]`, are rows x H / threads, not rows / threads).
static void recordBlockUnit(func::FuncOp func,
                            std::vector<contract::Tunable> &tunables) {
  contract::Tunable *block = nullptr;
  for (contract::Tunable &t : tunables) {
    if (t.kind != contract::Tunable::Kind::BlockSize)
      continue;
    if (block)
      return; // several: which of them a tile spans is the kernel's own
    block = &t;
  }
  if (!block || block->value < 1)
    return;
  int64_t largest = 0;
  func.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      if (auto tensor = dyn_cast<RankedTensorType>(t);
          tensor && tensor.hasStaticShape())
        largest = std::max(largest, tensor.getNumElements());
  });
  block->unitElements = std::max<int64_t>(1, largest / block->value);
}

/// The kernel's loads (tile.load, tile.gather) whose values it uses, in
/// program order: an op is used when it has effects beyond reads (a store,
/// a signal, a terminator), or a used op takes one of its results, or it
/// holds one in its regions. A load read for its shape only
/// (`torch.zeros_like(x[tile, 0])`) is not: Helion does not count it.
static SmallVector<Operation *> usedLoads(func::FuncOp func) {
  llvm::DenseSet<Operation *> used;
  SmallVector<Operation *> work;
  auto use = [&](Operation *op) {
    if (op && op != func.getOperation() && used.insert(op).second)
      work.push_back(op);
  };
  func.walk([&](Operation *op) {
    if (!wouldOpBeTriviallyDead(op))
      use(op);
  });
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    for (Value v : op->getOperands())
      use(v.getDefiningOp());
    use(op->getParentOp());
  }
  SmallVector<Operation *> loads;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<tile::LoadOp, tile::GatherOp>(op) && used.contains(op))
      loads.push_back(op);
  });
  return loads;
}

/// Gives the kernel's used loads the config's load_eviction_policies,
/// entry i to the i-th (Helion's order), except a load whose hl.load named
/// its own (an explicit "" stays without a hint); returns each load's
/// policy, in that order.
static std::vector<contract::EvictionPolicy>
applyLoadEvictions(func::FuncOp func,
                   llvm::ArrayRef<contract::EvictionPolicy> policies) {
  SmallVector<Operation *> loads = usedLoads(func);
  std::vector<contract::EvictionPolicy> applied;
  for (auto [i, load] : llvm::enumerate(loads)) {
    if (!tile::loadEviction(load) && i < policies.size())
      tile::setLoadEviction(load, static_cast<tile::Eviction>(policies[i]));
    applied.push_back(static_cast<contract::EvictionPolicy>(
        tile::loadEviction(load).value_or(tile::Eviction::normal)));
  }
  func.walk([](Operation *op) {
    if (tile::loadEviction(op) == tile::Eviction::normal)
      tile::setLoadEviction(op, std::nullopt);
  });
  return applied;
}

/// Whether every matrix product of `func` can run on tensor cores by type
/// (2-d or batched 3-d tiles of bf16, f16 or fp8; f32 too in tf32 when
/// `allowTf32`); none when it has no products.
static std::optional<bool> productsTakeTensorCores(func::FuncOp func,
                                                   bool allowTf32) {
  std::optional<bool> all;
  func.walk([&](tile::DotOp dot) {
    all = all.value_or(true) &&
          tile::takesTensorCores(dot.getLhs().getType().getElementType(),
                                 allowTf32);
  });
  return all;
}

/// The engine of a kernel's matrix products when its config names none:
/// tensor cores where the target has them and every product can take them
/// (productsTakeTensorCores): wgmma on sm_90 (Hopper only;
/// -dslc-pipeline-dots keeps mma.sync for a product wgmma cannot take),
/// mma.sync on sm_80 and later; else f32 FMAs on CUDA cores (f32 inputs:
/// no tf32 unless dot_precision="tf32" asks, as torch computes them).
/// Default: no products.
static contract::DotEngine chooseDotEngine(func::FuncOp func, unsigned targetSm,
                                           bool allowTf32) {
  std::optional<bool> tensorCores = productsTakeTensorCores(func, allowTf32);
  if (!tensorCores)
    return contract::DotEngine::Default;
  if (!*tensorCores || targetSm < 80)
    return contract::DotEngine::Fma;
  return targetSm == 90 ? contract::DotEngine::Wgmma
                        : contract::DotEngine::MmaSync;
}

mlir::Location Generator::loc(SourceRange r) {
  return FileLineColLoc::get(&ctx, module.getFileName(), r.begin.line,
                             r.begin.column);
}

SemValue *Generator::lookup(const std::string &name) {
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
    auto found = it->find(name);
    if (found != it->end())
      return &found->second;
  }
  return nullptr;
}

void Generator::bind(const std::string &name, SemValue v) {
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
    auto found = it->find(name);
    if (found != it->end()) {
      found->second = std::move(v);
      return;
    }
  }
  scopes.back()[name] = std::move(v);
}

void Generator::recordStaticSizes(llvm::ArrayRef<std::string> argNames) {
  // The sizes the launch fixes: its `==` constraints, and through them the
  // sizes an equal-size rule ties to one (`weight[tile_n]` in a loop over
  // a compiled-in `x.size(1)`: the launch checks weight's size against
  // x's, so it is known too and weight's tail checks fold as well).
  std::map<std::pair<std::string, unsigned>, int64_t> fixed;
  for (const Constraint &c : desc.constraints)
    if (c.op == "==" && !c.isNumTiles())
      fixed[{c.param, c.dim}] = std::get<int64_t>(c.value);
  for (bool grew = true; grew;) {
    grew = false;
    for (const contract::SameSize &s : desc.sameSizes) {
      if (s.relation != contract::SameSize::Relation::Eq)
        continue;
      std::pair<std::string, unsigned> a{s.param, s.dim}, b{s.as, s.asDim};
      auto fa = fixed.find(a), fb = fixed.find(b);
      if ((fa == fixed.end()) == (fb == fixed.end()))
        continue; // both known (the launch checks them) or neither
      if (fa == fixed.end())
        fixed[a] = fb->second;
      else
        fixed[b] = fa->second;
      grew = true;
    }
  }
  auto sizesOf = [&](const std::string &param, SmallVector<int64_t> &sizes) {
    bool any = false;
    for (unsigned d = 0; d < sizes.size(); ++d) {
      auto it = fixed.find({param, d});
      if (it == fixed.end())
        continue;
      sizes[d] = it->second;
      any = true;
    }
    return any;
  };
  for (auto [i, name] : llvm::enumerate(argNames)) {
    auto ref = dyn_cast<tile::RefType>(func.getArgument(i).getType());
    int spec = desc.findArg(name);
    tile::RoleAttr role = tile::getArgRole(func, i);
    // Data tensors only: the tables and pads of communication are indexed
    // by rank, and compiling their world-sized extents in only reshapes
    // ptxas's register allocation of the spin loops (all_gather at world
    // 8 spilled 8 bytes).
    if (!ref || spec < 0 || !role ||
        !llvm::is_contained({contract::Role::Input, contract::Role::Output,
                             contract::Role::InOut},
                            role.getRole()))
      continue;
    SmallVector<int64_t> sizes(ref.getRank(), -1);
    bool any = sizesOf(name, sizes);
    // The launch checks an output's sizes equal to those it is made like.
    if (desc.args[spec].isOutput && !desc.args[spec].like.empty())
      any |= sizesOf(desc.args[spec].like, sizes);
    if (any)
      func.setArgAttr(i, tile::kStaticSizesAttr,
                      builder.getDenseI64ArrayAttr(sizes));
  }
}

void Generator::addConstraint(Constraint c) {
  for (const Constraint &o : desc.constraints)
    if (o.param == c.param && o.dim == c.dim && o.op == c.op &&
        o.value == c.value)
      return;
  desc.constraints.push_back(std::move(c));
}

OwningOpRef<ModuleOp> Generator::run() {
  ctx.loadDialect<tile::TileDialect, comm::CommDialect, arith::ArithDialect,
                  math::MathDialect, func::FuncDialect, scf::SCFDialect>();
  mlir::Location l = loc(kernel.getNameRange());
  OwningOpRef<ModuleOp> result = ModuleOp::create(l);
  desc.kernel = kernel.getName();
  desc.sourceFile = module.getFileName();
  desc.sourceLine = kernel.getRange().begin.line;
  if (options.worldSize)
    desc.worldSize = *options.worldSize;
  if (options.rank)
    desc.rank = *options.rank;
  desc.numWarpsDefaulted = true; // until a config gives num_warps
  if (options.numWarpsWhenUnset > 0)
    desc.numWarps = options.numWarpsWhenUnset;
  if (failed(readConfig()))
    return nullptr;
  work.threads = std::max<int64_t>(1, desc.numWarps) * 32;
  scanSymmetric(kernel.getBody());
  builder.setInsertionPointToEnd(result->getBody());
  func = func::FuncOp::create(builder, l, kernel.getName(),
                              builder.getFunctionType({}, {}));
  if (failed(buildSignature()))
    return nullptr;
  if (failed(genBlock(kernel.getBody())))
    return nullptr;
  Block &entry = func.getBody().front();
  builder.setInsertionPointToEnd(&entry);
  func::ReturnOp::create(builder, l);
  func->setAttr(tile::kKernelAttr, builder.getUnitAttr());
  func->setAttr(tile::kNumWarpsAttr, builder.getI64IntegerAttr(desc.numWarps));
  if (dotEngine == contract::DotEngine::Default)
    dotEngine = chooseDotEngine(func, options.targetSm, allowTf32);
  if (allowTf32)
    func->setAttr(tile::kAllowTf32Attr, builder.getUnitAttr());
  if (dotEngine != contract::DotEngine::Default)
    func->setAttr(
        tile::kDotEngineAttr,
        tile::DotEngineAttr::get(builder.getContext(),
                                 dotEngine == contract::DotEngine::MmaSync
                                     ? tile::DotEngine::mma_sync
                                 : dotEngine == contract::DotEngine::Wgmma
                                     ? tile::DotEngine::wgmma
                                     : tile::DotEngine::fma));
  if (numStages > 0)
    func->setAttr(tile::kNumStagesAttr, builder.getI64IntegerAttr(numStages));
  if (llvm::any_of(reductionLoops, [](int64_t r) { return r > 0; }))
    func->setAttr(tile::kReductionLoopsAttr,
                  builder.getDenseI64ArrayAttr(reductionLoops));
  if (!autoRollChunks.empty()) {
    SmallVector<int64_t> pairs;
    for (auto [d, r] : autoRollChunks)
      pairs.append({d, r.chunk, r.required});
    func->setAttr(tile::kAutoReductionLoopsAttr,
                  builder.getDenseI64ArrayAttr(pairs));
  }
  if (probe)
    probe->fullRows = fullRowExtents;
  SmallVector<Attribute> names;
  for (const std::string &n : argNames)
    names.push_back(builder.getStringAttr(n));
  func->setAttr("tile.arg_names", builder.getArrayAttr(names));
  if (failed(describeParamAccess(func, argNames, desc)))
    return nullptr;
  recordStaticSizes(argNames);
  if (desc.worldSize)
    func->setAttr(tile::kPeerCountAttr,
                  builder.getI64IntegerAttr(*desc.worldSize));
  recordBlockUnit(func, desc.tunables);
  desc.tunables.push_back(contract::Tunable::numWarps(desc.numWarps));
  // A kernel with matrix products that tensor cores can take: the tuner
  // also searches their engine (those of the target) and the depth of their
  // K loops' pipeline (-dslc-pipeline-dots).
  if (dotEngine != contract::DotEngine::Default &&
      (dotEngine != contract::DotEngine::Fma ||
       productsTakeTensorCores(func, allowTf32).value_or(true))) {
    desc.tunables.push_back(contract::Tunable::numStages(
        numStages > 0 ? numStages : contract::defaultNumStages(dotEngine)));
    contract::Tunable engine =
        contract::Tunable::dotEngine(static_cast<int64_t>(dotEngine));
    if (options.targetSm != 0 && options.targetSm != 90)
      llvm::erase(engine.choices,
                  static_cast<int64_t>(contract::DotEngine::Wgmma));
    desc.tunables.push_back(engine);
    // ... and, over a grid of two or more dimensions, the order of its
    // tiles (groups of rows share operand panels in L2).
    if (func.walk([](tile::GridOp g) {
              return g.getBlocks().size() >= 2 ? WalkResult::interrupt()
                                               : WalkResult::advance();
            })
            .wasInterrupted()) {
      if (l2Grouping == 0)
        l2Grouping = contract::defaultL2Grouping(dotEngine);
      desc.tunables.push_back(contract::Tunable::l2Grouping(l2Grouping));
    }
  }
  if (l2Grouping > 1)
    func->setAttr(tile::kL2GroupingAttr, builder.getI64IntegerAttr(l2Grouping));
  bool productStages = llvm::any_of(desc.tunables, [](const auto &t) {
    return t.kind == contract::Tunable::Kind::NumStages;
  });
  // Loops over a row's chunks that load (compiler/Analysis/ChunkLoops.h):
  // the tuner also tries issuing their loads 0, 1 or 2 iterations ahead
  // (-dslc-prefetch-loads; chunks rolled from whole rows by
  // reduction_loops get the default).
  bool loopLoads = !chunkLoops(func).empty();
  if (!productStages && loopLoads)
    desc.tunables.push_back(contract::Tunable::loopStages(
        numStages > 0 ? numStages : contract::kDefaultLoopStages));
  // Whole rows reduced: the tuner also tries computing them in chunks
  // (reduction_loops; each chunk loop re-reads its part of the row, which
  // frees the registers that hold it across the reductions).
  func.walk([&](tile::GridOp grid) {
    for (auto [k, extent] :
         llvm::enumerate(tile::reducedRowExtents(grid.getBody().front()))) {
      int64_t value = k < reductionLoops.size() ? reductionLoops[k] : 0;
      contract::Tunable chunks = contract::Tunable::reductionLoop(
          static_cast<unsigned>(k), value, extent);
      if (chunks.choices.size() > 1)
        desc.tunables.push_back(chunks);
    }
    return WalkResult::interrupt(); // the kernel's grid
  });
  // f32 exps and logs left exact by default (compiler/Analysis/
  // FloatErrors.h): the tuner also tries Triton's approximations
  // (fast_math), kept where its check against the reference passes.
  if (fastMathChangesMath(func))
    desc.tunables.push_back(contract::Tunable::fastMath(fastMath));
  if (fastMath)
    func->setAttr(tile::kFastMathAttr, builder.getUnitAttr());
  if (maxNReg > 0)
    func->setAttr(tile::kMaxNRegAttr, builder.getI64IntegerAttr(maxNReg));
  // 32-bit index values wrap past INT32_MAX: the launch refuses larger
  // tensors (runtime/Binding.cpp) rather than address wrong elements.
  if (madeIndexValues && indexBits == 32)
    desc.maxTensorElements = contract::kMax32BitIndexElements;
  // The config's load_eviction_policies, entry i for the i-th load whose
  // value the kernel uses. The metadata lists them (the count) for a kernel
  // that only computes (no matrix products, whose operands are staged
  // through shared memory without hints; no peers, whose waits dwarf a
  // hint's gain); the tuner searches them, one dimension a load
  // (docs/tuner.md).
  std::vector<contract::EvictionPolicy> applied =
      applyLoadEvictions(func, loadEvictionPolicies);
  unsigned loads = static_cast<unsigned>(applied.size());
  bool productsOrPeers =
      func.walk([](Operation *op) {
            return isa<tile::DotOp>(op) ||
                           isa<comm::CommDialect>(op->getDialect())
                       ? WalkResult::interrupt()
                       : WalkResult::advance();
          })
          .wasInterrupted();
  // One tunable a load, its value the hint it was compiled with (up to
  // contract::kMaxPerLoadHints loads), else one for them all.
  if (loads > 0 && loads <= contract::kMaxLoads && !productsOrPeers) {
    if (loads <= contract::kMaxPerLoadHints) {
      for (auto [i, policy] : llvm::enumerate(applied))
        desc.tunables.push_back(contract::Tunable::loadEvictionOf(
            loads, static_cast<int>(i), static_cast<int64_t>(policy)));
    } else {
      contract::KernelConfig given;
      given.loadEvictionPolicies = applied;
      desc.tunables.push_back(contract::Tunable::loadEviction(
          loads, given.get(contract::Tunable::loadEviction(loads, 0))));
    }
  }
  // An empty list gives no hints, whatever the count of loads.
  if (evictionConfigWhere && !loadEvictionPolicies.empty() &&
      loadEvictionPolicies.size() != loads)
    diags->warning(
        *evictionConfigWhere,
        "load_eviction_policies has " +
            std::to_string(loadEvictionPolicies.size()) +
            " entries but kernel '" + kernel.getName() + "' has " +
            std::to_string(loads) +
            " loads (hl.load and subscript reads whose values it uses, in "
            "source order): " +
            (loadEvictionPolicies.size() > loads
                 ? "the extra entries are ignored"
                 : "the loads past its end get no hint"));
  for (const auto &[name, value] : options.defines)
    if (!usedDefines.count(name))
      diags->warning(kernel.getNameRange(),
                     "-D " + name + "=" + value + " is not used by kernel '" +
                         kernel.getName() +
                         "' (it names no constexpr parameter and no "
                         "hl.specialize'd value)");
  if (!defaultedBlockSizes.empty()) {
    std::string list;
    for (int64_t b : defaultedBlockSizes)
      list += (list.empty() ? "" : ", ") + std::to_string(b);
    diags->warning(kernel.getNameRange(),
                   "no config gives kernel '" + kernel.getName() +
                       "' its block sizes: dslc compiles Helion's default, "
                       "block_sizes=[" +
                       list + "], num_warps=" + std::to_string(desc.numWarps) +
                       " (choose them with helion.Config(...), --config or "
                       "`tuner`)");
  }
  if (nextBlockSize < blockSizes.size())
    diags->warning(kernel.getNameRange(),
                   "the config gives " + std::to_string(blockSizes.size()) +
                       " block sizes but the kernel has " +
                       std::to_string(nextBlockSize) + " tunable tile(s)");
  if (desc.grid.empty()) {
    (void)error(kernel.getNameRange(),
                "a kernel needs a top-level 'for ... in hl.tile(...)' loop "
                "(its grid)");
    return nullptr;
  }
  if (pendingBarrier) {
    (void)error(pendingBarrier->getRange(),
                "hl.barrier after the last top-level loop orders nothing: it "
                "goes between two top-level hl.tile loops");
    return nullptr;
  }
  return result;
}

} // namespace dslc::mlirgen

/// Helion's reduction dimensions (its config spec's reduction_loops) in a
/// probe's kernel: the extents of the dimensions loaded whole (`fullRows`)
/// less those a matrix product's operand spans (Helion rolls no reduction
/// loop over a dimension a matmul uses: v1.4.0
/// `DeviceIR.register_reduction_loops`, `has_matmul_with_rdim`). The
/// probe's tiles are 1 wide, so a whole dimension's size is its extent.
static std::set<int64_t> helionReductionRows(ModuleOp module,
                                             std::set<int64_t> fullRows) {
  module.walk([&](tile::DotOp op) {
    for (Value operand : {op.getLhs(), op.getRhs()})
      for (int64_t d : cast<RankedTensorType>(operand.getType()).getShape())
        fullRows.erase(d);
  });
  return fullRows;
}

OwningOpRef<ModuleOp> dslc::generateKernel(MLIRContext &context,
                                           const ast::Module &module,
                                           const ast::FunctionDef &kernel,
                                           const CompileOptions &options,
                                           dslc::DiagnosticEngine &diags,
                                           KernelDescription &description) {
  // Without a config, Helion's default block sizes depend on how many the
  // kernel takes and on its whole-row dimensions: a first, quiet
  // generation learns them.
  mlirgen::Generator::DefaultProbe probe;
  {
    dslc::DiagnosticEngine quiet(diags.getSourceManager(), nullptr);
    KernelDescription scratch;
    mlirgen::Generator first(context, module, kernel, options, quiet, scratch);
    first.setProbe(&probe);
    OwningOpRef<ModuleOp> probed = first.run();
    probe.fullRows = probed ? helionReductionRows(*probed, probe.fullRows)
                            : std::set<int64_t>();
  }
  mlirgen::Generator gen(context, module, kernel, options, diags, description);
  if (!probe.hints.empty()) {
    std::vector<int64_t> sizes;
    for (auto [i, hint] : llvm::enumerate(probe.hints)) {
      int64_t block = mlirgen::Generator::helionDefaultBlock(
          probe.hints.size(), probe.fullRows, hint);
      // A tile a matrix product uses: at least Triton's least product
      // size, unless the dimension is smaller (Helion's BlockSizeSpec
      // clamps its minimum to the dimension's power of two).
      if (i < probe.dotMinimums.size()) {
        int64_t least = probe.dotMinimums[i];
        if (hint > 0)
          least = std::min<int64_t>(least, llvm::PowerOf2Ceil(hint));
        block = std::max(block, least);
      }
      sizes.push_back(block);
    }
    gen.setDefaultBlockSizes(std::move(sizes));
  }
  return gen.run();
}
