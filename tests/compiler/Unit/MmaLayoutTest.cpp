//===- MmaLayoutTest.cpp - Tensor-core fragments against PTX's tables -----===//
//
// The lowering of a tensor-core dot (MmaLowering.cpp) takes every address
// and register position from MmaLayout. Here the warps of a CTA run on the
// CPU as PTX's ISA defines ldmatrix and mma.sync.m16n8k16 (the fragment
// tables are written out below from the PTX ISA, independently of
// MmaLayout), reading operands staged as MmaLayout says; every element of
// every thread's accumulator must then be the matrix product at the row
// and column MmaLayout::element names. Small integers keep it exact.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/MmaLayout.h"

#include <catch2/catch.hpp>

#include <array>
#include <vector>

using dslc::MmaLayout;

namespace {

/// Two 16-bit elements of a 32-bit register, as PTX packs them (the lower
/// column or row first).
using Reg = std::array<double, 2>;

/// A staged row-major matrix: `rows` x `cols` values `pitch` apart.
struct Staged {
  int64_t rows, cols, pitch;
  std::vector<double> data;
  Staged(int64_t rows, int64_t cols, int64_t pitch)
      : rows(rows), cols(cols), pitch(pitch), data(rows * pitch, 0.0) {}
  double &at(int64_t r, int64_t c) { return data[r * pitch + c]; }
};

/// ldmatrix.sync.aligned.m8n8.x4(.trans).b16: `rowAddress[l]` is the
/// (row, column) whose 8 elements lane l names, matrix l / 8 row l % 8.
/// Without .trans lane t gets row t / 4, columns 2 (t % 4) + {0, 1} of each
/// matrix; with it, rows 2 (t % 4) + {0, 1} of column t / 4.
std::array<std::array<Reg, 4>, 32>
ldmatrix(Staged &s,
         const std::array<std::pair<int64_t, int64_t>, 32> &rowAddress,
         bool trans) {
  std::array<std::array<Reg, 4>, 32> out{};
  for (int64_t q = 0; q < 4; ++q)
    for (int64_t t = 0; t < 32; ++t)
      for (int64_t e = 0; e < 2; ++e) {
        int64_t row = trans ? 2 * (t % 4) + e : t / 4;
        int64_t col = trans ? t / 4 : 2 * (t % 4) + e;
        auto [r0, c0] = rowAddress[q * 8 + row];
        out[t][q][e] = s.at(r0, c0 + col);
      }
  return out;
}

/// mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 on one warp: PTX's
/// fragment tables for A (a0..a7 in four registers), B (b0..b3 in two) and
/// C/D (c0..c3), groupID g = lane / 4, threadID_in_group t = lane % 4.
void mma(const std::array<std::array<Reg, 4>, 32> &a,
         const std::array<std::array<Reg, 2>, 32> &b,
         std::array<std::array<double, 4>, 32> &c) {
  double A[16][16] = {}, B[16][8] = {};
  for (int64_t lane = 0; lane < 32; ++lane) {
    int64_t g = lane / 4, t = lane % 4;
    for (int64_t i = 0; i < 8; ++i) {
      int64_t row = g + ((i / 2) % 2) * 8;
      int64_t col = t * 2 + (i % 2) + (i >= 4 ? 8 : 0);
      A[row][col] = a[lane][i / 2][i % 2];
    }
    for (int64_t i = 0; i < 4; ++i)
      B[t * 2 + (i % 2) + (i >= 2 ? 8 : 0)][g] = b[lane][i / 2][i % 2];
  }
  for (int64_t lane = 0; lane < 32; ++lane) {
    int64_t g = lane / 4, t = lane % 4;
    for (int64_t i = 0; i < 4; ++i) {
      int64_t row = g + (i >= 2 ? 8 : 0), col = t * 2 + i % 2;
      for (int64_t k = 0; k < 16; ++k)
        c[lane][i] += A[row][k] * B[k][col];
    }
  }
}

/// Runs a CTA's tensor-core dot of [batch x] [m, k] x [k, n] at `warps`
/// warps on the CPU as the lowering emits it (a batch's matrices staged one
/// after another; rhs staged [n, k] and read untransposed when
/// `transposed`) and checks every accumulator element.
void checkDot(int64_t m, int64_t n, int64_t k, int64_t warps, int64_t batch = 1,
              bool transposed = false) {
  std::optional<MmaLayout> layout =
      MmaLayout::chooseBatched(batch, m, n, warps);
  REQUIRE(layout);
  int64_t kp = MmaLayout::paddedK(k);
  Staged a(batch * m, kp, MmaLayout::pitchFor(kp, 2));
  Staged b(batch * kp, n, MmaLayout::pitchFor(n, 2));
  Staged bt(batch * n, kp, MmaLayout::pitchFor(kp, 2));
  for (int64_t q = 0; q < batch; ++q) {
    for (int64_t r = 0; r < m; ++r)
      for (int64_t c = 0; c < k; ++c)
        a.at(q * m + r, c) = (r * 7 + c * 3 + q * 5) % 11 - 5;
    for (int64_t r = 0; r < k; ++r)
      for (int64_t c = 0; c < n; ++c)
        bt.at(q * n + c, r) = b.at(q * kp + r, c) = (r * 5 + c * 2 + q) % 9 - 4;
  }
  for (int64_t w = 0; w < warps; ++w) {
    auto [row0, col0] = layout->warpOrigin(w);
    int64_t first = layout->warpMatrix(w);
    std::vector<std::array<std::array<double, 4>, 32>> acc(
        layout->perThread() / MmaLayout::kPerFragment);
    for (int64_t q = 0; q < layout->matricesPerWarp(); ++q)
      for (int64_t kk = 0; kk < kp; kk += MmaLayout::kStepK) {
        int64_t aRow0 = (first + q) * m + row0, bRow0 = (first + q) * kp + kk;
        int64_t btRow0 = (first + q) * n + col0;
        std::vector<std::array<std::array<Reg, 4>, 32>> aFrag;
        for (int64_t i = 0; i < layout->fragmentsM(); ++i) {
          std::array<std::pair<int64_t, int64_t>, 32> rows;
          for (int64_t l = 0; l < 32; ++l) {
            auto [r, c] = MmaLayout::lhsAddress(l, i);
            rows[l] = {aRow0 + r, kk + c};
          }
          aFrag.push_back(ldmatrix(a, rows, /*trans=*/false));
        }
        std::vector<std::array<std::array<Reg, 2>, 32>> bFrag;
        for (int64_t j = 0; j < layout->fragmentsN(); j += 2) {
          std::array<std::pair<int64_t, int64_t>, 32> rows;
          for (int64_t l = 0; l < 32; ++l) {
            auto [r, c] = transposed ? MmaLayout::rhsTransposedAddress(l, j)
                                     : MmaLayout::rhsAddress(l, j);
            rows[l] = transposed ? std::pair{btRow0 + r, kk + c}
                                 : std::pair{bRow0 + r, col0 + c};
          }
          auto regs = transposed ? ldmatrix(bt, rows, /*trans=*/false)
                                 : ldmatrix(b, rows, /*trans=*/true);
          std::array<std::array<Reg, 2>, 32> firstHalf{}, secondHalf{};
          for (int64_t l = 0; l < 32; ++l) {
            firstHalf[l] = {regs[l][0], regs[l][1]};
            secondHalf[l] = {regs[l][2], regs[l][3]};
          }
          bFrag.push_back(firstHalf);
          bFrag.push_back(secondHalf);
        }
        for (int64_t i = 0; i < layout->fragmentsM(); ++i)
          for (int64_t j = 0; j < layout->fragmentsN(); ++j)
            mma(aFrag[i], bFrag[j],
                acc[layout->position(i, j, 0, q) / MmaLayout::kPerFragment]);
      }
    for (int64_t q = 0; q < layout->matricesPerWarp(); ++q)
      for (int64_t lane = 0; lane < 32; ++lane)
        for (int64_t i = 0; i < layout->fragmentsM(); ++i)
          for (int64_t j = 0; j < layout->fragmentsN(); ++j)
            for (int64_t r = 0; r < 4; ++r) {
              auto [row, col] = layout->element(w, lane, i, j, r);
              int64_t matrix = first + q;
              double want = 0;
              for (int64_t x = 0; x < k; ++x)
                want += a.at(matrix * m + row, x) * b.at(matrix * kp + x, col);
              int64_t p = layout->position(i, j, r, q);
              INFO("warp " << w << " lane " << lane << " matrix " << matrix
                           << " fragment (" << i << ", " << j << ") element "
                           << r);
              CHECK(acc[p / 4][lane][p % 4] == want);
            }
  }
}

} // namespace

