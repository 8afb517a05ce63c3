//===- CollectiveHarnessTest.cpp - Harness roles, shapes, element types ---===//
//
// The collective binding plan (runtime/CollectivePlan.h: roles from the
// metadata, shapes per collective, pads and packet scratch by the contract's
// rules) on hand-written metadata of the examples' kernels, checked by
// binding it and running the runtime's argument checks; and the
// bf16/f16/f32 helpers. No GPU.
//
//===----------------------------------------------------------------------===//
#include "tooling/harness/CollectiveHarness.h"
#include "runtime/Binding.h"
#include "runtime/Error.h"
#include "runtime/Metadata.h"
#include "tests/runtime/TestSupport.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>

#include "tests/runtime/MetadataBuilder.h"

using namespace dslc::rt;
using namespace dslc::run;
using nlohmann::json;
using namespace dslc::test;

namespace {

/// Binds the plan with fake addresses and runs the runtime's checks.
void bindAndCheck(const KernelMetadata &md, const CollectivePlan &plan,
                  int64_t n) {
  std::vector<void *> local, peers;
  for (size_t j = 0; j < plan.args.size(); ++j) {
    local.push_back(reinterpret_cast<void *>(0x100000 * (j + 1)));
    peers.push_back(reinterpret_cast<void *>(0x100000 * (j + 1) + 0x8000));
  }
  BoundArgs a(md);
  bindCollective(a, plan, n, local, peers, 0);
  // Peer tables hold the target's peer table.
  for (size_t j = 0; j < plan.args.size(); ++j)
    if (plan.args[j].role == Role::PeerTable)
      CHECK(a.values()[j].tensor.data == peers[plan.args[j].tableOf]);
}

std::string planError(const KernelMetadata &md, Collective c) {
  try {
    planCollective(md, c, 2, 1024);
  } catch (const Error &e) {
    CHECK(e.code() == ErrorCode::InvalidArgument);
    return e.what();
  }
  return "(planned)";
}

} // namespace

TEST_CASE("collective shapes and names", "[harness]") {
  CollectiveShape s = collectiveShape(Collective::AllReduce, 7, 2);
  CHECK(s.input == 7);
  CHECK(s.output == 7);
  s = collectiveShape(Collective::ReduceScatter, 8, 2);
  CHECK(s.input == 8);
  CHECK(s.output == 4);
  s = collectiveShape(Collective::AllGather, 8, 4);
  CHECK(s.input == 2);
  CHECK(s.output == 8);
  CHECK_THROWS_WITH(collectiveShape(Collective::ReduceScatter, 7, 2),
                    "reduce_scatter: size 7 is not a multiple of the world "
                    "size 2 (N is the total element count: every rank "
                    "receives N / world elements)");
  CHECK_THROWS_WITH(collectiveShape(Collective::AllGather, 0, 2),
                    Catch::Contains("size 0 is not positive"));
  CHECK(parseCollective("all_reduce") == Collective::AllReduce);
  CHECK(parseCollective("reduce-scatter") == Collective::ReduceScatter);
  CHECK(parseCollective("AllGather") == Collective::AllGather);
  CHECK_FALSE(parseCollective("broadcast"));
  CHECK(std::string(collectiveName(Collective::AllGather)) == "all_gather");
}

TEST_CASE("collective plan: the hand-written one-shot", "[harness]") {
  // The hand-written one-shot of docs/kernel-abi.md.
  KernelMetadata md = loadMetadataFile(
      dslc::test::kernelPath("one_shot_all_reduce.r0.cubin.json"));
  CollectivePlan p = planCollective(md, Collective::AllReduce, 2, 16 << 20);
  CHECK(p.args[md.findArg("signal_pad_addrs")].role == Role::PeerTable);
  CHECK(p.args[md.findArg("signal_pad_addrs")].tableOf ==
        md.findArg("local_signal_pad"));
  CHECK(p.args[md.findArg("local_signal_pad")].role == Role::SignalPad);
  CHECK(p.args[md.findArg("local_signal_pad")].symmetric);
  CHECK(p.input == md.findArg("a_shared"));
  CHECK(p.output == md.findArg("out"));
  CHECK(p.dtype == DType::BFloat16);
  CHECK(p.tiles == 2048); // 16M / 8192
  CHECK(p.sizesOf(md.findArg("local_signal_pad"), 1) ==
        std::vector<int64_t>{2048, 2});
  CHECK_FALSE(p.args[md.findArg("out")].inHeap); // returned: plain memory
  for (int64_t n : {int64_t(1), int64_t(8193), int64_t(16 << 20)})
    bindAndCheck(md, p, n);
}

