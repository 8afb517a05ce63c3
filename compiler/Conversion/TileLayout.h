//===- TileLayout.h - How a tile is spread over a CTA's threads -*- C++ -*-===//
//
// A tile value of shape [d0, ..., dn-1] is held by the T threads of a CTA.
// The last dimension is cut into pieces of V contiguous elements (16 bytes
// of the kernel's narrowest element type): thread t holds pieces
// t, t + T, t + 2T, ... (C of them), so a warp's accesses are coalesced
// and each piece is one 16-byte load or store. Leading dimensions are held
// whole by every thread. Per thread, a tile is a vector of
// O * C * V elements (O = d0 * ... * dn-2), ordered [o][c][v].
//
// A tile whose last dimension is 1, or a rank-0 tile, is replicated: every
// thread holds all of its O elements (C = V = 1). A reduction along the last
// dimension gives such a tile; it is loaded by every thread (same address)
// and stored by thread 0 alone.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_CONVERSION_TILELAYOUT_H
#define DSLC_COMPILER_CONVERSION_TILELAYOUT_H

#include "llvm/ADT/ArrayRef.h"
#include <cstdint>

namespace dslc {

struct TileLayout {
  int64_t threads = 1; ///< T: threads per CTA.
  int64_t vec = 1;     ///< V: contiguous elements per piece.
  int64_t chunks = 1;  ///< C: pieces per thread along the last dimension.
  int64_t outer = 1;   ///< O: product of the leading dimensions.
  int64_t inner = 1;   ///< Size of the last dimension.
  /// Every thread holds every element (last dimension 1, or rank 0).
  bool replicated = false;

  int64_t perThread() const { return outer * chunks * vec; }
  /// Position in the per-thread vector of element v of piece c of row o.
  int64_t position(int64_t o, int64_t c, int64_t v) const {
    return (o * chunks + c) * vec + v;
  }

  /// Index along the last dimension of element v of piece c held by thread
  /// `tid` (at least `inner` for the padding of the last piece).
  int64_t innerIndex(int64_t c, int64_t tid, int64_t v) const {
    return replicated ? 0 : (c * threads + tid) * vec + v;
  }

  /// The layout of a tile of `shape` in a CTA of `threads` threads whose
  /// pieces hold at most `maxVec` elements.
  static TileLayout get(llvm::ArrayRef<int64_t> shape, int64_t threads,
                        int64_t maxVec);
};

/// Most elements a thread may hold of one tile (a per-thread vector lives in
/// registers).
inline constexpr int64_t kMaxElementsPerThread = 256;

} // namespace dslc

#endif // DSLC_COMPILER_CONVERSION_TILELAYOUT_H
