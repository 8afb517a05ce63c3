//===- SearchTest.cpp - Config space and search (no GPU) ------------------===//
#include "tooling/tuner/Search.h"

#include <algorithm>

#include <catch2/catch.hpp>

#include <cmath>
#include <set>

using namespace dslc::tune;

namespace {
std::vector<Tunable> llTunables() {
  return {Tunable::blockSize(0, 1024), Tunable::numWarps(4)};
}

/// Block size `index` defaulting to `value`, tiling a dimension of
/// `extent` elements (MLIRGen's tunables when the size is known).
Tunable sizedBlock(unsigned index, int64_t value, int64_t extent) {
  Tunable t = Tunable::blockSize(index, value);
  t.extent = extent;
  return t;
}

/// A dimension of a named tunable taking `values`, default values[def].
Dimension dim(const char *name, std::vector<int64_t> values, int def) {
  return {Tunable::named(name, values.at(def), values), values, def};
}

/// A bowl: three dimensions of 12 values, default (1, 10, 0), its bottom
/// (5 us) at (7, 3, 5) (bowlUs).
KernelSpace bowl() {
  std::vector<int64_t> vals;
  for (int i = 0; i < 12; ++i)
    vals.push_back(i);
  return KernelSpace("k", std::vector<Dimension>{dim("x", vals, 1),
                                                 dim("y", vals, 10),
                                                 dim("z", vals, 0)});
}
double bowlUs(const SearchPoint &p) {
  double x = p.idx[0] - 7, y = p.idx[1] - 3, z = p.idx[2] - 5;
  return 5.0 + x * x + y * y + z * z;
}
} // namespace

TEST_CASE("kernel space: dimensions around the default", "[tuner]") {
  KernelSpace s("k", llTunables());
  REQUIRE(s.dims().size() == 3);
  CHECK(s.dims()[0].tunable.kind == Tunable::Kind::BlockSize);
  CHECK(s.dims()[0].tunable.label() == "block_sizes[0]");
  CHECK(s.dims()[0].values ==
        std::vector<int64_t>{128, 256, 512, 1024, 2048, 4096, 8192});
  CHECK(s.dims()[0].values[s.dims()[0].defaultIndex] == 1024);
  CHECK(s.dims()[1].tunable.kind == Tunable::Kind::NumWarps);
  CHECK(s.dims()[1].values[s.dims()[1].defaultIndex] == 4);
  // One and two warps too (Helion's tuned embedding and cross entropy).
  CHECK(s.dims()[1].values == std::vector<int64_t>{1, 2, 4, 8, 16, 32});
  CHECK(s.dims()[2].tunable.kind == Tunable::Kind::MaxCtas);
  CHECK(s.dims()[2].values[s.dims()[2].defaultIndex] == 0);
  KernelConfig def = s.config(s.defaultPoint());
  CHECK(def.blockSizes == std::vector<int64_t>{1024});
  CHECK(def.numWarps == 4);
  CHECK(def.maxCtas == 0);
  CHECK(def.toJson(true) == R"({"block_sizes":[1024],"num_warps":4})");
}

TEST_CASE("kernel space: tunables keep to their allowed values", "[tuner]") {
  SpaceOptions o;
  o.maxBlock = int64_t(1) << 24; // wider than the contract allows
  KernelSpace s("k",
                {Tunable::blockSize(0, dslc::contract::kMaxBlockSize),
                 Tunable::named("unroll", 2, {1, 2, 4})},
                o);
  REQUIRE(s.dims().size() == 3);
  // 2^20 times 2^k, never above the contract's largest block.
  CHECK(s.dims()[0].values.back() == dslc::contract::kMaxBlockSize);
  CHECK(s.dims()[0].values.size() == 4);
  CHECK(s.dims()[1].values == std::vector<int64_t>{1, 2, 4});
  CHECK(s.dims()[1].values[s.dims()[1].defaultIndex] == 2);
  KernelConfig c = s.config({0, 2, 0});
  CHECK(c.blockSizes == std::vector<int64_t>{int64_t(1) << 17});
  CHECK(c.named.at("unroll") == 4);
  CHECK(c.toJson(true) ==
        R"({"block_sizes":[131072],"tunables":{"unroll":4}})");
}

TEST_CASE("kernel space: a kernel's own tunables, by choices or range",
          "[tuner]") {
  // Triton-style: a list of configs to try. Helion-style: a registered
  // value with a range, tried at powers of two around the kernel's value.
  Tunable stages = Tunable::named("num_stages", 3, {2, 3, 4});
  Tunable chunk = Tunable::named("chunk", 256, {});
  chunk.min = 128;
  chunk.max = 1024;
  Tunable fixed = Tunable::named("splits", 3, {});
  fixed.min = 3;
  fixed.max = 3;
  KernelSpace s("k", {Tunable::numWarps(8), stages, chunk, fixed});
  REQUIRE(s.dims().size() == 5); // + max_ctas
  CHECK(s.dims()[1].values == std::vector<int64_t>{2, 3, 4});
  CHECK(s.dims()[2].values == std::vector<int64_t>{128, 256, 512, 1024});
  CHECK(s.dims()[2].values[s.dims()[2].defaultIndex] == 256);
  CHECK(s.dims()[3].values == std::vector<int64_t>{3});
  // Each is compiled: the configs carry them for dslc --config.
  std::vector<KernelConfig> configs = s.compileConfigs();
  CHECK(configs.size() == 6 * 3 * 4);
  CHECK(
      configs[0].toJson(true) ==
      R"({"num_warps":1,"tunables":{"chunk":128,"num_stages":2,"splits":3}})");
}