TEST_CASE("collective plan: the examples' kernels, from their roles",
          "[harness]") {
  SECTION("two-shot all-reduce: grid over ceil(N / W), symmetric out") {
    KernelMetadata md = makeMd(
        "two_shot",
        json::array(
            {table("signal_pad_addrs", "local_signal_pad"),
             pad("local_signal_pad"),
             symmetric(tensor("a_shared", "input", "bfloat16", 1, "read")),
             symmetric(tensor("out", "output", "bfloat16", 1, "write"))}),
        json::array(),
        json::parse(R"({"param": "a_shared", "dim": 0, "add": 1, "div": 2})"),
        4096);
    CollectivePlan p = planCollective(md, Collective::AllReduce, 2, 16385);
    CHECK(p.input == 2);
    CHECK(p.output == 3);
    CHECK(p.args[3].symmetric);
    CHECK(p.args[3].inHeap);
    CHECK(p.tiles == 3); // ceil(ceil(16385 / 2) / 4096)
    CHECK(p.sizesOf(1, 5) == std::vector<int64_t>{3, 2});
    for (int64_t n : {int64_t(1), int64_t(8192), int64_t(16385)})
      bindAndCheck(md, p, n);
  }
  SECTION("Helion's all-reduce: symm_mem_sync's implicit pad is bound "
          "like any pad, with its table") {
    json implicitPad = pad("signal_pad_ptrs_dev.pad");
    implicitPad["implicit"] = true;
    KernelMetadata md = makeMd(
        "one_shot_all_reduce_kernel",
        json::array(
            {table("signal_pad_ptrs_dev", "signal_pad_ptrs_dev.pad"),
             implicitPad,
             symmetric(tensor("a_shared", "input", "bfloat16", 1, "read"))}),
        json::parse(
            R"([{"name": "out", "dtype": "bfloat16", "rank": 1, "like": "a_shared"}])"),
        json::parse(R"({"param": "out", "dim": 0})"), 8192);
    CHECK(md.args[1].implicit);
    CollectivePlan p = planCollective(md, Collective::AllReduce, 4, 16385);
    CHECK(p.args[0].role == Role::PeerTable);
    CHECK(p.args[0].tableOf == 1);
    CHECK(p.args[1].role == Role::SignalPad);
    CHECK(p.args[1].symmetric);
    CHECK(p.input == 2);
    CHECK(p.tiles == 3); // ceil(16385 / 8192)
    CHECK(p.sizesOf(1, 16385) == std::vector<int64_t>{3, 4});
    for (int64_t n : {int64_t(1), int64_t(8193), int64_t(16385)})
      bindAndCheck(md, p, n);
  }
  SECTION("reduce-scatter: input N, output N / W") {
    KernelMetadata md = makeMd(
        "rs",
        json::array(
            {table("pad_ptrs", "pad"), pad(),
             symmetric(tensor("a_shared", "input", "float16", 1, "read"))}),
        json::parse(R"([{"name": "out", "dtype": "float16", "rank": 1}])"),
        json::parse(R"({"param": "out", "dim": 0})"), 1024);
    CollectivePlan p = planCollective(md, Collective::ReduceScatter, 2, 4096);
    CHECK(p.dtype == DType::Float16);
    CHECK(p.sizesOf(p.input, 4096) == std::vector<int64_t>{4096});
    CHECK(p.sizesOf(p.output, 4096) == std::vector<int64_t>{2048});
    CHECK(p.tiles == 2);
    bindAndCheck(md, p, 2);
    bindAndCheck(md, p, 4096);
    // maxN not a multiple of W: sized for the next multiple.
    p = planCollective(md, Collective::ReduceScatter, 2, 4097);
    CHECK(p.args[p.input].bytes == 4098 * 2);
  }
  SECTION("all-gather: x [S] read, out [W * S] symmetric write") {
    KernelMetadata md =
        makeMd("ag",
               json::array(
                   {table("pad_ptrs", "pad"), pad(),
                    tensor("x", "input", "float32", 1, "read"),
                    symmetric(tensor("out", "output", "float32", 1, "write"))}),
               json::array(), json::parse(R"({"param": "x", "dim": 0})"), 1024);
    CollectivePlan p = planCollective(md, Collective::AllGather, 4, 8192);
    CHECK(p.sizesOf(p.input, 8192) == std::vector<int64_t>{2048});
    CHECK(p.sizesOf(p.output, 8192) == std::vector<int64_t>{8192});
    CHECK(p.tiles == 2);
    CHECK(p.args[p.output].bytes == 8192 * 4);
  }
  SECTION("all-gather (multicast): gathered [W, S] through a peer table") {
    KernelMetadata md = makeMd(
        "agm",
        json::array({tensor("x", "input", "bfloat16", 1, "read"),
                     tensor("gathered", "output", "bfloat16", 2, "write"),
                     table("gathered_ptrs", "gathered"), pad("signal_pad"),
                     table("signal_pad_ptrs", "signal_pad")}),
        json::array(), json::parse(R"({"param": "x", "dim": 0})"), 4096);
    CollectivePlan p = planCollective(md, Collective::AllGather, 2, 1 << 20);
    CHECK(p.output == 1);
    CHECK(p.args[1].symmetric); // the target of a peer table
    CHECK(p.args[2].tableOf == 1);
    CHECK(p.args[4].tableOf == 3);
    CHECK(p.sizesOf(1, 1 << 20) == std::vector<int64_t>{2, 1 << 19});
    CHECK(p.tiles == 128);
    bindAndCheck(md, p, 2);
    bindAndCheck(md, p, 1 << 20);
    // A rank-2 output is an all-gather's only.
    CHECK_THAT(planError(md, Collective::AllReduce),
               Catch::Contains("output 'gathered' has rank 2; a collective "
                               "binds rank 1"));
  }
  SECTION("multicast one-shot: staging [W, N] inout workspace") {
    KernelMetadata md = makeMd(
        "mc",
        json::array({tensor("a", "input", "bfloat16", 1, "read"),
                     tensor("staging", "inout", "bfloat16", 2, "readwrite"),
                     table("staging_ptrs", "staging"), pad(),
                     table("pad_ptrs", "pad")}),
        json::parse(
            R"([{"name": "out", "dtype": "bfloat16", "rank": 1, "like": "a"}])"),
        json::parse(R"({"param": "a", "dim": 0})"), 2048);
    CollectivePlan p = planCollective(md, Collective::AllReduce, 2, 5000);
    CHECK(p.args[1].role == Role::InOut);
    CHECK(p.args[1].symmetric);
    CHECK(p.sizesOf(1, 5000) == std::vector<int64_t>{2, 5000});
    CHECK(p.args[1].bytes == 2 * 5000 * 2);
    CHECK(p.output == 5);
    CHECK(p.tiles == 3);
    bindAndCheck(md, p, 5000);
    CHECK(p.heapBytes() > 2 * 5000 * 2 + 5000 * 2);
  }
  SECTION("LL one-shot and two-shot: packet scratch by the contract's rule") {
    // One ll_put of 1024 bf16 (4 KiB of 16-byte packets) per tile.
    KernelMetadata ll = makeMd(
        "ll",
        json::array(
            {tensor("a", "input", "bfloat16", 1, "read"), scratch(1, 4096)}),
        json::parse(
            R"([{"name": "out", "dtype": "bfloat16", "rank": 1, "like": "a"}])"),
        json::parse(R"({"param": "a", "dim": 0})"), 1024);
    CollectivePlan p = planCollective(ll, Collective::AllReduce, 2, 1000);
    CHECK(p.args[1].role == Role::Scratch);
    // 2 parities x 1 put x 2 senders x 1 tile x 4 KiB.
    CHECK(p.args[1].bytes == 16384);
    CHECK(p.sizesOf(1, 1000) == std::vector<int64_t>{2048});
    CHECK(p.args[0].inHeap);
    bindAndCheck(ll, p, 1000);
    // The fused two-shot (two puts, grid over ceil(N / W)) at N = 65539 on
    // two ranks: 33 tiles, where half of the old 8 * W * roundUp(N, block)
    // * 2 bound was too small (the GPU trapped).
    KernelMetadata ll2 = makeMd(
        "ll2",
        json::array(
            {tensor("a", "input", "bfloat16", 1, "read"), scratch(2, 4096)}),
        json::parse(
            R"([{"name": "out", "dtype": "bfloat16", "rank": 1, "like": "a"}])"),
        json::parse(R"({"param": "a", "dim": 0, "add": 1, "div": 2})"), 1024);
    p = planCollective(ll2, Collective::AllReduce, 2, 65539);
    CHECK(p.tiles == 33);
    CHECK(p.args[1].bytes == 2 * 2 * 2 * 33 * 4096);
    bindAndCheck(ll2, p, 65539);
  }
}

