//===- TuningCacheTest.cpp - The on-disk tuning cache (no GPU) ------------===//
//
// Built into dslc-tuner-tests (tests/tooling/tuner/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//
#include "runtime/TuningCache.h"
#include "runtime/Error.h"

#include <catch2/catch.hpp>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace dslc::rt;

namespace {
std::string tempDir() {
  char tmpl[] = "/tmp/dslc-cache-test-XXXXXX";
  REQUIRE(mkdtemp(tmpl));
  return tmpl;
}

TuningKey key(int bucket, const std::string &kernel = "set:ar") {
  return {
      "all_reduce", kernel, "NVIDIA H200", "cuda 13.0 driver, 13.0 runtime", 2,
      "bfloat16",   bucket};
}

TuningRecord record(int bucket, double us,
                    const std::string &kernel = "set:ar") {
  TuningRecord r;
  r.key = key(bucket, kernel);
  r.value.pick.kernel = "ll_one_shot_all_reduce_kernel";
  r.value.pick.file = "examples/ll_one_shot_all_reduce.py";
  r.value.pick.sha256 = std::string(64, 'c');
  r.value.pick.cubin = "ll/bs1024_w4/k.r{rank}.cubin";
  r.value.pick.config.blockSizes = {1024};
  r.value.pick.config.numWarps = 4;
  r.value.pick.config.maxCtas = 16;
  r.value.pick.us = us;
  r.value.perKernel = {r.value.pick};
  r.value.ncclUs = 6.5;
  r.value.size = int64_t(1) << bucket;
  r.value.date = isoDateNow();
  return r;
}

struct Warnings {
  std::vector<std::string> seen;
  TuningCache::WarningHandler handler() {
    return [this](const std::string &m) { seen.push_back(m); };
  }
};
} // namespace

// The bucket rule, the location rule, the config JSON and the file format
// are the contract's (tests/contract); here: the locked store on top.

TEST_CASE("tuning cache: where it lives, or why not", "[cache]") {
  std::string saved[3];
  bool had[3] = {false, false, false};
  const char *names[] = {"DSLC_CACHE_DIR", "XDG_CACHE_HOME", "HOME"};
  for (int i = 0; i < 3; ++i)
    if (const char *v = std::getenv(names[i])) {
      saved[i] = v;
      had[i] = true;
    }
  setenv("DSLC_CACHE_DIR", "/x/dslc", 1);
  CHECK(TuningCache("").path() == "/x/dslc/tuning.json");
  unsetenv("DSLC_CACHE_DIR");
  setenv("HOME", "/home/u", 1);
  unsetenv("XDG_CACHE_HOME");
  CHECK(TuningCache("").path() == "/home/u/.cache/dslc/tuning.json");
  unsetenv("HOME");
  try {
    TuningCache none("");
    FAIL("a cache without a directory");
  } catch (const Error &e) {
    CHECK(e.code() == ErrorCode::Io);
    CHECK(std::string(e.what()) ==
          "tuning cache: no cache directory: none of DSLC_CACHE_DIR, "
          "XDG_CACHE_HOME and HOME is set (set DSLC_CACHE_DIR, or pass "
          "--cache-dir)");
  }
  CHECK(TuningCache("/given").path() == "/given/tuning.json");
  for (int i = 0; i < 3; ++i) {
    if (had[i])
      setenv(names[i], saved[i].c_str(), 1);
    else
      unsetenv(names[i]);
  }
}

TEST_CASE("tuning cache: store, lookup, replace", "[cache]") {
  std::string dir = tempDir() + "/nested/dir";
  TuningCache cache(dir);
  Warnings w;
  cache.setWarningHandler(w.handler());
  CHECK(cache.load().empty()); // no file yet
  CHECK_FALSE(cache.lookup(key(10)));
  cache.store({record(10, 2.5), record(16, 3.0)});
  auto v = cache.lookup(key(10));
  REQUIRE(v);
  CHECK(v->pick.us == 2.5);
  CHECK(v->pick.config.maxCtas == 16);
  CHECK(v->pick.cubin == "ll/bs1024_w4/k.r{rank}.cubin");
  CHECK(v->perKernel.size() == 1);
  CHECK(v->ncclUs == 6.5);
  CHECK(v->size == 1024);
  // Any field of the key tells entries apart.
  TuningKey other = key(10);
  other.dtype = "float32";
  CHECK_FALSE(cache.lookup(other));
  other = key(10);
  other.device = "NVIDIA A100";
  CHECK_FALSE(cache.lookup(other));
  cache.store({record(10, 2.0)});
  CHECK(cache.load().size() == 2);
  CHECK(cache.lookup(key(10))->pick.us == 2.0);
  CHECK(cache.erase([](const TuningKey &k) { return k.bucket == 16; }) == 1);
  CHECK(cache.load().size() == 1);
  CHECK(w.seen.empty());
  std::system(("rm -rf '" + dir + "'").c_str());
}

