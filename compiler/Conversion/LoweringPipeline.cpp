//===- LoweringPipeline.cpp - Tile/Comm IR to the LLVM dialect -----------===//

#include "compiler/Conversion/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

void dslc::buildTilePipeline(mlir::OpPassManager &pm) {
  pm.addPass(createRollReductions());
  pm.addPass(createSplitWideDots());
}

mlir::LogicalResult dslc::runTilePipeline(mlir::ModuleOp module) {
  mlir::PassManager pm(module->getContext());
  buildTilePipeline(pm);
  return pm.run(module);
}

void dslc::buildDslcPipeline(mlir::OpPassManager &pm,
                             const DslcPipelineOptions &options) {
  // Hand-written Tile IR (dslc-opt, dslc-translate) gets what dslc's
  // driver ran right after MLIRGen.
  buildTilePipeline(pm);
  // MLIRGen's output holds constant arithmetic and repeated index math from
  // unrolled loops, and tile.reshape of a reduction that canonicalization
  // folds into a keepdim reduction: fold once before the per-thread copies.
  if (options.cleanup) {
    pm.addPass(mlir::createCanonicalizerPass());
    pm.addPass(mlir::createCSEPass());
    // Tile ends and valid counts of loops over compiled-in extents: what
    // their ranges decide folds, and the canonicalizer drops the masks.
    pm.addPass(createFoldBoundsByRange());
    pm.addPass(mlir::createCanonicalizerPass());
    // hl.split of a loaded row and hl.join of a stored one: halves loaded
    // and stored in place of tiles transposed through shared memory.
    pm.addPass(createSplitJoinAtMemory());
  }
  pm.addPass(createKeepReducedDims());
  // Marks (or, where the driver retries a spilling kernel, sinks) values
  // loaded before a loop and used only in it, before the loads move.
  pm.addPass(createSinkInvariantLoads(
      SinkInvariantLoadsOptions{options.sinkInvariantLoads}));
  if (options.narrowedFastMath)
    pm.addPass(createNarrowedFastMath());
  pm.addPass(createMmaLayouts());
  pm.addPass(createPipelineDots());
  if (options.prefetchLoads)
    pm.addPass(createPrefetchLoads());
  if (options.issueLoadsEarly)
    pm.addPass(
        createIssueLoadsEarly(IssueLoadsEarlyOptions{options.earlyLoadBytes}));
  pm.addPass(createDistributeTiles());
  pm.addPass(createLowerToLLVM());
  // The per-thread lowering repeats address and mask computations per piece
  // and per peer.
  if (options.cleanup) {
    pm.addPass(mlir::createCanonicalizerPass());
    pm.addPass(mlir::createCSEPass());
  }
  // After the cleanup: a divisor folded to a constant keeps its division.
  pm.addPass(createDivideWithoutCalls());
}

void dslc::registerDslcPipeline() {
  mlir::PassPipelineRegistration<DslcPipelineOptions>(
      "dslc-pipeline",
      "The passes dslc runs from Tile IR (--emit=tile) to LLVM/NVVM IR "
      "(--emit=llvm)",
      buildDslcPipeline);
  mlir::PassPipelineRegistration<>(
      "dslc-tile-pipeline",
      "The passes dslc runs on MLIRGen's output before --emit=tile, the "
      "simulator and the lowering read it",
      buildTilePipeline);
}
