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

/// An extent of the tile grid.
struct Extent {
  enum class Kind { ParamDim, Scalar, Const };
  Kind kind = Kind::Const;
  std::string name; ///< ParamDim / Scalar
  int dim = 0;      ///< ParamDim
  int64_t value = 0; ///< Const
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
};

/// Parses metadata JSON text. `origin` names the file in error messages.
/// Throws Error(Metadata) with a message naming the file and the field.
KernelMetadata parseMetadata(const std::string &text,
                             const std::string &origin);
KernelMetadata loadMetadataFile(const std::string &path);

/// Reads a whole file; throws Error(Io).
std::string readFile(const std::string &path);

} // namespace dslc::rt

#endif // DSLC_RUNTIME_METADATA_H
