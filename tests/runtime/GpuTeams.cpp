//===- GpuTeams.cpp - Teams and hierarchical collectives on GPUs ----------===//
//
// Child scenario "mp-teams": one process per rank, started as one node of
// two ranks, as two "hosts" of one rank (a different NCCL_HOSTID per
// process, NCCL's P2P and SHM transports off, sockets over loopback), or as
// two hosts of two ranks (four processes, two per GPU, one per GPU and host:
// tests/runtime/teams_two_nodes.sh). $DSLC_TEST_EXPECT_NODES says how many
// nodes. Every rank checks (2 and 3 in worlds of two):
//   1. its LSA team (NCCL) is what the launch made it;
//   2. a peer table naming a rank of another node is refused at bind time,
//      naming both ranks (planted: a table for world rank 1 - rank);
//   3. a symmetric heap on the world fills table entries of other nodes
//      with 0, and binding that table is refused as well;
//   4. the collectives (all-reduce, reduce-scatter, all-gather of bfloat16,
//      results checked) with DSLC_HIERARCHICAL auto / on / off, with kernel
//      directories and a tuning cache holding, for world 2, the runtime
//      tests' one-shot all-reduce and (when built) the dslc-compiled
//      reduce-scatter and all-gather examples: one node runs those kernels;
//      two hosts of one rank run NCCL (auto, off) or the hierarchical path
//      with NCCL inside the node (on); two hosts of two ranks run the
//      hierarchical path with the kernels inside each node (auto, on) or
//      NCCL (off).
// Lines starting "RESULT:" are what the script and the Catch2 test read.
//
//===----------------------------------------------------------------------===//
#include "runtime/Collectives.h"
#include "runtime/Error.h"
#include "runtime/Hierarchical.h"
#include "runtime/SymmetricHeap.h"
#include "tests/runtime/GpuSupport.h"
#include "tests/runtime/TestSupport.h"
#include "tooling/support/Files.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace dslc::test {

using namespace dslc::rt;

