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
// (MLIRGen/Generator.h).
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_COMPILER_LIMITS_H
#define DSLC_COMPILER_LIMITS_H

#include <cstdint>

namespace dslc {

/// Per-thread work of one kernel: the sum, over every tile operation MLIRGen
/// generates (unrolled loops over peers and constant ranges count each
/// copy), of the elements one thread holds of its result (tile elements /
/// threads, at least 1), or, for an operation without a tile result (a
/// store, an LL put), of the tile it consumes; LL operations weigh more
/// (kLLWorkWeight). Code size and compile time grow with it, faster than
/// linearly for wide per-thread tiles. Measured (docs/robustness.md): the
/// one-shot at block 8192 and one warp costs 1280 at 2 ranks, 4352 at 8 and
/// about 16900 at 32 ranks (over 100 s); the two-shot at its config passes
/// the bound at 128 ranks (its stores to every peer: 24 s to compile before
/// they were counted) and compiles at 127 (21 s of CPU on a loaded
/// two-core machine); the other examples compile at 128 ranks.
inline constexpr int64_t kMaxPerThreadWork = 16384;

/// Per-thread work (as kMaxPerThreadWork counts it) the copies of a loop
/// dslc unrolls on its own may have: a loop over peers (`for t in
/// get_remote_tensors(...)`, enumerate/zip of it, `peers[r]` in a range) or
/// a range of at most kAutoUnrollIterations. Past it the loop stays a loop
/// (scf.for, over the peer table for peers), compiled once. Unrolled, every
/// copy's loads are in flight together, but the backend's time grows
/// faster than the code: the one-shot at 64 elements per thread (block
/// 8192, 4 warps, 128 per copy) compiled to a cubin in 1.4, 3.8 and 11 s at
/// 8, 16 and 32 ranks, 63 s at 64 (1.8 MB of PTX); now 0.2 s at 64 and 128.
/// Within it, worlds up to 16 at that config stay unrolled as before.
inline constexpr int64_t kMaxAutoUnrolledWork = 2048;

/// Per-thread work the unrolled copies of one loop may have (loops over
/// constants that need their variable at compile time, hl.static_range,
/// loops over tuples, loops over peers that stay unrolled). Measured: the
/// one-shot summing its peers in an hl.static_range at 64 elements per
/// thread compiled to a cubin in 7.7 s at 32 ranks (4096) and 47 s at 64
/// (8192); now an error at the loop. Checked copy by copy, so the error
/// comes before the rest is generated.
inline constexpr int64_t kMaxUnrolledLoopWork = 4096;

/// Most CTAs a kernel with per-CTA epochs may be launched with; its state
/// buffer holds one 32-bit counter per CTA.
inline constexpr int64_t kMaxEpochCtas = 4096;
/// hl.barrier's two 32-bit words (arrivals, generation) in the kernel's
/// state, after the epochs' (MLIRGen sizes the state, tile.grid_barrier's
/// lowering and the simulator read them there).
inline constexpr int64_t kGridBarrierStateOffset = 4 * kMaxEpochCtas;
inline constexpr int64_t kGridBarrierStateEnd = kGridBarrierStateOffset + 8;

/// Most elements a thread may hold of one tile (a per-thread vector lives in
/// registers; how a tile is spread is Conversion/TileLayout.h).
inline constexpr int64_t kMaxElementsPerThread = 256;

/// LL packet operations (hl.ll_put, hl.ll_get) pack or poll every packet a
/// thread holds in unrolled code that costs the backend several times a
/// plain tile operation of the same width: one holding E elements per
/// thread counts E * clamp(E / kLLWorkStep, 1, kLLWorkWeight) toward
/// kMaxPerThreadWork (and stores and LL puts, which make no tile, count the
/// tile they consume). Measured on the LL two-shot (4 LL operations per
/// peer; release build): block 8192 and one warp (256 elements per thread)
/// at 2, 3, 4 and 8 ranks compiled in 4, 11, 30 and 93 s, now 9728 and
/// 14592 (compiled) and 19456 and 38912 (an error in 0.1 s); block 4096 and
/// one warp at 8 ranks took 27 s, now 19456 (an error); at its config
/// (block 1024, 4 warps) it costs 7168 at 128 ranks (4.3 s).
inline constexpr int64_t kLLWorkStep = 8;
inline constexpr int64_t kLLWorkWeight = 4;

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
