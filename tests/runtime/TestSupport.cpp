//===- TestSupport.cpp - Helpers shared by the runtime tests --------------===//
#include "tests/runtime/TestSupport.h"

#include "tests/runtime/GpuSkip.h"

#include "runtime/Communicator.h"
#include "tooling/support/Files.h"
#include "tooling/support/Process.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <thread>
#include <unistd.h>

namespace dslc::test {

static std::string exePath() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0)
    return "";
  buf[n] = 0;
  return buf;
}

std::string kernelDir() {
  if (const char *d = std::getenv("DSLC_TEST_KERNEL_DIR"))
    return d;
  std::string exe = exePath();
  std::string dir = exe.substr(0, exe.rfind('/'));
  return dir + "/../tests/runtime/kernels";
}

std::string kernelPath(const std::string &file) {
  return kernelDir() + "/" + file;
}

int gpuCount() { return rt::Communicator::deviceCount(); }

bool requireGpus(int n, const char *test) { return haveGpus(n, test); }

namespace {
/// This executable as child scenario `scenario` (tooling/support's
/// runProcess: argument vector, output captured, killed at the limit).
ChildResult runScenario(const std::string &scenario,
                        std::map<std::string, std::string> env,
                        int timeoutSec) {
  tooling::ProcessOptions o;
  o.env = std::move(env);
  o.env["DSLC_RT_TEST_CHILD"] = scenario;
  o.timeoutS = timeoutSec;
  o.maxOutputBytes = 4 << 20;
  tooling::ProcessResult p = tooling::runProcess({exePath()}, o);
  ChildResult r;
  r.exitCode = p.started ? p.exitCode : 127;
  r.timedOut = p.timedOut;
  r.seconds = p.seconds;
  r.output = p.started ? p.output : p.error;
  return r;
}
} // namespace

ChildResult runChild(const std::string &scenario,
                     const std::map<std::string, std::string> &env,
                     int timeoutSec) {
  return runScenario(scenario, env, timeoutSec);
}

std::vector<ChildResult> runRanks(const std::string &scenario, int n,
                                  int timeoutSec) {
  return runRanks(scenario, n, timeoutSec,
                  [](int) { return std::map<std::string, std::string>(); });
}

std::vector<ChildResult>
runRanks(const std::string &scenario, int n, int timeoutSec,
         const std::function<std::map<std::string, std::string>(int)> &env) {
  tooling::TempDir dir("dslc-rt-test");
  std::vector<ChildResult> results(n);
  std::vector<std::map<std::string, std::string>> envs;
  for (int r = 0; r < n; ++r) {
    envs.push_back(env(r));
    envs.back()["RANK"] = std::to_string(r);
    envs.back()["WORLD_SIZE"] = std::to_string(n);
    envs.back()["LOCAL_RANK"] = std::to_string(r);
    envs.back()["DSLC_RENDEZVOUS"] = dir.path() + "/rendezvous.id";
  }
  std::vector<std::thread> ranks;
  for (int r = 0; r < n; ++r)
    ranks.emplace_back(
        [&, r] { results[r] = runScenario(scenario, envs[r], timeoutSec); });
  for (std::thread &t : ranks)
    t.join();
  return results;
}

} // namespace dslc::test
