//===- MmaLayout.h - Tiles in mma.sync fragments ----------------*- C++ -*-===//
//
// How an [M, N] f32 tile encoded #tile.mma<warpsM = a, warpsN = b> is held
// by a CTA's warps, and where tensor-core dots read their operands.
//
// Warp w computes the block of rows [wm * TM, (wm + 1) * TM) and columns
// [wn * TN, (wn + 1) * TN) (wm = w' / b, wn = w' % b, TM = M / a, TN = N / b,
// w' = w mod a b: a tile too small for all the CTA's warps is split over a
// b of them, which the others repeat, each copy holding the same values)
// as TM / 16 x TN / 8 fragments of mma.sync.m16n8k16's accumulator: in
// fragment (i, j), lane l holds the four elements
//   r = 0, 1: row 16 i + l / 4,     column 8 j + 2 (l % 4) + r
//   r = 2, 3: row 16 i + l / 4 + 8, column 8 j + 2 (l % 4) + r - 2
// of the warp's block, which is PTX's layout of the m16n8 C/D fragment. A
// thread's vector orders them [i][j][r].
//
// A batched [B, M, N] tile (warpsB = c) deals its B matrices over c warp
// groups of a b warps: warp w (w mod c a b) holds matrices [wb * B / c,
// (wb + 1) * B / c) (wb = w / (a b)), each as above with w' = w mod a b,
// its vector ordered [matrix][i][j][r].
//
// The operands are staged in shared memory row-major, lhs [M, Kp] and rhs
// [Kp, N] (Kp: K rounded up to 16, the padding zero; batched, the B
// matrices one after another, [B * M, Kp] and [B * Kp, N]), each row `pitch`
// elements apart (pitchFor: an odd number of 16-byte units, so that the
// eight rows one ldmatrix phase reads fall in different banks). A k-step
// of 16 reads, per warp:
//  - lhs fragment i with ldmatrix.x4: lane l gives the address of row
//    16 i + l % 16, column 8 (l / 16) of the warp's rows and the k-step's
//    columns; the four 8x8 matrices are then mma's a0a1, a2a3, a4a5, a6a7;
//  - rhs fragments j and j + 1 with ldmatrix.x4.trans: lane l gives the
//    address of row 8 ((l / 8) % 2) + l % 8 of the k-step's rows, column
//    8 (j + l / 16) of the warp's columns; transposed, the matrices are
//    b0b1 and b2b3 of fragment j, then of fragment j + 1. An rhs read
//    transposed (staged [N, Kp], rows the warp's columns) takes ldmatrix.x4
//    instead: lane l gives row 8 (j + l / 16) + l % 8, column 8 ((l / 8) %
//    2) of the k-step's, the same four matrices untransposed.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_CONVERSION_MMALAYOUT_H
#define DSLC_COMPILER_CONVERSION_MMALAYOUT_H

#include <cstdint>
#include <optional>
#include <utility>

namespace dslc {

struct MmaLayout {
  /// The instruction: mma.sync.aligned.m16n8k16 (16-bit inputs), or
  /// m16n8k8 (tf32: 4-byte inputs); either way a k-step reads 32 bytes of
  /// a row of K. K is padded to multiples of kStepK (16) elements.
  static constexpr int64_t kFragRows = 16, kFragCols = 8, kStepK = 16;
  static constexpr int64_t kStepBytes = 32;
  /// The k-step, in elements, of operands of `bytes` each (2 or 4).
  static constexpr int64_t stepK(int64_t bytes) { return kStepBytes / bytes; }
  /// Accumulator elements per lane per fragment.
  static constexpr int64_t kPerFragment = 4;
  /// The most accumulator elements a thread holds in a grid of fewer warps
  /// than the CTA's (choose): Helion's 16 x 16 blocks take 8, a [16, 400]
  /// tile on one warp would take 200 and spill.
  static constexpr int64_t kMaxRepeatedPerThread = 64;

  int64_t m = 0, n = 0;
  int64_t warpsM = 1, warpsN = 1;
  /// Batched tiles: B matrices, dealt over warpsB groups of warps.
  int64_t batch = 1, warpsB = 1;

