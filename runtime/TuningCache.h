//===- TuningCache.h - On-disk cache of tuned kernel configs ----*- C++ -*-===//
//
// The tuner (tools/tuner) writes, and the runtime's collectives
// (runtime/Collectives.h) and dslc read, the best kernel and config found
// for one collective on one machine, per size bucket. One JSON file
// (docs/tuner.md, "Cache format") in $DSLC_CACHE_DIR, else
// $XDG_CACHE_HOME/dslc, else ~/.cache/dslc.
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

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dslc::rt {

/// A kernel configuration: what dslc's --config takes (block_sizes,
/// num_warps) plus the runtime's grid cap (max_ctas; 0 = none).
struct KernelConfig {
  std::vector<int64_t> blockSizes;
  int numWarps = 0; ///< 0: the kernel's default
  int64_t maxCtas = 0;

  /// {"block_sizes":[...],"num_warps":N[,"max_ctas":M]} (keys left out when
  /// unset). `forCompiler` leaves max_ctas out (dslc ignores it with a
  /// warning: the cap is applied by the runtime at launch).
  std::string toJson(bool forCompiler = false) const;
  /// Parses that form; throws Error(InvalidArgument) naming the problem.
  static KernelConfig fromJson(const std::string &text);
  /// "bs=1024 w=4 ctas=16" (for tables and logs).
  std::string brief() const;
  bool operator==(const KernelConfig &o) const {
    return blockSizes == o.blockSizes && numWarps == o.numWarps &&
           maxCtas == o.maxCtas;
  }
  bool operator<(const KernelConfig &o) const;
};

/// What a tuning result is for.
struct TuningKey {
  std::string collective; ///< all_reduce, reduce_scatter, all_gather
  /// "<source sha256>:<kernel name>" for one kernel, "set:<name>" for the
  /// choice among several kernels.
  std::string kernel;
  std::string device; ///< e.g. "NVIDIA H200"
  std::string driver; ///< e.g. "cuda 13.0 driver, 13.0 runtime"
  int worldSize = 0;
  std::string dtype; ///< metadata spelling: bfloat16, float32, ...
  int bucket = 0;    ///< sizeBucket(element count)

  bool operator==(const TuningKey &o) const;
  /// One line, for messages.
  std::string str() const;
};

/// The best config of one kernel (part of a TuningValue).
struct KernelChoice {
  std::string kernel; ///< DSL kernel name
  std::string file;   ///< DSL source file, as given to the tuner
  std::string sha256; ///< of the source file (metadata source.sha256)
  /// cubin path pattern ({rank}), relative to the kernel directory the
  /// tuner compiled into (its --out / --candidates DIR)
  std::string cubin;
  KernelConfig config;
  double us = 0;      ///< median graph-replay time per call
  double eagerUs = 0; ///< median back-to-back (eager) time per call
};

struct TuningValue {
  KernelChoice pick;                ///< the fastest over all kernels
  std::vector<KernelChoice> perKernel; ///< the best of each kernel given
  double ncclUs = 0;      ///< NCCL, graph replays, same run
  double ncclEagerUs = 0; ///< NCCL, back-to-back
  int64_t size = 0;       ///< element count measured
  std::string date;       ///< ISO 8601, UTC
  std::string candidates; ///< directory of the compiled candidates
};

struct TuningRecord {
  TuningKey key;
  TuningValue value;
};

/// floor(log2(count)), 0 for count <= 1: sizes 2^b .. 2^(b+1)-1 share a
/// bucket.
int sizeBucket(int64_t count);

/// $DSLC_CACHE_DIR, else $XDG_CACHE_HOME/dslc, else $HOME/.cache/dslc
/// (else /tmp/dslc-cache).
std::string defaultCacheDir();

/// Today in ISO 8601 (UTC), e.g. 2026-11-02T10:04:05Z.
std::string isoDateNow();

class TuningCache {
public:
  using WarningHandler = std::function<void(const std::string &)>;

  /// The cache in `dir` (defaultCacheDir() when empty). Nothing is read or
  /// created until used.
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

  /// Parses cache text (`origin` for messages); exposed for tests.
  static std::vector<TuningRecord> parse(const std::string &text,
                                         const std::string &origin,
                                         const WarningHandler &warn);
  static std::string serialize(const std::vector<TuningRecord> &records);

private:
  std::vector<TuningRecord> readLocked(bool &damaged) const;
  void writeLocked(const std::vector<TuningRecord> &records, bool damaged);
  template <typename Fn> void withLock(Fn fn);

  std::string dir_, path_, lockPath_;
  WarningHandler warn_;
};

} // namespace dslc::rt

#endif // DSLC_RUNTIME_TUNINGCACHE_H
