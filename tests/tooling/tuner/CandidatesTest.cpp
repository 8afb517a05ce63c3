//===- CandidatesTest.cpp - Compiling candidates and the manifest ---------===//
//
// With a fake dslc (a shell script that writes a fixed metadata file and
// fails on one config) the compile phase, its skip reasons and the manifest
// round trip run everywhere; with the real dslc (this build's, or
// $DSLC_TEST_DSLC, or build/bin/dslc of the source tree) one small space of
// examples/ll_one_shot_all_reduce.py is compiled for real.
//
//===----------------------------------------------------------------------===//
#include "tooling/tuner/Candidates.h"
#include "contract/MetadataJson.h"
#include "runtime/Kernel.h"
#include "runtime/Metadata.h"
#include "tests/contract/AbiLayout.h"
#include "tooling/tuner/Session.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

using namespace dslc;
using namespace dslc::tune;

namespace {
/// What dslc writes for the LL one-shot example (block 2048, 8 warps), as
/// the contract writes it.
std::string llMetadata() {
  using namespace dslc::contract;
  KernelMetadata md;
  md.kernel = "ll_one_shot_all_reduce_kernel";
  md.sourceFile = "fake.py";
  md.sourceLine = 28;
  md.sourceSha256 = std::string(32, 'a') + std::string(32, 'b');
  md.arch = "sm_90";
  md.numWarps = 8;
  md.spins = true;
  md.stateBytes = 16384;
  md.maxCtas = 4096;
  md.worldSize = 2;
  md.rank = 0;
  md.tunables = {Tunable::blockSize(0, 2048), Tunable::numWarps(8)};
  GridExtent g;
  g.param = "a";
  g.block = 2048;
  md.grid = {g};
  ArgSpec a;
  a.name = "a";
  a.dtype = DType::BFloat16;
  a.rank = 1;
  a.role = Role::Input;
  a.access = Access::Read;
  ArgSpec scratch = a;
  scratch.name = "scratch";
  scratch.dtype = DType::Int64;
  scratch.symmetric = true;
  scratch.role = Role::Scratch;
  scratch.access = Access::ReadWrite;
  scratch.packets = {1, 8192};
  md.args = {a, scratch, ArgSpec::output("out", DType::BFloat16, 1, "a")};
  md.abi = dslc::test::abiLayout(md);
  return writeMetadata(md);
}

std::string tempDir() {
  char tmpl[] = "/tmp/dslc-tuner-test-XXXXXX";
  REQUIRE(mkdtemp(tmpl));
  return tmpl;
}

/// A dslc stand-in: writes OUT and OUT.json; before that, runs the shell
/// `case "$cfg" in ...` arms `arms` on the --config it was given (by
/// default: fails for num_warps 8).
std::string fakeDslc(const std::string &dir,
                     const std::string &arms =
                         "*'\"num_warps\":8'*) echo 'error: planted' >&2; "
                         "exit 1;;") {
  std::string meta = dir + "/meta.json";
  std::ofstream(meta) << llMetadata();
  std::string path = dir + "/fake-dslc.sh";
  std::ofstream f(path);
  f << "#!/bin/sh\n"
       "out=; cfg=\n"
       "while [ $# -gt 0 ]; do case \"$1\" in -o) out=$2; shift;; "
       "--config) cfg=$2; shift;; esac; shift; done\n"
       "case \"$cfg\" in "
    << arms
    << " esac\n"
       "echo cubin > \"$out\"; cp "
    << meta << " \"$out.json\"\n";
  f.close();
  REQUIRE(chmod(path.c_str(), 0755) == 0);
  return path;
}

std::string realDslc() {
  if (const char *e = std::getenv("DSLC_TEST_DSLC"))
    return e;
#ifdef DSLC_TEST_DSLC
  return DSLC_TEST_DSLC;
#else
  std::string p = std::string(DSLC_TEST_SOURCE_DIR) + "/build/bin/dslc";
  return access(p.c_str(), X_OK) == 0 ? p : "";
#endif
}
} // namespace

