//===- dslc-translate.cpp - Tile or LLVM-dialect IR to LLVM IR, PTX, cubin ===//
//
// dslc-translate FILE.mlir --emit=llvmir|ptx|cubin [-o OUT] [--arch sm_90]
//
// The Target stage of dslc for IR written or transformed by hand: a module
// of Tile/Comm ops is first lowered as dslc lowers a kernel
// (buildDslcPipeline); a module already in the LLVM and NVVM dialects goes
// straight to LLVM IR (libdevice linked, -O3), PTX and a cubin. Used by the lit
// tests of the lowering and to build the GPU tests' Tile-IR kernels.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/Passes.h"
#include "compiler/Target/TargetStage.h"
#include "dialects/Registration.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace dslc;
namespace cl = llvm::cl;

namespace {
enum class Emit { LLVMIR, PTX, Cubin };

cl::opt<std::string> input(cl::Positional, cl::desc("<input .mlir>"),
                           cl::init("-"));
cl::opt<std::string> output("o", cl::desc("output file"), cl::init("-"));
cl::opt<Emit> emit("emit", cl::desc("what to produce"), cl::Required,
                   cl::values(clEnumValN(Emit::LLVMIR, "llvmir", "LLVM IR"),
                              clEnumValN(Emit::PTX, "ptx", "PTX assembly"),
                              clEnumValN(Emit::Cubin, "cubin", "a cubin")));
cl::opt<std::string> arch("arch", cl::desc("target GPU (GpuArch.cpp)"),
                          cl::init("sm_90"));
cl::opt<bool> viaPtxas("cubin-via-ptxas",
                       cl::desc("assemble with ptxas, not nvJitLink"));

int fail(const llvm::Twine &message) {
  llvm::errs() << "dslc-translate: error: " << message << "\n";
  return 1;
}

bool write(llvm::StringRef bytes, bool binary) {
  std::error_code ec;
  llvm::ToolOutputFile file(
      output, ec, binary ? llvm::sys::fs::OF_None : llvm::sys::fs::OF_Text);
  if (ec) {
    fail("cannot write '" + output + "': " + ec.message());
    return false;
  }
  file.os() << bytes;
  file.keep();
  return true;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "dslc Target stage for .mlir\n");
  const GpuArch *gpuArch = lookupGpuArch(arch.getValue());
  if (!gpuArch)
    return fail("unsupported --arch '" + arch + "'; dslc compiles for " +
                getGpuArchNames());

  mlir::MLIRContext ctx;
  loadDslcDialects(ctx);
  llvm::SourceMgr sources;
  mlir::SourceMgrDiagnosticHandler handler(sources, &ctx);
  std::string error;
  auto file = mlir::openInputFile(input, &error);
  if (!file)
    return fail(error);
  sources.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sources, &ctx);
  if (!module)
    return 1;

  bool tileIR = false;
  module->walk(
      [&](mlir::func::FuncOp f) { tileIR |= f->hasAttr(tile::kKernelAttr); });
  if (tileIR) {
    mlir::PassManager pm(&ctx);
    buildDslcPipeline(pm, DslcPipelineOptions());
    if (mlir::failed(pm.run(*module)))
      return 1;
  }
  // The ABI list is for the metadata, which this tool does not write.
  module->walk([](mlir::LLVM::LLVMFuncOp f) { f->removeAttr(tile::kAbiAttr); });

  TargetRequest request;
  request.arch = *gpuArch;
  request.output = emit == Emit::LLVMIR ? TargetOutput::LLVMIR
                   : emit == Emit::PTX  ? TargetOutput::PTX
                                        : TargetOutput::Cubin;
  request.route = viaPtxas ? AssemblerRoute::Ptxas : AssemblerRoute::Auto;
  if (request.output == TargetOutput::Cubin && output == "-")
    return fail("--emit=cubin writes a binary file; give -o FILE");
  mlir::DefaultTimingManager timingManager;
  mlir::TimingScope timing = timingManager.getRootScope();
  std::optional<TargetArtifact> artifact =
      runTargetStage(*module, request, timing, error);
  if (!artifact)
    return error.empty() ? 1 : fail(error);
  return write(artifact->bytes, artifact->binary) ? 0 : 1;
}
