//===- Metadata.h - dslc kernel metadata (*.cubin.json) ---------*- C++ -*-===//
//
// Parses and validates the metadata file that dslc writes beside each cubin
// (docs/kernel-abi.md). The result tells the binder which arguments a kernel
// takes, how they map to ABI slots, which constraints to check and how to
// size the grid. Parsing needs no GPU.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_RUNTIME_METADATA_H
#define DSLC_RUNTIME_METADATA_H

#include "runtime/DType.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dslc::rt {

/// How a kernel uses a tensor argument (metadata "access"): whether it loads
/// from it and/or stores into it, directly, through peers or through a stack
/// tensor. Unknown: older metadata without the field.
enum class Access { Unknown, None, Read, Write, ReadWrite };

const char *accessName(Access access);

/// A bindable argument: a non-constexpr parameter or an output.
struct ArgSpec {
  enum class Kind { Tensor, Tuple, Int, Float };
  std::string name;
  Kind kind = Kind::Tensor;
  DType dtype = DType::Float32; ///< tensors and tuples
  int rank = 0;                 ///< tensors and tuples
  bool symmetric = false;       ///< tensor with a peer table slot
  bool isOutput = false;
  std::string like; ///< outputs: the parameter whose shape they take
  /// Tensors: "access"; outputs are Write.
  Access access = Access::Unknown;
  /// A uint64 rank-1 tensor the kernel uses as the pointer table of a stack
  /// tensor: the argument whose world_size peer addresses it holds (the
  /// rank's own entry included). Empty otherwise.
  std::string peerTableFor;

  bool reads() const {
    return access == Access::Read || access == Access::ReadWrite;
  }
  bool writes() const {
    return access == Access::Write || access == Access::ReadWrite;
  }
};

const char *argKindName(ArgSpec::Kind kind);

enum class SlotType { Ptr, I64, F32 };

/// One entry of metadata.abi, resolved against the argument list.
struct AbiSlot {
  enum class Role {
    Data,    ///< ptr: the tensor's address
    Size,    ///< i64: tensor.size<dim>
    Peers,   ///< ptr: device table of world_size addresses (symmetric)
    Table,   ///< ptr: device table of world_size addresses (tuple)
    Scalar,  ///< i64 / f32 by value
    Timeout, ///< hidden __dslc_timeout_ns
    ErrorRecord, ///< hidden __dslc_error
    State,   ///< hidden __dslc_state
  };
  std::string name;
  SlotType type = SlotType::Ptr;
  Role role = Role::Data;
  int arg = -1; ///< index into KernelMetadata::args (not for hidden slots)
  int dim = -1; ///< Size slots
};

/// An extent of the tile grid: floor((size + add) / div) of a parameter's
/// size, an int scalar's value, or a constant.
struct Extent {
  enum class Kind { ParamDim, Scalar, Const };
  Kind kind = Kind::Const;
  std::string name; ///< ParamDim / Scalar
  int dim = 0;      ///< ParamDim
  int64_t value = 0; ///< Const
  int64_t add = 0;   ///< ParamDim / Scalar
  int64_t div = 1;   ///< ParamDim / Scalar, >= 1

  /// The extent for a raw size (or scalar value) `size`; a constant ignores
  /// it. Never negative.
  int64_t apply(int64_t size) const;
};

struct GridTile {
  Extent extent;
  int64_t block = 1;
};

struct Constraint {
  std::string param;
  int dim = 0;
  std::string op; ///< == != < <= > >=
  bool numTiles = false; ///< value is "num_tiles"
  int64_t value = 0;
};

struct KernelMetadata {
  std::string origin; ///< file name (for messages)
  int version = 1;
  std::string kernel;
  std::string entry;
  std::string arch;
  std::string sourceFile;
  int sourceLine = 0;
  int numWarps = 0;
  int threadsPerCta = 0;
  int sharedBytes = 0;
  bool spins = false;
  int64_t stateBytes = 0;
  std::optional<int> worldSize;
  std::optional<int> rank;
  std::vector<GridTile> tiles;
  std::optional<int64_t> maxCtas;
  std::vector<ArgSpec> args;
  std::vector<Constraint> constraints;
  std::vector<AbiSlot> abi;

  /// Index of the bindable argument `name`, or -1.
  int findArg(const std::string &name) const;
  /// The grid's tile count, given the raw value of each non-constant extent
  /// (a parameter's size or a scalar): product of ceil(extent / block).
  /// Throws Error(InvalidArgument) on overflow.
  template <typename F> int64_t numTilesWith(F &&rawSize) const;
};

/// ceil(extent / block) multiplied over the tiles, with overflow checks.
int64_t multiplyTiles(const KernelMetadata &md,
                      const std::vector<int64_t> &extents);

template <typename F> int64_t KernelMetadata::numTilesWith(F &&rawSize) const {
  std::vector<int64_t> extents;
  for (const GridTile &t : tiles)
    extents.push_back(t.extent.kind == Extent::Kind::Const
                          ? t.extent.value
                          : t.extent.apply(rawSize(t.extent)));
  return multiplyTiles(*this, extents);
}

/// Parses metadata JSON text. `origin` names the file in error messages.
/// Throws Error(Metadata) with a message naming the file and the field.
KernelMetadata parseMetadata(const std::string &text,
                             const std::string &origin);
KernelMetadata loadMetadataFile(const std::string &path);

/// Reads a whole file; throws Error(Io).
std::string readFile(const std::string &path);

} // namespace dslc::rt

#endif // DSLC_RUNTIME_METADATA_H
