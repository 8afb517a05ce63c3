//===- Worker.h - The tuner's measuring child process -----------*- C++ -*-===//
//
// The tuner never touches a GPU itself: a worker process (this executable,
// `tuner __worker`) holds the communicator and measures one candidate at a
// time on request. A kernel that traps (a timed-out wait, a fault) leaves
// its CUDA context unusable and NCCL's communicator with it; the worker
// then reports the failure and exits, and the client starts a fresh one for
// the next candidate. A worker that does not answer in time is killed. So a
// bad candidate costs one worker restart (about a second), never the run.
//
// Protocol: one JSON object per line, requests on the worker's stdin,
// replies on the file descriptor named by $DSLC_TUNER_REPLY_FD (its stdout
// and stderr stay the tuner's, for NCCL's and CUDA's messages).
//
// With one process per GPU (RANK/WORLD_SIZE set, `tuner --launch N`), each
// rank's tuner runs a worker that joins the others' through a rendezvous
// file (a fresh one per worker generation). Every rank measures the same
// candidate; after each measurement the workers all-reduce (max) a failure
// flag and rank 0's times, so every rank gets rank 0's times and a failure
// on any rank fails the candidate everywhere: the ranks' searches, being
// deterministic, then take the same steps.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLING_TUNER_WORKER_H
#define DSLC_TOOLING_TUNER_WORKER_H

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dslc::tune {

struct MeasureRequest {
  /// Absolute cubin path pattern ({rank}); empty: NCCL.
  std::string cubin;
  int64_t maxCtas = 0; ///< grid cap (0: none)
  int64_t n = 0;       ///< total elements (the collective's N)
  int64_t maxN = 0;    ///< harness sized for this (>= n)
  int iters = 20, graphReplays = 20, repetitions = 5;
  uint32_t seed = 1;
  /// Kernels checked against a reference (no collective): the problem's
  /// tensor shapes and scalar values (n and maxN are unused).
  std::map<std::string, std::vector<int64_t>> shapes;
  std::map<std::string, double> scalars;
  /// NCCL (empty cubin): input and output in the symmetric window
  /// (NCCL_WIN_COLL_SYMMETRIC) instead of cudaMalloc'ed; in place.
  bool ncclWindow = false, inPlace = false;
  /// L2-cold: a collective's input and output rotate over copies whose
  /// total exceeds L2; any other kernel's eager calls each follow a flush.
  bool l2Cold = false;
  int warmup = -1; ///< warm-up calls per phase (-1: min(3, calls); 0: none)
  /// Past this many us a call in the warm-up, the warm-up's times are the
  /// reply (0: never): a candidate that slow cannot win, and timing it in
  /// full costs more than the rest of a search (the tuner sets it from its
  /// best so far, kCutoffFactor; one process only, as ranks must agree).
  double cutoffUs = 0;
};

/// A candidate whose warm-up call takes this many times the best time so
/// far is not timed further (MeasureRequest::cutoffUs). Generous: a first
/// call may pay for lazy module loading.
inline constexpr double kCutoffFactor = 5.0;

struct MeasureReply {
  bool ok = false;
  bool fatal = false; ///< the worker exited (or was killed)
  std::string reason;
  double eagerUs = 0, graphUs = 0;       ///< medians
  double eagerMinUs = 0, graphMinUs = 0; ///< minimums
  int64_t mismatches = 0;
  /// NCCL: the kernel(s) NCCL's TUNING log names for this call (when the
  /// worker logs them, WorkerOptions::ncclLog), e.g. "symk
  /// AllReduce_AGxLL_R ch 2" or "RING/LL ch 2".
  std::string ncclKernel;
  /// L2-cold: how many rotating sets, and a note when they stay below L2.
  int sets = 1;
  std::string note;
  bool cutOff = false; ///< timed by the warm-up only (cutoffUs)
};

struct DeviceInfo {
  std::string device; ///< "NVIDIA H200"
  std::string driver; ///< "cuda 13.0 driver, 13.0 runtime"
  int worldSize = 0;
  int numLocal = 0;
  int rank = 0;            ///< of the first local rank
  int multiprocessors = 0; ///< SMs of the first local GPU (0: not known)
};

struct WorkerOptions {
  /// The collective the candidates implement; empty: each is checked
  /// against `referenceCubin` (absolute path) on the request's shapes.
  std::string collective = "all_reduce";
  std::string referenceCubin;
  std::string dtype = "bfloat16";
  std::vector<int> devices;   ///< one process: the GPUs (empty: all)
  int virtualWorld = 0;       ///< > 0: that many ranks on devices[0] (else 0)
  std::string rendezvousBase; ///< multi-process: base of rendezvous paths
  int64_t kernelTimeoutMs = 2000; ///< bound on each spin in a kernel
  double requestTimeoutS = 120;   ///< a worker silent longer is killed
  /// >= 0: no worker is started; the process that started the tuner
  /// measures (`--measurer-fds`): its replies come on callerIn, requests go
  /// to callerOut. It cannot be restarted: a fatal reply ends the run.
  int callerIn = -1, callerOut = -1;
  /// Record which kernel NCCL runs: the worker sets NCCL_DEBUG=INFO,
  /// NCCL_DEBUG_SUBSYS=TUNING and NCCL_DEBUG_FILE (a file of its own)
  /// before NCCL starts, and reads NCCL's lines after each NCCL call.
  bool ncclLog = false;
  bool verbose = false;
};

class WorkerClient {
public:
  explicit WorkerClient(WorkerOptions opts) : opts_(std::move(opts)) {}
  ~WorkerClient();
  WorkerClient(const WorkerClient &) = delete;
  WorkerClient &operator=(const WorkerClient &) = delete;

  /// Starts the worker if needed and asks what it runs on. Throws
  /// rt::Error when no worker can start (e.g. no GPU: ErrorCode::NoDevice).
  DeviceInfo info();
  /// Measures (starting a worker if none runs). Never throws for a
  /// candidate's failure: the reply says it.
  MeasureReply measure(const MeasureRequest &req);
  int restarts() const { return restarts_; }
  void stop();

private:
  bool caller() const { return opts_.callerIn >= 0; }
  bool running() const { return caller() ? callerUp_ : pid_ > 0; }
  bool start(std::string &why);
  /// Sends one line and waits for one reply line; false when the worker
  /// died or timed out (then it is gone).
  bool roundTrip(const std::string &request, std::string &reply,
                 std::string &why, double timeoutS);
  void kill();

  WorkerOptions opts_;
  pid_t pid_ = -1;
  int toWorker_ = -1, fromWorker_ = -1;
  int generation_ = 0, restarts_ = 0;
  bool callerUp_ = false, callerUsed_ = false;
  std::string buffered_;
};

/// `tuner __worker ...`: the worker's main.
int workerMain(int argc, char **argv);

} // namespace dslc::tune

#endif // DSLC_TOOLING_TUNER_WORKER_H