TEST_CASE("kernel space: a matmul kernel's stages and engine", "[tuner]") {
  // MLIRGen lists num_stages and dot_engine for a kernel with a tile.dot:
  // the space tries 2..6 and 8 stages on mma.sync and wgmma (and the kernel's
  // own engine, fma here), and each config carries them to dslc.
  KernelSpace s("matmul", {Tunable::numWarps(8), Tunable::numStages(3),
                           Tunable::dotEngine(static_cast<int64_t>(
                               dslc::contract::DotEngine::Fma))});
  REQUIRE(s.dims().size() == 4); // + max_ctas
  // No fewer warps than a warpgroup.
  CHECK(s.dims()[0].values == std::vector<int64_t>{4, 8, 16, 32});
  CHECK(s.dims()[1].values == std::vector<int64_t>{2, 3, 4, 5, 6, 8});
  CHECK(s.dims()[1].values[s.dims()[1].defaultIndex] == 3);
  CHECK(s.dims()[2].values == std::vector<int64_t>{1, 2, 3});
  std::vector<KernelConfig> configs = s.compileConfigs();
  CHECK(configs.size() == 4 * 6 * 3);
  CHECK(configs.back().toJson(true) ==
        R"({"num_warps":32,"dot_engine":"wgmma","num_stages":8})");
  // Over a 2-d grid MLIRGen also lists the tile order: 4 groupings more.
  KernelSpace g(
      "matmul",
      {Tunable::numWarps(8), Tunable::numStages(3),
       Tunable::dotEngine(static_cast<int64_t>(dslc::contract::DotEngine::Fma)),
       Tunable::l2Grouping(1)});
  REQUIRE(g.dims().size() == 5);
  CHECK(g.dims()[3].values == std::vector<int64_t>{1, 4, 8, 16});
  CHECK(g.compileConfigs().size() == 4 * 6 * 3 * 4);
}

TEST_CASE("kernel space: whole rows or chunks of them", "[tuner]") {
  // A kernel of rows of 16384 reduced whole: its metadata offers
  // reduction_loops[0] 0 (whole), 16384 (held whole), 8192, 4096 or 2048.
  // A chunk bounds the elements a thread holds: 2 rows over 4 warps are
  // 256 elements a thread whole (past the bound of 64), 32 in chunks of
  // 2048; a row held whole may take 128 a thread.
  Tunable block = Tunable::blockSize(0, 1);
  block.unitElements = 16384;
  KernelSpace s("layer_norm", {block, Tunable::numWarps(4),
                               Tunable::reductionLoop(0, 0, 16384)});
  REQUIRE(s.dims().size() == 4);
  CHECK(s.dims()[2].values == std::vector<int64_t>{0, 2048, 4096, 8192, 16384});
  CHECK(s.dims()[2].values[s.dims()[2].defaultIndex] == 0);
  auto index = [&](size_t d, int64_t v) {
    const std::vector<int64_t> &values = s.dims()[d].values;
    auto it = std::find(values.begin(), values.end(), v);
    REQUIRE(it != values.end());
    return static_cast<int>(it - values.begin());
  };
  std::vector<int> whole = s.defaultPoint();
  whole[0] = index(0, 2);
  whole[1] = index(1, 4);
  whole[2] = index(2, 0);
  CHECK(s.dropReason(whole) == "more than 64 elements per thread");
  std::vector<int> chunked = whole;
  chunked[2] = index(2, 2048);
  CHECK(s.valid(chunked));
  CHECK(s.config(chunked).toJson(true) ==
        R"({"block_sizes":[2],"num_warps":4,"reduction_loops":[2048]})");
  // Helion's cross_entropy config: a row of 4096 at one warp, 128 a
  // thread: dropped whole (0, which dslc would roll), kept held (4096);
  // two rows held are 256 a thread.
  Tunable row = Tunable::blockSize(0, 1);
  row.unitElements = 4096;
  KernelSpace ce("cross_entropy", {row, Tunable::numWarps(4),
                                   Tunable::reductionLoop(0, 0, 4096)});
  auto at = [&](size_t d, int64_t v) {
    const std::vector<int64_t> &values = ce.dims()[d].values;
    return static_cast<int>(std::find(values.begin(), values.end(), v) -
                            values.begin());
  };
  std::vector<int> held = ce.defaultPoint();
  held[1] = at(1, 1);
  CHECK(ce.dropReason(held) == "more than 64 elements per thread");
  held[2] = at(2, 4096);
  CHECK(ce.valid(held));
  CHECK(ce.config(held).toJson(true) ==
        R"({"block_sizes":[1],"num_warps":1,"reduction_loops":[4096]})");
  held[0] = at(0, 2);
  CHECK(ce.dropReason(held) ==
        "more than 128 elements per thread (a row held whole)");
}

TEST_CASE("kernel space: invalid points are left out", "[tuner]") {
  KernelSpace s("k", llTunables());
  for (const auto &p : s.points()) {
    KernelConfig c = s.config(p);
    int64_t threads = c.numWarps * 32;
    CHECK(c.blockSizes[0] >= threads);
    CHECK(c.blockSizes[0] <= threads * 64);
  }
  // 128 elements over 32 warps (1024 threads) is not a point.
  std::vector<int> bad = {0, 5, 0};
  CHECK(s.config(bad).blockSizes[0] == 128);
  CHECK(s.config(bad).numWarps == 32);
  CHECK_FALSE(s.valid(bad));
  CHECK_FALSE(s.valid({0, 0}));
  CHECK_FALSE(s.valid({99, 0, 0}));
}

TEST_CASE("kernel space: left-out points are counted by reason", "[tuner]") {
  KernelSpace s("k", llTunables());
  size_t all = 1, dropped = 0;
  for (const Dimension &d : s.dims())
    all *= d.values.size();
  for (const auto &[why, n] : s.droppedPoints())
    dropped += n;
  CHECK(dropped > 0);
  CHECK(dropped + s.points().size() == all);
  CHECK(s.dropReason({0, 3, 0}) ==
        "fewer than 1 element(s) per thread (a tile of fewer elements than "
        "threads)");
  CHECK(s.droppedPoints().count(s.dropReason({0, 3, 0})) == 1);
}

