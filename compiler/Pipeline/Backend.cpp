//===- Backend.cpp - AST to Tile IR, LLVM, PTX and cubin -----------------===//
//
// The stages after the parser, each one an --emit point:
//   tile   : MLIRGen (Tile + Comm dialects), verified
//   llvm   : buildDslcPipeline (Conversion/Passes.h): LLVM + NVVM
//   llvmir : LLVM IR for nvptx64, optimized at -O3
//   ptx    : NVPTX code generation (+ metadata JSON)
//   cubin  : nvJitLink or ptxas (+ metadata JSON)
// MLIR diagnostics are routed to the DiagnosticEngine with the DSL location.
//
//===----------------------------------------------------------------------===//

#include "compiler/Pipeline/Backend.h"

#include "compiler/Conversion/Passes.h"
#include "compiler/MLIRGen/MLIRGen.h"
#include "compiler/Pipeline/ConfigFromCache.h"
#include "compiler/Simulator/Simulator.h"
#include "compiler/Target/CubinAssembler.h"
#include "compiler/Target/TargetStage.h"

#include "contract/MetadataJson.h"
#include "contract/TuningCache.h"

#include "dialects/Registration.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"

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
                              const CachedConfigRequest &request,
                              DiagnosticEngine &diags,
                              CompileOptions &options) {
  DiagnosticEngine quiet(diags.getSourceManager());
  KernelDescription probe;
  mlir::OwningOpRef<mlir::ModuleOp> scratch =
      generateKernel(ctx, module, kernel, options, quiet, probe);
  if (!scratch || quiet.hasErrors())
    return; // the real generation reports the errors
  const SourceBuffer *buffer =
      diags.getSourceManager().getBuffer(module.getFileId());
  TunedConfigQuery q;
  q.cacheDir = request.cacheDir;
  q.kernel = kernel.getName();
  q.sourceSha256 = buffer ? hexSha256(buffer->getText()) : "";
  q.worldSize = probe.worldSize.value_or(0);
  q.size = request.size;
  if (!request.shapes.empty())
    q.shape = contract::shapeKey(request.shapes);
  q.dtype = contract::tunedDtype(probe.args);
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
    diags.note(kernel.getNameRange(), "--config-from-cache: " + why +
                                          "; using the kernel's own "
                                          "config");
    return;
  }
  diags.note(kernel.getNameRange(),
             "--config-from-cache: " + tuned->configJSON + " from " +
                 tuned->description);
  options.configJSON = tuned->configJSON;
}

namespace {

/// The stages after MLIRGen, each stopping at its --emit kind. Owns the
/// module between stages; `timing` nests one scope per stage.
class Stages {
public:
  Stages(const ast::Module &module, const ast::FunctionDef &kernel,
         DiagnosticEngine &diags, const BackendOptions &options,
         mlir::TimingScope &timing)
      : module(module), kernel(kernel), diags(diags), options(options),
        timing(timing) {}

  int run(mlir::MLIRContext &ctx, const CompileOptions &compile);