TEST_CASE("collective plan: every dslc-compiled example plans and binds",
          "[harness]") {
  // The roles dslc wrote are all a collective needs: no kernel is guessed.
#ifndef DSLC_TEST_HAVE_DSLC
  WARN("SKIPPED dslc-compiled plans: the build has no dslc");
  return;
#endif
  const std::pair<const char *, Collective> examples[] = {
      {"one_shot_all_reduce", Collective::AllReduce},
      {"ll_one_shot_all_reduce", Collective::AllReduce},
      {"two_shot_all_reduce", Collective::AllReduce},
      {"ll_two_shot_all_reduce", Collective::AllReduce},
      {"multicast_one_shot_all_reduce", Collective::AllReduce},
      {"multicast_two_shot_all_reduce", Collective::AllReduce},
      {"reduce_scatter", Collective::ReduceScatter},
      {"all_gather", Collective::AllGather},
      {"all_gather_multicast", Collective::AllGather}};
  for (const auto &[name, c] : examples)
    for (const char *dtype : {"", ".float16", ".float32"}) {
      std::string file = std::string("dslc_") + name + dtype + ".r0.cubin.json";
      INFO(file);
      KernelMetadata md = loadMetadataFile(dslc::test::kernelPath(file));
      CollectivePlan p = planCollective(md, c, 2, 65539 * 2);
      for (int64_t n : {int64_t(2), int64_t(8194), int64_t(65539 * 2)})
        bindAndCheck(md, p, n);
    }
}