TEST_CASE("kernel space: several block sizes (a 2-d tile) are all tried",
          "[tuner]") {
  // Rows x columns, as Helion's RMSNorm writes it: the per-thread rule of
  // a single block does not apply, and a block of 4 rows may shrink to 1.
  KernelSpace s("k", {Tunable::blockSize(0, 4), Tunable::blockSize(1, 4096),
                      Tunable::numWarps(8)});
  CHECK(s.dims()[0].values == std::vector<int64_t>{1, 2, 4, 8, 16, 32});
  CHECK(s.dims()[1].values.size() == 7);
  CHECK(s.droppedPoints().empty());
  CHECK(s.compileConfigs().size() == 6 * 7 * s.dims()[2].values.size());
}

TEST_CASE("search: fast_math is tried right after the default", "[tuner]") {
  // jsd at 8192 x 4096 (H100, 2026-12-07): an 8 s search reached 13
  // configs, none with fast_math (109.5 us); the same tile with it ran
  // 105.4. The seed is the default with fast_math at 1.
  // Its blocks: a row's chunk (V) and the rows (BT).
  Tunable chunk = sizedBlock(0, 64, 4096), rows = sizedBlock(1, 64, 8192);
  rows.tilesGrid = true;
  KernelSpace s("jsd",
                {chunk, rows, Tunable::numWarps(4), Tunable::fastMath(0)});
  std::optional<std::vector<int>> fm = s.fastMathSeed();
  REQUIRE(fm);
  CHECK(s.config(*fm).fastMath == 1);
  CHECK(s.config(*fm).blockSizes == s.config(s.defaultPoint()).blockSizes);
  CHECK(s.config(*fm).numWarps == 4);
  // A budget of two measurements: the default, then the seed.
  int calls = 0;
  auto eval = [&](const SearchPoint &p) -> std::optional<double> {
    ++calls;
    return s.config(p.idx).fastMath ? 9.6 : 10.0;
  };
  SearchOptions o;
  o.exhaustiveLimit = 0;
  o.outOfBudget = [&] { return calls >= 2; };
  SearchResult r = search({s}, eval, o);
  REQUIRE(r.best);
  CHECK(s.config(r.best->idx).fastMath == 1);
  // None where the default has it already or the kernel has no such
  // tunable.
  CHECK_FALSE(KernelSpace("k", {chunk, rows, Tunable::numWarps(4),
                                Tunable::fastMath(1)})
                  .fastMathSeed());
  CHECK_FALSE(
      KernelSpace("k", {chunk, rows, Tunable::numWarps(4)}).fastMathSeed());
}

TEST_CASE("kernel space: the loads' cache hints are search-only dimensions, "
          "one a load",
          "[tuner]") {
  // A kernel of 3 loads (MLIRGen's load_eviction tunable): a dimension of
  // none / first / last for each load, which the listing (tuner compile's
  // configs, an exhaustive search) holds at none.
  using dslc::contract::EvictionPolicy;
  KernelSpace with("k", {Tunable::blockSize(0, 1024), Tunable::numWarps(4),
                         Tunable::loadEviction(3, 0)});
  KernelSpace without("k", llTunables());
  REQUIRE(with.dims().size() == without.dims().size() + 3);
  std::vector<size_t> hints;
  for (size_t i = 0; i < with.dims().size(); ++i) {
    const Dimension &d = with.dims()[i];
    CHECK(d.searchOnly == (d.tunable.kind == Tunable::Kind::LoadEviction));
    if (!d.searchOnly)
      continue;
    CHECK(d.tunable.load == int(hints.size()));
    CHECK(d.values == std::vector<int64_t>{0, 1, 2});
    CHECK(d.defaultIndex == 0);
    hints.push_back(i);
  }
  REQUIRE(hints.size() == 3);
  CHECK(with.points().size() == without.points().size());
  CHECK(with.compileConfigs().size() == without.compileConfigs().size());
  CHECK(with.config(with.defaultPoint()).loadEvictionPolicies.empty());
  // One load's hint: the list of every load, the others none.
  std::vector<int> p = with.defaultPoint();
  p[hints[2]] = 2;
  CHECK(with.config(p).loadEvictionPolicies ==
        std::vector<EvictionPolicy>{EvictionPolicy::Normal,
                                    EvictionPolicy::Normal,
                                    EvictionPolicy::Last});
  // The seed of every load `last`; none where there are no hints.
  auto seed = with.withHints(with.defaultPoint(), EvictionPolicy::Last);
  REQUIRE(seed);
  CHECK(with.config(*seed).loadEvictionPolicies ==
        std::vector<EvictionPolicy>(3, EvictionPolicy::Last));
  CHECK_FALSE(without.withHints(without.defaultPoint(), EvictionPolicy::Last));
  // Past dslc::contract::kMaxPerLoadHints loads: one dimension hints them all.
  KernelSpace many(
      "k", {Tunable::blockSize(0, 1024), Tunable::numWarps(4),
            Tunable::loadEviction(dslc::contract::kMaxPerLoadHints + 1, 0)});
  REQUIRE(many.dims().size() == without.dims().size() + 1);
  std::vector<int> q = many.defaultPoint();
  for (size_t i = 0; i < many.dims().size(); ++i)
    if (many.dims()[i].searchOnly)
      q[i] = 1;
  CHECK(many.config(q).loadEvictionPolicies ==
        std::vector<EvictionPolicy>(dslc::contract::kMaxPerLoadHints + 1,
                                    EvictionPolicy::First));
}

