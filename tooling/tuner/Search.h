//===- Search.h - The tuner's config space and search -----------*- C++ -*-===//
//
// A KernelSpace is the grid of configs of one kernel: one dimension per
// tunable of its metadata (typed records, contract/KernelConfig.h: block
// size i, num_warps, a named tunable's choices) plus the runtime's grid cap
// (max_ctas), each a short list of values around the kernel's own default,
// within the tunable's allowed range. search() walks the union of several
// kernels' spaces: every point when there are few (exhaustive), otherwise a
// pattern search from each kernel's default or its fastest seed (shapeSeeds;
// waveSeeds for a matrix product) (probe one step up and down along
// every dimension, move to the best improvement, halve the step when none; a
// move must win by `minGain` to count, so noise does not make it wander),
// then from the fastest of a few random points while that still improves.
// Search-only dimensions (the loads' cache hints) are not listed: the
// pattern search steps along them, and an exhaustive search descends along
// them from its best point. Evaluation is a callback, so all of this runs
// without a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLING_TUNER_SEARCH_H
#define DSLC_TOOLING_TUNER_SEARCH_H

#include "contract/Candidates.h"
#include "contract/KernelConfig.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dslc::tune {

using contract::KernelConfig;
using contract::Tunable;
/// One dimension of a space: a tunable and the values it takes here.
using Dimension = contract::SpaceDimension;

/// Most points a space whose blocks reach their dimensions' sizes may have
/// (the search lists them all); a larger one keeps the default's steps.
inline constexpr uint64_t kMaxReachedPoints = uint64_t(1) << 18;

/// Fewest warps the space gives a kernel with a matrix product (a dot
/// engine tunable): a warpgroup MMA is four warps, and fewer leave a tile
/// of one or two warps on the CUDA cores or mma.sync.
inline constexpr int kMinDotWarps = 4;

struct SpaceOptions {
  /// Block sizes: the default times 2^k for k in [-blockDown, blockUp],
  /// within [minBlock, maxBlock].
  int blockDown = 3, blockUp = 3;
  int64_t minBlock = 64, maxBlock = 1 << 16;
  /// Warps a CTA. One and two are where small rows win (Helion's tuned
  /// embedding runs 2 warps, its cross entropy 1); a kernel with a matrix
  /// product starts at kMinDotWarps.
  std::vector<int> warps = {1, 2, 4, 8, 16, 32};
  /// Grid caps (0: none, i.e. the runtime's own grid).
  std::vector<int64_t> ctaCaps = {0, 8, 16, 32, 64};
  /// Each thread handles between minPerThread and maxPerThread elements of
  /// the first block (others cannot compile well or waste threads).
  int64_t minPerThread = 1, maxPerThread = 64;
  /// The most of a row held whole (reduction_loops[0] = the row) a thread
  /// may hold: Helion's tuned cross_entropy holds 128 (a 4096 row at one
  /// warp; dslc: 154 registers, no spills), where dslc would roll it.
  int64_t maxHeldPerThread = 128;
};

class KernelSpace {
public:
  /// The space of a kernel whose metadata lists `tunables`.
  KernelSpace(std::string kernel, const std::vector<Tunable> &tunables,
              const SpaceOptions &opts = {});
  /// From explicit dimensions (tests, and the run phase's manifest).
  KernelSpace(std::string kernel, std::vector<Dimension> dims,
              const SpaceOptions &opts = {});