TEST_CASE("dslc argument vectors", "[tuner]") {
  KernelConfig c;
  c.blockSizes = {2048};
  c.numWarps = 8;
  c.maxCtas = 16;
  c.named["unroll"] = 4;
  std::vector<std::string> argv =
      dslcCompile("/b/dslc", "ex 1.py", "k", 1, 2, &c, "a=float32[1]",
                  "/o/k.r1.cubin", {"--x=y"})
          .argv();
  CHECK(argv ==
        std::vector<std::string>{"/b/dslc", "ex 1.py", "-k", "k", "--rank", "1",
                                 "--world-size", "2", "--emit=cubin", "-o",
                                 "/o/k.r1.cubin", "--config",
                                 "{\"block_sizes\":[2048],\"num_warps\":8,"
                                 "\"tunables\":{\"unroll\":4}}",
                                 "--signature", "a=float32[1]", "--x=y"});
}

TEST_CASE("cache keys of kernels and sets", "[tuner]") {
  KernelInfo a{"ka", "f.py", std::string(64, 'a'), {}, false, {}, {}};
  KernelInfo b{"kb", "f.py", std::string(64, 'b'), {}, false, {}, {}};
  CHECK(Manifest::setKey({a}, "") == std::string(64, 'a') + ":ka");
  CHECK(Manifest::setKey({a, b}, "") == "set:ka@aaaaaaaaaaaa+kb@bbbbbbbbbbbb");
  CHECK(Manifest::setKey({a, b}, "ar") == "set:ar");
  KernelInfo f{"k", "", "", {}, false, {{"a", 1}, {"out", 2}}, {}};
  CHECK(f.signature("float32") == "a=float32[1],out=float32[2]");
}

TEST_CASE("compile: candidates, skips with reasons, manifest round trip",
          "[tuner]") {
  std::string dir = tempDir();
  CompileOptions o;
  o.dslc = fakeDslc(dir);
  o.jobs = 2;
  o.space.blockDown = 1;
  o.space.blockUp = 1;
  o.space.warps = {4, 8};
  o.space.ctaCaps = {0, 16};
  std::vector<std::string> logs;
  o.log = [&](const std::string &s) { logs.push_back(s); };
  Manifest m = compileCandidates("fake.py", {"ll_one_shot_all_reduce_kernel"},
                                 "all_reduce", 2, "bfloat16", dir + "/c", o);
  REQUIRE(m.kernels.size() == 1);
  // From the probe's metadata, read once by the runtime's reader.
  CHECK(m.kernels[0].sha256 == std::string(32, 'a') + std::string(32, 'b'));
  REQUIRE(m.kernels[0].tunables.size() == 2);
  CHECK(m.kernels[0].tunables[0].kind == Tunable::Kind::BlockSize);
  CHECK(m.kernels[0].tunables[0].value == 2048);
  CHECK(m.kernels[0].spins);
  CHECK(m.set == m.kernels[0].sha256 + ":ll_one_shot_all_reduce_kernel");
  REQUIRE(m.kernels[0].floatParams.size() == 1);
  CHECK(m.kernels[0].floatParams[0].first == "a");
  // The probe's tunables: block 2048 (fixture), warps 8.
  // Blocks 1024, 2048, 4096 x warps 4, 8 (8 fails) = 6 compiles.
  CHECK(m.compiled.size() == 6);
  int ok = 0;
  for (const auto &c : m.compiled) {
    if (c.config.numWarps == 8) {
      CHECK_FALSE(c.ok);
      CHECK(c.reason.find("planted") != std::string::npos);
    } else {
      CHECK(c.ok);
      ++ok;
      CHECK(access((dir + "/c/" + rt::expandRankPattern(c.cubin, 1)).c_str(),
                   R_OK) == 0);
    }
  }
  CHECK(ok == 3);
  CHECK(logs.size() >= 4); // the kernel line and three skips

  Manifest back = loadManifest(dir + "/c");
  CHECK(back.set == m.set);
  CHECK(back.compiled.size() == m.compiled.size());
  REQUIRE(back.spaces.size() == 1);
  CHECK(back.spaces[0].points().size() == m.spaces[0].points().size());
  CHECK(back.kernels[0].floatParams == m.kernels[0].floatParams);
  KernelConfig want;
  want.blockSizes = {4096};
  want.numWarps = 4;
  want.maxCtas = 16; // the cap does not change the compile
  const CompiledCandidate *cc = back.find(0, want);
  REQUIRE(cc);
  CHECK(cc->ok);
  CHECK(cc->cubin == "ll_one_shot_all_reduce_kernel/bs4096_w4/k.r{rank}.cubin");
  std::system(("rm -rf '" + dir + "'").c_str());
}

