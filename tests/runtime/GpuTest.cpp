//===- GpuTest.cpp - Runtime tests on the GPUs ([gpu]) --------------------===//
//
// Each test skips with a printed reason when the GPUs it needs are missing.
// The one-shot all-reduce kernels are compiled for world size
// DSLC_TEST_WORLD_SIZE (2): those tests use the first two GPUs.
//
//===----------------------------------------------------------------------===//
#include "runtime/Error.h"
#include "tests/runtime/GpuSupport.h"
#include "tests/runtime/TestSupport.h"
#include "tooling/harness/CollectiveHarness.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

using namespace dslc;
using namespace dslc::rt;
using namespace dslc::test;

namespace {
constexpr int kWorld = 2; // the world size the one-shot cubins are built for

size_t freeBytes(int device) {
  size_t free = 0, total = 0;
  DSLC_CUDART(-1, cudaSetDevice(device));
  DSLC_CUDART(-1, cudaDeviceSynchronize());
  DSLC_CUDART(-1, cudaMemGetInfo(&free, &total));
  return free;
}

std::vector<int> firstDevices(int n) {
  std::vector<int> d;
  for (int i = 0; i < n; ++i)
    d.push_back(i);
  return d;
}
} // namespace

TEST_CASE("symmetric heap: peer tables, peer read and write", "[gpu]") {
  if (!requireGpus(1, "symmetric heap peer read/write"))
    return;
  auto comm = Communicator::createAll();
  CHECK(peerReadWrite(*comm) == "");
}

TEST_CASE("symmetric heap: bounds, alignment, misuse and imported tables",
          "[gpu]") {
  if (!requireGpus(1, "symmetric heap checks"))
    return;
  auto comm = Communicator::createAll();
  SymmetricHeap heap(*comm, 2 << 20);
  CHECK(heap.capacity() == (2u << 20));
  CHECK_THROWS_WITH(heap.alloc(0), Catch::Contains("allocation of 0 bytes"));
  CHECK_THROWS_WITH(heap.alloc(64, 8),
                    Catch::Contains("alignment 8 is not a power of two"));
  try {
    heap.alloc(4 << 20);
    FAIL("no throw");
  } catch (const Error &e) {
    CHECK(e.code() == ErrorCode::OutOfMemory);
    CHECK(std::string(e.what()).find("capacity 2097152") != std::string::npos);
  }
  SymmetricBuffer a = heap.alloc(1000, 4096);
  CHECK(a.offset % 4096 == 0);
  CHECK(reinterpret_cast<uintptr_t>(a.local[0]) % 4096 == 0);
  CHECK_THROWS_WITH(a.tensor(0, DType::Float32, {251}),
                    Catch::Contains("cannot hold 251 elements of float32"));
  CHECK_NOTHROW(a.tensor(0, DType::Float32, {250}));
  // Imported tables: the heap's own pass, a wrong one is refused.
  SymmetricBuffer imp = importSymmetric(*comm, a.local, a.peers, a.bytes);
  CHECK(imp.owner == nullptr);
  SymmetricBuffer b = heap.alloc(1000);
  std::vector<void *> wrongLocal = b.local;
  CHECK_THROWS_WITH(importSymmetric(*comm, wrongLocal, a.peers, a.bytes),
                    Catch::Contains("expected the local address"));
  SymmetricBuffer copy = a;
  heap.free(a);
  CHECK_THROWS_WITH(heap.free(a), Catch::Contains("empty buffer"));
  CHECK_THROWS_WITH(heap.free(copy), Catch::Contains("not live"));
  heap.free(b);
  CHECK(heap.used() == 0);
  CHECK(heap.liveBuffers() == 0);
}

TEST_CASE("teardown: repeated create/destroy leaks nothing", "[gpu]") {
  if (!requireGpus(1, "create/destroy leak check"))
    return;
  {
    // Warm-up: first communicator creation allocates NCCL's lasting state.
    auto comm = Communicator::createAll();
    SymmetricHeap heap(*comm, 64 << 20);
  }
  size_t before = freeBytes(0);
  for (int round = 0; round < 3; ++round) {
    auto comm = Communicator::createAll();
    for (int h = 0; h < 5; ++h) {
      SymmetricHeap heap(*comm, 64 << 20);
      SymmetricBuffer x = heap.alloc(1 << 20);
      SymmetricBuffer pad = heap.allocSignalPad(4096);
      PingPong p = makePingPong(*comm, heap, 1, -1, -1);
      p.kernel->launchAll(p.args);
      p.kernel->synchronize();
      heap.free(x);
      heap.free(pad);
      heap.free(p.pad);
    }
  }
  size_t after = freeBytes(0);
  INFO("free before " << before << ", after " << after);
  // Allow 8 MiB of driver-side noise; a leaked heap alone would be 64 MiB.
  CHECK(after + (8u << 20) >= before);
}