namespace {
uint16_t bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>(u >> 16); // exact for small integers
}
float fromBf16(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
float value(int rank, size_t i) { return static_cast<float>(i % 17 + rank); }

/// Runs one collective of total count `n` on this process's rank through
/// `coll` and returns the number of wrong output elements.
int64_t runOne(Communicator &comm, Collectives &coll, CollectiveKind kind,
               size_t n) {
  const LocalRank &l = comm.local(0);
  size_t world = static_cast<size_t>(comm.worldSize());
  size_t sendCount = kind == CollectiveKind::AllGather ? n / world : n;
  size_t recvCount = kind == CollectiveKind::ReduceScatter ? n / world : n;
  std::vector<uint16_t> host(sendCount);
  for (size_t i = 0; i < sendCount; ++i)
    host[i] = bf16(value(l.rank, i));
  void *in = nullptr, *out = nullptr;
  DSLC_CUDART(l.rank, cudaMalloc(&in, sendCount * 2));
  DSLC_CUDART(l.rank, cudaMalloc(&out, recvCount * 2));
  DSLC_CUDART(l.rank, cudaMemset(out, 0xff, recvCount * 2));
  DSLC_CUDART(l.rank, cudaMemcpy(in, host.data(), sendCount * 2,
                                 cudaMemcpyHostToDevice));
  switch (kind) {
  case CollectiveKind::AllReduce:
    coll.allReduce(0, in, out, n, DType::BFloat16, ReduceOp::Sum, l.stream);
    break;
  case CollectiveKind::ReduceScatter:
    coll.reduceScatter(0, in, out, recvCount, DType::BFloat16, ReduceOp::Sum,
                       l.stream);
    break;
  case CollectiveKind::AllGather:
    coll.allGather(0, in, out, sendCount, DType::BFloat16, l.stream);
    break;
  }
  comm.waitStreams(collectiveName(kind));
  std::vector<uint16_t> got(recvCount);
  DSLC_CUDART(l.rank, cudaMemcpy(got.data(), out, recvCount * 2,
                                 cudaMemcpyDeviceToHost));
  (void)cudaFree(in);
  (void)cudaFree(out);
  int64_t bad = 0;
  for (size_t i = 0; i < recvCount; ++i) {
    float want = 0;
    if (kind == CollectiveKind::AllGather) {
      want = value(static_cast<int>(i / sendCount), i % sendCount);
    } else {
      size_t at = kind == CollectiveKind::ReduceScatter
                      ? static_cast<size_t>(l.rank) * recvCount + i
                      : i;
      for (size_t r = 0; r < world; ++r)
        want += value(static_cast<int>(r), at);
    }
    bad += fromBf16(got[i]) != want;
  }
  return bad;
}

/// Which collectives the tuned kernel directories cover (world 2,
/// bfloat16, every size bucket): the one-shot test kernel always, the
/// dslc-compiled reduce-scatter and all-gather examples when the build has
/// them (configured with the compiler).
struct Tuned {
  std::string dirs; ///< ':'-separated, for CollectivesOptions::kernelDirs
  bool reduceScatter = false, allGather = false;
  bool covers(CollectiveKind k) const {
    return k == CollectiveKind::AllReduce ||
           (k == CollectiveKind::ReduceScatter ? reduceScatter : allGather);
  }
};

/// One kernel directory (manifest + the cubins `files` copied in) whose
/// cache records pick `cubin` at every size bucket of world 2.
void addTunedDir(const std::string &root, const std::string &collective,
                 const std::string &files, const std::string &cubin,
                 std::vector<TuningRecord> &recs, Tuned &t) {
  std::string dir = root + "/" + collective, src = kernelDir();
  std::string cmd =
      fmt::format("mkdir -p '{0}' && cp '{1}'/{2} '{0}/'", dir, src, files);
  if (std::system(cmd.c_str()) != 0)
    raise(ErrorCode::Io, "cannot copy " + files + " from " + src);
  std::string set = "set:teams-" + collective;
  std::ofstream(dir + "/manifest.json") << fmt::format(
      R"({{"format":"dslc-tuner-candidates","version":2,"collective":"{}",)"
      R"("world_size":2,"dtype":"bfloat16","set":"{}","kernels":[],)"
      R"("compiled":[]}})",
      collective, set);
  cudaDeviceProp prop{};
  DSLC_CUDART(-1, cudaGetDeviceProperties(&prop, 0));
  int drv = 0, rtv = 0;
  DSLC_CUDART(-1, cudaDriverGetVersion(&drv));
  DSLC_CUDART(-1, cudaRuntimeGetVersion(&rtv));
  for (int b = 0; b <= 30; ++b) {
    TuningRecord r;
    r.key = {collective, set,        prop.name, cudaVersionString(drv, rtv),
             2,          "bfloat16", b};
    r.value.pick.kernel = cubin;
    r.value.pick.cubin = cubin;
    r.value.pick.us = 2.0;
    r.value.ncclUs = 6.5;
    recs.push_back(r);
  }
  t.dirs += (t.dirs.empty() ? "" : ":") + dir;
}

Tuned makeTunedDirs(const std::string &root, const std::string &cache) {
  Tuned t;
  std::vector<TuningRecord> recs;
  addTunedDir(root, "all_reduce", "one_shot_all_reduce.r*.cubin*",
              "one_shot_all_reduce.r{rank}.cubin", recs, t);
  auto have = [](const std::string &f) {
    return std::ifstream(kernelPath(f)).good();
  };
  if ((t.reduceScatter = have("dslc_reduce_scatter.r0.cubin")))
    addTunedDir(root, "reduce_scatter", "dslc_reduce_scatter.r*.cubin*",
                "dslc_reduce_scatter.r{rank}.cubin", recs, t);
  if ((t.allGather = have("dslc_all_gather.r0.cubin")))
    addTunedDir(root, "all_gather", "dslc_all_gather.r*.cubin*",
                "dslc_all_gather.r{rank}.cubin", recs, t);
  TuningCache(cache).store(recs);
  return t;
}

/// The path a call must take.
DispatchChoice::Kind expectedPath(CollectiveKind kind, const std::string &mode,
                                  int world, int nodes, const Tuned &t) {
  using P = DispatchChoice::Kind;
  using K = CollectiveKind;
  int nodeSize = world / nodes;
  if (nodes == 1) // one node: the tuned kernel (its world is 2)
    return world == 2 && t.covers(kind) ? P::Kernel : P::Nccl;
  if (mode == "off")
    return P::Nccl;
  if (mode == "on")
    return P::Hierarchical;
  // auto: kernels of the node's world (2) for every in-node step.
  bool inNode =
      kind == K::AllReduce ? t.reduceScatter && t.allGather : t.covers(kind);
  return nodeSize == 2 && inNode ? P::Hierarchical : P::Nccl;
}

struct Checker {
  int failures = 0;
  void ok(const std::string &what) {
    std::printf("RESULT: %s\n", what.c_str());
  }
  void fail(const std::string &what) {
    std::printf("RESULT: FAILED %s\n", what.c_str());
    ++failures;
  }
};

/// 2 and 3: planted peer tables, and the heap's own table.
void checkPeerTables(Communicator &comm, int nodes, Checker &c) {
  const LocalRank &l = comm.local(0);
  int rank = l.rank, other = 1 - rank;
  auto kernel = loadOneShot(comm);
  void *data = nullptr, *table = nullptr;
  DSLC_CUDART(rank, cudaMalloc(&data, 4096));
  DSLC_CUDART(rank, cudaMalloc(&table, 16));
  auto tryBind = [&](const TensorArg &t, const std::string &what) {
    BoundArgs a = kernel->args(0);
    std::string want = fmt::format("needs rank {}, which rank {} cannot load "
                                   "from or store to",
                                   other, rank);
    try {
      a.setTensor("a_shared", t);
      if (nodes == 2)
        c.fail(what + ": bound a peer table naming a rank of another node");
      else
        c.ok(what + ": bound (one node)");
    } catch (const Error &e) {
      if (nodes == 2 && std::string(e.what()).find(want) != std::string::npos)
        c.ok(what + ": refused at bind time: " + e.what());
      else
        c.fail(what + ": " + e.what());
    }
  };
  tryBind({data, DType::BFloat16, {1024}, table}, "planted peer table");
  try {
    SymmetricHeap heap(comm, 4 << 20);
    SymmetricBuffer b = heap.alloc(4096);
    std::vector<uint64_t> entries(comm.worldSize());
    DSLC_CUDART(rank, cudaMemcpy(entries.data(), b.peers[0], entries.size() * 8,
                                 cudaMemcpyDeviceToHost));
    bool right = entries[rank] == reinterpret_cast<uintptr_t>(b.local[0]) &&
                 (nodes == 2 ? entries[other] == 0 : entries[other] != 0);
    std::string what =
        fmt::format("heap table [{:#x}, {:#x}]", entries[0], entries[1]);
    right ? c.ok(what + (nodes == 2 ? ": other node's entry is 0" : ""))
          : c.fail(what);
    tryBind(b.tensor(0, DType::BFloat16, {1024}), "heap peer table");
    heap.free(b);
  } catch (const Error &e) {
    c.fail(fmt::format("symmetric heap on this world: {}", e.what()));
  }
  (void)cudaFree(data);
  (void)cudaFree(table);
}

/// 4: the collectives in each mode.
void checkCollectives(Communicator &comm, int nodes, Checker &c) {
  tooling::TempDir kdir("dslc-teams-k"), cache("dslc-teams-c");
  Tuned tuned = makeTunedDirs(kdir.path(), cache.path());
  c.ok(fmt::format("tuned kernel directories: {}", tuned.dirs));
  int world = comm.worldSize();
  size_t w = static_cast<size_t>(world);
  using K = CollectiveKind;
  for (const char *mode : {"auto", "on", "off"}) {
    setenv("DSLC_HIERARCHICAL", mode, 1);
    CollectivesOptions o;
    o.kernelDirs = tuned.dirs;
    o.cacheDir = cache.path();
    o.log = true;
    Collectives coll(comm, o);
    for (K kind : {K::AllReduce, K::ReduceScatter, K::AllGather})
      for (size_t n : {w, w * 2049, w * 65536}) {
        int64_t bad = runOne(comm, coll, kind, n);
        const auto &last = coll.lastCall();
        DispatchChoice::Kind want =
            expectedPath(kind, mode, world, nodes, tuned);
        std::string line = fmt::format("mode={} {}", mode,
                                       last ? last->describe() : "(no call)");
        if (bad)
          c.fail(fmt::format("{}: {} wrong elements", line, bad));
        else if (!last || last->path != want)
          c.fail(fmt::format("{}: expected the {} path", line,
                             dispatchKindName(want)));
        else
          c.ok(line + ": ok");
      }
  }
  unsetenv("DSLC_HIERARCHICAL");
}
} // namespace

