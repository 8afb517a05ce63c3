//===- TestSupport.cpp - Helpers shared by the runtime tests --------------===//
#include "tests/runtime/TestSupport.h"

#include "tests/runtime/GpuSkip.h"

#include "runtime/Communicator.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
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
ChildResult waitChild(pid_t pid, const std::string &logPath, int timeoutSec,
                      std::chrono::steady_clock::time_point start) {
  ChildResult r;
  int status = 0;
  while (true) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid)
      break;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                             start)
                   .count();
    if (s > timeoutSec) {
      r.timedOut = true;
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                            start)
                  .count();
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status)
                                 : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  std::ifstream in(logPath);
  std::stringstream ss;
  ss << in.rdbuf();
  r.output = ss.str();
  std::remove(logPath.c_str());
  return r;
}

pid_t spawn(const std::string &scenario,
            const std::map<std::string, std::string> &env,
            const std::string &logPath) {
  std::string exe = exePath();
  pid_t pid = fork();
  if (pid == 0) {
    FILE *log = std::fopen(logPath.c_str(), "w");
    if (log) {
      dup2(fileno(log), 1);
      dup2(fileno(log), 2);
    }
    setenv("DSLC_RT_TEST_CHILD", scenario.c_str(), 1);
    for (auto &kv : env)
      setenv(kv.first.c_str(), kv.second.c_str(), 1);
    execl(exe.c_str(), exe.c_str(), static_cast<char *>(nullptr));
    _exit(127);
  }
  return pid;
}

std::string makeTempDir() {
  char tmpl[] = "/tmp/dslc-rt-test-XXXXXX";
  if (!mkdtemp(tmpl))
    return "/tmp";
  return tmpl;
}
} // namespace

ChildResult runChild(const std::string &scenario,
                     const std::map<std::string, std::string> &env,
                     int timeoutSec) {
  std::string dir = makeTempDir();
  std::string log = dir + "/child.log";
  auto start = std::chrono::steady_clock::now();
  pid_t pid = spawn(scenario, env, log);
  ChildResult r = waitChild(pid, log, timeoutSec, start);
  rmdir(dir.c_str());
  return r;
}

std::vector<ChildResult> runRanks(const std::string &scenario, int n,
                                  int timeoutSec) {
  std::string dir = makeTempDir();
  std::vector<pid_t> pids;
  std::vector<std::string> logs;
  auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < n; ++r) {
    std::map<std::string, std::string> env = {
        {"RANK", std::to_string(r)},
        {"WORLD_SIZE", std::to_string(n)},
        {"LOCAL_RANK", std::to_string(r)},
        {"DSLC_RENDEZVOUS", dir + "/rendezvous.id"}};
    logs.push_back(fmt::format("{}/rank{}.log", dir, r));
    pids.push_back(spawn(scenario, env, logs.back()));
  }
  std::vector<ChildResult> results;
  for (int r = 0; r < n; ++r)
    results.push_back(waitChild(pids[r], logs[r], timeoutSec, start));
  std::remove((dir + "/rendezvous.id").c_str());
  rmdir(dir.c_str());
  return results;
}

} // namespace dslc::test
