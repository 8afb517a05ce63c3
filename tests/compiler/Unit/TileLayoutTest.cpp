//===- TileLayoutTest.cpp - How tiles are spread over threads ------------===//

#include "compiler/Conversion/TileLayout.h"

#include "llvm/ADT/SmallVector.h"

#include <catch2/catch.hpp>

using dslc::chooseRowThreads;
using dslc::TileLayout;

TEST_CASE("a bf16 tile of 8192 over 1024 threads: one 16-byte piece each",
          "[layout]") {
  TileLayout l = TileLayout::get({8192}, 1024, 8, 1024);
  CHECK(l.vec == 8);
  CHECK(l.chunks == 1);
  CHECK(l.outer == 1);
  CHECK(l.perThread() == 8);
}

TEST_CASE("fewer threads take several pieces, ordered [o][c][v]", "[layout]") {
  TileLayout l = TileLayout::get({8192}, 128, 8, 128);
  CHECK(l.chunks == 8);
  CHECK(l.perThread() == 64);
  CHECK(l.position(0, 3, 5) == 3 * 8 + 5);
}

TEST_CASE("a tile smaller than one piece per thread", "[layout]") {
  TileLayout l = TileLayout::get({2}, 128, 8, 128);
  CHECK(l.vec == 2); // a piece never spans more than the row
  CHECK(l.chunks == 1);
  TileLayout odd = TileLayout::get({5}, 32, 8, 32);
  CHECK(odd.vec == 8); // rounded up to a power of two, masked
  CHECK(odd.chunks == 1);
}

TEST_CASE("leading dimensions are held whole by every thread", "[layout]") {
  TileLayout l = TileLayout::get({4, 2048}, 256, 8, 256);
  CHECK(l.outer == 4);
  CHECK(l.chunks == 1);
  CHECK(l.perThread() == 32);
  CHECK(l.position(2, 0, 1) == 2 * 8 + 1);
}

TEST_CASE("the piece count rounds up for a ragged last piece", "[layout]") {
  TileLayout l = TileLayout::get({1000}, 64, 4, 64);
  CHECK(l.vec == 4);
  CHECK(l.chunks == 4); // 1000 / (64 * 4) = 3.9
}

TEST_CASE("a last dimension of 1 or rank 0 is replicated in every thread",
          "[layout]") {
  TileLayout col = TileLayout::get({4, 1}, 256, 8, 256);
  CHECK(col.replicated);
  CHECK(col.outer == 4);
  CHECK(col.vec == 1);
  CHECK(col.chunks == 1);
  CHECK(col.perThread() == 4); // every thread holds all 4 rows
  CHECK(col.position(3, 0, 0) == 3);
  CHECK(col.innerIndex(0, 200, 0) == 0); // the same element in every thread
  TileLayout scalar = TileLayout::get({}, 1024, 8, 1024);
  CHECK(scalar.replicated);
  CHECK(scalar.perThread() == 1);
  TileLayout row = TileLayout::get({1, 8192}, 1024, 8, 1024);
  CHECK_FALSE(row.replicated); // a leading unit dimension is not
  CHECK(row.perThread() == 8);
}

TEST_CASE("the index along the last dimension of each held element",
          "[layout]") {
  TileLayout l = TileLayout::get({4, 8192}, 256, 8, 256);
  CHECK_FALSE(l.replicated);
  CHECK(l.chunks == 4);
  // Thread 3 holds pieces 3, 259, 515, 771: elements 24..31, 2072.., ...
  CHECK(l.innerIndex(0, 3, 0) == 24);
  CHECK(l.innerIndex(1, 3, 7) == (256 + 3) * 8 + 7);
  // fp8 as the narrowest type: 16-element pieces.
  TileLayout fp8 = TileLayout::get({2048}, 128, 16, 128);
  CHECK(fp8.vec == 16);
  CHECK(fp8.chunks == 1);
  CHECK(fp8.innerIndex(0, 127, 15) == 2047);
}

