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

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
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

std::string peerReadWrite(Communicator &comm) {
  int world = comm.worldSize();
  SymmetricHeap heap(comm, 8 << 20);
  const int64_t n = 100003;
  SymmetricBuffer buf = heap.alloc(2 * n * sizeof(int32_t));
  std::string problems;
  auto problem = [&](const std::string &what) {
    problems += (problems.empty() ? "" : "; ") + what;
  };
  // Same offset everywhere; own table entry is the local address.
  for (int i = 0; i < comm.numLocal(); ++i) {
    std::vector<uint64_t> table(world);
    setDevice(comm.local(i).device, comm.local(i).rank);
    DSLC_CUDART(i, cudaMemcpy(table.data(), buf.peers[i], world * 8,
                              cudaMemcpyDeviceToHost));
    int rank = comm.local(i).rank;
    if (table[rank] != reinterpret_cast<uintptr_t>(buf.local[i]))
      problem(fmt::format("rank {}: own table entry is not its address", rank));
    for (int p = 0; p < world; ++p)
      if (table[p] == 0)
        problem(fmt::format("rank {}: table entry {} is null", rank, p));
  }
  auto kernel = Kernel::load(comm, kernelPath("peer_rw.cubin"));
  std::vector<void *> outs(comm.numLocal());
  std::vector<BoundArgs> args;
  comm.forEach([&](int i) {
    int rank = comm.local(i).rank;
    std::vector<int32_t> host(n);
    for (int64_t k = 0; k < n; ++k)
      host[k] = static_cast<int32_t>(rank * 7919 + k);
    DSLC_CUDART(rank, cudaMemcpy(buf.local[i], host.data(), n * 4,
                                 cudaMemcpyHostToDevice));
    DSLC_CUDART(rank, cudaMalloc(&outs[i], n * 4));
    BoundArgs a = kernel->args(i);
    a.setTensor("buf", buf.tensor(i, DType::Int32, {2, n}));
    a.setInt("rank", rank);
    a.setInt("world", world);
    a.setTensor("out", TensorArg{outs[i], DType::Int32, {n}});
    args.push_back(std::move(a));
  });
  comm.barrier();
  // A grid-stride kernel without spins: its tiles, up to max_ctas.
  int64_t grid = kernel->gridFor(0, args[0]);
  if (grid != std::min<int64_t>((n + 255) / 256, 1024))
    problem(fmt::format("grid {} for {} tiles", grid, (n + 255) / 256));
  kernel->launchAll(args);
  kernel->synchronize();
  comm.barrier();
  comm.forEach([&](int i) {
    int rank = comm.local(i).rank;
    int next = (rank + 1) % world, prev = (rank + world - 1) % world;
    std::vector<int32_t> out(n), inbox(n);
    DSLC_CUDART(rank,
                cudaMemcpy(out.data(), outs[i], n * 4, cudaMemcpyDeviceToHost));
    DSLC_CUDART(rank, cudaMemcpy(inbox.data(),
                                 static_cast<int32_t *>(buf.local[i]) + n,
                                 n * 4, cudaMemcpyDeviceToHost));
    int64_t badRead = 0, badWrite = 0;
    for (int64_t k = 0; k < n; ++k) {
      badRead += out[k] != static_cast<int32_t>(next * 7919 + k);
      badWrite += inbox[k] != static_cast<int32_t>(prev * 1000003 + k);
    }
    if (badRead || badWrite)
      problem(fmt::format("rank {}: {} wrong peer reads, {} wrong peer "
                          "writes of {}",
                          rank, badRead, badWrite, n));
    DSLC_CUDART(rank, cudaFree(outs[i]));
  });
  heap.free(buf);
  if (heap.used() != 0)
    problem(fmt::format("{} heap bytes in use after free", heap.used()));
  return problems;
}

std::unique_ptr<Kernel> loadOneShot(Communicator &comm, int64_t timeoutMs) {
  KernelOptions opts;
  opts.timeoutMs = timeoutMs;
  return Kernel::load(comm, kernelPath("one_shot_all_reduce.r{rank}.cubin"), "",
                      opts);
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
        std::printf("RESULT: ping-pong slot %d is %u, expected %d\n", r, pad[r],
                    calls);
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

/// The virtual world's size for the virtual-* scenarios
/// ($DSLC_VIRTUAL_WORLD, default 8).
int virtualWorldSize() {
  const char *w = std::getenv("DSLC_VIRTUAL_WORLD");
  return w ? std::atoi(w) : 8;
}

int virtualHang() {
  auto comm = Communicator::createVirtual(virtualWorldSize());
  // The last rank never signals: its peers time out on its slot.
  return expectHang(*comm, comm->worldSize() - 1, true);
}

/// A rank whose kernel is never launched (a dead peer in one process): the
/// others' bounded waits report it, nothing hangs.
int virtualMissingRank() {
  auto comm = Communicator::createVirtual(virtualWorldSize());
  int missing = comm->worldSize() - 1;
  SymmetricHeap heap(*comm, 1 << 20);
  PingPong p = makePingPong(*comm, heap, 1, -1, 1000);
  auto start = std::chrono::steady_clock::now();
  try {
    for (int i = 0; i < comm->numLocal(); ++i)
      if (comm->local(i).rank != missing)
        p.kernel->launch(i, p.args[i]);
    p.kernel->synchronize();
    std::printf("RESULT: no error after %.0f ms\n", msSince(start));
    return 1;
  } catch (const Error &e) {
    std::printf("RESULT: error (%s) after %.0f ms (rank %d never "
                "launched):\n%s\n",
                errorCodeName(e.code()), msSince(start), missing, e.what());
    std::fflush(stdout);
    return e.code() == ErrorCode::KernelTimeout ? 0 : 1;
  }
}

/// More ranks than CUDA_DEVICE_MAX_CONNECTIONS gives hardware queues.
int virtualQueues() {
  try {
    auto comm = Communicator::createVirtual(virtualWorldSize());
    std::printf("RESULT: a virtual world of %d ranks was made\n",
                comm->worldSize());
    return 1;
  } catch (const Error &e) {
    std::printf("RESULT: error (%s): %s\n", errorCodeName(e.code()), e.what());
    return e.code() == ErrorCode::InvalidArgument ? 0 : 1;
  }
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
    if (scenario == "virtual-hang")
      return virtualHang();
    if (scenario == "virtual-missing-rank")
      return virtualMissingRank();
    if (scenario == "virtual-queues")
      return virtualQueues();
    if (int status = runFaultScenario(scenario); status >= 0)
      return status;
    std::printf("unknown child scenario '%s'\n", scenario.c_str());
    return 2;
  } catch (const Error &e) {
    std::printf("RESULT: unexpected error (%s): %s\n", errorCodeName(e.code()),
                e.what());
    return 1;
  }
}

} // namespace dslc::test
