//===- TileLayout.h - How a tile is spread over a CTA's threads -*- C++ -*-===//
//
// A tile value of shape [d0, ..., dn-1] is held by the T threads of a CTA.
// The threads form G groups of P consecutive threads (P * G = T; thread t
// is lane t % P of group t / P). The last dimension is cut into pieces of V
// contiguous elements (16 bytes of the type that moves most of the
// kernel's bytes, or fewer, down to 16 bytes of its widest tensor's, where a
// row is too narrow to give each of its P lanes a piece; DistributeTiles'
// choosePieceWidths): lane l holds pieces l, l + P, l + 2P, ... (C of
// them), so neighbouring lanes access neighbouring pieces.
//
// The rows of a tile of rank >= 2 are its leading dimensions. With more
// than one group, the first S of them, flattened row-major (D0 = d0 * ...
// * dS-1 indices), are dealt over the groups: group g holds indices g,
// g + G, ... (R0 = ceil(D0 / G) of them; past D0 a row is padding), each
// with the other leading dimensions whole (REST = dS * ... * dn-2 rows).
// S is the fewest leading dimensions whose D0 reaches G, so [B, M, N]
// deals B when B >= G (as [B, M * N] would) and B * M otherwise (as
// [B * M, N]), and leading unit dimensions change nothing. A tile with
// D0 = 1 is held whole by every group. Per thread, a tile is a vector of
// O * C * V elements (O = R0 * REST, R0 = D0 when not dealt), ordered
// [o][c][v].
//
// Tiles of rank <= 1 always have one group (P = T). A kernel chooses P for
// its tiles of rank >= 2 (KernelInfo::rowThreads): P = T keeps every row
// across the whole CTA (wide rows); a smaller P spreads narrow rows of a
// 2-d tile over the groups, so a [64, 64] accumulator takes 32 elements
// per thread instead of 512. A tile that the kernel's P would leave mostly
// padding (a [1024, 2] tile next to [2, 1024] ones, whose P of 64 gives it
// 1024 elements per thread) takes its own P instead (TileLayout::choose);
// the ops that meet two layouts convert between them.
//
// A tile whose last dimension is 1, or a rank-0 tile, is replicated within
// its group: every lane holds the group's rows (C = V = 1). A reduction
// along the last dimension gives such a tile; it is loaded by every lane
// (same address) and stored by lane 0 alone. A tile of rank >= 2 whose
// first dimension is 1 is held whole by every group; group 0 stores it.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_CONVERSION_TILELAYOUT_H
#define DSLC_COMPILER_CONVERSION_TILELAYOUT_H

#include "compiler/Limits.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <cstdint>
#include <optional>

namespace dslc {

struct TileLayout {
  int64_t threads = 1;    ///< T: threads per CTA.
  int64_t rowThreads = 1; ///< P: threads (lanes) a row is spread over.
  int64_t vec = 1;        ///< V: contiguous elements per piece.
  int64_t chunks = 1;     ///< C: pieces per lane along the last dimension.
  int64_t outer = 1;      ///< O: rows per thread.
  int64_t inner = 1;      ///< Size of the last dimension.
  int64_t dealtDims = 1;  ///< S: leading dimensions dealt (rank >= 2).
  int64_t dim0 = 1;       ///< D0: product of the first S dimensions.
  int64_t rest = 1;       ///< REST: product of dimensions S .. n-2.
  int64_t rows0 = 1;      ///< R0: indices of the first S dimensions per thread.
  /// The first S dimensions are dealt over the groups.
  bool split = false;
  /// Every lane of a group holds the group's elements (last dimension 1, or
  /// rank 0).
  bool replicated = false;

  int64_t groups() const { return threads / rowThreads; }
  int64_t perThread() const { return outer * chunks * vec; }
  /// Every group holds the same elements (more than one group, no split).
  bool groupReplicated() const { return groups() > 1 && !split; }
  /// Every thread of the CTA holds every element.
  bool allReplicated() const { return replicated && !split; }
  /// Whether row `o` of group `group` may be padding (past D0).
  bool raggedRows() const { return split && dim0 % groups() != 0; }

  /// Position in the per-thread vector of element v of piece c of row o.
  int64_t position(int64_t o, int64_t c, int64_t v) const {
    return (o * chunks + c) * vec + v;
  }

