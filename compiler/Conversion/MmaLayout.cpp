//===- MmaLayout.cpp - Tiles in mma.sync fragments ------------------------===//

#include "compiler/Conversion/MmaLayout.h"

#include <algorithm>
#include <cstdlib>

using namespace dslc;

int64_t MmaLayout::pitchFor(int64_t columns, int64_t bytes) {
  int64_t units = (columns * bytes + 15) / 16;
  if (units % 2 == 0)
    ++units;
  return units * 16 / bytes;
}

int64_t MmaLayout::stagedLhsBytes(int64_t batch, int64_t m, int64_t k,
                                  int64_t bytes) {
  return (batch * m * lhsPitch(k, bytes) * bytes + 15) / 16 * 16;
}

int64_t MmaLayout::stagedBytes(int64_t batch, int64_t m, int64_t n, int64_t k,
                               bool rhsTransposed, int64_t bytes) {
  int64_t rows = batch * (rhsTransposed ? n : paddedK(k));
  int64_t rhs = rows * rhsPitch(n, k, rhsTransposed, bytes) * bytes;
  return stagedLhsBytes(batch, m, k, bytes) + (rhs + 15) / 16 * 16;
}

/// The grid of at most `warps` warps for one [m, n] matrix (choose's rule,
/// without its cap).
static std::optional<MmaLayout> matrixGrid(int64_t m, int64_t n,
                                           int64_t warps) {
  // The most warps that fit: all of them, else the largest divisor of the
  // count whose grid splits the tile (the others repeat its blocks).
  for (int64_t used = warps; used >= 1; --used) {
    if (warps % used)
      continue;
    std::optional<MmaLayout> best;
    int64_t bestPerimeter = 0;
    for (int64_t a = 1; a <= used; ++a) {
      if (used % a)
        continue;
      int64_t b = used / a;
      if (m % (a * MmaLayout::kFragRows) || n % (b * MmaLayout::kStepK))
        continue;
      // Operand loads per k-step: TM / 16 + TN / 16; the fewest (the most
      // square block) wins, ties to more rows per warp.
      int64_t perimeter = m / a + n / b;
      if (!best || perimeter < bestPerimeter) {
        best = MmaLayout{m, n, a, b};
        bestPerimeter = perimeter;
      }
    }
    if (best)
      return best;
  }
  return std::nullopt;
}

std::optional<MmaLayout> MmaLayout::chooseBatched(int64_t batch, int64_t m,
                                                  int64_t n, int64_t warps,
                                                  bool capRepeated) {
  if (batch < 1 || warps < 1)
    return std::nullopt;
  // The most matrix groups: each group's grid then has the fewest warps to
  // fill, so the most of the CTA's warps work.
  for (int64_t groups = std::min(batch, warps); groups >= 1; --groups) {
    if (warps % groups || batch % groups)
      continue;
    std::optional<MmaLayout> layout = matrixGrid(m, n, warps / groups);
    if (!layout)
      return std::nullopt;
    layout->batch = batch;
    layout->warpsB = groups;
    // Fewer warps hold more each: past kMaxRepeatedPerThread accumulator
    // elements a thread, CUDA cores spread the tile over every thread.
    bool all = layout->gridWarps() == warps;
    return all || !capRepeated || layout->perThread() <= kMaxRepeatedPerThread
               ? layout
               : std::nullopt;
  }
  return std::nullopt;
}
