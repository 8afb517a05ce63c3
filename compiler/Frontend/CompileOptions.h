//===- CompileOptions.h - What the dslc driver asks the backend for -*- C++
//-*-===//
//
// Plain data filled by tools/dslc from the command line (see `dslc --help`)
// and handed to dslc::runBackend (Backend.h). The driver validates syntax
// (known dtypes, positive sizes, rank < world size, ...); meaning (e.g.
// whether a -D names a constexpr parameter) is the backend's to check.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_FRONTEND_COMPILEOPTIONS_H
#define DSLC_FRONTEND_COMPILEOPTIONS_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dslc {

/// --emit=KIND.
enum class EmitKind {
  AST,    ///< "ast": the parsed tree (handled by the driver itself).
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

/// --multicast=MODE: how a store to a stack tensor reaches every peer.
enum class MulticastMode {
  Software, ///< "software": one store per peer.
  NVLS,     ///< "nvls": multimem.st through an NVLink SHARP multicast object.
};

/// --cubin-via=ROUTE: how PTX becomes a cubin.
enum class CubinRoute {
  NvJitLink, ///< "nvjitlink": in-process, through libnvJitLink.
  Ptxas,     ///< "ptxas": run the ptxas executable.
};

/// --signature NAME=DTYPE[RANK]: element type and rank of a parameter when
/// its annotation does not say. Rank 0 (written `NAME=DTYPE`) is a scalar.
struct ParamSignature {
  std::string dtype; ///< One of the dtypes of docs/kernel-abi.md.
  unsigned rank = 0;
};

/// The canonical dtype name (docs/kernel-abi.md: "bfloat16", "float32",
/// "float8_e4m3fn", ...) of a dtype spelling without its "torch." prefix:
/// the canonical names and short forms such as bf16, half, f32, int, i64.
std::optional<std::string> canonicalDTypeName(std::string_view name);

/// The canonical dtype names, space-separated, for messages.
const char *canonicalDTypeNames();

struct CompileOptions {
  /// The input file as given on the command line.
  std::string inputPath;
  /// The kernel to compile: a top-level def of the module whose decorator
  /// makes it a kernel (FunctionDef::isKernel()). The driver resolves it
  /// (from -k, or the file's only kernel) before calling the backend.
  std::string kernel;
  EmitKind emit = EmitKind::AST;
  /// "-" means standard output. For ptx/cubin the metadata goes to
  /// outputPath + ".json" (to "<kernel>.json" when writing to stdout).
  std::string outputPath = "-";
  /// -D NAME=VALUE, as written (VALUE is a Python literal: 2, 1.5, True,
  /// "s"); the last -D for a NAME wins.
  std::map<std::string, std::string> defines;
  /// --config: a JSON object (the text of @FILE when given that way), e.g.
  /// {"block_sizes": [8192], "num_warps": 32}; empty when not given.
  std::string configJSON;
  /// --signature entries by parameter name.
  std::map<std::string, ParamSignature> signature;
  /// --arch: "sm_90" unless given ("sm_NN" or "sm_NNa").
  std::string arch = "sm_90";
  MulticastMode multicast = MulticastMode::Software;
  /// --world-size N (N >= 1) and --rank R (0 <= R < N when both are given).
  std::optional<int64_t> worldSize;
  std::optional<int64_t> rank;
  /// --timeout-ms: bound on every spin in the kernel; 0 = unbounded;
  /// unset = the backend's default.
  std::optional<uint64_t> timeoutMs;
  CubinRoute cubinVia = CubinRoute::NvJitLink;

  /// --simulate: run the kernel on the CPU for --world-size ranks instead of
  /// compiling it (compiler/Simulator, docs/simulator.md).
  bool simulate = false;
  /// --config-from-cache: take the config from the tuner's cache
  /// (docs/tuner.md) for this kernel, world size, dtype and --size N;
  /// --cache-dir overrides where the cache is ($DSLC_CACHE_DIR,
  /// $XDG_CACHE_HOME/dslc, ~/.cache/dslc).
  bool configFromCache = false;
  std::string cacheDir;
  /// --seed: inputs and CTA interleavings; the same seed, the same run.
  uint64_t seed = 1;
  /// --ctas N: CTAs per rank (persistent grid); unset = one per tile.
  std::optional<int64_t> ctas;
  /// --size N: the default extent of data tensors; --size NAME=AxB: the
  /// sizes of one tensor (or the value of an int scalar).
  std::optional<int64_t> defaultSize;
  std::map<std::string, std::vector<int64_t>> sizes;
  /// --reference: auto, all-reduce or none.
  std::string reference = "auto";
  /// --dump-dir: where the simulator writes inputs, outputs and a manifest.
  std::string dumpDir;
  /// --calls K: launches back to back on the same pads.
  int64_t calls = 1;
  /// --schedules S: interleavings tried (seeds seed, seed+1, ...).
  int64_t schedules = 3;
};

} // namespace dslc

#endif // DSLC_FRONTEND_COMPILEOPTIONS_H
