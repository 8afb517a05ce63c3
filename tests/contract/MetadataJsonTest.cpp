//===- MetadataJsonTest.cpp - The metadata file, written and read back ----===//
//
// One writer, one reader: everything the compiler can put in a metadata
// file comes back unchanged, every role included, and everything the
// reader refuses is refused with the file and the field named.
//
//===----------------------------------------------------------------------===//
#include "contract/MetadataJson.h"
#include "tests/contract/AbiLayout.h"
#include "tests/contract/ArgBuilders.h"

#include <catch2/catch.hpp>

using namespace dslc::contract;
using dslc::contract::test::scalar;
using dslc::contract::test::tensor;

namespace {

/// A kernel with a parameter of every role.
KernelMetadata everyRole() {
  KernelMetadata md;
  md.kernel = "k";
  md.sourceFile = "k.py";
  md.sourceLine = 7;
  md.sourceSha256 = std::string(64, 'a');
  md.arch = "sm_90";
  md.numWarps = 8;
  md.spins = true;
  md.stateBytes = 16384;
  md.maxCtas = 4096;
  md.worldSize = 2;
  md.rank = 1;
  md.multicast = "nvls";
  md.defaultTimeoutMs = 2000;
  md.constants = {{"my_rank", "1"}, {"group", "\"g\""}};
  md.tunables = {Tunable::blockSize(0, 1024), Tunable::numWarps(8),
                 Tunable::loadEviction(5, 2)};
  md.tunables[0].extent = 5000;
  md.tunables[0].tilesGrid = true;
  ArgSpec table =
      tensor("pad_ptrs", DType::UInt64, 1, Role::PeerTable, Access::Read);
  table.peerTableFor = "pad";
  ArgSpec a = tensor("a", DType::BFloat16, 1, Role::Input, Access::Read);
  a.symmetric = true;
  ArgSpec scratch =
      tensor("scratch", DType::Int64, 1, Role::Scratch, Access::ReadWrite);
  scratch.symmetric = true;
  scratch.packets = {2, 4096};
  // The pad the table lists is one the compiler added (symm_mem_sync's).
  ArgSpec pad =
      tensor("pad", DType::Int32, 2, Role::SignalPad, Access::ReadWrite);
  pad.implicit = true;
  // A torch.zeros output.
  ArgSpec out = ArgSpec::output("out", DType::BFloat16, 1, "a");
  out.zeroed = true;
  md.args = {
      table,
      pad,
      a,
      scratch,
      tensor("staging", DType::BFloat16, 2, Role::InOut, Access::ReadWrite),
      tensor("w", DType::Float32, 1, Role::Output, Access::Write),
      tensor("sizes_only", DType::Int32, 1, Role::Unused, Access::None),
      scalar("n", DType::Int64),
      scalar("alpha", DType::Float32),
      out};
  ArgSpec rank;
  rank.name = "my_rank";
  rank.kind = ArgSpec::Kind::Constexpr;
  rank.role = Role::Constexpr;
  rank.value = "1";
  ArgSpec group = rank;
  group.name = "group";
  group.value.reset();
  md.constexprs = {rank, group};
  GridExtent g;
  g.param = "a";
  g.dim = 0;
  g.add = 1;
  g.div = 2;
  g.block = 1024;
  GridExtent s;
  s.scalar = "n";
  s.block = 4;
  GridExtent c;
  c.constant = 3;
  md.grid = {g, s, c};
  md.constraints = {{"pad", 1, "==", int64_t(2)}, {"pad", 0, ">=", NumTiles{}}};
  md.abi = dslc::test::abiLayout(md);
  // `return out, None, a.view(-1, 3, a.size(0))`.
  GridExtent three, sizeOfA;
  three.constant = 3;
  sizeOfA.param = "a";
  md.returns = Returns{{"out", std::nullopt, "a"},
                       {{}, {}, {ViewDim{}, ViewDim{three}, ViewDim{sizeOfA}}},
                       true};
  return md;
}

std::string readError(const std::string &text) {
  Expected<KernelMetadata> md = readMetadata(text, "t.json");
  REQUIRE_FALSE(md);
  return md.error();
}

/// everyRole() written, with `edit` applied to the text's first match.
std::string edited(const std::string &from, const std::string &to) {
  std::string text = writeMetadata(everyRole());
  size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

} // namespace

TEST_CASE("metadata: what is written is read back unchanged",
          "[contract][metadata]") {
  KernelMetadata want = everyRole();
  std::string text = writeMetadata(want);
  Expected<KernelMetadata> got = readMetadata(text, "t.json");
  REQUIRE(got);
  CHECK(got->origin == "t.json");
  CHECK(got->version == kMetadataVersion);
  CHECK(got->entry == "k");
  CHECK(got->threadsPerCta() == 256);
  CHECK(got->sourceSha256 == want.sourceSha256);
  CHECK(got->maxCtas == want.maxCtas);
  CHECK(got->defaultTimeoutMs == want.defaultTimeoutMs);
  CHECK(got->constants == want.constants);
  REQUIRE(got->tunables.size() == 3);
  CHECK(got->tunables[0].kind == Tunable::Kind::BlockSize);
  CHECK(got->tunables[0].value == 1024);
  CHECK(got->tunables[0].max == kMaxBlockSize);
  CHECK(got->tunables[0].extent == 5000);
  CHECK(got->tunables[1].extent == 0);
  CHECK(got->tunables[0].tilesGrid);
  CHECK(!got->tunables[1].tilesGrid);
  CHECK(got->tunables[2].kind == Tunable::Kind::LoadEviction);
  CHECK(got->tunables[2].index == 5); // the kernel's loads
  CHECK(got->tunables[2].value == 2);
  REQUIRE(got->args.size() == want.args.size());
  for (size_t i = 0; i < want.args.size(); ++i) {
    INFO(want.args[i].name);
    CHECK(got->args[i].name == want.args[i].name);
    CHECK(got->args[i].kind == want.args[i].kind);
    CHECK(got->args[i].role == want.args[i].role);
    CHECK(got->args[i].access == want.args[i].access);
    CHECK(got->args[i].dtype == want.args[i].dtype);
    CHECK(got->args[i].rank == want.args[i].rank);
    CHECK(got->args[i].symmetric == want.args[i].symmetric);
    CHECK(got->args[i].implicit == want.args[i].implicit);
    CHECK(got->args[i].peerTableFor == want.args[i].peerTableFor);
    CHECK(got->args[i].packets == want.args[i].packets);
    CHECK(got->args[i].isOutput == want.args[i].isOutput);
    CHECK(got->args[i].like == want.args[i].like);
    CHECK(got->args[i].zeroed == want.args[i].zeroed);
  }
  REQUIRE(got->constexprs.size() == 2);
  CHECK(got->constexprs[0].value == std::optional<std::string>("1"));
  CHECK_FALSE(got->constexprs[1].value);
  REQUIRE(got->grid.size() == 3);
  CHECK(got->grid[0].param == std::optional<std::string>("a"));
  CHECK(got->grid[0].add == 1);
  CHECK(got->grid[0].div == 2);
  CHECK(got->grid[1].scalar == std::optional<std::string>("n"));
  CHECK(got->grid[2].constant == std::optional<int64_t>(3));
  REQUIRE(got->constraints.size() == 2);
  CHECK(got->constraints[1].isNumTiles());
  REQUIRE(got->abi.size() == want.abi.size());
  for (size_t i = 0; i < want.abi.size(); ++i) {
    CHECK(got->abi[i].name == want.abi[i].name);
    CHECK(got->abi[i].kind == want.abi[i].kind);
    CHECK(got->abi[i].type == want.abi[i].type);
    CHECK(got->abi[i].dim == want.abi[i].dim);
    CHECK(got->abi[i].arg ==
          (isHidden(want.abi[i].kind) ? -1 : got->findArg(want.abi[i].param)));
  }
  CHECK(got->returns == want.returns);
  // Writing what was read gives the same file.
  CHECK(writeMetadata(*got) == text);
}

TEST_CASE("metadata: every role has one spelling", "[contract][metadata]") {
  for (Role r : {Role::Input, Role::Output, Role::InOut, Role::Scratch,
                 Role::SignalPad, Role::PeerTable, Role::Scalar,
                 Role::Constexpr, Role::Unused, Role::Peers}) {
    INFO(roleName(r));
    CHECK(parseRole(roleName(r)) == r);
  }
  CHECK_FALSE(parseRole("pad"));
  // A parameter's role is never the implicit peer table of a symmetric one.
  CHECK(readError(edited("\"role\": \"unused\"", "\"role\": \"peers\"")) ==
        "metadata t.json: params[6] 'sizes_only': unknown role 'peers' "
        "(input, output, inout, scratch, signal_pad, peer_table, scalar, "
        "constexpr or unused)");
}

TEST_CASE("metadata: another version is refused, naming both versions and "
          "the file",
          "[contract][metadata]") {
  for (int v : {1, 3}) {
    std::string text =
        edited("\"version\": 2", "\"version\": " + std::to_string(v));
    CHECK(readError(text) ==
          "metadata t.json: version " + std::to_string(v) +
              " is not supported: this build reads version 2 (compile the "
              "kernel again with this dslc)");
  }
  CHECK(readError(edited("\"dslc-kernel\"", "\"other\"")) ==
        "metadata t.json: format is 'other', expected 'dslc-kernel'");
}

TEST_CASE("metadata: roles must agree with what the kernel does",
          "[contract][metadata]") {
  CHECK(readError(edited("\"role\": \"input\"", "\"role\": \"inout\"")) ==
        "metadata t.json: params[2] 'a': role 'inout' needs access "
        "'readwrite', not 'read'");
  CHECK(readError(edited("\"peer_table_for\": \"pad\"",
                         "\"peer_table_for\": \"pad_ptrs\"")) ==
        "metadata t.json: params 'pad_ptrs': peer_table_for 'pad_ptrs' names "
        "no other tensor argument");
  CHECK(readError(edited("\"role\": \"signal_pad\"",
                         "\"role\": \"signal_pad\", \"peer_table_for\": "
                         "\"a\"")) ==
        "metadata t.json: params[1] 'pad': 'peer_table_for' needs role "
        "'peer_table'");
  CHECK(readError(edited("\"packets\"", "\"packetz\"")) ==
        "metadata t.json: params[3] 'scratch': missing field 'packets'");
  CHECK(readError(edited("\"dtype\": \"uint64\"", "\"dtype\": \"int64\"")) ==
        "metadata t.json: params[0] 'pad_ptrs': a peer table must be a "
        "uint64 tensor of rank 1");
  CHECK(readError(edited("\"role\": \"scalar\",\n      \"dtype\": "
                         "\"float32\"",
                         "\"role\": \"scalar\",\n      \"dtype\": "
                         "\"float64\"")) ==
        "metadata t.json: params[8] 'alpha': a scalar is int64 or float32 "
        "(the ABI passes i64 and f32), not float64");
}

TEST_CASE("metadata: a dim order permutes a tensor's dimensions",
          "[contract][metadata]") {
  std::string text =
      edited("\"role\": \"input\"", "\"role\": \"input\", \"dim_order\": [0]");
  Expected<KernelMetadata> md = readMetadata(text, "t.json");
  REQUIRE(md);
  CHECK(md->args[2].dimOrder == std::vector<unsigned>{0});
  // Written back as read.
  CHECK(writeMetadata(*md).find("\"dim_order\": [\n") != std::string::npos);
  CHECK(readError(edited("\"role\": \"input\"",
                         "\"role\": \"input\", \"dim_order\": [1]")) ==
        "metadata t.json: params[2] 'a': dim_order is not a permutation of "
        "the 1 dimensions");
  CHECK(readError(edited("\"role\": \"input\"",
                         "\"role\": \"input\", \"dim_order\": [0, 0]")) ==
        "metadata t.json: params[2] 'a': dim_order is not a permutation of "
        "the 1 dimensions");
}

TEST_CASE("metadata: only a signal pad that a peer table lists is implicit",
          "[contract][metadata]") {
  CHECK(readError(edited("\"role\": \"input\"",
                         "\"role\": \"input\", \"implicit\": true")) ==
        "metadata t.json: params[2] 'a': only a signal pad can be implicit "
        "(the local pad of a peer table passed to symm_mem_sync), not role "
        "'input'");
  CHECK(readError(edited("\"peer_table_for\": \"pad\"",
                         "\"peer_table_for\": \"staging\"")) ==
        "metadata t.json: params 'pad': an implicit signal pad must be listed "
        "by a peer table (peer_table_for), whose caller binds the pad with "
        "it");
  CHECK(readError(edited("\"implicit\": true", "\"implicit\": 1")) ==
        "metadata t.json: params[1] 'pad': field 'implicit' must be a "
        "boolean");
}

TEST_CASE("metadata: the ABI slots are checked against the parameters",
          "[contract][metadata]") {
  CHECK(readError(edited("\"kind\": \"size\",\n      \"param\": \"pad\",\n"
                         "      \"dim\": 1",
                         "\"kind\": \"size\",\n      \"param\": \"pad\",\n"
                         "      \"dim\": 2")) ==
        "metadata t.json: abi[4] 'pad.size1': dimension 2 but 'pad' has "
        "rank 2");
  CHECK(readError(edited("\"name\": \"a.peers\",\n      \"type\": \"ptr\"",
                         "\"name\": \"a.peers\",\n      \"type\": \"i64\"")) ==
        "metadata t.json: abi[7] 'a.peers': type is 'i64', expected 'ptr'");
  CHECK(readError(edited("\"param\": \"n\"", "\"param\": \"m\"")) ==
        "metadata t.json: abi[18] 'n': names no parameter or output ('m')");
  CHECK(readError(edited("\"name\": \"__dslc_state\"",
                         "\"name\": \"__dslc_stat\"")) ==
        "metadata t.json: abi[24] '__dslc_stat': a slot of kind 'state' must "
        "be named '__dslc_state'");
  CHECK(readError(edited("\"kind\": \"state\"", "\"kind\": \"error\"")) ==
        "metadata t.json: abi[24] '__dslc_state': a slot of kind 'error' "
        "must be named '__dslc_error'");
  CHECK(readError(edited("\"name\": \"a.peers\",\n      \"type\": \"ptr\",\n"
                         "      \"kind\": \"peers\"",
                         "\"name\": \"a.size0\",\n      \"type\": \"i64\",\n"
                         "      \"kind\": \"size\", \"dim\": 0")) ==
        "metadata t.json: abi[7]: duplicate slot 'a.size0'");
  KernelMetadata md = everyRole();
  md.abi.erase(md.abi.begin() + 3); // pad.size0
  Expected<KernelMetadata> r = readMetadata(writeMetadata(md), "t.json");
  REQUIRE_FALSE(r);
  CHECK(r.error() == "metadata t.json: abi has no slot for size 0 of 'pad' "
                     "(expected 'pad.size0')");
  md = everyRole();
  md.abi.pop_back();
  r = readMetadata(writeMetadata(md), "t.json");
  REQUIRE_FALSE(r);
  CHECK(r.error() == "metadata t.json: abi lacks the hidden slot "
                     "'__dslc_state'");
}

TEST_CASE("metadata: malformed files name the field", "[contract][metadata]") {
  CHECK(readError("[1]") == "metadata t.json: top level is not an object");
  CHECK_THAT(readError("{"), Catch::StartsWith("metadata t.json: not valid "
                                               "JSON"));
  CHECK(readError(edited("\"num_warps\": 8", "\"num_warps\": 64")) ==
        "metadata t.json: num_warps 64 is outside 1..32");
  CHECK(readError(
            edited("\"threads_per_cta\": 256", "\"threads_per_cta\": 512")) ==
        "metadata t.json: threads_per_cta 512 is not 32 x num_warps 8");
  CHECK(readError(edited("\"rank\": 1,", "\"rank\": 2,")) ==
        "metadata t.json: rank 2 is outside the world size");
  CHECK(readError(edited("\"op\": \"==\"", "\"op\": \"~\"")) ==
        "metadata t.json: constraints[0]: unknown op '~'");
  CHECK(readError(edited("\"div\": 2", "\"div\": 0")) ==
        "metadata t.json: grid.tiles[0]: extent: div 0 is not positive");
  CHECK(readError(edited("\"value\": 1024", "\"value\": 2097152")) ==
        "metadata t.json: tunables[0]: block_sizes[0] 2097152 is outside "
        "1..1048576");
  CHECK(readError(edited("\"loads\": 5", "\"loads\": 0")) ==
        "metadata t.json: tunables[2]: field 'loads' 0 is outside 1..4096");
  CHECK(readError(edited("\"grid\": true", "\"grid\": 1")) ==
        "metadata t.json: tunables[0]: field 'grid' must be a boolean");
  CHECK(readError(edited("\"dtype\": \"int32\"", "\"dtype\": \"complex\"")) ==
        "metadata t.json: params[1] 'pad': unknown dtype 'complex'");
}

TEST_CASE("metadata: what a kernel returns names its tensors",
          "[contract][metadata]") {
  CHECK(readError(edited("\"values\": [\n      \"out\"",
                         "\"values\": [\n      \"nope\"")) ==
        "metadata t.json: returns.values[0]: 'nope' is not a tensor "
        "argument");
  CHECK(readError(edited("\"values\": [\n      \"out\"",
                         "\"values\": [\n      \"n\"")) ==
        "metadata t.json: returns.values[0]: 'n' is not a tensor argument");
  CHECK(readError(edited("\"tuple\": true", "\"tuple\": false")) ==
        "metadata t.json: returns: 3 values, but 'tuple' is false (one "
        "value)");
  CHECK(readError(
            edited("\"values\": [\n      \"out\"", "\"values\": [\n      7")) ==
        "metadata t.json: returns.values[0]: not a tensor argument's name or "
        "null");
  // A returned view: one size at most to infer, a tensor to view, one
  // view per value; its sizes are extents (their names checked).
  auto viewError = [](auto edit) {
    KernelMetadata md = everyRole();
    edit(*md.returns);
    return readError(writeMetadata(md));
  };
  CHECK(viewError([](Returns &r) { r.views[2] = {ViewDim{}, ViewDim{}}; }) ==
        "metadata t.json: returns.views[2]: more than one size to infer");
  CHECK(viewError([](Returns &r) { r.views[1] = r.views[2]; }) ==
        "metadata t.json: returns.views[1]: a view of no tensor (its value "
        "is null)");
  CHECK(viewError([](Returns &r) { r.views.pop_back(); }) ==
        "metadata t.json: returns: 2 views for 3 values");
  CHECK(viewError([](Returns &r) { r.views[2][2].size->param = "nope"; }) ==
        "metadata t.json: returns.views[2]: 'nope' is not a tensor argument");
  // No return statement: no "returns".
  KernelMetadata none = everyRole();
  none.returns.reset();
  std::string text = writeMetadata(none);
  CHECK(text.find("\"returns\"") == std::string::npos);
  Expected<KernelMetadata> got = readMetadata(text, "t.json");
  REQUIRE(got);
  CHECK_FALSE(got->returns);
}

TEST_CASE("metadata: unknown keys are ignored", "[contract][metadata]") {
  std::string text =
      edited("\"kernel\": \"k\"", "\"kernel\": \"k\", \"future\": {\"x\": 1}");
  CHECK(readMetadata(text, "t.json"));
}

TEST_CASE("metadata: same_sizes rules keep what the kernel asserts",
          "[contract][metadata]") {
  KernelMetadata md = everyRole();
  SameSize tile{"w", 0, "a", 0, "k.py:9:5"};
  SameSize asserted{"staging", 1, "a", 0, "k.py:4:5"};
  asserted.asserted = true;
  asserted.relation = SameSize::Relation::Ge;
  md.sameSizes = {tile, asserted};
  Expected<KernelMetadata> got = readMetadata(writeMetadata(md), "t.json");
  REQUIRE(got);
  REQUIRE(got->sameSizes.size() == 2);
  CHECK(got->sameSizes[0] == tile);
  CHECK_FALSE(got->sameSizes[0].asserted);
  CHECK(got->sameSizes[1] == asserted);
  CHECK(got->sameSizes[1].asserted);
  CHECK(got->sameSizes[0].samePair(SameSize{"a", 0, "w", 0, ""}));
  // Each relation holds or says why not, naming the assert.
  const SameSize &ge = got->sameSizes[1];
  CHECK(ge.problem(8, 8).empty());
  CHECK(ge.problem(9, 8).empty());
  CHECK(ge.problem(7, 8) ==
        "'staging' dim 1 is 7, but 'a' dim 0 is 8: the kernel asserts the "
        "first is at least the second (at k.py:4:5)");
  SameSize gt = ge;
  gt.relation = SameSize::Relation::Gt;
  CHECK_FALSE(gt.problem(8, 8).empty());
  CHECK(tile.problem(3, 4) ==
        "'w' dim 0 is 3, but 'a' dim 0 is 4: the kernel indexes both with "
        "one tile (at k.py:9:5), so their sizes must be equal");
  std::string bad = writeMetadata(md);
  std::string relation = "\"relation\": \">=\"";
  REQUIRE(bad.find(relation) != std::string::npos);
  bad.replace(bad.find(relation), relation.size(), "\"relation\": \"!=\"");
  Expected<KernelMetadata> refused = readMetadata(bad, "t.json");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().find("relation '!=' is not ==, >= or >") !=
        std::string::npos);
}
