//===- MmaLayout.cpp - Tiles in mma.sync fragments ------------------------===//

#include "compiler/Conversion/MmaLayout.h"

#include <cstdlib>

using namespace dslc;

int64_t MmaLayout::pitchFor(int64_t columns, int64_t bytes) {
  int64_t units = (columns * bytes + 15) / 16;
  if (units % 2 == 0)
    ++units;
  return units * 16 / bytes;
}

std::optional<MmaLayout> MmaLayout::choose(int64_t m, int64_t n, int64_t warps,
                                           bool capRepeated) {
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
      if (m % (a * kFragRows) || n % (b * kStepK))
        continue;
      // Operand loads per k-step: TM / 16 + TN / 16; the fewest (the most
      // square block) wins, ties to more rows per warp.
      int64_t perimeter = m / a + n / b;
      if (!best || perimeter < bestPerimeter) {
        best = MmaLayout{m, n, a, b};
        bestPerimeter = perimeter;
      }
    }
    // Fewer warps hold more each: past kMaxRepeatedPerThread accumulator
    // elements a thread, CUDA cores spread the tile over every thread.
    if (best)
      return used == warps || !capRepeated ||
                     best->perThread() <= kMaxRepeatedPerThread
                 ? best
                 : std::nullopt;
  }
  return std::nullopt;
}
