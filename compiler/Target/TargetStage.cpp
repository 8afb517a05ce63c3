//===- TargetStage.cpp - LLVM/NVVM-dialect IR to LLVM IR, PTX, cubin ------===//

#include "compiler/Target/TargetStage.h"

#include "compiler/Target/NVPTXEmitter.h"
#include "compiler/Target/PtxChecks.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

using namespace dslc;

/// Instructions the target lacks, each an error at its DSL line (LLVM would
/// abort on them). False when one was found.
static bool supportedByArch(mlir::ModuleOp mod, const GpuArch &arch) {
  bool ok = true;
  if (!arch.hasFp8Convert())
    mod.walk([&](mlir::Operation *op) {
      if (mlir::isa<mlir::NVVM::ConvertF32x2ToF8x2Op,
                    mlir::NVVM::ConvertF8x2ToF16x2Op>(op)) {
        mlir::emitError(op->getLoc())
            << "fp8 conversions need sm_89 or newer, and --arch is "
            << arch.name << ": compile this kernel for sm_89/sm_90 or "
            << "keep its data in bf16/f16";
        ok = false;
        return mlir::WalkResult::interrupt();
      }
      return mlir::WalkResult::advance();
    });
  return ok;
}

std::optional<TargetArtifact> dslc::runTargetStage(mlir::ModuleOp module,
                                                   const TargetRequest &request,
                                                   mlir::TimingScope &timing,
                                                   std::string &error) {
  error.clear();
  if (!supportedByArch(module, request.arch))
    return std::nullopt;
  NVPTXOptions target;
  target.arch = request.arch;
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule;
  {
    mlir::TimingScope t = timing.nest("LLVM IR (-O3)");
    llvmModule = translateToLLVMIR(module, llvmContext, target);
  }
  if (!llvmModule)
    return std::nullopt;
  TargetArtifact out;
  if (request.output == TargetOutput::LLVMIR) {
    llvm::raw_string_ostream os(out.bytes);
    llvmModule->print(os, nullptr);
    return out;
  }
  std::optional<std::string> ptx;
  {
    mlir::TimingScope t = timing.nest("PTX");
    ptx = emitPTX(*llvmModule, target, error);
  }
  if (!ptx) {
    error = "PTX generation failed: " + error;
    return std::nullopt;
  }
  out.wgmmaSerialized = wgmmaSerialization(*ptx);
  if (request.output == TargetOutput::PTX) {
    out.bytes = std::move(*ptx);
    return out;
  }
  std::optional<CubinResult> cubin;
  {
    mlir::TimingScope t = timing.nest("cubin");
    cubin = assembleCubin(*ptx, request.arch.name, request.route,
                          request.verbose, error);
  }
  if (!cubin) {
    error = "assembling the kernel for " + std::string(request.arch.name) +
            " failed: " + error;
    return std::nullopt;
  }
  out.bytes.assign(cubin->cubin.begin(), cubin->cubin.end());
  out.binary = true;
  out.assemblerLog = std::move(cubin->log);
  return out;
}
