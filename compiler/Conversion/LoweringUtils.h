//===- LoweringUtils.h - Shared helpers of the tile lowering ----*- C++ -*-===//

#ifndef DSLC_COMPILER_CONVERSION_LOWERINGUTILS_H
#define DSLC_COMPILER_CONVERSION_LOWERINGUTILS_H

#include "compiler/Conversion/TileLayout.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

#include <functional>
#include <optional>

namespace dslc {

/// Number of hidden trailing kernel parameters (docs/kernel-abi.md).
inline constexpr unsigned kNumHiddenArgs = 3;

/// The module's out-of-line error path (LoweringUtils.cpp), and the unit
/// attribute on each call of it after which the kernel returns.
inline constexpr llvm::StringLiteral kErrorTrapFunction = "__dslc_error_trap";
inline constexpr llvm::StringLiteral kErrorExitAttr = "dslc.error_exit";

/// Status codes written into the error record (docs/kernel-abi.md).
enum class ErrorStatus : uint32_t {
  WaitTimeout = 1,
  PacketTimeout = 2,
  SlotOutOfBounds = 3,
};

/// What a lowering pattern needs to know about the kernel it is in.
struct KernelInfo {
  int64_t threads = 128; ///< Threads per CTA.
  /// Elements of a piece: 16 bytes of the type moving the most bytes.
  int64_t maxVec = 8;
  /// Fewest elements a piece narrowed to fill a row's lanes keeps (16 bytes
  /// of the widest tensor's type; TileLayout::get).
  int64_t minVec = 8;
  /// Threads a row of a tile of rank >= 2 is spread over (TileLayout.h),
  /// unless the tile's shape calls for its own (TileLayout::choose).
  int64_t rowThreads = 128;

  /// Whether a tile may take its own row threads (TileLayout::choose).
  bool ownLayouts = true;

