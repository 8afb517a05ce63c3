//===- TeamsTest.cpp - Teams, the peer-table check, hierarchical plans ----===//
//
// No GPU: NCCL's team answers (ncclTeamWorld / ncclTeamLsa) are faked as
// the TeamDesc values NCCL 2.28 gives for one node, for nodes of several
// ranks and for one rank per host (distinct NCCL_HOSTID).
//
//===----------------------------------------------------------------------===//
#include "runtime/Teams.h"
#include "runtime/Binding.h"
#include "runtime/Error.h"
#include "runtime/Hierarchical.h"
#include "runtime/Kernel.h"
#include "tests/runtime/TestSupport.h"

#include <catch2/catch.hpp>

#include <map>
#include <numeric>

using namespace dslc::rt;
using Catch::Matchers::Contains;

namespace {
/// What NCCL answers on world rank `rank` of `world` in nodes of `node`.
RankTeams fakeTeams(int rank, int world, int node) {
  return makeRankTeams(rank, world, TeamDesc{world, rank, 1},
                       TeamDesc{node, rank % node, 1});
}

std::string ncclError(int rank, int world, TeamDesc lsa) {
  try {
    makeRankTeams(rank, world, TeamDesc{world, rank, 1}, lsa);
  } catch (const Error &e) {
    CHECK(e.code() == ErrorCode::Nccl);
    return e.what();
  }
  return "(ok)";
}

TensorArg tensor(uintptr_t addr, DType t, std::vector<int64_t> sizes,
                 uintptr_t peers = 0) {
  TensorArg a;
  a.data = reinterpret_cast<void *>(addr);
  a.dtype = t;
  a.sizes = std::move(sizes);
  a.peers = reinterpret_cast<void *>(peers);
  return a;
}

KernelMetadata oneShot(int rank) {
  return loadMetadataFile(dslc::test::kernelPath(
      "one_shot_all_reduce.r" + std::to_string(rank) + ".cubin.json"));
}

template <typename Fn> std::string bindError(Fn fn) {
  try {
    fn();
  } catch (const Error &e) {
    CHECK(e.code() == ErrorCode::InvalidArgument);
    return e.what();
  }
  return "(ok)";
}
} // namespace

TEST_CASE("teams: NCCL's answers become a record", "[teams]") {
  RankTeams one = fakeTeams(3, 8, 8);
  CHECK(one.wholeWorld());
  CHECK(one.numNodes() == 1);
  CHECK(one.describeLsa() == "ranks 0..7");
  for (int p = 0; p < 8; ++p)
    CHECK(one.isLsaPeer(p));

  RankTeams two = fakeTeams(5, 8, 4); // 2 nodes of 4
  CHECK_FALSE(two.wholeWorld());
  CHECK(two.lsaFirst() == 4);
  CHECK(two.node() == 1);
  CHECK(two.numNodes() == 2);
  CHECK(two.describeLsa() == "ranks 4..7");
  CHECK_FALSE(two.isLsaPeer(3));
  CHECK(two.isLsaPeer(4));
  CHECK(two.isLsaPeer(7));
  CHECK_FALSE(two.isLsaPeer(8));
  CHECK(two.describe() == "rank 5 of 8: 2 node(s) of 4 rank(s) (LSA teams); "
                          "its LSA team is ranks 4..7 (node 1, index 1)");

  RankTeams hosts = fakeTeams(1, 2, 1); // two hosts, one GPU each
  CHECK(hosts.describeLsa() == "rank 1 only");
  CHECK(hosts.node() == 1);
  CHECK(hosts.isLsaPeer(1));
  CHECK_FALSE(hosts.isLsaPeer(0));

  RankTeams unknown = makeRankTeams(0, 2, {2, 0, 1}, {0, 0, 0});
  CHECK_FALSE(unknown.known());
  CHECK_FALSE(unknown.isLsaPeer(0));
  CHECK_THAT(unknown.describeLsa(),
             Contains("ncclTeamLsa returned an empty team"));
}

