//===- Dslc.h - Running the compiler from the tools -------------*- C++ -*-===//
//
// The tools compile kernels by running dslc (dslrun --dsl and --reference,
// tuner compile): one argument vector per compile, built here, run by
// runProcess (no shell).
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLING_SUPPORT_DSLC_H
#define DSLC_TOOLING_SUPPORT_DSLC_H

#include "tooling/support/Process.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dslc::tooling {

/// One `dslc FILE -k KERNEL ... --emit=cubin -o OUT` compile.
struct DslcCompile {
  std::string dslc = "dslc";
  std::string file, kernel, out;
  std::vector<std::pair<std::string, std::string>> defines; ///< -D N=V
  /// --rank R and --world-size W: dslc gives them to whichever constexprs
  /// the kernel spells them with (my_rank/rank/RANK, world_size/
  /// WORLD_SIZE), so the tools need not know its spelling.
  std::optional<int> rank, worldSize;
  std::string config;    ///< --config JSON ("": the kernel's own)
  std::string signature; ///< --signature N=DTYPE[RANK],... ("": none)
  std::vector<std::string> extraArgs;

  std::vector<std::string> argv() const;
};

/// Runs the compile within `timeoutS` seconds.
ProcessResult runDslc(const DslcCompile &c, double timeoutS = 600);

/// `given` when not empty, else the dslc next to this executable, else
/// "dslc" (looked up on PATH).
std::string findDslc(const std::string &given);

/// "FILE.py:NAME" -> {FILE.py, NAME}; nullopt for anything else.
struct KernelRef {
  std::string file, name;
};
std::optional<KernelRef> parseKernelRef(const std::string &text);

} // namespace dslc::tooling

#endif // DSLC_TOOLING_SUPPORT_DSLC_H