TEST_CASE("collective plan: errors name the kernel and the parameter",
          "[harness]") {
  json a = tensor("a", "input", "bfloat16", 1, "read");
  json b = tensor("b", "input", "bfloat16", 1, "read");
  json out =
      json::parse(R"([{"name": "out", "dtype": "bfloat16", "rank": 1}])");
  json ext = json::parse(R"({"param": "a", "dim": 0})");
  CHECK(planError(makeMd("k", json::array({a, b}), out, ext, 128),
                  Collective::AllReduce) ==
        "kernel k as all_reduce: two data inputs, 'a' and 'b'");
  CHECK(planError(makeMd("k", json::array({a}), json::array(), ext, 128),
                  Collective::AllReduce)
            .find("no data output") != std::string::npos);
  json n = {{"name", "n"}, {"role", "scalar"}, {"dtype", "int64"}};
  CHECK(planError(makeMd("k", json::array({a, n}), out, ext, 128),
                  Collective::AllReduce) ==
        "kernel k as all_reduce: cannot bind int parameter 'n' (role "
        "scalar): a collective binds tensors only");
  json odd = tensor("odd", "input", "int8", 1, "read");
  CHECK(planError(makeMd("k", json::array({odd}), out,
                         json::parse(R"({"param": "odd", "dim": 0})"), 128),
                  Collective::AllReduce) ==
        "kernel k as all_reduce: input 'odd' is int8: a collective's data is "
        "floating");
  json f16out =
      json::parse(R"([{"name": "out", "dtype": "float16", "rank": 1}])");
  CHECK(planError(makeMd("k", json::array({a}), f16out, ext, 128),
                  Collective::AllReduce)
            .find("output 'out' is float16, but input 'a' is bfloat16") !=
        std::string::npos);
}

