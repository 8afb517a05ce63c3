//===- Metadata.h - What a compiled kernel tells its callers ----*- C++ -*-===//
//
// The kernel contract of docs/kernel-abi.md as C++: the compiler fills a
// KernelMetadata (MLIRGen, the access analysis, the ABI flattening), writes
// it beside the cubin (MetadataJson.h), and the runtime, the tools and the
// simulator read the same struct back. Every parameter carries its role,
// decided once by the compiler's access analysis
// (compiler/MLIRGen/AccessAnalysis.cpp); no reader guesses a role from a
// name, a dtype or a rank.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_CONTRACT_METADATA_H
#define DSLC_CONTRACT_METADATA_H

#include "contract/DType.h"
#include "contract/Expected.h"
#include "contract/KernelConfig.h"

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace dslc::contract {

/// The metadata version this library reads and writes.
inline constexpr int kMetadataVersion = 2;

/// What a kernel does with a parameter (docs/kernel-abi.md, "Roles").
enum class Role {
  Input,     ///< a tensor the kernel only reads
  Output,    ///< a returned tensor, or one the kernel only writes
  InOut,     ///< a tensor the kernel reads and writes (e.g. a staging
             ///< buffer peers store into)
  Scratch,   ///< LL packet scratch (hl.ll_put / hl.ll_get): zeroed once,
             ///< kept across launches
  SignalPad, ///< flags of hl.signal / hl.wait: zeroed once, kept
  PeerTable, ///< uint64 table of another parameter's peer addresses
  Scalar,    ///< int / float passed by value
  Constexpr, ///< compiled in, not passed
  Unused,    ///< a tensor whose memory the kernel never touches
  /// The peer table of a symmetric tensor (`X.peers`): an ABI slot the
  /// runtime fills, not a DSL parameter (never in `params`).
  Peers,
};

/// Whether the kernel loads and/or stores a tensor's memory (directly,
/// through peers or through a stack tensor): the fact the role is decided
/// from, kept for messages and tools.
enum class Access { None, Read, Write, ReadWrite };

enum class SlotType { Ptr, I64, F32 };

/// What an ABI slot holds.
enum class SlotKind {
  Data,    ///< ptr: a tensor's address
  Size,    ///< i64: size `dim` of a tensor
  Peers,   ///< ptr: device table of world_size peer addresses (symmetric)
  Scalar,  ///< i64 / f32 by value
  Timeout, ///< hidden __dslc_timeout_ns (i64)
  Error,   ///< hidden __dslc_error (ptr)
  State,   ///< hidden __dslc_state (ptr)
};

const char *roleName(Role role);
std::optional<Role> parseRole(const std::string &name);
const char *accessName(Access access);
std::optional<Access> parseAccess(const std::string &name);
const char *slotTypeName(SlotType type);
std::optional<SlotType> parseSlotType(const std::string &name);
const char *slotKindName(SlotKind kind);
std::optional<SlotKind> parseSlotKind(const std::string &name);
/// Timeout, Error and State: slots every kernel has, bound by the runtime.
bool isHidden(SlotKind kind);
/// The name and type of a hidden slot.
const char *hiddenSlotName(SlotKind kind);
SlotType hiddenSlotType(SlotKind kind);

/// What the compiler knows about an LL scratch: how many hl.ll_put calls in
/// the source write into it and the bytes of the largest tile of packets
/// one of them moves. Its size follows (Sizing.h, llScratchBytes).
struct PacketScratch {
  int64_t puts = 0;
  int64_t tileBytes = 0;
  bool operator==(const PacketScratch &o) const {
    return puts == o.puts && tileBytes == o.tileBytes;
  }
};

/// A parameter or an output of a kernel.
struct ArgSpec {
  enum class Kind { Tensor, Scalar, Constexpr };
  std::string name;
  Kind kind = Kind::Tensor;
  DType dtype = DType::Float32; ///< tensors and scalars
  int rank = 0;                 ///< tensors
  /// A tensor passed to get_remote_tensors: it has an `X.peers` slot.
  bool symmetric = false;
  /// A tensor passed as the row-major tensor it is stored as (dslc
  /// --dim-order): stored dimension s is dimension dimOrder[s] of the
  /// tensor the kernel sees (torch's Tensor.dim_order()). Its sizes here,
  /// in the ABI and in constraints are the stored ones. Empty: row-major.
  std::vector<unsigned> dimOrder;
  Role role = Role::Input;
  Access access = Access::None; ///< tensors
  /// Role PeerTable: the argument whose world_size peer addresses it holds
  /// (the rank's own entry included).
  std::string peerTableFor;
  /// Role Scratch.
  PacketScratch packets;
  /// A parameter the compiler added, not the DSL source: the local signal
  /// pad a peer table passed to Helion's symm_mem_sync points at (named
  /// `TABLE.pad`). A caller never takes it from the user's arguments; it
  /// binds it like any signal pad (docs/kernel-abi.md, "Implicit
  /// parameters").
  bool implicit = false;
  bool isOutput = false;
  std::string like; ///< outputs: the parameter whose shape they take
  /// Outputs made by torch.zeros / zeros_like / new_zeros: they must hold
  /// zeros before each launch (the kernel may only add into them, e.g.
  /// with hl.atomic_add), so every caller allocates them zeroed.
  bool zeroed = false;
  /// Constexprs: the value as a JSON literal, when it has one. Scalars:
  /// the source's default (`eps: float = 1e-5`), which a caller binds when
  /// the scalar is not given.
  std::optional<std::string> value;
  /// A scalar's default as a number (nullopt: none, or not a scalar).
  std::optional<double> scalarDefault() const;

  static ArgSpec output(std::string name, DType dtype, int rank,
                        std::string like);
  bool isTensor() const { return kind == Kind::Tensor; }
  bool isIntScalar() const {
    return kind == Kind::Scalar && dtype == DType::Int64;
  }
  bool isFloatScalar() const {
    return kind == Kind::Scalar && dtype == DType::Float32;
  }
  bool reads() const {
    return access == Access::Read || access == Access::ReadWrite;
  }
  bool writes() const {
    return access == Access::Write || access == Access::ReadWrite;
  }
};

/// "tensor", "int", "float" or "constexpr".
const char *argKindName(const ArgSpec &arg);

/// Whether `order` is a dim order (ArgSpec::dimOrder, dslc --dim-order):
/// each of 0 .. order.size() - 1 once.
bool isPermutation(const std::vector<unsigned> &order);

/// The alignment in bytes of every tensor's data address (a `Data` slot):
/// the runtime refuses a tensor whose address is not a multiple of it, and
/// the compiler tells LLVM so (the kernel's pointer parameters are
/// `align 16`), which then proves whole 16-byte pieces aligned wherever the
/// strides are multiples of 16 bytes, without a run-time test or an
/// element-by-element fallback.
inline constexpr uint64_t kTensorAlignment = 16;

/// One entry of the ABI slot list: what the flattening laid out.
struct AbiSlot {
  std::string name; ///< "x", "x.size0", "x.peers", "__dslc_state"
  SlotType type = SlotType::Ptr;
  SlotKind kind = SlotKind::Data;
  std::string param; ///< the argument it belongs to (not for hidden slots)
  int dim = -1;      ///< Size slots
  /// Index of `param` in KernelMetadata::args (the reader fills it; -1 for
  /// hidden slots).
  int arg = -1;
};

/// The name a slot has: its parameter's name, `X.sizeD`, `X.peers`, or the
/// hidden slot's name.
std::string canonicalSlotName(const AbiSlot &slot);
/// What a slot of its kind must look like, whatever its parameter: hidden
/// slots have their fixed type and no parameter; data and peers are ptr,
/// sizes i64 with a dimension, scalars i64 or f32, each with a parameter;
/// the name is canonicalSlotName. The metadata reader and the IR's
/// #tile.abi_slot verifier both check slots with it.
Expected<bool> checkSlotShape(const AbiSlot &slot);

/// A dimension of the tile grid: ceil(extent / block) tiles, the extent
/// being floor((size + add) / div) of a tensor's size, or of an int
/// scalar's value, or a constant.
struct GridExtent {
  std::optional<std::string> param; ///< size `dim` of this tensor, or
  unsigned dim = 0;
  std::optional<std::string> scalar; ///< this int scalar, or
  std::optional<int64_t> constant;   ///< this constant.
  int64_t add = 0, div = 1;
  int64_t block = 1;

  /// The extent for a raw size (or scalar value) `size`; a constant ignores
  /// it. Never negative.
  int64_t apply(int64_t size) const;
};

/// The grid's tile count, the value of a "num_tiles" constraint.
struct NumTiles {
  bool operator==(const NumTiles &) const { return true; }
};

/// A launch-time check on a tensor's size: `param`.size(dim) OP value.
struct Constraint {
  std::string param;
  unsigned dim = 0;
  std::string op; ///< == != < <= > >=
  std::variant<int64_t, NumTiles> value;

  bool isNumTiles() const { return std::holds_alternative<NumTiles>(value); }
  /// The value, with `numTiles` standing for "num_tiles".
  int64_t valueWith(int64_t numTiles) const {
    return isNumTiles() ? numTiles : std::get<int64_t>(value);
  }
  /// Whether `size` satisfies it (given the grid's tile count).
  bool holds(int64_t size, int64_t numTiles) const;
};

/// Two tensor dimensions that one tile indexes (`gate[tm, tn]` with `tn` a
/// tile over `x.size(1)`): their sizes must be equal at launch, or the
/// kernel would read or write part of one tensor with masked tails and
/// answer a wrong number without a word.
struct SameSize {
  std::string param; ///< the tensor indexed
  unsigned dim = 0;
  std::string as; ///< the tensor whose size the tile runs over
  unsigned asDim = 0;
  std::string where; ///< the access, FILE:LINE:COL (messages)
  /// The kernel asserts the relation (`assert x.size(1) == y.size(0)`
  /// between two run-time sizes) rather than indexing both with one tile.
  bool asserted = false;
  /// What the kernel asserts of `param`'s size against `as`'s: equal (also
  /// every tile-made rule), at least, or more than. An inequality asserted
  /// for a pair one tile indexes replaces the tile's equality: the kernel
  /// says the sizes may differ (its masks then follow `as`).
  enum class Relation { Eq, Ge, Gt };
  Relation relation = Relation::Eq;

  /// Same pair of dimensions (in either order).
  bool samePair(const SameSize &o) const {
    return (param == o.param && dim == o.dim && as == o.as &&
            asDim == o.asDim) ||
           (param == o.as && dim == o.asDim && as == o.param && asDim == o.dim);
  }
  bool operator==(const SameSize &o) const {
    return param == o.param && dim == o.dim && as == o.as && asDim == o.asDim &&
           relation == o.relation;
  }
  /// "'gate' dim 1 is 2048, but 'x' dim 1 is 4096: the kernel indexes both
  /// with one tile (at WHERE), ..." (or asserts the relation there) for
  /// sizes `size` and `asSize`; empty when the relation holds.
  std::string problem(int64_t size, int64_t asSize) const;
  /// "==", ">=", ">" (the metadata's spelling).
  static const char *relationName(Relation r);
  static std::optional<Relation> parseRelation(const std::string &name);
};

/// One dimension of a returned view (`out.view(q.size())`,
/// `inv_rms.reshape(-1, 1)`): a size written as a grid extent is (a
/// constant, floor((size of a tensor's dimension + add) / div)), or, when
/// absent, the one size the caller infers (-1).
struct ViewDim {
  std::optional<GridExtent> size;
  bool operator==(const ViewDim &o) const;
};

/// What a kernel's `return` statement gives its caller ("returns"): per
/// value, the tensor argument it returns (an output the kernel makes or a
/// parameter; a returned view of a tensor is that tensor, viewed as `views`
/// says when its sizes are known), or none (a `None` in the statement, or a
/// value host code computes, which dslc warns about); `tuple` when the
/// statement returns a tuple or a list (even of one value), else the one
/// value itself.
struct Returns {
  std::vector<std::optional<std::string>> values;
  /// Per value, the view's sizes; empty: the tensor as it is.
  std::vector<std::vector<ViewDim>> views;
  bool tuple = false;
  bool operator==(const Returns &o) const {
    return values == o.values && views == o.views && tuple == o.tuple;
  }
};

/// The most elements 32-bit index values reach (INT32_MAX): a tensor of
/// more needs 64-bit ones (Helion's index_dtype rule; dslc's MLIRGen chooses
/// by it, the runtime refuses a 32-bit kernel such a tensor).
inline constexpr int64_t kMax32BitIndexElements =
    std::numeric_limits<int32_t>::max();

/// The product of `sizes`, saturated at INT64_MAX (a product past it is as
/// much over any limit; hostile sizes must not wrap into a small count);
/// 0 when any size is 0.
int64_t saturatedNumel(const std::vector<int64_t> &sizes);

struct KernelMetadata {
  std::string origin; ///< the file it was read from (messages; not written)
  int version = kMetadataVersion;
  std::string kernel;
  std::string entry; ///< empty: the kernel's name
  std::string sourceFile;
  unsigned sourceLine = 0;
  std::string sourceSha256;
  std::string arch;
  int64_t numWarps = 4;
  /// No config gave num_warps: dslc chose it (not written; dslc's driver
  /// may then compile at more warps when ptxas spills).
  bool numWarpsDefaulted = false;
  int64_t sharedBytes = 0;
  bool spins = false;
  /// Bytes of per-launch device state (per-CTA epochs), and the grid cap
  /// that bounds them.
  int64_t stateBytes = 0;
  std::optional<int64_t> maxCtas;
  std::optional<int64_t> worldSize, rank;
  /// The most elements a tensor argument may hold (0: no limit): set to
  /// kMax32BitIndexElements where the kernel computes with 32-bit index
  /// values (tile.index, hl.arange: Helion's int32 index_dtype), whose
  /// products (`tile.index * v`) would wrap past it and address the wrong
  /// elements without a word.
  int64_t maxTensorElements = 0;
  std::string multicast = "software"; ///< or "nvls"
  std::optional<int64_t> defaultTimeoutMs;
  std::map<std::string, std::string> constants; ///< name -> JSON literal
  std::vector<Tunable> tunables;
  std::vector<GridExtent> grid;
  /// The grids of the kernel's later top-level loops (Helion's several
  /// loops in one launch, ordered by hl.barrier or not): every CTA strides
  /// over each loop's tiles in turn, and the launch takes the most tiles of
  /// any loop (contract::numTiles).
  std::vector<std::vector<GridExtent>> moreGrids;
  /// The bindable arguments: the parameters that are not constexprs, in
  /// source order, then the outputs. Positions count in this order.
  std::vector<ArgSpec> args;
  std::vector<ArgSpec> constexprs;
  std::vector<Constraint> constraints;
  /// Tensor dimensions that must have equal sizes ("same_sizes").
  std::vector<SameSize> sameSizes;
  std::vector<AbiSlot> abi;
  /// The kernel's `return` statement; none: the kernel has none (its
  /// callers get the outputs it makes, in order).
  std::optional<Returns> returns;

  int64_t threadsPerCta() const { return numWarps * kWarpSize; }
  const std::string &entryName() const {
    return entry.empty() ? kernel : entry;
  }
  /// Index of the bindable argument `name`, or -1.
  int findArg(const std::string &name) const;
};

} // namespace dslc::contract

#endif // DSLC_CONTRACT_METADATA_H
