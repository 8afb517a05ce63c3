//===- LoweringPipeline.cpp - Tile/Comm IR to the LLVM dialect -----------===//

#include "compiler/Conversion/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

void dslc::buildDslcPipeline(mlir::OpPassManager &pm,
                             const DslcPipelineOptions &options) {
  // MLIRGen's output holds constant arithmetic and repeated index math from
  // unrolled loops, and tile.reshape of a reduction that canonicalization
  // folds into a keepdim reduction: fold once before the per-thread copies.
  if (options.cleanup) {
    pm.addPass(mlir::createCanonicalizerPass());
    pm.addPass(mlir::createCSEPass());
  }
  pm.addPass(createDistributeTiles());
  pm.addPass(createLowerToLLVM());
  // The per-thread lowering repeats address and mask computations per piece
  // and per peer.
  if (options.cleanup) {
    pm.addPass(mlir::createCanonicalizerPass());
    pm.addPass(mlir::createCSEPass());
  }
}

void dslc::registerDslcPipeline() {
  mlir::PassPipelineRegistration<DslcPipelineOptions>(
      "dslc-pipeline",
      "The passes dslc runs from Tile IR (--emit=tile) to LLVM/NVVM IR "
      "(--emit=llvm)",
      buildDslcPipeline);
}
