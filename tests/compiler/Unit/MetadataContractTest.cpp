//===- MetadataContractTest.cpp - dslc's metadata, read by the runtime ---===//
//
// The contract of docs/kernel-abi.md from both sides: what the compiler's
// MetadataWriter writes, the runtime's parser accepts, with every field
// where the runtime expects it.
//
//===----------------------------------------------------------------------===//

#include "compiler/Pipeline/MetadataWriter.h"
#include "runtime/Error.h"
#include "runtime/Metadata.h"

#include <catch2/catch.hpp>

using namespace dslc;

namespace {

KernelDescription oneShot() {
  KernelDescription d;
  d.kernel = "k";
  d.sourceFile = "k.py";
  d.sourceLine = 3;
  d.numWarps = 32;
  d.spins = true;
  d.worldSize = 2;
  d.rank = 1;
  d.constants["my_rank"] = "1";
  d.tunables.push_back({"block_sizes[0]", 8192});
  GridExtent g;
  g.param = "out";
  g.dim = 0;
  g.block = 8192;
  d.grid.push_back(g);
  ParamDescription pads{"pads", ParamDescription::Kind::Tensor, "int32", 2};
  ParamDescription a{"a", ParamDescription::Kind::Tensor, "bfloat16", 1, true};
  ParamDescription r{"my_rank", ParamDescription::Kind::Constexpr};
  r.value = "1";
  d.params = {pads, a, r};
  d.outputs.push_back({"out", "bfloat16", 1, "a"});
  d.constraints.push_back({"pads", 1, "==", int64_t(2)});
  d.constraints.push_back({"pads", 0, ">=", std::string("num_tiles")});
  return d;
}

BuildFacts facts() {
  BuildFacts f;
  f.arch = "sm_90";
  f.multicast = "software";
  f.abi = {{"pads", "ptr"},           {"pads.size0", "i64"},
           {"pads.size1", "i64"},     {"a", "ptr"},
           {"a.size0", "i64"},        {"a.peers", "ptr"},
           {"out", "ptr"},            {"out.size0", "i64"},
           {"__dslc_timeout_ns", "i64"}, {"__dslc_error", "ptr"},
           {"__dslc_state", "ptr"}};
  return f;
}

std::string write(const KernelDescription &d, const BuildFacts &f) {
  std::string text;
  llvm::raw_string_ostream os(text);
  writeMetadata(os, d, f);
  return text;
}

} // namespace

TEST_CASE("the runtime reads what dslc writes", "[metadata]") {
  rt::KernelMetadata md = rt::parseMetadata(write(oneShot(), facts()), "k");
  CHECK(md.kernel == "k");
  CHECK(md.threadsPerCta == 1024);
  CHECK(md.spins);
  REQUIRE(md.worldSize);
  CHECK(*md.worldSize == 2);
  REQUIRE(md.rank);
  CHECK(*md.rank == 1);
  REQUIRE(md.tiles.size() == 1);
  CHECK(md.tiles[0].block == 8192);
  CHECK(md.abi.size() == 11);
  int a = md.findArg("a");
  REQUIRE(a >= 0);
  CHECK(md.args[a].symmetric);
  int out = md.findArg("out");
  REQUIRE(out >= 0);
  CHECK(md.args[out].isOutput);
  CHECK(md.args[out].like == "a");
  CHECK(md.constraints.size() == 2);
  CHECK_FALSE(md.maxCtas);
  CHECK(md.stateBytes == 0);
}

TEST_CASE("epoch state and its grid cap reach the runtime", "[metadata]") {
  KernelDescription d = oneShot();
  d.stateBytes = 16384;
  d.maxCtas = 4096;
  rt::KernelMetadata md = rt::parseMetadata(write(d, facts()), "k");
  CHECK(md.stateBytes == 16384);
  REQUIRE(md.maxCtas);
  CHECK(*md.maxCtas == 4096);
}

TEST_CASE("a slot the metadata does not explain is refused", "[metadata]") {
  BuildFacts f = facts();
  f.abi.insert(f.abi.begin() + 3, {"ghost", "ptr"});
  CHECK_THROWS_WITH(rt::parseMetadata(write(oneShot(), f), "k"),
                    Catch::Contains("ghost"));
}
