//===- Limits.h - Resource bounds of the compiler ---------------*- C++ -*-===//
//
// Bounds on how much work a program may ask the compiler for, each
// diagnosed at the program's source and fatal (compilation stops there),
// so that no input within them takes more than 20 s or 4 GB to compile
// (docs/robustness.md). Header-only: every stage includes it.
//
// Other bounds live next to what they bound and are listed in
// docs/compiler.md ("Options and their bounds", "What MLIRGen accepts")
// and docs/language.md ("Limits"): world size (CompileOptions.h), source
// size (SourceManager.h), expression height and nesting (Parser.h), stack
// (CompilerStack.h), block and tile sizes, auto-unrolled iterations
// (MLIRGen/Generator.h), elements per thread (Conversion/TileLayout.h).
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_COMPILER_LIMITS_H
#define DSLC_COMPILER_LIMITS_H

#include <cstdint>

namespace dslc {

/// Per-thread work of one kernel: the sum, over every tile operation MLIRGen
/// generates (unrolled loops over peers and constant ranges count each
/// copy), of the elements one thread holds of its result (tile elements /
/// threads, at least 1). Code size and compile time grow with it, faster
/// than linearly for wide per-thread tiles. Measured (docs/robustness.md):
/// the examples at their configs and 128 ranks cost at most 12352 (the
/// two-shot); the one-shot at block 8192 and one warp costs 1280 at 2
/// ranks, 4352 at 8 and about 16900 at 32 ranks (over 100 s).
inline constexpr int64_t kMaxPerThreadWork = 16384;

/// Statements MLIRGen generates for one kernel, every unrolled copy of a
/// loop body counted (`range` over constants and loops over peers are
/// unrolled; nested loops multiply: 30 nested `range(2)` are 2^30 copies).
/// Measured: the examples at 128 ranks generate at most 1042 (the LL
/// two-shot); 30 nested `range(2)` ran past 20 s and 2 GB.
inline constexpr int64_t kMaxGeneratedStatements = 1 << 16;

/// Loop bodies a kernel may get by unrolling (loops over tuples and peers,
/// hl.static_range, and range loops whose body needs the loop variable at
/// compile time), nested copies counted. The first bound an unrolled nest
/// meets; kMaxGeneratedStatements then bounds what the bodies hold.
inline constexpr int64_t kMaxUnrolledBodies = 1024;

/// CTAs of a grid whose extents are constants (a tensor-sized grid is
/// checked by the runtime at launch): CUDA's largest grid.x.
inline constexpr int64_t kMaxGridCtas = (int64_t(1) << 31) - 1;

} // namespace dslc

#endif // DSLC_COMPILER_LIMITS_H
