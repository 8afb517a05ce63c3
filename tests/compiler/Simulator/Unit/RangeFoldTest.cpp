//===- RangeFoldTest.cpp - -dslc-fold-bounds-by-range, run ----------------===//
//
// A row maximum over chunks of a compiled-in row length (MLIRGen's form of
// Helion's chunk loops under static_shapes) runs in the interpreter as
// written and after the range fold: the results must agree for row lengths
// the block divides (where the fold drops the chunk's end clamp and the
// reduction's valid count) and for those it does not (where both stay).
// The inputs are negative, so a masked element wrongly counted (loaded as
// 0) would change every row's maximum.
//
//===----------------------------------------------------------------------===//

#include "RunIR.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

using dslc::sim::test::runInToOut;
using dslc::sim::test::RunIR;

namespace {

/// out[r] = max over the row x[r, :E] of E columns (compiled in) in
/// chunks of B, one row a tile of the grid.
std::string rowMaxKernel(int64_t extent, int64_t block) {
  std::string e = std::to_string(extent), b = std::to_string(block);
  return R"(func.func @row_max(%x: !tile.ref<f32, 2> {tile.role = #tile.role<input>, tile.static_sizes = array<i64: -1, )" +
         e +
         R"(>}, %out: !tile.ref<f32, 1> {tile.role = #tile.role<output>}) attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %rows = tile.dim %x, 0 : !tile.ref<f32, 2>
  tile.grid(%rows) block [1] {
  ^bb0(%r: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cb = arith.constant )" +
         b + R"( : index
    %ce = arith.constant )" +
         e + R"( : index
    %r1 = arith.addi %r, %c1 : index
    %rend = arith.minui %r1, %rows : index
    %init = arith.constant dense<0xFF800000> : tensor<1xf32>
    %n = arith.ceildivui %ce, %cb : index
    %m = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<1xf32>) {
      %begin = arith.muli %i, %cb : index
      %next = arith.addi %begin, %cb : index
      %end = arith.minui %next, %ce : index
      %t = tile.load %x[%r, %begin] limits[%rend, %end] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<1x)" +
         b + R"(xf32>
      %size = tile.dim %x, 1 : !tile.ref<f32, 2>
      %lim = arith.minsi %end, %size : index
      %gap = arith.subi %lim, %begin : index
      %valid = arith.maxsi %gap, %c0 : index
      %v = tile.reduce max %t, 1 valid %valid : tensor<1x)" +
         b + R"(xf32> -> tensor<1xf32>
      %a = arith.maximumf %acc, %v : tensor<1xf32>
      scf.yield %a : tensor<1xf32>
    }
    tile.store %m, %out[%r] limits[%rend] {dims = array<i64: 0>} : tensor<1xf32>, !tile.ref<f32, 1>
  }
  return
}
)";
}

} // namespace

TEST_CASE("chunk loops over compiled-in rows fold and compute the same",
          "[fold]") {
  const int64_t rows = 3;
  for (auto [extent, block] : {std::pair<int64_t, int64_t>{64, 16},
                               {64, 64},
                               {48, 16},
                               {70, 16},
                               {17, 16},
                               {5, 16}}) {
    CAPTURE(extent, block);
    // Negative values, distinct per row, the maximum in the last column
    // (integers: exact in f32).
    std::vector<double> x(static_cast<size_t>(rows * extent));
    std::vector<double> want(static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < extent; ++c)
        x[size_t(r * extent + c)] = -1000.0 - double(r) - double(extent - c);
      want[size_t(r)] = x[size_t(r * extent + extent - 1)];
    }
    std::string ir = rowMaxKernel(extent, block);
    std::string folded;
    CHECK(runInToOut(ir, nullptr, {rows, extent}, x, {rows}) == want);
    CHECK(runInToOut(ir, &RunIR::foldBoundsByRange, {rows, extent}, x, {rows},
                     &folded) == want);
    // Where the block divides the row, the fold leaves no valid count and
    // no clamp of a chunk's end in the loop; otherwise the last chunk
    // keeps its valid count.
    bool whole = extent % block == 0;
    CHECK((folded.find(" valid ") == std::string::npos) == whole);
    if (whole) {
      size_t loop = folded.find("scf.for");
      CHECK((loop == std::string::npos ||
             folded.find("arith.minui", loop) == std::string::npos));
    }
  }
}
