//===- MetadataTest.cpp - Parsing and validating kernel metadata ----------===//
#include "runtime/Metadata.h"
#include "contract/MetadataJson.h"
#include "runtime/Error.h"
#include "tests/runtime/TestSupport.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace dslc::rt;
using nlohmann::json;

namespace {
json minimal() {
  return json::parse(R"({
    "format": "dslc-kernel", "version": 2, "kernel": "k",
    "num_warps": 4, "grid": {"tiles": [{"extent": {"param": "x", "dim": 0}, "block": 128}]},
    "params": [{"name": "x", "role": "input", "dtype": "float32", "rank": 1, "access": "read"},
               {"name": "n", "role": "scalar", "dtype": "int64"},
               {"name": "c", "role": "constexpr", "value": 3}],
    "outputs": [{"name": "out", "dtype": "float32", "rank": 1, "like": "x"}],
    "abi": [{"name": "x", "type": "ptr", "kind": "data", "param": "x"},
            {"name": "x.size0", "type": "i64", "kind": "size", "param": "x", "dim": 0},
            {"name": "n", "type": "i64", "kind": "scalar", "param": "n"},
            {"name": "out", "type": "ptr", "kind": "data", "param": "out"},
            {"name": "out.size0", "type": "i64", "kind": "size", "param": "out", "dim": 0},
            {"name": "__dslc_timeout_ns", "type": "i64", "kind": "timeout"},
            {"name": "__dslc_error", "type": "ptr", "kind": "error"},
            {"name": "__dslc_state", "type": "ptr", "kind": "state"}]
  })");
}
std::string parseError(const json &j) {
  try {
    parseMetadata(j.dump(), "t.json");
  } catch (const Error &e) {
    CHECK(e.code() == ErrorCode::Metadata);
    return e.what();
  }
  return "(parsed)";
}
} // namespace

TEST_CASE("metadata: the one-shot example of docs/kernel-abi.md",
          "[metadata]") {
  KernelMetadata md = loadMetadataFile(
      dslc::test::kernelPath("one_shot_all_reduce.r1.cubin.json"));
  CHECK(md.kernel == "one_shot_all_reduce_kernel");
  CHECK(md.entry == "one_shot_all_reduce_kernel");
  CHECK(md.threadsPerCta() == 1024);
  CHECK(md.spins);
  REQUIRE(md.worldSize);
  CHECK(*md.worldSize == 2);
  REQUIRE(md.rank);
  CHECK(*md.rank == 1);
  REQUIRE(md.args.size() == 4); // constexprs are not bindable
  REQUIRE(md.constexprs.size() == 2);
  CHECK(md.args[0].role == Role::PeerTable);
  CHECK(md.args[0].peerTableFor == "local_signal_pad");
  CHECK(md.args[1].role == Role::SignalPad);
  CHECK(md.args[2].name == "a_shared");
  CHECK(md.args[2].role == Role::Input);
  CHECK(md.args[2].symmetric);
  CHECK(md.args[2].dtype == DType::BFloat16);
  CHECK(md.args[3].isOutput);
  CHECK(md.args[3].role == Role::Output);
  CHECK(md.args[3].like == "a_shared");
  REQUIRE(md.abi.size() == 13);
  CHECK(md.abi[6].kind == SlotKind::Peers);
  CHECK(md.abi[6].arg == 2);
  CHECK(md.abi[4].kind == SlotKind::Size);
  CHECK(md.abi[4].dim == 1);
  CHECK(md.abi[12].kind == SlotKind::State);
  REQUIRE(md.constraints.size() == 3);
  CHECK(md.constraints[2].isNumTiles());
  REQUIRE(md.grid.size() == 1);
  CHECK(md.grid[0].block == 8192);
}

TEST_CASE("metadata: minimal file and defaults", "[metadata]") {
  KernelMetadata md = parseMetadata(minimal().dump(), "t.json");
  CHECK(md.entry == "k");
  CHECK(md.threadsPerCta() == 128);
  CHECK_FALSE(md.spins);
  CHECK_FALSE(md.worldSize);
  CHECK(md.maxTensorElements == 0); // no limit unless the file gives one
  CHECK(md.args.size() == 3);
  CHECK(md.args[1].isIntScalar());
  CHECK(md.abi[2].kind == SlotKind::Scalar);
}