TEST_CASE("compile: a candidate past its bound is skipped, the default is "
          "not",
          "[tuner]") {
  // Under a search's time budget a candidate other than the default gets
  // candidateTimeoutS; the default (block 2048, 8 warps) compiles in full.
  std::string dir = tempDir();
  std::string fake = fakeDslc(dir, "*'[4096]'*|*'[2048]'*) sleep 2;;");
  CompileOptions o;
  o.dslc = fake;
  o.jobs = 3;
  o.space.blockDown = 1;
  o.space.blockUp = 1;
  o.space.warps = {8};
  o.space.ctaCaps = {0};
  o.candidateTimeoutS = 0.5;
  auto start = std::chrono::steady_clock::now();
  Manifest m = compileCandidates("fake.py", {"ll_one_shot_all_reduce_kernel"},
                                 "all_reduce", 2, "bfloat16", dir + "/c", o);
  double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  REQUIRE(m.compiled.size() == 3); // blocks 1024, 2048, 4096 at 8 warps
  for (const CompiledCandidate &c : m.compiled) {
    INFO(c.config.brief() << ": " << c.reason);
    int64_t b = c.config.blockSizes.at(0);
    CHECK(c.ok == (b != 4096)); // 2048 is slow too, but the default
    if (b == 4096)
      CHECK(c.reason.find("more than 0.5 s") != std::string::npos);
  }
  CHECK(secs < 10);
  std::system(("rm -rf '" + dir + "'").c_str());
}

TEST_CASE("candidate directories: one per compiled config", "[tuner]") {
  // Every key dslc compiles differently has its own directory; configs
  // that shared one (reduction_loops, engine, stages, L2 groups were once
  // left out of the name) had one config's cubin measured under another's.
  KernelConfig base;
  base.blockSizes = {4};
  base.numWarps = 16;
  std::vector<KernelConfig> configs(6, base);
  configs[1].reductionLoops = {2048};
  configs[2].reductionLoops = {1024};
  configs[3].dotEngine = contract::DotEngine::Wgmma;
  configs[4].numStages = 4;
  configs[5].l2Grouping = 8;
  std::set<std::string> names;
  for (const KernelConfig &c : configs)
    names.insert(candidateDirName(c));
  CHECK(names.size() == configs.size());
  CHECK(candidateDirName(configs[1]) == "bs4_w16_rl2048");
  // Whole rows (0) compile as no reduction_loops at all; a cap on the
  // CTAs is applied at launch: the same cubin.
  KernelConfig whole = base, capped = base;
  whole.reductionLoops = {0};
  capped.maxCtas = 16;
  CHECK(candidateDirName(whole) == candidateDirName(base));
  CHECK(candidateDirName(capped) == "bs4_w16");
}

