//===- Binding.h - Kernel parameters to host buffers ------------*- C++ -*-===//
//
// Decides what every parameter of a kernel is and how big, then allocates
// it on every rank. The rules (docs/simulator.md):
//   - an output (KernelDescription::outputs) takes the sizes of its `like`;
//   - a tensor T stored into through a stack view (comm.multicast_store on
//     hl.multicast_like(T, table) or hl.stacktensor_like(T, table)) is an
//     output too: every rank writes it on every rank (an all-gather's
//     result). It is poisoned before each launch, not filled with inputs;
//     its sizes nothing else fixes are [world size, N] for a 2-d T, [N] for
//     a 1-d one (N: --size N or the default); other ranks need --size.
//     `--reference auto` checks it as an all-gather when the kernel has no
//     torch.empty_like output, T is the only such tensor, T is 2-d with
//     dimension 0 = world size, and exactly one 1-d input of T's dtype has
//     T's dimension 1 as its size (the shard; Reference.h);
//   - `X.peers` (of a symmetric tensor X) is a table of X's addresses;
//   - a 1-d u64 tensor used as the table of hl.stacktensor_like(T, table)
//     is a table of T's addresses on every rank;
//   - a tensor used as the scratch of hl.ll_put/hl.ll_get (directly or as
//     T of a peer of get_remote_tensors(T)) is an LL scratch: zeroed once,
//     kept across launches, accessed as bytes. Its size: --size NAME=M,
//     then the kernel's constraints, else room for 2 x world size x
//     num_tiles packet tiles (the largest tile of its ll_put/ll_get in
//     packets: twice its data bytes), i.e. one region per sender and flag
//     parity, per tile;
//   - an int32/uint32 tensor used as a signal/wait pad (directly or as T of
//     a stack used as a pad) is a signal pad, zeroed once;
//   - every other tensor is an input, filled with seeded values per launch.
// Sizes: --size NAME=AxB, then the kernel's constraints (`== V`, `>=
// num_tiles`), then --size N (or the default) for dimension 0 of inputs;
// pad dimensions nothing fixes get num_tiles (dimension 0) or the world
// size; int scalars need --size NAME=V.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_SIMULATOR_BINDING_H
#define DSLC_COMPILER_SIMULATOR_BINDING_H

#include "compiler/Frontend/CompileOptions.h"
#include "compiler/MLIRGen/KernelDescription.h"
#include "compiler/Simulator/Memory.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <map>
#include <string>
#include <vector>

namespace dslc::sim {

/// One argument of the kernel function.
struct ArgBinding {
  std::string name;
  enum class Kind { Tensor, IntScalar, FloatScalar } kind = Kind::Tensor;
  Role role = Role::Input;
  ElemType type;
  std::vector<int64_t> sizes;
  std::string tableOf; ///< PeerTable: the tensor whose addresses it holds.
  bool symmetric = false;
  /// Stored into through a stack view (comm.multicast_store): an output
  /// every rank writes on every rank.
  bool stackWritten = false;
  /// LL scratch: bytes of the largest tile of packets an ll_put/ll_get
  /// moves through it.
  int64_t packetTileBytes = 0;
  int64_t intValue = 0;
  double floatValue = 0;
};

struct Binding {
  std::vector<ArgBinding> args;
  int64_t numTiles = 0;
  std::vector<int64_t> tilesPerDim;
};

/// Fills `binding` for the kernel `func` described by `desc`. On a problem
/// returns false with `error` set.
bool bindParameters(mlir::func::FuncOp func, const KernelDescription &desc,
                    const CompileOptions &options, unsigned worldSize,
                    Binding &binding, std::string &error);

/// The default extent of data tensors when --size is not given: three and
/// a half tiles of the grid's first dimension (so the masked tail runs).
int64_t defaultExtent(const KernelDescription &desc);

} // namespace dslc::sim

#endif // DSLC_COMPILER_SIMULATOR_BINDING_H
