//===- TestSupport.h - Helpers shared by the runtime tests ------*- C++ -*-===//
#ifndef DSLC_TESTS_RUNTIME_TESTSUPPORT_H
#define DSLC_TESTS_RUNTIME_TESTSUPPORT_H

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace dslc::test {

/// Where the test cubins are: $DSLC_TEST_KERNEL_DIR, else
/// <dir of this executable>/../tests/runtime/kernels.
std::string kernelDir();
std::string kernelPath(const std::string &file);

/// Visible GPUs (0 without a driver).
int gpuCount();
/// True when at least `n` GPUs are visible; otherwise prints why the test
/// is skipped (a WARN) and returns false.
bool requireGpus(int n, const char *test);

struct ChildResult {
  int exitCode = -1; ///< 128+signal when killed
  bool timedOut = false;
  double seconds = 0;
  std::string output; ///< stdout + stderr
};

/// Runs this executable as child scenario `scenario` (DSLC_RT_TEST_CHILD)
/// with extra environment variables, killing it after timeoutSec.
ChildResult runChild(const std::string &scenario,
                     const std::map<std::string, std::string> &env,
                     int timeoutSec);
/// Runs `n` children as ranks 0..n-1 of one job (RANK/WORLD_SIZE/LOCAL_RANK
/// and a rendezvous file in a fresh temporary directory).
std::vector<ChildResult> runRanks(const std::string &scenario, int n,
                                  int timeoutSec);
/// The same with extra environment variables per rank.
std::vector<ChildResult>
runRanks(const std::string &scenario, int n, int timeoutSec,
         const std::function<std::map<std::string, std::string>(int)> &env);

/// Child entry point (GpuChildren.cpp); returns the exit code.
int runChildScenario(const std::string &scenario);
/// The dead-peer scenarios "fault-*" (FaultChildren.cpp); -1 when
/// `scenario` is not one of them.
int runFaultScenario(const std::string &scenario);

} // namespace dslc::test

#endif // DSLC_TESTS_RUNTIME_TESTSUPPORT_H
