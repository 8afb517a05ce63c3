//===- TuningCache.h - The tuning cache's format and location ---*- C++ -*-===//
//
// The tuner (tools/tuner) writes, and the runtime's collectives and `dslc
// --config-from-cache` read, the best kernel and config found for one
// collective on one machine, per size bucket (docs/tuner.md). This header
// is the file's format (one reader, one writer), the bucket of a size and
// where the cache lives; runtime/TuningCache.h adds the locked store.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_CONTRACT_TUNINGCACHE_H
#define DSLC_CONTRACT_TUNINGCACHE_H

#include "contract/Expected.h"
#include "contract/KernelConfig.h"
#include "contract/Metadata.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace dslc::contract {

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
  /// Kernels tuned per problem shape (not a collective's N): shapeKey()
  /// of the tensors' shapes; empty for collectives.
  std::string shape;

  bool operator==(const TuningKey &o) const;
  /// One line, for messages.
  std::string str() const;
};

/// TuningKey::device of a GPU named `gpu` (cudaDeviceProp::name): the name
/// itself, or with " (virtual world)" appended when every rank ran on that
/// one GPU (Communicator::createVirtual), so that such times, which share
/// one GPU's SMs and memory, never decide for a real world of that size.
std::string tuningDeviceName(const std::string &gpu, bool virtualWorld);

/// The dtype a kernel's tuning cache entries are keyed by (TuningKey::dtype):
/// that of its first floating input, else of its first floating output ("" when
/// it has neither). The one rule of the tuner and `dslc --config-from-cache`.
std::string tunedDtype(const std::vector<ArgSpec> &args);

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
  KernelChoice pick;                   ///< the fastest over all kernels
  std::vector<KernelChoice> perKernel; ///< the best of each kernel given
  double ncclUs = 0;                   ///< NCCL, graph replays, same run
  double ncclEagerUs = 0;              ///< NCCL, back-to-back
  int64_t size = 0;                    ///< element count measured
  std::string date;                    ///< ISO 8601, UTC
  std::string candidates;              ///< directory of the compiled candidates

  /// Whether NCCL, measured in the same run, was at least as fast as the
  /// kernel pick: the size then runs NCCL (the one rule of the runtime's
  /// dispatch and of `tuner bench`'s pick row).
  bool ncclWins() const { return ncclUs > 0 && pick.us >= ncclUs; }
};

struct TuningRecord {
  TuningKey key;
  TuningValue value;
};

/// floor(log2(count)), 0 for count <= 1: sizes 2^b .. 2^(b+1)-1 share a
/// bucket.
int sizeBucket(int64_t count);

/// Puts `record` into `records`: it replaces every record of its key, or is
/// appended (one record per key, the latest wins).
void putRecord(std::vector<TuningRecord> &records, TuningRecord record);

/// The shape part of a key: each tensor's extents by their sizeBucket, in
/// name order: {"x": {4, 8192}, "w": {8192}} -> "w=b13,x=b2xb13". Shapes
/// whose extents share buckets share a result, as sizes do.
std::string shapeKey(const std::map<std::string, std::vector<int64_t>> &shapes);
/// The shape key of a JSON object of shapes ({"x": [16, 4096], ...}, a
/// call's tensors); an error naming what is malformed.
Expected<std::string> shapeKeyOfJson(const std::string &shapesJson);

/// The cache directory: `dir` when not empty, else $DSLC_CACHE_DIR, else
/// $XDG_CACHE_HOME/dslc, else $HOME/.cache/dslc; with none of those set, a
/// failure saying which variables to set.
Expected<std::string> cacheDir(const std::string &dir = "");
/// The cache file in a cache directory: DIR/tuning.json.
std::string tuningCacheFile(const std::string &dir);

/// Today in ISO 8601 (UTC), e.g. 2026-11-02T10:04:05Z.
std::string isoDateNow();

/// The config a record holds for one kernel: its entry in
/// `value.perKernel` with this name and source sha256, or nullptr. Whether
/// a kernel was tuned is whether a record of its world size, dtype and
/// bucket has one (`dslc --config-from-cache` and the Python package's
/// autotune both ask this).
const KernelConfig *tunedConfigOf(const TuningValue &value,
                                  const std::string &kernel,
                                  const std::string &sha256);

using WarningHandler = std::function<void(const std::string &)>;

/// Parses cache text (`origin` names the file in messages). A file that is
/// not a cache of a version this build reads, and every entry that lacks a
/// field or holds a bad value, is reported through `warn` and skipped; a
/// later entry with the same key replaces an earlier one.
std::vector<TuningRecord> parseTuningCache(const std::string &text,
                                           const std::string &origin,
                                           const WarningHandler &warn);
std::string serializeTuningCache(const std::vector<TuningRecord> &records);

} // namespace dslc::contract

#endif // DSLC_CONTRACT_TUNINGCACHE_H
