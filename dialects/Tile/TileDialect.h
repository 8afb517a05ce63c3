//===- TileDialect.h - The Tile dialect -------------------------*- C++ -*-===//

#ifndef DSLC_DIALECTS_TILE_TILEDIALECT_H
#define DSLC_DIALECTS_TILE_TILEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/Tile/TileDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/Tile/TileTypes.h.inc"

#include "dialects/Tile/TileEnums.h.inc"

#define GET_OP_CLASSES
#include "dialects/Tile/TileOps.h.inc"

namespace dslc::tile {
/// Name of the unit attribute marking a func.func as a tile kernel.
inline constexpr llvm::StringLiteral kKernelAttr = "tile.kernel";
/// Name of the integer attribute giving a kernel's warps per CTA.
inline constexpr llvm::StringLiteral kNumWarpsAttr = "tile.num_warps";
/// Name of the array-of-strings attribute naming a kernel's parameters.
inline constexpr llvm::StringLiteral kArgNamesAttr = "tile.arg_names";
/// Name of the integer attribute giving the number of peers (world size).
inline constexpr llvm::StringLiteral kPeerCountAttr = "tile.peer_count";
/// Most warps a CTA can have (1024 threads).
inline constexpr int64_t kMaxNumWarps = 32;
/// Most dimensions of a tile value (the lowering's limit).
inline constexpr int64_t kMaxTileRank = 4;

/// Whether `type` is an element type of tensors in memory: an integer of
/// 1, 8, 16, 32 or 64 bits, bf16, f16, f32, f64, or one of the fp8 storage
/// types f8E4M3FN and f8E5M2.
bool isStorageElementType(mlir::Type type);
/// Whether `type` is an fp8 storage type (f8E4M3FN, f8E5M2): loaded,
/// stored and converted, but not computed with.
bool isFp8Type(mlir::Type type);

/// Verifies the parameters of a tensor-in-memory type (!tile.ref and
/// !comm.stack, named by `typeName` in messages): an integer or float
/// element type and a rank between 1 and 8.
mlir::LogicalResult
verifyMemoryTensorType(llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
                       llvm::StringRef typeName, mlir::Type elementType,
                       unsigned rank);

/// Verifies what tile.load/store and the comm.multicast_* ops share: the
/// tile has a static shape; one offset and one limit per dimension of the
/// tensor in memory (`what`: "ref" or "stack", of rank `rank` and element
/// type `memElement`); `dims` strictly increasing in [0, rank) with one
/// entry per tile dimension; element types agree.
mlir::LogicalResult verifyTileAccess(mlir::Operation *op, llvm::StringRef what,
                                     mlir::Type memElement, unsigned rank,
                                     mlir::RankedTensorType tile,
                                     size_t numOffsets, size_t numLimits,
                                     llvm::ArrayRef<int64_t> dims);
} // namespace dslc::tile

#endif // DSLC_DIALECTS_TILE_TILEDIALECT_H