TEST_CASE("pieces narrow to give every lane of a row one, down to minVec",
          "[layout]") {
  // fp8 beside bf16 (pieces of 16, at least 8): a row of 4096 over 512
  // threads in pieces of 16 would leave 256 lanes idle.
  TileLayout l = TileLayout::get({4096}, 512, 16, 512, 8);
  CHECK(l.vec == 8);
  CHECK(l.chunks == 1);
  CHECK(l.perThread() == 8);
  CHECK(l.innerIndex(0, 511, 7) == 4095);
  // Rows wide enough keep the widest pieces; narrower ones stop at minVec.
  CHECK(TileLayout::get({8192}, 512, 16, 512, 8).vec == 16);
  CHECK(TileLayout::get({16384}, 512, 16, 512, 8).vec == 16);
  CHECK(TileLayout::get({1024}, 512, 16, 512, 8).vec == 8);
  // Without a minVec (or minVec == maxVec) nothing narrows.
  CHECK(TileLayout::get({4096}, 512, 16, 512).vec == 16);
  CHECK(TileLayout::get({1024}, 512, 8, 512, 8).vec == 8);
  // 2-d rows narrow over their own lanes: rows of 7 over 16 lanes.
  TileLayout rows = TileLayout::get({3, 7}, 32, 8, 16, 4);
  CHECK(rows.vec == 4);
  CHECK(rows.chunks == 1);
  CHECK(rows.perThread() == 2 * 4);
  // A kernel's row threads are chosen with the narrowed layouts.
  CHECK(TileLayout::choose({3, 7}, 32, 8, 16, 4).sameDistribution(rows));
}

TEST_CASE("groups deal the first dimension of a 2-d tile", "[layout]") {
  // [64, 64] f32 in 128 threads, rows over 4 lanes: 32 groups.
  TileLayout l = TileLayout::get({64, 64}, 128, 8, 4);
  CHECK(l.groups() == 32);
  CHECK(l.split);
  CHECK(l.outer == 2);
  CHECK(l.chunks == 2);
  CHECK(l.perThread() == 32); // not 512 as with one group
  // Thread 37 is lane 1 of group 9: rows 9 and 41, columns 8..15, 40..47.
  CHECK(l.row(0, 9) == 9);
  CHECK(l.row(1, 9) == 41);
  CHECK(l.innerIndex(0, 1, 0) == 8);
  CHECK(l.innerIndex(1, 1, 0) == 40);
  CHECK_FALSE(l.raggedRows());
  // Fewer first indices than a multiple of the groups: padding rows.
  TileLayout ragged = TileLayout::get({40, 64}, 128, 8, 4);
  CHECK(ragged.raggedRows());
  CHECK(ragged.outer == 2);
  CHECK(ragged.row(1, 7) == 39);
  CHECK_FALSE(ragged.row(1, 8).has_value());
  // Middle dimensions are held whole when the first one gives every group
  // an index: rows (r0, k) of [8, 3, 64].
  TileLayout three = TileLayout::get({8, 3, 64}, 128, 8, 16);
  CHECK(three.groups() == 8);
  CHECK(three.dealtDims == 1);
  CHECK(three.rows0 == 1);
  CHECK(three.outer == 3);
  CHECK(three.row(2, 5) == 5 * 3 + 2);
  CHECK(three.holder(5 * 3 + 2) == std::pair<int64_t, int64_t>{2, 5});
  // Else the first dimensions are flattened until they do: [2, 12, 64]
  // deals its 24 rows like [24, 64], and leading unit dimensions change
  // nothing.
  TileLayout batch = TileLayout::get({2, 12, 64}, 128, 8, 16);
  CHECK(batch.dealtDims == 2);
  CHECK(batch.dim0 == 24);
  CHECK(batch.rows0 == 3);
  CHECK(batch.row(1, 5) == 13);
  CHECK(batch.holder(13) == std::pair<int64_t, int64_t>{1, 5});
  CHECK(batch.sameDistribution(TileLayout::get({24, 64}, 128, 8, 16)));
  CHECK(TileLayout::get({1, 24, 64}, 128, 8, 16)
            .sameDistribution(TileLayout::get({24, 64}, 128, 8, 16)));
}

TEST_CASE("rank 1, first dimension 1 and last dimension 1 under groups",
          "[layout]") {
  // Rank <= 1 always spreads over the whole CTA.
  TileLayout flat = TileLayout::get({64}, 128, 8, 4);
  CHECK(flat.groups() == 1);
  CHECK(flat.rowThreads == 128);
  // [1, 64]: every group holds the row.
  TileLayout row = TileLayout::get({1, 64}, 128, 8, 4);
  CHECK_FALSE(row.split);
  CHECK(row.groupReplicated());
  CHECK(row.perThread() == 16);
  // [64, 1]: dealt rows, replicated over the lanes of a group.
  TileLayout col = TileLayout::get({64, 1}, 128, 8, 4);
  CHECK(col.split);
  CHECK(col.replicated);
  CHECK_FALSE(col.allReplicated());
  CHECK(col.perThread() == 2);
  TileLayout one = TileLayout::get({1, 1}, 128, 8, 4);
  CHECK(one.allReplicated());
}

