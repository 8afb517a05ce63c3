//===- Backend.cpp - AST to Tile IR, LLVM, PTX and cubin -----------------===//
//
// The stages after the parser, each one an --emit point:
//   tile   : MLIRGen (Tile + Comm dialects), verified
//   llvm   : -dslc-distribute-tiles, -dslc-lower-to-llvm (LLVM + NVVM)
//   llvmir : LLVM IR for nvptx64, optimized at -O3
//   ptx    : NVPTX code generation (+ metadata JSON)
//   cubin  : nvJitLink or ptxas (+ metadata JSON)
// MLIR diagnostics are routed to the DiagnosticEngine with the DSL location.
//
//===----------------------------------------------------------------------===//

#include "compiler/Frontend/Backend.h"

#include "compiler/Conversion/Passes.h"
#include "compiler/MLIRGen/MLIRGen.h"
#include "compiler/Pipeline/ConfigFromCache.h"
#include "compiler/Simulator/Simulator.h"
#include "compiler/Target/CubinAssembler.h"
#include "compiler/Target/NVPTXEmitter.h"

#include "contract/MetadataJson.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace dslc;

namespace {

/// Routes MLIR diagnostics to the DSL's DiagnosticEngine.
class DiagnosticBridge {
public:
  DiagnosticBridge(mlir::MLIRContext &ctx, DiagnosticEngine &diags,
                   uint32_t fileId)
      : handler(&ctx, [&diags, fileId](mlir::Diagnostic &d) {
          Location where;
          auto [line, column] = lineColumn(d.getLocation());
          if (line) {
            where.fileId = fileId;
            where.line = line;
            where.column = column;
          }
          Severity severity =
              d.getSeverity() == mlir::DiagnosticSeverity::Error
                  ? Severity::Error
              : d.getSeverity() == mlir::DiagnosticSeverity::Warning
                  ? Severity::Warning
                  : Severity::Note;
          diags.report(SourceRange(where), severity, d.str());
          for (mlir::Diagnostic &note : d.getNotes()) {
            auto [nl, nc] = lineColumn(note.getLocation());
            Location nw;
            if (nl) {
              nw.fileId = fileId;
              nw.line = nl;
              nw.column = nc;
            }
            diags.report(SourceRange(nw), Severity::Note, note.str());
          }
          return mlir::success();
        }) {}

private:
  static std::pair<unsigned, unsigned> lineColumn(mlir::Location loc) {
    if (auto flc = mlir::dyn_cast<mlir::FileLineColLoc>(loc))
      return {flc.getLine(), flc.getColumn()};
    if (auto fused = mlir::dyn_cast<mlir::FusedLoc>(loc))
      for (mlir::Location inner : fused.getLocations()) {
        auto lc = lineColumn(inner);
        if (lc.first)
          return lc;
      }
    return {0, 0};
  }
  mlir::ScopedDiagnosticHandler handler;
};

/// Writes `bytes` to `path` ("-" = stdout). Reports failures.
bool writeOutput(const std::string &path, llvm::StringRef bytes, bool binary,
                 DiagnosticEngine &diags) {
  std::error_code ec;
  llvm::ToolOutputFile file(
      path, ec, binary ? llvm::sys::fs::OF_None : llvm::sys::fs::OF_Text);
  if (ec) {
    diags.error(SourceRange(), "cannot write '" + path + "': " + ec.message());
    return false;
  }
  file.os() << bytes;
  file.os().flush();
  if (file.os().has_error()) {
    diags.error(SourceRange(), "cannot write '" + path + "'");
    file.os().clear_error();
    return false;
  }
  file.keep();
  return true;
}

std::string printed(mlir::Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os);
  os << "\n";
  return s;
}

std::string hexSha256(llvm::StringRef text) {
  auto hash = llvm::SHA256::hash(llvm::arrayRefFromStringRef(text));
  return llvm::toHex(hash, /*LowerCase=*/true);
}

} // namespace

/// --config-from-cache: generates the kernel once with its own config (to
/// learn its world size and data dtype, diagnostics collected, not shown),
/// then looks the tuned config up. Leaves `options` unchanged when nothing
/// matches, with a note saying why.
static void applyCachedConfig(mlir::MLIRContext &ctx, const ast::Module &module,
                              const ast::FunctionDef &kernel,
                              DiagnosticEngine &diags, CompileOptions &options) {
  DiagnosticEngine quiet(diags.getSourceManager());
  KernelDescription probe;
  mlir::OwningOpRef<mlir::ModuleOp> scratch =
      generateKernel(ctx, module, kernel, options, quiet, probe);
  if (!scratch || quiet.hasErrors())
    return; // the real generation reports the errors
  const SourceBuffer *buffer =
      diags.getSourceManager().getBuffer(module.getFileId());
  TunedConfigQuery q;
  q.cacheDir = options.cacheDir;
  q.kernel = options.kernel;
  q.sourceSha256 = buffer ? hexSha256(buffer->getText()) : "";
  q.worldSize = probe.worldSize.value_or(0);
  q.size = options.defaultSize;
  q.dtype = tunedDType(probe);
  if (!probe.worldSize) {
    diags.note(kernel.getNameRange(),
               "--config-from-cache: the kernel is not specialized for a "
               "world size (-D world_size=N or --world-size N); using its "
               "own config");
    return;
  }
  std::string why;
  std::optional<TunedConfig> tuned = findTunedConfig(q, why);
  if (!tuned) {
    diags.note(kernel.getNameRange(),
               "--config-from-cache: " + why + "; using the kernel's own "
               "config");
    return;
  }
  diags.note(kernel.getNameRange(), "--config-from-cache: " +
                                        tuned->configJSON + " from " +
                                        tuned->description);
  options.configJSON = tuned->configJSON;
}

