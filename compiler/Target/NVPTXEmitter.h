//===- NVPTXEmitter.h - LLVM dialect module to LLVM IR and PTX --*- C++ -*-===//

#ifndef DSLC_COMPILER_TARGET_NVPTXEMITTER_H
#define DSLC_COMPILER_TARGET_NVPTXEMITTER_H

#include "compiler/Target/GpuArch.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace dslc {

struct NVPTXOptions {
  /// Target GPU and PTX version (an entry of GpuArch.cpp's table).
  GpuArch arch = getDefaultGpuArch();
  unsigned optLevel = 3;
  /// libdevice.10.bc for the math that calls it (empty: libDevicePath()).
  std::string libDevicePath;
};

/// Translates a module of LLVM/NVVM dialect ops into LLVM IR for the NVPTX
/// target (triple, data layout), links the libdevice functions it calls
/// (LibDevice.h) and optimizes it. Errors go to the module's diagnostic
/// handler.
std::unique_ptr<llvm::Module> translateToLLVMIR(mlir::ModuleOp module,
                                                llvm::LLVMContext &context,
                                                const NVPTXOptions &options);

/// Compiles LLVM IR to PTX assembly text. On failure returns an empty
/// optional and sets `error`.
std::optional<std::string>
emitPTX(llvm::Module &module, const NVPTXOptions &options, std::string &error);

} // namespace dslc

#endif // DSLC_COMPILER_TARGET_NVPTXEMITTER_H