TEST_CASE("metadata: errors name the file and the field", "[metadata]") {
  CHECK(parseError(json::parse("[1]")) ==
        "metadata t.json: top level is not an object");
  CHECK_THROWS_WITH(parseMetadata("{", "t.json"),
                    Catch::StartsWith("metadata t.json: not valid JSON"));
  json j = minimal();
  j["format"] = "other";
  CHECK(parseError(j).find("format is 'other'") != std::string::npos);
  j = minimal();
  j["version"] = 1;
  CHECK(parseError(j) == "metadata t.json: version 1 is not supported: this "
                         "build reads version 2 (compile the kernel again "
                         "with this dslc)");
  j = minimal();
  j["params"][0]["dtype"] = "complex64";
  CHECK(parseError(j) ==
        "metadata t.json: params[0] 'x': unknown dtype 'complex64'");
  j = minimal();
  j["abi"][1]["dim"] = 1;
  CHECK(parseError(j) == "metadata t.json: abi[1] 'x.size0': dimension 1 but "
                         "'x' has rank 1");
  j = minimal();
  j["abi"][0]["type"] = "i64";
  CHECK(parseError(j) ==
        "metadata t.json: abi[0] 'x': type is 'i64', expected 'ptr'");
  j = minimal();
  j["abi"].erase(7);
  CHECK(parseError(j) ==
        "metadata t.json: abi lacks the hidden slot '__dslc_state'");
  j = minimal();
  j["abi"][2]["param"] = "m";
  CHECK(parseError(j) == "metadata t.json: abi[2] 'n': names no parameter "
                         "or output ('m')");
  j = minimal();
  j["abi"].erase(2);
  CHECK(parseError(j) == "metadata t.json: abi has no slot for the value of "
                         "'n' (expected 'n')");
  j = minimal();
  j["params"][0]["symmetric"] = true;
  CHECK(parseError(j).find("no 'x.peers' slot") != std::string::npos);
  j = minimal();
  j["grid"]["tiles"][0]["extent"] = {{"param", "x"}, {"dim", 2}};
  CHECK(parseError(j).find("dim 2 outside the rank 1 of 'x'") !=
        std::string::npos);
  j = minimal();
  j["constraints"] =
      json::parse(R"([{"param": "x", "dim": 0, "op": "~", "value": 1}])");
  CHECK(parseError(j).find("unknown op '~'") != std::string::npos);
  j = minimal();
  j["num_warps"] = 64;
  CHECK(parseError(j) == "metadata t.json: num_warps 64 is outside 1..32");
  j = minimal();
  j["max_tensor_elements"] = -1;
  CHECK(parseError(j) == "metadata t.json: max_tensor_elements is negative "
                         "(0: no limit)");
  j["max_tensor_elements"] = 2147483647;
  KernelMetadata bounded = parseMetadata(j.dump(), "t.json");
  CHECK(bounded.maxTensorElements == 2147483647);
  CHECK(parseMetadata(dslc::contract::writeMetadata(bounded), "t.json")
            .maxTensorElements == 2147483647);
  j = minimal();
  j["world_size"] = 2;
  j["rank"] = 2;
  CHECK(parseError(j).find("rank 2 is outside the world size") !=
        std::string::npos);
}

TEST_CASE("metadata: unknown keys are ignored", "[metadata]") {
  json j = minimal();
  j["future_field"] = {{"a", 1}};
  j["params"][0]["layout"] = "strided";
  CHECK_NOTHROW(parseMetadata(j.dump(), "t.json"));
}

TEST_CASE("metadata: missing file", "[metadata]") {
  try {
    loadMetadataFile("/nonexistent/k.cubin.json");
    FAIL("no throw");
  } catch (const Error &e) {
    CHECK(e.code() == ErrorCode::Io);
    CHECK(std::string(e.what()) == "cannot open /nonexistent/k.cubin.json");
  }
}

TEST_CASE("metadata: grid extents with add and div", "[metadata]") {
  json j = minimal();
  j["grid"]["tiles"][0]["extent"] =
      json::parse(R"({"param": "x", "dim": 0, "add": 1, "div": 2})");
  j["grid"]["tiles"].push_back(json::parse(
      R"({"extent": {"scalar": "n", "add": 3, "div": 4}, "block": 2})"));
  KernelMetadata md = parseMetadata(j.dump(), "t.json");
  REQUIRE(md.grid.size() == 2);
  CHECK(md.grid[0].add == 1);
  CHECK(md.grid[0].div == 2);
  CHECK(md.grid[0].apply(7) == 4); // ceil(7 / 2)
  CHECK(md.grid[0].apply(8) == 4);
  CHECK(md.grid[0].apply(0) == 0);
  CHECK(md.grid[1].apply(5) == 2); // floor(8 / 4)
  // Defaults: add 0, div 1.
  KernelMetadata plain = parseMetadata(minimal().dump(), "t.json");
  CHECK(plain.grid[0].add == 0);
  CHECK(plain.grid[0].div == 1);
  CHECK(plain.grid[0].apply(1000) == 1000);
  // The tile count: x has 257 elements -> extent 129 -> 2 tiles of 128;
  // n = 5 -> extent 2 -> 1 tile of 2.
  CHECK(numTilesWith(md, [](const GridExtent &e) -> int64_t {
          return e.scalar ? 5 : 257;
        }) == 2);
  CHECK(numTilesWith(md, [](const GridExtent &e) -> int64_t {
          return e.scalar ? 5 : 256;
        }) == 1);

  j = minimal();
  j["grid"]["tiles"][0]["extent"]["div"] = 0;
  CHECK(parseError(j) ==
        "metadata t.json: grid.tiles[0]: extent: div 0 is not positive");
  j = minimal();
  j["grid"]["tiles"][0]["extent"]["add"] = "one";
  CHECK(parseError(j).find("field 'add' must be an integer") !=
        std::string::npos);
  j = minimal();
  j["grid"]["tiles"][0]["extent"] = json::parse(R"({"const": 8, "div": 2})");
  CHECK(parseError(j).find("not to a constant") != std::string::npos);
}

