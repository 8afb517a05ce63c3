//===- CollectivesTest.cpp - Dispatch decisions; collectives on GPUs ------===//
//
// Built into dslc-tuner-tests (tests/tooling/tuner/CMakeLists.txt). The
// dispatch decision is a pure function (no GPU). The [gpu] tests need two
// GPUs and print why they are skipped otherwise: NCCL fallback (eager,
// in place, captured in a CUDA graph) and the kernel path with the runtime
// tests' hand-written one-shot all-reduce, tuned by a hand-made cache entry
// (also in a virtual world of two ranks on one GPU).
//
//===----------------------------------------------------------------------===//
#include "runtime/Collectives.h"
#include "runtime/CApi.h"
#include "runtime/Communicator.h"
#include "runtime/Error.h"
#include "tests/runtime/GpuSkip.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <unistd.h>

using namespace dslc::rt;

namespace {
TuningValue tuned(double us, double ncclUs) {
  TuningValue v;
  v.pick.kernel = "ll";
  v.pick.cubin = "ll/bs1024_w4/k.r{rank}.cubin";
  v.pick.config.blockSizes = {1024};
  v.pick.config.numWarps = 4;
  v.pick.us = us;
  v.ncclUs = ncclUs;
  return v;
}

std::string tempDir() {
  char tmpl[] = "/tmp/dslc-coll-test-XXXXXX";
  REQUIRE(mkdtemp(tmpl));
  return tmpl;
}

using dslc::test::haveGpus;

std::string testKernelDir() {
  if (const char *d = std::getenv("DSLC_TEST_KERNEL_DIR"))
    return d;
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0)
    return "";
  buf[n] = 0;
  std::string dir(buf);
  dir = dir.substr(0, dir.rfind('/')); // bin
  return dir + "/../tests/runtime/kernels";
}

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

/// All-reduces `n` bf16 elements on every local rank through `coll`
/// (in place when `inPlace`, captured and replayed when `graph`), checks the
/// sums and returns the number of wrong elements.
int64_t runAllReduce(Communicator &comm, Collectives &coll, size_t n,
                     bool inPlace, bool graph) {
  int world = comm.worldSize();
  std::vector<void *> in(comm.numLocal()), out(comm.numLocal());
  comm.forEach([&](int i) {
    const LocalRank &l = comm.local(i);
    std::vector<uint16_t> host(n);
    for (size_t k = 0; k < n; ++k)
      host[k] = bf16(static_cast<float>(k % 17 + l.rank));
    DSLC_CUDART(l.rank, cudaMalloc(&in[i], n * 2));
    out[i] = in[i];
    if (!inPlace) {
      DSLC_CUDART(l.rank, cudaMalloc(&out[i], n * 2));
      DSLC_CUDART(l.rank, cudaMemset(out[i], 0xff, n * 2));
    }
    DSLC_CUDART(l.rank,
                cudaMemcpy(in[i], host.data(), n * 2, cudaMemcpyHostToDevice));
  });
  auto call = [&] {
    comm.forEachGrouped([&](int i) {
      coll.allReduce(i, in[i], out[i], n, DType::BFloat16, ReduceOp::Sum,
                     comm.local(i).stream);
    });
  };
  if (graph) {
    std::vector<cudaGraph_t> g(comm.numLocal());
    std::vector<cudaGraphExec_t> e(comm.numLocal());
    comm.forEach([&](int i) {
      DSLC_CUDART(i, cudaStreamBeginCapture(comm.local(i).stream,
                                            cudaStreamCaptureModeRelaxed));
    });
    call();
    comm.forEach([&](int i) {
      DSLC_CUDART(i, cudaStreamEndCapture(comm.local(i).stream, &g[i]));
      DSLC_CUDART(i, cudaGraphInstantiate(&e[i], g[i], 0));
    });
    comm.forEach([&](int i) {
      DSLC_CUDART(i, cudaGraphLaunch(e[i], comm.local(i).stream));
    });
    comm.waitStreams("graph replay");
    comm.forEach([&](int i) {
      (void)cudaGraphExecDestroy(e[i]);
      (void)cudaGraphDestroy(g[i]);
    });
  } else {
    call();
    comm.waitStreams("all-reduce");
  }
  int64_t bad = 0;
  comm.forEach([&](int i) {
    std::vector<uint16_t> host(n);
    DSLC_CUDART(i,
                cudaMemcpy(host.data(), out[i], n * 2, cudaMemcpyDeviceToHost));
    for (size_t k = 0; k < n; ++k) {
      float want = 0;
      for (int r = 0; r < world; ++r)
        want += static_cast<float>(k % 17 + r);
      if (fromBf16(host[k]) != want)
        ++bad;
    }
    (void)cudaFree(in[i]);
    if (!inPlace)
      (void)cudaFree(out[i]);
  });
  return bad;
}
} // namespace