TEST_CASE("kernel space: the hints leave the blocks' reach to their "
          "dimensions' sizes as it was",
          "[tuner]") {
  // Helion's welford at 8192 x 4096: three blocks of known extents and
  // four loads. Counted as listed points, the hints' 3^4 made the space
  // look too large for blocks reaching their dimensions, so its shape seed
  // was [2, 128, 128] instead of [1, 4096, 4096] and the tuned kernel took
  // 79 us instead of 51 (an H100, 2026-12-07).
  std::vector<Tunable> blocks = {
      sizedBlock(0, 16, 8192), sizedBlock(1, 16, 4096), sizedBlock(2, 16, 4096),
      Tunable::numWarps(4), Tunable::loopStages(2)};
  std::vector<Tunable> hinted = blocks;
  hinted.push_back(Tunable::loadEviction(4, 0));
  KernelSpace with("k", hinted), without("k", blocks);
  for (size_t i = 0; i < 3; ++i)
    CHECK(with.dims()[i].values == without.dims()[i].values);
  CHECK(with.dims()[1].values.back() == 4096);
  std::vector<std::vector<int>> a = with.shapeSeeds(), b = without.shapeSeeds();
  REQUIRE(a.size() == b.size());
  REQUIRE_FALSE(a.empty());
  for (size_t i = 0; i < a.size(); ++i)
    CHECK(with.config(a[i]) == without.config(b[i]));
  CHECK(with.config(a[0]).blockSizes == std::vector<int64_t>{1, 4096, 4096});
}

TEST_CASE("kernel space: a load's own tunable starts at the hint it was "
          "compiled with",
          "[tuner]") {
  // MLIRGen lists a tunable a load (up to kMaxPerLoadHints), each with
  // its compiled hint: the default point keeps a decorator's mixed list.
  using dslc::contract::EvictionPolicy;
  KernelSpace s("k", {Tunable::blockSize(0, 1024), Tunable::numWarps(4),
                      Tunable::loadEvictionOf(2, 0, 2),
                      Tunable::loadEvictionOf(2, 1, 0)});
  size_t hints = 0;
  for (const Dimension &d : s.dims())
    hints += d.searchOnly;
  CHECK(hints == 2);
  CHECK(s.config(s.defaultPoint()).loadEvictionPolicies ==
        std::vector<EvictionPolicy>{EvictionPolicy::Last,
                                    EvictionPolicy::Normal});
  auto all = s.withHints(s.defaultPoint(), EvictionPolicy::Last);
  REQUIRE(all);
  CHECK(s.config(*all).loadEvictionPolicies ==
        std::vector<EvictionPolicy>(2, EvictionPolicy::Last));
}

namespace {
/// A kernel of block, warps and 3 loads' hints whose time falls 3% with
/// load 0 `last` and 6% with load 1 `first` (Helion's cross entropy moved
/// 8% with its hints), whatever the block and warps.
double hintedUs(const KernelSpace &s, const SearchPoint &p) {
  using dslc::contract::EvictionPolicy;
  std::vector<EvictionPolicy> h = s.config(p.idx).loadEvictionPolicies;
  double us = 10.0;
  if (!h.empty() && h[0] == EvictionPolicy::Last)
    us -= 0.3;
  if (!h.empty() && h[1] == EvictionPolicy::First)
    us -= 0.6;
  return us;
}
} // namespace

TEST_CASE("search: the pattern search reaches each load's own hint",
          "[tuner]") {
  using dslc::contract::EvictionPolicy;
  KernelSpace s("k", {Tunable::blockSize(0, 1024), Tunable::numWarps(4),
                      Tunable::loadEviction(3, 0)});
  std::vector<SearchPoint> prepared;
  SearchOptions o;
  o.exhaustiveLimit = 0;
  o.prepare = [&](const std::vector<SearchPoint> &pts) {
    prepared.insert(prepared.end(), pts.begin(), pts.end());
  };
  SearchResult r =
      search({s}, [&](const SearchPoint &p) { return hintedUs(s, p); }, o);
  REQUIRE(r.best);
  std::vector<EvictionPolicy> h = s.config(r.best->idx).loadEvictionPolicies;
  REQUIRE(h.size() == 3);
  CHECK(h[0] == EvictionPolicy::Last);
  CHECK(h[1] == EvictionPolicy::First);
  CHECK(r.bestUs == Approx(9.1));
  // The restarts' accounting counts listed points only (the memo holds
  // search-only ones too): the search ends, every point announced first.
  CHECK(r.evaluated <= prepared.size());
}

TEST_CASE("search: an exhaustive search descends along the hints from its "
          "best point",
          "[tuner]") {
  using dslc::contract::EvictionPolicy;
  KernelSpace s("k", {Tunable::blockSize(0, 1024), Tunable::numWarps(4),
                      Tunable::loadEviction(3, 0)});
  SearchOptions o;
  o.exhaustiveLimit = 1 << 20;
  SearchResult r =
      search({s}, [&](const SearchPoint &p) { return hintedUs(s, p); }, o);
  CHECK(r.exhaustive);
  CHECK(r.evaluated > r.totalPoints); // the hints' points beyond the listing
  REQUIRE(r.best);
  std::vector<EvictionPolicy> h = s.config(r.best->idx).loadEvictionPolicies;
  REQUIRE(h.size() == 3);
  CHECK(h[0] == EvictionPolicy::Last);
  CHECK(h[1] == EvictionPolicy::First);
}

TEST_CASE("search: shape seeds start the descent where a row kernel's best "
          "configs are",
          "[tuner]") {
  // Helion's softmax_two_pass at [8192, 4096]: block 0 tiles the rows,
  // block 1 a row's chunks, both defaulting to 64. Helion's autotuner finds
  // one row a CTA in one chunk ([1, 4096]) 1.8x faster than what a descent
  // from [64, 64] reached in 14 points; the seeds are [1, 4096] and
  // [8192, 1] (the latter too many elements a thread at 32 warps: dropped
  // only by the compiler, so still a seed here).
  Tunable rows = sizedBlock(0, 64, 8192);
  Tunable cols = sizedBlock(1, 64, 4096);
  KernelSpace s("k", {rows, cols, Tunable::numWarps(4)});
  std::vector<std::vector<int>> seeds = s.shapeSeeds();
  REQUIRE(seeds.size() == 2);
  CHECK(s.config(seeds[0]).blockSizes == std::vector<int64_t>{1, 4096});
  CHECK(s.config(seeds[1]).blockSizes == std::vector<int64_t>{8192, 1});
  // A landscape whose best is [1, 4096] (time grows with the distance in
  // steps from it): the search measures it right after the default.
  int calls = 0, reachedAt = 0;
  auto eval = [&](const SearchPoint &p) -> std::optional<double> {
    KernelConfig c = s.config(p.idx);
    ++calls;
    if (c.blockSizes == std::vector<int64_t>{1, 4096} && c.numWarps == 4 &&
        !reachedAt)
      reachedAt = calls;
    double d = std::abs(std::log2(double(c.blockSizes[0]))) +
               std::abs(std::log2(double(c.blockSizes[1]) / 4096));
    return 10.0 + d + (c.numWarps == 4 ? 0 : 0.5);
  };
  SearchResult r = search({s}, eval, {});
  REQUIRE(r.best);
  CHECK(s.config(r.best->idx).blockSizes == std::vector<int64_t>{1, 4096});
  CHECK(reachedAt == 2);
  // One block (a row kernel's rows): its steps already reach 1 and the
  // size, no seeds.
  CHECK(KernelSpace("k", {rows, Tunable::numWarps(4)}).shapeSeeds().empty());
}

