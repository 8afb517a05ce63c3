//===- Session.h - What tuner compile, run and bench do ---------*- C++ -*-===//
//
// The tuner's three jobs (docs/tuner.md, docs/benchmark.md) as functions
// the main (tools/tuner) calls after parsing the command line:
//   compile: every candidate config of every kernel, and the reference;
//   run:     per problem (a collective's size N, or a kernel's shapes),
//            the fastest checked candidate, stored in the tuning cache;
//   bench:   NCCL (collectives), each kernel's tuned config and the pick.
// A problem is a collective's total element count, or, for kernels checked
// against a DSL reference, the tensors' shapes and the scalars' values.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLING_TUNER_SESSION_H
#define DSLC_TOOLING_TUNER_SESSION_H

#include "runtime/TuningCache.h"
#include "tooling/harness/KernelPlan.h"
#include "tooling/tuner/Candidates.h"
#include "tooling/tuner/Report.h"
#include "tooling/tuner/Worker.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dslc::tune {

struct TunerOptions {
  std::string dsl, dslc, out, candidates, cacheDir, csv, set;
  std::vector<std::string> kernels, dslcArgs;
  /// dslc arguments for the candidates only / the reference only.
  std::vector<std::string> kernelArgs, referenceArgs;
  std::string collective; ///< empty: all_reduce unless --reference
  std::string reference;  ///< FILE.py:NAME
  int worldSize = 2;
  std::string dtype; ///< empty: bfloat16 for collectives, else as annotated
  std::vector<int64_t> sizes;
  /// Kernels with a reference: one problem per --shape (each
  /// "x=4x8192,w=8192"), with the --size and --scalar items of every one.
  std::vector<std::string> shapes, sizeSpecs, scalarSpecs;
  bool force = false;
  double budgetS = 30;
  int jobs = 2;
  int samples = 5, iters = 20, replays = 20;
  /// "graph" or "eager"; empty: graph, but eager for a kernel (not a
  /// collective) timed with --l2-cold (tuningObjective).
  std::string objective;
  std::vector<int64_t> devices;
  int launch = 0;
  /// > 0: a virtual world of this many ranks on one GPU (no NCCL, no NCCL
  /// baselines; times labelled and cached under a virtual device name).
  int virtualWorld = 0;
  std::string rendezvous;
  /// --measurer-fds R,W: the process that started the tuner measures: the
  /// tuner reads its replies from fd R and writes requests to fd W (the
  /// worker protocol, Worker.h) instead of starting a worker.
  std::string measurerFds;
  int measurerIn = -1, measurerOut = -1;
  int64_t kernelTimeoutMs = 2000;
  double candidateTimeoutS = 120;
  bool quiet = false;
  int exhaustiveLimit = 64;
  /// --trace FILE: every point the search visits, one line each in visit
  /// order: problem, kernel and config, then its time or why it was skipped.
  std::string trace;
  // tuner bench, nccl-tests' conventions (docs/benchmark.md).
  /// -b/-e/-f: sizes in bytes (both 0: --sizes in elements).
  int64_t minBytes = 0, maxBytes = 0, stepFactor = 2;
  int warmup = -1; ///< -w: warm-up calls per phase (-1: min(3, calls))
  /// -G: 1 = the nccl-tests tables show CUDA-graph times, 0 = eager.
  int graphMode = 1;
  bool l2Cold = false; ///< --l2-cold: rotating sets, or flushes (kernels)
  /// --nccl-buffers: plain (cudaMalloc), window (symmetric window) or both.
  std::string ncclBuffers = "both";
  /// --process-models: one (one process drives every GPU), per-gpu (one
  /// process per GPU, --launch), both (one run of each, merged); empty:
  /// the model this process runs in.
  std::string processModels;
  std::string rowsOut; ///< internal: a child of `both` writes its rows here
  /// internal (the one-shot `tuner -k ...` of one process): spaces of more
  /// than this many configs are compiled as the search visits them (0: all
  /// up front, as `tuner compile` does).
  size_t compileAllUpTo = 0;
};

/// One thing tuned or benchmarked: a collective's N, or a kernel's shapes.
struct Problem {
  int64_t n = 0;         ///< N, or the largest input's element count
  run::ProblemSpec spec; ///< shapes and scalars (kernels with a reference)
  std::string label;     ///< "64K", "x=4x8192,w=8192"
  /// The cache key's size parts: bucket and (kernels) shape.
  int bucket = 0;
  std::string shape;
};

/// The problems of the command line for manifest `m`. Throws
/// rt::Error(InvalidArgument) for sizes given to a kernel with a reference
/// or shapes given to a collective.
std::vector<Problem> problems(const TunerOptions &o, const Manifest &m);
/// For kernels with a reference: plans every problem against each kernel's
/// compiled metadata and binds the reference (no GPU), so a shape the
/// kernels cannot take (a missing size, a dimension the kernel was compiled
/// for, a name it lacks) is one error before any measurement. Throws
/// rt::Error(InvalidArgument) naming the shape. (problems() calls it.)
void checkProblems(const Manifest &m, const std::vector<Problem> &ps);

/// `tuner compile`: returns the manifest written into `dir`.
Manifest doCompile(const TunerOptions &o, const std::string &dir,
                   Progress &prog);
/// The median `tuner run` minimizes for the candidates of `m`: o.objective,
/// else eager for a kernel with --l2-cold (only its eager calls follow a
/// flush) and graph otherwise; rt::Error when o asks for a kernel's graph
/// time L2-cold.
std::string tuningObjective(const TunerOptions &o, const Manifest &m);

/// `tuner run`: the exit status (0 when every problem found a candidate).
/// With o.compileAllUpTo, configs the search visits that `m` lacks are
/// compiled into it.
int doRun(const TunerOptions &o, Manifest m);
/// `tuner bench`: the exit status (0 when every result was right).
int doBench(const TunerOptions &o, const Manifest &m);
/// `tuner bench --process-models both`: the one-process run here, then
/// `launch` runs the per-GPU job (it gets the path its rank 0 writes its
/// rows to, and returns the job's status); the rows merged, printed and
/// written. The exit status.
int doBenchBothModels(const TunerOptions &o, const Manifest &m,
                      const std::function<int(const std::string &)> &launch);
/// The sizes of -b/-e/-f as element counts for manifest `m` (nccl-tests'
/// rounding); throws rt::Error(InvalidArgument) naming a size that holds
/// no element per rank.
std::vector<int64_t> sweepSizes(const TunerOptions &o, const Manifest &m);

// Shared by run and bench.
bool isRankZero();
std::string absPath(const std::string &p);
WorkerOptions workerOptions(const TunerOptions &o, const Manifest &m);
DeviceInfo jobDevices(WorkerClient &worker, const Manifest &m);
MeasureRequest baseRequest(const TunerOptions &o, const Problem &p);
rt::TuningKey problemKey(const Manifest &m, const DeviceInfo &di,
                         const Problem &p);

} // namespace dslc::tune

#endif // DSLC_TOOLING_TUNER_SESSION_H