TEST_CASE("collectives: dispatch decision", "[collectives]") {
  const size_t staging = 256 << 20;
  DispatchChoice c =
      decideDispatch(std::nullopt, ReduceOp::Sum, 2048, staging, true, "/k");
  CHECK(c.kind == DispatchChoice::Kind::Nccl);
  CHECK(c.reason == "not tuned for this size bucket");

  c = decideDispatch(tuned(2.0, 6.5), ReduceOp::Sum, 2048, staging, true, "/k");
  CHECK(c.kind == DispatchChoice::Kind::Kernel);
  CHECK(c.kernel.cubin == "ll/bs1024_w4/k.r{rank}.cubin");
  CHECK(c.kernelDir == "/k");
  CHECK(c.reason.find("tuned: ll bs=1024 w=4") == 0);

  c = decideDispatch(tuned(7.0, 6.5), ReduceOp::Sum, 2048, staging, true, "/k");
  CHECK(c.kind == DispatchChoice::Kind::Nccl);
  CHECK(c.reason.find("NCCL measured faster") == 0);

  c = decideDispatch(tuned(2.0, 0.0), ReduceOp::Sum, 2048, staging, true, "/k");
  CHECK(c.kind == DispatchChoice::Kind::Kernel); // NCCL not measured

  c = decideDispatch(tuned(2.0, 6.5), ReduceOp::Max, 2048, staging, true, "/k");
  CHECK(c.kind == DispatchChoice::Kind::Nccl);
  CHECK(c.reason.find("not a sum") != std::string::npos);

  c = decideDispatch(tuned(2.0, 6.5), ReduceOp::Sum, staging, staging, true,
                     "/k");
  CHECK(c.kind == DispatchChoice::Kind::Nccl);
  CHECK(c.reason.find("staging") != std::string::npos);

  c = decideDispatch(tuned(2.0, 6.5), ReduceOp::Sum, 2048, staging, false,
                     "/k");
  CHECK(c.kind == DispatchChoice::Kind::Nccl);
  CHECK(c.reason.find("is not in /k") != std::string::npos);

  TuningValue empty = tuned(2.0, 6.5);
  empty.pick.cubin.clear();
  c = decideDispatch(empty, ReduceOp::Sum, 2048, staging, true, "/k");
  CHECK(c.kind == DispatchChoice::Kind::Nccl);
}

TEST_CASE("collectives: names, versions, kernel directories", "[collectives]") {
  CHECK(std::string(collectiveName(CollectiveKind::ReduceScatter)) ==
        "reduce_scatter");
  CHECK(parseCollective("all-gather") == CollectiveKind::AllGather);
  CHECK(parseReduceOp("sum") == ReduceOp::Sum);
  CHECK(parseReduceOp("avg") == ReduceOp::Avg);
  CHECK_FALSE(parseReduceOp("xor"));
  CHECK(cudaVersionString(13000, 13000) == "cuda 13.0 driver, 13.0 runtime");
  CHECK(cudaVersionString(12080, 13000) == "cuda 12.8 driver, 13.0 runtime");

  std::string dir = tempDir();
  CHECK_FALSE(readKernelDir(dir));
  std::ofstream(dir + "/manifest.json")
      << R"({"format":"dslc-tuner-candidates","version":2,)"
         R"("collective":"all_reduce","world_size":2,"dtype":"bfloat16",)"
         R"("set":"set:ar","kernels":[],"compiled":[]})";
  auto k = readKernelDir(dir);
  REQUIRE(k);
  CHECK(k->collective == "all_reduce");
  CHECK(k->set == "set:ar");
  CHECK(k->worldSize == 2);
  std::ofstream(dir + "/manifest.json") << "{oops";
  CHECK_FALSE(readKernelDir(dir));
  std::system(("rm -rf '" + dir + "'").c_str());
}

TEST_CASE("collectives: C API argument errors", "[collectives]") {
  CHECK(dslcAllReduce(nullptr, 0, nullptr, nullptr, 1, "bfloat16", "sum",
                      nullptr) == DSLC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(dslcGetLastError()).find("collectives is NULL") !=
        std::string::npos);
  dslcCollectives out = nullptr;
  CHECK(dslcCollectivesCreate(nullptr, nullptr, nullptr, 0, &out) ==
        DSLC_ERROR_INVALID_ARGUMENT);
  CHECK(dslcCollectivesDestroy(nullptr) == DSLC_OK);
}

TEST_CASE("collectives: NCCL fallback, eager, in place and in a graph",
          "[gpu]") {
  if (!haveGpus(2, "collectives NCCL fallback"))
    return;
  auto comm = Communicator::createAll({0, 1});
  std::string cache = tempDir();
  {
    CollectivesOptions o;
    o.cacheDir = cache; // empty: nothing tuned
    o.kernelDirs = "";
    unsetenv("DSLC_KERNEL_DIR");
    Collectives coll(*comm, o);
    CHECK(coll.choose(CollectiveKind::AllReduce, 1024, DType::BFloat16).kind ==
          DispatchChoice::Kind::Nccl);
    CHECK(runAllReduce(*comm, coll, 100003, false, false) == 0);
    CHECK(runAllReduce(*comm, coll, 4096, true, false) == 0);
    CHECK(runAllReduce(*comm, coll, 8192, false, true) == 0);
    CHECK(coll.kernelCalls() == 0);
    CHECK(coll.ncclCalls() == 6);
  }
  std::system(("rm -rf '" + cache + "'").c_str());
}

