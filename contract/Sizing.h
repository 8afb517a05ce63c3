//===- Sizing.h - Grid and buffer sizes that follow from metadata -*- C++
//-*-===//
//
// What the runtime, the collective harness, the library's collectives and
// the simulator all compute from a kernel's metadata: its tile count for
// given argument sizes, the sizes its constraints fix, the shape of a
// signal pad and the bytes of an LL packet scratch. One rule each.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_CONTRACT_SIZING_H
#define DSLC_CONTRACT_SIZING_H

#include "contract/Expected.h"
#include "contract/Metadata.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dslc::contract {

/// The raw value of a non-constant extent: size `dim` of tensor `param`,
/// or the value of int scalar `scalar` (GridExtent).
using ExtentValue = std::function<Expected<int64_t>(const GridExtent &)>;

/// The most tiles one loop of a kernel's grid may have: kernels decompose
/// a tile's index in 32-bit arithmetic (GridLowering.cpp: a 64-bit
/// division is a call on the GPU, and a call serializes wgmma).
inline constexpr int64_t kMaxGridTiles = 0xffffffffLL;

/// The grid's tile count: the product over md.grid of ceil(extent /
/// block), or over a later loop's grid (md.moreGrids) when it has more.
/// Fails when a value is missing or negative (the callback's message), a
/// product overflows or a loop has more than kMaxGridTiles tiles.
Expected<int64_t> numTiles(const KernelMetadata &md, const ExtentValue &value);

/// The size that md.constraints give dimension `dim` of argument `arg`:
/// an `==` value, else the largest `>=` / `>` bound (`num_tiles` standing
/// for `tiles`); nullopt when no constraint bounds it.
std::optional<int64_t> constrainedSize(const KernelMetadata &md, int arg,
                                       unsigned dim, int64_t tiles);

/// The shape of tensor `arg` that nothing but the kernel's constraints
/// sizes, for `world` ranks and a grid of `tiles` tiles: each dimension as
/// its constraints fix it, else `tiles` rows (dimension 0) and `world`
/// columns (the others); at least 1 everywhere. A signal pad's shape.
std::vector<int64_t> constrainedShape(const KernelMetadata &md, int arg,
                                      int world, int64_t tiles);

/// Bytes of LL packet scratch `arg` needs per rank for `world` ranks and a
/// grid of `tiles` tiles: 2 flag parities x puts x world senders x tiles x
/// the packet tile's bytes (ArgSpec::packets), rounded up to 16-byte
/// packets. Fails on overflow or when the compiler recorded no packets.
Expected<int64_t> llScratchBytes(const KernelMetadata &md, int arg, int world,
                                 int64_t tiles);

/// A tensor size compiled into a kernel: size `dim` of argument `param` is
/// `size` (hl.specialize, `-D 'P.size(d)=N'`, `--shape`, `assert P.size(d)
/// == k`). Each is one of md.constraints' `==` constraints with an integer
/// value; a `== num_tiles` constraint is not one (it follows the grid).
struct SpecializedSize {
  std::string param;
  unsigned dim = 0;
  int64_t size = 0;
  bool operator==(const SpecializedSize &o) const {
    return param == o.param && dim == o.dim && size == o.size;
  }
};

/// The sizes a kernel is specialized for, in the order of md.constraints,
/// each (param, dim) once: what a per-shape compile cache keys a cubin on
/// (docs/kernel-abi.md). A call whose tensors have these sizes can use the
/// cubin whatever its other sizes are.
std::vector<SpecializedSize> specializedSizes(const KernelMetadata &md);

/// `[["x", 1, 8192], ...]`: specializedSizes as JSON (the C API's text).
std::string specializedSizesJson(const std::vector<SpecializedSize> &sizes);

} // namespace dslc::contract

#endif // DSLC_CONTRACT_SIZING_H
