//===- TuningCache.h - On-disk cache of tuned kernel configs ----*- C++ -*-===//
//
// The tuner (tools/tuner) writes, and the runtime's collectives
// (runtime/Collectives.h) and dslc read, the best kernel and config found
// for one collective on one machine, per size bucket: one JSON file whose
// format and location are the contract's (contract/TuningCache.h,
// docs/tuner.md). This class is the locked store.
//
// Several processes (the ranks of a job, several tuners) may write at once:
// every store is a read-modify-write under an exclusive flock on a lock file
// beside the cache, and the new content goes to a temporary file that is
// renamed over the old one, so readers (which take no lock) see either the
// old or the new file, never a torn one. A file that is not valid JSON, or an
// entry that lacks a field, is reported through the warning handler and
// ignored; a store then replaces the file (the damaged one is kept as
// `tuning.json.corrupt`). Nothing here touches a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_RUNTIME_TUNINGCACHE_H
#define DSLC_RUNTIME_TUNINGCACHE_H

#include "contract/TuningCache.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dslc::rt {

// The cache's records, its format, the size bucket and the location rule
// are the contract's (contract/TuningCache.h).
using contract::isoDateNow;
using contract::KernelChoice;
using contract::KernelConfig;
using contract::sizeBucket;
using contract::TuningKey;
using contract::TuningRecord;
using contract::TuningValue;

class TuningCache {
public:
  using WarningHandler = contract::WarningHandler;

  /// The cache in `dir` (contract::cacheDir's rule when empty). Nothing is
  /// read or created until used; throws Error(Io) with the rule's message
  /// when no directory is known.
  explicit TuningCache(std::string dir = "");

  const std::string &dir() const { return dir_; }
  /// `dir`/tuning.json
  const std::string &path() const { return path_; }
  /// Where problems with the file go (default: a line on stderr).
  void setWarningHandler(WarningHandler h) { warn_ = std::move(h); }

  /// Every valid record (none when the file is missing, damaged entries and
  /// damaged files reported and skipped). Never throws on file content.
  std::vector<TuningRecord> load() const;
  /// The record for `key`, if any.
  std::optional<TuningValue> lookup(const TuningKey &key) const;
  /// Inserts or replaces the records (by key) under the lock. Throws
  /// Error(Io) when the directory or file cannot be written.
  void store(const std::vector<TuningRecord> &records);
  /// Removes every record whose key matches `pred`; returns how many.
  size_t erase(const std::function<bool(const TuningKey &)> &pred);

private:
  std::vector<TuningRecord> readLocked(bool &damaged) const;
  void writeLocked(const std::vector<TuningRecord> &records, bool damaged);
  template <typename Fn> void withLock(Fn fn);

  std::string dir_, path_, lockPath_;
  WarningHandler warn_;
};

} // namespace dslc::rt

#endif // DSLC_RUNTIME_TUNINGCACHE_H
