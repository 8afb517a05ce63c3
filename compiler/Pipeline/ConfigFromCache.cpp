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
  for (const contract::TuningRecord &r : records) {
    if (r.key.worldSize != q.worldSize || r.key.dtype != q.dtype)
      continue;
    const contract::KernelConfig *config =
        contract::tunedConfigOf(r.value, q.kernel, q.sourceSha256);
    if (!config)
      continue;
    ++matches;
    if (!best || distance(r.key.bucket) < distance(bestKey->bucket)) {
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
  out.description =
      "size bucket 2^" + std::to_string(bucket) +
      (q.size && bucket != want
           ? " (the nearest tuned to 2^" + std::to_string(want) + ")"
           : "") +
      ", tuned on " + bestKey->device + " (" + std::to_string(matches) +
      " matching entr" + (matches == 1 ? "y" : "ies") + " in " + path + ")" +
      (damage.empty() ? "" : "; " + damage);
  return out;
}

} // namespace dslc
