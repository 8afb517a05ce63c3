//===- Candidates.h - The tuner's candidates manifest -----------*- C++ -*-===//
//
// `tuner compile --out DIR` compiles every candidate config of some kernels
// into DIR and lists them in DIR/manifest.json; `tuner run`/`bench` and the
// runtime's collectives ($DSLC_KERNEL_DIR) read it (docs/tuner.md). This is
// the manifest's format: one reader, one writer. Paths in it are relative
// to DIR, so DIR can be carried to another machine.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_CONTRACT_CANDIDATES_H
#define DSLC_CONTRACT_CANDIDATES_H

#include "contract/Expected.h"
#include "contract/KernelConfig.h"

#include <string>
#include <utility>
#include <vector>

namespace dslc::contract {

/// One dimension of a kernel's config space: the values a tunable takes.
struct SpaceDimension {
  Tunable tunable;
  std::vector<int64_t> values;
  int defaultIndex = 0;
  /// The pattern search steps along it, but the space's listing (the
  /// points `tuner compile` builds and an exhaustive search measures) holds
  /// it at its default: the loads' cache hints, three values per load,
  /// would multiply every space by 3^loads.
  bool searchOnly = false;
};

struct CandidateKernel {
  std::string name;
  std::string file;   ///< as given (for messages and the cache)
  std::string sha256; ///< metadata source.sha256
  std::vector<Tunable> tunables;
  bool spins = false;
  /// Floating tensor parameters (name, rank): given the tuned dtype with
  /// --signature.
  std::vector<std::pair<std::string, int>> floatParams;
  std::vector<SpaceDimension> space;

  /// "NAME=DTYPE[RANK],..." for `dtype` ("" when there are none).
  std::string signature(const std::string &dtype) const;
};

struct CompiledCandidate {
  int kernel = 0;      ///< index into CandidatesManifest::kernels
  KernelConfig config; ///< as compiled (maxCtas 0)
  std::string cubin;   ///< relative to DIR, holds {rank}
  bool ok = false;
  std::string reason; ///< why it failed
};

/// A measured choice for a world that spans nodes (docs/runtime.md,
/// "Process models and teams"): for calls of this manifest's collective and
/// dtype at size bucket `bucket` on a world of `worldSize` ranks made of
/// nodes of the manifest's world size (its kernels run inside a node),
/// whether the hierarchical path (kernels in the node, NCCL across nodes)
/// or plain NCCL was faster, with both times (us; 0 when not measured).
struct HierarchyRecord {
  int worldSize = 0;
  int bucket = 0;
  bool hierarchical = false; ///< "path": "hierarchical" or "nccl"
  double hierarchicalUs = 0, ncclUs = 0;
};

/// The manifest reference of kernels checked by the process that runs the
/// tuner (`--reference caller`): that process measures every candidate
/// itself (`tuner run --measurer-fds`; dslc.kernel(..., reference=callable),
/// a PyTorch reference) and there is no reference cubin.
inline constexpr char kCallerReference[] = "caller";

struct CandidatesManifest {
  /// The collective the kernels implement; empty for kernels checked
  /// against a reference (below).
  std::string collective = "all_reduce";
  /// A DSL reference ("FILE.py:NAME") and its cubin (relative to DIR),
  /// compiled for the manifest's world size; empty for collectives;
  /// kCallerReference (no cubin) for kernels the caller checks.
  std::string reference, referenceCubin;
  int worldSize = 2;
  std::string dtype = "bfloat16";
  std::string set; ///< the tuning cache key's kernel field
  std::vector<CandidateKernel> kernels;
  std::vector<CompiledCandidate> compiled;
  /// Optional ("hierarchy"): choices measured on worlds spanning nodes.
  std::vector<HierarchyRecord> hierarchy;

  bool checkedByCaller() const { return reference == kCallerReference; }
  /// The record for (worldSize, bucket), or null.
  const HierarchyRecord *findHierarchy(int worldSize, int bucket) const;
  /// The compile of (kernel, config without max_ctas), or null.
  const CompiledCandidate *find(int kernel, KernelConfig config) const;
  /// The cache key's kernel field for these kernels: "<sha256>:<name>" for
  /// one, "set:<name>" (`setName`, else the names with the first 12 hex
  /// digits of their hashes joined by '+') for several.
  static std::string setKey(const std::vector<CandidateKernel> &kernels,
                            const std::string &setName);
};

/// DIR/manifest.json
std::string manifestFile(const std::string &dir);
std::string writeCandidatesManifest(const CandidatesManifest &m);
/// Parses a manifest; messages start with "ORIGIN: " and name the field.
Expected<CandidatesManifest> readCandidatesManifest(const std::string &text,
                                                    const std::string &origin);

} // namespace dslc::contract

#endif // DSLC_CONTRACT_CANDIDATES_H