TEST_CASE("signal/wait round trip across GPUs, calls and graph replays",
          "[gpu]") {
  if (!requireGpus(2, "signal/wait across GPUs"))
    return;
  auto comm = Communicator::createAll();
  int world = comm->worldSize();
  SymmetricHeap heap(*comm, 2 << 20);
  const int64_t rounds = 100;
  PingPong p = makePingPong(*comm, heap, rounds, -1, -1);
  p.kernel->launchAll(p.args);
  p.kernel->synchronize();
  for (int i = 0; i < world; ++i) {
    auto pad = readPad(*comm, p.pad, i);
    for (int r = 0; r < world; ++r)
      if (r != i)
        CHECK(pad[r] == rounds);
  }
  // 10,000 back-to-back calls: the epoch in __dslc_state advances.
  const int calls = 10000;
  for (int c = 0; c < calls; ++c)
    p.kernel->launchAll(p.args);
  p.kernel->synchronize();
  for (int i = 0; i < world; ++i) {
    auto pad = readPad(*comm, p.pad, i);
    for (int r = 0; r < world; ++r)
      if (r != i)
        CHECK(pad[r] == (1 + calls) * rounds);
  }
  // 1,000 graph replays, no host reset in between.
  std::vector<cudaGraphExec_t> execs(world);
  for (int i = 0; i < world; ++i) {
    const LocalRank &l = comm->local(i);
    setDevice(l.device, l.rank);
    cudaGraph_t g;
    DSLC_CUDART(
        i, cudaStreamBeginCapture(l.stream, cudaStreamCaptureModeThreadLocal));
    p.kernel->launch(i, p.args[i]);
    DSLC_CUDART(i, cudaStreamEndCapture(l.stream, &g));
    DSLC_CUDART(i, cudaGraphInstantiate(&execs[i], g, 0));
    DSLC_CUDART(i, cudaGraphDestroy(g));
  }
  const int replays = 1000;
  for (int k = 0; k < replays; ++k)
    for (int i = 0; i < world; ++i) {
      setDevice(comm->local(i).device, i);
      DSLC_CUDART(i, cudaGraphLaunch(execs[i], comm->local(i).stream));
    }
  p.kernel->synchronize();
  for (int i = 0; i < world; ++i) {
    auto pad = readPad(*comm, p.pad, i);
    for (int r = 0; r < world; ++r)
      if (r != i)
        CHECK(pad[r] == (1 + calls + replays) * rounds);
    setDevice(comm->local(i).device, i);
    DSLC_CUDART(i, cudaGraphExecDestroy(execs[i]));
  }
}

TEST_CASE("one-shot all-reduce: sizes 1 .. 64M elements", "[gpu]") {
  if (!requireGpus(kWorld, "one-shot all-reduce sizes"))
    return;
  auto comm = Communicator::createAll(firstDevices(kWorld));
  auto kernel = loadOneShot(*comm);
  const int64_t maxN = 64 << 20;
  run::CollectiveHarness h(*comm, *kernel, run::Collective::AllReduce, maxN);
  for (int64_t n :
       {int64_t(1), int64_t(2), int64_t(7), int64_t(8), int64_t(9),
        int64_t(1000), int64_t(8191), int64_t(8192), int64_t(8193),
        int64_t(65536 + 3), int64_t(1 << 20), int64_t((4 << 20) + 1),
        int64_t((16 << 20) - 7), maxN - 1, maxN}) {
    run::RunOptions o;
    o.iters = 2;
    o.graphReplays = 2;
    o.repetitions = 1;
    o.seed = static_cast<uint32_t>(n);
    run::CollectiveResult r = h.run(n, o);
    INFO("n = " << n << ": " << r.firstMismatch);
    CHECK(r.mismatches == 0);
    fmt::print("one-shot n={} ok={} eager {:.2f} us/call, graph {:.2f} "
               "us/call\n",
               n, r.ok(), r.eager.medianUs, r.graph.medianUs);
  }
}