  /// What ptxas reported for the cubin written (empty otherwise), the
  /// message naming it, and whether dslc chose the kernel's warps (so it
  /// may compile it again at more: compileWithWarpRetry).
  SpillReport spills;
  std::string spillMessage;
  bool warpsDefaulted = false;
  int64_t warps = 0;
  /// Leave the spill diagnostic to the caller (it may try more warps).
  bool deferSpills = false;
  /// -dslc-issue-loads-early's bound, and whether it moved a load wider
  /// than kNarrowEarlyLoadBytes (the caller may compile again narrower).
  int64_t earlyLoadBytes = kWideEarlyLoadBytes;
  bool wideEarlyLoads = false;
  /// Whether -dslc-prefetch-loads runs, and whether it issued a load ahead
  /// (the caller may compile again without).
  bool prefetchLoads = true;
  bool prefetchedLoads = false;
  /// Whether -dslc-sink-invariant-loads applies, and whether it found a
  /// value to load again in a loop (the caller may compile again with it).
  bool sinkInvariantLoads = false;
  bool sinkableLoads = false;

private:
  int toLLVMDialect(mlir::OwningOpRef<mlir::ModuleOp> &mod);
  int toTarget(mlir::ModuleOp mod, KernelDescription desc);
  /// The exit code of writing `bytes` to `path`.
  int write(const std::string &path, llvm::StringRef bytes, bool binary) {
    return writeOutput(path, bytes, binary, diags) ? 0 : 1;
  }
  /// The exit code of writing the code, then its metadata.
  int writeWithMetadata(llvm::StringRef code, bool binary,
                        llvm::StringRef metadata) {
    std::string metadataPath = options.outputPath == "-"
                                   ? options.kernel + ".json"
                                   : options.outputPath + ".json";
    return writeOutput(options.outputPath, code, binary, diags) &&
                   writeOutput(metadataPath, metadata, false, diags)
               ? 0
               : 1;
  }
  /// Adds what the build decided (target, ABI slots, shared memory...) to
  /// what MLIRGen learnt, and takes the ABI slot list out of the IR.
  void completeMetadata(mlir::ModuleOp mod, KernelDescription &desc,
                        const GpuArch &arch) const;
  /// --arch, or its arch-specific variant (sm_90 -> sm_90a) when the kernel
  /// uses wgmma; none (an error reported) when --arch cannot run it.
  const GpuArch *targetArch(mlir::ModuleOp mod);

