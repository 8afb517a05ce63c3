//===- dslc-opt.cpp - MLIR optimizer driver with dslc's dialects ---------===//
//
// Runs passes over .mlir files: the upstream dialects dslc lowers to, the
// Tile and Comm dialects, dslc's passes and its pipeline (--dslc-pipeline:
// what dslc runs from --emit=tile to --emit=llvm). Used by the lit tests.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/Passes.h"
#include "dialects/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  dslc::registerConversionPasses();
  dslc::registerDslcPipeline();

  mlir::DialectRegistry registry;
  dslc::registerDslcDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "dslc optimizer driver\n", registry));
}
