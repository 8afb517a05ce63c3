//===- CountFoldTest.cpp - tile.reduce's index-count fold, run -----------===//
//
// `sum(ext(index pred n))` over a tile folds to a clamp of `n - begin`
// (dialects/Tile/ReduceFolds.cpp). Each variant runs in the interpreter
// as written and after the canonicalizer: the counts must agree for every
// predicate, operand order, begin, bound and valid count, including
// bounds before, inside and past the tile and valid counts outside
// [0, extent].
//
//===----------------------------------------------------------------------===//

#include "RunIR.h"

#include <catch2/catch.hpp>

#include <string>

using dslc::sim::Buffer;
using dslc::sim::test::RunIR;

namespace {

/// A 16-element index tile from `begin`, compared with the splat bound by
/// `pred` (index on the left, or on the right when `mirrored`), widened
/// i1 -> i32 -> i64 and summed below `valid`; the count stored as i64.
/// `scalar`: the reduction's result a scalar, else a rank-0 tile.
std::string countKernel(const std::string &pred, bool mirrored, bool scalar) {
  std::string cmp = mirrored ? "%ns, %idx" : "%idx, %ns";
  std::string reduce =
      scalar ? "  %r = tile.reduce sum %w, 0 valid %v : tensor<16xi64> -> i64\n"
               "  %r1 = tile.splat %r : i64 -> tensor<1xi64>\n"
             : "  %r = tile.reduce sum %w, 0 valid %v : tensor<16xi64> -> "
               "tensor<i64>\n"
               "  %r1 = tile.reshape %r : tensor<i64> -> tensor<1xi64>\n";
  return R"(func.func @count(%out: !tile.ref<i64, 1>, %s: index, %n: index, %v: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %iota = tile.iota : tensor<16xi32>
  %s32 = arith.index_cast %s : index to i32
  %ss = tile.splat %s32 : i32 -> tensor<16xi32>
  %idx = arith.addi %iota, %ss : tensor<16xi32>
  %n32 = arith.index_cast %n : index to i32
  %ns = tile.splat %n32 : i32 -> tensor<16xi32>
  %m = arith.cmpi )" +
         pred + ", " + cmp + R"( : tensor<16xi32>
  %e = arith.extui %m : tensor<16xi1> to tensor<16xi32>
  %w = arith.extsi %e : tensor<16xi32> to tensor<16xi64>
)" + reduce +
         R"(  tile.store %r1, %out[%c0] limits[%c1] {dims = array<i64: 0>} : tensor<1xi64>, !tile.ref<i64, 1>
  return
}
)";
}

int64_t runCount(const std::string &ir, bool fold, int64_t s, int64_t n,
                 int64_t v) {
  RunIR r(ir);
  if (fold) {
    REQUIRE(r.canonicalize());
    // The fold happened: no element-wise index tile is left.
    REQUIRE(r.ir().find("tile.iota") == std::string::npos);
  }
  Buffer &out = r.bind({1});
  r.bindInt(s);
  r.bindInt(n);
  r.bindInt(v);
  INFO(r.report());
  REQUIRE(r.run());
  return out.i[0];
}

} // namespace

TEST_CASE("index counts fold to a clamp with the same value", "[fold]") {
  for (const char *pred : {"slt", "sle", "sgt", "sge"})
    for (bool mirrored : {false, true})
      for (bool scalar : {false, true}) {
        std::string ir = countKernel(pred, mirrored, scalar);
        for (int64_t s : {0, 3, 16, 40})
          for (int64_t n : {-2, 0, 5, 16, 18, 60})
            for (int64_t v : {-1, 0, 7, 16, 100}) {
              INFO(pred << (mirrored ? " mirrored" : "")
                        << (scalar ? " scalar" : "") << ": begin " << s
                        << ", bound " << n << ", valid " << v);
              int64_t want = runCount(ir, false, s, n, v);
              CHECK(runCount(ir, true, s, n, v) == want);
            }
      }
}

TEST_CASE("other reductions of a mask are left alone", "[fold]") {
  // A max of the mask (an `any`) and an unsigned comparison keep their
  // element-wise form.
  for (std::string variant : {"max", "ult"}) {
    std::string ir =
        countKernel(variant == "ult" ? "ult" : "slt", false, false);
    if (variant == "max")
      ir.replace(ir.find("reduce sum"), 10, "reduce max");
    RunIR r(ir);
    REQUIRE(r.canonicalize());
    CHECK(r.ir().find("tile.iota") != std::string::npos);
  }
}
