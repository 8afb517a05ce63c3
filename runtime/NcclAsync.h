//===- NcclAsync.h - Non-blocking NCCL communicators, bounded ---*- C++ -*-===//
//
// Every communicator the runtime creates is non-blocking (ncclConfig_t
// blocking = 0): ncclCommInitRankConfig, ncclCommWindowRegister/Deregister,
// ncclCommFinalize and grouped calls return ncclInProgress at once, and the
// runtime polls ncclCommGetAsyncError until each communicator is ready,
// within one deadline: the host timeout (DSLC_HOST_TIMEOUT_MS). A peer
// process that dies or never starts is then an Error naming what was waited
// for and for how long, and the communicator is aborted (ncclCommAbort),
// instead of a process that hangs in NCCL forever. docs/runtime.md,
// "Faults"; docs/robustness.md.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_RUNTIME_NCCLASYNC_H
#define DSLC_RUNTIME_NCCLASYNC_H

#include <nccl.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dslc::rt {

/// The default bound on every host-side wait, in ms.
constexpr int64_t kDefaultHostTimeoutMs = 60000;
/// The environment variable that overrides it (0: wait forever).
constexpr const char *kHostTimeoutEnv = "DSLC_HOST_TIMEOUT_MS";

/// The host timeout: `requested` when >= 0, else $DSLC_HOST_TIMEOUT_MS, else
/// kDefaultHostTimeoutMs. Throws InvalidArgument on a malformed variable.
int64_t resolveHostTimeoutMs(int64_t requested);

/// The configuration of every communicator the runtime creates.
ncclConfig_t nonBlockingCommConfig();

/// Polls `query(i)` (an ncclResult_t: ncclCommGetAsyncError's state of
/// communicator i, or its call's failure) for i < ranks.size() until none is
/// ncclInProgress. Throws Error(Nccl) naming ranks[i], `what` and NCCL's
/// error when one fails, Error(Timeout) naming the ranks still in progress,
/// `what`, the timeout and the time waited when `timeoutMs` (> 0) runs out.
/// After either, the communicators are unusable: the caller aborts them.
void pollUntilReady(const std::vector<int> &ranks,
                    const std::function<ncclResult_t(size_t)> &query,
                    const std::string &what, int64_t timeoutMs);

/// pollUntilReady over communicators (ncclCommGetAsyncError); a null handle
/// (a split child NCCL has not written yet) is in progress.
void awaitComms(const std::vector<ncclComm_t> &comms,
                const std::vector<int> &ranks, const std::string &what,
                int64_t timeoutMs);

} // namespace dslc::rt

#endif // DSLC_RUNTIME_NCCLASYNC_H
