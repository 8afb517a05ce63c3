//===- BindingPlan.h - How every argument of a kernel is bound --*- C++ -*-===//
//
// The one decision, from a kernel's metadata, a world size and the shapes
// and scalar values a caller gives, of what every bindable argument is and
// how it is allocated, sized and filled. It follows the roles the compiler
// wrote (docs/kernel-abi.md, "Roles") and the sizing rules of
// contract/Sizing.h:
//
//   role              shape                          fill
//   input             given                          seeded, per rank
//   output            given, else its `like`'s,      poisoned before each
//                     else fixed by constraints      launch (zeroed when
//                                                    the metadata says
//                                                    `zeroed`); checked
//   inout             given, else constraints        zeroed once (workspace)
//   signal_pad        contract::constrainedShape     zeroed once
//   peer_table of X   [world]                        X's peer addresses
//   scratch           contract::llScratchBytes       zeroed once
//   unused            given, else 1s                 zeroed once
//   scalar            given (an int scalar also as   by value
//                     a one-extent shape), else the
//                     source's default
//
// Symmetric (in the symmetric heap with a peer table): marked symmetric, or
// the target of a peer table. In the heap: symmetric ones and everything
// but outputs and peer tables. A collective (all_reduce, reduce_scatter,
// all_gather) sizes its data, workspaces and unused buffers from its total
// element count N (collectiveCounts, collectiveArgShape).
//
// The runtime's collectives (runtime/CollectivePlan.h), the harness
// (tooling/harness/KernelPlan.h), the simulator (compiler/Simulator/
// Binding.h) and the Python package (runtime/CApi.h, dslcBindingPlan) adapt
// it. No CUDA, no MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_CONTRACT_BINDINGPLAN_H
#define DSLC_CONTRACT_BINDINGPLAN_H

#include "contract/Expected.h"
#include "contract/Metadata.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace dslc::contract {

enum class CollectiveKind { AllReduce, ReduceScatter, AllGather };

/// "all_reduce", "reduce_scatter", "all_gather".
const char *collectiveName(CollectiveKind c);
/// Accepts those names, with '-' for '_' or without the separator.
std::optional<CollectiveKind> parseCollective(const std::string &name);

/// Element counts per rank of one call with `total` = N elements. Fails
/// when N < 1, or when reduce_scatter / all_gather get an N that is not a
/// multiple of the world size.
struct CollectiveShape {
  int64_t total = 0;  ///< N
  int64_t input = 0;  ///< elements of each rank's input
  int64_t output = 0; ///< elements of each rank's output
};
Expected<CollectiveShape> collectiveCounts(CollectiveKind c, int64_t n,
                                           int world);

/// The shape a collective gives a tensor of role `role` and rank `rank`
/// for a call with N = `n` (a valid collectiveCounts): input [N / world] for
/// an all_gather, else [N]; output [N], [N / world] for a reduce_scatter,
/// [world * (N / world)] or [world, N / world] for an all_gather; inout
/// [world * N] or [world, N]; unused 1s. Empty for other roles.
std::vector<int64_t> collectiveArgShape(CollectiveKind c, Role role, int rank,
                                        int64_t n, int world);

/// "4x8192" ("scalar" for no dimensions), as messages write shapes.
std::string formatShape(const std::vector<int64_t> &shape);

/// How an argument is filled. Zero: an output zeroed before each launch
/// (torch.zeros, ArgSpec::zeroed).
enum class Fill { Seeded, Poison, Zero, ZeroOnce, PeerTable, Scalar };
/// "random", "poisoned", "zeroed", "zeroed once", "peer addresses", "by
/// value".
const char *fillName(Fill f);

/// The decision for one bindable argument.
struct ArgBinding {
  std::string name;
  Role role = Role::Input; ///< outputs: Role::Output
  DType dtype = DType::Float32;
  bool isTensor = true;
  std::vector<int64_t> shape;
  size_t bytes = 0;       ///< per rank (at least 16 for tensors)
  bool symmetric = false; ///< in the heap with a peer table
  bool inHeap = false;    ///< symmetric heap (else plain device memory)
  int tableOf = -1;       ///< peer tables: the argument listed
  Fill fill = Fill::ZeroOnce;
  double scalar = 0; ///< scalars

  int64_t numel() const;
  bool isOutput() const { return role == Role::Output; }
};

/// What a caller gives: shapes of tensors (and one-extent values of int
/// scalars; a signal pad's or a scratch's shape replaces the contract's),
/// scalar values, the arguments it binds itself, optionally the collective
/// the kernel is.
struct BindingRequest {
  int world = 1;
  std::map<std::string, std::vector<int64_t>> shapes;
  std::map<std::string, double> scalars;
  /// Arguments the caller binds itself, whatever their sizes or values (a
  /// scalar it passes, a pad taken from a handle): never a problem.
  std::set<std::string> bound;
  /// Outputs and workspaces nothing else sizes take the collective's
  /// shapes (collectiveArgShape) for the data's element count n: the first
  /// input given a shape, else the first floating tensor given one. N is n
  /// (all_gather: world * n); without `collective` only workspaces are so
  /// sized. The Python package's rule (docs/python.md).
  bool fromData = false;
  std::optional<CollectiveKind> collective;
};