  const ast::Module &module;
  const ast::FunctionDef &kernel;
  DiagnosticEngine &diags;
  const BackendOptions &options;
  mlir::TimingScope &timing;
};

int Stages::run(mlir::MLIRContext &ctx, const CompileOptions &compile) {
  KernelDescription desc;
  mlir::OwningOpRef<mlir::ModuleOp> mod;
  {
    mlir::TimingScope t = timing.nest("MLIRGen");
    CompileOptions forTarget = compile;
    forTarget.targetSm = options.arch.smVersion;
    mod = generateKernel(ctx, module, kernel, forTarget, diags, desc);
  }
  if (!mod || diags.hasErrors())
    return 1;
  if (mlir::failed(mlir::verify(*mod))) {
    diags.error(kernel.getNameRange(),
                "internal error: dslc generated invalid IR for this kernel");
    return 1;
  }
  if (mlir::failed(runTilePipeline(*mod)))
    return 1;
  if (options.emit == EmitKind::Tile)
    return write(options.outputPath, printed(*mod), false);
  if (int rc = toLLVMDialect(mod))
    return rc;
  if (options.emit == EmitKind::LLVM)
    return write(options.outputPath, printed(*mod), false);
  return toTarget(*mod, desc);
}

int Stages::toLLVMDialect(mlir::OwningOpRef<mlir::ModuleOp> &mod) {
  mlir::PassManager pm(mod->getContext());
  if (options.useMLIRCommandLine &&
      mlir::failed(mlir::applyPassManagerCLOptions(pm)))
    return 1;
  mlir::TimingScope t = timing.nest("Pass pipeline");
  pm.enableTiming(t);
  DslcPipelineOptions pipeline;
  pipeline.issueLoadsEarly = options.issueLoadsEarly;
  pipeline.earlyLoadBytes = earlyLoadBytes;
  pipeline.prefetchLoads = prefetchLoads;
  pipeline.sinkInvariantLoads = sinkInvariantLoads;
  pipeline.narrowedFastMath = !options.preciseMath;
  buildDslcPipeline(pm, pipeline);
  if (mlir::failed(pm.run(*mod)))
    return 1;
  wideEarlyLoads = (*mod)->hasAttr(kWideEarlyLoadsAttr);
  prefetchedLoads = (*mod)->hasAttr(kPrefetchedLoadsAttr);
  sinkableLoads = (*mod)->hasAttr(kSinkableLoadsAttr);
  return 0;
}

const GpuArch *Stages::targetArch(mlir::ModuleOp mod) {
  if (!mod->hasAttr(kNeedsSm90aAttr))
    return &options.arch;
  if (options.arch.smVersion != 90) {
    diags.error(kernel.getNameRange(),
                std::string("dot_engine \"wgmma\" runs on sm_90 (Hopper), "
                            "and --arch is ") +
                    options.arch.name +
                    ": compile for sm_90 or use dot_engine \"mma_sync\"");
    return nullptr;
  }
  return lookupGpuArch("sm_90a");
}

void Stages::completeMetadata(mlir::ModuleOp mod, KernelDescription &desc,
                              const GpuArch &arch) const {
  desc.arch = arch.name;
  if (options.timeoutMs)
    desc.defaultTimeoutMs = static_cast<int64_t>(*options.timeoutMs);
  desc.sharedBytes = sharedWorkspaceBytes(mod);
  desc.multicast =
      options.compile.multicast == MulticastMode::NVLS ? "nvls" : "software";
  if (const SourceBuffer *buffer =
          diags.getSourceManager().getBuffer(module.getFileId()))
    desc.sourceSha256 = hexSha256(buffer->getText());
  if (mlir::Operation *entry = mod.lookupSymbol(options.kernel)) {
    desc.abi = tile::getAbiSlots(entry);
    entry->removeAttr(tile::kAbiAttr);
  }
}

int Stages::toTarget(mlir::ModuleOp mod, KernelDescription desc) {
  const GpuArch *arch = targetArch(mod);
  if (!arch)
    return 1;
  completeMetadata(mod, desc, *arch);
  TargetRequest request;
  request.arch = *arch;
  request.output = options.emit == EmitKind::LLVMIR ? TargetOutput::LLVMIR
                   : options.emit == EmitKind::PTX  ? TargetOutput::PTX
                                                    : TargetOutput::Cubin;
  request.route = options.cubinVia == CubinRoute::Ptxas ? AssemblerRoute::Ptxas
                                                        : AssemblerRoute::Auto;
  request.verbose = true; // the resource report: spills
  std::string error;
  std::optional<TargetArtifact> artifact =
      runTargetStage(mod, request, timing, error);
  if (!artifact) {
    if (!error.empty())
      diags.error(kernel.getNameRange(), error);
    return 1;
  }
  if (options.emit == EmitKind::LLVMIR)
    return write(options.outputPath, artifact->bytes, false);
  if (artifact->wgmmaSerialized)
    diags.warning(kernel.getNameRange(),
                  "kernel '" + options.kernel +
                      "': ptxas serializes its wgmma products (each waited "
                      "for before the next is issued: far below the tensor "
                      "cores' speed) because its code has " +
                      *artifact->wgmmaSerialized +
                      "; compute such values in 32 bits or outside the kernel");
  std::string metadata = contract::writeMetadata(desc);
  if (options.emit == EmitKind::PTX)
    return writeWithMetadata(artifact->bytes, false, metadata);
  warpsDefaulted = desc.numWarpsDefaulted;
  warps = desc.numWarps;
  spills = parseSpills(artifact->assemblerLog);
  if (spills.any()) {
    contract::KernelConfig config;
    for (const contract::Tunable &t : desc.tunables)
      config.set(t, t.value);
    std::string message =
        "kernel '" + options.kernel + "' spills registers to local memory: " +
        std::to_string(spills.storeBytes) + " bytes of spill stores and " +
        std::to_string(spills.loadBytes) + " bytes of spill loads per " +
        "thread with config " + config.brief() + " on " + arch->name +
        " (smaller blocks, more warps or reduction_loops keep it in "
        "registers)";
    spillMessage = message;
    if (deferSpills)
      return writeWithMetadata(artifact->bytes, true, metadata);
    if (options.spillsAreErrors) {
      diags.error(kernel.getNameRange(), message + " [--Werror-spills]");
      return 1;
    }
    diags.warning(kernel.getNameRange(), message);
  }
  return writeWithMetadata(artifact->bytes, true, metadata);
}

/// A cubin, compiled again where ptxas spills no more than a retry may remove
/// (SpillReport::retryable): first with the values loaded
/// before a loop and used only in it loaded again in the loop
/// (-dslc-sink-invariant-loads, when it found one), then without loads
/// issued iterations ahead, then at the narrow bound of
/// -dslc-issue-loads-early when the wide one moved a wider load (each kept
/// if it spills less, the next built on the best so far), then, for a
/// kernel whose config sets no num_warps, at twice the warps, up to
/// kMaxRetryWarps, and keep the first that does not spill, else the one
/// that spills least. Each attempt's diagnostics are collected and only the
/// kept attempt's are reported (with a note when its warps were raised); a
/// raised attempt that fails leaves the last good one's output.
constexpr int64_t kMaxRetryWarps = 16;

int compileWithWarpRetry(mlir::MLIRContext &ctx, const ast::Module &module,
                         const ast::FunctionDef &kernel,
                         DiagnosticEngine &diags, const BackendOptions &options,
                         const CompileOptions &compile,
                         mlir::TimingScope &timing) {
  struct Attempt {
    int rc = 1;
    std::vector<Diagnostic> diagnostics;
    SpillReport spills;
    std::string spillMessage;
    int64_t warps = 0;
    bool wideEarlyLoads = false;
    bool prefetchedLoads = false;
    bool sinkableLoads = false;
  };
  /// What the register-hungry passes may do: -dslc-issue-loads-early's
  /// bound, whether -dslc-prefetch-loads runs, and whether
  /// -dslc-sink-invariant-loads applies (registers freed, not taken).
  struct Loads {
    int64_t earlyBytes = kWideEarlyLoadBytes;
    bool prefetch = true;
    bool sink = false;
    bool operator==(const Loads &o) const {
      return earlyBytes == o.earlyBytes && prefetch == o.prefetch &&
             sink == o.sink;
    }
  };
  auto bytes = [](const Attempt &a) {
    return a.spills.storeBytes + a.spills.loadBytes;
  };
  auto once = [&](int64_t warps, Loads loads) {
    DiagnosticEngine collect(diags.getSourceManager(), nullptr);
    DiagnosticBridge bridge(ctx, collect, module.getFileId());
    CompileOptions o = compile;
    o.numWarpsWhenUnset = warps;
    Stages stages(module, kernel, collect, options, timing);
    stages.deferSpills = true;
    stages.earlyLoadBytes = loads.earlyBytes;
    stages.prefetchLoads = loads.prefetch;
    stages.sinkInvariantLoads = loads.sink;
    Attempt a;
    a.rc = stages.run(ctx, o);
    if (collect.hasErrors() && a.rc == 0)
      a.rc = 1;
    a.diagnostics = collect.getDiagnostics();
    a.spills = stages.spills;
    a.spillMessage = stages.spillMessage;
    a.warps = stages.warpsDefaulted ? stages.warps : 0;
    a.wideEarlyLoads = stages.wideEarlyLoads;
    a.prefetchedLoads = stages.prefetchedLoads;
    a.sinkableLoads = stages.sinkableLoads;
    return a;
  };
  // Values held across a loop, loads issued iterations ahead, or loads
  // moved above reductions at the wide bound, that made ptxas spill: the
  // cubin with the values loaded again in the loop, then without the
  // prefetch, then at the narrow bound, each step on the best so far,
  // whichever spills least (the first on a tie).
  auto attempt = [&](int64_t warps) {
    Attempt first = once(warps, Loads{});
    if (first.rc != 0 || !first.spills.retryable() ||
        options.outputPath == "-" ||
        !(first.wideEarlyLoads || first.prefetchedLoads || first.sinkableLoads))
      return first;
    Attempt best = first;
    Loads bestLoads, lastLoads; // the best's, and the one on disk
    auto consider = [&](Loads loads) {
      if (!best.spills.any())
        return;
      Attempt last = once(warps, loads);
      lastLoads = loads;
      if (last.rc == 0 && bytes(last) < bytes(best)) {
        best = last;
        bestLoads = loads;
      }
    };
    if (first.sinkableLoads)
      consider(Loads{bestLoads.earlyBytes, bestLoads.prefetch, true});
    if (first.prefetchedLoads)
      consider(Loads{bestLoads.earlyBytes, false, bestLoads.sink});
    if (first.wideEarlyLoads)
      consider(Loads{kNarrowEarlyLoadBytes, false, bestLoads.sink});
    if (!(bestLoads == lastLoads))
      return once(warps, bestLoads); // back on disk
    return best;
  };
  Attempt first = attempt(0);
  Attempt kept = first;
  // (Not for a cubin written to stdout: it cannot be written again.)
  if (first.rc == 0 && first.spills.any() && first.warps > 0 &&
      options.outputPath != "-") {
    Attempt last = first; // the attempt whose output is on disk
    for (int64_t w = first.warps * 2; w <= kMaxRetryWarps; w *= 2) {
      Attempt more = attempt(w);
      if (more.rc != 0)
        break; // nothing written: `last` stands
      last = more;
      if (bytes(more) < bytes(kept))
        kept = more;
      if (!more.spills.any())
        break;
    }
    if (last.warps != kept.warps)
      kept = attempt(kept.warps); // back on disk
  }
  for (const Diagnostic &d : kept.diagnostics)
    diags.report(d.range, d.severity, d.message);
  if (kept.rc != 0)
    return kept.rc;
  if (kept.warps != first.warps && first.spills.any())
    diags.note(kernel.getNameRange(),
               "no config gives kernel '" + options.kernel +
                   "' its num_warps and it spills (" +
                   std::to_string(first.spills.storeBytes) +
                   " bytes of spill stores) at " + std::to_string(first.warps) +
                   " warps: compiled at " + std::to_string(kept.warps) +
                   " warps instead (num_warps in its config decides)");
  if (kept.spills.any()) {
    if (options.spillsAreErrors) {
      diags.error(kernel.getNameRange(),
                  kept.spillMessage + " [--Werror-spills]");
      return 1;
    }
    diags.warning(kernel.getNameRange(), kept.spillMessage);
  }
  return 0;
}

struct EmitName {
  EmitKind kind;
  const char *name;
};
constexpr EmitName kEmitNames[] = {
    {EmitKind::AST, "ast"},   {EmitKind::Tile, "tile"},
    {EmitKind::LLVM, "llvm"}, {EmitKind::LLVMIR, "llvmir"},
    {EmitKind::PTX, "ptx"},   {EmitKind::Cubin, "cubin"},
};

} // namespace