TEST_CASE("teams: answers that are no team are NCCL errors", "[teams]") {
  CHECK(ncclError(1, 8, {4, 1, 2}) ==
        "rank 1 of 8: NCCL's LSA team (rank 1 of 4, stride 2) is not a run "
        "of consecutive ranks");
  CHECK(ncclError(1, 8, {3, 1, 1}) ==
        "rank 1 of 8: NCCL's LSA team (rank 1 of 3, stride 1) does not "
        "divide the world into equal nodes");
  CHECK(ncclError(5, 8, {4, 0, 1}) ==
        "rank 5 of 8: NCCL's LSA team (rank 0 of 4, stride 1) does not "
        "start at a multiple of its size");
  CHECK(ncclError(1, 8, {4, 4, 1}) ==
        "rank 1 of 8: NCCL's LSA team (rank 4 of 4, stride 1) is not a team "
        "holding this rank");
  try {
    makeRankTeams(1, 4, {2, 1, 1}, {2, 1, 1});
    FAIL("a world team of the wrong size passed");
  } catch (const Error &e) {
    CHECK(
        std::string(e.what()) ==
        "rank 1: NCCL's world team says rank 1 of 2, but the communicator has "
        "rank 1 of 4");
  }
}

TEST_CASE("teams: a peer table naming a rank outside the LSA team is refused "
          "at bind time, naming both ranks",
          "[teams][binding]") {
  // Two hosts (distinct NCCL_HOSTID): rank 0's LSA team is rank 0 only.
  KernelMetadata md = oneShot(0);
  BoundArgs a(md);
  a.setTeams(fakeTeams(0, 2, 1));
  std::string table = bindError([&] {
    a.setTensor("a_shared", tensor(0x3000, DType::BFloat16, {64}, 0x4000));
  });
  CHECK(table.rfind("kernel one_shot_all_reduce_kernel: parameter 'a_shared': "
                    "its peer table needs rank 1, which rank 0 cannot load "
                    "from or store to: rank 0's LSA team (the ranks it "
                    "reaches by load/store) is rank 0 only, and the world is "
                    "2 node(s) of 1 rank(s)",
                    0) == 0);
  CHECK_FALSE(a.isBound("a_shared"));
  // A peer_table argument is a table too.
  CHECK_THAT(bindError([&] {
               a.setTensor("signal_pad_addrs",
                           tensor(0x1000, DType::UInt64, {2}));
             }),
             Contains("parameter 'signal_pad_addrs': its peer table needs "
                      "rank 1, which rank 0 cannot load from or store to"));
  // Rank 1 of the same world names rank 0.
  KernelMetadata md1 = oneShot(1);
  BoundArgs b(md1);
  b.setTeams(fakeTeams(1, 2, 1));
  CHECK_THAT(bindError([&] {
               b.setTensor("a_shared",
                           tensor(0x3000, DType::BFloat16, {64}, 0x4000));
             }),
             Contains("needs rank 0, which rank 1 cannot load from"));
  // Tensors without tables bind as before.
  CHECK_NOTHROW(
      a.setTensor("local_signal_pad", tensor(0x2000, DType::Int32, {2, 2})));
  CHECK_NOTHROW(a.setTensor("out", tensor(0x5000, DType::BFloat16, {64})));
}

TEST_CASE("teams: the launch check refuses tables bound before the teams "
          "were known, and passes one node",
          "[teams][binding]") {
  KernelMetadata md = oneShot(0);
  BoundArgs a(md);
  a.setTensor("signal_pad_addrs", tensor(0x1000, DType::UInt64, {2}));
  a.setTensor("local_signal_pad", tensor(0x2000, DType::Int32, {2, 2}));
  a.setTensor("a_shared", tensor(0x3000, DType::BFloat16, {64}, 0x4000));
  a.setTensor("out", tensor(0x5000, DType::BFloat16, {64}));
  a.setTeams(fakeTeams(0, 2, 2)); // one node: fine
  CHECK_NOTHROW(a.check(2, 0));
  a.setTeams(fakeTeams(0, 2, 1));
  CHECK_THAT(bindError([&] { a.check(2, 0); }),
             Contains("parameter 'signal_pad_addrs': its peer table needs "
                      "rank 1, which rank 0 cannot load from or store to"));
  a.setTeams(makeRankTeams(0, 2, {2, 0, 1}, {0, 0, 0}));
  CHECK_THAT(bindError([&] { a.check(2, 0); }),
             Contains("rank 0 cannot tell whether it can load from and store "
                      "to rank 1's memory"));
}