  int64_t warpRows() const { return m / warpsM; }
  int64_t warpCols() const { return n / warpsN; }
  int64_t fragmentsM() const { return warpRows() / kFragRows; }
  int64_t fragmentsN() const { return warpCols() / kFragCols; }
  /// Warps of one matrix's grid, and of the whole grid.
  int64_t matrixWarps() const { return warpsM * warpsN; }
  int64_t gridWarps() const { return warpsB * matrixWarps(); }
  /// Matrices each warp holds.
  int64_t matricesPerWarp() const { return batch / warpsB; }
  int64_t perMatrix() const {
    return fragmentsM() * fragmentsN() * kPerFragment;
  }
  int64_t perThread() const { return matricesPerWarp() * perMatrix(); }
  /// Position in the per-thread vector of element r of fragment (i, j) of
  /// the warp's matrix `q` (0 .. matricesPerWarp()).
  int64_t position(int64_t i, int64_t j, int64_t r, int64_t q = 0) const {
    return q * perMatrix() + (i * fragmentsN() + j) * kPerFragment + r;
  }
  /// The first row and column of warp `warp`'s block.
  std::pair<int64_t, int64_t> warpOrigin(int64_t warp) const {
    warp %= matrixWarps();
    return {warp / warpsN * warpRows(), warp % warpsN * warpCols()};
  }
  /// The first matrix warp `warp` holds.
  int64_t warpMatrix(int64_t warp) const {
    return warp % gridWarps() / matrixWarps() * matricesPerWarp();
  }
  /// Row and column, within a warp's block, of element r of fragment (i, j)
  /// held by lane `lane`.
  static std::pair<int64_t, int64_t> inWarp(int64_t lane, int64_t i, int64_t j,
                                            int64_t r) {
    return {i * kFragRows + lane / 4 + r / 2 * 8,
            j * kFragCols + lane % 4 * 2 + r % 2};
  }
  /// The same in the tile, for warp `warp`.
  std::pair<int64_t, int64_t> element(int64_t warp, int64_t lane, int64_t i,
                                      int64_t j, int64_t r) const {
    auto [row0, col0] = warpOrigin(warp);
    auto [row, col] = inWarp(lane, i, j, r);
    return {row0 + row, col0 + col};
  }
  /// Row and column (in the warp's rows, the k-step's columns) whose
  /// address lane `lane` gives to the ldmatrix.x4 of lhs fragment i.
  static std::pair<int64_t, int64_t> lhsAddress(int64_t lane, int64_t i,
                                                int64_t bytes = 2) {
    return {i * kFragRows + lane % 16, lane / 16 * (16 / bytes)};
  }
  /// Row and column (in the k-step's rows, the warp's columns) whose address
  /// lane `lane` gives to the ldmatrix.x4.trans of rhs fragments j, j + 1.
  static std::pair<int64_t, int64_t> rhsAddress(int64_t lane, int64_t j) {
    return {lane / 8 % 2 * 8 + lane % 8, (j + lane / 16) * kFragCols};
  }
  /// Row (in the warp's columns) and column (in the k-step's) whose address
  /// lane `lane` gives to the ldmatrix.x4 of fragments j, j + 1 of an rhs
  /// staged transposed, [N, Kp].
  static std::pair<int64_t, int64_t>
  rhsTransposedAddress(int64_t lane, int64_t j, int64_t bytes = 2) {
    return {(j + lane / 16) * kFragCols + lane % 8,
            lane / 8 % 2 * (16 / bytes)};
  }

  /// K rounded up to whole k-steps.
  static int64_t paddedK(int64_t k) {
    return (k + kStepK - 1) / kStepK * kStepK;
  }
  /// The row pitch (elements) of a staged row of `columns` elements of
  /// `bytes` each: whole 16-byte units, an odd number of them.
  static int64_t pitchFor(int64_t columns, int64_t bytes);

  /// Bytes of a staged operand element: 2 (bf16 and f16; fp8 is widened
  /// to f16), 4 for tf32's f32 inputs.
  static constexpr int64_t kOperandBytes = 2;
  /// The pitches (elements) of staged operands of `bytes` each: lhs rows of
  /// Kp, rhs rows of N, or of Kp when staged transposed ([N, Kp]).
  static int64_t lhsPitch(int64_t k, int64_t bytes = kOperandBytes) {
    return pitchFor(paddedK(k), bytes);
  }
  static int64_t rhsPitch(int64_t n, int64_t k, bool rhsTransposed,
                          int64_t bytes = kOperandBytes) {
    return pitchFor(rhsTransposed ? paddedK(k) : n, bytes);
  }

  /// Bytes of shared memory a dot of [batch x] [m, k] x [k, n] (inputs of
  /// `bytes` each; rhs staged [n, k] when `rhsTransposed`) stages its
  /// operands in: lhs, then rhs from stagedLhsBytes.
  static int64_t stagedLhsBytes(int64_t batch, int64_t m, int64_t k,
                                int64_t bytes = kOperandBytes);
  static int64_t stagedBytes(int64_t batch, int64_t m, int64_t n, int64_t k,
                             bool rhsTransposed = false,
                             int64_t bytes = kOperandBytes);

  /// The warp grid for an [m, n] result in `warps` warps whose blocks are
  /// whole 16 x 16 multiples, the blocks as square as possible (fewest
  /// operand loads per mma): of all the warps, else of the largest divisor
  /// of their count that fits (16 x 16 in 4 warps: one warp, repeated) if
  /// its threads hold at most kMaxRepeatedPerThread elements each (any
  /// number without `capRepeated`); none when no grid fits.
  static std::optional<MmaLayout> choose(int64_t m, int64_t n, int64_t warps,
                                         bool capRepeated = true) {
    return chooseBatched(1, m, n, warps, capRepeated);
  }
  /// The same for `batch` [m, n] matrices: the matrices dealt over the most
  /// warp groups that divide both counts, each group's grid as above.
  static std::optional<MmaLayout> chooseBatched(int64_t batch, int64_t m,
                                                int64_t n, int64_t warps,
                                                bool capRepeated = true);

  /// Whether this is the layout wgmma gives its result: one m64 row block
  /// per warpgroup, each warp 16 rows of it (warpsN = 1, M = 16 x warps,
  /// warps a multiple of 4), N a multiple of 16 up to 256.
  bool isWgmma() const {
    return batch == 1 && warpsN == 1 && warpsM % 4 == 0 && m == 16 * warpsM &&
           n % 16 == 0 && n <= 256;
  }
  /// That layout for an [m, n] result in `warps` warps; none when the shape
  /// is not one.
  static std::optional<MmaLayout> wgmma(int64_t m, int64_t n, int64_t warps) {
    MmaLayout layout{m, n, warps, 1};
    if (!layout.isWgmma())
      return std::nullopt;
    return layout;
  }
};

} // namespace dslc

#endif // DSLC_COMPILER_CONVERSION_MMALAYOUT_H
