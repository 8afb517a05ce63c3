//===- Binding.h - Kernel parameters to host buffers ------------*- C++ -*-===//
//
// Decides what every parameter of a kernel is and how big, then allocates
// it on every rank. What a parameter is comes from its role (the
// `tile.role` attribute MLIRGen's access analysis set, docs/kernel-abi.md),
// never from its name or type (docs/simulator.md):
//   - peer table (`peer_table of T`, or `peers of T` for a symmetric
//     tensor's own table): T's address on every rank; T is symmetric;
//   - scratch: an LL scratch, zeroed once, kept across launches, accessed
//     as bytes; its size is --size NAME=M, else the contract's rule
//     (contract/Sizing.h, llScratchBytes) for the grid's tiles;
//   - signal pad: zeroed once; sized by the constraints, else a row per
//     tile and a column per rank (contract::constrainedShape);
//   - output: poisoned before each launch (zeroed when made by torch.zeros)
//     and checked after it;
//   - inout: a workspace (e.g. a staging buffer peers store into and the
//     kernel reads): poisoned (NaN) once, kept, never refilled or checked;
//   - input and unused: filled with seeded values per launch.
// The collective (Binding::collective) decides the sizes of an output
// nothing else sizes. With --reference all-reduce / reduce-scatter /
// all-gather it is that one; with `auto` (and `none`, which checks nothing)
// it is chosen for a kernel whose access facts are a collective's: one
// output O, one input I of O's dtype that it reads, no other input it
// reads, and data that moves between ranks (I read on peers, O written on
// peers, or an LL scratch or a staging workspace); otherwise no reference
// applies (Binding::why says which fact fails). Then (`chooseCollective`):
//   1. O = torch.empty_like(I): all-reduce;
//   2. O 2-d, I 1-d: all-gather into rows ([world size, N]);
//   3. O's size fixed (--size O=..., a constraint) and I's known: by the
//      ratio (O = I: all-reduce, O x W = I: reduce-scatter, O = W x I:
//      all-gather);
//   4. else by where the data moves: peers store into O and nobody reads
//      a peer's I: all-gather; nobody stores into a peer's O and the grid
//      runs over O's size: reduce-scatter; otherwise all-reduce.
// Sizes: --size NAME=AxB, then the kernel's constraints (`== V`, `>=
// num_tiles`), then N (--size N or the default) for dimension 0 of inputs.
// Outputs and workspaces nothing sizes get [N] (1-d) or [world size, N]
// (2-d), a 1-d result of a reduce-scatter N / world size (N must be a
// multiple of it), of an all-gather world size x N. With those shapes the
// contract's binding plan (contract/BindingPlan.h, planBindingProblems)
// decides the rest, as for the harness and the runtime: signal pads
// (contract::constrainedShape), peer tables ([world size]), LL scratch
// (llScratchBytes; --size wins for a pad or a scratch), scalar values
// (--scalar, --size NAME=V, else the source's default), the grid's tile
// count and the constraint and same_sizes checks; its problems are worded
// here. The grid: floor((extent + add) / div) per dimension.
// The default N: 3.5 tiles of the grid's first dimension, of the tensor it
// runs over (N = 3.5 tiles x div - add for a grid over ceil(N / W), world
// size x 3.5 tiles for one over a reduce-scatter's output).
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_SIMULATOR_BINDING_H
#define DSLC_COMPILER_SIMULATOR_BINDING_H

#include "compiler/MLIRGen/KernelDescription.h"
#include "compiler/Simulator/Memory.h"
#include "compiler/Simulator/SimulationOptions.h"

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
  /// The role the compiler decided (#tile.role).
  contract::Role contractRole = contract::Role::Input;
  /// An output made by torch.empty_like(like).
  std::string like;
  /// An output made by torch.zeros (the binding plan's Fill::Zero): zeroed,
  /// not poisoned, before each launch, its zeros counting as written.
  bool zeroed = false;
  bool symmetric = false;
  /// Stored into through a stack view (comm.multicast_store).
  bool stackWritten = false;
  /// Stored into on peers (through a stack view or a peer's copy from
  /// get_remote_tensors): every rank writes it on every rank.
  bool remoteWritten = false;
  /// Read on peers (a peer's copy, or a load-reduce over a stack view).
  bool remoteRead = false;
  int64_t intValue = 0;
  double floatValue = 0;
};

struct Binding {
  std::vector<ArgBinding> args;
  int64_t numTiles = 0;
  /// The collective the sizes were chosen for: "all-reduce",
  /// "reduce-scatter", "all-gather", or empty (none known); with the data
  /// input and the result it is computed from/into (argument indices, -1
  /// when the kernel has not exactly one of each).
  std::string collective;
  int input = -1, output = -1;
  /// With `auto`: why no collective applies (when `collective` is empty).
  std::string why;
  /// Outputs whose sizes nothing gave (no --size, no constraint, not shaped
  /// like a parameter) and the simulator chose: the run checks only that
  /// much of them, so the driver warns with each (name and sizes chosen).
  std::vector<std::string> guessedOutputs;
};

/// Fills `binding` for the kernel `func` described by `desc`. On a problem
/// returns false with `error` set.
bool bindParameters(mlir::func::FuncOp func, const KernelDescription &desc,
                    const SimulationOptions &options, unsigned worldSize,
                    Binding &binding, std::string &error);

/// Sets binding.collective, input and output for --reference `requested`
/// (the rules above; roles and the sizes fixed so far must be set). False
/// when no collective is known (the kernel has not one output and one input
/// of its dtype, or `auto` finds none).
bool chooseCollective(const std::string &requested,
                      const KernelDescription &desc,
                      const SimulationOptions &options, unsigned worldSize,
                      Binding &binding);

/// The default extent N of data tensors when --size is not given: three
/// and a half tiles of the grid's first dimension (so the masked tail
/// runs), scaled by how that dimension follows from N.
int64_t defaultExtent(const KernelDescription &desc, const Binding &binding,
                      unsigned worldSize);

} // namespace dslc::sim

#endif // DSLC_COMPILER_SIMULATOR_BINDING_H
