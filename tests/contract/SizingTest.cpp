//===- SizingTest.cpp - Tile counts, pad shapes and LL scratch ------------===//
#include "contract/Sizing.h"
#include "tests/contract/ArgBuilders.h"

#include <catch2/catch.hpp>

using namespace dslc::contract;
using dslc::contract::test::tensor;

namespace {
/// The shape of the LL two-shot example: a grid over ceil(N / W) with
/// blocks of 1024 bf16, two ll_put calls into the scratch.
KernelMetadata llTwoShot(int world) {
  KernelMetadata md;
  md.kernel = "ll";
  ArgSpec scratch = tensor("scratch", DType::Int64, 1, Role::Scratch);
  scratch.packets = {2, 1024 * 2 * 2}; // 16-byte packets carry 8 data bytes
  md.args = {tensor("a", DType::BFloat16, 1, Role::Input), scratch};
  GridExtent g;
  g.param = "a";
  g.add = world - 1;
  g.div = world;
  g.block = 1024;
  md.grid = {g};
  return md;
}

Expected<int64_t> sizeOfA(const KernelMetadata &md, int64_t n) {
  return numTiles(md,
                  [&](const GridExtent &) -> Expected<int64_t> { return n; });
}
} // namespace

TEST_CASE("sizing: tile counts with add and div", "[contract][sizing]") {
  KernelMetadata md = llTwoShot(2);
  CHECK(*sizeOfA(md, 1) == 1);
  CHECK(*sizeOfA(md, 2048) == 1);
  CHECK(*sizeOfA(md, 2049) == 2);
  CHECK(*sizeOfA(md, 65539) == 33);
  GridExtent c;
  c.constant = 5;
  c.block = 2;
  md.grid.push_back(c);
  CHECK(*sizeOfA(md, 2049) == 6);
  Expected<int64_t> missing =
      numTiles(md, [](const GridExtent &) -> Expected<int64_t> {
        return Failure{"'a' is not bound"};
      });
  CHECK(missing.error() == "'a' is not bound");
  md.grid = {c, c};
  md.grid[0].constant = INT64_MAX;
  md.grid[0].block = 1;
  CHECK(sizeOfA(md, 0).error() == "kernel ll: grid tile count overflows");
}

TEST_CASE("sizing: pads take what the constraints say", "[contract][sizing]") {
  KernelMetadata md;
  md.kernel = "k";
  md.args = {tensor("pad", DType::Int32, 2, Role::SignalPad),
             tensor("free", DType::Int32, 2, Role::SignalPad)};
  md.constraints = {{"pad", 1, "==", int64_t(4)},
                    {"pad", 0, ">=", NumTiles{}},
                    {"pad", 0, ">=", int64_t(3)}};
  CHECK(constrainedShape(md, 0, 2, 7) == std::vector<int64_t>{7, 4});
  CHECK(constrainedShape(md, 0, 2, 1) == std::vector<int64_t>{3, 4});
  // Unconstrained: a row per tile, a column per rank, never empty.
  CHECK(constrainedShape(md, 1, 8, 5) == std::vector<int64_t>{5, 8});
  CHECK(constrainedShape(md, 1, 8, 0) == std::vector<int64_t>{1, 8});
  CHECK(constrainedSize(md, 0, 1, 9) == std::optional<int64_t>(4));
  CHECK_FALSE(constrainedSize(md, 1, 0, 9));
}

TEST_CASE("sizing: specialized sizes are the integer == constraints",
          "[contract][sizing]") {
  KernelMetadata md;
  md.kernel = "k";
  md.args = {tensor("x", DType::BFloat16, 2, Role::Input),
             tensor("pad", DType::Int32, 2, Role::SignalPad)};
  CHECK(specializedSizes(md).empty());
  CHECK(specializedSizesJson({}) == "[]");
  md.constraints = {{"x", 1, "==", int64_t(8192)},
                    {"x", 0, ">=", int64_t(1)},
                    {"pad", 0, "==", NumTiles{}},
                    {"pad", 1, "==", int64_t(2)},
                    {"x", 1, "==", int64_t(8192)}};
  std::vector<SpecializedSize> want = {{"x", 1, 8192}, {"pad", 1, 2}};
  CHECK(specializedSizes(md) == want);
  CHECK(specializedSizesJson(want) == R"([["x", 1, 8192], ["pad", 1, 2]])");
}

TEST_CASE("sizing: LL scratch bytes", "[contract][sizing]") {
  // Two parities x two regions x world senders x tiles x packet tile: for
  // the fused two-shot at N = 65539 on 2 ranks, 33 tiles of 4 KiB packets.
  KernelMetadata md = llTwoShot(2);
  int64_t tiles = *sizeOfA(md, 65539);
  CHECK(*llScratchBytes(md, 1, 2, tiles) == 2 * 2 * 2 * 33 * 4096);
  // Half of 8 x world x roundUp(N, block) x element size (what the LL
  // one-shot needs) is too small there.
  CHECK(*llScratchBytes(md, 1, 2, tiles) >
        8 * 2 * ((65539 + 1023) / 1024 * 1024) * 2 / 2);
  CHECK(llScratchBytes(md, 0, 2, tiles).error() ==
        "kernel ll: 'a' is not an LL scratch with packets");
  md.args[1].packets.tileBytes = INT64_MAX / 4;
  CHECK(llScratchBytes(md, 1, 2, tiles).error() ==
        "kernel ll: the LL scratch 'scratch' for 33 tiles and 2 ranks "
        "overflows 64 bits");
}
