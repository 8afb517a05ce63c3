//===- Kernel.h - Loading and launching dslc kernels ------------*- C++ -*-===//
//
// A Kernel is one dslc kernel loaded on every local rank of a Communicator:
// the cubin (cuModuleLoadData) and its metadata, per rank (a kernel compiled
// for one rank differs per rank: the paths may hold "{rank}"). It owns the
// per-instance state the ABI asks for: the __dslc_state buffer, zeroed once
// at load and never again (flags and epochs advance inside the kernel, so
// back-to-back calls and CUDA-graph replays need no host reset), and a
// host-mapped DslcErrorRecord per rank. launch() only enqueues (no
// allocation, no synchronization), so it can be captured into a CUDA graph.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_RUNTIME_KERNEL_H
#define DSLC_RUNTIME_KERNEL_H

#include "runtime/Binding.h"
#include "runtime/Communicator.h"
#include "runtime/ErrorRecord.h"
#include "runtime/Metadata.h"

#include <cuda.h>

#include <memory>
#include <string>
#include <vector>

namespace dslc::rt {

struct KernelOptions {
  /// Bound on each spin in the kernel, in ms (0: unbounded). -1:
  /// $DSLC_TIMEOUT_MS, else 5000.
  int64_t timeoutMs = -1;
};

/// "{rank}" in `pattern` replaced by `rank`.
std::string expandRankPattern(const std::string &pattern, int rank);

/// Parses "sm_XY[a]" into major/minor; false when it is not of that form.
bool parseSmArch(const std::string &arch, int &major, int &minor);

class Kernel {
public:
  /// Loads `cubinPath` (with "{rank}" expanded per local rank) and its
  /// metadata (`metadataPath`, default: the cubin path + ".json").
  static std::unique_ptr<Kernel> load(Communicator &comm,
                                      const std::string &cubinPath,
                                      const std::string &metadataPath = "",
                                      KernelOptions opts = {});
  /// Same from memory: one image and one metadata per local rank (or one
  /// of each, used for every rank).
  static std::unique_ptr<Kernel>
  loadImages(Communicator &comm, const std::vector<std::string> &images,
             const std::vector<KernelMetadata> &metadata,
             KernelOptions opts = {});
  ~Kernel();
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;

  const KernelMetadata &metadata(int localIndex = 0) const;
  /// Empty arguments for local rank `localIndex`.
  /// Arguments for local rank `localIndex`, with its teams (peer tables
  /// that need a rank outside its LSA team are refused when bound).
  BoundArgs args(int localIndex) const;

  int64_t timeoutMs() const { return timeoutMs_; }
  void setTimeoutMs(int64_t ms);

  /// CTAs a launch with `args` gets on local rank `localIndex`.
  int64_t gridFor(int localIndex, const BoundArgs &args) const;
  int maxActivePerSm(int localIndex) const;

  /// Checks `args` and enqueues the kernel on `stream`: kRankStream is the
  /// rank's own stream, any other handle is CUDA's (nullptr: the legacy
  /// default stream, PyTorch's default). Capturable.
  void launch(int localIndex, const BoundArgs &args,
              cudaStream_t stream = kRankStream);
  /// launch() on every local rank, each on its own stream.
  void launchAll(const std::vector<BoundArgs> &args);
  /// Waits (bounded) for every local rank's stream and for the launches
  /// made on other streams since the last synchronize() (an event recorded
  /// after each), then checks the error records: a timed-out spin becomes
  /// Error(KernelTimeout) with the record's message; a peer that stopped
  /// answering, Error(Timeout).
  void synchronize();
  /// Throws Error(KernelTimeout) when a rank's error record is set.
  void checkErrorRecords();
  /// Zeroes the state buffers again (not needed between calls).
  void resetState();
  const DslcErrorRecord &errorRecord(int localIndex) const;

private:
  struct PerRank {
    KernelMetadata md;
    CUmodule module = nullptr;
    CUfunction function = nullptr;
    int maxActivePerSm = 0;
    /// Dynamic shared memory per CTA at launch: the metadata's
    /// shared_bytes less what the cubin declares statically.
    unsigned dynamicShared = 0;
    /// Co-resident CTAs agreed by all ranks (the smallest).
    int64_t resident = 0;
    void *state = nullptr;
    DslcErrorRecord *record = nullptr; ///< host-mapped
    void *recordDevice = nullptr;
    /// Recorded after each launch on a stream other than the rank's own
    /// (not while that stream is capturing); synchronize() waits for it.
    cudaEvent_t foreignDone = nullptr;
    bool foreignPending = false;
  };
  explicit Kernel(Communicator &comm) : comm_(comm) {}
  void loadRank(int i, const std::string &image, KernelMetadata md);
  void checkSignature(const PerRank &r, int rank) const;
  void reserveDynamicShared(PerRank &r, const LocalRank &l) const;
  std::string collectRecords() const;
  /// Why `resident` co-resident CTAs cannot give every rank of a virtual
  /// world one: the sizes that decide it.
  std::string coResidencyProblem(int64_t resident) const;
  void waitForeignLaunches(int64_t timeoutMs);
  void release();

  Communicator &comm_;
  int64_t timeoutMs_ = 5000;
  std::vector<PerRank> ranks_;
};

} // namespace dslc::rt

#endif // DSLC_RUNTIME_KERNEL_H
