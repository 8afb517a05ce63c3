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

namespace dslc {

#define GEN_PASS_DECL
#include "compiler/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/Conversion/Passes.h.inc"

/// The passes from Tile/Comm IR to the LLVM dialect, in order: canonicalize
/// and CSE (folding tile.reshape of a reduction into a keepdim reduction),
/// -dslc-distribute-tiles, -dslc-lower-to-llvm, canonicalize and CSE.
void buildLoweringPipeline(mlir::OpPassManager &pm);
/// Registers that pipeline as -dslc-lower (dslc-opt).
void registerLoweringPipeline();

/// Bytes of the shared-memory workspace a lowered module declares (0 when
/// none of its ops needs one): the metadata's `shared_bytes`.
int64_t sharedWorkspaceBytes(mlir::ModuleOp module);

} // namespace dslc

#endif // DSLC_COMPILER_CONVERSION_PASSES_H
