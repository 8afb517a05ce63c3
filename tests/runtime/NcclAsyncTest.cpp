//===- NcclAsyncTest.cpp - Bounded waits on non-blocking NCCL calls -------===//
//
// The polling and the messages of runtime/NcclAsync.h, driven by a scripted
// ncclCommGetAsyncError (no GPU): ready, still in progress, failed, or never
// ready within the timeout. FaultTest.cpp runs the real thing on two GPUs.
//
//===----------------------------------------------------------------------===//
#include "runtime/NcclAsync.h"
#include "runtime/Error.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>

using namespace dslc::rt;

namespace {
/// Sets (or, for nullptr, unsets) the host timeout variable for a scope.
class HostTimeoutEnv {
public:
  explicit HostTimeoutEnv(const char *value) {
    if (const char *old = std::getenv(kHostTimeoutEnv))
      saved_ = old, had_ = true;
    if (value)
      setenv(kHostTimeoutEnv, value, 1);
    else
      unsetenv(kHostTimeoutEnv);
  }
  ~HostTimeoutEnv() {
    if (had_)
      setenv(kHostTimeoutEnv, saved_.c_str(), 1);
    else
      unsetenv(kHostTimeoutEnv);
  }

private:
  std::string saved_;
  bool had_ = false;
};
} // namespace

TEST_CASE("the host timeout: argument, environment, default", "[nccl-async]") {
  {
    HostTimeoutEnv env(nullptr);
    CHECK(resolveHostTimeoutMs(-1) == kDefaultHostTimeoutMs);
    CHECK(resolveHostTimeoutMs(250) == 250);
    CHECK(resolveHostTimeoutMs(0) == 0);
  }
  {
    HostTimeoutEnv env("1500");
    CHECK(resolveHostTimeoutMs(-1) == 1500);
    CHECK(resolveHostTimeoutMs(7) == 7); // an explicit value wins
  }
  for (const char *bad : {"", "5s", "-1", "12x"}) {
    HostTimeoutEnv env(bad);
    INFO("DSLC_HOST_TIMEOUT_MS='" << bad << "'");
    try {
      resolveHostTimeoutMs(-1);
      FAIL("accepted");
    } catch (const Error &e) {
      CHECK(e.code() == ErrorCode::InvalidArgument);
      CHECK(std::string(e.what()).find("DSLC_HOST_TIMEOUT_MS='" +
                                       std::string(bad) + "'") !=
            std::string::npos);
    }
  }
}

TEST_CASE("communicators are non-blocking", "[nccl-async]") {
  ncclConfig_t c = nonBlockingCommConfig();
  CHECK(c.blocking == 0);
  CHECK(c.size == sizeof(ncclConfig_t));
}

TEST_CASE("pollUntilReady waits for every communicator", "[nccl-async]") {
  std::vector<int> polls(3, 0);
  // Communicator i is ready after 10 * i polls.
  pollUntilReady(
      {4, 5, 6},
      [&](size_t i) {
        return ++polls[i] > static_cast<int>(10 * i) ? ncclSuccess
                                                     : ncclInProgress;
      },
      "window registration", 10000);
  CHECK(polls[0] == 1);
  CHECK(polls[1] == 11);
  CHECK(polls[2] == 21);
  pollUntilReady({}, [](size_t) { return ncclInProgress; }, "nothing", 1);
}

TEST_CASE("pollUntilReady names the rank, the call and NCCL's error",
          "[nccl-async]") {
  int polls = 0;
  try {
    pollUntilReady(
        {0, 3},
        [&](size_t i) {
          if (i == 0)
            return ncclSuccess;
          return ++polls < 5 ? ncclInProgress : ncclRemoteError;
        },
        "NCCL communicator finalization (ncclCommFinalize)", 10000);
    FAIL("no error");
  } catch (const Error &e) {
    CHECK(e.code() == ErrorCode::Nccl);
    std::string msg = e.what();
    CHECK(msg.find("rank 3: NCCL communicator finalization "
                   "(ncclCommFinalize) failed: ") == 0);
    CHECK(msg.find(ncclGetErrorString(ncclRemoteError)) != std::string::npos);
    CHECK(msg.find("the communicator is aborted") != std::string::npos);
  }
}

TEST_CASE("pollUntilReady gives up at the timeout, naming how long",
          "[nccl-async]") {
  auto start = std::chrono::steady_clock::now();
  try {
    pollUntilReady(
        {0, 1, 2},
        [](size_t i) { return i == 1 ? ncclSuccess : ncclInProgress; },
        "NCCL communicator initialization", 200);
    FAIL("no timeout");
  } catch (const Error &e) {
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    CHECK(ms >= 200);
    CHECK(ms < 5000);
    CHECK(e.code() == ErrorCode::Timeout);
    std::string msg = e.what();
    CHECK(msg.find("rank 0, 2: NCCL communicator initialization did not "
                   "complete within 200 ms (gave up after ") == 0);
    CHECK(msg.find("DSLC_HOST_TIMEOUT_MS") != std::string::npos);
    CHECK(msg.find("a peer process may have died") != std::string::npos);
  }
}
