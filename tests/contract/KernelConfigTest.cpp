//===- KernelConfigTest.cpp - Configs, tunables and their limits ----------===//
#include "contract/KernelConfig.h"

#include <catch2/catch.hpp>

using namespace dslc::contract;

namespace {
std::string configError(const std::string &json) {
  Expected<KernelConfig> c = KernelConfig::fromJson(json);
  REQUIRE_FALSE(c);
  return c.error();
}
} // namespace

TEST_CASE("config: the limits are one validation", "[contract][config]") {
  CHECK(isValidBlockSize(1));
  CHECK(isValidBlockSize(kMaxBlockSize));
  CHECK_FALSE(isValidBlockSize(0));
  CHECK_FALSE(isValidBlockSize(kMaxBlockSize + 1));
  CHECK(isValidNumWarps(1));
  CHECK(isValidNumWarps(kMaxNumWarps));
  CHECK_FALSE(isValidNumWarps(0));
  CHECK_FALSE(isValidNumWarps(kMaxNumWarps + 1));

  KernelConfig c;
  c.blockSizes = {1024, kMaxBlockSize};
  c.numWarps = 0; // the kernel's default
  CHECK(validate(c));
  c.blockSizes.push_back(kMaxBlockSize + 1);
  CHECK(validate(c).error() == "block_sizes[2] 1048577 is outside 1..1048576");
  c.blockSizes = {0};
  CHECK(validate(c).error() == "block_sizes[0] 0 is outside 1..1048576");
  c.blockSizes = {64};
  c.numWarps = 33;
  CHECK(validate(c).error() == "num_warps 33 is outside 1..32");
  c.numWarps = 4;
  c.maxCtas = -1;
  CHECK(validate(c).error() == "max_ctas -1 is negative (0: no cap)");
}

TEST_CASE("config: JSON both ways", "[contract][config]") {
  Expected<KernelConfig> c = KernelConfig::fromJson(
      R"({"block_sizes":[1024,4],"num_warps":8,"max_ctas":32,)"
      R"("tunables":{"unroll":2}})");
  REQUIRE(c);
  CHECK(c->blockSizes == std::vector<int64_t>{1024, 4});
  CHECK(c->numWarps == 8);
  CHECK(c->maxCtas == 32);
  CHECK(c->named.at("unroll") == 2);
  CHECK(c->brief() == "bs=1024x4 w=8 ctas=32 unroll=2");
  CHECK(KernelConfig{}.brief() == "default");
  CHECK(c->toJson(/*forCompiler=*/true) ==
        R"({"block_sizes":[1024,4],"num_warps":8,"tunables":{"unroll":2}})");
  Expected<KernelConfig> back = KernelConfig::fromJson(c->toJson());
  REQUIRE(back);
  CHECK(*back == *c);
  // The cache and the compiler refuse what the compiler cannot build.
  CHECK(configError("{") == "config '{' is not valid JSON");
  CHECK(configError(R"({"num_warps":64})") ==
        "config: num_warps 64 is outside 1..32");
  // 0 is KernelConfig's "not given": spelled out, it is no warps at all.
  CHECK(configError(R"({"num_warps":0})") ==
        "config: num_warps 0 is outside 1..32");
  CHECK(configError(R"({"block_sizes":[2097152]})") ==
        "config: block_sizes[0] 2097152 is outside 1..1048576");
  CHECK(configError(R"({"block_sizes":"64"})") ==
        "config: field 'block_sizes' must be an array");
  CHECK(configError("[1]") == "config: a config must be a JSON object");
}