TEST_CASE("one-shot all-reduce: 10,000 calls and 1,000 graph replays",
          "[gpu]") {
  if (!requireGpus(kWorld, "one-shot all-reduce repetitions"))
    return;
  auto comm = Communicator::createAll(firstDevices(kWorld));
  auto kernel = loadOneShot(*comm);
  run::CollectiveHarness h(*comm, *kernel, run::Collective::AllReduce,
                           (1 << 20) + 5);
  run::RunOptions o;
  o.iters = 10000;
  o.graphReplays = 1000;
  o.repetitions = 1;
  o.seed = 3;
  run::CollectiveResult r = h.run((1 << 20) + 5, o);
  INFO(r.firstMismatch);
  CHECK(r.mismatches == 0);
  fmt::print("one-shot 1M+5 x 10000 calls: {:.2f} us/call; x 1000 graph "
             "replays: {:.2f} us/call\n",
             r.eager.medianUs, r.graph.medianUs);
}

TEST_CASE("collective harness: medians over repetitions, NCCL side by side",
          "[gpu]") {
  if (!requireGpus(kWorld, "collective harness repetitions"))
    return;
  auto comm = Communicator::createAll(firstDevices(kWorld));
  auto kernel = loadOneShot(*comm);
  run::CollectiveHarness h(*comm, *kernel, run::Collective::AllReduce, 65539);
  run::RunOptions o;
  o.iters = 20;
  o.graphReplays = 20;
  o.repetitions = 4;
  for (bool nccl : {false, true}) {
    run::CollectiveResult r = nccl ? h.runNccl(65539, o) : h.run(65539, o);
    INFO((nccl ? "nccl: " : "kernel: ") << r.firstMismatch << r.error);
    CHECK(r.ok());
    for (const run::TimingStats *t : {&r.eager, &r.graph}) {
      REQUIRE(t->samplesUs.size() == 4);
      CHECK(t->minUs > 0);
      CHECK(t->minUs <= t->medianUs);
      CHECK(t->callsPerSample == 20);
    }
  }
  // Buffers and pads are sized for 65539 elements.
  CHECK_THROWS_WITH(h.run(65540, o), Catch::Contains("outside 1..65539"));
}

// The harness's references for every collective and dtype, checked against
// NCCL itself (no kernel needed): a wrong reference would fail here.
TEST_CASE("collective harness: NCCL all-reduce, reduce-scatter, all-gather "
          "in bf16, f16, f32 pass the harness's checks",
          "[gpu]") {
  if (!requireGpus(kWorld, "collective harness with NCCL"))
    return;
  auto comm = Communicator::createAll(firstDevices(kWorld));
  run::RunOptions o;
  o.iters = 3;
  o.graphReplays = 3;
  o.repetitions = 2;
  for (run::Collective c :
       {run::Collective::AllReduce, run::Collective::ReduceScatter,
        run::Collective::AllGather})
    for (DType t : {DType::BFloat16, DType::Float16, DType::Float32}) {
      const int64_t maxN = (1 << 20) + 2 * kWorld;
      run::CollectiveHarness h(*comm, c, t, maxN);
      for (int64_t n : {int64_t(kWorld), int64_t(7 * kWorld),
                        int64_t(4099 * kWorld), maxN}) {
        run::CollectiveResult r = h.runNccl(n, o);
        INFO(run::collectiveName(c)
             << " " << dtypeName(t) << " n=" << n << ": " << r.firstMismatch);
        CHECK(r.ok());
      }
      if (c != run::Collective::AllReduce)
        CHECK_THROWS_WITH(h.runNccl(kWorld + 1, o),
                          Catch::Contains("not a multiple of the world size"));
      CHECK_THROWS_WITH(h.run(kWorld, o), Catch::Contains("NCCL only"));
    }
}