/// One reason a request cannot be bound, for callers that word their own
/// messages (the Python package, the simulator); `text` is planBinding's.
struct BindProblem {
  enum Kind {
    World,       ///< world size not positive
    UnknownName, ///< a shape or scalar for no such argument
    RankMismatch,
    NoValue,     ///< a scalar without value or default
    NotInteger,  ///< an int scalar given a fraction
    NoSize,      ///< an input, output or inout nothing sizes
    LikeMissing, ///< an output shaped like an argument without a shape
    NoData,      ///< fromData, but no data tensor given
    Collective,  ///< collectiveCounts refused the data's count
    Comm,        ///< a pad's or scratch's shape (commShape)
    Constraint,  ///< checkSizes
    SameSize,    ///< checkSizes
    TooLarge,
  };
  Kind kind;
  int arg = -1; ///< the argument, or -1
  std::string text;
  /// Constraint and SameSize: the rule broken and the size the argument
  /// has (SizeProblem's).
  const dslc::contract::Constraint *constraint = nullptr;
  const dslc::contract::SameSize *same = nullptr;
  int64_t actual = 0;
};
/// "world", "unknown_name", "rank", "no_value", "not_integer", "no_size",
/// "like_missing", "no_data", "collective", "comm", "constraint",
/// "same_size", "too_large".
const char *problemKindName(BindProblem::Kind k);

struct BindingPlan {
  std::string kernel;
  int world = 1;
  std::vector<ArgBinding> args; ///< one per metadata.args
  int64_t tiles = 0;            ///< the grid's tile count (>= 1)
  int64_t gridTiles = 0;        ///< the same, 0 for an empty grid

  std::vector<int> inputs() const;  ///< Fill::Seeded arguments
  std::vector<int> outputs() const; ///< outputs (checked)
  int find(const std::string &name) const;
  /// Bytes per rank of symmetric heap the plan needs (with slack).
  size_t heapBytes() const;
};

/// The role by which an argument is bound: Role::Output for outputs, else
/// its metadata role.
Role bindingRole(const ArgSpec &a);

/// The shape the contract gives a communication buffer (signal pad, peer
/// table, LL scratch in elements of its dtype) of argument `arg` for
/// `world` ranks and `tiles` tiles; empty for other roles.
Expected<std::vector<int64_t>> commShape(const KernelMetadata &md, int arg,
                                         int world, int64_t tiles);

/// numel(shape) * the size of `t`, or -1 when it is negative or passes
/// 2^50 bytes.
int64_t checkedBytes(const std::vector<int64_t> &shape, DType t);

/// Bytes per rank of symmetric heap for buffers of `bytes` each (with
/// slack for alignment and peer tables of `world` entries).
size_t heapBytesFor(const std::vector<size_t> &bytes, int world);

/// A size the kernel does not accept: a constraint or a same_sizes rule
/// broken by the shapes planned.
struct SizeProblem {
  const Constraint *constraint = nullptr; ///< or
  const SameSize *same = nullptr;
  int arg = -1;       ///< the argument checked (constraint) or indexed
  int64_t actual = 0; ///< its size
  std::string why;    ///< same_sizes: SameSize::problem's text
};
/// md.constraints and md.sameSizes over `shapes` (one per argument; too
/// short ones are skipped) for a grid of `tiles` tiles.
std::vector<SizeProblem>
checkSizes(const KernelMetadata &md,
           const std::vector<std::vector<int64_t>> &shapes, int64_t tiles);

/// The plan for `req` as far as it goes, with every problem (empty: the
/// plan is whole). planBinding words the problems into one failure.
struct BindingResult {
  BindingPlan plan;
  std::vector<BindProblem> problems;
};
BindingResult planBindingProblems(const KernelMetadata &md,
                                  const BindingRequest &req);

/// Fill's JSON spelling: "seeded", "poison", "zero_once", "peer_table",
/// "scalar".
const char *fillKey(Fill f);
/// A BindingRequest from JSON (docs/python.md, "The binding plan"):
/// {"world": W, "shapes": {name: [sizes]}, "scalars": {name: value},
/// "bound": [names], "from_data": bool, "collective": "all_reduce"}.
Expected<BindingRequest> readBindingRequest(const std::string &json);
/// A BindingResult as JSON: {"kernel", "world", "tiles", "args": [{"name",
/// "role", "dtype", "shape", "bytes", "symmetric", "in_heap", "table_of"
/// (a name or null), "fill", "scalar"}], "problems": [{"kind", "arg" (a
/// name or null), "text"}]}.
std::string bindingResultJson(const BindingResult &r);

/// Plans every argument of any kernel for `req`. The failure names the
/// kernel and lists every problem, one a line: "kernel K: cannot bind its
/// arguments:\n  input 'x' (...) has no size: give --size x=N".
Expected<BindingPlan> planBinding(const KernelMetadata &md,
                                  const BindingRequest &req);

} // namespace dslc::contract

#endif // DSLC_CONTRACT_BINDINGPLAN_H
