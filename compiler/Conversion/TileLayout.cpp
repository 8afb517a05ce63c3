//===- TileLayout.cpp - How a tile is spread over a CTA's threads --------===//

#include "compiler/Conversion/TileLayout.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cassert>

using namespace dslc;

bool TileLayout::sameDistribution(const TileLayout &o) const {
  if (replicated != o.replicated || outer != o.outer || chunks != o.chunks ||
      vec != o.vec || inner != o.inner || split != o.split)
    return false;
  // Rows dealt over groups must be dealt alike; rows held whole (by one
  // group, or by every group) are the same rows in the same order.
  if (split)
    return rowThreads == o.rowThreads && dim0 == o.dim0 && rest == o.rest;
  if (groups() != o.groups() && !(allReplicated() && o.allReplicated()))
    // The same elements, but the columns are spread over other lanes.
    return false;
  return true;
}

TileLayout TileLayout::get(llvm::ArrayRef<int64_t> shape, int64_t threads,
                           int64_t maxVec, int64_t rowThreads) {
  TileLayout layout;
  layout.threads = threads;
  layout.rowThreads = shape.size() >= 2 ? rowThreads : threads;
  assert(layout.rowThreads >= 1 && threads % layout.rowThreads == 0 &&
         "rowThreads divides the CTA");
  layout.inner = shape.empty() ? 1 : shape.back();
  if (shape.size() >= 2) {
    layout.dim0 = shape.front();
    for (size_t i = 1; i + 1 < shape.size(); ++i)
      layout.rest *= shape[i];
  }
  layout.split = layout.groups() > 1 && layout.dim0 > 1;
  layout.rows0 = layout.split ? llvm::divideCeil(layout.dim0, layout.groups())
                              : layout.dim0;
  layout.outer = layout.rows0 * layout.rest;
  if (layout.inner == 1) {
    layout.replicated = true;
    return layout;
  }
  // A piece never spans more than the (power-of-two rounded) row.
  layout.vec = std::min<int64_t>(
      maxVec, static_cast<int64_t>(llvm::PowerOf2Ceil(layout.inner)));
  layout.chunks =
      llvm::divideCeil(layout.inner, layout.rowThreads * layout.vec);
  return layout;
}

int64_t dslc::chooseRowThreads(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes,
                               int64_t threads, int64_t maxVec) {
  int64_t minInner = 0, minDim0 = 0;
  for (llvm::ArrayRef<int64_t> shape : shapes) {
    if (shape.size() < 2 || shape.front() <= 1)
      continue;
    minDim0 = minDim0 ? std::min(minDim0, shape.front()) : shape.front();
    if (shape.back() > 1)
      minInner = minInner ? std::min(minInner, shape.back()) : shape.back();
  }
  if (!minDim0)
    return threads;
  // Lanes that cover the narrowest row with whole pieces.
  int64_t forColumns = static_cast<int64_t>(llvm::bit_floor(
      static_cast<uint64_t>(std::max<int64_t>(1, minInner / maxVec))));
  // Lanes that leave no more groups than the smallest first dimension.
  int64_t forRows = static_cast<int64_t>(
      llvm::PowerOf2Ceil(llvm::divideCeil(threads, minDim0)));
  int64_t p = std::max(forColumns, forRows);
  if (p >= threads || threads % p != 0)
    return threads;
  return p;
}