TEST_CASE("which reshapes keep the per-thread vector", "[layout]") {
  auto L = [](llvm::ArrayRef<int64_t> shape, int64_t p) {
    return TileLayout::get(shape, 128, 8, p);
  };
  // One group: only the replicated-ness matters.
  CHECK(L({4, 2048}, 128).sameDistribution(L({4, 1, 2048}, 128)));
  CHECK(L({1, 2048}, 128).sameDistribution(L({2048}, 128)));
  CHECK_FALSE(L({64, 1}, 128).sameDistribution(L({64}, 128)));
  // Groups: the rank crossing 2 changes it, leading unit dimensions do not
  // (the rows are the leading dimensions flattened).
  CHECK(L({64, 64}, 4).sameDistribution(L({64, 1, 64}, 4)));
  CHECK_FALSE(L({1, 64}, 4).sameDistribution(L({64}, 4)));
  CHECK(L({64, 64}, 4).sameDistribution(L({1, 64, 64}, 4)));
  CHECK(L({2, 32, 64}, 4).sameDistribution(L({64, 64}, 4)));
  CHECK_FALSE(L({64, 2, 64}, 4).sameDistribution(L({128, 64}, 4)));
  CHECK(L({1, 1}, 4).sameDistribution(L({}, 4)));
}

TEST_CASE("a kernel's row threads", "[layout]") {
  using Shapes = llvm::SmallVector<llvm::ArrayRef<int64_t>>;
  llvm::SmallVector<int64_t> acc{64, 64}, a{64, 32}, b{32, 64};
  // Matmul blocks 64x64x32 in bf16 (V = 8): rows of 32 take 4 lanes.
  CHECK(chooseRowThreads(Shapes{acc, a, b}, 128, 8) == 4);
  // Wide rows keep the whole CTA on a row.
  llvm::SmallVector<int64_t> wide{4, 8192};
  CHECK(chooseRowThreads(Shapes{wide}, 128, 8) == 128);
  // No more groups than the smallest first dimension.
  llvm::SmallVector<int64_t> small{8, 64}, k{16, 64};
  CHECK(chooseRowThreads(Shapes{small, k}, 128, 8) == 16);
  // The rows of a 3-d tile are its leading dimensions flattened: [16, 16,
  // 16] has 256 rows of 2 pieces.
  llvm::SmallVector<int64_t> batch{16, 16, 16}, unitBatch{1, 8, 64};
  CHECK(chooseRowThreads(Shapes{batch}, 128, 8) == 2);
  CHECK(chooseRowThreads(Shapes{unitBatch}, 128, 8) == 16);
  // Only rank-1 tiles, or first dimensions of 1: one group.
  llvm::SmallVector<int64_t> row{1, 64};
  CHECK(chooseRowThreads(Shapes{row}, 128, 8) == 128);
  CHECK(chooseRowThreads(Shapes{}, 128, 8) == 128);
  // A CTA that is not a power of two keeps whole rows when no lane count
  // divides it.
  CHECK(chooseRowThreads(Shapes{acc}, 96, 8) == 8);
}

TEST_CASE("a kernel's row threads hold its tiles in the fewest registers "
          "when the rule's waste many",
          "[layout]") {
  using Shapes = llvm::SmallVector<llvm::ArrayRef<int64_t>>;
  // Helion's attention at [16, 16, 16] and 8 warps: the [16, 16] row
  // statistics ask for 16 lanes (no more groups than their 16 rows), which
  // leave half the lanes of a [16, 16, 64] row padding: 128 elements a
  // thread. One lane a row holds it in 64 (and the [16, 16, 16] scores in
  // 16 instead of 128).
  llvm::SmallVector<int64_t> stats{16, 16}, acc{16, 16, 64}, scores{16, 16, 16},
      column{16, 16, 1};
  Shapes attention{stats, acc, scores, column};
  CHECK(dslc::ruleRowThreads(attention, 256, 8) == 16);
  CHECK(TileLayout::get(acc, 256, 8, 16).perThread() == 128);
  int64_t p = chooseRowThreads(attention, 256, 8);
  CHECK(p == 1);
  CHECK(TileLayout::choose(acc, 256, 8, p).perThread() == 64);
  // Small tiles keep the rule's even where another count would hold them
  // in fewer: [3, 5] x [5, 7] in one warp saves 24 elements a thread.
  llvm::SmallVector<int64_t> a{3, 5}, b{5, 7}, c{3, 7};
  CHECK(chooseRowThreads(Shapes{a, b, c}, 32, 8) ==
        dslc::ruleRowThreads(Shapes{a, b, c}, 32, 8));
}

