//===- Candidates.h - Compiling the tuner's candidates ahead ----*- C++ -*-===//
//
// `tuner compile` runs dslc once per candidate config and rank into a
// directory, with a manifest (manifest.json) that `tuner run` and `tuner
// bench` read on a machine that has GPUs but no compiler:
//
//   DIR/manifest.json
//   DIR/probe/<kernel>.r0.cubin(.json)        the kernel's defaults
//   DIR/<kernel>/bs1024_w4/k.r{rank}.cubin     one per compiled config
//
// The manifest (its format is the contract's, contract/Candidates.h) lists
// the kernels (name, file, source sha256, tunables), each kernel's config
// space, and every compile: its config, cubin pattern (relative to DIR) and
// status ("ok", or the failure and dslc's message).
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLING_TUNER_CANDIDATES_H
#define DSLC_TOOLING_TUNER_CANDIDATES_H

#include "tooling/support/Dslc.h"
#include "tooling/tuner/Search.h"

#include <functional>
#include <string>
#include <vector>

namespace dslc::tune {

using KernelInfo = contract::CandidateKernel;
using contract::CompiledCandidate;

/// The manifest (contract/Candidates.h, one reader and one writer) with
/// where it lives and each kernel's search space.
struct Manifest : contract::CandidatesManifest {
  std::string dir; ///< where it was read from / written to (not stored)
  std::vector<KernelSpace> spaces; ///< one per kernel, from its dimensions
};

struct CompileOptions {
  std::string dslc = "dslc";
  std::vector<std::string> extraArgs;     ///< passed to every dslc call
  std::vector<std::string> kernelArgs;    ///< the candidates' calls only
  std::vector<std::string> referenceArgs; ///< the reference's call only
  int jobs = 1;
  double timeoutS = 600; ///< bound on one dslc run
  /// Bound on the compile of a config other than its kernel's default (0:
  /// timeoutS). A search under a time budget sets it: a candidate whose
  /// compile takes a large part of the budget spills past use (jsd at
  /// [4096, 8]: 22 KB of spills a thread, 21 s), and a batch compiled
  /// together waits for its slowest.
  double candidateTimeoutS = 0;
  SpaceOptions space;
  std::string setName;
  /// "FILE.py:NAME": a reference kernel, for kernels that are no
  /// collective (compiled into DIR/reference/).
  std::string reference;
  /// One line per event (compile started/failed) and progress.
  std::function<void(const std::string &)> log;
  std::function<void(size_t done, size_t total)> progress;
  /// Compile on demand: when the kernels' spaces hold more configs than
  /// this (0: no limit), compileCandidates compiles each kernel's default
  /// only and the search compiles the points it visits (compileConfigs).
  size_t compileAllUpTo = 0;
  /// --dtype as compileCandidates was given it ("": the annotated dtypes).
  std::string dtype;
};

/// The directory of a candidate's cubins under its kernel's: every key that
/// changes what dslc compiles (KernelConfig::brief() without max_ctas, a
/// launch-time cap), e.g. "bs4_w16_rl2048", "bs128x256x64_w8_dotwgmma_st4".
std::string candidateDirName(const KernelConfig &config);

/// A key of what candidate `c` of `m` runs: its cubins of every rank and
/// their metadata less the tunables (the config as written), hashed. Two
/// configs that compile to the same code (stages PipelineDots cut to what
/// fits, a reduction_loops chunk RollReductions did not apply) have one key:
/// the tuner measures it once. Empty when a file cannot be read.
std::string candidateCodeKey(const Manifest &m, const CompiledCandidate &c);

/// The dslc compile of one kernel, rank and config (an argument vector).
tooling::DslcCompile
dslcCompile(const std::string &dslc, const std::string &file,
            const std::string &kernel, int rank, int worldSize,
            const KernelConfig *config, const std::string &signature,
            const std::string &out, const std::vector<std::string> &extraArgs);

/// Compiles the probes and every candidate of every kernel into `dir`
/// (a kernel is "NAME", in `dslFile`, or "FILE.py:NAME")
/// (created) and writes the manifest. Throws rt::Error when a probe (a
/// kernel's default config) does not compile: the kernel name or file is
/// wrong, so no candidate would.
Manifest compileCandidates(const std::string &dslFile,
                           const std::vector<std::string> &kernels,
                           const std::string &collective, int worldSize,
                           const std::string &dtype, const std::string &dir,
                           const CompileOptions &opts);

/// Compiles `configs` (kernel index, config with max_ctas 0) of `m` that it
/// has not compiled yet, in parallel, each into its candidateDirName
/// directory; adds them to m.compiled (failed ones with their reason) and
/// saves the manifest when it compiled any. Pointers into m.compiled do
/// not survive it.
void compileConfigs(Manifest &m,
                    const std::vector<std::pair<int, KernelConfig>> &configs,
                    const CompileOptions &opts);

/// Writes DIR/manifest.json (atomically); throws rt::Error(Io).
void saveManifest(const Manifest &m);
/// Reads DIR/manifest.json; throws rt::Error(Io), or rt::Error(Metadata)
/// with the contract's message naming the field.
Manifest loadManifest(const std::string &dir);

} // namespace dslc::tune

#endif // DSLC_TOOLING_TUNER_CANDIDATES_H