const char *dslc::getEmitKindName(EmitKind kind) {
  for (const EmitName &e : kEmitNames)
    if (e.kind == kind)
      return e.name;
  return "?";
}

std::optional<EmitKind> dslc::parseEmitKind(std::string_view name) {
  for (const EmitName &e : kEmitNames)
    if (name == e.name)
      return e.kind;
  return std::nullopt;
}

bool dslc::isTextEmit(EmitKind kind) { return kind != EmitKind::Cubin; }

int dslc::runBackend(const ast::Module &module, DiagnosticEngine &diags,
                     const BackendOptions &options) {
  const ast::FunctionDef *kernel = module.lookupFunction(options.kernel);
  if (!kernel) {
    diags.error(SourceRange(), "no kernel named '" + options.kernel + "'");
    return 1;
  }

  mlir::MLIRContext ctx;
  loadDslcDialects(ctx);
  // Diagnostics point at the DSL source; the IR dump is for --emit=tile.
  ctx.printOpOnDiagnostic(false);
  DiagnosticBridge bridge(ctx, diags, module.getFileId());

  mlir::DefaultTimingManager timingManager;
  if (options.useMLIRCommandLine)
    mlir::applyDefaultTimingManagerCLOptions(timingManager);
  mlir::TimingScope timing = timingManager.getRootScope();

  CompileOptions compile = options.compile;
  if (options.cachedConfig)
    applyCachedConfig(ctx, module, *kernel, *options.cachedConfig, diags,
                      compile);

  // --simulate: run the Tile/Comm IR of every rank on the CPU instead.
  if (options.simulation) {
    mlir::TimingScope t = timing.nest("Simulation");
    return simulate(ctx, module, *kernel, compile, *options.simulation, diags);
  }
  if (options.emit == EmitKind::Cubin)
    return compileWithWarpRetry(ctx, module, *kernel, diags, options, compile,
                                timing);
  return Stages(module, *kernel, diags, options, timing).run(ctx, compile);
}