TEST_CASE("config: one reader, one key policy", "[contract][config]") {
  // reduction_loops is a config key like any other: read, validated,
  // written back and shown.
  Expected<ConfigReading> r = readConfig(
      R"({"block_sizes":[32],"reduction_loops":[null,256],"num_stages":3,)"
      R"("indexing":"block_ptr"})");
  REQUIRE(r);
  CHECK(r->config.reductionLoops == std::vector<int64_t>{0, 256});
  CHECK(r->config.numStages == 3);
  CHECK(r->config.brief() == "bs=32 rl=nonex256 st=3");
  CHECK(r->keys == std::vector<std::string>{"block_sizes", "reduction_loops",
                                            "num_stages", "indexing"});
  CHECK(r->has("reduction_loops"));
  CHECK_FALSE(r->has("num_warps"));
  // Helion's Triton-only keys are accepted and listed, not applied.
  CHECK(r->ignoredKeys == std::vector<std::string>{"indexing"});
  CHECK(r->config.toJson() ==
        R"({"block_sizes":[32],"reduction_loops":[null,256],"num_stages":3})");
  Expected<KernelConfig> back = KernelConfig::fromJson(r->config.toJson());
  REQUIRE(back);
  CHECK(*back == r->config);

  // dot_engine survives the round trip and shows in brief().
  Expected<KernelConfig> mma =
      KernelConfig::fromJson(R"({"block_sizes":[64],"dot_engine":"mma_sync"})");
  REQUIRE(mma);
  CHECK(mma->dotEngine == DotEngine::MmaSync);
  CHECK(mma->brief() == "bs=64 dot=mma_sync");
  Expected<KernelConfig> mmaBack = KernelConfig::fromJson(mma->toJson());
  REQUIRE(mmaBack);
  CHECK(*mmaBack == *mma);

  // Anything else is an error naming the key, in every reader.
  Expected<ConfigReading> unknown = readConfig(R"({"num_warp":4})");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().rfind("unknown config key 'num_warp' (dslc reads "
                              "block_sizes, num_warps, reduction_loops, "
                              "dot_engine, num_stages, l2_groupings, "
                              "fast_math, load_eviction_policies, maxnreg, "
                              "max_ctas, tunables",
                              0) == 0);
  CHECK(configError(R"({"reduction_loops":[0]})") ==
        "config: reduction_loops entries are null or chunk sizes from 1 to "
        "1048576");
  CHECK(configError(R"({"reduction_loops":[2097152]})") ==
        "config: reduction_loops entries are null or chunk sizes from 1 to "
        "1048576");
  CHECK(configError(R"({"reduction_loops":4})") ==
        "config: field 'reduction_loops' must be an array");
  CHECK(classifyConfigKey("max_ctas") == ConfigKey::MaxCtas);
  CHECK(classifyConfigKey("dot_engine") == ConfigKey::DotEngine);
  CHECK(configError(R"({"dot_engine":"tcgen05"})") ==
        "config: dot_engine must be \"fma\", \"mma_sync\" or \"wgmma\", got "
        "\"tcgen05\"");
  CHECK(configError(R"({"dot_engine":1})") ==
        "config: dot_engine must be \"fma\", \"mma_sync\" or \"wgmma\", got 1");
  Expected<KernelConfig> wgmma =
      KernelConfig::fromJson(R"({"dot_engine":"wgmma","num_stages":4})");
  REQUIRE(wgmma);
  CHECK(wgmma->dotEngine == DotEngine::Wgmma);
  CHECK(wgmma->brief() == "dot=wgmma st=4");
  CHECK(classifyConfigKey("num_stages") == ConfigKey::NumStages);
  CHECK(configError(R"({"num_stages":9})") ==
        "config: num_stages 9 is outside 1..8 (0: the compiler's default)");
  CHECK(classifyConfigKey("range_num_stages") == ConfigKey::HelionOnly);
  CHECK(classifyConfigKey("nope") == ConfigKey::Unknown);
  // fast_math: true / false (1 / 0 as the tuner's records write a
  // tunable), anything else named.
  CHECK(classifyConfigKey("fast_math") == ConfigKey::FastMath);
  Expected<KernelConfig> fm =
      KernelConfig::fromJson(R"({"block_sizes":[1],"fast_math":true})");
  REQUIRE(fm);
  CHECK(fm->fastMath == 1);
  CHECK(fm->brief() == "bs=1 fm");
  CHECK(fm->toJson(true) == R"({"block_sizes":[1],"fast_math":true})");
  Expected<KernelConfig> fmBack = KernelConfig::fromJson(fm->toJson());
  REQUIRE(fmBack);
  CHECK(*fmBack == *fm);
  Expected<KernelConfig> fmOne =
      KernelConfig::fromJson(R"({"block_sizes":[1],"fast_math":1})");
  REQUIRE(fmOne);
  CHECK(*fmOne == *fm);
  CHECK_FALSE(*fmBack < *fm);
  Expected<KernelConfig> precise =
      KernelConfig::fromJson(R"({"fast_math":false})");
  REQUIRE(precise);
  CHECK(precise->fastMath == 0);
  CHECK(precise->toJson() == "{}");
  CHECK(configError(R"({"fast_math":2})") ==
        "config: fast_math must be true or false, got 2");
  CHECK(configError(R"({"fast_math":"yes"})") ==
        "config: fast_math must be true or false, got \"yes\"");
  // load_eviction_policies: Helion's key and spellings, one entry a load.
  CHECK(classifyConfigKey("load_eviction_policies") ==
        ConfigKey::LoadEvictionPolicies);
  Expected<KernelConfig> ev = KernelConfig::fromJson(
      R"({"block_sizes":[1],"load_eviction_policies":["last","","first"]})");
  REQUIRE(ev);
  CHECK(ev->loadEvictionPolicies ==
        std::vector<EvictionPolicy>{EvictionPolicy::Last,
                                    EvictionPolicy::Normal,
                                    EvictionPolicy::First});
  CHECK(ev->brief() == "bs=1 ev=l-f");
  CHECK(ev->toJson(true) ==
        R"({"block_sizes":[1],"load_eviction_policies":["last","","first"]})");
  Expected<KernelConfig> evBack = KernelConfig::fromJson(ev->toJson());
  REQUIRE(evBack);
  CHECK(*evBack == *ev);
  CHECK_FALSE(*ev == *fm);
  // No hint anywhere: not in the brief.
  Expected<KernelConfig> none =
      KernelConfig::fromJson(R"({"load_eviction_policies":["",""]})");
  REQUIRE(none);
  CHECK(none->brief() == "default");
  CHECK(configError(R"({"load_eviction_policies":["evict_last"]})") ==
        "config: load_eviction_policies entries are \"\", \"first\" or "
        "\"last\", got \"evict_last\"");
  CHECK(configError(R"({"load_eviction_policies":"last"})") ==
        "config: field 'load_eviction_policies' must be an array");
  // maxnreg: Helion's register cap (None: none), 16..255.
  CHECK(classifyConfigKey("maxnreg") == ConfigKey::MaxNReg);
  Expected<KernelConfig> regs =
      KernelConfig::fromJson(R"({"block_sizes":[2],"maxnreg":40})");
  REQUIRE(regs);
  CHECK(regs->maxNReg == 40);
  CHECK(regs->brief() == "bs=2 regs=40");
  CHECK(regs->toJson(true) == R"({"block_sizes":[2],"maxnreg":40})");
  Expected<KernelConfig> noCap = KernelConfig::fromJson(R"({"maxnreg":null})");
  REQUIRE(noCap);
  CHECK(noCap->maxNReg == 0);
  CHECK(configError(R"({"maxnreg":300})") ==
        "config: maxnreg 300 is outside 16..255 (0 or None: ptxas's choice)");
  CHECK(configError(R"({"maxnreg":"32"})") ==
        "config: field 'maxnreg' must be an integer");
  KernelConfig tooMany;
  tooMany.loadEvictionPolicies.assign(kMaxLoads + 1, EvictionPolicy::Last);
  CHECK(validate(tooMany).error() ==
        "load_eviction_policies has 4097 entries, more than 4096");
}

