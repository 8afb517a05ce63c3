//===- Dslrun.h - What dslrun does, given its options -----------*- C++ -*-===//
//
// dslrun (tools/dslrun) parses its command line into DslrunOptions and
// calls runDslrun. Three modes (docs/runtime.md, "dslrun"):
//   a collective --sizes ...     against its built-in reference, beside NCCL
//                                with --nccl;
//   any kernel --size/--scalar   bound from its metadata's roles, against a
//                                DSL reference (or for written, NaN-free
//                                outputs);
//   --inputs-from DIR            the simulator's inputs, compared with its
//                                outputs (the differential check).
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLING_DSLRUN_DSLRUN_H
#define DSLC_TOOLING_DSLRUN_DSLRUN_H

#include <cstdint>
#include <string>
#include <vector>

namespace dslc::run {

struct DslrunOptions {
  std::string cubin, meta, dsl, dslc, kernelName, inputsFrom;
  std::vector<std::string> dslcArgs;
  std::string collective;
  std::vector<int64_t> sizes = {1, 1000, 8191, 8192, 8193, 65536 + 3, 1 << 20};
  std::vector<std::string> sizeSpecs, scalarSpecs;
  std::string reference, referenceCubin;
  int iters = 10, graphReplays = 10, callsPerGraph = 20, repetitions = 5;
  int64_t seed = 1, timeoutMs = -1;
  int sumTerms = 0; ///< ProblemSpec::sumTerms

  std::vector<int64_t> devices;
  int launch = 0;
  /// > 0: a virtual world of this many ranks on one GPU (--devices' first,
  /// else 0), no NCCL.
  int virtualWorld = 0;
  std::string rendezvous;
  bool nccl = false;

  bool generic() const {
    return !sizeSpecs.empty() || !scalarSpecs.empty() || !reference.empty() ||
           !referenceCubin.empty();
  }
};

/// Runs the job (this process's ranks); returns the exit status: 0 when
/// every check passed, 1 otherwise. Throws rt::Error (NoDevice without a
/// GPU).
int runDslrun(const DslrunOptions &o);

} // namespace dslc::run

#endif // DSLC_TOOLING_DSLRUN_DSLRUN_H