  TileLayout layout(llvm::ArrayRef<int64_t> shape) const {
    if (!ownLayouts)
      return TileLayout::get(shape, threads, maxVec, rowThreads, minVec);
    return TileLayout::choose(shape, threads, maxVec, rowThreads, minVec);
  }
  /// This kernel's layouts with every tile of rank >= 2 spread over `p`
  /// threads a row (a reduction's result in the layout of its input).
  KernelInfo withRowThreads(int64_t p) const {
    KernelInfo fixed = *this;
    fixed.rowThreads = p;
    fixed.ownLayouts = false;
    return fixed;
  }
};

/// Most bytes of shared memory a kernel's workspace may take (the
/// contract's per-CTA limit).
inline constexpr int64_t kMaxSharedBytes = contract::kMaxSharedBytesPerCta;
/// Most bytes of static shared memory a CTA may declare: a larger workspace
/// is dynamic shared memory (docs/kernel-abi.md).
inline constexpr int64_t kMaxStaticSharedBytes = 48 * 1024;
/// Name of the module's shared-memory workspace (addrspace 3, 16-byte
/// aligned), sized to the largest need of any op of the module's kernels:
/// a static array up to kMaxStaticSharedBytes, else an external (dynamic)
/// one; its size is the module attribute kSharedWorkspaceBytesAttr.
inline constexpr llvm::StringLiteral kSharedWorkspace = "__dslc_workspace";
inline constexpr llvm::StringLiteral kSharedWorkspaceBytesAttr =
    "dslc.workspace_bytes";

/// Type conversion of the distribution: tiles become per-thread vectors (of
/// their storage type: fp8 as i8), refs and stacks become LLVM structs,
/// everything else is kept.
class TileTypeConverter : public mlir::TypeConverter {
public:
  TileTypeConverter(mlir::MLIRContext *ctx, const KernelInfo &info);
  const KernelInfo &getKernelInfo() const { return info; }

private:
  KernelInfo info;
};

/// Small builders for the LLVM-level code the patterns emit.
namespace lower {
/// The identity of reduction `kind` (0, 1, -inf / +inf, the integer
/// extremes; for i1, max is "any" and min is "all") as an attribute of
/// `element` (an integer or float type).
mlir::TypedAttr reduceIdentity(dslc::tile::ReduceKind kind, mlir::Type element);
/// `x kind y` (scalars or vectors/tensors of one type): addf/addi,
/// mulf/muli, maximumf/minimumf (NaN propagating), signed max/min (unsigned
/// for i1).
mlir::Value reduceCombine(mlir::OpBuilder &b, mlir::Location loc,
                          dslc::tile::ReduceKind kind, mlir::Value x,
                          mlir::Value y);
/// The type a tile element has in per-thread vectors and in memory: fp8
/// (f8E4M3FN, f8E5M2) as i8, everything else unchanged.
mlir::Type storageType(mlir::Type element);
/// The type a per-thread element has in memory: i1 as i8 (a bool tensor is
/// a byte per element; LLVM packs vectors of i1 into bits), else itself.
mlir::Type memoryType(mlir::Type storage);
/// `value` (an integer or float attribute of a tile element type) as an
/// attribute of its storage type.
mlir::TypedAttr storageAttr(mlir::TypedAttr value);
/// A vector constant of `type` whose elements all equal `value` (converted
/// to the vector's storage element type).
mlir::Value splatConstant(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::VectorType type, mlir::TypedAttr value);
mlir::Type ptrType(mlir::MLIRContext *ctx);
mlir::Value i64(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
mlir::Value i32(mlir::OpBuilder &b, mlir::Location loc, int32_t v);
mlir::Value threadId(mlir::OpBuilder &b, mlir::Location loc);
mlir::Value toI64(mlir::OpBuilder &b, mlir::Location loc, mlir::Value index);
mlir::Value toIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value i64v);
/// Field `i` of an LLVM struct value.
mlir::Value field(mlir::OpBuilder &b, mlir::Location loc, mlir::Value s,
                  int64_t i);
/// Address of element `index` (i64) of `elementType` at `base`.
mlir::Value elementPtr(mlir::OpBuilder &b, mlir::Location loc, mlir::Value base,
                       mlir::Type elementType, mlir::Value index);
/// Row-major linear index of `coords` (i64) in a tensor of `sizes` (i64).
mlir::Value linearIndex(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::ValueRange coords, mlir::ValueRange sizes);
/// A single-result PTX inline-asm statement with side effects and a memory
/// clobber (so the compiler neither drops nor reorders it).
mlir::Value asmValue(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                     llvm::StringRef asmString, llvm::StringRef constraints,
                     mlir::ValueRange operands);
void asmStatement(mlir::OpBuilder &b, mlir::Location loc,
                  llvm::StringRef asmString, llvm::StringRef constraints,
                  mlir::ValueRange operands);
/// A load from global memory of `type` (a scalar or a vector) at `ptr`,
/// `align` bytes aligned, with `evict`'s cache hint: as Triton emits
/// evict_first / evict_last, ld.global.L1::evict_X.L2::cache_hint with a
/// createpolicy.fractional.L2::evict_X policy. A load of 2, 4, 8 or 16
/// bytes takes the hint; others (bytes) and `normal` are plain llvm.load.
mlir::Value globalLoad(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                       mlir::Value ptr, int64_t align, tile::Eviction evict);
/// bar.sync 0 for the whole CTA.
void ctaBarrier(mlir::OpBuilder &b, mlir::Location loc);

/// Bytes of the shared-memory workspace `op` needs when lowered in a kernel
/// of `info` (0 for ops that need none).
int64_t sharedBytesNeeded(mlir::Operation *op, const KernelInfo &info);
/// The part of sharedBytesNeeded for tile.reduce (ReduceLowering.cpp).
int64_t reduceSharedBytes(mlir::Operation *reduce, const KernelInfo &info);
/// The part of sharedBytesNeeded for tile.dot (DotLowering.cpp): its
/// staged f32 operands and product.
int64_t dotSharedBytes(mlir::Operation *dot);
/// Rejects (at the op) a tile.dot whose staging exceeds kMaxSharedBytes,
/// naming its block sizes (DotLowering.cpp).
mlir::LogicalResult checkDotFits(mlir::Operation *dot);
/// The part of sharedBytesNeeded for a tensor-core tile.dot and for
/// tile.convert_layout to or from #tile.mma (MmaLowering.cpp).
int64_t mmaDotSharedBytes(mlir::Operation *dot);
int64_t mmaConvertSharedBytes(mlir::Operation *convert);
/// The per-thread elements of a tile encoded #tile.mma; none for others.
std::optional<int64_t> mmaElementsPerThread(mlir::Type type);
/// Makes every tile.dot of `func` compute in f32 only: its inputs widened
/// with arith.extf, a 16-bit result rounded with arith.truncf after it
/// (DotLowering.cpp; the distribution runs it first).
void widenDots(mlir::func::FuncOp func);
/// Creates (or grows) the module's workspace to hold `bytes`.
void reserveSharedWorkspace(mlir::ModuleOp module, int64_t bytes);
/// The address (!llvm.ptr<3>) of the workspace of the module holding
/// `inModule`; reserveSharedWorkspace made it.
mlir::Value sharedWorkspace(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Operation *inModule);

/// The kernel's hidden parameters, as seen from inside its body.
struct HiddenArgs {
  mlir::Value timeoutNs; ///< i64
  mlir::Value error;     ///< !llvm.ptr<1>
  mlir::Value state;     ///< !llvm.ptr<1>
};
HiddenArgs hiddenArgs(mlir::Operation *inKernel);

/// Source position of `loc` (line, column), 0 where unknown.
std::pair<unsigned, unsigned> lineAndColumn(mlir::Location loc);

/// What a spin records when it times out.
struct SpinSite {
  ErrorStatus status;
  mlir::Value slot;     ///< i64
  mlir::Value expected; ///< i64
  mlir::Value address;  ///< i64
};

/// Emits a bounded spin: calls `attempt` until its first result (i1) is
/// true. Its second result (i64) is the value seen, for the error record.
/// When the kernel's timeout (ns of %globaltimer, 0 = none) passes first,
/// the spin fills the error record at `site` and traps.
void boundedSpin(mlir::OpBuilder &b, mlir::Location loc,
                 mlir::Operation *inKernel,
                 const std::function<std::pair<mlir::Value, mlir::Value>(
                     mlir::OpBuilder &, mlir::Location)> &attempt,
                 const SpinSite &site);

/// The same, where `attempt` also produces `types` values (say, the words of
/// a packet); the values of the successful attempt are returned.
mlir::SmallVector<mlir::Value> boundedSpinWithValues(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *inKernel,
    mlir::TypeRange types,
    const std::function<
        std::tuple<mlir::Value, mlir::Value, mlir::SmallVector<mlir::Value>>(
            mlir::OpBuilder &, mlir::Location)> &attempt,
    const SpinSite &site);

/// The kernel's per-CTA launch counter: &state[blockIdx.x] (i32).
mlir::Value epochCounter(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Operation *inKernel);
/// After a bar.sync, thread 0 of the CTA stores `epoch` (this launch's
/// value, the kernel's one comm.epoch) as its launch counter; the kernel
/// ends with this when it reads comm.epoch.
void advanceEpoch(mlir::OpBuilder &b, mlir::Location loc,
                  mlir::Operation *inKernel, mlir::Value epoch);

/// Fills the error record with `site` and `seen`, then traps: a call of the
/// module's out-of-line error path (kErrorTrapFunction), marked
/// kErrorExitAttr so that LowerToLLVM ends the kernel right after it. To
/// LLVM the call returns; code after it is unreachable in fact.
void recordErrorAndTrap(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Operation *inKernel, const SpinSite &site,
                        mlir::Value seen);
} // namespace lower

/// A conversion pattern that knows the kernel's thread layout.
template <typename Op> struct TilePattern : mlir::OpConversionPattern<Op> {
  TilePattern(TileTypeConverter &converter, mlir::MLIRContext *ctx)
      : mlir::OpConversionPattern<Op>(converter, ctx),
        info(converter.getKernelInfo()) {}
  KernelInfo info;
};

/// Pattern sets, one per op family.
void populateGridLoweringPatterns(TileTypeConverter &converter,
                                  mlir::RewritePatternSet &patterns);
void populateMemoryLoweringPatterns(TileTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns);
/// tile.gather and tile.scatter (GatherLowering.cpp).
void populateGatherLoweringPatterns(TileTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns);
void populateDotLoweringPatterns(TileTypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);
/// Tensor-core tile.dot and tile.convert_layout (MmaLowering.cpp).
void populateMmaLoweringPatterns(TileTypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);

/// tile.async_copy, tile.async_commit, tile.async_wait and tile.staged_dot
/// (StagedLowering.cpp).
void populateStagedLoweringPatterns(TileTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns);
void populateReduceLoweringPatterns(TileTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns);
void populateShapeLoweringPatterns(TileTypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);
void populateElementwiseLoweringPatterns(TileTypeConverter &converter,
                                         mlir::RewritePatternSet &patterns);
void populateCommLoweringPatterns(TileTypeConverter &converter,
                                  mlir::RewritePatternSet &patterns);
void populatePacketLoweringPatterns(TileTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns);
/// Math ops to libdevice calls, bf16/f16 math in f32 (MathLowering.cpp);
/// run by LowerToLLVM before the conversion to LLVM.
void populateMathLoweringPatterns(mlir::RewritePatternSet &patterns);

} // namespace dslc

