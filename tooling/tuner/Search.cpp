//===- Search.cpp - The tuner's config space and search -------------------===//
#include "tooling/tuner/Search.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <tuple>

namespace dslc::tune {

namespace {
/// The least power of two at least `n` (n >= 1).
int64_t powerOfTwoAtLeast(int64_t n) {
  int64_t p = 1;
  while (p < n && p < (int64_t(1) << 62))
    p <<= 1;
  return p;
}

/// Elements of a tile per unit of block tunable `t` (1 when the metadata
/// does not say: a tile of block elements).
int64_t unitOf(const Tunable &t) {
  return t.unitElements > 0 ? t.unitElements : 1;
}

/// The default times 2^k around it, within the tunable's range and the
/// options', counted in tile elements (their least only for a kernel's only
/// block size: a tile's rows may be few); upwards as far as the power of
/// two of the dimension it tiles, and down to 1, when that is known
/// (Helion's autotuner searches block sizes up to the size hint too; not a
/// matrix product's tiles, which shared memory and registers bound long
/// before).
Dimension blockDimension(const Tunable &t, const SpaceOptions &o, bool only,
                         bool reachExtent) {
  Dimension d;
  d.tunable = t;
  int64_t def = t.value, unit = only ? unitOf(t) : 1;
  int up = o.blockUp, down = o.blockDown;
  // A dimension of known size: blocks up to its power of two (a row in one
  // chunk) and down to 1 (one row a CTA), beyond the default's steps.
  if (reachExtent && t.extent > 0 && def > 0) {
    while (up < 62 && (def << up) < t.extent &&
           (def << up) < contract::kMaxBlockSize)
      ++up;
    while ((def >> down) > 1)
      ++down;
  }
  for (int k = -down; k <= up; ++k) {
    int64_t v = k < 0 ? def >> -k : def << k;
    if (k < 0 && (v << -k) != def)
      continue; // not a power-of-two multiple
    if (v < 1 || v > o.maxBlock / unit || (only && v * unit < o.minBlock) ||
        !t.check(v))
      continue;
    if (v == def)
      d.defaultIndex = static_cast<int>(d.values.size());
    d.values.push_back(v);
  }
  if (d.values.empty()) { // a default outside the range: keep it alone
    d.values.push_back(def);
    d.defaultIndex = 0;
  }
  return d;
}

/// A named tunable without choices: its value times 2^k, k = -2..2, that
/// its range allows.
std::vector<int64_t> rangeValues(const Tunable &t) {
  std::vector<int64_t> values;
  for (int k = -2; k <= 2 && t.value > 0; ++k) {
    int64_t v = k < 0 ? t.value >> -k : t.value << k;
    if (v >= 1 && (k >= 0 || (v << -k) == t.value) && t.check(v))
      values.push_back(v);
  }
  return values;
}

/// `values` that the tunable allows, and its default.
Dimension listDimension(const Tunable &t, std::vector<int64_t> values) {
  values.erase(std::remove_if(values.begin(), values.end(),
                              [&](int64_t v) { return !t.check(v); }),
               values.end());
  if (std::find(values.begin(), values.end(), t.value) == values.end())
    values.push_back(t.value);
  std::sort(values.begin(), values.end());
  Dimension d;
  d.tunable = t;
  d.values = values;
  d.defaultIndex = static_cast<int>(
      std::find(values.begin(), values.end(), t.value) - values.begin());
  return d;
}

/// The dimensions of a space of `tunables`, their blocks reaching the sizes
/// of the dimensions they tile when `reachExtents` (and the kernel has no
/// matrix product); the grid cap last.
std::vector<Dimension> spaceDimensions(const std::vector<Tunable> &tunables,
                                       const SpaceOptions &opts,
                                       bool reachExtents) {
  size_t blocks =
      std::count_if(tunables.begin(), tunables.end(), [](const Tunable &t) {
        return t.kind == Tunable::Kind::BlockSize;
      });
  bool products =
      std::any_of(tunables.begin(), tunables.end(), [](const Tunable &t) {
        return t.kind == Tunable::Kind::DotEngine;
      });
  std::vector<Dimension> dims;
  for (const Tunable &t : tunables) {
    switch (t.kind) {
    case Tunable::Kind::BlockSize:
      dims.push_back(
          blockDimension(t, opts, blocks == 1, reachExtents && !products));
      break;
    case Tunable::Kind::NumWarps: {
      std::vector<int64_t> warps;
      for (int w : opts.warps)
        if (!products || w >= kMinDotWarps)
          warps.push_back(w);
      dims.push_back(listDimension(t, warps));
      break;
    }
    case Tunable::Kind::NumStages:
    case Tunable::Kind::DotEngine:
    case Tunable::Kind::L2Grouping:
    case Tunable::Kind::ReductionLoop:
    case Tunable::Kind::FastMath:
      // A matmul kernel's pipeline depth and tensor-core engine; a 2-d
      // grid's tile order; whole rows or chunks of them; f32 math
      // approximated (the tuner's check against the reference decides
      // whether the kernel's tolerance allows it).
      dims.push_back(listDimension(t, t.choices));
      break;
    case Tunable::Kind::Named:
      // Its choices (Triton's configs), else powers of two around the
      // kernel's value within its range (Helion's registered tunables).
      dims.push_back(
          listDimension(t, t.choices.empty() ? rangeValues(t) : t.choices));
      break;
    case Tunable::Kind::MaxCtas:
      break; // the runtime's cap: one dimension below
    case Tunable::Kind::LoadEviction: {
      // The loads' cache hints (none, first, last), stepped along by the
      // pattern search only: listed, they would multiply every space by
      // 3^loads. One dimension a load: the metadata's own (starting at the
      // hint the load was compiled with), or one tunable for every load
      // split where there are few (past kMaxPerLoadHints it stays one).
      // Helion's hinted configs run 1.5-8% faster than unhinted ones on the
      // same file (docs/measurements.md).
      std::vector<Tunable> hints;
      if (t.load < 0 && t.index <= contract::kMaxPerLoadHints)
        for (unsigned i = 0; i < t.index; ++i)
          hints.push_back(Tunable::loadEvictionOf(t.index, int(i), t.value));
      else
        hints.push_back(t);
      for (const Tunable &h : hints) {
        dims.push_back(listDimension(h, h.choices));
        dims.back().searchOnly = true;
      }
      break;
    }
    }
  }
  dims.push_back(listDimension(Tunable::maxCtas(0), opts.ctaCaps));
  return dims;
}
} // namespace

KernelSpace::KernelSpace(std::string kernel,
                         const std::vector<Tunable> &tunables,
                         const SpaceOptions &opts)
    : kernel_(std::move(kernel)), dims_(spaceDimensions(tunables, opts, true)),
      opts_(opts) {
  // The search lists every point of a space: where blocks reaching their
  // dimensions' sizes would make more than kMaxReachedPoints, they keep
  // the default's steps.
  // (Search-only dimensions are not listed: they do not count.)
  uint64_t points = 1;
  for (const Dimension &d : dims_)
    if (!d.searchOnly)
      points = std::min<uint64_t>(points * std::max<size_t>(1, d.values.size()),
                                  kMaxReachedPoints + 1);
  if (points > kMaxReachedPoints)
    dims_ = spaceDimensions(tunables, opts, false);
}

KernelSpace::KernelSpace(std::string kernel, std::vector<Dimension> dims,
                         const SpaceOptions &opts)
    : kernel_(std::move(kernel)), dims_(std::move(dims)), opts_(opts) {}

std::vector<int> KernelSpace::defaultPoint() const {
  std::vector<int> p;
  for (const Dimension &d : dims_)
    p.push_back(d.defaultIndex);
  return p;
}

bool KernelSpace::valid(const std::vector<int> &idx) const {
  return dropReason(idx).empty();
}

std::string KernelSpace::dropReason(const std::vector<int> &idx) const {
  if (idx.size() != dims_.size())
    return "not a point of the space";
  for (size_t i = 0; i < idx.size(); ++i)
    if (idx[i] < 0 || idx[i] >= static_cast<int>(dims_[i].values.size()))
      return "not a point of the space";
  if (idx == defaultPoint())
    return "";
  KernelConfig c = config(idx);
  // One block size is one tile over the CTA's threads; with several, which
  // of them share a tile is the kernel's business: dslc refuses what does
  // not fit (and the compile failure is logged).
  if (c.blockSizes.size() == 1 && c.numWarps > 0) {
    int64_t threads = int64_t(c.numWarps) * 32, unit = 1;
    for (const Dimension &d : dims_)
      if (d.tunable.kind == Tunable::Kind::BlockSize)
        unit = unitOf(d.tunable);
    // The tile's elements, or a chunk's where its rows are computed in
    // chunks (reduction_loops[0]: the unit is the reduced row); a row
    // held whole (the chunk is the row) may hold more a thread.
    bool held =
        !c.reductionLoops.empty() && c.reductionLoops[0] == unit && unit > 1;
    if (!c.reductionLoops.empty() && c.reductionLoops[0] > 0 &&
        c.reductionLoops[0] < unit)
      unit = c.reductionLoops[0];
    int64_t b = c.blockSizes.front() * unit;
    int64_t most = held ? opts_.maxHeldPerThread : opts_.maxPerThread;
    if (b < threads * opts_.minPerThread)
      return fmt::format("fewer than {} element(s) per thread (a tile of "
                         "fewer elements than threads)",
                         opts_.minPerThread);
    if (b > threads * most)
      return fmt::format("more than {} elements per thread{}", most,
                         held ? " (a row held whole)" : "");
  }
  return "";
}

std::map<std::string, size_t> KernelSpace::droppedPoints() const {
  std::map<std::string, size_t> reasons;
  forEachIndex([&](const std::vector<int> &idx) {
    std::string why = dropReason(idx);
    if (!why.empty())
      ++reasons[why];
  });
  return reasons;
}

KernelConfig KernelSpace::config(const std::vector<int> &idx) const {
  KernelConfig c;
  for (size_t i = 0; i < dims_.size() && i < idx.size(); ++i)
    c.set(dims_[i].tunable, dims_[i].values.at(idx[i]));
  return c;
}

void KernelSpace::forEachIndex(
    const std::function<void(const std::vector<int> &)> &fn) const {
  // Search-only dimensions stay at their defaults.
  std::vector<int> idx(dims_.size(), 0);
  std::vector<size_t> listed;
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (dims_[i].values.empty())
      return;
    if (dims_[i].searchOnly)
      idx[i] = dims_[i].defaultIndex;
    else
      listed.push_back(i);
  }
  while (true) {
    fn(idx);
    size_t j = listed.size();
    while (j > 0) {
      size_t i = listed[--j];
      if (++idx[i] < static_cast<int>(dims_[i].values.size()))
        break;
      idx[i] = 0;
      if (j == 0)
        return;
    }
    if (listed.empty())
      return;
  }
}

