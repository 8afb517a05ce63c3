//===- KernelHarness.cpp - Run, check and time any kernel -----------------===//
#include "tooling/harness/KernelHarness.h"

#include "contract/Tolerance.h"
#include "runtime/Error.h"
#include "tooling/harness/ElementTypes.h"
#include "tooling/support/Sizes.h"

#include <fmt/format.h>

#include <cmath>

namespace dslc::run {

using namespace dslc::rt;

std::vector<char> hostInput(const KernelPlan &plan, int arg, int rank,
                            uint32_t seed) {
  const PlannedArg &p = plan.args.at(arg);
  int64_t n = p.numel();
  std::vector<char> host(static_cast<size_t>(n) * dtypeSize(p.dtype));
  for (int64_t k = 0; k < n; ++k)
    storeAny(
        host.data(), k, p.dtype,
        seededElement(seed, rank, k, p.dtype, static_cast<uint32_t>(arg + 1)));
  return host;
}

OutputVerdict checkOutput(const KernelPlan &plan, int arg, int rank,
                          const void *got, const std::vector<double> *want,
                          const std::string &against) {
  const PlannedArg &p = plan.args.at(arg);
  int64_t n = p.numel();
  OutputVerdict v;
  v.rank = rank;
  v.arg = arg;
  std::string head =
      fmt::format("rank {}: output '{}' ({}[{}])", rank, p.name,
                  dtypeName(p.dtype), tooling::formatShape(p.shape));
  std::vector<double> values(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k)
    values[k] = loadAny(got, k, p.dtype);
  if (!want) {
    int64_t bad = 0, first = -1;
    for (int64_t k = 0; k < n && isFloating(p.dtype); ++k)
      if (!std::isfinite(values[k]) && bad++ == 0)
        first = k;
    v.ok = bad == 0;
    v.line = v.ok ? fmt::format("{}: written, no NaN (not compared: no "
                                "reference): ok",
                                head)
                  : fmt::format("{}: {} element(s) NaN or never written, "
                                "first {}: FAILED",
                                head, bad, first);
    return v;
  }
  double tol = contract::relativeTolerance(
      p.dtype, plan.spec.sumTerms > 0 ? static_cast<int>(plan.spec.sumTerms)
                                      : plan.world);
  contract::ToleranceCheck c = contract::checkWithTolerance(
      values.data(), want->data(), nullptr, n, tol);
  v.ok = c.ok;
  std::string worst =
      c.worst >= 0 ? fmt::format("; worst element {}: got {}, expected {}",
                                 c.worst, values[c.worst], (*want)[c.worst])
                   : "";
  v.line = fmt::format(
      "{}: {} element(s) differ from the {}, max relative "
      "error {:.2e} ({}), max abs {:.3g}{}{}: {}",
      head, c.mismatched, against, c.relError, contract::toleranceText(tol),
      c.maxAbsError,
      c.outliers ? fmt::format(", {} beyond their own bound", c.outliers) : "",
      worst, c.ok ? "ok" : "FAILED");
  return v;
}

KernelHarness::KernelHarness(Communicator &comm, Kernel &kernel,
                             KernelPlan plan, SymmetricHeap *heap)
    : comm_(comm), kernel_(kernel), plan_(std::move(plan)) {
  std::vector<ArgumentMemory::Need> needs;
  for (const PlannedArg &p : plan_.args)
    needs.push_back({p.isTensor && p.role != Role::PeerTable, p.bytes, p.inHeap,
                     p.fill == Fill::ZeroOnce});
  memory_ =
      std::make_unique<ArgumentMemory>(comm_, heap, plan_.heapBytes(), needs);
  for (int i = 0; i < comm_.numLocal(); ++i) {
    BoundArgs a = kernel_.args(i);
    bindKernel(a, plan_, memory_->locals(i), memory_->peers(i),
               comm_.local(i).rank);
    args_.push_back(std::move(a));
  }
}

KernelHarness::~KernelHarness() = default;

void KernelHarness::fillInputs(uint32_t seed) {
  for (int arg : plan_.inputs()) {
    comm_.forEach([&](int i) {
      const LocalRank &l = comm_.local(i);
      std::vector<char> host = hostInput(plan_, arg, l.rank, seed);
      DSLC_CUDART(l.rank, cudaMemcpy((*memory_)[arg].local(i), host.data(),
                                     host.size(), cudaMemcpyHostToDevice));
    });
  }
  // Every rank's inputs must be in place before any rank reads them.
  comm_.barrier();
}

void KernelHarness::zeroOutputs(int i) {
  const LocalRank &l = comm_.local(i);
  setDevice(l.device, l.rank);
  for (int arg : plan_.outputs())
    if (plan_.args[arg].fill == Fill::Zero)
      DSLC_CUDART(l.rank,
                  cudaMemsetAsync((*memory_)[arg].local(i), 0,
                                  static_cast<size_t>(plan_.args[arg].numel()) *
                                      dtypeSize(plan_.args[arg].dtype),
                                  l.stream));
}

void KernelHarness::poisonOutputs() {
  for (int arg : plan_.outputs()) {
    if (plan_.args[arg].fill == Fill::Zero)
      continue; // zeroed before each call
    size_t bytes = static_cast<size_t>(plan_.args[arg].numel()) *
                   dtypeSize(plan_.args[arg].dtype);
    comm_.forEach([&](int i) {
      const LocalRank &l = comm_.local(i);
      DSLC_CUDART(l.rank, cudaMemsetAsync((*memory_)[arg].local(i), 0xff, bytes,
                                          l.stream));
    });
  }
  comm_.waitStreams("output poisoning");
  // Peers may store into this rank's outputs: the poison must land
  // everywhere before any rank's next call.
  comm_.barrier();
}

void KernelHarness::check(KernelResult &res, Reference *ref,
                          const char *phase) {
  res.verdicts.clear();
  for (int i = 0; i < comm_.numLocal(); ++i) {
    const LocalRank &l = comm_.local(i);
    setDevice(l.device, l.rank);
    for (int arg : plan_.outputs()) {
      const PlannedArg &p = plan_.args[arg];
      std::vector<char> host(static_cast<size_t>(p.numel()) *
                             dtypeSize(p.dtype));
      DSLC_CUDART(l.rank, cudaMemcpy(host.data(), (*memory_)[arg].local(i),
                                     host.size(), cudaMemcpyDeviceToHost));
      const std::vector<double> *want =
          ref ? ref->expected(arg, l.rank) : nullptr;
      OutputVerdict v = checkOutput(plan_, arg, l.rank, host.data(), want,
                                    ref ? ref->name() : "");
      if (!v.ok && res.failures++ == 0)
        res.firstFailure = fmt::format("{}: {}", phase, v.line);
      res.verdicts.push_back(v.line);
    }
  }
}

KernelResult KernelHarness::run(const RunOptions &o, Reference *ref) {
  if (o.repetitions < 1 || o.iters < 0 || o.graphReplays < 0)
    raise(ErrorCode::InvalidArgument,
          fmt::format("kernel {}: repetitions must be >= 1 and the call "
                      "counts >= 0 (got {}, {}, {})",
                      plan_.kernel, o.repetitions, o.iters, o.graphReplays));
  KernelResult res;
  fillInputs(o.seed);
  if (ref)
    ref->prepare(plan_, o.seed);
  PhaseHooks h;
  h.callAll = [&] {
    for (int i = 0; i < comm_.numLocal(); ++i)
      zeroOutputs(i);
    kernel_.launchAll(args_);
  };
  h.callOne = [&](int i) {
    zeroOutputs(i);
    kernel_.launch(i, args_[i]);
  };
  h.wait = [&] { kernel_.synchronize(); };
  h.prepare = [&] { poisonOutputs(); };
  h.check = [&](const char *phase) { check(res, ref, phase); };
  measurePhases(comm_, o, h, res.eager, res.graph);
  return res;
}

} // namespace dslc::run