TEST_CASE("element types: bf16 and f16 conversions round to nearest even",
          "[harness]") {
  // Every finite half survives a round trip through float.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7c00) == 0x7c00)
      continue;
    float f = halfToFloat(static_cast<uint16_t>(h));
    REQUIRE(floatToHalf(f) == h);
  }
  CHECK(halfToFloat(0x3c00) == 1.0f);
  CHECK(halfToFloat(0x0001) == std::ldexp(1.0f, -24));
  CHECK(halfToFloat(0x7bff) == 65504.0f);
  CHECK(floatToHalf(65519.0f) == 0x7bff);
  CHECK(floatToHalf(65520.0f) == 0x7c00); // rounds to infinity
  CHECK(floatToHalf(1.0f + std::ldexp(1.0f, -11)) == 0x3c00); // tie: even
  CHECK(floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);
  CHECK(floatToHalf(std::ldexp(1.0f, -25)) == 0x0000); // tie to even (0)
  CHECK(floatToHalf(std::ldexp(3.0f, -25)) == 0x0002);
  CHECK(floatToHalf(-2.0f) == 0xc000);
  CHECK(std::isnan(halfToFloat(floatToHalf(std::nanf("")))));
  CHECK(floatToBf16(1.0f) == 0x3f80);
  CHECK(floatToBf16(1.0f + std::ldexp(1.0f, -8)) == 0x3f80); // tie: even
  CHECK(bf16ToFloat(0x3f81) == 1.0f + std::ldexp(1.0f, -7));
  // Poison (0xff bytes) is NaN in every type.
  unsigned char poison[4] = {0xff, 0xff, 0xff, 0xff};
  for (DType t : {DType::BFloat16, DType::Float16, DType::Float32})
    CHECK(std::isnan(loadElement(poison, 0, t)));
  char buf[8];
  storeElement(buf, 1, DType::Float16, 0.5f);
  CHECK(elementBits(buf, 1, DType::Float16) == 0x3800);
  CHECK(loadElement(buf, 1, DType::Float16) == 0.5f);
  CHECK(roundTo(1.0f / 3.0f, DType::BFloat16) == bf16ToFloat(0x3eab));
  CHECK_THROWS(roundTo(1.0f, DType::Int32));
  CHECK(ulpAt(1.0, DType::BFloat16) == std::ldexp(1.0, -7));
  CHECK(ulpAt(1.5, DType::Float16) == std::ldexp(1.0, -10));
  CHECK(ulpAt(40.0, DType::Float32) == std::ldexp(1.0, 5 - 23));
  CHECK(ulpAt(0.0, DType::Float16) == std::ldexp(1.0, -24));
  CHECK(ulpAt(1e-7, DType::Float16) == std::ldexp(1.0, -24)); // subnormal
}