TEST_CASE("teams: plans of the hierarchical collectives", "[teams][hier]") {
  using K = CollectiveKind;
  HierarchicalPlan ar = planHierarchical(K::AllReduce, 1024, 4, 2);
  REQUIRE(ar.ok());
  CHECK(ar.shardCount == 512);
  CHECK(ar.describe(2) == "reduce_scatter of 1024 in node -> all_reduce of "
                          "512 across 2 nodes (NCCL) -> all_gather of 1024 "
                          "in node");
  HierarchicalPlan rs = planHierarchical(K::ReduceScatter, 1024, 4, 2);
  REQUIRE(rs.ok());
  CHECK(rs.describe(2) == "reduce_scatter of 1024 across 2 nodes (NCCL) -> "
                          "reduce_scatter of 512 in node");
  HierarchicalPlan ag = planHierarchical(K::AllGather, 1024, 4, 2);
  CHECK(ag.describe(2) == "all_gather of 512 in node -> all_gather of 1024 "
                          "across 2 nodes (NCCL)");
  CHECK(planHierarchical(K::AllReduce, 1023, 4, 2).problem ==
        "1023 elements do not split into 2 equal shards (one per rank of a "
        "node)");
  CHECK(planHierarchical(K::ReduceScatter, 1022, 4, 2).problem ==
        "1022 elements are not a multiple of the world size 4");
  CHECK(planHierarchical(K::AllReduce, 8, 6, 4).problem ==
        "a world of 6 ranks is not made of nodes of 4");
}

namespace {
/// Runs a plan on the host for every rank of `world` in nodes of `L`, with
/// the communicators the runtime splits (node: ranks r / L, ordered by
/// world rank; rail: ranks with the same r % L), and returns every rank's
/// output. Inputs: rank r's element i is r * 1000 + i.
std::vector<std::vector<long>> simulate(CollectiveKind kind, size_t n,
                                        int world, int L) {
  HierarchicalPlan plan = planHierarchical(kind, n, world, L);
  REQUIRE(plan.ok());
  size_t sendCount = kind == CollectiveKind::AllGather ? n / world : n;
  size_t recvCount = kind == CollectiveKind::ReduceScatter ? n / world : n;
  struct Rank {
    std::vector<long> send, recv, shard;
  };
  std::vector<Rank> ranks(world);
  for (int r = 0; r < world; ++r) {
    for (size_t i = 0; i < sendCount; ++i)
      ranks[r].send.push_back(r * 1000 + static_cast<long>(i));
    ranks[r].recv.assign(recvCount, -1);
    ranks[r].shard.assign(plan.shardCount, -1);
  }
  auto buf = [&](int r, HierarchicalStep::Buf b) -> std::vector<long> & {
    return b == HierarchicalStep::Buf::Send   ? ranks[r].send
           : b == HierarchicalStep::Buf::Recv ? ranks[r].recv
                                              : ranks[r].shard;
  };
  for (const HierarchicalStep &s : plan.steps) {
    // The groups of this step, members in communicator rank order.
    std::vector<std::vector<int>> groups;
    int g = s.inNode ? world / L : L;
    for (int k = 0; k < g; ++k) {
      std::vector<int> m;
      for (int r = 0; r < world; ++r)
        if ((s.inNode ? r / L : r % L) == k)
          m.push_back(r);
      groups.push_back(m);
    }
    for (const std::vector<int> &m : groups) {
      size_t size = m.size(), total = s.totalCount;
      std::vector<std::vector<long>> in, out(size);
      for (int r : m)
        in.push_back(buf(r, s.from));
      for (size_t j = 0; j < size; ++j) {
        switch (s.kind) {
        case CollectiveKind::AllReduce:
          out[j].assign(total, 0);
          for (size_t i = 0; i < total; ++i)
            for (size_t q = 0; q < size; ++q)
              out[j][i] += in[q][i];
          break;
        case CollectiveKind::ReduceScatter:
          out[j].assign(total / size, 0);
          for (size_t i = 0; i < total / size; ++i)
            for (size_t q = 0; q < size; ++q)
              out[j][i] += in[q][j * (total / size) + i];
          break;
        case CollectiveKind::AllGather:
          for (size_t q = 0; q < size; ++q)
            out[j].insert(out[j].end(), in[q].begin(),
                          in[q].begin() + total / size);
          break;
        }
      }
      for (size_t j = 0; j < size; ++j) {
        std::vector<long> &dst = buf(m[j], s.to);
        REQUIRE(out[j].size() <= dst.size());
        std::copy(out[j].begin(), out[j].end(), dst.begin());
      }
    }
  }
  std::vector<std::vector<long>> result;
  for (const Rank &r : ranks)
    result.push_back(r.recv);
  return result;
}
} // namespace

