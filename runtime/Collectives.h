//===- Collectives.h - Tuned collectives with an NCCL fallback --*- C++ -*-===//
//
// The library entry point, the counterpart of ncclAllReduce: allReduce,
// reduceScatter and allGather dispatch per call to the dslc kernel that the
// tuner picked for this collective, dtype, world size and size bucket
// (runtime/TuningCache.h), or to NCCL where NCCL measured faster, nothing is
// tuned, the op is not a sum or the kernel cannot run here.
//
// Kernels come compiled ahead: a kernel directory is what `tuner compile`
// wrote (a manifest.json and the cubins); $DSLC_KERNEL_DIR may list several,
// separated by ':' (one per collective and dtype). The user's buffers need
// not be symmetric: a kernel's symmetric input is a staging buffer the
// library owns (the user's input is copied in with cudaMemcpyAsync on the
// call's stream), its output is the user's buffer.
//
// Each (kernel, element count) gets its own instance: the loaded kernel
// (with its zeroed state) and its signal pads / packet scratch. Instances
// are made on first use outside graph capture, or ahead by prepare(); a
// call captured into a CUDA graph never allocates or synchronizes: without
// a prepared instance it falls back to NCCL. Making an instance is
// collective (symmetric allocations): every rank makes the same calls in
// the same order, as with any NCCL collective. When one thread drives
// several GPUs, call prepare() first (instances are not made lazily then)
// and wrap the per-rank calls in ncclGroupStart/End, as for NCCL.
//
// On a world that spans nodes (NCCL's LSA team smaller than the world,
// runtime/Teams.h) no kernel runs on the whole world: each call goes either
// to NCCL or hierarchically (kernels inside each node, NCCL across nodes;
// runtime/Hierarchical.h), and lastCall() says which ran.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_RUNTIME_COLLECTIVES_H
#define DSLC_RUNTIME_COLLECTIVES_H

#include "contract/Candidates.h"
#include "runtime/CollectivePlan.h"
#include "runtime/Communicator.h"
#include "runtime/DType.h"
#include "runtime/TuningCache.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dslc::rt {

class Hierarchy;
class Kernel;
class SymmetricHeap;

enum class ReduceOp { Sum, Prod, Max, Min, Avg };

std::optional<ReduceOp> parseReduceOp(const std::string &name);

/// Where a call goes.
struct DispatchChoice {
  /// Hierarchical: on a world spanning nodes, kernels inside each node and
  /// NCCL across nodes (runtime/Hierarchical.h).
  enum class Kind { Nccl, Kernel, Hierarchical };
  Kind kind = Kind::Nccl;
  std::string reason;    ///< why (for logs and tests)
  KernelChoice kernel;   ///< Kernel: the tuned kernel and config
  std::string kernelDir; ///< Kernel: where its cubins are
};

/// "nccl", "kernel", "hierarchical".
const char *dispatchKindName(DispatchChoice::Kind k);

/// The dispatch decision, a pure function: `entry` is the cache record for
/// the call's key (if any), `totalBytes` the bytes of the larger of input
/// and output, `stagingBytes` the library's staging capacity, `cubinFound`
/// whether the entry's cubin exists in `kernelDir`.
DispatchChoice decideDispatch(const std::optional<TuningValue> &entry,
                              ReduceOp op, size_t totalBytes,
                              size_t stagingBytes, bool cubinFound,
                              const std::string &kernelDir);

/// "cuda 13.0 driver, 13.0 runtime" from cudaDriverGetVersion /
/// cudaRuntimeGetVersion values (the tuning cache's `driver`).
std::string cudaVersionString(int driverVersion, int runtimeVersion);

/// A kernel directory's manifest (what the library needs of it).
struct KernelDirInfo {
  std::string dir;
  std::string collective, dtype, set;
  int worldSize = 0;
  /// Choices the tuner measured on worlds of several such nodes.
  std::vector<contract::HierarchyRecord> hierarchy;
};
/// Reads DIR/manifest.json (contract/Candidates.h); nullopt (and a warning
/// on stderr naming the problem) when it is missing or damaged.
std::optional<KernelDirInfo> readKernelDir(const std::string &dir);

struct CollectivesOptions {
  /// ':'-separated kernel directories; empty: $DSLC_KERNEL_DIR.
  std::string kernelDirs;
  /// The tuning cache's directory; empty: contract::cacheDir's rule.
  std::string cacheDir;
  /// Staging bytes per rank (inputs copied in, pads, scratch); 0:
  /// $DSLC_STAGING_BYTES, else 256 MiB. Larger calls go to NCCL.
  size_t stagingBytes = 0;
  /// Bound on each spin in a kernel (ms); -1: $DSLC_TIMEOUT_MS or 5000.
  int64_t timeoutMs = -1;
  /// Most kernel instances kept (each element count needs one).
  int maxInstances = 32;
  /// Print one line per new dispatch decision, and the teams at creation
  /// ($DSLC_COLLECTIVES_LOG=1 or info).
  bool log = false;
};

