//===- Dump.h - Inputs and outputs of a simulation, for the GPU -*- C++ -*-===//
//
// --dump-dir DIR writes, per launch and rank, every input
// (`r<R>.c<K>.<name>.npy`) and every output of the first schedule
// (`r<R>.c<K>.<name>.out.npy`) as .npy files of the bytes the GPU holds
// (contract/NpyFormat.h), plus `manifest.json` (format version 2: kernel,
// seed, world size, launches, and each parameter's role, dtype and sizes),
// so the same inputs can be fed to the GPU and its outputs compared, or
// loaded with numpy and torch. The schema and its writer are the
// contract's (contract/SimulationDump.h).
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_SIMULATOR_DUMP_H
#define DSLC_COMPILER_SIMULATOR_DUMP_H

#include "compiler/Simulator/Binding.h"
#include "compiler/Simulator/Inputs.h"

#include <string>

namespace dslc::sim {

class Dumper {
public:
  explicit Dumper(std::string dir) : dir(std::move(dir)) {}
  bool writeManifest(const std::string &kernel, const Binding &binding,
                     unsigned worldSize, int64_t calls, uint64_t seed,
                     const std::string &reference, std::string &error);
  bool writeInputs(const Binding &binding, const Inputs &inputs,
                   unsigned worldSize, int64_t calls, std::string &error);
  bool writeOutput(const Buffer &buffer, int64_t call, std::string &error);

private:
  bool writeFile(const std::string &name, const std::string &bytes,
                 std::string &error);
  std::string dir;
};

} // namespace dslc::sim

#endif // DSLC_COMPILER_SIMULATOR_DUMP_H