TEST_CASE("config: tunables are typed records", "[contract][config]") {
  Tunable b = Tunable::blockSize(1, 256);
  CHECK(b.label() == "block_sizes[1]");
  CHECK(b.check(256));
  CHECK(b.check(0).error() == "block_sizes[1] 0 is outside 1..1048576");
  Tunable w = Tunable::numWarps(4);
  CHECK(w.label() == "num_warps");
  CHECK(w.check(64).error() == "num_warps 64 is outside 1..32");
  Tunable m = Tunable::maxCtas(0);
  CHECK(m.check(0));
  CHECK_FALSE(m.check(-1));
  Tunable n = Tunable::named("unroll", 2, {1, 2, 4});
  CHECK(n.check(4));
  CHECK(n.check(3).error() == "unroll 3 is not one of 1, 2, 4");
  for (Tunable::Kind k :
       {Tunable::Kind::BlockSize, Tunable::Kind::NumWarps,
        Tunable::Kind::MaxCtas, Tunable::Kind::Named, Tunable::Kind::NumStages,
        Tunable::Kind::DotEngine, Tunable::Kind::L2Grouping,
        Tunable::Kind::ReductionLoop, Tunable::Kind::FastMath,
        Tunable::Kind::LoadEviction})
    CHECK(parseTunableKind(tunableKindName(k)) == k);
  // One eviction policy for every load of a kernel (3 loads here): set
  // fills the list, get reads it back where the loads share one.
  Tunable le = Tunable::loadEviction(3, 0);
  CHECK(le.label() == "load_eviction_policies");
  CHECK(le.choices == std::vector<int64_t>{0, 1, 2});
  KernelConfig evicting;
  evicting.set(le, int64_t(EvictionPolicy::Last));
  CHECK(evicting.loadEvictionPolicies ==
        std::vector<EvictionPolicy>(3, EvictionPolicy::Last));
  CHECK(evicting.get(le) == int64_t(EvictionPolicy::Last));
  CHECK(evicting.toJson() ==
        R"({"load_eviction_policies":["last","last","last"]})");
  evicting.loadEvictionPolicies[1] = EvictionPolicy::First;
  CHECK(evicting.get(le) == 0); // they differ
  evicting.set(le, 0);
  CHECK(evicting.loadEvictionPolicies.empty());
  CHECK(evicting.toJson() == "{}");
  // One load's policy (the tuner's per-load dimensions): the list of every
  // load, the others none; all none again is no list.
  Tunable second = Tunable::loadEvictionOf(3, 1, 0);
  CHECK(second.label() == "load_eviction_policies[1]");
  evicting.set(second, int64_t(EvictionPolicy::First));
  CHECK(evicting.toJson() == R"({"load_eviction_policies":["","first",""]})");
  CHECK(evicting.get(second) == int64_t(EvictionPolicy::First));
  CHECK(evicting.get(Tunable::loadEvictionOf(3, 2, 0)) == 0);
  evicting.set(Tunable::loadEvictionOf(3, 2, 0), int64_t(EvictionPolicy::Last));
  CHECK(evicting.toJson() ==
        R"({"load_eviction_policies":["","first","last"]})");
  evicting.set(second, 0);
  evicting.set(Tunable::loadEvictionOf(3, 2, 0), 0);
  CHECK(evicting.loadEvictionPolicies.empty());
  evicting.set(Tunable::loadEvictionOf(3, 3, 0), 2); // no such load
  CHECK(evicting.loadEvictionPolicies.empty());
  // f32 exps and logs approximated or not.
  Tunable fm = Tunable::fastMath(0);
  CHECK(fm.label() == "fast_math");
  CHECK(fm.choices == std::vector<int64_t>{0, 1});
  CHECK(fm.check(2).error() == "fast_math 2 is not one of 0, 1");
  KernelConfig fast;
  fast.set(fm, 1);
  CHECK(fast.get(fm) == 1);
  CHECK(fast.toJson(true) == R"({"fast_math":true})");
  // A matmul kernel's pipeline depth and engine: 2..6 and 8 stages and the
  // tensor-core engines, plus the kernel's own value.
  Tunable st = Tunable::numStages(3);
  CHECK(st.label() == "num_stages");
  CHECK(st.choices == std::vector<int64_t>{2, 3, 4, 5, 6, 8});
  CHECK(Tunable::numStages(7).choices ==
        std::vector<int64_t>{2, 3, 4, 5, 6, 8, 7});
  Tunable e = Tunable::dotEngine(static_cast<int64_t>(DotEngine::Fma));
  CHECK(e.label() == "dot_engine");
  CHECK(e.choices == std::vector<int64_t>{1, 2, 3}); // fma, mma_sync, wgmma
  KernelConfig staged;
  staged.set(st, 4);
  staged.set(e, static_cast<int64_t>(DotEngine::Wgmma));
  CHECK(staged.get(st) == 4);
  CHECK(staged.dotEngine == DotEngine::Wgmma);
  CHECK(staged.toJson(true) == R"({"dot_engine":"wgmma","num_stages":4})");
  // A 2-d grid's tile order: groups of 1, 4, 8, 16 rows (and its own).
  Tunable g = Tunable::l2Grouping(1);
  CHECK(g.label() == "l2_groupings");
  CHECK(g.choices == std::vector<int64_t>{1, 4, 8, 16});
  CHECK(Tunable::l2Grouping(32).choices ==
        std::vector<int64_t>{1, 4, 8, 16, 32});
  staged.set(g, 8);
  CHECK(staged.get(g) == 8);
  CHECK(staged.toJson(true) ==
        R"({"dot_engine":"wgmma","num_stages":4,"l2_groupings":[8]})");
  CHECK(staged.brief() == "dot=wgmma st=4 l2g=8");
  Expected<KernelConfig> back = KernelConfig::fromJson(staged.toJson(true));
  REQUIRE(back);
  CHECK(*back == staged);
  // Whole rows or chunks: the row held whole (its extent), a half, a
  // quarter or an eighth of it, none under kMinReductionChunk; a chunk is
  // reduction_loops[index].
  Tunable r = Tunable::reductionLoop(1, 0, 4096);
  CHECK(r.label() == "reduction_loops[1]");
  CHECK(r.choices == std::vector<int64_t>{0, 4096, 2048, 1024, 512});
  CHECK(Tunable::reductionLoop(0, 0, 1000).choices ==
        std::vector<int64_t>{0}); // 500 columns: too few to chunk
  CHECK(Tunable::reductionLoop(0, 96, 1000).choices ==
        std::vector<int64_t>{0, 96}); // the config's own
  CHECK(r.check(300).error() ==
        "reduction_loops[1] 300 is not one of 0, 4096, 2048, 1024, 512");
  KernelConfig rolled;
  rolled.set(r, 1024);
  CHECK(rolled.reductionLoops == std::vector<int64_t>{0, 1024});
  CHECK(rolled.get(r) == 1024);
  CHECK(rolled.toJson(true) == R"({"reduction_loops":[null,1024]})");
  // Helion's list or a number; anything else names the key.
  Expected<KernelConfig> num = KernelConfig::fromJson(R"({"l2_groupings":4})");
  REQUIRE(num);
  CHECK(num->l2Grouping == 4);
  CHECK(KernelConfig::fromJson(R"({"l2_groupings":[0]})")
            .error()
            .find("l2_groupings must be [G] (or G) with G a positive "
                  "integer, got [0]") != std::string::npos);
  CHECK(KernelConfig::fromJson(R"({"l2_groupings":[4096]})")
            .error()
            .find("l2_groupings 4096 is outside 1..1024 (1: row-major)") !=
        std::string::npos);

  KernelConfig c;
  c.set(b, 512);
  CHECK(c.blockSizes == std::vector<int64_t>{0, 512});
  c.set(w, 8);
  c.set(m, 16);
  c.set(n, 4);
  CHECK(c.get(b) == 512);
  CHECK(c.get(Tunable::blockSize(0, 1)) == 0);
  CHECK(c.get(w) == 8);
  CHECK(c.get(m) == 16);
  CHECK(c.get(n) == 4);
  CHECK(b.sameSlot(Tunable::blockSize(1, 9)));
  CHECK_FALSE(b.sameSlot(Tunable::blockSize(0, 256)));
}
