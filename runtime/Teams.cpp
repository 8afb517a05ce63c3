//===- Teams.cpp - Ranks that reach each other by load/store --------------===//
#include "runtime/Teams.h"

#include "runtime/Communicator.h"
#include "runtime/Error.h"
#include "runtime/LsaTable.h"
#include "runtime/NcclAsync.h"

#include <fmt/format.h>

namespace dslc::rt {

std::string RankTeams::describeLsa() const {
  if (!known())
    return fmt::format("unknown ({})", unknownReason);
  if (lsaSize == 1)
    return fmt::format("rank {} only", worldRank);
  return fmt::format("ranks {}..{}", lsaFirst(), lsaFirst() + lsaSize - 1);
}

std::string RankTeams::describe() const {
  if (!known())
    return fmt::format("rank {} of {}: LSA team {}", worldRank, worldSize,
                       describeLsa());
  return fmt::format("rank {} of {}: {} node(s) of {} rank(s) (LSA teams); "
                     "its LSA team is {} (node {}, index {})",
                     worldRank, worldSize, numNodes(), lsaSize, describeLsa(),
                     node(), lsaRank);
}

RankTeams makeRankTeams(int worldRank, int worldSize, const TeamDesc &world,
                        const TeamDesc &lsa) {
  if (world.nRanks != worldSize || world.rank != worldRank)
    raise(ErrorCode::Nccl,
          fmt::format("rank {}: NCCL's world team says rank {} of {}, but the "
                      "communicator has rank {} of {}",
                      worldRank, world.rank, world.nRanks, worldRank,
                      worldSize));
  RankTeams t;
  t.worldRank = worldRank;
  t.worldSize = worldSize;
  if (lsa.nRanks == 0) {
    t.unknownReason = "ncclTeamLsa returned an empty team: NCCL could not "
                      "start its symmetric-memory runtime (NCCL_DEBUG=WARN "
                      "says why)";
    return t;
  }
  auto bad = [&](const std::string &why) {
    raise(ErrorCode::Nccl,
          fmt::format("rank {} of {}: NCCL's LSA team (rank {} of {}, "
                      "stride {}) {}",
                      worldRank, worldSize, lsa.rank, lsa.nRanks, lsa.stride,
                      why));
  };
  if (lsa.nRanks < 0 || lsa.rank < 0 || lsa.rank >= lsa.nRanks)
    bad("is not a team holding this rank");
  if (lsa.stride != 1)
    bad("is not a run of consecutive ranks");
  if (lsa.nRanks > worldSize || worldSize % lsa.nRanks != 0)
    bad("does not divide the world into equal nodes");
  if ((worldRank - lsa.rank) % lsa.nRanks != 0)
    bad("does not start at a multiple of its size");
  t.lsaSize = lsa.nRanks;
  t.lsaRank = lsa.rank;
  return t;
}

std::string lsaPeerTableProblem(const RankTeams &t, int entries,
                                const std::string &what) {
  for (int p = 0; p < entries; ++p) {
    if (p == t.worldRank || t.isLsaPeer(p))
      continue;
    if (!t.known())
      return fmt::format("{}: rank {} cannot tell whether it can load from "
                         "and store to rank {}'s memory: its LSA team is {}",
                         what, t.worldRank, p, t.describeLsa());
    return fmt::format(
        "{}: its peer table needs rank {}, which rank {} cannot load from or "
        "store to: rank {}'s LSA team (the ranks it reaches by load/store) is "
        "{}, and the world is {} node(s) of {} rank(s); run the kernel on a "
        "communicator of one node's ranks (the collectives do so on their "
        "own, with NCCL between nodes) or use NCCL",
        what, p, t.worldRank, t.worldRank, t.describeLsa(), t.numNodes(),
        t.lsaSize);
  }
  return {};
}

const RankTeams &Communicator::teams(int localIndex) {
  (void)local(localIndex); // range check
  if (teams_.empty() && virtual_) {
    // One GPU: every rank loads from and stores to every other's memory.
    for (const LocalRank &r : locals_)
      teams_.push_back(makeRankTeams(r.rank, worldSize_,
                                     {worldSize_, r.rank, 1},
                                     {worldSize_, r.rank, 1}));
  } else if (teams_.empty()) {
    for (const LocalRank &r : locals_) {
      setDevice(r.device, r.rank);
      teams_.push_back(makeRankTeams(r.rank, worldSize_,
                                     queryWorldTeam(r.comm, r.rank),
                                     queryLsaTeam(r.comm)));
    }
  }
  return teams_[localIndex];
}

std::unique_ptr<Communicator>
Communicator::split(Communicator &parent, const std::vector<int> &colors,
                    const std::vector<int> &keys) {
  int n = parent.numLocal();
  if (parent.isVirtual())
    raise(ErrorCode::InvalidArgument,
          "Communicator::split: a virtual world has no NCCL communicator to "
          "split");
  if (static_cast<int>(colors.size()) != n ||
      static_cast<int>(keys.size()) != n)
    raise(ErrorCode::InvalidArgument,
          fmt::format("Communicator::split: {} colors and {} keys for {} "
                      "local ranks",
                      colors.size(), keys.size(), n));
  for (int i = 0; i < n; ++i)
    if (colors[i] < 0 || colors[i] != colors[0])
      raise(ErrorCode::InvalidArgument,
            fmt::format("Communicator::split: local ranks {} and {} have "
                        "colors {} and {}; a process's ranks must share one "
                        "non-negative color",
                        parent.local(0).rank, parent.local(i).rank, colors[0],
                        colors[i]));
  std::vector<ncclComm_t> comms(n, nullptr);
  parent.forEachGrouped([&](int i) {
    const LocalRank &l = parent.local(i);
    DSLC_NCCL(l.rank,
              ncclCommSplit(l.comm, colors[i], keys[i], &comms[i], nullptr));
  });
  // A non-blocking parent gives non-blocking children: wait until ready,
  // bounded (runtime/NcclAsync.h); on a failure abort what was made.
  std::vector<int> ranks;
  for (int i = 0; i < n; ++i)
    ranks.push_back(parent.local(i).rank);
  try {
    // The parent reports the split's progress (and a failure in it) first;
    // then each child is polled (its handle may be written only then).
    pollUntilReady(
        ranks,
        [&](size_t i) {
          ncclResult_t state = ncclSuccess;
          ncclResult_t r = ncclCommGetAsyncError(
              parent.local(static_cast<int>(i)).comm, &state);
          return r != ncclSuccess ? r : state;
        },
        "ncclCommSplit (the parent communicator)", parent.hostTimeoutMs_);
    awaitComms(comms, ranks, "ncclCommSplit", parent.hostTimeoutMs_);
  } catch (...) {
    for (ncclComm_t comm : comms)
      if (comm)
        (void)ncclCommAbort(comm);
    throw;
  }
  std::unique_ptr<Communicator> c(new Communicator());
  for (int i = 0; i < n; ++i) {
    LocalRank l;
    l.device = parent.local(i).device;
    l.comm = comms[i];
    DSLC_NCCL(parent.local(i).rank, ncclCommUserRank(comms[i], &l.rank));
    DSLC_NCCL(parent.local(i).rank, ncclCommCount(comms[i], &c->worldSize_));
    c->locals_.push_back(l);
  }
  c->hostTimeoutMs_ = parent.hostTimeoutMs_;
  c->setupLocals();
  return c;
}

} // namespace dslc::rt
