//===- Passes.td - dslc lowering passes --------------------*- tablegen -*-===//

#ifndef DSLC_COMPILER_CONVERSION_PASSES_TD
#define DSLC_COMPILER_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def DistributeTiles : Pass<"dslc-distribute-tiles", "mlir::ModuleOp"> {
  let summary = "Lower Tile and Comm ops to per-thread code";
  let description = [{
    For every `tile.kernel` function: flattens the signature into the kernel
    ABI (docs/kernel-abi.md: each !tile.ref becomes a pointer and its sizes,
    then the hidden timeout/error/state slots), turns `tile.grid` into a
    grid-stride loop over tiles, distributes every tile value over the CTA's
    threads (16-byte contiguous pieces per thread, masked tails), and lowers
    signal/wait/packets to PTX with the memory semantics of DESIGN.md. The
    result holds scf, arith, vector, llvm and nvvm ops.
  }];
  let dependentDialects = [
    "mlir::LLVM::LLVMDialect", "mlir::NVVM::NVVMDialect",
    "mlir::scf::SCFDialect", "mlir::arith::ArithDialect",
    "mlir::vector::VectorDialect"
  ];
}

def LowerToLLVM : Pass<"dslc-lower-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lower per-thread scf/arith/vector/func code to the LLVM dialect";
  let description = [{
    Converts the output of -dslc-distribute-tiles to LLVM and NVVM ops only,
    marks kernels `nvvm.kernel` with `nvvm.maxntid`, ready for translation
    to LLVM IR.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::NVVM::NVVMDialect",
                           "mlir::cf::ControlFlowDialect"];
}

#endif // DSLC_COMPILER_CONVERSION_PASSES_TD