TEST_CASE("candidate code keys: one measurement per compiled code", "[tuner]") {
  // Configs whose cubins and metadata are the same but for the tunables
  // (the config as written: stages PipelineDots cut to what fits) share a
  // key; other code, other launch metadata or a missing file do not.
  std::string dir = tempDir();
  Manifest m;
  m.dir = dir;
  m.worldSize = 2;
  auto write = [&](const std::string &sub, const std::string &code,
                   const std::string &md) {
    std::system(("mkdir -p '" + dir + "/" + sub + "'").c_str());
    for (int r = 0; r < 2; ++r) {
      std::string base = dir + "/" + sub + "/k.r" + std::to_string(r);
      std::ofstream(base + ".cubin") << code << r;
      std::ofstream(base + ".cubin.json") << md;
    }
    CompiledCandidate c;
    c.cubin = sub + "/k.r{rank}.cubin";
    c.ok = true;
    return c;
  };
  CompiledCandidate st4 =
      write("st4", "CODE",
            R"({"num_warps":8,"tunables":[{"kind":"num_stages","value":4}]})");
  CompiledCandidate st8 =
      write("st8", "CODE",
            R"({"num_warps":8,"tunables":[{"kind":"num_stages","value":8}]})");
  CompiledCandidate other =
      write("other", "CODE2",
            R"({"num_warps":8,"tunables":[{"kind":"num_stages","value":4}]})");
  CompiledCandidate launch =
      write("launch", "CODE",
            R"({"num_warps":4,"tunables":[{"kind":"num_stages","value":4}]})");
  std::string k4 = candidateCodeKey(m, st4);
  CHECK_FALSE(k4.empty());
  CHECK(candidateCodeKey(m, st8) == k4);
  CHECK(candidateCodeKey(m, other) != k4);
  CHECK(candidateCodeKey(m, launch) != k4);
  std::system(("rm '" + dir + "/st8/k.r1.cubin'").c_str());
  CHECK(candidateCodeKey(m, st8).empty()); // a rank's cubin is missing
  std::system(("rm -rf '" + dir + "'").c_str());
}

TEST_CASE("compile: a kernel whose default does not compile is an error",
          "[tuner]") {
  std::string dir = tempDir();
  CompileOptions o;
  o.dslc = "/bin/false";
  CHECK_THROWS_WITH(compileCandidates("x.py", {"nope"}, "all_reduce", 2,
                                      "bfloat16", dir + "/c", o),
                    Catch::Contains("kernel nope: its default config does not "
                                    "compile"));
  std::system(("rm -rf '" + dir + "'").c_str());
}

TEST_CASE("manifest: damaged files are errors naming the file", "[tuner]") {
  std::string dir = tempDir();
  CHECK_THROWS(loadManifest(dir));
  std::ofstream(dir + "/manifest.json") << "{\"format\":\"other\"}";
  CHECK_THROWS_WITH(loadManifest(dir), Catch::Contains("format is not"));
  std::ofstream(dir + "/manifest.json")
      << "{\"format\":\"dslc-tuner-candidates\",\"collective\":1}";
  CHECK_THROWS_WITH(loadManifest(dir), Catch::Contains("manifest.json"));
  std::system(("rm -rf '" + dir + "'").c_str());
}

TEST_CASE("compile: the LL example with the real dslc", "[tuner][dslc]") {
  std::string dslc = realDslc();
  if (dslc.empty()) {
    WARN("SKIPPED: no dslc (set DSLC_TEST_DSLC)");
    return;
  }
  std::string dir = tempDir();
  CompileOptions o;
  o.dslc = dslc;
  o.jobs = 2;
  o.space.blockDown = 1;
  o.space.blockUp = 0;
  o.space.warps = {4};
  o.space.ctaCaps = {0, 8};
  Manifest m = compileCandidates(std::string(DSLC_TEST_SOURCE_DIR) +
                                     "/examples/ll_one_shot_all_reduce.py",
                                 {"ll_one_shot_all_reduce_kernel"},
                                 "all_reduce", 2, "float32", dir + "/c", o);
  REQUIRE(m.compiled.size() == 2); // blocks 512, 1024 at 4 warps
  for (const auto &c : m.compiled) {
    INFO(c.reason);
    CHECK(c.ok);
    for (int r = 0; r < 2; ++r) {
      rt::KernelMetadata md = rt::loadMetadataFile(
          dir + "/c/" + rt::expandRankPattern(c.cubin, r) + ".json");
      CHECK(md.rank == r);
      CHECK(md.numWarps == 4);
      CHECK(md.grid[0].block == c.config.blockSizes[0]);
      CHECK(md.tunables[0].value == c.config.blockSizes[0]);
      CHECK(md.args[0].dtype == rt::DType::Float32); // --signature
    }
  }
  std::system(("rm -rf '" + dir + "'").c_str());
}

