//===- MetadataContractTest.cpp - dslc's metadata, read by the runtime ---===//
//
// The contract of docs/kernel-abi.md from both sides: the description the
// compiler builds (KernelDescription, the contract's KernelMetadata), as
// the pipeline writes it, is what the runtime's loader accepts, with every
// field where the runtime expects it.
//
//===----------------------------------------------------------------------===//

#include "compiler/MLIRGen/KernelDescription.h"
#include "contract/MetadataJson.h"
#include "runtime/Error.h"
#include "runtime/Metadata.h"
#include "tests/contract/AbiLayout.h"

#include <catch2/catch.hpp>

using namespace dslc;

namespace {

/// The one-shot all-reduce as MLIRGen and the access analysis describe it.
KernelDescription oneShot() {
  KernelDescription d;
  d.kernel = "k";
  d.sourceFile = "k.py";
  d.sourceLine = 3;
  d.numWarps = 32;
  d.spins = true;
  d.worldSize = 2;
  d.rank = 1;
  d.arch = "sm_90";
  d.constants["my_rank"] = "1";
  d.tunables.push_back(contract::Tunable::blockSize(0, 8192));
  d.tunables.push_back(contract::Tunable::numWarps(32));
  GridExtent g;
  g.param = "out";
  g.dim = 0;
  g.block = 8192;
  d.grid.push_back(g);
  ParamDescription pads;
  pads.name = "pads";
  pads.dtype = contract::DType::Int32;
  pads.rank = 2;
  pads.role = contract::Role::SignalPad;
  pads.access = contract::Access::ReadWrite;
  ParamDescription a;
  a.name = "a";
  a.dtype = contract::DType::BFloat16;
  a.rank = 1;
  a.symmetric = true;
  a.role = contract::Role::Input;
  a.access = contract::Access::Read;
  ParamDescription r;
  r.name = "my_rank";
  r.kind = ParamDescription::Kind::Constexpr;
  r.role = contract::Role::Constexpr;
  r.value = "1";
  d.args = {
      pads, a,
      OutputDescription::output("out", contract::DType::BFloat16, 1, "a")};
  d.constexprs = {r};
  d.constraints.push_back({"pads", 1, "==", int64_t(2)});
  d.constraints.push_back({"pads", 0, ">=", contract::NumTiles{}});
  d.abi = test::abiLayout(d);
  return d;
}

} // namespace

TEST_CASE("the runtime reads what dslc writes", "[metadata]") {
  rt::KernelMetadata md =
      rt::parseMetadata(contract::writeMetadata(oneShot()), "k");
  CHECK(md.kernel == "k");
  CHECK(md.threadsPerCta() == 1024);
  CHECK(md.spins);
  REQUIRE(md.worldSize);
  CHECK(*md.worldSize == 2);
  REQUIRE(md.rank);
  CHECK(*md.rank == 1);
  REQUIRE(md.grid.size() == 1);
  CHECK(md.grid[0].block == 8192);
  CHECK(md.abi.size() == 11);
  int a = md.findArg("a");
  REQUIRE(a >= 0);
  CHECK(md.args[a].symmetric);
  CHECK(md.args[a].role == rt::Role::Input);
  CHECK(md.args[md.findArg("pads")].role == rt::Role::SignalPad);
  int out = md.findArg("out");
  REQUIRE(out >= 0);
  CHECK(md.args[out].isOutput);
  CHECK(md.args[out].like == "a");
  CHECK(md.constraints.size() == 2);
  CHECK_FALSE(md.maxCtas);
  CHECK(md.stateBytes == 0);
  REQUIRE(md.tunables.size() == 2);
  CHECK(md.tunables[0].label() == "block_sizes[0]");
}

TEST_CASE("epoch state and its grid cap reach the runtime", "[metadata]") {
  KernelDescription d = oneShot();
  d.stateBytes = 16384;
  d.maxCtas = 4096;
  rt::KernelMetadata md = rt::parseMetadata(contract::writeMetadata(d), "k");
  CHECK(md.stateBytes == 16384);
  REQUIRE(md.maxCtas);
  CHECK(*md.maxCtas == 4096);
}

TEST_CASE("a slot the metadata does not explain is refused", "[metadata]") {
  KernelDescription d = oneShot();
  d.abi.insert(d.abi.begin() + 3, {"ghost", contract::SlotType::Ptr,
                                   contract::SlotKind::Data, "ghost"});
  try {
    rt::parseMetadata(contract::writeMetadata(d), "k");
    FAIL("parsed");
  } catch (const rt::Error &e) {
    CHECK(e.code() == rt::ErrorCode::Metadata);
    CHECK(std::string(e.what()) == "metadata k: abi[3] 'ghost': names no "
                                   "parameter or output ('ghost')");
  }
}