TEST_CASE("teams: hierarchical plans compute the collective (host model of "
          "the split communicators)",
          "[teams][hier]") {
  for (auto [world, L] : {std::pair{8, 2}, {8, 4}, {6, 3}, {2, 1}, {4, 1}}) {
    CAPTURE(world, L);
    size_t n = static_cast<size_t>(world) * 6;
    long sumRanks = 1000L * world * (world - 1) / 2;
    auto ar = simulate(CollectiveKind::AllReduce, n, world, L);
    for (int r = 0; r < world; ++r)
      for (size_t i = 0; i < n; ++i)
        REQUIRE(ar[r][i] == sumRanks + world * static_cast<long>(i));
    auto rs = simulate(CollectiveKind::ReduceScatter, n, world, L);
    for (int r = 0; r < world; ++r)
      for (size_t i = 0; i < n / world; ++i)
        REQUIRE(rs[r][i] ==
                sumRanks + world * static_cast<long>(r * (n / world) + i));
    auto ag = simulate(CollectiveKind::AllGather, n, world, L);
    for (int r = 0; r < world; ++r)
      for (size_t i = 0; i < n; ++i)
        REQUIRE(ag[r][i] ==
                static_cast<long>((i / (n / world)) * 1000 + i % (n / world)));
  }
}

TEST_CASE("teams: the hierarchical decision", "[teams][hier]") {
  RankTeams t = fakeTeams(5, 8, 4);
  HierarchicalPlan plan =
      planHierarchical(CollectiveKind::AllReduce, 1024, 8, 4);
  DispatchChoice kernel, nccl;
  kernel.kind = DispatchChoice::Kind::Kernel;
  kernel.reason = "tuned: rs";
  nccl.reason = "not tuned for this size bucket";
  using M = HierarchyMode;
  using Kind = DispatchChoice::Kind;

  DispatchChoice c = decideHierarchy(M::Auto, t, plan, {kernel, kernel}, {});
  CHECK(c.kind == Kind::Hierarchical);
  CHECK(c.reason == "2 nodes of 4 rank(s): reduce_scatter of 1024 in node -> "
                    "all_reduce of 256 across 2 nodes (NCCL) -> all_gather "
                    "of 1024 in node (in node: kernel: tuned: rs; kernel: "
                    "tuned: rs)");
  c = decideHierarchy(M::Auto, t, plan, {kernel, nccl}, {});
  CHECK(c.kind == Kind::Nccl);
  CHECK_THAT(c.reason, Contains("an in-node step has no tuned kernel"));
  c = decideHierarchy(M::On, t, plan, {nccl, nccl}, {});
  CHECK(c.kind == Kind::Hierarchical);
  CHECK_THAT(c.reason, Contains("DSLC_HIERARCHICAL=on"));
  c = decideHierarchy(M::Off, t, plan, {kernel, kernel}, {});
  CHECK(c.kind == Kind::Nccl);
  CHECK(c.reason == "2 nodes of 4 rank(s); DSLC_HIERARCHICAL=off");

  dslc::contract::HierarchyRecord slower{8, 10, false, 40.0, 25.5};
  c = decideHierarchy(M::Auto, t, plan, {kernel, kernel}, &slower);
  CHECK(c.kind == Kind::Nccl);
  CHECK(c.reason == "2 nodes of 4 rank(s); the tuner measured NCCL faster "
                    "(25.50 us vs hierarchical 40.00 us)");
  dslc::contract::HierarchyRecord faster{8, 10, true, 20.0, 25.5};
  c = decideHierarchy(M::Auto, t, plan, {kernel, kernel}, &faster);
  CHECK(c.kind == Kind::Hierarchical);
  CHECK_THAT(c.reason, Contains("measured 20.00 us vs NCCL 25.50 us"));

  // One rank per node: nothing runs inside a node unless forced.
  RankTeams hosts = fakeTeams(1, 2, 1);
  HierarchicalPlan p2 = planHierarchical(CollectiveKind::AllReduce, 64, 2, 1);
  c = decideHierarchy(M::Auto, hosts, p2, {nccl, nccl}, {});
  CHECK(c.kind == Kind::Nccl);
  CHECK(c.reason == "2 nodes of 1 rank(s): the LSA team is one rank, no "
                    "kernel runs inside a node");
  CHECK(decideHierarchy(M::On, hosts, p2, {nccl, nccl}, {}).kind ==
        Kind::Hierarchical);
  // Sizes that do not split.
  HierarchicalPlan odd = planHierarchical(CollectiveKind::AllReduce, 7, 8, 4);
  c = decideHierarchy(M::On, t, odd, {}, {});
  CHECK(c.kind == Kind::Nccl);
  CHECK_THAT(c.reason, Contains("not hierarchical: 7 elements do not split"));

  CHECK(parseHierarchyMode("auto") == M::Auto);
  CHECK(parseHierarchyMode("on") == M::On);
  CHECK(parseHierarchyMode("off") == M::Off);
  CHECK_FALSE(parseHierarchyMode("yes"));
}
