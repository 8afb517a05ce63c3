//===- ConfigFromCache.cpp - A tuned config from the tuner's cache --------===//
#include "compiler/Pipeline/ConfigFromCache.h"

#include "contract/TuningCache.h"

#include "llvm/Support/MemoryBuffer.h"

#include <cstdlib>
#include <limits>

namespace dslc {

std::optional<TunedConfig> findTunedConfig(const TunedConfigQuery &q,
                                           std::string &why) {
  contract::Expected<std::string> dir = contract::cacheDir(q.cacheDir);
  if (!dir) {
    why = dir.error();
    return std::nullopt;
  }
  std::string path = contract::tuningCacheFile(*dir);
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    why = "no tuning cache at " + path;
    return std::nullopt;
  }
  std::string damage;
  std::vector<contract::TuningRecord> records = contract::parseTuningCache(
      (*buffer)->getBuffer().str(), path, [&](const std::string &warning) {
        damage += (damage.empty() ? "" : "; ") + warning;
      });
  int want =
      q.size ? contract::sizeBucket(*q.size) : std::numeric_limits<int>::max();
  const contract::KernelConfig *best = nullptr;
  const contract::TuningKey *bestKey = nullptr;
  int64_t matches = 0;
  auto distance = [&](int bucket) {
    return q.size ? std::abs(static_cast<int64_t>(bucket) - want)
                  : -static_cast<int64_t>(bucket); // largest bucket first
  };
  // An entry of the call's own shapes first (a 16-row and a square matmul
  // can share a size bucket), then the nearest bucket.
  auto rank = [&](const contract::TuningKey &k) {
    return std::make_pair(!q.shape.empty() && k.shape != q.shape,
                          distance(k.bucket));
  };
  for (const contract::TuningRecord &r : records) {
    if (r.key.worldSize != q.worldSize || r.key.dtype != q.dtype)
      continue;
    const contract::KernelConfig *config =
        contract::tunedConfigOf(r.value, q.kernel, q.sourceSha256);
    if (!config)
      continue;
    ++matches;
    if (!best || rank(r.key) < rank(*bestKey)) {
      best = config;
      bestKey = &r.key;
    }
  }
  if (!best) {
    why = damage.empty()
              ? "no entry in " + path + " for kernel '" + q.kernel +
                    "' (this source), world size " +
                    std::to_string(q.worldSize) + ", dtype " + q.dtype
              : damage;
    return std::nullopt;
  }
  TunedConfig out;
  // The runtime applies max_ctas at load time; the compiler's config has
  // block sizes, warps and the kernel's own tunables only.
  out.configJSON = best->toJson(/*forCompiler=*/true);
  int bucket = bestKey->bucket;
  bool otherShape =
      !q.shape.empty() && !bestKey->shape.empty() && bestKey->shape != q.shape;
  out.description =
      "size bucket 2^" + std::to_string(bucket) +
      (q.size && bucket != want
           ? " (the nearest tuned to 2^" + std::to_string(want) + ")"
           : "") +
      (otherShape ? ", tuned at shapes " + bestKey->shape +
                        ", not this "
                        "call's " +
                        q.shape
                  : "") +
      ", tuned on " + bestKey->device + " (" + std::to_string(matches) +
      " matching entr" + (matches == 1 ? "y" : "ies") + " in " + path + ")" +
      (damage.empty() ? "" : "; " + damage);
  return out;
}

} // namespace dslc