namespace {
/// A matmul's space at out [m, n] = x [m, k] @ y [k, n]: the grid's M and N
/// blocks (128 x 256 by default), the K loop's 64, 8 warps, 4 stages, wgmma.
KernelSpace matmulSpace(int64_t m, int64_t n, int64_t k) {
  Tunable bm = sizedBlock(0, 128, m), bn = sizedBlock(1, 256, n),
          bk = sizedBlock(2, 64, k);
  bm.tilesGrid = bn.tilesGrid = true;
  return KernelSpace(
      "matmul",
      {bm, bn, bk, Tunable::numWarps(8), Tunable::numStages(4),
       Tunable::dotEngine(int64_t(dslc::contract::DotEngine::Wgmma))});
}
} // namespace

TEST_CASE("kernel space: a skinny product's wave seeds fill the SMs with "
          "deep pipelines",
          "[tuner]") {
  // M = 128, N = K = 4096 on 132 SMs: 64 x 64 tiles make 128 CTAs loading
  // 128 rows and columns each (128 x 32 and 32 x 128: 160); the H100's
  // fastest config there (2026-12-07) is 64x64x128 at 6 stages.
  KernelSpace s = matmulSpace(128, 4096, 4096);
  std::vector<std::vector<int>> seeds = s.waveSeeds(132);
  REQUIRE(seeds.size() == 6);
  KernelConfig first = s.config(seeds[0]), second = s.config(seeds[1]);
  CHECK(first.blockSizes == std::vector<int64_t>{64, 64, 64});
  CHECK(second.blockSizes == std::vector<int64_t>{64, 64, 128});
  for (const auto &seed : seeds) {
    KernelConfig c = s.config(seed);
    int64_t ctas = ((128 + c.blockSizes[0] - 1) / c.blockSizes[0]) *
                   ((4096 + c.blockSizes[1] - 1) / c.blockSizes[1]);
    CHECK(ctas >= 66);
    CHECK(ctas <= 132);
    CHECK(c.numStages == 8); // the deepest; dslc keeps what fits
    CHECK(c.numWarps == (c.blockSizes[0] >= 128 ? 8 : 4));
    CHECK(s.valid(seed));
  }
  // M = 16: the grid's M block stops at 64 (a warpgroup's rows).
  KernelSpace t = matmulSpace(16, 4096, 4096);
  std::vector<std::vector<int>> thin = t.waveSeeds(132);
  REQUIRE(!thin.empty());
  CHECK(t.config(thin[0]).blockSizes == std::vector<int64_t>{64, 32, 64});
  for (const auto &seed : thin)
    CHECK(t.config(seed).blockSizes[0] <= 64);
  // A batched product ([B, M, N] tiles): a batch block loads its edges
  // once per batch entry, so 4 x 256 x 2048 products on 132 SMs take one
  // entry and 128 x 128 tiles (8 warps); warps follow M.
  Tunable bb = sizedBlock(0, 1, 4), bm = sizedBlock(1, 128, 256),
          bn = sizedBlock(2, 256, 2048), bk = sizedBlock(3, 64, 4096);
  bb.tilesGrid = bm.tilesGrid = bn.tilesGrid = true;
  KernelSpace batched(
      "bmm", {bb, bm, bn, bk, Tunable::numWarps(8), Tunable::numStages(4),
              Tunable::dotEngine(int64_t(dslc::contract::DotEngine::Wgmma))});
  std::vector<std::vector<int>> bseeds = batched.waveSeeds(132);
  REQUIRE(!bseeds.empty());
  CHECK(batched.config(bseeds[0]).blockSizes ==
        std::vector<int64_t>{1, 128, 128, 64});
  CHECK(batched.config(bseeds[0]).numWarps == 8);
  bool rows128 = false;
  for (const auto &seed : bseeds) {
    KernelConfig c = batched.config(seed);
    CHECK(c.blockSizes[0] <= 4);
    CHECK(c.numWarps == (c.blockSizes[1] >= 128 ? 8 : 4));
    rows128 = rows128 || c.blockSizes[1] == 128;
  }
  CHECK(rows128);
  // None where the SM count is not known or the kernel has no product.
  CHECK(s.waveSeeds(0).empty());
  // Sizes far past any GPU's: no overflow on the way (the CTA counts
  // saturate), only the large product's tiles.
  KernelSpace huge = matmulSpace(int64_t(1) << 40, int64_t(1) << 40, 64);
  for (const auto &seed : huge.waveSeeds(132)) {
    CHECK(huge.valid(seed));
    CHECK(huge.config(seed).blockSizes[0] >= 128);
  }
  Tunable rows = sizedBlock(0, 16, 4096);
  rows.tilesGrid = true;
  CHECK(KernelSpace("k", {rows, Tunable::numWarps(4)}).waveSeeds(132).empty());
}

