//===- Hierarchical.cpp - Collectives over several nodes ------------------===//
#include "runtime/Hierarchical.h"

#include "runtime/Error.h"
#include "runtime/NcclTypes.h"

#include <fmt/format.h>
#include <nccl.h>

#include <cstdlib>

namespace dslc::rt {

std::optional<HierarchyMode> parseHierarchyMode(const std::string &s) {
  if (s == "auto")
    return HierarchyMode::Auto;
  if (s == "on" || s == "1")
    return HierarchyMode::On;
  if (s == "off" || s == "0")
    return HierarchyMode::Off;
  return std::nullopt;
}

const char *hierarchyModeName(HierarchyMode m) {
  switch (m) {
  case HierarchyMode::Auto:
    return "auto";
  case HierarchyMode::On:
    return "on";
  case HierarchyMode::Off:
    return "off";
  }
  return "auto";
}

HierarchyMode hierarchyModeFromEnv() {
  const char *v = std::getenv("DSLC_HIERARCHICAL");
  if (!v || !*v)
    return HierarchyMode::Auto;
  if (auto m = parseHierarchyMode(v))
    return *m;
  raise(ErrorCode::InvalidArgument,
        fmt::format("DSLC_HIERARCHICAL='{}' is not one of auto, on, off", v));
}

std::string HierarchicalPlan::describe(int numNodes) const {
  std::string s;
  for (const HierarchicalStep &st : steps) {
    if (!s.empty())
      s += " -> ";
    s += fmt::format("{} of {} {}", collectiveName(st.kind), st.totalCount,
                     st.inNode
                         ? std::string("in node")
                         : fmt::format("across {} nodes (NCCL)", numNodes));
  }
  return s;
}

HierarchicalPlan planHierarchical(CollectiveKind kind, size_t totalCount,
                                  int worldSize, int lsaSize) {
  HierarchicalPlan p;
  if (lsaSize < 1 || worldSize < lsaSize || worldSize % lsaSize != 0) {
    p.problem = fmt::format("a world of {} ranks is not made of nodes of {}",
                            worldSize, lsaSize);
    return p;
  }
  size_t w = static_cast<size_t>(worldSize), l = static_cast<size_t>(lsaSize);
  size_t nodes = w / l;
  using B = HierarchicalStep::Buf;
  using K = CollectiveKind;
  switch (kind) {
  case K::AllReduce:
    if (totalCount % l != 0) {
      p.problem = fmt::format("{} elements do not split into {} equal "
                              "shards (one per rank of a node)",
                              totalCount, l);
      return p;
    }
    p.shardCount = totalCount / l;
    p.steps = {{true, K::ReduceScatter, totalCount, B::Send, B::Shard},
               {false, K::AllReduce, p.shardCount, B::Shard, B::Shard},
               {true, K::AllGather, totalCount, B::Shard, B::Recv}};
    break;
  case K::ReduceScatter:
  case K::AllGather:
    if (totalCount % w != 0) {
      p.problem = fmt::format("{} elements are not a multiple of the world "
                              "size {}",
                              totalCount, w);
      return p;
    }
    p.shardCount = totalCount / nodes; // one node's block
    if (kind == K::ReduceScatter)
      p.steps = {{false, K::ReduceScatter, totalCount, B::Send, B::Shard},
                 {true, K::ReduceScatter, p.shardCount, B::Shard, B::Recv}};
    else
      p.steps = {{true, K::AllGather, p.shardCount, B::Send, B::Shard},
                 {false, K::AllGather, totalCount, B::Shard, B::Recv}};
    break;
  }
  return p;
}

DispatchChoice decideHierarchy(HierarchyMode mode, const RankTeams &teams,
                               const HierarchicalPlan &plan,
                               const std::vector<DispatchChoice> &nodeChoices,
                               const contract::HierarchyRecord *record) {
  DispatchChoice c; // NCCL unless said otherwise
  std::string world =
      fmt::format("{} nodes of {} rank(s)", teams.numNodes(), teams.lsaSize);
  if (mode == HierarchyMode::Off) {
    c.reason = fmt::format("{}; DSLC_HIERARCHICAL=off", world);
    return c;
  }
  if (!plan.ok()) {
    c.reason = fmt::format("{}; not hierarchical: {}", world, plan.problem);
    return c;
  }
  std::string steps = plan.describe(teams.numNodes());
  std::string inNode;
  bool allKernels = true;
  for (const DispatchChoice &n : nodeChoices) {
    allKernels &= n.kind == DispatchChoice::Kind::Kernel;
    inNode += fmt::format(
        "{}{}: {}", inNode.empty() ? "" : "; ",
        n.kind == DispatchChoice::Kind::Kernel ? "kernel" : "nccl", n.reason);
  }
  if (mode == HierarchyMode::On) {
    c.kind = DispatchChoice::Kind::Hierarchical;
    c.reason = fmt::format("{}; DSLC_HIERARCHICAL=on: {} (in node: {})", world,
                           steps, inNode);
    return c;
  }
  if (teams.lsaSize == 1) {
    c.reason = fmt::format("{}: the LSA team is one rank, no kernel runs "
                           "inside a node",
                           world);
    return c;
  }
  if (!allKernels) {
    c.reason = fmt::format("{}; an in-node step has no tuned kernel ({})",
                           world, inNode);
    return c;
  }
  if (record && !record->hierarchical) {
    c.reason = fmt::format("{}; the tuner measured NCCL faster ({:.2f} us vs "
                           "hierarchical {:.2f} us)",
                           world, record->ncclUs, record->hierarchicalUs);
    return c;
  }
  c.kind = DispatchChoice::Kind::Hierarchical;
  c.reason =
      fmt::format("{}: {} (in node: {}){}", world, steps, inNode,
                  record ? fmt::format("; measured {:.2f} us vs NCCL {:.2f} us",
                                       record->hierarchicalUs, record->ncclUs)
                         : std::string());
  return c;
}

Hierarchy::Hierarchy(Communicator &world, const CollectivesOptions &opts,
                     HierarchyMode mode)
    : world_(world), mode_(mode) {
  if (world.numLocal() != 1)
    raise(ErrorCode::InvalidArgument,
          fmt::format("hierarchical collectives need one rank per process "
                      "(this one drives {})",
                      world.numLocal()));
  teams_ = world.teams(0);
  if (!teams_.known())
    raise(ErrorCode::Nccl,
          fmt::format("rank {}: {}", teams_.worldRank, teams_.describe()));
  // Every rank must see the same node size (NCCL makes it so; a mismatch
  // would split into communicators that never meet).
  int minL = world.allReduceMin({teams_.lsaSize});
  int maxL = -world.allReduceMin({-teams_.lsaSize});
  if (minL != maxL)
    raise(ErrorCode::Nccl,
          fmt::format("rank {}: the ranks disagree on the LSA team size "
                      "({}..{})",
                      teams_.worldRank, minL, maxL));
  nodeComm_ = Communicator::split(world, {teams_.node()}, {teams_.worldRank});
  railComm_ = Communicator::split(world, {teams_.lsaRank}, {teams_.worldRank});
  if (nodeComm_->worldSize() != teams_.lsaSize ||
      railComm_->worldSize() != teams_.numNodes())
    raise(ErrorCode::Nccl,
          fmt::format("rank {}: the node / rail communicators have {} / {} "
                      "ranks, expected {} / {}",
                      teams_.worldRank, nodeComm_->worldSize(),
                      railComm_->worldSize(), teams_.lsaSize,
                      teams_.numNodes()));
  CollectivesOptions nodeOpts = opts;
  nodeOpts.log = false; // the world's Collectives logs the whole call
  nodeColl_ = std::make_unique<Collectives>(*nodeComm_, nodeOpts);
  for (const KernelDirInfo &d : nodeColl_->kernelDirs())
    if (d.worldSize == teams_.lsaSize)
      dirs_.push_back(d);
}

Hierarchy::~Hierarchy() {
  nodeColl_.reset();
  if (shard_) {
    (void)cudaSetDevice(world_.local(0).device);
    (void)cudaFree(shard_);
  }
  railComm_.reset();
  nodeComm_.reset();
}

DispatchChoice Hierarchy::choose(CollectiveKind kind, size_t totalCount,
                                 DType dtype, ReduceOp op) const {
  HierarchicalPlan plan =
      planHierarchical(kind, totalCount, teams_.worldSize, teams_.lsaSize);
  std::vector<DispatchChoice> nodeChoices;
  for (const HierarchicalStep &s : plan.steps)
    if (s.inNode)
      nodeChoices.push_back(nodeColl_->choose(s.kind, s.totalCount, dtype, op));
  const contract::HierarchyRecord *record = nullptr;
  int bucket = sizeBucket(static_cast<int64_t>(totalCount));
  for (const KernelDirInfo &d : dirs_)
    if (d.collective == collectiveName(kind) && d.dtype == dtypeName(dtype))
      for (const contract::HierarchyRecord &r : d.hierarchy)
        if (r.worldSize == teams_.worldSize && r.bucket == bucket && !record)
          record = &r;
  return decideHierarchy(mode_, teams_, plan, nodeChoices, record);
}

void Hierarchy::ensureShard(size_t bytes) {
  if (bytes <= shardBytes_)
    return;
  const LocalRank &l = world_.local(0);
  setDevice(l.device, l.rank);
  if (shard_) {
    DSLC_CUDART(l.rank, cudaStreamSynchronize(l.stream));
    DSLC_CUDART(l.rank, cudaDeviceSynchronize());
    DSLC_CUDART(l.rank, cudaFree(shard_));
    shard_ = nullptr;
    shardBytes_ = 0;
  }
  DSLC_CUDART(l.rank, cudaMalloc(&shard_, bytes));
  shardBytes_ = bytes;
}

void Hierarchy::prepare(CollectiveKind kind,
                        const std::vector<size_t> &totalCounts, DType dtype,
                        ReduceOp op) {
  for (size_t n : totalCounts) {
    HierarchicalPlan plan =
        planHierarchical(kind, n, teams_.worldSize, teams_.lsaSize);
    if (!plan.ok())
      continue;
    ensureShard(plan.shardCount * dtypeSize(dtype));
    for (const HierarchicalStep &s : plan.steps)
      if (s.inNode)
        nodeColl_->prepare(s.kind, {s.totalCount}, dtype, op);
  }
}

bool Hierarchy::run(CollectiveKind kind, const void *send, void *recv,
                    size_t totalCount, DType dtype, ReduceOp op,
                    cudaStream_t stream) {
  HierarchicalPlan plan =
      planHierarchical(kind, totalCount, teams_.worldSize, teams_.lsaSize);
  if (!plan.ok())
    return false;
  size_t bytes = plan.shardCount * dtypeSize(dtype);
  if (bytes > shardBytes_) {
    cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
    const LocalRank &l = world_.local(0);
    DSLC_CUDART(l.rank, cudaStreamIsCapturing(stream, &cap));
    if (cap != cudaStreamCaptureStatusNone)
      return false; // no allocation while capturing: prepare() first
    ensureShard(bytes);
  }
  auto buf = [&](HierarchicalStep::Buf b) -> void * {
    switch (b) {
    case HierarchicalStep::Buf::Send:
      return const_cast<void *>(send);
    case HierarchicalStep::Buf::Recv:
      return recv;
    case HierarchicalStep::Buf::Shard:
      break;
    }
    return shard_;
  };
  size_t nodeRanks = static_cast<size_t>(teams_.lsaSize);
  size_t nodes = static_cast<size_t>(teams_.numNodes());
  const LocalRank &rail = railComm_->local(0);
  int rank = teams_.worldRank; // for messages
  for (const HierarchicalStep &s : plan.steps) {
    void *from = buf(s.from), *to = buf(s.to);
    if (s.inNode) {
      switch (s.kind) {
      case CollectiveKind::AllReduce:
        nodeColl_->allReduce(0, from, to, s.totalCount, dtype, op, stream);
        break;
      case CollectiveKind::ReduceScatter:
        nodeColl_->reduceScatter(0, from, to, s.totalCount / nodeRanks, dtype,
                                 op, stream);
        break;
      case CollectiveKind::AllGather:
        nodeColl_->allGather(0, from, to, s.totalCount / nodeRanks, dtype,
                             stream);
        break;
      }
      continue;
    }
    switch (s.kind) {
    case CollectiveKind::AllReduce:
      DSLC_NCCL(rank, ncclAllReduce(from, to, s.totalCount, ncclType(dtype),
                                    ncclOp(op), rail.comm, stream));
      break;
    case CollectiveKind::ReduceScatter:
      DSLC_NCCL(rank, ncclReduceScatter(from, to, s.totalCount / nodes,
                                        ncclType(dtype), ncclOp(op), rail.comm,
                                        stream));
      break;
    case CollectiveKind::AllGather:
      DSLC_NCCL(rank, ncclAllGather(from, to, s.totalCount / nodes,
                                    ncclType(dtype), rail.comm, stream));
      break;
    }
    // Non-blocking communicators: the call is enqueued only once the rail
    // says so, and the next call on it must not come earlier.
    railComm_->settle(fmt::format("nccl {} of {} elements across {} nodes",
                                  collectiveName(s.kind), s.totalCount, nodes));
  }
  return true;
}

} // namespace dslc::rt