namespace {
/// What a correct kernel writes on `rank`, summing in fp32 or in the
/// element type (`elementAcc`), in rank order or reversed.
std::vector<char> goodOutput(Collective c, DType t, int world, int rank,
                             int64_t n, bool elementAcc, bool reversed) {
  CollectiveShape s = collectiveShape(c, n, world);
  std::vector<char> out(s.output * dtypeSize(t));
  for (int64_t k = 0; k < s.output; ++k) {
    if (c == Collective::AllGather) {
      storeElement(
          out.data(), k, t,
          collectiveInput(5, static_cast<int>(k / s.input), k % s.input, t));
      continue;
    }
    int64_t idx = c == Collective::ReduceScatter ? rank * s.output + k : k;
    float acc = 0;
    for (int i = 0; i < world; ++i) {
      int r = reversed ? world - 1 - i : i;
      acc += collectiveInput(5, r, idx, t);
      if (elementAcc)
        acc = roundTo(acc, t);
    }
    storeElement(out.data(), k, t, acc);
  }
  return out;
}
} // namespace

TEST_CASE("harness check: references for every collective and dtype",
          "[harness]") {
  for (Collective c : {Collective::AllReduce, Collective::ReduceScatter,
                       Collective::AllGather})
    for (DType t : {DType::BFloat16, DType::Float16, DType::Float32})
      for (int world : {2, 4, 8}) {
        int64_t n = 4099 * world;
        int rank = world - 1;
        INFO(collectiveName(c) << " " << dtypeName(t) << " world " << world);
        std::string first;
        for (bool elementAcc : {false, true})
          for (bool reversed : {false, true}) {
            auto out = goodOutput(c, t, world, rank, n, elementAcc, reversed);
            CHECK(checkCollectiveOutput(c, t, world, rank, 5, n, out.data(),
                                        &first) == 0);
          }
        auto out = goodOutput(c, t, world, rank, n, false, false);
        CollectiveShape s = collectiveShape(c, n, world);
        // Poison (NaN) is caught.
        std::memset(out.data() + 3 * dtypeSize(t), 0xff, dtypeSize(t));
        CHECK(checkCollectiveOutput(c, t, world, rank, 5, n, out.data(),
                                    &first) == 1);
        CHECK_THAT(first, Catch::StartsWith("element 3 of " +
                                            std::to_string(s.output)));
        // So is a lost contribution (rank 0's input left out), unless it
        // is within the tolerance (world / 2 ulps at sum |x_r|).
        out = goodOutput(c, t, world, rank, n, false, false);
        int64_t wrong = 0;
        for (int64_t k = 0; k < s.output; k += 97) {
          float v = loadElement(out.data(), k, t);
          float minus = c == Collective::AllGather
                            ? 1.0f
                            : collectiveInput(5, 0,
                                              c == Collective::ReduceScatter
                                                  ? rank * s.output + k
                                                  : k,
                                              t);
          double magnitude = 0;
          if (c != Collective::AllGather)
            for (int r = 0; r < world; ++r)
              magnitude += std::fabs(collectiveInput(
                  5, r,
                  c == Collective::ReduceScatter ? rank * s.output + k : k, t));
          if (std::fabs(minus) <= world * ulpAt(magnitude, t))
            continue;
          storeElement(out.data(), k, t, v - minus);
          ++wrong;
        }
        CHECK(wrong > 10);
        CHECK(checkCollectiveOutput(c, t, world, rank, 5, n, out.data(),
                                    nullptr) == wrong);
      }
}

TEST_CASE("harness: replicas are compared bitwise", "[harness]") {
  // +0.0 and -0.0 are equal numbers but different bits: a replica that
  // drifted that way is still a different replica.
  std::vector<uint16_t> a = {0x3f80, 0x0000, 0x4000, 0x7fc0};
  std::vector<uint16_t> b = a;
  CHECK(countBitwiseDifferences(a.data(), b.data(), 4, 2) == 0);
  b[1] = 0x8000;
  b[3] = 0x7fc1;
  CHECK(countBitwiseDifferences(a.data(), b.data(), 4, 2) == 2);
  CHECK(countBitwiseDifferences(a.data(), b.data(), 1, 2) == 0);
}