TEST_CASE("metadata: several top-level loops launch the most tiles of any",
          "[metadata]") {
  // Helion's kernels with two loops (and hl.barrier between them): every
  // CTA strides over each loop in turn, so the launch takes the larger.
  json j = minimal();
  j["grid"]["more_loops"] = json::parse(
      R"([[{"extent": {"scalar": "n"}, "block": 4}],
          [{"extent": {"const": 64}, "block": 8},
           {"extent": {"param": "x", "dim": 0}, "block": 256}]])");
  KernelMetadata md = parseMetadata(j.dump(), "t.json");
  REQUIRE(md.moreGrids.size() == 2);
  CHECK(md.moreGrids[0][0].scalar == std::optional<std::string>("n"));
  CHECK(md.moreGrids[1].size() == 2);
  auto tiles = [&](int64_t x, int64_t n) {
    return numTilesWith(
        md, [&](const GridExtent &e) -> int64_t { return e.scalar ? n : x; });
  };
  CHECK(tiles(1280, 1) == 40);    // x: 10 of 128; 1 of 4; 8 x 5
  CHECK(tiles(128, 1000) == 250); // n: 250 of 4
  CHECK(tiles(128, 0) == 8);      // 64 / 8 x 1 of 256
  // Written back the same.
  KernelMetadata again =
      parseMetadata(dslc::contract::writeMetadata(md), "t.json");
  REQUIRE(again.moreGrids.size() == 2);
  CHECK(again.moreGrids[1][1].block == 256);
  // Each loop's tiles are checked as the first's.
  j["grid"]["more_loops"][1][1]["extent"]["dim"] = 3;
  CHECK(parseError(j) == "metadata t.json: grid.more_loops[1][1]: dim 3 "
                         "outside the rank 1 of 'x'");
  j["grid"]["more_loops"][1] = 5;
  CHECK(parseError(j) == "metadata t.json: grid.more_loops[1]: not an array");
}