TEST_CASE("tuning cache: damaged files and entries are reported and ignored",
          "[cache]") {
  std::string dir = tempDir();
  TuningCache cache(dir);
  Warnings w;
  cache.setWarningHandler(w.handler());
  std::ofstream(cache.path()) << "{\"format\":\"dslc-tuning-cache\",\"vers";
  CHECK(cache.load().empty());
  REQUIRE(w.seen.size() == 1);
  CHECK(w.seen[0].find("not a JSON object") != std::string::npos);
  CHECK(w.seen[0].find(cache.path()) != std::string::npos);
  // A store replaces it and keeps the damaged one aside.
  cache.store({record(12, 4.0)});
  CHECK(cache.lookup(key(12)));
  CHECK(access((cache.path() + ".corrupt").c_str(), R_OK) == 0);

  // One bad entry among good ones: the others survive, and the next store
  // sets the damaged file aside again.
  std::string text = dslc::contract::serializeTuningCache({record(12, 4.0)});
  text.replace(text.find("\"entries\": ["), 12,
               "\"entries\": [{\"key\":{\"collective\":1}},");
  std::ofstream(cache.path()) << text;
  w.seen.clear();
  auto recs = cache.load();
  CHECK(recs.size() == 1);
  REQUIRE(w.seen.size() == 1);
  CHECK(w.seen[0].find("entries[0] ignored") != std::string::npos);
  std::system(("rm -rf '" + dir + "'").c_str());
}

TEST_CASE("tuning cache: an unwritable directory is an Io error", "[cache]") {
  std::string dir = tempDir();
  std::ofstream(dir + "/file") << "x";
  TuningCache cache(dir + "/file/sub");
  try {
    cache.store({record(10, 1.0)});
    FAIL("store into a path under a file succeeded");
  } catch (const Error &e) {
    CHECK(e.code() == ErrorCode::Io);
  }
  std::system(("rm -rf '" + dir + "'").c_str());
}

TEST_CASE("tuning cache: concurrent writers lose nothing", "[cache]") {
  std::string dir = tempDir();
  const int procs = 6, perProc = 15;
  std::vector<pid_t> pids;
  for (int p = 0; p < procs; ++p) {
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      int rc = 0;
      try {
        TuningCache cache(dir);
        cache.setWarningHandler([&](const std::string &) { rc = 3; });
        for (int i = 0; i < perProc; ++i) {
          // Distinct keys per process, plus one key every process writes.
          cache.store({record(i, 1.0 + p, "set:p" + std::to_string(p)),
                       record(40, 100.0 + p)});
          // A reader (no lock) never sees a torn file.
          if (cache.load().empty())
            rc = 4;
        }
      } catch (...) {
        rc = 5;
      }
      _exit(rc);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int st = 0;
    REQUIRE(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == 0);
  }
  TuningCache cache(dir);
  Warnings w;
  cache.setWarningHandler(w.handler());
  auto all = cache.load();
  CHECK(w.seen.empty());
  CHECK(all.size() == static_cast<size_t>(procs * perProc + 1));
  for (int p = 0; p < procs; ++p)
    for (int i = 0; i < perProc; ++i) {
      auto v = cache.lookup(key(i, "set:p" + std::to_string(p)));
      REQUIRE(v);
      CHECK(v->pick.us == 1.0 + p);
    }
  auto shared = cache.lookup(key(40));
  REQUIRE(shared);
  CHECK(shared->pick.us >= 100.0);
  // No temporary files left behind.
  std::string left;
  FILE *ls = popen(("ls '" + dir + "'").c_str(), "r");
  char buf[256];
  while (fgets(buf, sizeof buf, ls))
    left += buf;
  pclose(ls);
  CHECK(left == "tuning.json\ntuning.json.lock\n");
  std::system(("rm -rf '" + dir + "'").c_str());
}

// A tuner killed, or failing, while it writes the cache (issue 15): the old
// cache stays whole. The child writes under RLIMIT_FSIZE, so the kernel
// stops it (SIGXFSZ) or fails its write (EFBIG) partway through the file.
TEST_CASE("tuning cache: a writer killed or failing midway leaves it intact",
          "[cache]") {
  std::string dir = tempDir();
  {
    TuningCache cache(dir);
    cache.store({record(10, 2.5), record(16, 3.0)});
  }
  std::ifstream before(dir + "/tuning.json");
  std::string old((std::istreambuf_iterator<char>(before)),
                  std::istreambuf_iterator<char>());
  REQUIRE(old.size() > 100);
  for (bool killed : {true, false}) {
    INFO((killed ? "killed (SIGXFSZ)" : "failing (EFBIG)"));
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      std::signal(SIGXFSZ, killed ? SIG_DFL : SIG_IGN);
      struct rlimit rl = {old.size(), old.size()};
      setrlimit(RLIMIT_FSIZE, &rl);
      std::vector<TuningRecord> many;
      for (int b = 0; b < 30; ++b)
        many.push_back(record(b, 1.0 + b));
      try {
        TuningCache(dir).store(many);
      } catch (const Error &e) {
        bool named = e.code() == ErrorCode::Io &&
                     std::string(e.what()).find("tuning cache: cannot write '" +
                                                dir + "/tuning.json'") == 0;
        _exit(named ? 3 : 4);
      }
      _exit(0);
    }
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    if (killed) {
      CHECK(WIFSIGNALED(status));
      CHECK(WTERMSIG(status) == SIGXFSZ);
    } else {
      REQUIRE(WIFEXITED(status));
      CHECK(WEXITSTATUS(status) == 3); // an Io error naming the file
    }
    std::ifstream after(dir + "/tuning.json");
    std::string now((std::istreambuf_iterator<char>(after)),
                    std::istreambuf_iterator<char>());
    CHECK(now == old);
    TuningCache cache(dir);
    Warnings w;
    cache.setWarningHandler(w.handler());
    CHECK(cache.load().size() == 2);
    CHECK(w.seen.empty());
  }
  std::system(("rm -rf '" + dir + "'").c_str());
}