TEST_CASE("kernel space: a large product's seeds are the tensor-core tiles",
          "[tuner]") {
  // matmul + bias + SiLU at 4096^3 from the source's 64 x 64 x 32 at four
  // warps (1024 CTAs): a 20 s search walked that neighbourhood and kept
  // 256x128x128 (0.96x torch) where 128x256x64 at 8 warps ran 1.25x (H100,
  // 2026-12-07).
  Tunable bm = sizedBlock(0, 64, 4096), bn = sizedBlock(1, 64, 4096),
          bk = sizedBlock(2, 32, 4096);
  bm.tilesGrid = bn.tilesGrid = true;
  KernelSpace s(
      "matmul_bias_silu",
      {bm, bn, bk, Tunable::numWarps(4), Tunable::numStages(4),
       Tunable::dotEngine(int64_t(dslc::contract::DotEngine::Wgmma))});
  std::vector<std::vector<int>> seeds = s.waveSeeds(132);
  REQUIRE(seeds.size() == 3);
  std::vector<std::vector<int64_t>> tiles;
  for (const auto &seed : seeds) {
    KernelConfig c = s.config(seed);
    tiles.push_back(c.blockSizes);
    CHECK(c.numWarps == 8);
    CHECK(c.numStages == 4); // the default's: dslc keeps what fits
    CHECK(s.valid(seed));
  }
  CHECK(tiles == std::vector<std::vector<int64_t>>{
                     {128, 256, 64}, {256, 128, 64}, {128, 128, 64}});
  // The same product from its 128 x 256 default: the other two tiles.
  std::vector<std::vector<int>> big =
      matmulSpace(4096, 4096, 4096).waveSeeds(132);
  REQUIRE(big.size() == 2);
  CHECK(matmulSpace(4096, 4096, 4096).config(big[0]).blockSizes ==
        std::vector<int64_t>{256, 128, 64});
  // M = 512 x N = 4096: 128 x 256 tiles make 64 CTAs (half the SMs), no
  // longer a wave; 128 x 128 makes 128 (also short of 132): no seed
  // leaves the SMs idle where the default fills them.
  Tunable m2 = sizedBlock(0, 32, 512), n2 = sizedBlock(1, 64, 4096),
          k2 = sizedBlock(2, 32, 4096);
  m2.tilesGrid = n2.tilesGrid = true;
  KernelSpace mid(
      "m", {m2, n2, k2, Tunable::numWarps(4), Tunable::numStages(4),
            Tunable::dotEngine(int64_t(dslc::contract::DotEngine::Wgmma))});
  CHECK(mid.waveSeeds(132).empty());
}

TEST_CASE("search: a matrix product's descent starts from its wave seeds",
          "[tuner]") {
  // Fastest at 64x32x128, 8 stages (M = 16, N = 4096): far from the
  // default's basin, one of the wave seeds.
  std::vector<KernelSpace> spaces = {matmulSpace(16, 4096, 4096)};
  auto cost = [&](const SearchPoint &p) -> std::optional<double> {
    KernelConfig c = spaces[0].config(p.idx);
    double d = std::abs(std::log2(double(c.blockSizes[0]) / 64)) +
               std::abs(std::log2(double(c.blockSizes[1]) / 32)) +
               std::abs(std::log2(double(c.blockSizes[2]) / 128)) +
               std::abs(double(c.numStages - 8));
    return d > 3 ? 20.0 : 10.0 + d * d; // a well in a plateau
  };
  SearchOptions o;
  o.restarts = 0;
  o.multiprocessors = 132;
  SearchResult withSeeds = search(spaces, cost, o);
  REQUIRE(withSeeds.best);
  CHECK(withSeeds.bestUs == 10.0);
  o.multiprocessors = 0;
  SearchResult without = search(spaces, cost, o);
  REQUIRE(without.best);
  CHECK(without.bestUs > 10.0);
}

TEST_CASE("kernel space: a block tiling a dimension of known size reaches "
          "its power of two",
          "[tuner]") {
  // Helion's welford at [8192, 4096]: its chunk loop over a row's 4096
  // columns defaults to 16; the steps around it stop at 128 (32 chunks a
  // row), the dimension's size lets the tuner try the whole row in one.
  Tunable chunk = sizedBlock(1, 16, 4096);
  Tunable odd = sizedBlock(2, 16, 5000); // not a power of two: up to 8192
  KernelSpace s("k",
                {Tunable::blockSize(0, 16), chunk, odd, Tunable::numWarps(4)});
  // (A block without a known size keeps the default's steps.)
  KernelSpace plain(
      "k", {Tunable::blockSize(0, 16), chunk, odd, Tunable::numWarps(4)});
  CHECK(plain.dims()[0].values ==
        std::vector<int64_t>{2, 4, 8, 16, 32, 64, 128});
  // ... and down to 1 (one row a CTA).
  CHECK(s.dims()[1].values == std::vector<int64_t>{1, 2, 4, 8, 16, 32, 64, 128,
                                                   256, 512, 1024, 2048, 4096});
  CHECK(s.dims()[2].values.back() == 8192);
  // A default already past the size keeps its usual steps.
  Tunable big = sizedBlock(0, 1024, 100);
  KernelSpace b("k", {big, Tunable::blockSize(1, 4), Tunable::numWarps(4)});
  CHECK(b.dims()[0].values.back() == 8192);
  // A matrix product's tiles keep their steps around the default; a loop
  // over a row's chunks, whose stages are tuned too, reaches the size.
  Tunable m = sizedBlock(0, 128, 8192);
  KernelSpace mm("k",
                 {m, Tunable::numStages(3),
                  Tunable::dotEngine(int64_t(dslc::contract::DotEngine::Wgmma)),
                  Tunable::numWarps(8)});
  CHECK(mm.dims()[0].values.back() == 1024);
  KernelSpace loop("k",
                   {m, Tunable::loopStages(dslc::contract::kDefaultLoopStages),
                    Tunable::numWarps(8)});
  CHECK(loop.dims()[0].values.back() == 8192);
  CHECK(loop.dims()[1].values == std::vector<int64_t>{1, 2, 3});
  // Five blocks reaching 2^20 would list 16^5 x 4 x 5 points: they keep
  // the default's steps.
  std::vector<Tunable> many;
  for (unsigned i = 0; i < 5; ++i)
    many.push_back(sizedBlock(i, 16, 1 << 20));
  many.push_back(Tunable::numWarps(4));
  KernelSpace wide("k", many);
  CHECK(wide.dims()[0].values.back() == 128);
  CHECK(wide.dims()[4].values.back() == 128);
}

