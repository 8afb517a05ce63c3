//===- GpuVirtualTest.cpp - A virtual world: W ranks on one GPU ([gpu]) ---===//
//
// Communicator::createVirtual runs every rank of a world in this process on
// one GPU: the heap's regions, peer tables, barriers, teams, kernel
// co-residency, graph capture and the bounded waits, at W = 2, 4 and 8.
// The hangs run in child processes (a trap ends the CUDA context).
//
//===----------------------------------------------------------------------===//
#include "runtime/Error.h"
#include "tests/runtime/GpuSupport.h"
#include "tests/runtime/TestSupport.h"
#include "tooling/harness/CollectiveHarness.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <set>

using namespace dslc;
using namespace dslc::rt;
using namespace dslc::test;

namespace {
constexpr int kWorlds[] = {2, 4, 8};
} // namespace

TEST_CASE("virtual world: ranks, streams, teams, barrier and bad sizes",
          "[gpu]") {
  if (!requireGpus(1, "virtual world"))
    return;
  CHECK_THROWS_WITH(Communicator::createVirtual(0),
                    Catch::Contains("a virtual world of 0 ranks: the size "
                                    "must be 1..32"));
  CHECK_THROWS_WITH(Communicator::createVirtual(33),
                    Catch::Contains("the size must be 1..32"));
  CHECK_THROWS_WITH(Communicator::createVirtual(2, gpuCount()),
                    Catch::Contains("does not exist"));
  for (int w : kWorlds) {
    INFO("world " << w);
    auto comm = Communicator::createVirtual(w);
    CHECK(comm->isVirtual());
    CHECK(comm->worldSize() == w);
    CHECK(comm->numLocal() == w);
    CHECK(comm->ranksPerDevice() == w);
    std::set<cudaStream_t> streams;
    std::vector<int> values;
    for (int i = 0; i < w; ++i) {
      CHECK(comm->local(i).rank == i);
      CHECK(comm->local(i).device == 0);
      CHECK(comm->local(i).comm == nullptr);
      streams.insert(comm->local(i).stream);
      const RankTeams &t = comm->teams(i);
      CHECK(t.wholeWorld());
      CHECK(t.lsaRank == i);
      values.push_back(100 - 3 * i);
    }
    CHECK(streams.size() == static_cast<size_t>(w));
    CHECK(comm->allReduceMin(values) == 100 - 3 * (w - 1));
    comm->barrier();
    CHECK_THROWS_WITH(
        Communicator::split(*comm, std::vector<int>(w, 0),
                            std::vector<int>(w, 0)),
        Catch::Contains("a virtual world has no NCCL communicator"));
    comm->finalize();
  }
}

TEST_CASE("virtual world: heap regions, peer tables, peer reads and writes",
          "[gpu]") {
  if (!requireGpus(1, "virtual world heap"))
    return;
  for (int w : kWorlds) {
    auto comm = Communicator::createVirtual(w);
    INFO("world " << w);
    CHECK(peerReadWrite(*comm) == "");
    // Each rank's region is its own: buffers at one offset, W regions apart.
    SymmetricHeap heap(*comm, 4 << 20);
    SymmetricBuffer b = heap.alloc(1000);
    for (int i = 1; i < w; ++i)
      CHECK(static_cast<char *>(b.local[i]) -
                static_cast<char *>(b.local[i - 1]) ==
            static_cast<ptrdiff_t>(heap.capacity()));
    heap.free(b);
  }
}