std::optional<std::vector<int>>
KernelSpace::withHints(const std::vector<int> &idx,
                       contract::EvictionPolicy policy) const {
  std::vector<int> p = idx;
  for (size_t i = 0; i < dims_.size() && i < p.size(); ++i) {
    if (dims_[i].tunable.kind != Tunable::Kind::LoadEviction)
      continue;
    auto v = std::find(dims_[i].values.begin(), dims_[i].values.end(),
                       static_cast<int64_t>(policy));
    if (v != dims_[i].values.end())
      p[i] = static_cast<int>(v - dims_[i].values.begin());
  }
  if (p == idx || !valid(p))
    return std::nullopt;
  return p;
}

std::vector<std::vector<int>> KernelSpace::points() const {
  std::vector<std::vector<int>> out;
  forEachIndex([&](const std::vector<int> &idx) {
    if (valid(idx))
      out.push_back(idx);
  });
  return out;
}

std::optional<std::vector<int>> KernelSpace::fastMathSeed() const {
  std::vector<int> p = defaultPoint();
  for (size_t i = 0; i < dims_.size(); ++i) {
    const Dimension &d = dims_[i];
    if (d.tunable.kind != Tunable::Kind::FastMath || d.values[p[i]] != 0)
      continue;
    auto one = std::find(d.values.begin(), d.values.end(), 1);
    if (one == d.values.end())
      return std::nullopt;
    p[i] = static_cast<int>(one - d.values.begin());
    if (valid(p))
      return p;
  }
  return std::nullopt;
}