  const std::string &kernel() const { return kernel_; }
  const std::vector<Dimension> &dims() const { return dims_; }
  std::vector<int> defaultPoint() const;
  bool valid(const std::vector<int> &idx) const;
  /// Why the point at `idx` is not tried ("" when it is).
  std::string dropReason(const std::vector<int> &idx) const;
  /// The points left out, counted by reason (for the log).
  std::map<std::string, size_t> droppedPoints() const;
  KernelConfig config(const std::vector<int> &idx) const;
  /// Points the search also starts from where blocks tile dimensions of
  /// known size (two or more such blocks): for each of them, that block at
  /// its smallest value and every other at the smallest value covering its
  /// dimension (a row kernel's one row a CTA and whole rows a chunk), the
  /// rest at the default; valid points only, none twice.
  std::vector<std::vector<int>> shapeSeeds() const;
  /// The default with `fast_math` at 1, where the space has that dimension
  /// and the default is 0: the first point the search tries after the
  /// default (a two-valued dimension a short budget may otherwise never
  /// probe: jsd's 8 s reached 13 configs, none approximated, 3.9% slower).
  std::optional<std::vector<int>> fastMathSeed() const;
  /// `idx` with every load's cache hint at `policy` (the search's seed of
  /// all loads `last` from the default and from an exhaustive search's
  /// best: the uniform hint that gained 1.5-2.8% on Helion's elementwise
  /// examples, where one load's alone moves less than a step must win);
  /// nullopt where that changes nothing or is not a valid point.
  std::optional<std::vector<int>>
  withHints(const std::vector<int> &idx, contract::EvictionPolicy policy) const;
  /// Points the search also starts from for a kernel with a matrix
  /// product (a dot engine tunable) whose grid blocks tile dimensions of
  /// known size, on a GPU of `multiprocessors` SMs: the grid tiles that
  /// make one wave of CTAs filling at least half the SMs, fewest operand
  /// bytes first (a CTA loads its tile's edges: the sum of its blocks),
  /// none larger than the default's tile; each with K-loop blocks of 64
  /// and 128, the deepest pipeline (the compiler keeps the stages shared
  /// memory holds), four warps per 64 rows of the tile (its next-to-last
  /// grid block: a batched product's tiles are [..., M, N]). A skinny product
  /// (M = 16, N = 4096) wants such tiles and stages, far from the square
  /// default. When the default's tile already makes more than one wave:
  /// the tensor-core tiles 128 x 256, 256 x 128 and 128 x 128 (M x N; K
  /// loops at 64, 8 warps, the default's stages) that still fill the SMs,
  /// so a search from a user's small default tile reaches them.
  std::vector<std::vector<int>> waveSeeds(int multiprocessors) const;
  /// Every valid point, in lexicographic order of the indices.
  std::vector<std::vector<int>> points() const;
  /// The distinct configs to compile: every valid point's config without
  /// max_ctas (the cap needs no recompilation).
  std::vector<KernelConfig> compileConfigs() const;

private:
  /// Calls `fn` on every index vector of the space, valid or not.
  void
  forEachIndex(const std::function<void(const std::vector<int> &)> &fn) const;

  std::string kernel_;
  std::vector<Dimension> dims_;
  SpaceOptions opts_;
};

struct SearchPoint {
  int kernel = 0; ///< index into the spaces
  std::vector<int> idx;
  bool operator==(const SearchPoint &o) const {
    return kernel == o.kernel && idx == o.idx;
  }
};

struct SearchOptions {
  /// Exhaustive when the spaces hold at most this many points together.
  size_t exhaustiveLimit = 64;
  /// A pattern-search move must be this much faster (fraction).
  double minGain = 0.02;
  /// After the pattern search from each default: at most this many
  /// restarts, each from the fastest of `restartSample` random points not
  /// yet measured; they stop at the first that does not improve the best.
  unsigned restarts = 3;
  size_t restartSample = 8;
  uint64_t seed = 0x64736c63; ///< the restarts' random points
  /// SMs of the GPU measured (KernelSpace::waveSeeds; 0: not known).
  int multiprocessors = 0;
  /// Stop early when this returns true (time budget); may be empty.
  std::function<bool()> outOfBudget;
  /// Called with the points the search is about to evaluate (the defaults,
  /// every point of an exhaustive search, a pattern step's neighbours), so
  /// that they can be compiled together; may be empty.
  std::function<void(const std::vector<SearchPoint> &)> prepare;
};

/// Microseconds, or nullopt when the point failed (skipped).
using Evaluate = std::function<std::optional<double>(const SearchPoint &)>;

struct SearchResult {
  std::optional<SearchPoint> best;
  double bestUs = 0;
  /// Best point and time of each kernel (nullopt: none worked).
  std::vector<std::optional<SearchPoint>> bestPerKernel;
  std::vector<double> bestUsPerKernel;
  size_t evaluated = 0; ///< distinct points evaluated
  size_t totalPoints = 0;
  bool exhaustive = false;
  bool budgetHit = false;
};

/// Searches the spaces; `eval` is called at most once per point.
SearchResult search(const std::vector<KernelSpace> &spaces,
                    const Evaluate &eval, const SearchOptions &opts = {});

} // namespace dslc::tune

#endif // DSLC_TOOLING_TUNER_SEARCH_H