TEST_CASE("virtual world: ping-pong over 1000 calls and graph replays, "
          "co-resident grids",
          "[gpu]") {
  if (!requireGpus(1, "virtual world ping-pong"))
    return;
  for (int w : kWorlds) {
    INFO("world " << w);
    auto comm = Communicator::createVirtual(w);
    SymmetricHeap heap(*comm, 1 << 20);
    PingPong p = makePingPong(*comm, heap, 2, -1, 5000);
    // Every rank's CTAs fit on the GPU at once: 1/W of what it holds.
    int64_t resident = static_cast<int64_t>(p.kernel->maxActivePerSm(0)) *
                       comm->local(0).numSms;
    CHECK(p.kernel->gridFor(0, p.args[0]) <= resident / w);
    const int calls = 1000;
    for (int c = 0; c < calls; ++c)
      p.kernel->launchAll(p.args);
    p.kernel->synchronize();
    // Round r of call e writes e * rounds + r + 1: the last is 2 * calls.
    for (int i = 0; i < w; ++i) {
      std::vector<uint32_t> pad = readPad(*comm, p.pad, i);
      for (int r = 0; r < w; ++r)
        if (r != i)
          CHECK(pad[r] == 2u * calls);
    }
    // Ten calls per graph on every rank's stream, replayed 100 times.
    std::vector<cudaGraph_t> graphs(w);
    std::vector<cudaGraphExec_t> execs(w);
    for (int i = 0; i < w; ++i) {
      cudaStream_t s = comm->local(i).stream;
      DSLC_CUDART(i, cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
      for (int c = 0; c < 10; ++c)
        p.kernel->launch(i, p.args[i]);
      DSLC_CUDART(i, cudaStreamEndCapture(s, &graphs[i]));
      DSLC_CUDART(i, cudaGraphInstantiate(&execs[i], graphs[i], 0));
    }
    for (int k = 0; k < 100; ++k)
      for (int i = 0; i < w; ++i)
        DSLC_CUDART(i, cudaGraphLaunch(execs[i], comm->local(i).stream));
    p.kernel->synchronize();
    for (int i = 0; i < w; ++i) {
      std::vector<uint32_t> pad = readPad(*comm, p.pad, i);
      for (int r = 0; r < w; ++r)
        if (r != i)
          CHECK(pad[r] == 2u * (calls + 1000));
      (void)cudaGraphExecDestroy(execs[i]);
      (void)cudaGraphDestroy(graphs[i]);
    }
  }
}

TEST_CASE("virtual world: the one-shot all-reduce of two ranks on one GPU",
          "[gpu]") {
  if (!requireGpus(1, "virtual world all-reduce"))
    return;
  auto comm = Communicator::createVirtual(2); // the cubins' world size
  auto kernel = loadOneShot(*comm);
  run::CollectiveHarness h(*comm, *kernel, run::Collective::AllReduce, 1 << 20);
  run::RunOptions o;
  o.iters = 1000;
  o.graphReplays = 100;
  o.repetitions = 1;
  o.seed = 7;
  for (int64_t n : {int64_t(1), int64_t(8193), int64_t((1 << 20) - 5)}) {
    run::CollectiveResult r = h.run(n, o);
    INFO("n = " << n << ": " << r.firstMismatch << r.error);
    CHECK(r.ok());
  }
  // NCCL's collectives cannot run: NCCL refuses two ranks on one GPU.
  CHECK_THROWS_WITH(h.runNccl(1024, o),
                    Catch::Contains("cannot run in a virtual world"));
}

TEST_CASE("virtual world: a planted hang and a rank never launched are "
          "reported within 10 s at W = 8",
          "[gpu]") {
  if (!requireGpus(1, "virtual world hangs"))
    return;
  for (const char *scenario : {"virtual-hang", "virtual-missing-rank"}) {
    ChildResult r = runChild(
        scenario, {{"DSLC_TIMEOUT_MS", "1000"}, {"DSLC_VIRTUAL_WORLD", "8"}},
        120);
    INFO(scenario << ":\n" << r.output);
    CHECK_FALSE(r.timedOut);
    CHECK(r.exitCode == 0);
    CHECK(r.seconds < 10);
    // Some rank's record names the wait on rank 7's slot (the first
    // record's trap may end the others' kernels before they write theirs).
    CHECK(r.output.find("kernel signal_wait_kernel: wait at "
                        "tests/runtime/kernels/signal_wait.cu:") !=
          std::string::npos);
    CHECK(r.output.find("timed out after 1000 ms: slot 7 expected 1, saw 0") !=
          std::string::npos);
    fmt::print("{} (virtual world of 8): {:.1f} s\n{}\n", scenario, r.seconds,
               r.output);
  }
}

TEST_CASE("virtual world: more ranks than hardware queues is refused",
          "[gpu]") {
  if (!requireGpus(1, "virtual world queues"))
    return;
  ChildResult r = runChild(
      "virtual-queues",
      {{"CUDA_DEVICE_MAX_CONNECTIONS", "4"}, {"DSLC_VIRTUAL_WORLD", "8"}}, 60);
  INFO(r.output);
  CHECK(r.exitCode == 0);
  CHECK(r.output.find("a virtual world of 8 ranks on device 0 needs a "
                      "hardware queue per rank's stream, and this process "
                      "has 4 (CUDA_DEVICE_MAX_CONNECTIONS") !=
        std::string::npos);
}
