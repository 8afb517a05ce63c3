//===- Passes.h - dslc lowering passes --------------------------*- C++ -*-===//

#ifndef DSLC_COMPILER_CONVERSION_PASSES_H
#define DSLC_COMPILER_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace dslc {

/// The bytes a thread of one tile.load -dslc-issue-loads-early moves above
/// a reduction (registers it keeps live across the reduction's barriers):
/// wide by default (LayerNorm's bf16 weight and bias at hidden 4096 and 4
/// warps, 32 elements each), narrow where the wide bound made ptxas spill
/// (the fused fp8 RMSNorm at hidden 5120 and 8 warps: a 20-element weight
/// spilled 12 bytes under its 128-register cap); the driver compiles again
/// at the narrow bound only when the module carries kWideEarlyLoadsAttr.
inline constexpr int64_t kWideEarlyLoadBytes = 64;
inline constexpr int64_t kNarrowEarlyLoadBytes = 32;
/// Set on the module by -dslc-issue-loads-early when it moved a load of
/// more than kNarrowEarlyLoadBytes a thread.
inline constexpr llvm::StringLiteral kWideEarlyLoadsAttr =
    "dslc.wide_early_loads";
/// The most bytes a thread holds of the loads -dslc-prefetch-loads issues
/// ahead in one loop (registers live across the whole iteration). A loop
/// that loads more an iteration has that much in flight already (and a
/// copy loop of 64 bytes a thread ahead spilled under Helion's one-shot
/// all-reduce + RMSNorm config at world 4).
inline constexpr int64_t kPrefetchBytes = 32;
/// Set on the module by -dslc-prefetch-loads when it issued a load ahead:
/// where ptxas then spills, the driver compiles again without.
inline constexpr llvm::StringLiteral kPrefetchedLoadsAttr =
    "dslc.prefetched_loads";

/// Set on the module by -dslc-sink-invariant-loads when it found a value
/// to load again in a loop (and sank it, unless only marking): where ptxas
/// spills, the driver compiles again with the pass applying.
inline constexpr llvm::StringLiteral kSinkableLoadsAttr = "dslc.sinkable_loads";

#define GEN_PASS_DECL
#include "compiler/Conversion/Passes.h.inc"

/// An llvm.func whose divisions -dslc-divide-without-calls rewrites (set by
/// -dslc-lower-to-llvm on kernels on wgmma, removed by that pass).
inline constexpr llvm::StringLiteral kWithoutCallsAttr = "dslc.without_calls";

#define GEN_PASS_REGISTRATION
#include "compiler/Conversion/Passes.h.inc"

//===----------------------------------------------------------------------===//
// The pipeline (LoweringPipeline.cpp): the one place that says which passes
// turn MLIRGen's output (`dslc --emit=tile`) into the LLVM and NVVM dialects
// (`dslc --emit=llvm`), in which order, and where canonicalize and CSE run.
// dslc and dslc-translate build it; dslc-opt registers it as
// `--dslc-pipeline`, so that
//   dslc K.py --emit=tile --mlir-print-debuginfo | dslc-opt --dslc-pipeline
// prints what `dslc K.py --emit=llvm` prints (tests/compiler/Pipeline).
//===----------------------------------------------------------------------===//

struct DslcPipelineOptions
    : public mlir::PassPipelineOptions<DslcPipelineOptions> {
  Option<bool> cleanup{
      *this, "cleanup",
      llvm::cl::desc("Run canonicalize and CSE before distributing tiles and "
                     "after lowering to LLVM (off: see what the lowering "
                     "patterns produce before folding)"),
      llvm::cl::init(true)};
  Option<bool> issueLoadsEarly{
      *this, "issue-loads-early",
      llvm::cl::desc("Issue a load written after a reduction above it "
                     "(-dslc-issue-loads-early; off: program order, to "
                     "compare)"),
      llvm::cl::init(true)};
  Option<int64_t> earlyLoadBytes{
      *this, "early-load-bytes",
      llvm::cl::desc("The largest load, in bytes a thread, "
                     "-dslc-issue-loads-early moves"),
      llvm::cl::init(kWideEarlyLoadBytes)};
  Option<bool> prefetchLoads{
      *this, "prefetch-loads",
      llvm::cl::desc("Issue the loads of a loop over a row's chunks "
                     "iterations ahead (-dslc-prefetch-loads; off: each "
                     "iteration loads its own)"),
      llvm::cl::init(true)};
  Option<bool> sinkInvariantLoads{
      *this, "sink-invariant-loads",
      llvm::cl::desc("Load again in a loop the values loaded before it and "
                     "used only in it (-dslc-sink-invariant-loads; off: it "
                     "only marks the module; the driver turns it on where "
                     "ptxas spilled)"),
      llvm::cl::init(false)};
  Option<bool> narrowedFastMath{
      *this, "narrowed-fast-math",
      llvm::cl::desc("Approximate exp and f32 division where the result is "
                     "only rounded to 16-bit or narrower floats "
                     "(-dslc-narrowed-fast-math; off: dslc --precise-math)"),
      llvm::cl::init(true)};
};

/// The tile-level pipeline: what runs on MLIRGen's output before anything
/// reads it (dslc --emit=tile, the simulator, the lowering):
/// -dslc-roll-reductions (a kernel's reduction_loops, then their
/// attributes dropped, so running it twice changes nothing), then
/// -dslc-split-wide-dots (a product over a whole loaded operand as a loop
/// over K chunks).
void buildTilePipeline(mlir::OpPassManager &pm);
/// Runs the tile-level pipeline on `module` (dslc's driver and the
/// simulator, right after MLIRGen). Diagnostics go to the context.
mlir::LogicalResult runTilePipeline(mlir::ModuleOp module);

/// Appends the passes from Tile/Comm IR to the LLVM dialect to `pm` (on
/// builtin.module): the tile-level pipeline, [canonicalize, cse],
/// -dslc-mma-layouts, -dslc-distribute-tiles, -dslc-lower-to-llvm,
/// [canonicalize, cse].
void buildDslcPipeline(mlir::OpPassManager &pm,
                       const DslcPipelineOptions &options);
/// Registers buildDslcPipeline as "dslc-pipeline"
/// (`--dslc-pipeline='cleanup=false'`) and buildTilePipeline as
/// "dslc-tile-pipeline".
void registerDslcPipeline();

/// Bytes of the shared-memory workspace a lowered module declares (0 when
/// none of its ops needs one): the metadata's `shared_bytes`.
int64_t sharedWorkspaceBytes(mlir::ModuleOp module);
/// Unit module attribute set by -dslc-pipeline-dots when a kernel reads
/// staged operands with wgmma: it needs sm_90a's arch-specific features
/// (Backend.cpp compiles it for sm_90a) and a workspace aligned to 1024
/// bytes (the swizzle atoms).
inline constexpr llvm::StringLiteral kNeedsSm90aAttr = "dslc.needs_sm90a";

} // namespace dslc

#endif // DSLC_COMPILER_CONVERSION_PASSES_H