#endif // DSLC_COMPILER_CONVERSION_LOWERINGUTILS_H

namespace dslc::lower {

/// One piece (V contiguous elements of the last tile dimension) of a
/// thread's share of a tile access into a row-major tensor.
struct AccessPiece {
  int64_t position;   ///< Offset of the piece in the per-thread vector.
  int64_t vec;        ///< Elements in the piece.
  mlir::Value base;   ///< Address of the piece's first element.
  mlir::Value stride; ///< i64 elements between neighbours of the piece.
  bool contiguous;    ///< The tile's last dim is the tensor's last dim.
  mlir::Value mask;   ///< vector<V x i1>: which elements are in bounds.
  mlir::Value full;   ///< i1: all in bounds and the base is 16B-aligned.
};

/// Describes a tile access: tensor address and sizes (i64), and per tensor
/// dimension the access offset and limit (i64); `dims` maps tile to tensor
/// dimensions.
struct TileAccess {
  mlir::Value ptr;
  llvm::SmallVector<mlir::Value> sizes, offsets, limits;
  llvm::ArrayRef<int64_t> dims;
  llvm::ArrayRef<int64_t> tileShape;
  mlir::Type elementType; ///< The memory type (fp8 and i1 as i8).
  /// A store: one writer per element (lane 0 of a replicated tile, group
  /// 0 of a tile every group holds; TileLayout.h).
  bool writes = false;
};

/// The access of a tile op into a converted ref or stack struct whose sizes
/// start at field `firstSize` (1 for a ref, 2 for a stack), at address `ptr`.
TileAccess makeAccess(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::Value refOrStack, unsigned firstSize,
                      mlir::Value ptr, mlir::ValueRange offsets,
                      mlir::ValueRange limits, llvm::ArrayRef<int64_t> dims,
                      mlir::RankedTensorType tile);

/// Calls `fn` for each piece of this thread's share of `access`.
void forEachPiece(mlir::OpBuilder &b, mlir::Location loc,
                  const KernelInfo &info, const TileAccess &access,
                  const std::function<void(const AccessPiece &)> &fn);
/// Loads a piece: one vector load when `full`, else element by element
/// under its mask; masked-off elements take `other` (vector<V>). Global
/// loads take `evict`'s cache hint (globalLoad).
mlir::Value loadPiece(mlir::OpBuilder &b, mlir::Location loc,
                      const AccessPiece &piece, mlir::Value other,
                      tile::Eviction evict = tile::Eviction::normal);
/// Stores a piece (vector<V>) under its mask.
void storePiece(mlir::OpBuilder &b, mlir::Location loc,
                const AccessPiece &piece, mlir::Value value);

/// This thread's row-major row (i64, over the leading dimensions) of its
/// row `o` in `layout`, and whether it holds data (i1; null when it always
/// does: only dimensions dealt over groups have padding rows).
std::pair<mlir::Value, mlir::Value> rowOf(mlir::OpBuilder &b,
                                          mlir::Location loc,
                                          const TileLayout &layout, int64_t o,
                                          mlir::Value group);
/// The same row, a padding row clamped to the last one (for reads that
/// must stay inside the tile).
mlir::Value rowInBounds(mlir::OpBuilder &b, mlir::Location loc,
                        const TileLayout &layout, int64_t o, mlir::Value group);
/// This thread's indices (i64) along the leading dimensions of `shape` of
/// its row `o` in `layout` (a padding row clamped to the last): constants
/// for the dimensions held whole.
llvm::SmallVector<mlir::Value>
rowIndices(mlir::OpBuilder &b, mlir::Location loc, const TileLayout &layout,
           llvm::ArrayRef<int64_t> shape, int64_t o, mlir::Value group);
/// This thread's lane and group (i64) in `layout` (TileLayout.h).
std::pair<mlir::Value, mlir::Value>
laneAndGroup(mlir::OpBuilder &b, mlir::Location loc, const TileLayout &layout);

/// How a tile's per-thread vector changes between two layouts of the same
/// elements: not at all, by a local selection (from a tile every thread
/// holds whole into one group), or through the shared workspace.
enum class LayoutChange { None, Select, Shared };
LayoutChange layoutChange(const TileLayout &from, const TileLayout &to);

/// The per-thread vector of a tile of `shape` (TileLayout.h), not held
/// whole by every thread and spread over one group, from `all`, the vector
/// of every element of the tile (row-major) that each thread holds: a local
/// selection by thread index.
mlir::Value distributeReplicated(mlir::OpBuilder &b, mlir::Location loc,
                                 const KernelInfo &info,
                                 llvm::ArrayRef<int64_t> shape,
                                 mlir::Value all);
/// `value`, the per-thread vector of a tile of shape `from`, as that of the
/// same elements in shape `to` (a reshape: the row-major order is the
/// same). Through the workspace (LayoutChange::Shared) it takes
/// gatherSharedBytes(from, element) bytes between two bar.syncs.
mlir::Value convertLayout(mlir::OpBuilder &b, mlir::Location loc,
                          const KernelInfo &info, llvm::ArrayRef<int64_t> from,
                          llvm::ArrayRef<int64_t> to, mlir::Value value,
                          mlir::Operation *inModule);
/// The same, from `from` in `fromInfo`'s layout to `to` in `toInfo`'s.
mlir::Value convertLayout(mlir::OpBuilder &b, mlir::Location loc,
                          const KernelInfo &fromInfo,
                          llvm::ArrayRef<int64_t> from,
                          const KernelInfo &toInfo, llvm::ArrayRef<int64_t> to,
                          mlir::Value value, mlir::Operation *inModule);
int64_t gatherSharedBytes(llvm::ArrayRef<int64_t> shape, mlir::Type element);
/// Stores the per-thread vector `value` (of memory element type) of a tile
/// of `shape` row-major at `base` (shared memory, 16-byte aligned), one
/// writer per element; no barrier. Rows start `pitch` elements apart (0:
/// the last dimension's size, dense).
void storeDistributed(mlir::OpBuilder &b, mlir::Location loc,
                      const KernelInfo &info, llvm::ArrayRef<int64_t> shape,
                      mlir::Value value, mlir::Value base, int64_t pitch = 0);
/// The converse: this thread's per-thread vector of a tile of `shape` stored
/// row-major at `base` (elements of `memElement`, rows `pitch` apart as
/// above); padding reads elements in bounds. `onPiece(position, piece)`,
/// when given, rewrites each piece as it is loaded (so a sum with another
/// vector frees registers as it goes).
mlir::Value loadDistributed(
    mlir::OpBuilder &b, mlir::Location loc, const KernelInfo &info,
    llvm::ArrayRef<int64_t> shape, mlir::Type memElement, mlir::Value base,
    const std::function<mlir::Value(int64_t, mlir::Value)> &onPiece = nullptr,
    int64_t pitch = 0);

/// A move of coordinates along one dimension (tile.shift): coordinate c
/// reads c - offset where that lies inside the dimension, else c.
struct ElementShift {
  int64_t dim = 0, offset = 0;
};

/// This thread's per-thread vector of a tile of `shape` whose element at
/// coordinates (i0, ..., in-1) is element `offset + sum ik * strides[k]` of
/// `base` (shared memory, elements of `memElement`): one scalar load per
/// element, padding clamped into the tile; with `shift`, the coordinate
/// along its dimension moved first. A transpose permutes the strides, a
/// broadcast zeroes those of its unit dimensions, a shift moves one
/// coordinate.
mlir::Value loadStrided(mlir::OpBuilder &b, mlir::Location loc,
                        const KernelInfo &info, llvm::ArrayRef<int64_t> shape,
                        mlir::Type memElement, mlir::Value base,
                        llvm::ArrayRef<int64_t> strides, int64_t offset = 0,
                        std::optional<ElementShift> shift = std::nullopt);

/// Unit attribute on a tile.load / tile.gather: the kernel also writes the
/// tensor it reads (tile.store, tile.scatter, tile.atomic, through views or
/// not), so elements another thread of the CTA wrote may be read: the
/// lowering puts a CTA barrier (bar.sync, which orders global memory among
/// the CTA's threads) before it. One thread per element writes a tile and
/// a tile in another layout (a replicated [2, 2], a dot's operand) is read
/// by other threads: without it the read races with the write (Helion's
/// squeeze_and_excitation_net writes c and reads it back per row block).
inline constexpr llvm::StringLiteral kCtaOrderedAttr = "tile.cta_ordered";
/// Marks the loads and gathers of `func` that read a tensor it writes.
void markReadsAfterWrites(mlir::Operation *func);

/// The bytes a thread holds of `load`'s tile spread over `threads`
/// (rounded up; elements that are not numbers count 8 bytes): what a pass
/// that moves a load earlier keeps live in registers.
int64_t loadBytesPerThread(dslc::tile::LoadOp load, int64_t threads);

/// Threads of a CTA of kernel `func`: its `tile.num_warps` warps, or
/// KernelInfo's default when it has none (hand-written IR).
int64_t kernelThreads(mlir::func::FuncOp func);

/// Whether `op` may write memory a load repeated after it reads (a pass
/// that recomputes a load later: RollReductions, SplitWideDots).
/// Communication other than naming a peer's tensor or reading the launch
/// counter is a synchronization point (a peer may write after it),
/// whatever effects it declares.
bool mayWrite(mlir::Operation *op);
/// Whether `op` may write what `load` reads. A store into another kernel
/// parameter does not (parameters do not alias, as in Helion); anything
/// else that writes (a store into the same or a derived tensor, a signal
/// or wait, a packet, an op with unknown effects) may.
bool mayClobber(mlir::Operation *op, dslc::tile::LoadOp load);

} // namespace dslc::lower
