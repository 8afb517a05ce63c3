//===- BenchGpuTest.cpp - tuner bench's NCCL baselines and L2 rotation ----===//
//
// The harness paths `tuner bench` adds: NCCL on cudaMalloc'ed and on
// symmetric-window buffers, out of place and in place, and input/output
// sets rotating call by call (--l2-cold), every result checked; and the
// L2-cold timing of any kernel (a flush before each call). [gpu]: two GPUs
// (one for the flushed timing), one process; skipped (and reported so)
// without them.
//
//===----------------------------------------------------------------------===//
#include "runtime/Communicator.h"
#include "runtime/Error.h"
#include "tests/runtime/GpuSkip.h"
#include "tooling/harness/CollectiveHarness.h"
#include "tooling/harness/Timing.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <chrono>
#include <thread>

using namespace dslc;
using dslc::test::haveGpus;

TEST_CASE("L2-cold rotating sets: enough to exceed twice L2, capped",
          "[tuner]") {
  size_t l2 = size_t(60) << 20;
  CHECK(run::l2ColdSets(size_t(64) << 20, l2) == 3); // 2 x 64 MiB > 120 MiB
  CHECK(run::l2ColdSets(size_t(1) << 20, l2) == 121);
  CHECK(run::l2ColdSets(4096, l2) == run::kMaxRotatingSets);
  CHECK(run::l2ColdSets(size_t(1) << 30, l2) == 2);
  CHECK(run::l2ColdSets(0, l2) == run::kMaxRotatingSets);
}

TEST_CASE("bench: NCCL in the window and not, in place, rotating sets",
          "[gpu]") {
  if (!haveGpus(2, "bench NCCL baselines"))
    return;
  auto comm = rt::Communicator::createAll({0, 1});
  run::RunOptions o;
  o.iters = 3;
  o.graphReplays = 3;
  o.callsPerGraph = 3;
  o.repetitions = 2;
  o.graphs = 2;
  for (run::Collective c :
       {run::Collective::AllReduce, run::Collective::ReduceScatter,
        run::Collective::AllGather})
    for (bool window : {false, true})
      for (int sets : {1, 3}) {
        run::HarnessLayout layout;
        layout.ncclWindow = window;
        layout.rotatingSets = sets;
        INFO(rt::collectiveName(c)
             << (window ? " window" : " plain") << " sets " << sets);
        run::CollectiveHarness h(*comm, c, rt::DType::BFloat16, 65536, nullptr,
                                 layout);
        for (int64_t n : {int64_t(65536), int64_t(2048)}) {
          run::CollectiveResult out = h.runNccl(n, o);
          INFO(out.firstMismatch << out.error);
          CHECK(out.ok());
          CHECK(out.graph.measured());
          run::CollectiveResult in = h.runNcclInPlace(n, o);
          INFO(in.firstMismatch << in.error);
          CHECK(in.ok());
          CHECK(in.eager.measured());
        }
      }
}

// An 8 MiB device copy per rank as the "kernel": each eager sample is one
// call after the flush, and a host slower than the flush (a sleep before
// the launches) is retaken behind a longer flush instead of timed.
TEST_CASE("L2-cold timing: one call per sample after a flush; a host that "
          "outlasts the flush is retaken, not timed",
          "[gpu]") {
  if (!haveGpus(1, "L2-cold timing"))
    return;
  for (int w : {1, 4}) {
    INFO("virtual world " << w);
    auto comm = rt::Communicator::createVirtual(w);
    const rt::LocalRank &l0 = comm->local(0);
    const size_t bytes = size_t(8) << 20;
    std::vector<void *> bufs(2 * w, nullptr);
    for (void *&b : bufs)
      DSLC_CUDART(0, cudaMalloc(&b, bytes));
    auto sleep = std::chrono::microseconds(0);
    run::PhaseHooks h;
    h.callOne = [&](int i) {
      DSLC_CUDART(i, cudaMemcpyAsync(bufs[2 * i + 1], bufs[2 * i], bytes,
                                     cudaMemcpyDeviceToDevice,
                                     comm->local(i).stream));
    };
    h.callAll = [&] {
      std::this_thread::sleep_for(sleep);
      for (int i = 0; i < w; ++i)
        h.callOne(i);
    };
    h.wait = [&] { DSLC_CUDART(0, cudaDeviceSynchronize()); };
    h.prepare = [] {};
    h.check = [](const char *) {};
    run::RunOptions o;
    o.iters = 4;
    o.repetitions = 3;
    o.graphReplays = 0;
    o.flushBytes = run::l2FlushBytes(l0);
    CHECK(o.flushBytes >= size_t(2) << 20);
    run::TimingStats cold, graph;
    run::measurePhases(*comm, o, h, cold, graph);
    CHECK(cold.samplesUs.size() == 12);
    CHECK(cold.callsPerSample == 1);
    CHECK(cold.minUs > 0);
    CHECK(!graph.measured());
    // 300 us of host time per call against a flush of ~20-40 us: every
    // sample is retaken until the flush outlasts the host; the samples
    // kept hold the copy (a few us), not the sleep.
    sleep = std::chrono::microseconds(300);
    run::TimingStats slow;
    run::measurePhases(*comm, o, h, slow, graph);
    CHECK(slow.samplesUs.size() == 12);
    CHECK(slow.retaken >= 12);
    CHECK(slow.flushRepeat > 1);
    CHECK(slow.flushRepeat <= run::kMaxFlushRepeat);
    CHECK(slow.medianUs < 150);
    fmt::print("L2-cold, world {}: 8 MiB copy {:.2f} us; behind a 300 us host "
               "{:.2f} us ({} samples retaken, flush x{})\n",
               w, cold.medianUs, slow.medianUs, slow.retaken, slow.flushRepeat);
    for (void *b : bufs)
      (void)cudaFree(b);
    comm->finalize();
  }
}
