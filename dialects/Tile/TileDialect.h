//===- TileDialect.h - The Tile dialect -------------------------*- C++ -*-===//

#ifndef DSLC_DIALECTS_TILE_TILEDIALECT_H
#define DSLC_DIALECTS_TILE_TILEDIALECT_H

#include "contract/Metadata.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/Tile/TileDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/Tile/TileTypes.h.inc"

namespace dslc::tile {
/// Parsers of the contract's enums inside #tile.role / #tile.abi_slot.
mlir::FailureOr<contract::Role> parseContractRole(mlir::AsmParser &parser);
mlir::FailureOr<contract::SlotKind>
parseContractSlotKind(mlir::AsmParser &parser);
mlir::FailureOr<contract::SlotType>
parseContractSlotType(mlir::AsmParser &parser);
} // namespace dslc::tile

#include "dialects/Tile/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Tile/TileAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/Tile/TileOps.h.inc"

namespace dslc::tile {
/// Name of the unit attribute marking a func.func as a tile kernel.
inline constexpr llvm::StringLiteral kKernelAttr = "tile.kernel";
/// Name of the integer attribute giving a kernel's warps per CTA.
inline constexpr llvm::StringLiteral kNumWarpsAttr = "tile.num_warps";
/// Optional kernel attribute (DenseI64ArrayAttr): Helion's reduction_loops,
/// a chunk size per reduced dimension, 0 for none (RollReductions).
inline constexpr llvm::StringLiteral kReductionLoopsAttr =
    "tile.reduction_loops";
/// Optional kernel attribute (DenseI64ArrayAttr of triples D, R, required):
/// whole rows of extent D too wide for a CTA's registers, computed R columns
/// at a time where reduction_loops gives no chunk for D (RollReductions);
/// `required` (1) when a tile of them would not fit at all unrolled.
inline constexpr llvm::StringLiteral kAutoReductionLoopsAttr =
    "tile.auto_reduction_loops";
/// Optional kernel attribute (#tile.dot_engine): what computes its dots.
inline constexpr llvm::StringLiteral kDotEngineAttr = "tile.dot_engine";
/// Optional kernel attribute (unit): f32 products may run on tensor cores
/// in tf32 (Helion's `dot_precision="tf32"`; -dslc-mma-layouts).
inline constexpr llvm::StringLiteral kAllowTf32Attr = "tile.allow_tf32";
/// Optional kernel attribute (i64): the config's num_stages, how many K
/// steps a tensor-core loop keeps in flight (-dslc-pipeline-dots).
inline constexpr llvm::StringLiteral kNumStagesAttr = "tile.num_stages";
/// Optional kernel attribute (i64): the config's l2_groupings, the rows of
/// tiles a group of the grid runs column by column (GridLowering.cpp).
inline constexpr llvm::StringLiteral kL2GroupingAttr = "tile.l2_grouping";
/// Optional kernel attribute (unit): the config's fast_math, every f32 exp,
/// exp2, log, log2 and division approximated (-dslc-narrowed-fast-math).
inline constexpr llvm::StringLiteral kFastMathAttr = "tile.fast_math";
/// Optional kernel attribute (i64): the config's maxnreg, the registers a
/// thread may use at most (PTX .maxnreg; -dslc-lower-to-llvm).
inline constexpr llvm::StringLiteral kMaxNRegAttr = "tile.maxnreg";
/// Name of the array-of-strings attribute naming a kernel's parameters.
inline constexpr llvm::StringLiteral kArgNamesAttr = "tile.arg_names";
/// Name of the integer attribute giving the number of peers (world size).
inline constexpr llvm::StringLiteral kPeerCountAttr = "tile.peer_count";
/// Name of the argument attribute (#tile.role) giving a kernel argument's
/// role.
inline constexpr llvm::StringLiteral kRoleAttr = "tile.role";
/// Name of the argument attribute (dense i64 array, one entry per
/// dimension, -1 where unknown) giving the sizes of a
/// tensor parameter that every launch checks equal to a constant (the
/// metadata's `==` constraints, or those of the tensor an output is made
/// like): -dslc-distribute-tiles compiles them in instead of reading the
/// size slots.
inline constexpr llvm::StringLiteral kStaticSizesAttr = "tile.static_sizes";
/// Name of the function attribute listing a flattened kernel's ABI slots
/// (an array of #tile.abi_slot).
inline constexpr llvm::StringLiteral kAbiAttr = "tile.abi";

/// The role of argument `index` of `func` (a func.func tile kernel), or
/// null when it has none.
RoleAttr getArgRole(mlir::FunctionOpInterface func, unsigned index);
/// Size `dim` of tensor argument `index` of `func` where every launch
/// checks it equal to a constant (its `tile.static_sizes` entry), else
/// nullopt.
std::optional<int64_t> getStaticSize(mlir::FunctionOpInterface func,
                                     unsigned index, unsigned dim);
/// The ABI slots of a flattened kernel (its `tile.abi`), as the contract
/// has them; empty when it has none.
std::vector<contract::AbiSlot> getAbiSlots(mlir::Operation *func);
/// The tensor `ref` is a view of (through tile.view ops), or `ref` itself:
/// the memory an access of `ref` touches belongs to it.
mlir::Value viewedTensor(mlir::Value ref);
/// Most dimensions of a tile value (the lowering's limit).
inline constexpr int64_t kMaxTileRank = 6;

/// Whether `type` is an element type of tensors in memory: an integer of
/// 1, 8, 16, 32 or 64 bits, bf16, f16, f32, f64, or one of the fp8 storage
/// types f8E4M3FN and f8E5M2.
bool isStorageElementType(mlir::Type type);
/// Whether `type` is an fp8 storage type (f8E4M3FN, f8E5M2): loaded,
/// stored and converted, but not computed with.
bool isFp8Type(mlir::Type type);
/// Whether a matrix product of `element` inputs can run on tensor cores:
/// bf16, f16 and fp8 (widened to f16 or read by wgmma), f32 in tf32 only
/// where the kernel allows it (kAllowTf32Attr). MLIRGen's engine choice
/// and -dslc-mma-layouts read this one rule.
bool takesTensorCores(mlir::Type element, bool allowTf32);

/// The bytes of a row one tensor-core k-step of a tile.staged_dot reads:
/// 16 16-bit elements (mma.sync's and wgmma's k16), 32 fp8 ones (wgmma's
/// k32).
inline constexpr int64_t kStagedStepBytes = 32;

/// The static extents of the whole rows `body` reduces (tile.reduce along
/// the last dimension of a static tile, among `body`'s own ops), in order
/// of their first reduction: the dimensions reduction_loops[k] names
/// (RollReductions; MLIRGen offers them to the tuner).
llvm::SmallVector<int64_t> reducedRowExtents(mlir::Block &body);

/// The cache hint of a tile.load or tile.gather (none without an `evict`
/// attribute; none for any other op).
std::optional<Eviction> loadEviction(mlir::Operation *load);
/// Sets a tile.load's or tile.gather's cache hint, or removes it (none).
void setLoadEviction(mlir::Operation *load, std::optional<Eviction> evict);

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
