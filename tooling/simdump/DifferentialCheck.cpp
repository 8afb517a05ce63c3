//===- DifferentialCheck.cpp - Run a kernel on a simulator dump -----------===//
#include "tooling/simdump/DifferentialCheck.h"

#include "runtime/Error.h"
#include "runtime/SymmetricHeap.h"

#include <fmt/format.h>

#include <map>
#include <memory>

namespace dslc::run {

using namespace dslc::rt;

namespace {
size_t roundUp(size_t v, size_t a) { return (v + a - 1) / a * a; }
} // namespace

DifferentialResult runDifferentialCheck(Communicator &comm, Kernel &kernel,
                                        const SimulationDump &dump) {
  const int world = comm.worldSize();
  for (int i = 0; i < comm.numLocal(); ++i)
    checkDumpMatchesKernel(dump, kernel.metadata(i), world);

  // Every tensor but the peer tables lives in one symmetric heap, allocated
  // in manifest order (the same on every rank and process).
  size_t heapBytes = size_t(4) << 20;
  for (const DumpParam &p : dump.params)
    if (p.isTensor() && p.role != DumpParam::Role::PeerTable)
      heapBytes += roundUp(std::max<size_t>(p.bytes(), 16), 256) +
                   roundUp(static_cast<size_t>(world) * 8, 256) + 512;
  auto heap = std::make_unique<SymmetricHeap>(comm, heapBytes);
  std::map<std::string, SymmetricBuffer> buffers;
  for (const DumpParam &p : dump.params) {
    if (!p.isTensor() || p.role == DumpParam::Role::PeerTable)
      continue;
    size_t bytes = std::max<size_t>(p.bytes(), 16);
    // Signal pads and LL scratches start zeroed, as in the simulator.
    bool zeroed = p.role == DumpParam::Role::SignalPad ||
                  p.role == DumpParam::Role::Scratch;
    buffers[p.name] =
        zeroed ? heap->allocSignalPad(bytes) : heap->alloc(bytes, 256);
  }

  // Inputs from the dump (launch 0), outputs poisoned (NaN for floats).
  comm.forEach([&](int i) {
    const LocalRank &l = comm.local(i);
    for (const DumpParam &p : dump.params) {
      if (p.role == DumpParam::Role::Input) {
        std::vector<char> data = dump.readInput(l.rank, 0, p);
        DSLC_CUDART(l.rank, cudaMemcpy(buffers[p.name].local[i], data.data(),
                                       data.size(), cudaMemcpyHostToDevice));
      } else if (p.role == DumpParam::Role::Output) {
        DSLC_CUDART(l.rank,
                    cudaMemset(buffers[p.name].local[i], 0xff, p.bytes()));
      }
    }
  });
  // Every rank's inputs must be in place before any rank reads them.
  comm.barrier();

  std::vector<BoundArgs> args;
  for (int i = 0; i < comm.numLocal(); ++i) {
    const KernelMetadata &md = kernel.metadata(i);
    BoundArgs a = kernel.args(i);
    for (const ArgSpec &spec : md.args) {
      const DumpParam *p = dump.find(spec.name);
      if (!p) // checkDumpMatchesKernel reported it
        raise(ErrorCode::Internal, "differential check: lost " + spec.name);
      if (spec.isIntScalar()) {
        a.setInt(spec.name, p->intValue);
        continue;
      }
      if (spec.isFloatScalar()) {
        a.setFloat(spec.name, p->isFloatScalar
                                  ? p->floatValue
                                  : static_cast<double>(p->intValue));
        continue;
      }
      if (p->role == DumpParam::Role::PeerTable) {
        TensorArg table;
        table.data = buffers.at(p->tableOf).peers[i];
        table.dtype = spec.dtype;
        table.sizes = p->sizes;
        a.setTensor(spec.name, table);
        continue;
      }
      a.setTensor(spec.name, buffers.at(spec.name).tensor(
                                 i, spec.dtype, p->sizes, spec.symmetric));
    }
    args.push_back(std::move(a));
  }
  kernel.launchAll(args);
  kernel.synchronize();

  DifferentialResult res;
  for (int i = 0; i < comm.numLocal(); ++i) {
    const LocalRank &l = comm.local(i);
    setDevice(l.device, l.rank);
    for (const DumpParam &p : dump.params) {
      if (p.role != DumpParam::Role::Output)
        continue;
      std::vector<char> got(p.bytes());
      DSLC_CUDART(l.rank, cudaMemcpy(got.data(), buffers[p.name].local[i],
                                     got.size(), cudaMemcpyDeviceToHost));
      std::vector<char> expected = dump.readOutput(l.rank, 0, p);
      OutputComparison c = compareOutputs(p.dtype, got.data(), expected.data(),
                                          p.numel(), dump.worldSize);
      ++res.outputs;
      if (c.bitwiseEqual())
        ++res.bitwiseEqual;
      if (!c.acceptable())
        ++res.failures;
      res.verdicts.push_back(formatVerdict(l.rank, p, c));
    }
  }
  if (res.outputs == 0)
    res.verdicts.push_back(
        fmt::format("simulation dump {} has no output to compare", dump.dir));
  for (auto &entry : buffers)
    heap->free(entry.second);
  return res;
}

} // namespace dslc::run
