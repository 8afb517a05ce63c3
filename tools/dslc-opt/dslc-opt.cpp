//===- dslc-opt.cpp - MLIR optimizer driver with dslc's dialects ---------===//
//
// Runs passes over .mlir files: the upstream dialects dslc lowers to, the
// Tile and Comm dialects, dslc's passes and its pipeline (--dslc-pipeline:
// what dslc runs from --emit=tile to --emit=llvm). Used by the lit tests.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/Passes.h"
#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  dslc::registerConversionPasses();
  dslc::registerDslcPipeline();

  mlir::DialectRegistry registry;
  registry.insert<dslc::tile::TileDialect, dslc::comm::CommDialect,
                  mlir::arith::ArithDialect, mlir::cf::ControlFlowDialect,
                  mlir::func::FuncDialect, mlir::gpu::GPUDialect,
                  mlir::index::IndexDialect, mlir::LLVM::LLVMDialect,
                  mlir::NVVM::NVVMDialect, mlir::math::MathDialect,
                  mlir::scf::SCFDialect, mlir::vector::VectorDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "dslc optimizer driver\n", registry));
}
