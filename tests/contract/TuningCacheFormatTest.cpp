//===- TuningCacheFormatTest.cpp - Cache format, bucket and location ------===//
#include "contract/TuningCache.h"

#include <catch2/catch.hpp>

#include <cstdlib>

using namespace dslc::contract;

namespace {
/// Sets (or, for nullptr, unsets) environment variables for a scope.
class EnvScope {
public:
  EnvScope(std::initializer_list<std::pair<const char *, const char *>> vars) {
    for (auto [name, value] : vars) {
      const char *old = std::getenv(name);
      saved.push_back(
          {name, old ? std::optional<std::string>(old) : std::nullopt});
      if (value)
        setenv(name, value, 1);
      else
        unsetenv(name);
    }
  }
  ~EnvScope() {
    for (auto &[name, value] : saved)
      if (value)
        setenv(name, value->c_str(), 1);
      else
        unsetenv(name);
  }

private:
  std::vector<std::pair<const char *, std::optional<std::string>>> saved;
};

TuningRecord record(int bucket) {
  TuningRecord r;
  r.key = {"all_reduce",
           "set:ar",
           "NVIDIA H200",
           "cuda 13.0 driver, 13.0 runtime",
           2,
           "bfloat16",
           bucket};
  r.value.pick.kernel = "ll";
  r.value.pick.sha256 = std::string(64, 'c');
  r.value.pick.cubin = "ll/bs1024_w4/k.r{rank}.cubin";
  r.value.pick.config.blockSizes = {1024};
  r.value.pick.config.numWarps = 4;
  r.value.pick.config.maxCtas = 16;
  r.value.pick.us = 3.5;
  r.value.perKernel = {r.value.pick};
  r.value.ncclUs = 6.5;
  r.value.size = int64_t(1) << bucket;
  r.value.date = "2026-01-01T00:00:00Z";
  return r;
}
} // namespace

TEST_CASE("cache: size buckets", "[contract][cache]") {
  CHECK(sizeBucket(0) == 0);
  CHECK(sizeBucket(1) == 0);
  CHECK(sizeBucket(1024) == 10);
  CHECK(sizeBucket(2047) == 10);
  CHECK(sizeBucket(2048) == 11);
  CHECK(sizeBucket(int64_t(64) << 20) == 26);
}

TEST_CASE("cache: one location rule", "[contract][cache]") {
  {
    EnvScope env{{"DSLC_CACHE_DIR", "/x/dslc"},
                 {"XDG_CACHE_HOME", "/xdg"},
                 {"HOME", "/home/u"}};
    CHECK(*cacheDir() == "/x/dslc");
    CHECK(*cacheDir("/given") == "/given");
  }
  {
    EnvScope env{{"DSLC_CACHE_DIR", ""},
                 {"XDG_CACHE_HOME", "/xdg"},
                 {"HOME", "/home/u"}};
    CHECK(*cacheDir() == "/xdg/dslc");
  }
  {
    EnvScope env{{"DSLC_CACHE_DIR", nullptr},
                 {"XDG_CACHE_HOME", nullptr},
                 {"HOME", "/home/u"}};
    CHECK(*cacheDir() == "/home/u/.cache/dslc");
    CHECK(tuningCacheFile(*cacheDir()) == "/home/u/.cache/dslc/tuning.json");
  }
  {
    EnvScope env{{"DSLC_CACHE_DIR", nullptr},
                 {"XDG_CACHE_HOME", nullptr},
                 {"HOME", nullptr}};
    CHECK(cacheDir().error() ==
          "no cache directory: none of DSLC_CACHE_DIR, XDG_CACHE_HOME and "
          "HOME is set (set DSLC_CACHE_DIR, or pass --cache-dir)");
    CHECK(*cacheDir("/given") == "/given");
  }
}

TEST_CASE("cache: records written and read back", "[contract][cache]") {
  std::vector<std::string> warnings;
  auto warn = [&](const std::string &m) { warnings.push_back(m); };
  std::string text = serializeTuningCache({record(10), record(16)});
  std::vector<TuningRecord> back = parseTuningCache(text, "c.json", warn);
  CHECK(warnings.empty());
  REQUIRE(back.size() == 2);
  CHECK(back[1].key == record(16).key);
  CHECK(back[1].value.pick.config == record(16).value.pick.config);
  CHECK(back[1].value.perKernel.size() == 1);
  CHECK(serializeTuningCache(back) == text);
}

TEST_CASE("cache: damage is reported and skipped", "[contract][cache]") {
  std::vector<std::string> warnings;
  auto warn = [&](const std::string &m) { warnings.push_back(m); };
  CHECK(parseTuningCache("{", "c.json", warn).empty());
  CHECK(parseTuningCache(R"({"format":"dslc-tuning-cache","version":9})",
                         "c.json", warn)
            .empty());
  std::string text = serializeTuningCache({record(10), record(12)});
  size_t at = text.find("\"num_warps\": 4");
  text.replace(at, 14, "\"num_warps\": 99");
  std::vector<TuningRecord> kept = parseTuningCache(text, "c.json", warn);
  REQUIRE(kept.size() == 1);
  CHECK(kept[0].key.bucket == 12);
  REQUIRE(warnings.size() == 3);
  CHECK(warnings[0] == "tuning cache c.json is not a JSON object (damaged?); "
                       "ignored");
  CHECK(warnings[1] == "tuning cache c.json: version 9 (this build reads 1); "
                       "ignored");
  CHECK(warnings[2] == "tuning cache c.json: entries[0] ignored: "
                       "value.pick: config: num_warps 99 is outside 1..32");
}

TEST_CASE("cache: kernels tuned per shape", "[contract][cache]") {
  CHECK(shapeKey({{"x", {4, 8192}}, {"weight", {8192}}}) ==
        "weight=b13,x=b2xb13");
  CHECK(shapeKey({{"x", {7, 5120}}}) == shapeKey({{"x", {4, 4096}}}));
  CHECK(shapeKey({{"x", {8, 4096}}}) != shapeKey({{"x", {4, 4096}}}));
  TuningRecord r = record(12);
  r.key.collective = "";
  r.key.shape = shapeKey({{"x", {4, 8192}}});
  std::vector<std::string> warnings;
  std::vector<TuningRecord> back =
      parseTuningCache(serializeTuningCache({record(12), r}), "c.json",
                       [&](const std::string &m) { warnings.push_back(m); });
  CHECK(warnings.empty());
  REQUIRE(back.size() == 2); // same bucket, other shape: another key
  CHECK(back[0].key.shape.empty());
  CHECK(back[1].key == r.key);
  CHECK_FALSE(back[1].key == back[0].key);
  CHECK(r.key.str().find(", shape x=b2xb13") != std::string::npos);
}

TEST_CASE("the pick runs NCCL when NCCL was measured at least as fast",
          "[tuning]") {
  TuningValue v;
  v.pick.kernel = "k";
  v.pick.us = 2.0;
  CHECK_FALSE(v.ncclWins()); // NCCL not measured: the kernel runs
  v.ncclUs = 3.0;
  CHECK_FALSE(v.ncclWins());
  v.ncclUs = 2.0;
  CHECK(v.ncclWins()); // a tie goes to NCCL
  v.ncclUs = 1.0;
  CHECK(v.ncclWins());
}
