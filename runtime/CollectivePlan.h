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
// The shapes are the contract's (contract::collectiveArgShape, with N the
// collective's total element count; pads, tables and scratch
// contract::commShape at the largest N's tiles). A collective binds one
// floating data input and one output of its dtype, of rank 1 (an
// all_gather's output also [world, N / world]), workspaces of rank 1 or 2,
// and no scalars (an error naming them).
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_RUNTIME_COLLECTIVEPLAN_H
#define DSLC_RUNTIME_COLLECTIVEPLAN_H

#include "contract/BindingPlan.h"
#include "runtime/Binding.h"
#include "runtime/Metadata.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dslc::rt {

// The collectives, their shapes and the per-argument decisions are the
// contract's (contract/BindingPlan.h).
using contract::CollectiveKind;
using contract::collectiveName;
using contract::CollectiveShape;
using contract::parseCollective;

/// contract::collectiveCounts; throws Error(InvalidArgument) when N < 1, or
/// when reduce_scatter / all_gather get an N that is not a multiple of the
/// world size.
CollectiveShape collectiveShape(CollectiveKind c, int64_t n, int world);

/// How one bindable argument is bound: its role (Role::Output for
/// outputs; inout is a workspace), dtype, rank, bytes per rank for the
/// largest size, whether it is symmetric (marked, or the target of a peer
/// table) and in the heap (symmetric ones, inputs, pads, scratch,
/// workspaces, unused), and for a peer table the argument it lists.
struct ArgPlan {
  Role role = Role::Unused;
  DType dtype = DType::Float32;
  int rank = 0;
  bool symmetric = false;
  bool inHeap = false;
  int tableOf = -1;
  size_t bytes = 0;
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

/// The tensor a plan binds to argument `arg` of sizes `sizes`: local[arg]
/// (and peers[arg] when the metadata marks it symmetric); a peer table
/// peers[tableOf].
TensorArg planTensor(const KernelMetadata &md, int arg, int tableOf,
                     std::vector<int64_t> sizes,
                     const std::vector<void *> &local,
                     const std::vector<void *> &peers);

} // namespace dslc::rt

#endif // DSLC_RUNTIME_COLLECTIVEPLAN_H
