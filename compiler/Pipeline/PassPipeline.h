//===- PassPipeline.h - The MLIR passes from Tile IR to LLVM IR -*- C++ -*-===//
//
// The one place that says which passes turn the output of MLIRGen (Tile and
// Comm dialects, `dslc --emit=tile`) into the LLVM and NVVM dialects (`dslc
// --emit=llvm`), in which order, and where canonicalize and CSE run. dslc
// builds it for every compilation; dslc-opt registers it as
// `--dslc-pipeline`, so
//
//   dslc K.py --emit=tile --mlir-print-debuginfo | dslc-opt --dslc-pipeline
//
// prints what `dslc K.py --emit=llvm` prints (tests/compiler/Pipeline).
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_COMPILER_PIPELINE_PASSPIPELINE_H
#define DSLC_COMPILER_PIPELINE_PASSPIPELINE_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace dslc {

struct DslcPipelineOptions
    : public mlir::PassPipelineOptions<DslcPipelineOptions> {
  Option<bool> cleanup{
      *this, "cleanup",
      llvm::cl::desc("Run canonicalize and CSE before distributing tiles and "
                     "after lowering to LLVM (off: see what the lowering "
                     "patterns produce before folding)"),
      llvm::cl::init(true)};
};

/// Appends the passes from Tile IR to LLVM/NVVM IR to `pm`, which must
/// anchor on builtin.module:
///   [canonicalize, cse], dslc-distribute-tiles, dslc-lower-to-llvm,
///   [canonicalize, cse]
void buildDslcPipeline(mlir::OpPassManager &pm,
                       const DslcPipelineOptions &options);

/// Registers buildDslcPipeline as the pass pipeline "dslc-pipeline" (for
/// mlir-opt style tools; `--dslc-pipeline='cleanup=false'`).
void registerDslcPipeline();

} // namespace dslc

#endif // DSLC_COMPILER_PIPELINE_PASSPIPELINE_H
