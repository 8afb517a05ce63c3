//===- CompileOptions.h - How a kernel is specialized -----------*- C++ -*-===//
//
// What MLIRGen compiles a kernel for besides its source: -D constants, the
// config, parameter signatures, the world size and rank, the multicast mode.
// Plain data, filled by the dslc driver from the command line (`dslc
// --help`) and by the simulator once per rank. Where the output goes and
// what runs after MLIRGen are the pipeline's options (compiler/Pipeline/
// Backend.h); how a simulation runs is compiler/Simulator/
// SimulationOptions.h.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_FRONTEND_COMPILEOPTIONS_H
#define DSLC_FRONTEND_COMPILEOPTIONS_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dslc {

/// The largest world size dslc compiles for (--world-size, -D world_size).
/// Loops over peers are unrolled, so compile time and code size grow faster
/// than the world size: at 128 ranks the slowest example (the LL two-shot)
/// compiles in 19 s, at 256 the two-shot takes 117 s and 3.7 GB. 128 is
/// above one NVLink domain (72).
inline constexpr int64_t kMaxWorldSize = 128;

/// Constexpr names that mean this rank and the world size (dslc's examples
/// write my_rank and world_size, Helion's RANK and WORLD_SIZE): such a
/// constexpr takes --rank / --world-size when no -D gives it, and a -D of
/// it must agree with the flag.
inline constexpr std::string_view kRankNames[] = {"my_rank", "rank", "RANK",
                                                  "MY_RANK"};
inline constexpr std::string_view kWorldSizeNames[] = {"world_size",
                                                       "WORLD_SIZE"};
bool isRankName(std::string_view name);
bool isWorldSizeName(std::string_view name);

/// The largest --config text (inline or @FILE). A config is a few numbers.
inline constexpr size_t kMaxConfigBytes = 1u << 20;

/// --multicast=MODE: how a store to a stack tensor reaches every peer.
enum class MulticastMode {
  Software, ///< "software": one store per peer.
  NVLS,     ///< "nvls": multimem.st through an NVLink SHARP multicast object.
};

/// --signature NAME=DTYPE[RANK]: element type and rank of a parameter when
/// its annotation does not say. Rank 0 (written `NAME=DTYPE`) is a scalar.
struct ParamSignature {
  std::string dtype; ///< One of the dtypes of docs/kernel-abi.md.
  unsigned rank = 0;
};

/// The sizes of one tensor parameter, given to the compiler (--shape
/// NAME=AxB, or --size NAME=AxB under --simulate).
struct TensorShape {
  std::vector<int64_t> sizes;
  /// Given as --simulate's --size, which also gives int scalars' values and
  /// outputs' sizes: an entry naming no tensor parameter is the simulator's
  /// to check, not the compiler's.
  bool fromSimulation = false;
  /// "--shape x=7x4096" (or "--size x=7x4096"), as messages name it.
  std::string spelling(const std::string &name) const;
};

struct CompileOptions {
  /// -D NAME=VALUE, as written (VALUE is a Python literal: 2, 1.5, True,
  /// "s"); the last -D for a NAME wins.
  std::map<std::string, std::string> defines;
  /// --config: a JSON object (the text of @FILE when given that way), e.g.
  /// {"block_sizes": [8192], "num_warps": 32}; empty when not given.
  std::string configJSON;
  /// --shape NAME=AxB by parameter name: sizes the kernel may compile in
  /// where it needs one at compile time (hl.specialize(x.size(d)), `:` over
  /// a dimension, `assert x.size(d) == ...`) and no -D gives it. Only the
  /// sizes so used are compiled in (each a launch constraint `==`); the
  /// others stay run-time sizes.
  std::map<std::string, TensorShape> shapes;
  /// --specialize-shapes: every size of a tensor parameter that --shape gives
  /// is compiled in (a launch constraint `==` each), used or not, as
  /// Helion's static_shapes=True specializes a kernel on its shapes.
  bool specializeShapes = false;
  /// --signature entries by parameter name.
  std::map<std::string, ParamSignature> signature;
  /// --dim-order NAME=AxB...: a tensor parameter passed as the row-major
  /// tensor it is stored as, whose stored dimension s is dimension
  /// order[s] of the tensor the kernel sees (torch's Tensor.dim_order();
  /// {1, 0}: a transposed matrix). --shape gives its stored sizes.
  std::map<std::string, std::vector<unsigned>> dimOrders;
  MulticastMode multicast = MulticastMode::Software;
  /// --world-size N (1 <= N <= kMaxWorldSize) and --rank R (0 <= R < N).
  std::optional<int64_t> worldSize;
  std::optional<int64_t> rank;
  /// The warps of a kernel whose config sets no num_warps (0: the
  /// contract's default); the driver raises it when ptxas spills.
  int64_t numWarpsWhenUnset = 0;
  /// The SM version the kernel is compiled for (90 for sm_90 and sm_90a; 0:
  /// none, as in the simulator). It decides the engine of matrix products
  /// a config leaves to the compiler (MLIRGen's chooseDotEngine).
  unsigned targetSm = 0;
};

/// True when `text` is a non-empty run of digits (no sign, no spaces): how
/// every numeric option of dslc is written.
bool isDecimal(std::string_view text);
/// The value of isDecimal `text`; nothing when it is not isDecimal or does
/// not fit in 64 bits (callers report that as out of their range).
std::optional<uint64_t> parseDecimal(std::string_view text);

/// Checks what the options say independently of any program: the world
/// size within 1..kMaxWorldSize (from --world-size or an integer -D
/// world_size), the rank below it, and that -D world_size / -D my_rank /
/// -D rank agree with --world-size / --rank when both are given (MLIRGen
/// would otherwise take the -D for the program and the flag for the
/// metadata), and that -D 'x.size(d)=N' agrees with --shape x=... .
/// Returns an error message (no "error:" prefix) or nothing.
std::optional<std::string> checkCompileOptions(const CompileOptions &options);

} // namespace dslc

#endif // DSLC_FRONTEND_COMPILEOPTIONS_H