TEST_CASE("metadata: roles and access", "[metadata]") {
  json j = minimal();
  KernelMetadata md = parseMetadata(j.dump(), "t.json");
  CHECK(md.args[0].access == Access::Read);
  CHECK(md.args[0].reads());
  CHECK_FALSE(md.args[0].writes());
  CHECK(md.args[2].isOutput);
  CHECK(md.args[2].access == Access::Write); // outputs are writes
  CHECK(md.args[0].peerTableFor.empty());
  for (const char *role : {"inout", "output", "unused"}) {
    j = minimal();
    j["params"][0]["role"] = role;
    j["params"][0]["access"] = std::string(role) == "inout"    ? "readwrite"
                               : std::string(role) == "output" ? "write"
                                                               : "none";
    CHECK(roleName(parseMetadata(j.dump(), "t.json").args[0].role) ==
          std::string(role));
  }
  j = minimal();
  j["params"][0]["access"] = "rw";
  CHECK(parseError(j) == "metadata t.json: params[0] 'x': unknown access 'rw' "
                         "(read, write, readwrite or none)");
  j = minimal();
  j["params"][0].erase("role");
  CHECK(parseError(j) == "metadata t.json: params[0] 'x': missing field "
                         "'role'");
  j = minimal();
  j["outputs"][0]["access"] = "read";
  CHECK(parseError(j).find("an output's access must be 'write', "
                           "'readwrite' or 'none', not 'read'") !=
        std::string::npos);
  // An output a specialization never writes (stores compiled out) loads.
  j = minimal();
  j["outputs"][0]["access"] = "none";
  CHECK(parseError(j) == "(parsed)");

  // The two-shot all-reduce's parameters: a pad table for the pad.
  json t = json::parse(R"({
    "format": "dslc-kernel", "version": 2, "kernel": "two_shot", "num_warps": 4,
    "grid": {"tiles": [{"extent": {"param": "a_shared", "dim": 0, "add": 1, "div": 2}, "block": 4096}]},
    "params": [
      {"name": "signal_pad_addrs", "role": "peer_table", "dtype": "uint64", "rank": 1,
       "access": "read", "peer_table_for": "local_signal_pad"},
      {"name": "local_signal_pad", "role": "signal_pad", "dtype": "int32", "rank": 2, "access": "readwrite"},
      {"name": "a_shared", "role": "input", "dtype": "bfloat16", "rank": 1, "symmetric": true, "access": "read"},
      {"name": "out", "role": "output", "dtype": "bfloat16", "rank": 1, "symmetric": true, "access": "write"}],
    "abi": [{"name": "signal_pad_addrs", "type": "ptr", "kind": "data", "param": "signal_pad_addrs"},
            {"name": "signal_pad_addrs.size0", "type": "i64", "kind": "size", "param": "signal_pad_addrs", "dim": 0},
            {"name": "local_signal_pad", "type": "ptr", "kind": "data", "param": "local_signal_pad"},
            {"name": "local_signal_pad.size0", "type": "i64", "kind": "size", "param": "local_signal_pad", "dim": 0},
            {"name": "local_signal_pad.size1", "type": "i64", "kind": "size", "param": "local_signal_pad", "dim": 1},
            {"name": "a_shared", "type": "ptr", "kind": "data", "param": "a_shared"},
            {"name": "a_shared.size0", "type": "i64", "kind": "size", "param": "a_shared", "dim": 0},
            {"name": "a_shared.peers", "type": "ptr", "kind": "peers", "param": "a_shared"},
            {"name": "out", "type": "ptr", "kind": "data", "param": "out"},
            {"name": "out.size0", "type": "i64", "kind": "size", "param": "out", "dim": 0},
            {"name": "out.peers", "type": "ptr", "kind": "peers", "param": "out"},
            {"name": "__dslc_timeout_ns", "type": "i64", "kind": "timeout"},
            {"name": "__dslc_error", "type": "ptr", "kind": "error"},
            {"name": "__dslc_state", "type": "ptr", "kind": "state"}]
  })");
  md = parseMetadata(t.dump(), "t.json");
  CHECK(md.args[0].peerTableFor == "local_signal_pad");
  CHECK(md.args[1].access == Access::ReadWrite);
  CHECK(md.args[3].role == Role::Output);
  CHECK_FALSE(md.args[3].isOutput); // a parameter the kernel writes
  CHECK(md.args[3].symmetric);
  CHECK(numTilesWith(md, [](const GridExtent &) -> int64_t { return 8193; }) ==
        2);
  CHECK(numTilesWith(md, [](const GridExtent &) -> int64_t { return 8192; }) ==
        1);

  json bad = t;
  bad["params"][0]["peer_table_for"] = "nobody";
  CHECK(parseError(bad) == "metadata t.json: params 'signal_pad_addrs': "
                           "peer_table_for 'nobody' names no other tensor "
                           "argument");
  bad = t;
  bad["params"][0]["peer_table_for"] = "signal_pad_addrs";
  CHECK(parseError(bad).find("names no other tensor argument") !=
        std::string::npos);
  bad = t;
  bad["params"][1]["peer_table_for"] = "a_shared";
  CHECK(parseError(bad) == "metadata t.json: params[1] 'local_signal_pad': "
                           "'peer_table_for' needs role 'peer_table'");
}

TEST_CASE("metadata: what dslc wrote for every example", "[metadata]") {
  // The build compiles the examples with dslc (tests/runtime/CMakeLists.txt);
  // the runtime reads each file and finds the roles the examples document.
#ifndef DSLC_TEST_HAVE_DSLC
  WARN("SKIPPED metadata of the examples: the build has no dslc");
  return;
#endif
  KernelMetadata ll = loadMetadataFile(
      dslc::test::kernelPath("dslc_ll_two_shot_all_reduce.r0.cubin.json"));
  int scratch = ll.findArg("scratch");
  REQUIRE(scratch >= 0);
  CHECK(ll.args[scratch].role == Role::Scratch);
  CHECK(ll.args[scratch].packets.puts == 2);
  KernelMetadata mc = loadMetadataFile(dslc::test::kernelPath(
      "dslc_multicast_one_shot_all_reduce.r0.cubin.json"));
  CHECK(mc.args[mc.findArg("staging")].role == Role::InOut);
  CHECK(mc.args[mc.findArg("staging_ptrs")].peerTableFor == "staging");
  CHECK(mc.args[mc.findArg("signal_pad")].role == Role::SignalPad);
  KernelMetadata rs = loadMetadataFile(
      dslc::test::kernelPath("dslc_reduce_scatter.r1.cubin.json"));
  CHECK(rs.args[rs.findArg("out")].role == Role::Output);
  CHECK(rs.args[rs.findArg("a_shared")].role == Role::Input);
}
