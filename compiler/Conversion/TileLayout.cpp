//===- TileLayout.cpp - How a tile is spread over a CTA's threads --------===//

#include "compiler/Conversion/TileLayout.h"

#include "llvm/Support/MathExtras.h"

using namespace dslc;

TileLayout TileLayout::get(llvm::ArrayRef<int64_t> shape, int64_t threads,
                           int64_t maxVec) {
  TileLayout layout;
  layout.threads = threads;
  layout.inner = shape.empty() ? 1 : shape.back();
  for (size_t i = 0; i + 1 < shape.size(); ++i)
    layout.outer *= shape[i];
  if (layout.inner == 1) {
    layout.replicated = true;
    return layout;
  }
  // A piece never spans more than the (power-of-two rounded) row.
  layout.vec = std::min<int64_t>(
      maxVec, static_cast<int64_t>(llvm::PowerOf2Ceil(layout.inner)));
  layout.chunks = llvm::divideCeil(layout.inner, threads * layout.vec);
  return layout;
}