int dslc::runBackend(const ast::Module &module, DiagnosticEngine &diags,
                     const CompileOptions &givenOptions) {
  CompileOptions options = givenOptions;
  const ast::FunctionDef *kernel = module.lookupFunction(options.kernel);
  if (!kernel) {
    diags.error(SourceRange(), "no kernel named '" + options.kernel + "'");
    return 1;
  }

  mlir::MLIRContext ctx;
  ctx.loadDialect<tile::TileDialect, comm::CommDialect,
                  mlir::arith::ArithDialect, mlir::func::FuncDialect,
                  mlir::scf::SCFDialect, mlir::vector::VectorDialect,
                  mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect,
                  mlir::math::MathDialect, mlir::cf::ControlFlowDialect>();
  // Diagnostics point at the DSL source; the IR dump is for --emit=tile.
  ctx.printOpOnDiagnostic(false);
  DiagnosticBridge bridge(ctx, diags, module.getFileId());

  if (options.configFromCache)
    applyCachedConfig(ctx, module, *kernel, diags, options);

  // --simulate: run the Tile/Comm IR of every rank on the CPU instead.
  if (options.simulate)
    return simulate(ctx, module, *kernel, options, diags);

  KernelDescription desc;
  mlir::OwningOpRef<mlir::ModuleOp> mod =
      generateKernel(ctx, module, *kernel, options, diags, desc);
  if (!mod || diags.hasErrors())
    return 1;
  if (mlir::failed(mlir::verify(*mod))) {
    diags.error(kernel->getNameRange(),
                "internal error: dslc generated invalid IR for this kernel");
    return 1;
  }
  if (options.emit == EmitKind::Tile)
    return writeOutput(options.outputPath, printed(*mod), false, diags) ? 0 : 1;

  mlir::PassManager pm(&ctx);
  buildLoweringPipeline(pm);
  if (mlir::failed(pm.run(*mod)))
    return 1;

  // The ABI slots, as the lowering laid them out, and the build's facts.
  desc.arch = options.arch;
  if (options.timeoutMs)
    desc.defaultTimeoutMs = static_cast<int64_t>(*options.timeoutMs);
  desc.sharedBytes = sharedWorkspaceBytes(*mod);
  desc.multicast =
      options.multicast == MulticastMode::NVLS ? "nvls" : "software";
  if (const SourceBuffer *buffer =
          diags.getSourceManager().getBuffer(module.getFileId()))
    desc.sourceSha256 = hexSha256(buffer->getText());
  mlir::Operation *entry = mod->lookupSymbol(options.kernel);
  if (entry)
    desc.abi = tile::getAbiSlots(entry);
  if (options.emit == EmitKind::LLVM)
    return writeOutput(options.outputPath, printed(*mod), false, diags) ? 0 : 1;
  if (entry)
    entry->removeAttr(tile::kAbiAttr);

  NVPTXOptions target;
  target.arch = options.arch;
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateToLLVMIR(*mod, llvmContext, target);
  if (!llvmModule)
    return 1;
  if (options.emit == EmitKind::LLVMIR) {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvmModule->print(os, nullptr);
    return writeOutput(options.outputPath, text, false, diags) ? 0 : 1;
  }

  std::string error;
  std::optional<std::string> ptx = emitPTX(*llvmModule, target, error);
  if (!ptx) {
    diags.error(SourceRange(), "PTX generation failed: " + error);
    return 1;
  }
  std::string metadata = contract::writeMetadata(desc);
  std::string metadataPath = options.outputPath == "-"
                                 ? options.kernel + ".json"
                                 : options.outputPath + ".json";
  if (options.emit == EmitKind::PTX)
    return writeOutput(options.outputPath, *ptx, false, diags) &&
                   writeOutput(metadataPath, metadata, false, diags)
               ? 0
               : 1;

  std::optional<CubinResult> cubin = assembleCubin(
      *ptx, options.arch,
      options.cubinVia == CubinRoute::Ptxas ? AssemblerRoute::Ptxas
                                            : AssemblerRoute::Auto,
      /*verbose=*/false, error);
  if (!cubin) {
    diags.error(kernel->getNameRange(), "assembling the kernel for " +
                                            options.arch + " failed: " + error);
    return 1;
  }
  llvm::StringRef bytes(cubin->cubin.data(), cubin->cubin.size());
  return writeOutput(options.outputPath, bytes, true, diags) &&
                 writeOutput(metadataPath, metadata, false, diags)
             ? 0
             : 1;
}