namespace {
/// The runtime tests' one-shot all-reduce (world 2) tuned by a hand-made
/// cache entry, through Collectives on `comm` (two GPUs, or a virtual
/// world of two ranks on one, which has no NCCL to fall back on).
void tunedKernelCase(std::unique_ptr<Communicator> (*make)()) {
  std::string src = testKernelDir();
  if (access((src + "/one_shot_all_reduce.r0.cubin").c_str(), R_OK) != 0) {
    WARN("SKIPPED collectives tuned kernel: no test kernels in " + src +
         " (set DSLC_TEST_KERNEL_DIR)");
    return;
  }
  std::string kdir = tempDir(), cache = tempDir();
  std::system(fmt::format("mkdir -p '{0}/os' && cp '{1}'/one_shot_all_reduce.r*"
                          ".cubin* '{0}/os/'",
                          kdir, src)
                  .c_str());
  std::ofstream(kdir + "/manifest.json")
      << R"({"format":"dslc-tuner-candidates","version":2,)"
         R"("collective":"all_reduce","world_size":2,"dtype":"bfloat16",)"
         R"("set":"set:test","kernels":[],"compiled":[]})";
  auto comm = make();
  cudaDeviceProp prop{};
  DSLC_CUDART(0, cudaGetDeviceProperties(&prop, 0));
  int drv = 0, rtv = 0;
  DSLC_CUDART(0, cudaDriverGetVersion(&drv));
  DSLC_CUDART(0, cudaRuntimeGetVersion(&rtv));
  std::string device =
      dslc::contract::tuningDeviceName(prop.name, comm->isVirtual());
  std::vector<TuningRecord> recs;
  for (int b : {12, 13, 16}) {
    TuningRecord r;
    r.key = {"all_reduce", "set:test", device, cudaVersionString(drv, rtv), 2,
             "bfloat16",   b};
    r.value = tuned(2.0, 6.5);
    r.value.pick.kernel = "one_shot_all_reduce_kernel";
    r.value.pick.cubin = "os/one_shot_all_reduce.r{rank}.cubin";
    r.value.pick.config = {};
    recs.push_back(r);
  }
  TuningCache(cache).store(recs);
  {
    CollectivesOptions o;
    o.cacheDir = cache;
    o.kernelDirs = kdir;
    Collectives coll(*comm, o);
    DispatchChoice c =
        coll.choose(CollectiveKind::AllReduce, 5000, DType::BFloat16);
    INFO(c.reason);
    CHECK(c.kind == DispatchChoice::Kind::Kernel);
    // Not tuned at 2^20: NCCL.
    CHECK(
        coll.choose(CollectiveKind::AllReduce, 1 << 20, DType::BFloat16).kind ==
        DispatchChoice::Kind::Nccl);
    // Several ranks per thread: prepare first.
    coll.prepare(CollectiveKind::AllReduce, {5000, 4096, 65536},
                 DType::BFloat16);
    CHECK(runAllReduce(*comm, coll, 5000, false, false) == 0);
    CHECK(runAllReduce(*comm, coll, 4096, true, false) == 0);
    CHECK(runAllReduce(*comm, coll, 65536, false, true) == 0);
    CHECK(coll.kernelCalls() == 6);
    CHECK(coll.ncclCalls() == 0);
    if (comm->isVirtual()) {
      // An unprepared size would go to NCCL, which a virtual world lacks.
      CHECK_THROWS_WITH(runAllReduce(*comm, coll, 8191, false, false),
                        Catch::Contains("a virtual world (every rank on one "
                                        "GPU) has no NCCL communicator"));
    } else {
      // Unprepared size, several GPUs per thread: NCCL.
      CHECK(runAllReduce(*comm, coll, 8191, false, false) == 0);
      CHECK(coll.ncclCalls() == 2);
    }
  }
  std::system(fmt::format("rm -rf '{}' '{}'", kdir, cache).c_str());
}
} // namespace

TEST_CASE("collectives: a tuned kernel, eager, in place and in a graph",
          "[gpu]") {
  if (!haveGpus(2, "collectives tuned kernel"))
    return;
  tunedKernelCase([] { return Communicator::createAll({0, 1}); });
}

TEST_CASE("collectives: a tuned kernel in a virtual world of two ranks",
          "[gpu]") {
  if (!haveGpus(1, "collectives tuned kernel (virtual world)"))
    return;
  tunedKernelCase([] { return Communicator::createVirtual(2); });
}
