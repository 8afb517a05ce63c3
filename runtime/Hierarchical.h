//===- Hierarchical.h - Collectives over several nodes ----------*- C++ -*-===//
//
// A dslc kernel runs only where every rank of its world can load and store
// its peers' memory: inside one LSA team (runtime/Teams.h). On a world of
// M nodes of L ranks each, Collectives runs a collective either as plain
// NCCL over the world or hierarchically: dslc kernels on a communicator of
// the node's L ranks and NCCL on the "rail" (the M ranks with the same
// index in their node):
//
//   all_reduce(N)      reduce_scatter(N) in node -> NCCL all_reduce(N/L)
//                      across nodes -> all_gather(N) in node
//   reduce_scatter(N)  NCCL reduce_scatter(N) across nodes (each node gets
//                      its block of N/M) -> reduce_scatter(N/M) in node
//   all_gather(N)      all_gather(N/M) in node -> NCCL all_gather(N)
//                      across nodes
//
// (N: the collective's total element count; world rank = node * L + index.)
// The choice (decideHierarchy) is a pure function of the mode
// ($DSLC_HIERARCHICAL), the plan, what the node's collectives would run and
// what the tuner recorded in the kernel directory's manifest.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_RUNTIME_HIERARCHICAL_H
#define DSLC_RUNTIME_HIERARCHICAL_H

#include "runtime/Collectives.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dslc::rt {

/// $DSLC_HIERARCHICAL: auto (the default: hierarchical when every in-node
/// step has a tuned kernel and the tuner did not record NCCL as faster),
/// on (always, where the sizes divide: for tests), off (plain NCCL).
enum class HierarchyMode { Auto, On, Off };
std::optional<HierarchyMode> parseHierarchyMode(const std::string &s);
const char *hierarchyModeName(HierarchyMode m);
/// From $DSLC_HIERARCHICAL (unset or empty: Auto); another value is
/// Error(InvalidArgument) naming it.
HierarchyMode hierarchyModeFromEnv();

/// One step of a hierarchical collective.
struct HierarchicalStep {
  bool inNode = true; ///< on the node's communicator, else across nodes
  CollectiveKind kind = CollectiveKind::AllReduce;
  size_t totalCount = 0; ///< the step's N on its communicator
  /// Buffers: the user's send / recv or the per-rank shard.
  enum class Buf { Send, Recv, Shard };
  Buf from = Buf::Send, to = Buf::Recv;
};

struct HierarchicalPlan {
  std::string problem; ///< non-empty: the sizes do not allow it (why)
  std::vector<HierarchicalStep> steps;
  size_t shardCount = 0; ///< elements of the per-rank intermediate buffer
  bool ok() const { return problem.empty(); }
  /// "reduce_scatter of 1024 in node -> all_reduce of 512 across 2 nodes
  /// -> all_gather of 1024 in node".
  std::string describe(int numNodes) const;
};

/// The steps of a collective of `totalCount` elements on `worldSize` ranks
/// in nodes of `lsaSize` (no GPU).
HierarchicalPlan planHierarchical(CollectiveKind kind, size_t totalCount,
                                  int worldSize, int lsaSize);

/// The choice for one call (no GPU). `nodeChoices[i]` is what the node's
/// collectives would run for plan.steps' i-th in-node step (in order);
/// `record` is the tuner's record for this world and size bucket.
DispatchChoice decideHierarchy(HierarchyMode mode, const RankTeams &teams,
                               const HierarchicalPlan &plan,
                               const std::vector<DispatchChoice> &nodeChoices,
                               const contract::HierarchyRecord *record);

/// The runtime side: the node and rail communicators (ncclCommSplit) and
/// the node's Collectives. Made by Collectives on a world that spans nodes.
class Hierarchy {
public:
  /// Collective over the world. Needs one rank per process.
  Hierarchy(Communicator &world, const CollectivesOptions &opts,
            HierarchyMode mode);
  ~Hierarchy();
  Hierarchy(const Hierarchy &) = delete;
  Hierarchy &operator=(const Hierarchy &) = delete;

  DispatchChoice choose(CollectiveKind kind, size_t totalCount, DType dtype,
                        ReduceOp op) const;
  /// Runs the plan's steps on `stream` (enqueue only). False when the call
  /// cannot go this way now (capturing without a large enough shard
  /// buffer): the caller uses NCCL.
  bool run(CollectiveKind kind, const void *send, void *recv, size_t totalCount,
           DType dtype, ReduceOp op, cudaStream_t stream);
  /// Makes the node's kernel instances and the shard buffer for these
  /// counts (collective).
  void prepare(CollectiveKind kind, const std::vector<size_t> &totalCounts,
               DType dtype, ReduceOp op);

  Collectives &node() { return *nodeColl_; }
  HierarchyMode mode() const { return mode_; }

private:
  void ensureShard(size_t bytes);

  Communicator &world_;
  HierarchyMode mode_;
  RankTeams teams_;
  std::unique_ptr<Communicator> nodeComm_, railComm_;
  std::unique_ptr<Collectives> nodeColl_;
  std::vector<contract::HierarchyRecord> records_; ///< for this world
  std::vector<KernelDirInfo> dirs_;
  void *shard_ = nullptr;
  size_t shardBytes_ = 0;
};

} // namespace dslc::rt

#endif // DSLC_RUNTIME_HIERARCHICAL_H
