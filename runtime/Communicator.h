//===- Communicator.h - NCCL communicator over the local GPUs ---*- C++ -*-===//
//
// A Communicator is this process's share of an NCCL world: either every local
// GPU driven by this one process (createAll, ncclCommInitAll), or one GPU of
// a multi-process job (createRank / createFromEnv, ncclCommInitRank). The
// rest of the runtime works on its local ranks the same way in both models.
// Every wait it does is bounded: a peer that died becomes an Error(Timeout)
// naming the rank and what was waited for, not a hang.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_RUNTIME_COMMUNICATOR_H
#define DSLC_RUNTIME_COMMUNICATOR_H

#include "runtime/Rendezvous.h"
#include "runtime/Teams.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dslc::rt {

/// One rank driven by this process.
struct LocalRank {
  int rank = 0;
  int device = 0;
  int numSms = 0;
  int ccMajor = 0, ccMinor = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr; ///< the rank's stream (non-blocking)
  int *scratch = nullptr;        ///< device int for barriers
};

struct CommOptions {
  /// Bound on every host-side wait (barriers, synchronization), in ms.
  /// Default: $DSLC_HOST_TIMEOUT_MS, else 60000.
  int64_t hostTimeoutMs = -1;
};

class Communicator {
public:
  /// One process, every GPU in `devices` (all visible GPUs when empty);
  /// rank i runs on devices[i].
  static std::unique_ptr<Communicator>
  createAll(const std::vector<int> &devices = {}, CommOptions opts = {});
  /// One rank of a multi-process job, on `device`, with a unique id that the
  /// caller distributed (rank 0 makes it with newUniqueId()).
  static std::unique_ptr<Communicator>
  createRank(int rank, int worldSize, int device, const UniqueIdBytes &id,
             CommOptions opts = {});
  /// One rank of a job started by torchrun/mpirun: rank and world size from
  /// the environment (readProcessEnv), device = LOCAL_RANK modulo the visible
  /// GPUs, unique id through `rendezvousPath` (defaultRendezvousPath() when
  /// empty). Rank 0 removes the file once every rank has joined.
  static std::unique_ptr<Communicator>
  createFromEnv(const std::string &rendezvousPath = "",
                int64_t rendezvousTimeoutMs = 60000, CommOptions opts = {});

  /// The communicator of the ranks whose color matches (ncclCommSplit,
  /// collective over `parent`): colors[i] and keys[i] for local rank i; all
  /// local ranks must share one color. Defined in Teams.cpp.
  static std::unique_ptr<Communicator>
  split(Communicator &parent, const std::vector<int> &colors,
        const std::vector<int> &keys);

  static UniqueIdBytes newUniqueId();
  /// Visible CUDA devices; 0 (no throw) when there is no driver or GPU.
  static int deviceCount();
  /// Sets NCCL_NVLS_ENABLE=0 (and the PyTorch/NVSHMEM equivalents) unless
  /// already set: the runtime never uses NVLink multicast.
  static void applySafeEnvironment();

  ~Communicator();
  Communicator(const Communicator &) = delete;
  Communicator &operator=(const Communicator &) = delete;

  int worldSize() const { return worldSize_; }
  int numLocal() const { return static_cast<int>(locals_.size()); }
  bool singleProcess() const { return numLocal() == worldSize_; }
  LocalRank &local(int i) { return locals_.at(i); }
  const LocalRank &local(int i) const { return locals_.at(i); }
  int64_t hostTimeoutMs() const { return hostTimeoutMs_; }
  /// Local rank i's teams: which world ranks it can load from and store to
  /// (NCCL's world team and ncclTeamLsa, queried on first use; Teams.cpp).
  const RankTeams &teams(int localIndex);

  /// All ranks of the world meet (an NCCL all-reduce of one int), bounded by
  /// the host timeout.
  void barrier();
  /// The smallest of every rank's value (one per local rank), on every rank.
  int allReduceMin(const std::vector<int> &perLocal);
  /// Waits for every local rank's stream, bounded by `timeoutMs` (the host
  /// timeout when < 0); checks NCCL's asynchronous errors while waiting.
  /// `what` names the work in the error message.
  void waitStreams(const std::string &what, int64_t timeoutMs = -1);
  /// Throws when NCCL reports an asynchronous error on a local rank.
  void checkAsyncErrors(const std::string &what);
  /// After a fatal failure (kernel trap, dead peer): teardown aborts the
  /// NCCL communicators instead of finalizing them with the peers.
  void markFailed() { failed_ = true; }
  bool failed() const { return failed_; }

  /// Runs `fn(localIndex)` for each local rank with its device current, and
  /// inside ncclGroupStart/End when this process drives several ranks.
  template <typename Fn> void forEachGrouped(Fn fn, bool group = true);
  /// Runs `fn(localIndex)` for each local rank with its device current.
  template <typename Fn> void forEach(Fn fn);

private:
  Communicator() = default;
  void setupLocals(CommOptions opts);
  void groupStart();
  void groupEnd();

  int worldSize_ = 0;
  int64_t hostTimeoutMs_ = 60000;
  bool failed_ = false;
  std::vector<LocalRank> locals_;
  std::vector<RankTeams> teams_; ///< per local rank, filled by teams()
};

/// Makes `device` current, checked.
void setDevice(int device, int rank);

template <typename Fn> void Communicator::forEach(Fn fn) {
  for (int i = 0; i < numLocal(); ++i) {
    setDevice(locals_[i].device, locals_[i].rank);
    fn(i);
  }
}

template <typename Fn> void Communicator::forEachGrouped(Fn fn, bool group) {
  bool grouped = group && numLocal() > 1;
  if (grouped)
    groupStart();
  try {
    forEach(fn);
  } catch (...) {
    if (grouped)
      (void)ncclGroupEnd(); // already failing: keep the first error
    throw;
  }
  if (grouped)
    groupEnd();
}

} // namespace dslc::rt

#endif // DSLC_RUNTIME_COMMUNICATOR_H
