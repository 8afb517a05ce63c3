//===- BenchGpuTest.cpp - tuner bench's NCCL baselines and L2 rotation ----===//
//
// The harness paths `tuner bench` adds: NCCL on cudaMalloc'ed and on
// symmetric-window buffers, out of place and in place, and input/output
// sets rotating call by call (--l2-cold), every result checked. [gpu]: two
// GPUs, one process; skipped (and reported so) without them.
//
//===----------------------------------------------------------------------===//
#include "runtime/Communicator.h"
#include "tests/runtime/GpuSkip.h"
#include "tooling/harness/CollectiveHarness.h"

#include <catch2/catch.hpp>

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
