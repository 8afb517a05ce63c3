//===- InterpreterTest.cpp - The interpreter on small Tile IR -------------===//
//
// Each case runs one function of Tile IR as one CTA and checks the buffers
// it stored: broadcasting, reshapes, reductions along any dimension with
// masked tails, math, comparisons and selects, and fp8 conversions.
//
//===----------------------------------------------------------------------===//

#include "RunIR.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace dslc::sim;
using dslc::sim::test::RunIR;

namespace {

/// A module with one kernel: `sig` are its arguments, `body` its ops
/// (`%c0`, `%c1`, ... `%c8` are index constants).
std::string kernel(const std::string &sig, const std::string &body) {
  std::string consts;
  for (int c : {0, 1, 2, 3, 4, 8})
    consts += "  %c" + std::to_string(c) + " = arith.constant " +
              std::to_string(c) + " : index\n";
  return "func.func @k(" + sig + ") {\n" + consts + body + "  return\n}\n";
}

} // namespace

TEST_CASE("broadcast a column and a row against a 2-d tile", "[tile]") {
  RunIR r(kernel(
      "%x: !tile.ref<f32, 2>, %w: !tile.ref<f32, 1>, %col: !tile.ref<f32, 1>, "
      "%out: !tile.ref<f32, 2>",
      R"(
  %x0 = tile.load %x[%c0, %c0] limits[%c2, %c4] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<2x4xf32>
  %w0 = tile.load %w[%c0] limits[%c4] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<4xf32>
  %w1 = tile.reshape %w0 : tensor<4xf32> -> tensor<1x4xf32>
  %w2 = tile.broadcast %w1 : tensor<1x4xf32> -> tensor<2x4xf32>
  %c_0 = tile.load %col[%c0] limits[%c2] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<2xf32>
  %c_1 = tile.reshape %c_0 : tensor<2xf32> -> tensor<2x1xf32>
  %c_2 = tile.broadcast %c_1 : tensor<2x1xf32> -> tensor<2x4xf32>
  %p = arith.mulf %x0, %w2 : tensor<2x4xf32>
  %s = arith.addf %p, %c_2 : tensor<2x4xf32>
  tile.store %s, %out[%c0, %c0] limits[%c2, %c4] {dims = array<i64: 0, 1>} : tensor<2x4xf32>, !tile.ref<f32, 2>
)"));
  r.bind({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  r.bind({4}, {1, 10, 100, 1000});
  r.bind({2}, {0.5, -0.5});
  Buffer &out = r.bind({2, 4});
  REQUIRE(r.run());
  CHECK(out.f == std::vector<double>{1.5, 20.5, 300.5, 4000.5, 4.5, 59.5, 699.5,
                                     7999.5});
}

TEST_CASE("reduce along the last and the leading dimension", "[reduce]") {
  RunIR r(kernel("%x: !tile.ref<f32, 2>, %rows: !tile.ref<f32, 2>, %cols: "
                 "!tile.ref<f32, 1>, %mx: !tile.ref<f32, 1>",
                 R"(
  %x0 = tile.load %x[%c0, %c0] limits[%c2, %c4] {dims = array<i64: 0, 1>} : !tile.ref<f32, 2> -> tensor<2x4xf32>
  %r = tile.reduce sum %x0, 1 : tensor<2x4xf32> -> tensor<2x1xf32>
  tile.store %r, %rows[%c0, %c0] limits[%c2, %c1] {dims = array<i64: 0, 1>} : tensor<2x1xf32>, !tile.ref<f32, 2>
  %c = tile.reduce min %x0, 0 : tensor<2x4xf32> -> tensor<4xf32>
  tile.store %c, %cols[%c0] limits[%c4] {dims = array<i64: 0>} : tensor<4xf32>, !tile.ref<f32, 1>
  %flat = tile.load %x[%c1, %c0] limits[%c2, %c4] {dims = array<i64: 1>} : !tile.ref<f32, 2> -> tensor<4xf32>
  %m = tile.reduce max %flat, 0 : tensor<4xf32> -> f32
  %ms = tile.splat %m : f32 -> tensor<1xf32>
  tile.store %ms, %mx[%c0] limits[%c1] {dims = array<i64: 0>} : tensor<1xf32>, !tile.ref<f32, 1>
)"));
  r.bind({2, 4}, {1, -2, 3, 4, -5, 6, 7, 8});
  Buffer &rows = r.bind({2, 1});
  Buffer &cols = r.bind({4});
  Buffer &mx = r.bind({1});
  REQUIRE(r.run());
  CHECK(rows.f == std::vector<double>{6, 16});
  CHECK(cols.f == std::vector<double>{-5, -2, 3, 4});
  CHECK(mx.f == std::vector<double>{8});
}

TEST_CASE("reduce with a valid count: the tail contributes the identity",
          "[reduce]") {
  RunIR r(kernel("%x: !tile.ref<f32, 1>, %n: index, %out: !tile.ref<f32, 1>",
                 R"(
  %x0 = tile.load %x[%c0] limits[%c8] {dims = array<i64: 0>, other = 7.0 : f32} : !tile.ref<f32, 1> -> tensor<8xf32>
  %s = tile.reduce sum %x0, 0 valid %n : tensor<8xf32> -> tensor<1xf32>
  %p = tile.reduce prod %x0, 0 valid %n : tensor<8xf32> -> tensor<1xf32>
  %mx = tile.reduce max %x0, 0 valid %n : tensor<8xf32> -> tensor<1xf32>
  %mn = tile.reduce min %x0, 0 valid %n : tensor<8xf32> -> tensor<1xf32>
  tile.store %s, %out[%c0] limits[%c1] {dims = array<i64: 0>} : tensor<1xf32>, !tile.ref<f32, 1>
  tile.store %p, %out[%c1] limits[%c2] {dims = array<i64: 0>} : tensor<1xf32>, !tile.ref<f32, 1>
  tile.store %mx, %out[%c2] limits[%c3] {dims = array<i64: 0>} : tensor<1xf32>, !tile.ref<f32, 1>
  tile.store %mn, %out[%c3] limits[%c4] {dims = array<i64: 0>} : tensor<1xf32>, !tile.ref<f32, 1>
)"));
  // Five elements; the load pads with 7, which `valid` = 5 must ignore.
  r.bind({5}, {-1, 2, -3, 0.5, 1});
  SECTION("valid 5") {
    r.bindInt(5);
    Buffer &out = r.bind({4});
    REQUIRE(r.run());
    CHECK(out.f == std::vector<double>{-0.5, 3, 2, -3});
  }
  SECTION("valid 0: every identity") {
    r.bindInt(0);
    Buffer &out = r.bind({4});
    REQUIRE(r.run());
    CHECK(out.f == std::vector<double>{0, 1, -INFINITY, INFINITY});
  }
}

TEST_CASE("bool reductions are any/all; integers wrap", "[reduce]") {
  RunIR r(kernel("%x: !tile.ref<i32, 1>, %out: !tile.ref<i32, 1>",
                 R"(
  %x0 = tile.load %x[%c0] limits[%c4] {dims = array<i64: 0>} : !tile.ref<i32, 1> -> tensor<4xi32>
  %z = arith.constant dense<0> : tensor<4xi32>
  %pos = arith.cmpi sgt, %x0, %z : tensor<4xi32>
  %any = tile.reduce max %pos, 0 : tensor<4xi1> -> tensor<1xi1>
  %all = tile.reduce min %pos, 0 : tensor<4xi1> -> tensor<1xi1>
  %a32 = arith.extui %any : tensor<1xi1> to tensor<1xi32>
  %l32 = arith.extui %all : tensor<1xi1> to tensor<1xi32>
  %s = tile.reduce sum %x0, 0 : tensor<4xi32> -> tensor<1xi32>
  tile.store %a32, %out[%c0] limits[%c1] {dims = array<i64: 0>} : tensor<1xi32>, !tile.ref<i32, 1>
  tile.store %l32, %out[%c1] limits[%c2] {dims = array<i64: 0>} : tensor<1xi32>, !tile.ref<i32, 1>
  tile.store %s, %out[%c2] limits[%c3] {dims = array<i64: 0>} : tensor<1xi32>, !tile.ref<i32, 1>
)"));
  r.bind({4}, {2147483647, 1, 5, 0});
  Buffer &out = r.bind({3});
  REQUIRE(r.run());
  CHECK(out.i == std::vector<int64_t>{1, 0, -2147483643});
}

TEST_CASE("f32 reductions round every combination in f32", "[reduce]") {
  // [1, 2^-24, 2^-24, 0]: the tree adds (1 + 2^-24) + (2^-24 + 0); in f32
  // each 2^-24 is lost against 1 (a tie, to even), while a double
  // accumulation would keep 1 + 2^-23, which f32 holds.
  RunIR r(kernel("%x: !tile.ref<f32, 1>, %out: !tile.ref<f32, 1>",
                 R"(
  %x0 = tile.load %x[%c0] limits[%c4] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<4xf32>
  %s = tile.reduce sum %x0, 0 : tensor<4xf32> -> tensor<1xf32>
  tile.store %s, %out[%c0] limits[%c1] {dims = array<i64: 0>} : tensor<1xf32>, !tile.ref<f32, 1>
)"));
  double u = std::ldexp(1.0, -24);
  r.bind({4}, {1, u, u, 0});
  Buffer &out = r.bind({1});
  REQUIRE(r.run());
  CHECK(out.f[0] == 1.0);
}

TEST_CASE("math, maximumf with NaN, compare and select", "[math]") {
  RunIR r(kernel("%x: !tile.ref<f32, 1>, %out: !tile.ref<f32, 1>",
                 R"(
  %x0 = tile.load %x[%c0] limits[%c4] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<4xf32>
  %r = math.rsqrt %x0 : tensor<4xf32>
  %q = math.sqrt %x0 : tensor<4xf32>
  %e = math.exp %x0 : tensor<4xf32>
  %l = math.log %x0 : tensor<4xf32>
  %a = math.absf %x0 : tensor<4xf32>
  %nan = arith.constant dense<0x7FC00000> : tensor<4xf32>
  %m = arith.maximumf %x0, %nan : tensor<4xf32>
  %two = arith.constant dense<2.0> : tensor<4xf32>
  %big = arith.cmpf ogt, %x0, %two : tensor<4xf32>
  %sel = arith.select %big, %q, %a : tensor<4xi1>, tensor<4xf32>
  tile.store %r, %out[%c0] limits[%c8] {dims = array<i64: 0>} : tensor<4xf32>, !tile.ref<f32, 1>
  tile.store %e, %out[%c4] limits[%c8] {dims = array<i64: 0>} : tensor<4xf32>, !tile.ref<f32, 1>
  %c12 = arith.constant 12 : index
  %c16 = arith.constant 16 : index
  %c20 = arith.constant 20 : index
  tile.store %l, %out[%c8] limits[%c12] {dims = array<i64: 0>} : tensor<4xf32>, !tile.ref<f32, 1>
  tile.store %m, %out[%c12] limits[%c16] {dims = array<i64: 0>} : tensor<4xf32>, !tile.ref<f32, 1>
  tile.store %sel, %out[%c16] limits[%c20] {dims = array<i64: 0>} : tensor<4xf32>, !tile.ref<f32, 1>
)"));
  r.bind({4}, {4, 1, 9, 0.25});
  Buffer &out = r.bind({20});
  REQUIRE(r.run());
  CHECK(out.f[0] == 0.5);
  CHECK(out.f[2] == double(float(1.0 / 3.0)));
  CHECK(out.f[3] == 2.0);
  CHECK(out.f[4] == double(std::exp(4.0f)));
  CHECK(out.f[5] == double(float(std::exp(1.0))));
  CHECK(out.f[9] == 0.0);
  CHECK(out.f[10] == double(float(std::log(9.0))));
  for (int k = 12; k < 16; ++k)
    CHECK(std::isnan(out.f[k]));
  CHECK(out.f[16] == 2.0); // sqrt(4): 4 > 2
  CHECK(out.f[17] == 1.0); // |1|
  CHECK(out.f[18] == 3.0);
  CHECK(out.f[19] == 0.25);
}

TEST_CASE("bf16 math computes in f32 and rounds once", "[math]") {
  RunIR r(kernel("%x: !tile.ref<bf16, 1>, %out: !tile.ref<bf16, 1>",
                 R"(
  %x0 = tile.load %x[%c0] limits[%c2] {dims = array<i64: 0>} : !tile.ref<bf16, 1> -> tensor<2xbf16>
  %e = math.exp %x0 : tensor<2xbf16>
  tile.store %e, %out[%c0] limits[%c2] {dims = array<i64: 0>} : tensor<2xbf16>, !tile.ref<bf16, 1>
)"));
  r.bind({2}, {1, -1});
  Buffer &out = r.bind({2});
  REQUIRE(r.run());
  CHECK(out.f[0] == 2.71875); // e in bf16
  CHECK(out.f[1] == roundFloat(ElemType::Kind::BF16, std::exp(-1.0)));
}

TEST_CASE("fp8 truncf saturates like cvt.rn.satfinite, extf is exact",
          "[fp8]") {
  RunIR r(kernel("%x: !tile.ref<f32, 1>, %q: !tile.ref<f8E4M3FN, 1>, %back: "
                 "!tile.ref<f32, 1>, %q5: !tile.ref<f8E5M2, 1>",
                 R"(
  %x0 = tile.load %x[%c0] limits[%c4] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<4xf32>
  %t = arith.truncf %x0 : tensor<4xf32> to tensor<4xf8E4M3FN>
  tile.store %t, %q[%c0] limits[%c4] {dims = array<i64: 0>} : tensor<4xf8E4M3FN>, !tile.ref<f8E4M3FN, 1>
  %h = arith.extf %t : tensor<4xf8E4M3FN> to tensor<4xf16>
  %f = arith.extf %h : tensor<4xf16> to tensor<4xf32>
  tile.store %f, %back[%c0] limits[%c4] {dims = array<i64: 0>} : tensor<4xf32>, !tile.ref<f32, 1>
  %t5 = arith.truncf %x0 : tensor<4xf32> to tensor<4xf8E5M2>
  tile.store %t5, %q5[%c0] limits[%c4] {dims = array<i64: 0>} : tensor<4xf8E5M2>, !tile.ref<f8E5M2, 1>
)"));
  r.bind({4}, {0.1, 1000, -INFINITY, NAN});
  Buffer &q = r.bind({4});
  Buffer &back = r.bind({4});
  Buffer &q5 = r.bind({4});
  REQUIRE(r.run());
  CHECK(q.f[0] == 0.1015625);
  CHECK(q.f[1] == 448);
  CHECK(q.f[2] == -448);
  CHECK(std::isnan(q.f[3]));
  CHECK(back.f[0] == 0.1015625);
  CHECK(back.f[1] == 448);
  CHECK(std::isnan(back.f[3]));
  CHECK(q5.f[1] == 1024);
  CHECK(q5.f[2] == -57344);
}

TEST_CASE("float to integer saturates, NaN is 0", "[arith]") {
  RunIR r(kernel("%x: !tile.ref<f32, 1>, %out: !tile.ref<i32, 1>",
                 R"(
  %x0 = tile.load %x[%c0] limits[%c4] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<4xf32>
  %i = arith.fptosi %x0 : tensor<4xf32> to tensor<4xi32>
  tile.store %i, %out[%c0] limits[%c4] {dims = array<i64: 0>} : tensor<4xi32>, !tile.ref<i32, 1>
)"));
  r.bind({4}, {-2.7, 1e20, -1e20, NAN});
  Buffer &out = r.bind({4});
  REQUIRE(r.run());
  CHECK(out.i == std::vector<int64_t>{-2, 2147483647, -2147483648LL, 0});
}

TEST_CASE("an op the simulator does not know is reported", "[arith]") {
  RunIR r(kernel("%x: !tile.ref<f32, 1>", R"(
  %x0 = tile.load %x[%c0] limits[%c1] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<1xf32>
  %c = math.cbrt %x0 : tensor<1xf32>
)"));
  r.bind({1}, {8});
  CHECK_FALSE(r.run());
  CHECK_THAT(r.report(),
             Catch::Contains("the simulator does not support 'math.cbrt'"));
}

TEST_CASE("integer ops at the operand's width", "[arith]") {
  RunIR r(kernel("%x: !tile.ref<i32, 1>, %out: !tile.ref<i32, 1>",
                 R"(
  %x0 = tile.load %x[%c0] limits[%c2] {dims = array<i64: 0>} : !tile.ref<i32, 1> -> tensor<2xi32>
  %four = arith.constant dense<4> : tensor<2xi32>
  %m1 = arith.constant dense<-1> : tensor<2xi32>
  %u = arith.shrui %x0, %four : tensor<2xi32>
  %d = arith.divsi %x0, %m1 : tensor<2xi32>
  %q = arith.divui %x0, %four : tensor<2xi32>
  tile.store %u, %out[%c0] limits[%c2] {dims = array<i64: 0>} : tensor<2xi32>, !tile.ref<i32, 1>
  tile.store %d, %out[%c2] limits[%c4] {dims = array<i64: 0>} : tensor<2xi32>, !tile.ref<i32, 1>
  %c6 = arith.constant 6 : index
  tile.store %q, %out[%c4] limits[%c6] {dims = array<i64: 0>} : tensor<2xi32>, !tile.ref<i32, 1>
)"));
  r.bind({2}, {-1, -2147483648.0});
  Buffer &out = r.bind({6});
  REQUIRE(r.run());
  // -1 >> 4 unsigned is 0x0fffffff; INT_MIN / -1 wraps to INT_MIN.
  CHECK(out.i == std::vector<int64_t>{0x0fffffff, 0x08000000, 1, -2147483648LL,
                                      0x3fffffff, 0x20000000});
}

TEST_CASE("scf.if takes one branch and yields its values", "[if]") {
  // For k = 0..3: acc += x[k] when k < n (an if with results inside a
  // loop, the loop's carried value through it); out[0] = acc; then an if
  // without else stores 7 into flag[0] only when n > 2.
  RunIR r(kernel("%x: !tile.ref<f32, 1>, %out: !tile.ref<f32, 1>, %flag: "
                 "!tile.ref<f32, 1>, %n: index",
                 R"(
  %z = arith.constant dense<0.0> : tensor<1xf32>
  %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%a = %z) -> (tensor<1xf32>) {
    %take = arith.cmpi slt, %k, %n : index
    %kn = arith.addi %k, %c1 : index
    %r = scf.if %take -> (tensor<1xf32>) {
      %v = tile.load %x[%k] limits[%kn] {dims = array<i64: 0>} : !tile.ref<f32, 1> -> tensor<1xf32>
      %s = arith.addf %a, %v : tensor<1xf32>
      scf.yield %s : tensor<1xf32>
    } else {
      scf.yield %a : tensor<1xf32>
    }
    scf.yield %r : tensor<1xf32>
  }
  tile.store %acc, %out[%c0] limits[%c1] {dims = array<i64: 0>} : tensor<1xf32>, !tile.ref<f32, 1>
  %big = arith.cmpi sgt, %n, %c2 : index
  scf.if %big {
    %seven = arith.constant dense<7.0> : tensor<1xf32>
    tile.store %seven, %flag[%c0] limits[%c1] {dims = array<i64: 0>} : tensor<1xf32>, !tile.ref<f32, 1>
  }
)"));
  SECTION("n = 2: two terms, no flag") {
    r.bind({4}, {1, 10, 100, 1000});
    Buffer &out = r.bind({1});
    Buffer &flag = r.bind({1});
    r.bindInt(2);
    REQUIRE(r.run());
    CHECK(out.f == std::vector<double>{11});
    CHECK(flag.f == std::vector<double>{0});
  }
  SECTION("n = 3: three terms and the flag") {
    r.bind({4}, {1, 10, 100, 1000});
    Buffer &out = r.bind({1});
    Buffer &flag = r.bind({1});
    r.bindInt(3);
    REQUIRE(r.run());
    CHECK(out.f == std::vector<double>{111});
    CHECK(flag.f == std::vector<double>{7});
  }
}
