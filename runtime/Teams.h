//===- Teams.h - Ranks that reach each other by load/store ------*- C++ -*-===//
//
// NCCL 2.28 names the ranks a rank reaches by plain loads and stores its LSA
// team ("load/store accessible": the GPUs of one node joined by NVLink or
// PCIe P2P, or of one multi-node NVLink domain), a run of consecutive world
// ranks of the same size on every rank. Peer tables hold load/store
// addresses, so a dslc kernel with a peer table can only run where every
// rank its table names is in the LSA team. The world is then
// worldSize / lsaSize nodes; NCCL's "rail" team is the ranks with the same
// index in each node.
//
// RankTeams is what the runtime records per local rank (NCCL's world team
// and ncclTeamLsa, queried once per communicator). The rest of this header
// needs no GPU: the checks and the binding error take a RankTeams that the
// unit tests fake.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_RUNTIME_TEAMS_H
#define DSLC_RUNTIME_TEAMS_H

#include <string>

namespace dslc::rt {

/// A team as NCCL describes it (ncclTeam_t): nRanks ranks, this rank at
/// index `rank`, members `stride` world ranks apart.
struct TeamDesc {
  int nRanks = 0;
  int rank = 0;
  int stride = 1;
};

/// One rank's teams.
struct RankTeams {
  int worldRank = 0;
  int worldSize = 0;
  /// Ranks in this rank's LSA team; 0 when NCCL could not tell (its
  /// symmetric-memory runtime failed to start): then no peer table binds.
  int lsaSize = 0;
  int lsaRank = 0; ///< this rank's index in its LSA team
  /// Why the LSA team is unknown (lsaSize 0).
  std::string unknownReason;

  bool known() const { return lsaSize > 0; }
  /// The world rank of LSA index 0 (members: lsaFirst() .. + lsaSize - 1).
  int lsaFirst() const { return worldRank - lsaRank; }
  /// Whether this rank can load from / store to `worldPeer`'s memory.
  bool isLsaPeer(int worldPeer) const {
    return known() && worldPeer >= lsaFirst() &&
           worldPeer < lsaFirst() + lsaSize;
  }
  /// Every rank of the world is a load/store peer (one node).
  bool wholeWorld() const { return known() && lsaSize == worldSize; }
  /// Nodes (LSA teams) in the world; the rail team's size.
  int numNodes() const { return known() ? worldSize / lsaSize : 0; }
  /// This rank's node (its LSA team's index) and rail (its index in it).
  int node() const { return known() ? lsaFirst() / lsaSize : 0; }
  /// "ranks 4..7", "rank 3 only", "unknown (REASON)".
  std::string describeLsa() const;
  /// "2 nodes of 1 rank (LSA teams); rank 1 is index 0 of node 1".
  std::string describe() const;
};

/// Checks NCCL's answers for world rank `worldRank` of `worldSize` and makes
/// the record. An empty LSA team (nRanks 0: ncclTeamLsa could not start
/// NCCL's symmetric runtime) gives an unknown team with that reason; a team
/// that is not a run of consecutive ranks dividing the world evenly, or a
/// world team that disagrees with the communicator, is Error(Nccl) naming
/// the rank and the values.
RankTeams makeRankTeams(int worldRank, int worldSize, const TeamDesc &world,
                        const TeamDesc &lsa);

/// The binding check of a peer table of `entries` world ranks (a kernel's
/// `X.peers` or `peer_table` argument) on rank `t.worldRank`: empty when
/// every entry's rank is a load/store peer, else the message, naming this
/// rank and the first rank outside its LSA team (`what` names the argument:
/// "kernel K: parameter 'x'").
std::string lsaPeerTableProblem(const RankTeams &t, int entries,
                                const std::string &what);

} // namespace dslc::rt

#endif // DSLC_RUNTIME_TEAMS_H