TEST_CASE("kernel loading: wrong rank, world size or entry are errors",
          "[gpu]") {
  if (!requireGpus(1, "kernel loading errors"))
    return;
  auto one = Communicator::createAll({0});
  CHECK_THROWS_WITH(
      Kernel::load(*one, kernelPath("one_shot_all_reduce.r0.cubin")),
      Catch::Contains("was compiled for world size 2, the "
                      "communicator has 1"));
  CHECK_THROWS_WITH(Kernel::load(*one, kernelPath("missing.cubin")),
                    Catch::Contains("cannot open"));
  // Metadata whose ABI does not match the cubin's entry.
  KernelMetadata md = loadMetadataFile(kernelPath("signal_wait.cubin.json"));
  md.abi.pop_back();
  md.abi.pop_back();
  std::string image = readFile(kernelPath("signal_wait.cubin"));
  CHECK_THROWS_WITH(Kernel::loadImages(*one, {image}, {md}),
                    Catch::Contains("the cubin's entry takes more"));
  md = loadMetadataFile(kernelPath("signal_wait.cubin.json"));
  md.entry = "nope";
  CHECK_THROWS_WITH(Kernel::loadImages(*one, {image}, {md}),
                    Catch::Contains("has no entry point 'nope'"));
  if (gpuCount() >= 2) {
    auto two = Communicator::createAll(firstDevices(2));
    CHECK_THROWS_WITH(
        Kernel::load(*two, kernelPath("one_shot_all_reduce.r1.cubin")),
        Catch::Contains("rank 0: kernel one_shot_all_reduce_kernel was "
                        "compiled for rank 1"));
  }
}

TEST_CASE("planted hang in one process is reported within the timeout",
          "[gpu]") {
  if (!requireGpus(2, "planted hang (one process)"))
    return;
  ChildResult r = runChild("hang-single", {{"DSLC_TIMEOUT_MS", "1000"}}, 120);
  INFO(r.output);
  CHECK_FALSE(r.timedOut);
  CHECK(r.exitCode == 0);
  CHECK(r.seconds < 60);
  CHECK(r.output.find("rank 0: kernel signal_wait_kernel: wait at "
                      "tests/runtime/kernels/signal_wait.cu:") !=
        std::string::npos);
  CHECK(r.output.find("timed out after 1000 ms: slot 1 expected 1, saw 0") !=
        std::string::npos);
  fmt::print("planted hang (one process): {:.1f} s\n{}\n", r.seconds, r.output);
}

TEST_CASE("two processes: ping-pong and all-reduce", "[gpu]") {
  if (!requireGpus(kWorld, "two-process mode"))
    return;
  auto rs = runRanks("mp-work", kWorld, 300);
  for (int r = 0; r < kWorld; ++r) {
    INFO("rank " << r << " output:\n" << rs[r].output);
    CHECK_FALSE(rs[r].timedOut);
    CHECK(rs[r].exitCode == 0);
    CHECK(rs[r].output.find("ping-pong 1000 calls ok") != std::string::npos);
    CHECK(rs[r].output.find("all-reduce n=1048571 ok") != std::string::npos);
    fmt::print("two processes, rank {} ({:.1f} s):\n{}\n", r, rs[r].seconds,
               rs[r].output);
  }
}

TEST_CASE("two processes: a rank that never signals is reported", "[gpu]") {
  if (!requireGpus(kWorld, "two-process planted hang"))
    return;
  auto rs = runRanks("mp-hang", kWorld, 120);
  for (int r = 0; r < kWorld; ++r) {
    INFO("rank " << r << " output:\n" << rs[r].output);
    CHECK_FALSE(rs[r].timedOut);
    CHECK(rs[r].exitCode == 0);
    CHECK(rs[r].seconds < 60);
    fmt::print("two-process hang, rank {} ({:.1f} s):\n{}\n", r, rs[r].seconds,
               rs[r].output);
  }
  CHECK(rs[0].output.find("rank 0: kernel signal_wait_kernel: wait at") !=
        std::string::npos);
  CHECK(rs[0].output.find("slot 1 expected 1, saw 0") != std::string::npos);
  CHECK(rs[1].output.find("rank 1: kernel signal_wait_kernel: wait at") !=
        std::string::npos);
  CHECK(rs[1].output.find("slot 0 expected 2, saw 1") != std::string::npos);
}

TEST_CASE("two processes: a peer that dies is detected", "[gpu]") {
  if (!requireGpus(kWorld, "two-process dead peer"))
    return;
  auto rs = runRanks("mp-dead-peer", kWorld, 120);
  INFO("rank 0:\n" << rs[0].output << "\nrank 1:\n" << rs[1].output);
  CHECK(rs[1].exitCode == 3);
  CHECK_FALSE(rs[0].timedOut);
  CHECK(rs[0].exitCode == 0);
  CHECK(rs[0].seconds < 60);
  CHECK(rs[0].output.find("rank 0: kernel signal_wait_kernel: wait at") !=
        std::string::npos);
  CHECK(rs[0].output.find("slot 1 expected 1, saw 0") != std::string::npos);
  fmt::print("dead peer: rank 0 ({:.1f} s):\n{}\n", rs[0].seconds,
             rs[0].output);
}
