//===- MetadataTest.cpp - Parsing and validating kernel metadata ----------===//
#include "runtime/Error.h"
#include "runtime/Metadata.h"
#include "tests/runtime/TestSupport.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace dslc::rt;
using nlohmann::json;

namespace {
json minimal() {
  return json::parse(R"({
    "format": "dslc-kernel", "version": 1, "kernel": "k",
    "num_warps": 4, "grid": {"tiles": [{"extent": {"param": "x", "dim": 0}, "block": 128}]},
    "params": [{"name": "x", "kind": "tensor", "dtype": "float32", "rank": 1},
               {"name": "n", "kind": "int"}, {"name": "c", "kind": "constexpr", "value": 3}],
    "outputs": [{"name": "out", "dtype": "float32", "rank": 1, "like": "x"}],
    "abi": [{"name": "x", "type": "ptr"}, {"name": "x.size0", "type": "i64"},
            {"name": "n", "type": "i64"},
            {"name": "out", "type": "ptr"}, {"name": "out.size0", "type": "i64"},
            {"name": "__dslc_timeout_ns", "type": "i64"}, {"name": "__dslc_error", "type": "ptr"},
            {"name": "__dslc_state", "type": "ptr"}]
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
  CHECK(md.threadsPerCta == 1024);
  CHECK(md.spins);
  REQUIRE(md.worldSize);
  CHECK(*md.worldSize == 2);
  REQUIRE(md.rank);
  CHECK(*md.rank == 1);
  REQUIRE(md.args.size() == 4); // constexprs are not bindable
  CHECK(md.args[2].name == "a_shared");
  CHECK(md.args[2].symmetric);
  CHECK(md.args[2].dtype == DType::BFloat16);
  CHECK(md.args[3].isOutput);
  CHECK(md.args[3].like == "a_shared");
  REQUIRE(md.abi.size() == 13);
  CHECK(md.abi[6].role == AbiSlot::Role::Peers);
  CHECK(md.abi[4].role == AbiSlot::Role::Size);
  CHECK(md.abi[4].dim == 1);
  CHECK(md.abi[12].role == AbiSlot::Role::State);
  REQUIRE(md.constraints.size() == 3);
  CHECK(md.constraints[2].numTiles);
  REQUIRE(md.tiles.size() == 1);
  CHECK(md.tiles[0].block == 8192);
}

TEST_CASE("metadata: minimal file and defaults", "[metadata]") {
  KernelMetadata md = parseMetadata(minimal().dump(), "t.json");
  CHECK(md.entry == "k");
  CHECK(md.threadsPerCta == 128);
  CHECK_FALSE(md.spins);
  CHECK_FALSE(md.worldSize);
  CHECK(md.args.size() == 3);
  CHECK(md.abi[2].role == AbiSlot::Role::Scalar);
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
  j["version"] = 2;
  CHECK(parseError(j).find("version 2 is not supported") != std::string::npos);
  j = minimal();
  j["params"][0]["dtype"] = "complex64";
  CHECK(parseError(j) ==
        "metadata t.json: params[0] 'x': unknown dtype 'complex64'");
  j = minimal();
  j["abi"][1]["name"] = "x.size1";
  CHECK(parseError(j) == "metadata t.json: abi[1] 'x.size1': dimension 1 but "
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
  j["abi"][2]["name"] = "m";
  CHECK(parseError(j) == "metadata t.json: abi[2] 'm': names no parameter "
                         "or output");
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
  j["constraints"] = json::parse(R"([{"param": "x", "dim": 0, "op": "~", "value": 1}])");
  CHECK(parseError(j).find("unknown op '~'") != std::string::npos);
  j = minimal();
  j["num_warps"] = 64;
  CHECK(parseError(j).find("threads_per_cta 2048 is outside") !=
        std::string::npos);
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
  j["grid"]["tiles"].push_back(
      json::parse(R"({"extent": {"scalar": "n", "add": 3, "div": 4}, "block": 2})"));
  KernelMetadata md = parseMetadata(j.dump(), "t.json");
  REQUIRE(md.tiles.size() == 2);
  CHECK(md.tiles[0].extent.add == 1);
  CHECK(md.tiles[0].extent.div == 2);
  CHECK(md.tiles[0].extent.apply(7) == 4); // ceil(7 / 2)
  CHECK(md.tiles[0].extent.apply(8) == 4);
  CHECK(md.tiles[0].extent.apply(0) == 0);
  CHECK(md.tiles[1].extent.apply(5) == 2); // floor(8 / 4)
  // Defaults: add 0, div 1.
  KernelMetadata plain = parseMetadata(minimal().dump(), "t.json");
  CHECK(plain.tiles[0].extent.add == 0);
  CHECK(plain.tiles[0].extent.div == 1);
  CHECK(plain.tiles[0].extent.apply(1000) == 1000);
  // The tile count: x has 257 elements -> extent 129 -> 2 tiles of 128;
  // n = 5 -> extent 2 -> 1 tile of 2.
  CHECK(md.numTilesWith([](const Extent &e) {
    return e.kind == Extent::Kind::Scalar ? 5 : 257;
  }) == 2);
  CHECK(md.numTilesWith([](const Extent &e) {
    return e.kind == Extent::Kind::Scalar ? 5 : 256;
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

TEST_CASE("metadata: tensor access and peer tables", "[metadata]") {
  json j = minimal();
  j["params"][0]["access"] = "read";
  KernelMetadata md = parseMetadata(j.dump(), "t.json");
  CHECK(md.args[0].access == Access::Read);
  CHECK(md.args[0].reads());
  CHECK_FALSE(md.args[0].writes());
  CHECK(md.args[2].isOutput);
  CHECK(md.args[2].access == Access::Write); // outputs are writes
  // Absent: unknown (older metadata).
  md = parseMetadata(minimal().dump(), "t.json");
  CHECK(md.args[0].access == Access::Unknown);
  CHECK(md.args[0].peerTableFor.empty());
  for (const char *name : {"write", "readwrite", "none"}) {
    j = minimal();
    j["params"][0]["access"] = name;
    CHECK(accessName(parseMetadata(j.dump(), "t.json").args[0].access) ==
          std::string(name));
  }
  j = minimal();
  j["params"][0]["access"] = "rw";
  CHECK(parseError(j) == "metadata t.json: params[0] 'x': unknown access 'rw' "
                         "(read, write, readwrite or none)");
  j = minimal();
  j["outputs"][0]["access"] = "read";
  CHECK(parseError(j).find("an output's access must be 'write' or "
                           "'readwrite', not 'read'") != std::string::npos);

  // The two-shot all-reduce's parameters: a pad table for the pad.
  json t = json::parse(R"({
    "format": "dslc-kernel", "version": 1, "kernel": "two_shot", "num_warps": 4,
    "grid": {"tiles": [{"extent": {"param": "a_shared", "dim": 0, "add": 1, "div": 2}, "block": 4096}]},
    "params": [
      {"name": "signal_pad_addrs", "kind": "tensor", "dtype": "uint64", "rank": 1,
       "access": "read", "peer_table_for": "local_signal_pad"},
      {"name": "local_signal_pad", "kind": "tensor", "dtype": "int32", "rank": 2, "access": "readwrite"},
      {"name": "a_shared", "kind": "tensor", "dtype": "bfloat16", "rank": 1, "symmetric": true, "access": "read"},
      {"name": "out", "kind": "tensor", "dtype": "bfloat16", "rank": 1, "symmetric": true, "access": "write"}],
    "abi": [{"name": "signal_pad_addrs", "type": "ptr"}, {"name": "signal_pad_addrs.size0", "type": "i64"},
            {"name": "local_signal_pad", "type": "ptr"}, {"name": "local_signal_pad.size0", "type": "i64"},
            {"name": "local_signal_pad.size1", "type": "i64"},
            {"name": "a_shared", "type": "ptr"}, {"name": "a_shared.size0", "type": "i64"},
            {"name": "a_shared.peers", "type": "ptr"},
            {"name": "out", "type": "ptr"}, {"name": "out.size0", "type": "i64"},
            {"name": "out.peers", "type": "ptr"},
            {"name": "__dslc_timeout_ns", "type": "i64"}, {"name": "__dslc_error", "type": "ptr"},
            {"name": "__dslc_state", "type": "ptr"}]
  })");
  md = parseMetadata(t.dump(), "t.json");
  CHECK(md.args[0].peerTableFor == "local_signal_pad");
  CHECK(md.args[1].access == Access::ReadWrite);
  CHECK(md.args[3].access == Access::Write);
  CHECK(md.args[3].symmetric);
  CHECK(md.numTilesWith([](const Extent &) { return 8193; }) == 2);
  CHECK(md.numTilesWith([](const Extent &) { return 8192; }) == 1);

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
                           "'peer_table_for' needs a uint64 tensor of rank 1");
}