class Collectives {
public:
  /// Collective over the ranks (allocates the staging heap).
  explicit Collectives(Communicator &comm, CollectivesOptions opts = {});
  ~Collectives();
  Collectives(const Collectives &) = delete;
  Collectives &operator=(const Collectives &) = delete;

  /// recv[i] = sum over ranks of send[i], i < count. send == recv allowed.
  void allReduce(int local, const void *send, void *recv, size_t count,
                 DType dtype, ReduceOp op, cudaStream_t stream);
  /// recv[i] = sum over ranks r of send_r[rank * recvCount + i].
  void reduceScatter(int local, const void *send, void *recv, size_t recvCount,
                     DType dtype, ReduceOp op, cudaStream_t stream);
  /// recv[r * sendCount + i] = send_r[i].
  void allGather(int local, const void *send, void *recv, size_t sendCount,
                 DType dtype, cudaStream_t stream);

  /// Makes the instances the given total element counts dispatch to (for
  /// graph capture, or several GPUs per thread). Collective.
  void prepare(CollectiveKind kind, const std::vector<size_t> &totalCounts,
               DType dtype, ReduceOp op = ReduceOp::Sum);
  /// Where a call of `totalCount` elements (the collective's N) goes. On a
  /// world that spans nodes: Hierarchical or NCCL (runtime/Hierarchical.h).
  DispatchChoice choose(CollectiveKind kind, size_t totalCount, DType dtype,
                        ReduceOp op = ReduceOp::Sum) const;

  /// What the last call did (on any local rank): the path that ran and why.
  struct CallRecord {
    CollectiveKind kind = CollectiveKind::AllReduce;
    size_t totalCount = 0;
    DType dtype = DType::Float32;
    DispatchChoice::Kind path = DispatchChoice::Kind::Nccl;
    std::string reason;
    /// "all_reduce bfloat16 of 1024: hierarchical (REASON)".
    std::string describe() const;
  };
  const std::optional<CallRecord> &lastCall() const { return lastCall_; }
  /// The kernel directories read (their manifests).
  const std::vector<KernelDirInfo> &kernelDirs() const { return dirs_; }
  /// On a world spanning nodes (one rank per process, not
  /// DSLC_HIERARCHICAL=off): the node and rail communicators; else null.
  Hierarchy *hierarchy() { return hier_.get(); }

  Communicator &comm() { return comm_; }
  /// Calls that went to a kernel / to NCCL so far (all local ranks).
  size_t kernelCalls() const { return kernelCalls_; }
  size_t ncclCalls() const { return ncclCalls_; }
  size_t hierarchicalCalls() const { return hierarchicalCalls_; }

  /// The instance of the communicator's default Collectives (made on first
  /// use with default options); released by releaseDefault (before the
  /// communicator is destroyed).
  static Collectives &forComm(Communicator &comm);
  static void releaseDefault(Communicator &comm);

private:
  struct Instance;
  void run(CollectiveKind kind, int local, const void *send, void *recv,
           size_t totalCount, DType dtype, ReduceOp op, cudaStream_t stream);
  void nccl(CollectiveKind kind, int local, const void *send, void *recv,
            size_t totalCount, DType dtype, ReduceOp op, cudaStream_t stream);
  Instance *instance(const DispatchChoice &c, CollectiveKind kind,
                     size_t totalCount, DType dtype, bool mayCreate);
  void setUp(Instance &inst, const DispatchChoice &c, CollectiveKind kind,
             size_t totalCount, DType dtype);
  void note(CollectiveKind kind, size_t totalCount, DType dtype,
            DispatchChoice::Kind path, const std::string &reason);

  Communicator &comm_;
  CollectivesOptions opts_;
  std::vector<KernelDirInfo> dirs_;
  std::vector<TuningRecord> records_;
  std::string device_, driver_;
  std::unique_ptr<SymmetricHeap> heap_;
  std::map<std::string, std::unique_ptr<Instance>> instances_;
  std::map<std::string, bool> logged_;
  size_t kernelCalls_ = 0, ncclCalls_ = 0, hierarchicalCalls_ = 0;
  std::unique_ptr<Hierarchy> hier_;
  std::string flatReason_; ///< non-empty: the world spans nodes, why flat
  std::optional<CallRecord> lastCall_;
};

/// ncclAllReduce's counterpart on the communicator's default Collectives
/// (local rank `local`; `stream` as CUDA means it, kRankStream for the rank's
/// own stream).
void allReduce(Communicator &comm, const void *send, void *recv, size_t count,
               DType dtype, ReduceOp op, cudaStream_t stream, int local = 0);
void reduceScatter(Communicator &comm, const void *send, void *recv,
                   size_t recvCount, DType dtype, ReduceOp op,
                   cudaStream_t stream, int local = 0);
void allGather(Communicator &comm, const void *send, void *recv,
               size_t sendCount, DType dtype, cudaStream_t stream,
               int local = 0);

} // namespace dslc::rt

#endif // DSLC_RUNTIME_COLLECTIVES_H
