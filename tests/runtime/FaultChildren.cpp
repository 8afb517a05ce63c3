//===- FaultChildren.cpp - A peer process killed around a collective ------===//
//
// Child scenarios of FaultTest.cpp (issue 15, item 5): two ranks, one per
// process; rank 1 is killed (SIGKILL, no teardown) before the communicator
// exists, while a collective is in flight, or after its last collective.
// Rank 0, the survivor, goes on as a program would, and must report the
// dead peer within the host timeout (DSLC_HOST_TIMEOUT_MS) and exit non-zero
// like dslrun: it prints "RESULT: error (CODE) after MS ms:" and the error,
// and returns 1; "RESULT: no error" and 0 if nothing noticed the death.
//
//===----------------------------------------------------------------------===//
#include "runtime/Communicator.h"
#include "runtime/Error.h"
#include "runtime/SymmetricHeap.h"
#include "tests/runtime/TestSupport.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <unistd.h>

namespace dslc::test {

using namespace dslc::rt;

namespace {

using Clock = std::chrono::steady_clock;

/// rank 1 dies here, as a crash would: no destructor, no NCCL teardown.
void dieIfVictim(int rank, const char *when) {
  if (rank != 1)
    return;
  std::printf("RESULT: rank 1 killed %s\n", when);
  std::fflush(stdout);
  ::kill(::getpid(), SIGKILL);
  ::pause();
}

/// Runs `body` (everything the survivor does, teardown included) and turns
/// its outcome into the RESULT line and exit status.
template <typename Fn> int survive(Fn body) {
  auto start = Clock::now();
  auto ms = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() -
                                                                 start)
        .count();
  };
  try {
    body(start);
  } catch (const Error &e) {
    std::printf("RESULT: error (%s) after %lld ms:\n%s\n",
                errorCodeName(e.code()), static_cast<long long>(ms()),
                e.what());
    std::fflush(stdout);
    return 1;
  }
  std::printf("RESULT: no error after %lld ms\n", static_cast<long long>(ms()));
  return 0;
}

/// A 64 MiB float all-reduce on the rank's own stream (long enough to be in
/// flight when the peer dies), waited for unless `wait` is false.
struct BigAllReduce {
  Communicator &comm;
  float *buf = nullptr;
  static constexpr size_t kCount = size_t(16) << 20;
  explicit BigAllReduce(Communicator &c) : comm(c) {
    const LocalRank &l = comm.local(0);
    setDevice(l.device, l.rank);
    DSLC_CUDART(l.rank, cudaMalloc(reinterpret_cast<void **>(&buf),
                                   kCount * sizeof(float)));
    DSLC_CUDART(l.rank, cudaMemset(buf, 0, kCount * sizeof(float)));
  }
  ~BigAllReduce() {
    if (!comm.failed())
      (void)cudaFree(buf);
  }
  void run(int call, bool wait = true) {
    const LocalRank &l = comm.local(0);
    DSLC_NCCL(l.rank, ncclAllReduce(buf, buf, kCount, ncclFloat32, ncclSum,
                                    l.comm, l.stream));
    if (wait)
      comm.waitStreams("all-reduce " + std::to_string(call) + " (64 MiB)");
    else
      comm.settle("all-reduce " + std::to_string(call) + " (64 MiB)");
  }
};

int beforeInit() {
  auto env = readProcessEnv();
  if (!env)
    raise(ErrorCode::InvalidArgument, "no RANK/WORLD_SIZE");
  dieIfVictim(env->rank, "before joining the communicator");
  return survive([](Clock::time_point) {
    auto comm = Communicator::createFromEnv();
    comm->barrier();
    comm->finalize();
  });
}

int duringCollective() {
  auto comm = Communicator::createFromEnv();
  int rank = comm->local(0).rank;
  auto all = std::make_unique<BigAllReduce>(*comm);
  for (int call = 0; call < 3; ++call)
    all->run(call);
  if (rank == 1) {
    all->run(3, /*wait=*/false); // in flight on both ranks
    dieIfVictim(rank, "while all-reduce 3 is in flight");
  }
  return survive([&](Clock::time_point) {
    all->run(3);
    all->run(4);
    all.reset();
    comm->finalize();
    comm.reset();
  });
}

int afterCollective() {
  auto comm = Communicator::createFromEnv();
  int rank = comm->local(0).rank;
  return survive([&](Clock::time_point) {
    {
      SymmetricHeap heap(*comm, 1 << 20); // a registered window
      BigAllReduce all(*comm);
      all.run(0);
      all.run(1);
      comm->barrier();
      // Both ranks are past the barrier before the victim dies.
      ::usleep(200 * 1000);
      dieIfVictim(rank, "after its last all-reduce");
      ::usleep(400 * 1000); // the peer is gone
    } // deregisters the window
    comm->finalize();
    comm.reset();
  });
}

} // namespace

int runFaultScenario(const std::string &scenario) {
  if (scenario == "fault-before-init")
    return beforeInit();
  if (scenario == "fault-during-collective")
    return duringCollective();
  if (scenario == "fault-after-collective")
    return afterCollective();
  return -1;
}

} // namespace dslc::test