std::vector<std::vector<int>> KernelSpace::shapeSeeds() const {
  std::vector<size_t> sized;
  for (size_t i = 0; i < dims_.size(); ++i)
    if (dims_[i].tunable.kind == Tunable::Kind::BlockSize &&
        dims_[i].tunable.extent > 0)
      sized.push_back(i);
  std::vector<std::vector<int>> seeds;
  if (sized.size() < 2)
    return seeds; // one block: its steps reach 1 and the size already
  for (size_t small : sized) {
    std::vector<int> p = defaultPoint();
    for (size_t i : sized) {
      const std::vector<int64_t> &v = dims_[i].values;
      if (i == small) {
        p[i] = 0;
        continue;
      }
      // The smallest block covering the dimension, else the largest.
      int64_t extent = dims_[i].tunable.extent;
      auto covers = std::find_if(v.begin(), v.end(),
                                 [&](int64_t b) { return b >= extent; });
      p[i] = static_cast<int>((covers == v.end() ? v.end() - 1 : covers) -
                              v.begin());
    }
    if (valid(p) && p != defaultPoint() &&
        std::find(seeds.begin(), seeds.end(), p) == seeds.end())
      seeds.push_back(p);
  }
  return seeds;
}

std::vector<std::vector<int>>
KernelSpace::waveSeeds(int multiprocessors) const {
  std::vector<size_t> grid, loops;
  std::optional<size_t> stages, warps;
  bool product = false;
  for (size_t i = 0; i < dims_.size(); ++i) {
    const Tunable &t = dims_[i].tunable;
    if (t.kind == Tunable::Kind::BlockSize)
      (t.tilesGrid && t.extent > 0 ? grid : loops).push_back(i);
    else if (t.kind == Tunable::Kind::NumStages)
      stages = i;
    else if (t.kind == Tunable::Kind::NumWarps)
      warps = i;
    else if (t.kind == Tunable::Kind::DotEngine)
      product = true;
  }
  std::vector<std::vector<int>> seeds;
  if (multiprocessors < 1 || !product || grid.empty())
    return seeds;
  const std::vector<int> def = defaultPoint();
  // Products saturate (extents come from --shape: any int64).
  constexpr int64_t kMany = int64_t(1) << 40;
  auto times = [&](int64_t n, int64_t f) {
    return f > 0 && n > kMany / f ? kMany : n * f;
  };
  auto ctasOf = [&](const std::vector<int> &p) {
    int64_t n = 1;
    for (size_t i : grid) {
      int64_t b = dims_[i].values[p[i]], e = dims_[i].tunable.extent;
      n = times(n, e / b + (e % b != 0));
    }
    return n;
  };
  auto elementsOf = [&](const std::vector<int> &p) {
    int64_t n = 1;
    for (size_t i : grid)
      n = times(n, dims_[i].values[p[i]]);
    return n;
  };
  auto indexOf = [&](size_t dim, int64_t value) -> std::optional<int> {
    const std::vector<int64_t> &v = dims_[dim].values;
    auto it = std::find(v.begin(), v.end(), value);
    if (it == v.end())
      return std::nullopt;
    return static_cast<int>(it - v.begin());
  };
  if (ctasOf(def) > multiprocessors) {
    // A large product: the default's tile already fills the GPU, but a
    // user's default is often a small tile (64 x 64 x 32 at four warps)
    // whose neighbourhood a pattern search walks for its whole budget.
    // Start from the tensor-core tiles of the strongest Hopper kernels
    // too (cuBLAS's and Triton's 128 x 256, 256 x 128, 128 x 128 at K =
    // 64, two warpgroups), where each still makes a full wave.
    if (grid.size() < 2)
      return seeds;
    size_t m = grid[grid.size() - 2], n = grid.back();
    for (auto [bm, bn] :
         {std::pair<int64_t, int64_t>{128, 256}, {256, 128}, {128, 128}}) {
      std::vector<int> s = def;
      std::optional<int> atM = indexOf(m, bm), atN = indexOf(n, bn);
      if (!atM || !atN || bm > powerOfTwoAtLeast(dims_[m].tunable.extent) ||
          bn > powerOfTwoAtLeast(dims_[n].tunable.extent))
        continue;
      s[m] = *atM;
      s[n] = *atN;
      for (size_t i : loops)
        if (auto at = indexOf(i, 64))
          s[i] = *at;
      if (warps)
        if (auto at = indexOf(*warps, 8))
          s[*warps] = *at;
      if (ctasOf(s) >= multiprocessors && s != def && valid(s) &&
          std::find(seeds.begin(), seeds.end(), s) == seeds.end())
        seeds.push_back(s);
    }
    return seeds;
  }
  // Every combination of the grid blocks' values, each at most the power
  // of two of its dimension (M and N: or 64, a warpgroup's rows).
  struct Tile {
    std::vector<int> point;
    int64_t bytes, ctas, elements;
  };
  std::vector<Tile> tiles;
  std::vector<int> p = def;
  std::function<void(size_t)> visit = [&](size_t g) {
    if (g == grid.size()) {
      // A CTA loads its tile's edges (the M and N blocks, the last two)
      // for each of its batch entries (the blocks before them).
      int64_t ctas = ctasOf(p), edges = 0, batch = 1;
      for (size_t g2 = 0; g2 < grid.size(); ++g2) {
        size_t i = grid[g2];
        int64_t b = std::min(dims_[i].values[p[i]], dims_[i].tunable.extent);
        if (g2 + 2 >= grid.size())
          edges += b;
        else
          batch = times(batch, b);
      }
      edges = times(edges, batch);
      int64_t elements = elementsOf(p);
      if (2 * ctas >= multiprocessors && ctas <= multiprocessors &&
          elements <= elementsOf(def))
        tiles.push_back({p, times(ctas, edges), ctas, elements});
      return;
    }
    const Dimension &d = dims_[grid[g]];
    int64_t cap = powerOfTwoAtLeast(d.tunable.extent);
    if (g + 2 >= grid.size())
      cap = std::max<int64_t>(cap, 64); // M and N: a warpgroup's 64 rows
    for (size_t v = 0; v < d.values.size(); ++v)
      if (d.values[v] <= cap) {
        p[grid[g]] = static_cast<int>(v);
        visit(g + 1);
      }
    p[grid[g]] = def[grid[g]];
  };
  visit(0);
  std::stable_sort(tiles.begin(), tiles.end(),
                   [](const Tile &a, const Tile &b) {
                     return std::tie(a.bytes, b.ctas, b.elements) <
                            std::tie(b.bytes, a.ctas, a.elements);
                   });
  constexpr size_t kTiles = 3;
  for (size_t n = 0; n < tiles.size() && n < kTiles; ++n) {
    for (int64_t k : {64, 128}) {
      std::vector<int> s = tiles[n].point;
      for (size_t i : loops)
        if (auto at = indexOf(i, k))
          s[i] = *at;
      if (stages)
        s[*stages] = static_cast<int>(dims_[*stages].values.size()) - 1;
      if (warps) {
        // The rows of a tile: its next-to-last grid block ([..., M, N]).
        size_t m = grid[grid.size() >= 2 ? grid.size() - 2 : 0];
        int64_t rows = dims_[m].values[s[m]];
        int64_t w = std::clamp<int64_t>(4 * (rows / 64), 4, 8);
        if (auto at = indexOf(*warps, w))
          s[*warps] = *at;
      }
      if (valid(s) && std::find(seeds.begin(), seeds.end(), s) == seeds.end())
        seeds.push_back(s);
    }
  }
  return seeds;
}

