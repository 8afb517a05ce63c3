//===- PassPipeline.cpp - The MLIR passes from Tile IR to LLVM IR ---------===//

#include "compiler/Pipeline/PassPipeline.h"

#include "compiler/Conversion/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace dslc;

void dslc::buildDslcPipeline(mlir::OpPassManager &pm,
                             const DslcPipelineOptions &options) {
  // MLIRGen's output holds constant arithmetic and repeated index math
  // from unrolled loops: fold it once before it is copied per thread piece.
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
