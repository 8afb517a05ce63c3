//===- Backend.h - Everything after the parser ------------------*- C++ -*-===//
//
// The dslc driver parses the file, selects the kernel, prints the AST itself
// for --emit=ast and calls runBackend for every other --emit and for
// --simulate. runBackend generates Tile IR (MLIRGen), runs the pass pipeline
// (buildDslcPipeline, Conversion/Passes.h), translates to LLVM IR, emits PTX
// and assembles a cubin, stopping at `emit`.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_COMPILER_PIPELINE_BACKEND_H
#define DSLC_COMPILER_PIPELINE_BACKEND_H

#include "compiler/Frontend/AST.h"
#include "compiler/Frontend/CompileOptions.h"
#include "compiler/Frontend/Diagnostics.h"
#include "compiler/Simulator/SimulationOptions.h"
#include "compiler/Target/GpuArch.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dslc {

/// --emit=KIND: where compilation stops.
enum class EmitKind {
  AST,    ///< "ast": the parsed tree (printed by the driver itself).
  Tile,   ///< "tile": MLIR in the tile + comm dialects.
  LLVM,   ///< "llvm": MLIR lowered to the LLVM/NVVM dialects.
  LLVMIR, ///< "llvmir": LLVM IR text.
  PTX,    ///< "ptx": PTX text (+ OUT.json metadata, docs/kernel-abi.md).
  Cubin,  ///< "cubin": a cubin (+ OUT.json metadata).
};
const char *getEmitKindName(EmitKind kind);
std::optional<EmitKind> parseEmitKind(std::string_view name);
/// True for every kind but Cubin (which is binary and needs -o FILE).
bool isTextEmit(EmitKind kind);

/// --cubin-via=ROUTE: how PTX becomes a cubin.
enum class CubinRoute {
  NvJitLink, ///< "nvjitlink": in-process through libnvJitLink, else ptxas.
  Ptxas,     ///< "ptxas": run the ptxas executable.
};

/// --config-from-cache [--cache-dir DIR] [--size N]: take the config the
/// tuner cached for this kernel source, world size, dtype and size bucket
/// (docs/tuner.md).
struct CachedConfigRequest {
  /// Empty: $DSLC_CACHE_DIR, $XDG_CACHE_HOME/dslc, ~/.cache/dslc.
  std::string cacheDir;
  std::optional<int64_t> size;
  /// The call's tensor shapes (--size NAME=AxB), for the entry tuned at
  /// them (ConfigFromCache.h).
  std::map<std::string, std::vector<int64_t>> shapes;
};

/// The largest --timeout-ms: one day. The runtime turns it into
/// nanoseconds in a 64-bit slot.
inline constexpr uint64_t kMaxTimeoutMs = 24ull * 3600 * 1000;

struct BackendOptions {
  /// The kernel to compile: a top-level kernel def of the module.
  std::string kernel;
  EmitKind emit = EmitKind::Tile;
  /// "-" means standard output. For ptx/cubin the metadata goes to
  /// outputPath + ".json" (to "<kernel>.json" when writing to stdout).
  std::string outputPath = "-";
  /// How MLIRGen specializes the kernel.
  CompileOptions compile;
  /// --arch.
  GpuArch arch = getDefaultGpuArch();
  /// --timeout-ms: the metadata's default bound on every spin in the
  /// kernel; 0 = unbounded; unset = the runtime's default.
  std::optional<uint64_t> timeoutMs;
  CubinRoute cubinVia = CubinRoute::NvJitLink;
  /// --Werror-spills: a cubin whose assembler reports register spills is
  /// an error (by default a warning naming the bytes and the config).
  bool spillsAreErrors = false;
  /// --issue-loads-early=false: loads stay in program order
  /// (-dslc-issue-loads-early off), to measure what the pass does.
  bool issueLoadsEarly = true;
  /// --precise-math: no -dslc-narrowed-fast-math.
  bool preciseMath = false;
  std::optional<CachedConfigRequest> cachedConfig;
  /// --simulate: run the kernel on the CPU for compile.worldSize ranks
  /// instead of compiling it (compiler/Simulator, docs/simulator.md).
  std::optional<SimulationOptions> simulation;
  /// Apply MLIR's command-line options (--mlir-print-ir-after-all,
  /// --mlir-timing, ...) to the pass manager and timing; only for a tool
  /// that registered them (mlir::registerPassManagerCLOptions, ...).
  bool useMLIRCommandLine = false;
};

/// Compiles (or simulates) kernel `options.kernel` of `module`, which parsed
/// without errors, writing `options.outputPath`. Problems in the program
/// are reported through `diags` at AST ranges. Returns the process exit
/// code: 0 on success, 1 after an error.
int runBackend(const ast::Module &module, DiagnosticEngine &diags,
               const BackendOptions &options);

} // namespace dslc

#endif // DSLC_COMPILER_PIPELINE_BACKEND_H