TEST_CASE("a kernel's row threads weigh each shape by its values and keep "
          "tiles that meet in one layout",
          "[layout]") {
  using Shapes = llvm::SmallVector<llvm::ArrayRef<int64_t>>;
  // rope at one token a CTA, 4 warps: the halves of cos ([1, 1, 64], then
  // [1, 1, 1, 64] to broadcast), of q ([1, 32, 1, 64], 32 heads) and of k
  // ([1, 8, 1, 64]). The rule's 16 lanes (no more groups than k's 8 rows)
  // leave half of every 64-wide row's lanes padding; 8 lanes hold q in 16
  // elements a thread instead of 32, and q's values (loads, conversions,
  // products, sums) are most of the kernel's.
  llvm::SmallVector<int64_t> cos{1, 1, 64}, cos4{1, 1, 1, 64}, q{1, 32, 1, 64},
      k{1, 8, 1, 64};
  Shapes rope{cos, q, cos4, k};
  CHECK(dslc::ruleRowThreads(rope, 128, 8) == 16);
  CHECK(TileLayout::get(q, 128, 8, 16).perThread() == 32);
  // Counted once each, the saving (56 -> 40 elements) is too small to move.
  CHECK(chooseRowThreads(rope, 128, 8) == 16);
  llvm::SmallVector<int64_t> uses{4, 14, 4, 14};
  int64_t p = chooseRowThreads(rope, 128, 8, 0, uses);
  CHECK(p == 8);
  CHECK(TileLayout::get(q, 128, 8, p).perThread() == 16);
  // One lane a row takes as few elements, but cos alone would then spread
  // over the whole CTA and q over 8 lanes: each broadcast of cos to q would
  // go through shared memory. At 8 lanes every tile takes the kernel's.
  CHECK(TileLayout::choose(cos4, 128, 8, 1).rowThreads == 128);
  for (llvm::ArrayRef<int64_t> shape : rope)
    CHECK(TileLayout::choose(shape, 128, 8, p).rowThreads == p);
}

TEST_CASE("a tile the kernel's row threads leave mostly padding takes its "
          "own",
          "[layout]") {
  // squeeze_and_excitation_net: [2, 1024] tiles give the kernel P = 64,
  // which would leave [1024, 2] 1024 elements per thread (63 of 64 lanes
  // padding); alone it takes P = 1: 16.
  TileLayout narrow = TileLayout::choose({1024, 2}, 128, 8, 64);
  CHECK(narrow.rowThreads == 1);
  CHECK(narrow.perThread() == 16);
  CHECK(TileLayout::get({1024, 2}, 128, 8, 64).perThread() == 1024);
  // The tiles that set the kernel's P keep it.
  CHECK(TileLayout::choose({2, 1024}, 128, 8, 64).rowThreads == 64);
  // As good with either: the kernel's (no layout change between them).
  CHECK(TileLayout::choose({64, 64}, 128, 8, 4).rowThreads == 4);
  // Tiles of few elements keep the kernel's: 32 of padding cost little.
  CHECK(TileLayout::choose({1, 1, 32, 2}, 128, 8, 64).rowThreads == 64);
  // Rank 1: one group whatever the kernel's P.
  CHECK(TileLayout::choose({4096}, 128, 8, 4).rowThreads == 128);
}

