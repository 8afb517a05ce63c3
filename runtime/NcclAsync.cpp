//===- NcclAsync.cpp - Non-blocking NCCL communicators, bounded -----------===//
#include "runtime/NcclAsync.h"

#include "runtime/Error.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <thread>

namespace dslc::rt {

int64_t resolveHostTimeoutMs(int64_t requested) {
  if (requested >= 0)
    return requested;
  if (const char *env = std::getenv(kHostTimeoutEnv)) {
    char *end = nullptr;
    long long v = std::strtoll(env, &end, 10);
    if (end == env || *end || v < 0)
      raise(ErrorCode::InvalidArgument,
            fmt::format("{}='{}' is not a non-negative integer "
                        "(milliseconds)",
                        kHostTimeoutEnv, env));
    return v;
  }
  return kDefaultHostTimeoutMs;
}

ncclConfig_t nonBlockingCommConfig() {
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  return config;
}

void pollUntilReady(const std::vector<int> &ranks,
                    const std::function<ncclResult_t(size_t)> &query,
                    const std::string &what, int64_t timeoutMs) {
  auto start = std::chrono::steady_clock::now();
  std::vector<bool> ready(ranks.size(), false);
  size_t remaining = ranks.size();
  for (int64_t polls = 0; remaining; ++polls) {
    for (size_t i = 0; i < ranks.size(); ++i) {
      if (ready[i])
        continue;
      ncclResult_t state = query(i);
      if (state == ncclSuccess) {
        ready[i] = true;
        --remaining;
      } else if (state != ncclInProgress) {
        raise(ErrorCode::Nccl,
              fmt::format("rank {}: {} failed: {} (a peer process may have "
                          "died); the communicator is aborted",
                          ranks[i], what, ncclGetErrorString(state)));
      }
    }
    if (!remaining)
      return;
    int64_t waited = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::steady_clock::now() - start)
                         .count();
    if (timeoutMs > 0 && waited >= timeoutMs) {
      std::string late;
      for (size_t i = 0; i < ranks.size(); ++i)
        if (!ready[i])
          late += fmt::format("{}{}", late.empty() ? "" : ", ", ranks[i]);
      raise(ErrorCode::Timeout,
            fmt::format("rank {}: {} did not complete within {} ms (gave up "
                        "after {} ms; {}): a peer process may have died or "
                        "never started; the communicator is aborted",
                        late, what, timeoutMs, waited, kHostTimeoutEnv));
    }
    // Spin briefly (most calls finish within microseconds), then back off
    // so that a long wait does not hold a core.
    if (polls < 1000)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

void awaitComms(const std::vector<ncclComm_t> &comms,
                const std::vector<int> &ranks, const std::string &what,
                int64_t timeoutMs) {
  pollUntilReady(
      ranks,
      [&](size_t i) {
        // A child of ncclCommSplit on a non-blocking parent is written by
        // NCCL's init thread: until it appears the split is in progress.
        ncclComm_t comm = __atomic_load_n(&comms[i], __ATOMIC_ACQUIRE);
        if (!comm)
          return ncclInProgress;
        ncclResult_t state = ncclSuccess;
        ncclResult_t r = ncclCommGetAsyncError(comm, &state);
        return r != ncclSuccess ? r : state;
      },
      what, timeoutMs);
}

} // namespace dslc::rt
