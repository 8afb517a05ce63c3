//===- CandidatesManifestTest.cpp - The tuner's manifest.json -------------===//
#include "contract/Candidates.h"

#include <catch2/catch.hpp>

using namespace dslc::contract;

namespace {
CandidatesManifest manifest() {
  CandidatesManifest m;
  m.collective = "all_reduce";
  m.worldSize = 2;
  m.dtype = "bfloat16";
  CandidateKernel k;
  k.name = "ll";
  k.file = "examples/ll.py";
  k.sha256 = std::string(64, 'b');
  k.tunables = {Tunable::blockSize(0, 1024), Tunable::numWarps(4)};
  k.spins = true;
  k.floatParams = {{"a", 1}, {"out", 2}};
  k.space = {{Tunable::blockSize(0, 1024), {512, 1024, 2048}, 1},
             {Tunable::numWarps(4), {4, 8}, 0},
             {Tunable::maxCtas(0), {0, 8}, 0},
             {Tunable::loadEvictionOf(2, 1, 0), {0, 1, 2}, 0, true}};
  m.kernels = {k};
  m.set = CandidatesManifest::setKey(m.kernels, "");
  CompiledCandidate ok{0, {}, "ll/bs512_w4/k.r{rank}.cubin", true, ""};
  ok.config.blockSizes = {512};
  ok.config.numWarps = 4;
  CompiledCandidate bad = ok;
  bad.config.blockSizes = {2048};
  bad.cubin = "ll/bs2048_w4/k.r{rank}.cubin";
  bad.ok = false;
  bad.reason = "dslc failed for rank 1 (status 1): too big";
  m.compiled = {ok, bad};
  return m;
}
} // namespace

TEST_CASE("manifest: written and read back", "[contract][manifest]") {
  CandidatesManifest m = manifest();
  CHECK(m.set == std::string(64, 'b') + ":ll");
  std::string text = writeCandidatesManifest(m);
  Expected<CandidatesManifest> back = readCandidatesManifest(text, "d/m.json");
  REQUIRE(back);
  REQUIRE(back->kernels.size() == 1);
  const CandidateKernel &k = back->kernels[0];
  CHECK(k.signature("float32") == "a=float32[1],out=float32[2]");
  REQUIRE(k.space.size() == 4);
  CHECK(k.space[0].tunable.kind == Tunable::Kind::BlockSize);
  CHECK(k.space[0].values == std::vector<int64_t>{512, 1024, 2048});
  CHECK(k.space[0].defaultIndex == 1);
  CHECK(k.space[2].tunable.kind == Tunable::Kind::MaxCtas);
  CHECK_FALSE(k.space[2].searchOnly);
  // A load's cache hint: which load, of how many, and search-only.
  CHECK(k.space[3].tunable.kind == Tunable::Kind::LoadEviction);
  CHECK(k.space[3].tunable.load == 1);
  CHECK(k.space[3].tunable.index == 2);
  CHECK(k.space[3].searchOnly);
  REQUIRE(back->compiled.size() == 2);
  CHECK(back->compiled[1].reason == m.compiled[1].reason);
  KernelConfig want = m.compiled[0].config;
  want.maxCtas = 16; // the grid cap needs no compile of its own
  REQUIRE(back->find(0, want));
  CHECK(back->find(0, want)->cubin == "ll/bs512_w4/k.r{rank}.cubin");
  CHECK(writeCandidatesManifest(*back) == text);
}

TEST_CASE("manifest: errors name the file and the field",
          "[contract][manifest]") {
  auto error = [](std::string text) {
    Expected<CandidatesManifest> m = readCandidatesManifest(text, "d/m.json");
    REQUIRE_FALSE(m);
    return m.error();
  };
  std::string text = writeCandidatesManifest(manifest());
  auto edited = [&](const std::string &from, const std::string &to) {
    std::string t = text;
    size_t at = t.find(from);
    REQUIRE(at != std::string::npos);
    return t.replace(at, from.size(), to);
  };
  CHECK(error("{}") == "d/m.json: format is not 'dslc-tuner-candidates' (not "
                       "made by tuner compile?)");
  CHECK(error(edited("\"version\": 2", "\"version\": 1")) ==
        "d/m.json: version 1 is not supported: this build reads version 2 "
        "(run tuner compile again)");
  CHECK(error(edited("\"kernel\": \"ll\"", "\"kernel\": \"other\"")) ==
        "d/m.json: compiled[0]: compiled entry for unknown kernel 'other'");
  CHECK(error(edited("\"default\": 1", "\"default\": 3")) ==
        "d/m.json: kernels[0]: space[0]: default index 3 is outside its 3 "
        "values");
  CHECK(error(edited("\"load\": 1", "\"load\": 2")) ==
        "d/m.json: kernels[0]: space[3]: tunable: field 'load' 2 is outside "
        "0..1");
}

TEST_CASE("manifest: kernels checked against a reference",
          "[contract][manifest]") {
  CandidatesManifest m = manifest();
  m.collective = "";
  m.reference = "ref.py:fused_ref";
  m.referenceCubin = "reference/ref.cubin";
  std::string text = writeCandidatesManifest(m);
  Expected<CandidatesManifest> back = readCandidatesManifest(text, "m.json");
  REQUIRE(back);
  CHECK(back->collective.empty());
  CHECK(back->reference == "ref.py:fused_ref");
  CHECK(back->referenceCubin == "reference/ref.cubin");
  CHECK(writeCandidatesManifest(*back) == text);
  // Neither a collective nor a reference: nothing could check the results.
  m.reference.clear();
  m.referenceCubin.clear();
  CHECK(readCandidatesManifest(writeCandidatesManifest(m), "m.json").error() ==
        "m.json: names neither a collective nor a reference");
}

TEST_CASE("manifest: choices across nodes (hierarchy)",
          "[contract][manifest]") {
  CandidatesManifest m = manifest();
  CHECK(writeCandidatesManifest(m).find("hierarchy") == std::string::npos);
  m.hierarchy = {{4, 10, true, 21.5, 30.0}, {4, 24, false, 900, 640}};
  std::string text = writeCandidatesManifest(m);
  Expected<CandidatesManifest> back = readCandidatesManifest(text, "d/m.json");
  REQUIRE(back);
  REQUIRE(back->hierarchy.size() == 2);
  const HierarchyRecord *small = back->findHierarchy(4, 10);
  REQUIRE(small);
  CHECK(small->hierarchical);
  CHECK(small->hierarchicalUs == 21.5);
  CHECK(small->ncclUs == 30.0);
  REQUIRE(back->findHierarchy(4, 24));
  CHECK_FALSE(back->findHierarchy(4, 24)->hierarchical);
  CHECK_FALSE(back->findHierarchy(8, 10));
  CHECK(writeCandidatesManifest(*back) == text);

  auto fails = [&](const std::string &from, const std::string &to) {
    std::string t = text;
    size_t at = t.find(from);
    REQUIRE(at != std::string::npos);
    t.replace(at, from.size(), to);
    Expected<CandidatesManifest> r = readCandidatesManifest(t, "d/m.json");
    REQUIRE_FALSE(r);
    return r.error();
  };
  CHECK(fails("\"path\": \"nccl\"", "\"path\": \"ring\"") ==
        "d/m.json: hierarchy[1]: path 'ring' is neither 'hierarchical' nor "
        "'nccl'");
  CHECK(fails("\"world_size\": 4", "\"world_size\": 3") ==
        "d/m.json: hierarchy[0]: world_size 3 is not a multiple (> 1) of the "
        "manifest's world size 2 (the size of a node)");
}