  /// Index along the last dimension of element v of piece c held by lane
  /// `lane` (at least `inner` for the padding of the last piece).
  int64_t innerIndex(int64_t c, int64_t lane, int64_t v) const {
    return replicated ? 0 : (c * rowThreads + lane) * vec + v;
  }

  /// The index over the first S dimensions (flattened) of row `o` of
  /// group `group`.
  int64_t firstIndex(int64_t o, int64_t group) const {
    int64_t r0 = o / rest;
    return split ? r0 * groups() + group : r0;
  }

  /// The row-major row (index over all leading dimensions) of row `o` of
  /// group `group`, or nullopt for a padding row.
  std::optional<int64_t> row(int64_t o, int64_t group) const {
    int64_t i0 = firstIndex(o, group);
    if (i0 >= dim0)
      return std::nullopt;
    return i0 * rest + o % rest;
  }

  /// Where row-major row `r` is held: the thread's row index o and the
  /// group (any group when not dealt: 0).
  std::pair<int64_t, int64_t> holder(int64_t r) const {
    int64_t i0 = r / rest, k = r % rest;
    if (!split)
      return {r, 0};
    return {i0 / groups() * rest + k, i0 % groups()};
  }

  /// Whether a per-thread vector of this layout holds, in every thread, the
  /// same elements at the same positions as one of `other`'s (a reshape
  /// between them is no change).
  bool sameDistribution(const TileLayout &other) const;

  /// The layout of a tile of `shape` in a CTA of `threads` threads whose
  /// pieces hold at most `maxVec` elements and whose rows of tiles of rank
  /// >= 2 are spread over `rowThreads` threads (a divisor of `threads`).
  /// With `minVec` (0: maxVec), a row too narrow for a `maxVec` piece in
  /// each of its lanes takes pieces of the power of two that fills them,
  /// but at least `minVec`.
  static TileLayout get(llvm::ArrayRef<int64_t> shape, int64_t threads,
                        int64_t maxVec, int64_t rowThreads, int64_t minVec = 0);

  /// The layout of a tile of `shape` in a kernel whose tiles of rank >= 2
  /// spread their rows over `kernelRowThreads` threads: that layout, unless
  /// it gives the tile at least kOwnLayoutFactor times the elements per
  /// thread (and at least kOwnLayoutMinElements) of the tile's own choice
  /// (ruleRowThreads of its shape alone), which it then takes. A function
  /// of the shape, so every value of one type has one layout.
  static TileLayout choose(llvm::ArrayRef<int64_t> shape, int64_t threads,
                           int64_t maxVec, int64_t kernelRowThreads,
                           int64_t minVec = 0);
};

/// A tile takes its own row threads when the kernel's give it this many
/// times the elements per thread...
inline constexpr int64_t kOwnLayoutFactor = 4;
/// ... and at least this many.
inline constexpr int64_t kOwnLayoutMinElements = 64;

/// The threads a row of tiles of `shapes` (static, rank >= 2) is spread
/// over by rule, in a CTA of `threads` threads with pieces of `maxVec`
/// elements: few enough that the narrowest row is not mostly padding, many
/// enough that the groups do not outnumber the rows of the tile with the
/// fewest. `threads` when no shape calls for less.
int64_t ruleRowThreads(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes,
                       int64_t threads, int64_t maxVec);
/// The kernel's: the rule's, unless another power of two takes at most 3/4
/// of the element operations a thread does on its tiles (each tile in
/// TileLayout::choose's layout, its elements per thread times `uses[i]`,
/// the values of shape i; 1 each when `uses` is empty) and
/// kOwnLayoutMinElements fewer, or no more of them with fewer tiles in
/// layouts of their own; the fewest lanes then.
int64_t chooseRowThreads(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes,
                         int64_t threads, int64_t maxVec, int64_t minVec = 0,
                         llvm::ArrayRef<int64_t> uses = {});

/// The static shuffle of the per-thread vector of a tile of shape `from`
/// (layout `in`) that gives that of its broadcast to `to` (layout `out`),
/// when every thread holds the input elements it needs at positions that
/// do not depend on its group; else none.
std::optional<llvm::SmallVector<int64_t>>
broadcastShuffle(const TileLayout &in, const TileLayout &out,
                 llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> to);

} // namespace dslc

#endif // DSLC_COMPILER_CONVERSION_TILELAYOUT_H