TEST_CASE("compile: a kernel checked against a DSL reference",
          "[tuner][dslc]") {
  std::string dslc = realDslc();
  if (dslc.empty()) {
    WARN("SKIPPED: no dslc (set DSLC_TEST_DSLC)");
    return;
  }
  std::string dir = tempDir();
  CompileOptions o;
  o.dslc = dslc;
  o.jobs = 2;
  o.space.blockDown = 0;
  o.space.blockUp = 0;
  o.space.warps = {8};
  o.space.ctaCaps = {0};
  o.reference = std::string(DSLC_TEST_SOURCE_DIR) +
                "/tests/tools/dslrun/Inputs/references.py:all_reduce_ref";
  // No collective, no --dtype: the annotated dtypes, and the reference.
  Manifest m = compileCandidates(
      std::string(DSLC_TEST_SOURCE_DIR) + "/examples/one_shot_all_reduce.py",
      {"one_shot_all_reduce_kernel"}, "", 2, "", dir + "/c", o);
  CHECK(m.collective.empty());
  CHECK(m.dtype == "bfloat16");
  CHECK(m.referenceCubin == "reference/ref.cubin");
  rt::KernelMetadata ref =
      rt::loadMetadataFile(dir + "/c/reference/ref.cubin.json");
  CHECK(ref.kernel == "all_reduce_ref");
  CHECK(ref.worldSize == 2);
  Manifest back = loadManifest(dir + "/c");
  CHECK(back.reference == o.reference);
  REQUIRE_FALSE(back.compiled.empty());
  for (const auto &c : back.compiled)
    CHECK(c.ok);
  // Its problems are shapes; sizes belong to collectives.
  TunerOptions t;
  t.shapes = {"a_shared=8K", "a_shared=1M"};
  std::vector<Problem> ps = problems(t, back);
  REQUIRE(ps.size() == 2);
  CHECK(ps[0].label == "a_shared=8192");
  CHECK(ps[0].n == 8192);
  CHECK(ps[0].bucket == 13);
  CHECK(ps[1].shape == "a_shared=b20");
  t.sizes = {1024};
  CHECK_THROWS_WITH(problems(t, back),
                    Catch::Contains("give their shapes with --shape"));
  // A shape the kernel cannot take is an error before any GPU work.
  t.sizes.clear();
  t.shapes = {"a_shared=8K,bogus=3"};
  CHECK_THROWS_WITH(problems(t, back),
                    Catch::Contains("--shape a_shared=8192,bogus=3: kernel "
                                    "one_shot_all_reduce_kernel: cannot bind "
                                    "its arguments:\n  --size bogus: the "
                                    "kernel has no argument 'bogus'"));
  // A reference the kernel's names do not fit fails at compile time.
  o.reference = std::string(DSLC_TEST_SOURCE_DIR) +
                "/tests/tools/dslrun/Inputs/references.py:no_such_ref";
  CHECK_THROWS_WITH(compileCandidates(std::string(DSLC_TEST_SOURCE_DIR) +
                                          "/examples/one_shot_all_reduce.py",
                                      {"one_shot_all_reduce_kernel"}, "", 2, "",
                                      dir + "/d", o),
                    Catch::Contains("no_such_ref"));
  std::system(("rm -rf '" + dir + "'").c_str());
}

TEST_CASE("problems: a collective's sizes", "[tuner]") {
  Manifest m;
  m.dir = "cand";
  m.collective = "all_reduce";
  TunerOptions t;
  t.sizes = {1024, 65536 + 3};
  std::vector<Problem> ps = problems(t, m);
  REQUIRE(ps.size() == 2);
  CHECK(ps[0].label == "1K");
  CHECK(ps[1].bucket == 16);
  CHECK(ps[1].shape.empty());
  t.shapes = {"x=4x8"};
  CHECK_THROWS_WITH(problems(t, m),
                    Catch::Contains("cand implement all_reduce: give --sizes"));
}
