//===- SplitJoinTest.cpp - -dslc-split-join-at-memory, run ----------------===//
//
// Rotate-half (Helion's rope idiom) in MLIRGen's form: a row of D = 2h
// loaded, reshaped to [2, h], its last two dimensions swapped, hl.split
// (sums masked by iota == 0 and its complement), then hl.join(-second,
// first) swapped back, merged and stored. Run in the interpreter as
// written and after the pass (halves loaded and stored in place): both
// must give out[r, j] = -x[r, h + j] and out[r, h + j] = x[r, j] on the
// elements the limits let through, with a partial last tile of rows and a
// column limit below D (the masked tail: elements past it read as 0 and
// are not written).
//
//===----------------------------------------------------------------------===//

#include "RunIR.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using dslc::sim::test::runInToOut;
using dslc::sim::test::RunIR;

namespace {

/// The kernel over rows of `d` columns, `limit` of them loaded and stored.
std::string rotateKernel(int64_t d, int64_t limit) {
  std::string h = std::to_string(d / 2), n = std::to_string(d),
              l = std::to_string(limit);
  std::string row = "2x" + n + "xf32", halves = "2x2x" + h + "xf32",
              pair = "2x" + h + "x2xf32", half = "2x" + h + "xf32",
              col = "2x" + h + "x1xf32", mask = "2x" + h + "x2xi1",
              idx = "2x" + h + "x2xi32";
  return R"(func.func @rotate(%x: !tile.ref<f32, 2> {tile.role = #tile.role<input>}, %out: !tile.ref<f32, 2> {tile.role = #tile.role<output>}) attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %rows = tile.dim %x, 0 : !tile.ref<f32, 2>
  tile.grid(%rows) block [2] {
  ^bb0(%r: index):
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %cl = arith.constant )" +
         l + R"( : index
    %begin = arith.muli %r, %c2 : index
    %next = arith.addi %begin, %c2 : index
    %end = arith.minui %next, %rows : index
    %zero = arith.constant dense<0.000000e+00> : tensor<)" +
         pair + R"(>
    %k0 = arith.constant dense<0> : tensor<)" +
         idx + R"(>
    %l = tile.load %x[%begin, %c0] limits[%end, %cl] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<)" +
         row + R"(>
    %rs = tile.reshape %l : tensor<)" +
         row + "> -> tensor<" + halves + R"(>
    %p = tile.transpose %rs [0, 2, 1] : tensor<)" +
         halves + "> -> tensor<" + pair + R"(>
    %i = tile.iota : tensor<2xi32>
    %ir = tile.reshape %i : tensor<2xi32> -> tensor<1x1x2xi32>
    %ib = tile.broadcast %ir : tensor<1x1x2xi32> -> tensor<)" +
         idx + R"(>
    %m = arith.cmpi eq, %ib, %k0 : tensor<)" +
         idx + R"(>
    %s0 = arith.select %m, %p, %zero : tensor<)" +
         mask + ">, tensor<" + pair + R"(>
    %a = tile.reduce sum %s0, 2 : tensor<)" +
         pair + "> -> tensor<" + half + R"(>
    %s1 = arith.select %m, %zero, %p : tensor<)" +
         mask + ">, tensor<" + pair + R"(>
    %b = tile.reduce sum %s1, 2 : tensor<)" +
         pair + "> -> tensor<" + half + R"(>
    %nb = arith.negf %b : tensor<)" +
         half + R"(>
    %nbr = tile.reshape %nb : tensor<)" +
         half + "> -> tensor<" + col + R"(>
    %nbb = tile.broadcast %nbr : tensor<)" +
         col + "> -> tensor<" + pair + R"(>
    %ar = tile.reshape %a : tensor<)" +
         half + "> -> tensor<" + col + R"(>
    %ab = tile.broadcast %ar : tensor<)" +
         col + "> -> tensor<" + pair + R"(>
    %j = arith.select %m, %nbb, %ab : tensor<)" +
         mask + ">, tensor<" + pair + R"(>
    %t = tile.transpose %j [0, 2, 1] : tensor<)" +
         pair + "> -> tensor<" + halves + R"(>
    %o = tile.reshape %t : tensor<)" +
         halves + "> -> tensor<" + row + R"(>
    tile.store %o, %out[%begin, %c0] limits[%end, %cl] {dims = array<i64: 0, 1>} : tensor<)" +
         row + R"(>, !tile.ref<f32, 2>
  }
  return
}
)";
}

} // namespace

TEST_CASE("hl.split/hl.join of a row: halves in memory compute the same",
          "[splitjoin]") {
  const int64_t rows = 5; // tiles of 2 rows: the last one partial
  for (auto [d, limit] :
       {std::pair<int64_t, int64_t>{16, 16}, {16, 13}, {16, 6}, {8, 8}}) {
    CAPTURE(d, limit);
    int64_t h = d / 2;
    std::vector<double> x(size_t(rows * d));
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = 1.0 + double(i);
    // Unwritten elements stay 0 (the output buffer starts zeroed).
    std::vector<double> want(x.size(), 0.0);
    auto in = [&](int64_t r, int64_t c) {
      return c < limit ? x[size_t(r * d + c)] : 0.0;
    };
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < h; ++j) {
        if (j < limit)
          want[size_t(r * d + j)] = -in(r, h + j);
        if (h + j < limit)
          want[size_t(r * d + h + j)] = in(r, j);
      }
    std::string ir = rotateKernel(d, limit), rewritten;
    CHECK(runInToOut(ir, nullptr, {rows, d}, x, {rows, d}) == want);
    CHECK(runInToOut(ir, &RunIR::splitJoinAtMemory, {rows, d}, x, {rows, d},
                     &rewritten) == want);
    // The pass left no transposed tile and no masked sum.
    CHECK(rewritten.find("tile.transpose") == std::string::npos);
    CHECK(rewritten.find("tile.reduce") == std::string::npos);
  }
}