int mpTeams() {
  const char *e = std::getenv("DSLC_TEST_EXPECT_NODES");
  int nodes = e ? std::atoi(e) : 0;
  if (nodes != 1 && nodes != 2) {
    std::printf("RESULT: FAILED DSLC_TEST_EXPECT_NODES must be 1 or 2\n");
    return 2;
  }
  auto comm = Communicator::createFromEnv();
  Checker c;
  int world = comm->worldSize();
  const RankTeams &t = comm->teams(0);
  std::string teams = "teams: " + t.describe();
  t.numNodes() == nodes &&t.lsaSize *nodes == world
      ? c.ok(teams)
      : c.fail(fmt::format("{} (expected {} node(s))", teams, nodes));
  if (world == 2) // the planted tables are the one-shot kernel's (world 2)
    checkPeerTables(*comm, nodes, c);
  checkCollectives(*comm, nodes, c);
  std::printf("RESULT: %s\n", c.failures ? "FAILED" : "all checks passed");
  return c.failures ? 1 : 0;
}

std::map<std::string, std::string> twoHostsEnv(int rank) {
  return {{"NCCL_HOSTID", fmt::format("dslc-fake-host-{}", rank)},
          {"NCCL_P2P_DISABLE", "1"},
          {"NCCL_SHM_DISABLE", "1"},
          {"NCCL_NET", "Socket"},
          {"NCCL_IB_DISABLE", "1"},
          {"NCCL_SOCKET_IFNAME", "lo"},
          {"NCCL_NVLS_ENABLE", "0"},
          {"DSLC_TEST_EXPECT_NODES", "2"}};
}