TEST_CASE("kernel space: a block of rows is sized by its tile's elements",
          "[tuner]") {
  // Helion's rms_norm: `x[rows, :]` with one block (rows, default 1) and a
  // row of 4096 elements (the metadata's unit_elements). Counted in rows,
  // every block but the default would fall below 64 elements and every
  // warp count but the default below one row per thread.
  Tunable rows = Tunable::blockSize(0, 1);
  rows.unitElements = 4096;
  KernelSpace s("k", {rows, Tunable::numWarps(16)});
  CHECK(s.dims()[0].values == std::vector<int64_t>{1, 2, 4, 8});
  std::set<std::pair<int64_t, int>> configs;
  for (const KernelConfig &c : s.compileConfigs()) {
    int64_t perThread = c.blockSizes[0] * 4096 / (c.numWarps * 32);
    CHECK(perThread >= 1);
    CHECK(perThread <= 64);
    configs.insert({c.blockSizes[0], c.numWarps});
  }
  CHECK(configs.count({1, 4}) == 1); // 32 elements a thread
  CHECK(configs.count({1, 32}) == 1);
  CHECK(configs.count({8, 16}) == 1);
  CHECK(configs.count({8, 4}) == 0); // 256 a thread
  // A row longer than the largest tile keeps the default alone.
  Tunable wide = Tunable::blockSize(0, 1);
  wide.unitElements = 1 << 17;
  CHECK(KernelSpace("k", {wide, Tunable::numWarps(16)}).dims()[0].values ==
        std::vector<int64_t>{1});
}

TEST_CASE("kernel space: compile configs drop the grid cap", "[tuner]") {
  KernelSpace s("k", llTunables());
  auto configs = s.compileConfigs();
  std::set<KernelConfig> uniq(configs.begin(), configs.end());
  CHECK(uniq.size() == configs.size());
  for (const auto &c : configs)
    CHECK(c.maxCtas == 0);
  CHECK(s.points().size() == configs.size() * 5); // five caps
}

TEST_CASE("search: exhaustive on a small space finds the minimum", "[tuner]") {
  std::vector<Dimension> dims = {
      {Tunable::blockSize(0, 512), {256, 512, 1024}, 1},
      {Tunable::numWarps(4), {4, 8}, 0}};
  KernelSpace a("a", dims), b("b", dims);
  int calls = 0;
  Evaluate eval = [&](const SearchPoint &p) -> std::optional<double> {
    ++calls;
    if (p.kernel == 1 && p.idx == std::vector<int>{2, 1})
      return 1.0; // the best
    if (p.kernel == 0 && p.idx[0] == 0)
      return std::nullopt; // fails
    return 10.0 + p.idx[0] + p.idx[1];
  };
  SearchResult r = search({a, b}, eval);
  CHECK(r.exhaustive);
  CHECK(r.totalPoints == 12);
  CHECK(r.evaluated == 12);
  CHECK(calls == 12); // once per point
  REQUIRE(r.best);
  CHECK(r.best->kernel == 1);
  CHECK(r.best->idx == std::vector<int>{2, 1});
  CHECK(r.bestUs == 1.0);
  REQUIRE(r.bestPerKernel[0]);
  CHECK(r.bestPerKernel[0]->idx == std::vector<int>{1, 0});
  CHECK(r.bestUsPerKernel[0] == 11.0);
}

TEST_CASE("search: pattern search descends a bowl from the default",
          "[tuner]") {
  KernelSpace s = bowl();
  Evaluate eval = [&](const SearchPoint &p) -> std::optional<double> {
    return bowlUs(p);
  };
  SearchOptions o;
  o.exhaustiveLimit = 64;
  SearchResult r = search({s}, eval, o);
  CHECK_FALSE(r.exhaustive);
  REQUIRE(r.best);
  CHECK(r.best->idx == std::vector<int>{7, 3, 5});
  CHECK(r.evaluated < r.totalPoints / 4);
}

TEST_CASE("search: every point is announced (prepared) before it is "
          "evaluated, a step's neighbours together",
          "[tuner]") {
  // The tuner compiles what `prepare` announces (a large space is compiled
  // as the search visits it): no point may be evaluated unannounced, and a
  // pattern step announces its neighbours in one call, never twice.
  KernelSpace s = bowl();
  std::set<std::vector<int>> announced;
  size_t calls = 0, largest = 0, unannounced = 0, again = 0;
  SearchOptions o;
  o.prepare = [&](const std::vector<SearchPoint> &points) {
    ++calls;
    largest = std::max(largest, points.size());
    for (const SearchPoint &p : points)
      again += !announced.insert(p.idx).second;
  };
  Evaluate eval = [&](const SearchPoint &p) -> std::optional<double> {
    unannounced += !announced.count(p.idx);
    return bowlUs(p);
  };
  SearchResult r = search({s}, eval, o);
  REQUIRE(r.best);
  CHECK(r.best->idx == std::vector<int>{7, 3, 5});
  CHECK(unannounced == 0);
  CHECK(again == 0);
  CHECK(largest > 1);                 // neighbours announced together
  CHECK(calls < size_t(r.evaluated)); // fewer batches than points
  CHECK(announced.size() < r.totalPoints / 4);
}

