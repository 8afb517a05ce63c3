//===- Communicator.h - NCCL communicator over the local GPUs ---*- C++ -*-===//
//
// A Communicator is this process's share of an NCCL world: either every local
// GPU driven by this one process (createAll, ncclCommInitAll), or one GPU of
// a multi-process job (createRank / createFromEnv, ncclCommInitRank). The
// rest of the runtime works on its local ranks the same way in both models.
// A third model needs no NCCL: a virtual world (createVirtual) of W ranks on
// one GPU in one process, each rank with its own stream, buffers and
// kernels, so multi-rank kernels run on a machine with one GPU (docs/
// runtime.md, "Virtual world"); its barrier is the host waiting for every
// rank's stream.
// Every wait it does is bounded: a peer that died becomes an Error(Timeout)
// naming the rank and what was waited for, not a hang. Its NCCL
// communicators are non-blocking (runtime/NcclAsync.h): initialization,
// window registration and finalization are bounded by the host timeout too,
// and a communicator that failed is aborted, never finalized.
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

/// The largest virtual world: CUDA's most hardware work queues per device
/// (CUDA_DEVICE_MAX_CONNECTIONS), one per rank's stream.
constexpr int kMaxVirtualWorld = 32;

/// The name of "the rank's own stream" (LocalRank::stream) wherever the
/// runtime takes a stream. Every other handle means what it means to CUDA:
/// nullptr (0) is the legacy default stream, which is also PyTorch's default
/// stream, and cudaStreamPerThread the per-thread one. A null stream never
/// stands for the rank's own stream: that stream is non-blocking, so work on
/// it is unordered with the caller's default-stream work.
inline const cudaStream_t kRankStream =
    reinterpret_cast<cudaStream_t>(~uintptr_t(0));

/// One rank driven by this process.
struct LocalRank {
  int rank = 0;
  int device = 0;
  int numSms = 0;
  int ccMajor = 0, ccMinor = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr; ///< the rank's stream (non-blocking)
  int *scratch = nullptr;        ///< device int for barriers

  /// The CUDA stream a caller's `s` names (kRankStream: this rank's own).
  cudaStream_t resolve(cudaStream_t s) const {
    return s == kRankStream ? stream : s;
  }
};

struct CommOptions {
  /// Bound on every host-side wait (NCCL initialization, window
  /// registration, barriers, synchronization, finalization), in ms; 0 waits
  /// forever. Default: $DSLC_HOST_TIMEOUT_MS, else 60000
  /// (resolveHostTimeoutMs, runtime/NcclAsync.h).
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
  static std::unique_ptr<Communicator> createRank(int rank, int worldSize,
                                                  int device,
                                                  const UniqueIdBytes &id,
                                                  CommOptions opts = {});
  /// One rank of a job started by torchrun/mpirun: rank and world size from
  /// the environment (readProcessEnv), device = LOCAL_RANK modulo the visible
  /// GPUs, unique id through `rendezvousPath` (defaultRendezvousPath() when
  /// empty). Rank 0 removes the file once every rank has joined.
  static std::unique_ptr<Communicator>
  createFromEnv(const std::string &rendezvousPath = "",
                int64_t rendezvousTimeoutMs = 60000, CommOptions opts = {});
  /// A virtual world: ranks 0..worldSize-1 all on `device`, driven by this
  /// process, with no NCCL communicator (1 <= worldSize <=
  /// kMaxVirtualWorld). Each rank has its own non-blocking stream; its
  /// kernels' CTAs share the GPU (Kernel::load gives each rank 1/worldSize
  /// of the co-resident CTAs). Sets CUDA_DEVICE_MAX_CONNECTIONS so that the
  /// ranks' streams get hardware queues of their own, and refuses a world
  /// larger than the queues (ranks behind one queue would wait for each
  /// other's spinning kernels).
  static std::unique_ptr<Communicator>
  createVirtual(int worldSize, int device = 0, CommOptions opts = {});

  /// The communicator of the ranks whose color matches (ncclCommSplit,
  /// collective over `parent`): colors[i] and keys[i] for local rank i; all
  /// local ranks must share one color. Defined in Teams.cpp.
  static std::unique_ptr<Communicator> split(Communicator &parent,
                                             const std::vector<int> &colors,
                                             const std::vector<int> &keys);

  static UniqueIdBytes newUniqueId();
  /// Visible CUDA devices; 0 (no throw) when there is no driver or GPU.
  static int deviceCount();
  /// Sets NCCL_NVLS_ENABLE=0 (and the PyTorch/NVSHMEM equivalents) unless
  /// already set: the runtime never uses NVLink multicast.
  static void applySafeEnvironment();
  /// Sets CUDA_DEVICE_MAX_CONNECTIONS to kMaxVirtualWorld unless set, so
  /// that a virtual world made later in this process has a hardware queue
  /// per rank. Effective only before the process's first CUDA context
  /// (createVirtual does it itself when it comes first).
  static void reserveVirtualWorldQueues();

  ~Communicator();
  Communicator(const Communicator &) = delete;
  Communicator &operator=(const Communicator &) = delete;

  int worldSize() const { return worldSize_; }
  /// A virtual world (createVirtual): every rank on one device, no NCCL.
  bool isVirtual() const { return virtual_; }
  /// Local ranks sharing local rank i's device (1 but in a virtual world).
  int ranksPerDevice() const { return virtual_ ? numLocal() : 1; }
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
  /// Waits until no local communicator has an NCCL call in progress (the
  /// non-blocking mode's ncclInProgress), bounded by `timeoutMs` (the host
  /// timeout when < 0). On an error or a timeout the communicator is marked
  /// failed and the Error names `what`.
  void settle(const std::string &what, int64_t timeoutMs = -1);
  /// Ends the run collectively: waits for the streams, meets every rank
  /// (barrier) and finalizes the communicators, each bounded by the host
  /// timeout. Throws when a peer died (or anything failed before); the
  /// destructor then aborts. Without it the destructor finalizes, bounded,
  /// and only warns.
  void finalize();
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
  void initComms(const UniqueIdBytes &id);
  void finalizeComms();
  void setupLocals();
  void groupStart();
  void groupEnd();

  int worldSize_ = 0;
  bool virtual_ = false;
  int64_t hostTimeoutMs_ = 60000;
  bool failed_ = false;
  bool finalized_ = false;
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
  bool grouped = group && numLocal() > 1 && !virtual_;
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
