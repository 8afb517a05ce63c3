//===- ConfigFromCache.h - A tuned config from the tuner's cache -*- C++
//-*-===//
//
// `dslc --config-from-cache`: the tuner (tools/tuner) writes, per collective,
// kernel set, device, driver, world size, dtype and size bucket, the best
// config of every kernel it measured (docs/tuner.md; the format, the bucket
// rule and the location are contract/TuningCache.h's). This reads that file
// without the runtime: it finds the entries whose
// `per_kernel` list holds this kernel (its name and its source's sha256),
// for this world size and dtype, and takes the config of the entry for the
// size's bucket (floor(log2(N))), or of the nearest bucket, or of the
// largest one when no size is given.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_COMPILER_PIPELINE_CONFIGFROMCACHE_H
#define DSLC_COMPILER_PIPELINE_CONFIGFROMCACHE_H

#include "compiler/MLIRGen/KernelDescription.h"

#include <cstdint>
#include <optional>
#include <string>

namespace dslc {

struct TunedConfigQuery {
  std::string cacheDir; ///< Empty: the contract's rule (contract::cacheDir).
  std::string kernel;   ///< Kernel name.
  std::string sourceSha256;
  int64_t worldSize = 0;
  std::string dtype;           ///< The kernel's data dtype (metadata spelling).
  std::optional<int64_t> size; ///< Total elements N.
  /// The call's shapes (contract::shapeKey; empty: none given). An entry
  /// tuned at these shapes wins over the nearest size bucket of others.
  std::string shape;
};

struct TunedConfig {
  std::string configJSON;  ///< For --config (without the runtime's max_ctas).
  std::string description; ///< Where it came from, for a note.
};

/// The tuned config, or nullopt with `why` saying what did not match (a
/// missing or unreadable file included; never an error: the kernel's own
/// config is then used).
std::optional<TunedConfig> findTunedConfig(const TunedConfigQuery &query,
                                           std::string &why);

} // namespace dslc

#endif // DSLC_COMPILER_PIPELINE_CONFIGFROMCACHE_H