TEST_CASE("mma.sync fragments hold the product where MmaLayout says", "[mma]") {
  checkDot(16, 16, 16, 1);
  checkDot(64, 64, 32, 4);
  checkDot(128, 128, 32, 8);
  checkDot(32, 64, 24, 2); // K padded to 32 with zeros
  checkDot(16, 16, 1, 1);  // K = 1: fifteen zero columns and rows
  checkDot(16, 16, 32, 4); // one warp's block, repeated by the other three
  checkDot(16, 32, 16, 8); // two warps' blocks, each repeated four times
}

TEST_CASE("batched mma.sync fragments hold each matrix's product", "[mma]") {
  checkDot(16, 16, 64, 4, 16); // Helion's attention: 4 matrices a warp
  checkDot(32, 32, 16, 4, 2);  // 2 groups of 2 warps, a matrix each
  checkDot(16, 16, 32, 8, 2);  // 2 groups of 1 warp, each repeated 4 times
  checkDot(64, 16, 16, 2, 3);  // 3 matrices: one group of 2 warps
}

TEST_CASE("an rhs staged transposed, [N, K], reads the same fragments",
          "[mma]") {
  checkDot(64, 64, 32, 4, 1, /*transposed=*/true);
  checkDot(32, 64, 24, 2, 1, /*transposed=*/true);  // K padded with zeros
  checkDot(16, 16, 64, 4, 16, /*transposed=*/true); // q @ k^T, batched
  checkDot(16, 32, 16, 8, 1, /*transposed=*/true);  // repeated blocks
}