TEST_CASE("search: a failing default starts from the first working point",
          "[tuner]") {
  std::vector<int64_t> vals;
  for (int i = 0; i < 10; ++i)
    vals.push_back(i);
  KernelSpace s("k",
                std::vector<Dimension>{dim("x", vals, 5), dim("y", vals, 5)});
  Evaluate eval = [&](const SearchPoint &p) -> std::optional<double> {
    if (p.idx[0] >= 4)
      return std::nullopt;
    return 200.0 - 10 * p.idx[0] - 10 * p.idx[1];
  };
  SearchResult r = search({s}, eval);
  REQUIRE(r.best);
  CHECK(r.best->idx[0] == 3);
  CHECK(r.best->idx[1] == 9);
}

TEST_CASE("search: the budget stops it with the best so far", "[tuner]") {
  std::vector<int64_t> vals;
  for (int i = 0; i < 10; ++i)
    vals.push_back(i);
  KernelSpace s("k",
                std::vector<Dimension>{dim("x", vals, 0), dim("y", vals, 0)});
  int calls = 0;
  SearchOptions o;
  o.outOfBudget = [&] { return calls >= 3; };
  SearchResult r = search(
      {s},
      [&](const SearchPoint &p) -> std::optional<double> {
        ++calls;
        return 50.0 - p.idx[0] - p.idx[1];
      },
      o);
  CHECK(r.budgetHit);
  CHECK(calls == 3);
  CHECK(r.best);
}

TEST_CASE("search: every kernel's default comes first, then the fastest "
          "kernel is refined",
          "[tuner]") {
  // Three kernels of 100 points each (pattern search); a budget of 6
  // evaluations. Kernel 2's default is the fastest: the early-stopped search
  // must have measured it and refined it, not spent the budget on kernel 0
  // (what happened at 64M elements on 2xH200: 4 points, all one-shot).
  std::vector<int64_t> vals;
  for (int i = 0; i < 10; ++i)
    vals.push_back(i);
  std::vector<KernelSpace> spaces;
  for (const char *name : {"slow", "middle", "fast"})
    spaces.emplace_back(
        name, std::vector<Dimension>{dim("x", vals, 5), dim("y", vals, 5)});
  std::vector<SearchPoint> seen;
  SearchOptions o;
  o.exhaustiveLimit = 64;
  o.outOfBudget = [&] { return seen.size() >= 6; };
  SearchResult r = search(
      spaces,
      [&](const SearchPoint &p) -> std::optional<double> {
        seen.push_back(p);
        double base = p.kernel == 0 ? 500 : p.kernel == 1 ? 300 : 100;
        return base - p.idx[0];
      },
      o);
  // The budget is checked between moves, so one move may finish past it.
  REQUIRE(seen.size() >= 6);
  CHECK(seen[0].kernel == 0);
  CHECK(seen[1].kernel == 1);
  CHECK(seen[2].kernel == 2);
  for (size_t i = 3; i < seen.size(); ++i)
    CHECK(seen[i].kernel == 2);
  REQUIRE(r.best);
  CHECK(r.best->kernel == 2);
  CHECK(r.bestUs < 95);
}

TEST_CASE("search: restarts from random points leave the default's basin",
          "[tuner]") {
  // Two basins on a 16 x 16 grid: the default's (its bottom 50 us at the
  // default itself) and a deeper one (5 us at (13, 12)), as a matmul's
  // square default sits among 128-row tiles while a 16-row product wants
  // 16-row tiles. The pattern search alone stays at the default.
  std::vector<int64_t> vals;
  for (int i = 0; i < 16; ++i)
    vals.push_back(i);
  KernelSpace s("k",
                std::vector<Dimension>{dim("x", vals, 1), dim("y", vals, 1)});
  auto us = [](const SearchPoint &p) {
    double ax = p.idx[0] - 1, ay = p.idx[1] - 1;
    double bx = p.idx[0] - 13, by = p.idx[1] - 12;
    return std::min(50.0 + 4 * (ax * ax + ay * ay), 5.0 + bx * bx + by * by);
  };
  SearchOptions o;
  o.restarts = 0;
  SearchResult alone = search({s}, us, o);
  REQUIRE(alone.best);
  CHECK(alone.bestUs == 50.0);

  o.restarts = 3;
  std::set<std::vector<int>> announced;
  size_t unannounced = 0;
  o.prepare = [&](const std::vector<SearchPoint> &points) {
    for (const SearchPoint &p : points)
      announced.insert(p.idx);
  };
  SearchResult r = search(
      {s},
      [&](const SearchPoint &p) -> std::optional<double> {
        unannounced += !announced.count(p.idx);
        return us(p);
      },
      o);
  REQUIRE(r.best);
  CHECK(r.best->idx == std::vector<int>{13, 12});
  CHECK(r.bestUs == 5.0);
  CHECK(unannounced == 0);
  // Same seed, same search.
  SearchResult again = search({s}, us, o);
  CHECK(again.evaluated == r.evaluated);
}

TEST_CASE("search: restarts end at the first that finds nothing better",
          "[tuner]") {
  // One bowl: the descent from the default finds its bottom; one restart
  // (a sample and a descent) confirms it and the search stops, far from
  // measuring the whole space. A budget stops restarts too.
  KernelSpace s = bowl();
  size_t calls = 0;
  Evaluate eval = [&](const SearchPoint &p) -> std::optional<double> {
    ++calls;
    return bowlUs(p);
  };
  SearchOptions o;
  SearchResult r = search({s}, eval, o);
  REQUIRE(r.best);
  CHECK(r.best->idx == std::vector<int>{7, 3, 5});
  o.restarts = 0;
  size_t withoutRestarts = search({s}, eval, o).evaluated;
  CHECK(r.evaluated > withoutRestarts + o.restartSample - 1);
  CHECK(r.evaluated < r.totalPoints / 4);

  o.restarts = 100;
  calls = 0;
  o.outOfBudget = [&] { return calls >= withoutRestarts + 3; };
  SearchResult b = search({s}, eval, o);
  CHECK(b.budgetHit);
  CHECK(calls <= withoutRestarts + 3 + 2 * 3); // a step's dimension at most
}
