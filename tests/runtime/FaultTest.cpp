//===- FaultTest.cpp - A dead peer never hangs the survivor ---------------===//
//
// Issue 15, item 5, on two GPUs (skipped, shown as such, with fewer): one of
// two processes is killed before, during and after a collective; the
// survivor reports it within the host timeout and exits non-zero, and no
// process is left hanging (FaultChildren.cpp has the scenarios). The host
// timeout is 5 s here, so each scenario is bounded well below the harness's
// limit: a hang is a failure, not a stuck CI job.
//
//===----------------------------------------------------------------------===//
#include "tests/runtime/TestSupport.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <csignal>

using namespace dslc::test;

namespace {

constexpr int kHostTimeoutMs = 5000;
/// Startup, the bounded waits a scenario meets in turn (at most three:
/// deregistration, the closing barrier, finalization) and the abort.
constexpr double kSurvivorLimitS = 4.0 * kHostTimeoutMs / 1000 + 20;

std::vector<ChildResult> runFault(const std::string &scenario) {
  auto rs = runRanks(scenario, 2, 120, [](int) {
    return std::map<std::string, std::string>{
        {"DSLC_HOST_TIMEOUT_MS", std::to_string(kHostTimeoutMs)}};
  });
  for (int r = 0; r < 2; ++r)
    fmt::print("{}: rank {} ({:.1f} s, exit {}):\n{}\n", scenario, r,
               rs[r].seconds, rs[r].exitCode, rs[r].output);
  return rs;
}

void checkSurvivor(const ChildResult &survivor, const ChildResult &victim) {
  CHECK(victim.exitCode == 128 + SIGKILL);
  CHECK(victim.output.find("RESULT: rank 1 killed") != std::string::npos);
  CHECK_FALSE(survivor.timedOut);
  CHECK(survivor.seconds < kSurvivorLimitS);
  CHECK(survivor.exitCode == 1);
  CHECK(survivor.output.find("RESULT: error (") != std::string::npos);
  CHECK(survivor.output.find("RESULT: no error") == std::string::npos);
}

} // namespace

TEST_CASE("a peer killed before the communicator exists: init times out",
          "[gpu][fault]") {
  if (!requireGpus(2, "dead peer before NCCL initialization"))
    return;
  auto rs = runFault("fault-before-init");
  INFO("rank 0:\n" << rs[0].output << "\nrank 1:\n" << rs[1].output);
  checkSurvivor(rs[0], rs[1]);
  CHECK(rs[0].output.find("RESULT: error (Timeout)") != std::string::npos);
  CHECK(rs[0].output.find(fmt::format(
            "rank 0: NCCL communicator initialization (ncclCommInitRankConfig, "
            "world of 2) did not complete within {} ms",
            kHostTimeoutMs)) != std::string::npos);
}

TEST_CASE("a peer killed during a collective: the survivor's wait ends",
          "[gpu][fault]") {
  if (!requireGpus(2, "dead peer during a collective"))
    return;
  auto rs = runFault("fault-during-collective");
  INFO("rank 0:\n" << rs[0].output << "\nrank 1:\n" << rs[1].output);
  checkSurvivor(rs[0], rs[1]);
  // Either the bounded wait expires or NCCL notices the peer first; both
  // name the call that was waited for.
  CHECK(rs[0].output.find("all-reduce 3 (64 MiB)") != std::string::npos);
}

TEST_CASE("a peer killed after its last collective: the end reports it",
          "[gpu][fault]") {
  if (!requireGpus(2, "dead peer after a collective"))
    return;
  auto rs = runFault("fault-after-collective");
  INFO("rank 0:\n" << rs[0].output << "\nrank 1:\n" << rs[1].output);
  checkSurvivor(rs[0], rs[1]);
  // The window deregistration, the closing barrier or the finalization
  // (whichever meets the dead peer first) is named.
  bool named = rs[0].output.find("deregistration") != std::string::npos ||
               rs[0].output.find("barrier") != std::string::npos ||
               rs[0].output.find("the end of the run") != std::string::npos ||
               rs[0].output.find("finaliz") != std::string::npos;
  CHECK(named);
}
