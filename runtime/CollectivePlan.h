//===- CollectivePlan.h - Binding a collective kernel's args --*- C++ -*-===//
//
// A kernel that implements a collective (all-reduce, reduce-scatter,
// all-gather) is bound the same way wherever it runs: by the library's
// collectives (runtime/Collectives.h), the collective harness
// (tools/harness), dslrun and the tuner. The plan says, for a world size
// and a largest element count, what each argument is and how big; it
// follows the roles the compiler wrote into the metadata
// (docs/kernel-abi.md, "Roles") and the contract's sizing rules
// (contract/Sizing.h). No GPU is needed: the unit tests check plans on
// hand-written and dslc-compiled metadata.
//
//   role (metadata)   binding
//   input             the data input (floating; exactly one)
//   output            the data output (floating; exactly one)
//   inout             a workspace: [world, N] (rank 2) or world * N
//   signal_pad        contract::constrainedShape at the largest N's tiles
//   peer_table of X   X's world_size peer addresses; X is symmetric
//   scratch           contract::llScratchBytes at the largest N's tiles
//   unused            a small zeroed buffer, sizes 1
//   scalar            not bound by a collective (an error naming it)
//
// Shapes, with N the collective's total element count:
//   all_reduce      input N, output N
//   reduce_scatter  input N, output N / world (N a multiple of world)
//   all_gather      input N / world, output N (N a multiple of world;
//                   rank 1, or rank 2 [world, N / world])
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_RUNTIME_COLLECTIVEPLAN_H
#define DSLC_RUNTIME_COLLECTIVEPLAN_H

#include "runtime/Binding.h"
#include "runtime/Metadata.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dslc::rt {

enum class CollectiveKind { AllReduce, ReduceScatter, AllGather };

/// "all_reduce", "reduce_scatter", "all_gather".
const char *collectiveName(CollectiveKind c);
/// Accepts those names, with '-' for '_' or without the separator.
std::optional<CollectiveKind> parseCollective(const std::string &name);

/// Element counts per rank of one call with `total` = N elements. Throws
/// Error(InvalidArgument) when N < 1, or when reduce_scatter / all_gather
/// get an N that is not a multiple of the world size.
struct CollectiveShape {
  int64_t total = 0;  ///< N
  int64_t input = 0;  ///< elements of each rank's input
  int64_t output = 0; ///< elements of each rank's output
};
CollectiveShape collectiveShape(CollectiveKind c, int64_t n, int world);

/// How a collective binds one argument (from its role, table above).
enum class ArgRole {
  Input,
  Output,
  Workspace,
  SignalPad,
  PeerTable,
  PacketScratch,
  Unused,
};
const char *argRoleName(ArgRole role);

/// How one bindable argument is bound.
struct ArgPlan {
  ArgRole role = ArgRole::Unused;
  DType dtype = DType::Float32;
  int rank = 0;
  /// In the symmetric heap with a peer table (marked symmetric, or the
  /// target of a peer table).
  bool symmetric = false;
  /// Allocated in the symmetric heap (symmetric ones, inputs, pads,
  /// scratch, workspaces, unused); the others are plain device memory.
  bool inHeap = false;
  int tableOf = -1; ///< PeerTable: the argument whose peers it lists
  size_t bytes = 0; ///< per rank, for the largest size
};

struct CollectivePlan {
  CollectiveKind collective = CollectiveKind::AllReduce;
  int world = 1;
  int64_t maxN = 0;
  DType dtype = DType::BFloat16; ///< input and output
  std::vector<ArgPlan> args;     ///< one per metadata.args
  int input = -1, output = -1;
  int64_t tiles = 0; ///< the grid's tile count at maxN (>= 1)
  /// Signal pads and peer tables: their fixed shapes (empty for others).
  std::vector<std::vector<int64_t>> shapes;

  /// The sizes bound to argument `arg` for a call with N = `n`.
  std::vector<int64_t> sizesOf(int arg, int64_t n) const;
  /// Bytes per rank of symmetric heap the plan needs (with slack).
  size_t heapBytes() const;
};

/// Throws Error(InvalidArgument) naming the kernel and the parameter when
/// the kernel does not fit the collective.
CollectivePlan planCollective(const KernelMetadata &md, CollectiveKind c,
                              int world, int64_t maxN);

/// Binds every argument of `a` for a call with N = `n`: argument j gets
/// local[j] (and peers[j] when the metadata marks it symmetric); a peer
/// table gets peers[its target]. Then runs a.check(world, rank).
void bindCollective(BoundArgs &a, const CollectivePlan &plan, int64_t n,
                    const std::vector<void *> &local,
                    const std::vector<void *> &peers, int rank);

} // namespace dslc::rt

#endif // DSLC_RUNTIME_COLLECTIVEPLAN_H