TEST_CASE("batched matrices are dealt over the most warp groups", "[mma]") {
  std::optional<MmaLayout> l = MmaLayout::chooseBatched(16, 16, 16, 4);
  REQUIRE(l);
  CHECK(l->warpsB == 4);
  CHECK(l->matricesPerWarp() == 4);
  CHECK(l->perThread() == 4 * 8);
  CHECK(l->warpMatrix(3) == 12);
  l = MmaLayout::chooseBatched(3, 64, 16, 2);
  REQUIRE(l);
  CHECK(l->warpsB == 1);
  CHECK(l->warpsM * l->warpsN == 2);
  CHECK(l->warpMatrix(1) == 0);
  CHECK_FALSE(MmaLayout::chooseBatched(4, 24, 16, 4));
  // One matrix is choose's grid.
  CHECK(MmaLayout::chooseBatched(1, 128, 128, 8)->warpsM ==
        MmaLayout::choose(128, 128, 8)->warpsM);
}

TEST_CASE("the warp grid is the most square that whole fragments allow",
          "[mma]") {
  std::optional<MmaLayout> l = MmaLayout::choose(128, 128, 8);
  REQUIRE(l);
  CHECK(l->warpsM == 2);
  CHECK(l->warpsN == 4);
  CHECK(l->perThread() == 128 * 128 / 256);
  l = MmaLayout::choose(128, 256, 8);
  REQUIRE(l);
  CHECK(l->warpRows() == 64);
  CHECK(l->warpCols() == 64);
  CHECK_FALSE(MmaLayout::choose(24, 32, 4));
  // Too small for all the warps: the largest count of them that fits.
  l = MmaLayout::choose(16, 16, 4);
  REQUIRE(l);
  CHECK(l->warpsM * l->warpsN == 1);
  CHECK(l->warpOrigin(3) == std::pair<int64_t, int64_t>{0, 0});
  l = MmaLayout::choose(16, 32, 8);
  REQUIRE(l);
  CHECK(l->warpsN == 2);
  CHECK(l->warpOrigin(5) == std::pair<int64_t, int64_t>{0, 16});
  // ... unless its threads would hold too much: [16, 400] fits only one
  // warp, 200 elements a thread.
  CHECK_FALSE(MmaLayout::choose(16, 400, 8));
  CHECK(MmaLayout::choose(16, 400, 1));     // all the warps: no limit
  CHECK_FALSE(MmaLayout::choose(16, 8, 1)); // N must be a multiple of 16
}

TEST_CASE("staged rows are an odd number of 16-byte units apart", "[mma]") {
  for (int64_t columns : {8, 16, 24, 32, 64, 128, 256})
    for (int64_t bytes : {2, 4}) {
      int64_t pitch = MmaLayout::pitchFor(columns, bytes);
      CHECK(pitch >= columns);
      CHECK(pitch * bytes % 16 == 0);
      CHECK(pitch * bytes / 16 % 2 == 1);
    }
}
