//===- GpuChildren.cpp - Child-process scenarios of the GPU tests ---------===//
//
// Scenarios that must run in their own processes: a planted hang kills the
// CUDA context it happens in, and the two-process tests need two processes.
// Each prints what it saw and returns 0 when it saw what it expects.
//
//===----------------------------------------------------------------------===//
#include "runtime/Error.h"
#include "runtime/Rendezvous.h"
#include "tests/runtime/GpuSupport.h"
#include "tests/runtime/TestSupport.h"
#include "tooling/harness/CollectiveHarness.h"

#include <chrono>
#include <cstdio>
#include <unistd.h>

namespace dslc::test {

using namespace dslc::rt;

PingPong makePingPong(Communicator &comm, SymmetricHeap &heap, int64_t rounds,
                      int64_t silentRank, int64_t timeoutMs) {
  PingPong p;
  KernelOptions opts;
  opts.timeoutMs = timeoutMs;
  p.kernel = Kernel::load(comm, kernelPath("signal_wait.cubin"), "", opts);
  int world = comm.worldSize();
  p.pad = heap.allocSignalPad(world * sizeof(uint32_t));
  for (int i = 0; i < comm.numLocal(); ++i) {
    BoundArgs a = p.kernel->args(i);
    TensorArg table;
    table.data = p.pad.peers[i];
    table.dtype = DType::UInt64;
    table.sizes = {world};
    a.setTensor("pad_addrs", table);
    a.setTensor("local_pad", p.pad.tensor(i, DType::UInt32, {world}, false));
    a.setInt("rank", comm.local(i).rank);
    a.setInt("rounds", rounds);
    a.setInt("silent_rank", silentRank);
    p.args.push_back(std::move(a));
  }
  return p;
}

std::vector<uint32_t> readPad(Communicator &comm, const SymmetricBuffer &pad,
                              int local) {
  const LocalRank &l = comm.local(local);
  setDevice(l.device, l.rank);
  std::vector<uint32_t> v(comm.worldSize());
  DSLC_CUDART(l.rank, cudaMemcpy(v.data(), pad.local[local], v.size() * 4,
                                 cudaMemcpyDeviceToHost));
  return v;
}

std::unique_ptr<Kernel> loadOneShot(Communicator &comm, int64_t timeoutMs) {
  KernelOptions opts;
  opts.timeoutMs = timeoutMs;
  return Kernel::load(comm, kernelPath("one_shot_all_reduce.r{rank}.cubin"),
                      "", opts);
}

namespace {

double msSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t)
      .count();
}

/// Runs a two-round ping-pong where `silentRank` never signals: its peers
/// time out in round 1, and it times out in round 2 (nobody reaches it).
int expectHang(Communicator &comm, int64_t silentRank, bool expectError) {
  SymmetricHeap heap(comm, 1 << 20);
  PingPong p = makePingPong(comm, heap, 2, silentRank, 1000);
  auto start = std::chrono::steady_clock::now();
  try {
    p.kernel->launchAll(p.args);
    p.kernel->synchronize();
    std::printf("RESULT: no error after %.0f ms\n", msSince(start));
    return expectError ? 1 : 0;
  } catch (const Error &e) {
    std::printf("RESULT: error (%s) after %.0f ms:\n%s\n",
                errorCodeName(e.code()), msSince(start), e.what());
    std::fflush(stdout);
    return expectError && e.code() == ErrorCode::KernelTimeout ? 0 : 1;
  }
}

int hangSingle() {
  auto comm = Communicator::createAll();
  return expectHang(*comm, 1, true);
}

int mpHang() {
  auto comm = Communicator::createFromEnv();
  // Rank 1 never signals: every rank must report a timed-out wait.
  return expectHang(*comm, 1, true);
}

int mpDeadPeer() {
  auto comm = Communicator::createFromEnv();
  int rank = comm->local(0).rank;
  SymmetricHeap heap(*comm, 1 << 20);
  PingPong p = makePingPong(*comm, heap, 1, -1, 1000);
  comm->barrier();
  if (rank == 1) {
    std::printf("RESULT: rank 1 dies now\n");
    std::fflush(stdout);
    _exit(3); // no teardown, like a crash
  }
  // Let the peer die before launching.
  usleep(200000);
  auto start = std::chrono::steady_clock::now();
  try {
    p.kernel->launchAll(p.args);
    p.kernel->synchronize();
    std::printf("RESULT: no error after %.0f ms\n", msSince(start));
    return 1;
  } catch (const Error &e) {
    std::printf("RESULT: error (%s) after %.0f ms:\n%s\n",
                errorCodeName(e.code()), msSince(start), e.what());
    std::fflush(stdout);
    return e.code() == ErrorCode::KernelTimeout ? 0 : 1;
  }
}

int mpWork() {
  auto comm = Communicator::createFromEnv();
  int failures = 0;
  {
    SymmetricHeap heap(*comm, 1 << 20);
    PingPong p = makePingPong(*comm, heap, 1, -1, -1);
    const int calls = 1000;
    for (int c = 0; c < calls; ++c)
      p.kernel->launchAll(p.args);
    p.kernel->synchronize();
    auto pad = readPad(*comm, p.pad, 0);
    for (int r = 0; r < comm->worldSize(); ++r)
      if (r != comm->local(0).rank && pad[r] != calls) {
        std::printf("RESULT: ping-pong slot %d is %u, expected %d\n", r,
                    pad[r], calls);
        ++failures;
      }
    std::printf("RESULT: ping-pong %d calls %s\n", calls,
                failures ? "FAILED" : "ok");
  }
  auto kernel = loadOneShot(*comm);
  run::CollectiveHarness h(*comm, *kernel, run::Collective::AllReduce, 1 << 20);
  run::RunOptions o;
  o.iters = 1000;
  o.graphReplays = 100;
  o.repetitions = 1;
  o.seed = 7;
  for (int64_t n : {int64_t(1), int64_t(8193), int64_t((1 << 20) - 5)}) {
    run::CollectiveResult r = h.run(n, o);
    std::printf("RESULT: all-reduce n=%lld %s %s (%.2f us/call eager, %.2f "
                "us/call graph)\n",
                static_cast<long long>(n), r.ok() ? "ok" : "FAILED",
                r.firstMismatch.c_str(), r.eager.medianUs, r.graph.medianUs);
    failures += r.ok() ? 0 : 1;
  }
  return failures ? 1 : 0;
}

} // namespace

int runChildScenario(const std::string &scenario) {
  try {
    if (scenario == "hang-single")
      return hangSingle();
    if (scenario == "mp-hang")
      return mpHang();
    if (scenario == "mp-dead-peer")
      return mpDeadPeer();
    if (scenario == "mp-work")
      return mpWork();
    if (scenario == "mp-teams")
      return mpTeams();
    std::printf("unknown child scenario '%s'\n", scenario.c_str());
    return 2;
  } catch (const Error &e) {
    std::printf("RESULT: unexpected error (%s): %s\n", errorCodeName(e.code()),
                e.what());
    return 1;
  }
}

} // namespace dslc::test
