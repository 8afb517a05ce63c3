//===- FloorTest.cpp - The physical floor under a measured time (no GPU) --===//
//
// floorUs / belowFloor on an H200-like roof, the bytes a kernel's call must
// move (its outputs) and a collective's (its input and output).
//
//===----------------------------------------------------------------------===//
#include "tooling/harness/Floor.h"
#include "tests/runtime/MetadataBuilder.h"
#include "tooling/harness/KernelPlan.h"

#include <catch2/catch.hpp>

using namespace dslc::rt;
using namespace dslc::run;
using namespace dslc::test;

namespace {

/// 4.8 TB/s, 60 MiB of L2.
MemoryRoof h200() {
  MemoryRoof r;
  r.bytesPerS = 4.8e12;
  r.l2Bytes = size_t(60) << 20;
  return r;
}

} // namespace

TEST_CASE("floor: bytes beyond twice the L2 at the peak", "[harness]") {
  MemoryRoof roof = h200();
  // 256 MiB (the 8192 x 4096 bf16 fused RMSNorm): 136 MiB beyond the L2.
  size_t bytes = size_t(256) << 20;
  double want = double(bytes - 2 * roof.l2Bytes) / 4.8e12 * 1e6;
  CHECK(floorUs(bytes, roof) == Approx(want));
  CHECK(floorUs(bytes, roof) == Approx(29.71).epsilon(0.01));
  // What twice the L2 holds is not checked; an unknown roof checks nothing.
  CHECK(floorUs(2 * roof.l2Bytes, roof) == 0);
  CHECK(floorUs(bytes, MemoryRoof{}) == 0);
  CHECK(belowFloor(30.0, bytes, roof, "x").empty());
  // The eager time issue 28 found: 28.2 us for 256 MiB.
  std::string why = belowFloor(28.2, bytes, roof, "the eager time of a call");
  CHECK(why.find("the eager time of a call: 28.20 us is below the physical "
                 "floor 29.71 us (256.0 MiB at 4.80 TB/s beyond twice the "
                 "60 MiB L2): the timing did not cover the work") !=
        std::string::npos);
}

TEST_CASE("floor: each measured phase is checked", "[harness]") {
  MemoryRoof roof = h200();
  size_t bytes = size_t(256) << 20;
  CHECK(phasesBelowFloor(30.0, 31.0, bytes, roof).empty());
  // A phase not measured (0) is not checked; the first one below is named.
  CHECK(phasesBelowFloor(0, 30.0, bytes, roof).empty());
  CHECK(phasesBelowFloor(30.0, 10.0, bytes, roof)
            .rfind("the graph time of a call: 10.00 us is below", 0) == 0);
  CHECK(phasesBelowFloor(5.0, 10.0, bytes, roof)
            .rfind("the eager time of a call: 5.00 us is below", 0) == 0);
}

TEST_CASE("floor: a collective moves its input and output", "[harness]") {
  using dslc::contract::CollectiveKind;
  CHECK(collectiveCallBytes(CollectiveKind::AllReduce, 1024, 4, 2) == 4096);
  // Reduce-scatter's output and all-gather's input are N / world.
  CHECK(collectiveCallBytes(CollectiveKind::ReduceScatter, 1024, 4, 2) ==
        2048 + 512);
  CHECK(collectiveCallBytes(CollectiveKind::AllGather, 1024, 4, 4) ==
        1024 + 4096);
}

TEST_CASE("floor: a kernel's call writes its outputs", "[harness]") {
  // RMSNorm: reads x [T, H] and weight [H], writes out [T, H]; only the
  // output counts (an input may be read in part, an embedding's rows).
  KernelMetadata md =
      makeMd("rmsnorm",
             json::array({tensor("x", "input", "bfloat16", 2, "read"),
                          tensor("weight", "input", "bfloat16", 1, "read")}),
             json::parse(R"([
        {"name": "out", "dtype": "bfloat16", "rank": 2, "like": "x"}])"),
             json::parse(R"({"param": "x", "dim": 0})"), 1);
  ProblemSpec spec;
  REQUIRE(spec.addSize("x=8x4096"));
  REQUIRE(spec.addSize("weight=4096"));
  KernelPlan plan = planKernel(md, 1, spec);
  CHECK(outputBytes(plan) == 8 * 4096 * 2);
}
