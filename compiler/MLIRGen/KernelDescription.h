//===- KernelDescription.h - What MLIRGen learns about a kernel -*- C++ -*-===//
//
// Everything the runtime needs besides the code (docs/kernel-abi.md): the
// parameters and outputs, the compiled-in constants, the tunables and their
// values, the grid rule and the constraints to check before a launch.
// MLIRGen fills it; the pipeline adds the ABI slots and writes the JSON.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_MLIRGEN_KERNELDESCRIPTION_H
#define DSLC_COMPILER_MLIRGEN_KERNELDESCRIPTION_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace dslc {

struct ParamDescription {
  enum class Kind { Tensor, Scalar, Constexpr };
  std::string name;
  Kind kind = Kind::Tensor;
  std::string dtype; ///< Tensors and scalars.
  unsigned rank = 0; ///< Tensors.
  bool symmetric = false;
  /// Tensors: "read", "write", "readwrite" or "none" (AccessAnalysis.h).
  std::string access;
  /// A uint64 table passed as a stack tensor's `dev_ptrs`: the parameter
  /// whose copies on every rank it lists.
  std::optional<std::string> peerTableFor;
  /// Constexpr value as written (JSON literal text), if it has one.
  std::optional<std::string> value;
};

struct OutputDescription {
  std::string name;
  std::string dtype;
  unsigned rank = 0;
  std::string like; ///< Parameter whose sizes it takes.
};

/// The extent of one grid dimension.
struct GridExtent {
  std::optional<std::string> param; ///< Size `dim` of this tensor, or
  unsigned dim = 0;
  std::optional<std::string> scalar; ///< this scalar parameter, or
  std::optional<int64_t> constant;   ///< this constant.
  /// The extent is floor((that + add) / div): `(N + W - 1) // W` gives
  /// add = W - 1, div = W.
  int64_t add = 0, div = 1;
  int64_t block = 1;
};

struct Constraint {
  std::string param;
  unsigned dim = 0;
  std::string op;                           ///< "==" or ">=".
  std::variant<int64_t, std::string> value; ///< or "num_tiles".
};

struct Tunable {
  std::string name;
  int64_t value;
};

struct KernelDescription {
  std::string kernel;
  std::string sourceFile;
  unsigned sourceLine = 0;
  int64_t numWarps = 4;
  bool spins = false;
  /// Bytes of per-launch device state (per-CTA epochs), and the grid cap
  /// that bounds them.
  int64_t stateBytes = 0;
  std::optional<int64_t> maxCtas;
  std::optional<int64_t> worldSize, rank;
  std::map<std::string, std::string> constants; ///< name -> JSON literal.
  std::vector<Tunable> tunables;
  std::vector<GridExtent> grid;
  std::vector<ParamDescription> params;
  std::vector<OutputDescription> outputs;
  std::vector<Constraint> constraints;
};

} // namespace dslc

#endif // DSLC_COMPILER_MLIRGEN_KERNELDESCRIPTION_H