std::vector<KernelConfig> KernelSpace::compileConfigs() const {
  std::set<KernelConfig> seen;
  std::vector<KernelConfig> out;
  for (const auto &p : points()) {
    KernelConfig c = config(p);
    c.maxCtas = 0;
    if (seen.insert(c).second)
      out.push_back(c);
  }
  return out;
}

SearchResult search(const std::vector<KernelSpace> &spaces,
                    const Evaluate &eval, const SearchOptions &opts) {
  SearchResult res;
  res.bestPerKernel.assign(spaces.size(), std::nullopt);
  res.bestUsPerKernel.assign(spaces.size(), 0.0);
  std::map<std::pair<int, std::vector<int>>, std::optional<double>> memo;
  auto budget = [&] {
    if (opts.outOfBudget && opts.outOfBudget()) {
      res.budgetHit = true;
      return true;
    }
    return false;
  };
  auto evalPoint = [&](const SearchPoint &p) -> std::optional<double> {
    auto key = std::make_pair(p.kernel, p.idx);
    auto it = memo.find(key);
    if (it != memo.end())
      return it->second;
    std::optional<double> v = eval(p);
    memo[key] = v;
    ++res.evaluated;
    if (v) {
      auto &bk = res.bestPerKernel[p.kernel];
      if (!bk || *v < res.bestUsPerKernel[p.kernel]) {
        bk = p;
        res.bestUsPerKernel[p.kernel] = *v;
      }
      if (!res.best || *v < res.bestUs) {
        res.best = p;
        res.bestUs = *v;
      }
    }
    return v;
  };

  // Points not evaluated yet, announced to opts.prepare together.
  auto prepare = [&](const std::vector<SearchPoint> &points) {
    if (!opts.prepare)
      return;
    std::vector<SearchPoint> fresh;
    for (const SearchPoint &p : points)
      if (!memo.count({p.kernel, p.idx}))
        fresh.push_back(p);
    if (!fresh.empty())
      opts.prepare(fresh);
  };
  std::vector<SearchPoint> defaults;
  for (size_t k = 0; k < spaces.size(); ++k)
    defaults.push_back({static_cast<int>(k), spaces[k].defaultPoint()});

  // Pattern search from `cur` (evaluated, curUs its time): one step down
  // and up along every dimension, move to the best improvement, halve the
  // step when none.
  auto descend = [&](SearchPoint cur, double curUs) {
    const KernelSpace &s = spaces[cur.kernel];
    int step = 2;
    while (step >= 1 && !budget()) {
      std::optional<SearchPoint> bestNb;
      double bestNbUs = curUs * (1.0 - opts.minGain);
      // One step down and up along every dimension (dimOf: whose step).
      std::vector<SearchPoint> neighbours;
      std::vector<size_t> dimOf;
      for (size_t d = 0; d < s.dims().size(); ++d)
        for (int dir : {-step, step}) {
          SearchPoint nb = cur;
          nb.idx[d] += dir;
          if (s.valid(nb.idx)) {
            neighbours.push_back(nb);
            dimOf.push_back(d);
          }
        }
      prepare(neighbours);
      for (size_t i = 0; i < neighbours.size(); ++i) {
        // The budget is looked at as each dimension's steps begin.
        if ((i == 0 || dimOf[i] != dimOf[i - 1]) && budget())
          break;
        std::optional<double> v = evalPoint(neighbours[i]);
        if (v && *v < bestNbUs) {
          bestNb = neighbours[i];
          bestNbUs = *v;
        }
      }
      if (bestNb) {
        cur = *bestNb;
        curUs = bestNbUs;
      } else {
        step /= 2;
      }
    }
  };
  std::vector<std::vector<std::vector<int>>> all;
  for (const KernelSpace &s : spaces) {
    all.push_back(s.points());
    res.totalPoints += all.back().size();
  }
  if (res.totalPoints <= opts.exhaustiveLimit) {
    res.exhaustive = true;
    // (every default is a point of its space)
    std::vector<SearchPoint> every;
    for (size_t k = 0; k < spaces.size(); ++k)
      for (const auto &idx : all[k])
        every.push_back({static_cast<int>(k), idx});
    prepare(every);
    // Defaults first, so an early budget stop still has the baseline.
    for (size_t k = 0; k < spaces.size(); ++k)
      if (!budget())
        evalPoint({static_cast<int>(k), spaces[k].defaultPoint()});
    for (size_t k = 0; k < spaces.size(); ++k)
      for (const auto &idx : all[k]) {
        if (budget())
          return res;
        evalPoint({static_cast<int>(k), idx});
      }
    // The search-only dimensions from each kernel's best point (its
    // listed neighbours are measured already): all loads `last` first.
    for (size_t k = 0; k < spaces.size(); ++k) {
      if (budget() || !res.bestPerKernel[k])
        continue;
      SearchPoint cur = *res.bestPerKernel[k];
      double curUs = res.bestUsPerKernel[k];
      if (auto seed =
              spaces[k].withHints(cur.idx, contract::EvictionPolicy::Last)) {
        SearchPoint p{static_cast<int>(k), *seed};
        prepare({p});
        if (std::optional<double> v = evalPoint(p); v && *v < curUs) {
          cur = p;
          curUs = *v;
        }
      }
      descend(cur, curUs);
    }
    return res;
  }

  // Every kernel's default first, so a search that the budget stops early
  // (large sizes: seconds per point) still compares the kernels; then the
  // pattern search refines the kernels in the order of their defaults'
  // times, the most promising first.
  std::vector<std::pair<double, size_t>> order;
  prepare(defaults);
  for (size_t k = 0; k < spaces.size(); ++k) {
    std::optional<double> v;
    if (!budget())
      v = evalPoint({static_cast<int>(k), spaces[k].defaultPoint()});
    order.push_back({v ? *v : std::numeric_limits<double>::infinity(), k});
  }
  std::stable_sort(
      order.begin(), order.end(),
      [](const auto &a, const auto &b) { return a.first < b.first; });
  // Shape seeds (KernelSpace::shapeSeeds: every block but one covering its
  // dimension, that one smallest; Helion's row kernels' tuned configs are
  // such points, far from a default of 16 or 64 per block): the descent
  // starts from the fastest of a kernel's default and its seeds.
  // Wave seeds (KernelSpace::waveSeeds) join them for matrix products;
  // the default with fast_math (KernelSpace::fastMathSeed) comes first.
  std::vector<std::vector<SearchPoint>> seeds(spaces.size());
  std::vector<SearchPoint> allSeeds;
  for (size_t k = 0; k < spaces.size(); ++k) {
    std::vector<std::vector<int>> points;
    auto add = [&](const std::vector<int> &idx) {
      if (idx != spaces[k].defaultPoint() &&
          std::find(points.begin(), points.end(), idx) == points.end())
        points.push_back(idx);
    };
    if (auto fm = spaces[k].fastMathSeed())
      add(*fm);
    for (auto &idx : spaces[k].shapeSeeds())
      add(idx);
    for (auto &idx : spaces[k].waveSeeds(opts.multiprocessors))
      add(idx);
    // Last: a budget that ends among the seeds keeps the shapes' seeds.
    if (auto hinted = spaces[k].withHints(spaces[k].defaultPoint(),
                                          contract::EvictionPolicy::Last))
      add(*hinted);
    for (auto &idx : points) {
      seeds[k].push_back({static_cast<int>(k), idx});
      allSeeds.push_back(seeds[k].back());
    }
  }
  prepare(allSeeds);
  for (const auto &[defaultUs, k] : order) {
    int kernel = static_cast<int>(k);
    if (budget())
      break;
    SearchPoint cur{kernel, spaces[k].defaultPoint()};
    std::optional<double> curUs = evalPoint(cur);
    for (const SearchPoint &seed : seeds[k]) {
      if (budget())
        break;
      std::optional<double> v = evalPoint(seed);
      if (v && (!curUs || *v < *curUs)) {
        cur = seed;
        curUs = v;
      }
    }
    if (!curUs) {
      // The default failed: start from the first point that works.
      for (const auto &idx : all[k]) {
        if (budget())
          break;
        SearchPoint p{kernel, idx};
        prepare({p});
        if (auto v = evalPoint(p)) {
          cur = p;
          curUs = v;
          break;
        }
      }
      if (!curUs)
        continue;
    }
    descend(cur, *curUs);
  }

  // Restarts: a pattern search ends in the basin it started in (a matmul
  // from its square default never reaches the 16-row tiles a skinny product
  // wants). While the budget lasts, sample points of every space at random
  // (a fixed seed: the same search each run), descend from the fastest, and
  // stop after a restart that does not beat the best by minGain.
  std::mt19937_64 rng(opts.seed);
  // Listed points not measured yet (the memo also holds search-only ones).
  auto countUnseen = [&] {
    size_t n = 0;
    for (size_t k = 0; k < spaces.size(); ++k)
      for (const auto &idx : all[k])
        n += !memo.count({static_cast<int>(k), idx});
    return n;
  };
  size_t unseen = countUnseen();
  for (unsigned r = 0; r < opts.restarts && unseen > 0 && !budget(); ++r) {
    double before = res.best ? res.bestUs : 0;
    std::vector<SearchPoint> sample;
    std::uniform_int_distribution<size_t> pick(0, res.totalPoints - 1);
    for (size_t tries = 0;
         sample.size() < opts.restartSample && tries < 32 * opts.restartSample;
         ++tries) {
      size_t i = pick(rng), k = 0;
      while (i >= all[k].size())
        i -= all[k++].size();
      SearchPoint p{static_cast<int>(k), all[k][i]};
      if (!memo.count({p.kernel, p.idx}) &&
          std::find(sample.begin(), sample.end(), p) == sample.end())
        sample.push_back(p);
    }
    if (sample.empty())
      break;
    prepare(sample);
    std::optional<SearchPoint> start;
    double startUs = 0;
    for (const SearchPoint &p : sample) {
      if (budget())
        break;
      std::optional<double> v = evalPoint(p);
      if (v && (!start || *v < startUs)) {
        start = p;
        startUs = *v;
      }
    }
    if (start)
      descend(*start, startUs);
    unseen = countUnseen();
    if (res.best && before > 0 && res.bestUs > before * (1.0 - opts.minGain))
      break;
  }
  return res;
}

} // namespace dslc::tune
