//===- TileLayout.cpp - How a tile is spread over a CTA's threads --------===//

#include "compiler/Conversion/TileLayout.h"

#include "llvm/ADT/STLExtras.h"
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
                           int64_t maxVec, int64_t rowThreads, int64_t minVec) {
  TileLayout layout;
  layout.threads = threads;
  layout.rowThreads = shape.size() >= 2 ? rowThreads : threads;
  assert(layout.rowThreads >= 1 && threads % layout.rowThreads == 0 &&
         "rowThreads divides the CTA");
  layout.inner = shape.empty() ? 1 : shape.back();
  if (shape.size() >= 2) {
    // The fewest leading dimensions that give every group an index.
    int64_t n = shape.size() - 1, s = 1;
    layout.dim0 = shape.front();
    while (s < n && layout.dim0 < layout.groups())
      layout.dim0 *= shape[s++];
    layout.dealtDims = s;
    for (int64_t i = s; i < n; ++i)
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
  // Narrower pieces where a row would leave lanes without one (a 4096-wide
  // row of a kernel with fp8 and bf16 tensors over 512 threads: 16-element
  // pieces busy 256 lanes, 8-element ones all 512), as Triton's coalescing
  // narrows a thread's vector to the elements a thread has, but never
  // below minVec.
  if (minVec > 0 && minVec < layout.vec) {
    int64_t fill = static_cast<int64_t>(llvm::bit_floor(static_cast<uint64_t>(
        std::max<int64_t>(1, layout.inner / layout.rowThreads))));
    layout.vec = std::max(minVec, std::min(layout.vec, fill));
  }
  layout.chunks =
      llvm::divideCeil(layout.inner, layout.rowThreads * layout.vec);
  return layout;
}

TileLayout TileLayout::choose(llvm::ArrayRef<int64_t> shape, int64_t threads,
                              int64_t maxVec, int64_t kernelRowThreads,
                              int64_t minVec) {
  TileLayout kernel = get(shape, threads, maxVec, kernelRowThreads, minVec);
  if (shape.size() < 2 || kernel.perThread() < kOwnLayoutMinElements)
    return kernel;
  TileLayout own = get(shape, threads, maxVec,
                       ruleRowThreads({shape}, threads, maxVec), minVec);
  if (own.perThread() * kOwnLayoutFactor <= kernel.perThread())
    return own;
  return kernel;
}

int64_t dslc::ruleRowThreads(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes,
                             int64_t threads, int64_t maxVec) {
  int64_t minInner = 0, minRows = 0;
  for (llvm::ArrayRef<int64_t> shape : shapes) {
    if (shape.size() < 2)
      continue;
    int64_t rows = 1;
    for (int64_t d : shape.drop_back())
      rows *= d;
    if (rows <= 1)
      continue;
    minRows = minRows ? std::min(minRows, rows) : rows;
    if (shape.back() > 1)
      minInner = minInner ? std::min(minInner, shape.back()) : shape.back();
  }
  if (!minRows)
    return threads;
  // Lanes that cover the narrowest row with whole pieces.
  int64_t forColumns = static_cast<int64_t>(llvm::bit_floor(
      static_cast<uint64_t>(std::max<int64_t>(1, minInner / maxVec))));
  // Lanes that leave no more groups than the fewest rows.
  int64_t forRows = static_cast<int64_t>(
      llvm::PowerOf2Ceil(llvm::divideCeil(threads, minRows)));
  int64_t p = std::max(forColumns, forRows);
  if (p >= threads || threads % p != 0)
    return threads;
  return p;
}

int64_t dslc::chooseRowThreads(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes,
                               int64_t threads, int64_t maxVec, int64_t minVec,
                               llvm::ArrayRef<int64_t> uses) {
  assert((uses.empty() || uses.size() == shapes.size()) &&
         "one count of values per shape");
  int64_t p = ruleRowThreads(shapes, threads, maxVec);
  // The elements per thread the kernel's tiles take at `rowThreads` (each
  // tile in the layout it would have, TileLayout::choose): fewer lanes
  // than the rule's can hold a wide tile without padding lanes when the
  // rule's count comes from a tile with few rows (Helion's attention at
  // [16, 16, 16] and 8 warps: its [16, 16] row statistics ask for 16 lanes,
  // which leave half of its [16, 16, 64] accumulator's lanes padding: 128
  // elements a thread instead of 64).
  // Each shape counts once per value of it: every op on a tile does its
  // elements a thread (rope keeps a dozen values of q's [1, 32, 1, 64] and
  // one of its cos's [1, 1, 64]). Tiles in a layout of their own count
  // too: an op between tiles of two layouts converts through shared memory
  // (rope at one token a CTA: one lane a row gives cos a 128-lane layout of
  // its own and q one of 8 lanes, so each broadcast of cos to q took a
  // barrier; at 8 lanes both take the kernel's).
  struct Cost {
    int64_t elements = 0, ownLayouts = 0;
  };
  auto cost = [&](int64_t rowThreads) {
    Cost total;
    for (auto [i, shape] : llvm::enumerate(shapes)) {
      TileLayout layout =
          TileLayout::choose(shape, threads, maxVec, rowThreads, minVec);
      total.elements += layout.perThread() * (uses.empty() ? 1 : uses[i]);
      total.ownLayouts += layout.rowThreads != rowThreads;
    }
    return total;
  };
  // Another count where it saves at least a quarter of the work and
  // kOwnLayoutMinElements of it (small tiles fit either way), or where it
  // takes no more with fewer tiles in layouts of their own; the fewest
  // lanes of those unless more save a quarter again (fewer lanes a row:
  // fewer shuffles in a reduction along it; at one lane, none).
  int64_t best = p;
  Cost bestCost = cost(p);
  for (int64_t q = 1; q < threads; q *= 2) {
    if (threads % q)
      continue;
    Cost c = cost(q);
    bool saves = c.elements * 4 <= bestCost.elements * 3 &&
                 bestCost.elements - c.elements >= kOwnLayoutMinElements;
    bool fewerConversions =
        c.elements <= bestCost.elements && c.ownLayouts < bestCost.ownLayouts;
    if (saves || fewerConversions) {
      best = q;
      bestCost = c;
    }
  }
  return best;
}

std::optional<llvm::SmallVector<int64_t>>
dslc::broadcastShuffle(const TileLayout &in, const TileLayout &out,
                       llvm::ArrayRef<int64_t> from,
                       llvm::ArrayRef<int64_t> to) {
  int64_t rank = to.size();
  // A broadcast last dimension reads the replicated input's one column;
  // else input and output share the last dimension, the lanes and so the
  // pieces: element (c, v) of a row is at (c, v) in both.
  if (!in.replicated && (in.inner != out.inner || in.vec != out.vec ||
                         in.rowThreads != out.rowThreads))
    return std::nullopt;
  // Rows dealt over groups of other sizes (a tile with its own row threads,
  // TileLayout::choose) are held by other threads.
  if (in.split && in.rowThreads != out.rowThreads)
    return std::nullopt;
  // The input row (row-major over `from`'s leading dimensions) of output
  // row `r`: unit input dimensions take index 0.
  auto sourceRow = [&](int64_t r) {
    llvm::SmallVector<int64_t> coords(rank > 1 ? rank - 1 : 0);
    for (int64_t k = rank - 2; k >= 0; --k) {
      coords[k] = r % to[k];
      r /= to[k];
    }
    int64_t row = 0;
    for (int64_t k = 0; k + 1 < rank; ++k)
      row = row * from[k] + (from[k] == 1 ? 0 : coords[k]);
    return row;
  };
  llvm::SmallVector<int64_t> mask;
  for (int64_t o = 0; o < out.outer; ++o) {
    // The input row this position reads, the same in every group that
    // holds an output row there.
    std::optional<int64_t> held;
    for (int64_t g = 0; g < out.groups(); ++g) {
      std::optional<int64_t> r = out.row(o, g);
      if (!r)
        continue;
      auto [position, holder] = in.holder(sourceRow(*r));
      if (in.split && holder != g)
        return std::nullopt;
      if (held && *held != position)
        return std::nullopt;
      held = position;
    }
    int64_t row = held.value_or(0);
    for (int64_t c = 0; c < out.chunks; ++c)
      for (int64_t v = 0; v < out.vec; ++v)
        mask.push_back(in.replicated ? row : in.position(row, c, v));
  }
  return mask;
}