namespace {

/// The row-major element index of `shape` that position `p` of the
/// per-thread vector holds in thread (lane, group), or nullopt for padding.
std::optional<int64_t> heldElement(const TileLayout &l, int64_t p, int64_t lane,
                                   int64_t group) {
  int64_t v = p % l.vec, c = p / l.vec % l.chunks, o = p / l.vec / l.chunks;
  std::optional<int64_t> row = l.row(o, group);
  int64_t column = l.innerIndex(c, lane, v);
  if (!row || column >= l.inner)
    return std::nullopt;
  return *row * l.inner + column;
}

/// Row-major index in `from` of the element of `to` at index `e` that a
/// broadcast reads (unit dimensions of `from` take index 0).
int64_t broadcastSource(llvm::ArrayRef<int64_t> from,
                        llvm::ArrayRef<int64_t> to, int64_t e) {
  llvm::SmallVector<int64_t> coords(to.size());
  for (int64_t k = to.size() - 1; k >= 0; --k) {
    coords[k] = e % to[k];
    e /= to[k];
  }
  int64_t index = 0;
  for (size_t k = 0; k < from.size(); ++k)
    index = index * from[k] + (from[k] == 1 ? 0 : coords[k]);
  return index;
}

} // namespace

TEST_CASE("a broadcast's shuffle gives every thread the elements it holds",
          "[layout]") {
  struct Case {
    llvm::SmallVector<int64_t> from, to;
    int64_t threads, rowThreads;
    bool shuffles;
    /// The input's row threads when not the output's.
    int64_t inRowThreads = 0;
  };
  const Case cases[] = {
      {{64, 1}, {64, 64}, 128, 4, true},
      {{1, 64}, {64, 64}, 128, 4, true},
      {{1}, {256}, 128, 128, true},
      {{4, 4, 1}, {4, 4, 64}, 128, 32, true},
      {{4, 1, 64}, {4, 4, 64}, 128, 32, true},
      // [1, 8, 64] deals its 8 rows as [2, 8, 64] deals rows m of each b.
      {{1, 8, 64}, {2, 8, 64}, 32, 4, true},
      {{2, 8, 1}, {2, 8, 64}, 32, 4, true},
      {{1, 1, 1, 32}, {1, 4, 1, 32}, 128, 16, true},
      {{1, 4, 1, 32, 1}, {1, 4, 1, 32, 2}, 128, 64, true},
      // 4 rows in groups 0..3 cannot feed the 12 rows of 8 groups, nor 2
      // rows in groups 0 and 1 the 8 rows of 8 groups.
      {{1, 4, 64}, {3, 4, 64}, 32, 4, false},
      {{1, 1, 2, 32}, {1, 4, 2, 32}, 128, 16, false},
      // A [64, 1] tile with its own P = 2 (64 groups) holds its rows in
      // other threads than the [64, 64] tile's 32 groups: no shuffle.
      {{64, 1}, {64, 64}, 128, 4, false, 2},
      // One held whole by every thread feeds any layout.
      {{1, 1}, {64, 64}, 128, 4, true, 128},
  };
  for (const Case &k : cases) {
    TileLayout in = TileLayout::get(
        k.from, k.threads, 8, k.inRowThreads ? k.inRowThreads : k.rowThreads);
    TileLayout out = TileLayout::get(k.to, k.threads, 8, k.rowThreads);
    auto mask = dslc::broadcastShuffle(in, out, k.from, k.to);
    CHECK(mask.has_value() == k.shuffles);
    if (!mask)
      continue;
    REQUIRE(static_cast<int64_t>(mask->size()) == out.perThread());
    for (int64_t t = 0; t < k.threads; ++t) {
      int64_t lane = t % out.rowThreads, group = t / out.rowThreads;
      for (int64_t p = 0; p < out.perThread(); ++p) {
        std::optional<int64_t> e = heldElement(out, p, lane, group);
        if (!e)
          continue;
        std::optional<int64_t> source =
            heldElement(in, (*mask)[p], t % in.rowThreads, t / in.rowThreads);
        REQUIRE(source.has_value());
        CHECK(*source == broadcastSource(k.from, k.to, *e));
      }
    }
  }
}

TEST_CASE("every row is held where holder() says", "[layout]") {
  const llvm::SmallVector<int64_t> shapes[] = {
      {40, 64}, {8, 3, 64}, {2, 12, 64}, {1, 4, 1, 32, 2}, {3, 5, 7, 16}};
  for (const auto &shape : shapes)
    for (int64_t p : {128, 16, 4}) {
      TileLayout l = TileLayout::get(shape, 128, 8, p);
      for (int64_t g = 0; g < l.groups(); ++g)
        for (int64_t o = 0; o < l.outer; ++o)
          if (std::optional<int64_t> r = l.row(o, g)) {
            auto [at, holder] = l.holder(*r);
            CHECK(at == o);
            if (l.split)
              CHECK(holder == g);
          }
    }
}
