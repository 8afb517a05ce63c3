//===- LoweringPipeline.cpp - Tile/Comm IR to the LLVM dialect -----------===//

#include "compiler/Conversion/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

void dslc::buildLoweringPipeline(mlir::OpPassManager &pm) {
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  pm.addPass(createDistributeTiles());
  pm.addPass(createLowerToLLVM());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
}

void dslc::registerLoweringPipeline() {
  mlir::PassPipelineRegistration<>(
      "dslc-lower",
      "Tile/Comm IR to LLVM and NVVM ops, as dslc compiles a kernel",
      [](mlir::OpPassManager &pm) { buildLoweringPipeline(pm); });
}