std::map<std::string, std::string> twoHostsOfTwoEnv(int rank) {
  // Ranks 0, 1 on GPUs 0, 1 of host 0; ranks 2, 3 on GPUs 0, 1 of host 1.
  // P2P stays on inside a host (NCCL never uses it between host ids).
  return {{"NCCL_HOSTID", fmt::format("dslc-fake-host-{}", rank / 2)},
          {"NCCL_NET", "Socket"},
          {"NCCL_IB_DISABLE", "1"},
          {"NCCL_SOCKET_IFNAME", "lo"},
          {"NCCL_NVLS_ENABLE", "0"},
          {"DSLC_TEST_EXPECT_NODES", "2"}};
}

} // namespace dslc::test

using namespace dslc::test;

TEST_CASE("teams: processes as two hosts (distinct NCCL_HOSTID) and as one "
          "node",
          "[gpu][multinode]") {
  if (!requireGpus(2, "teams (two hosts of one and of two GPUs, one node)"))
    return;
  auto check = [](const std::vector<ChildResult> &rs, const char *what) {
    for (size_t r = 0; r < rs.size(); ++r) {
      INFO(what << ", rank " << r << " output:\n" << rs[r].output);
      CHECK_FALSE(rs[r].timedOut);
      CHECK(rs[r].exitCode == 0);
      CHECK(rs[r].output.find("RESULT: all checks passed") !=
            std::string::npos);
      fmt::print("{}, rank {} ({:.1f} s):\n{}\n", what, r, rs[r].seconds,
                 rs[r].output);
    }
  };
  check(runRanks("mp-teams", 2, 300, twoHostsEnv), "two hosts");
  check(runRanks("mp-teams", 4, 300, twoHostsOfTwoEnv),
        "two hosts of two GPUs");
  check(runRanks("mp-teams", 2, 300,
                 [](int) {
                   return std::map<std::string, std::string>{
                       {"DSLC_TEST_EXPECT_NODES", "1"}};
                 }),
        "one node");
}
