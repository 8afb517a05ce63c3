//===- ConfigFromCache.cpp - A tuned config from the tuner's cache --------===//
#include "compiler/Pipeline/ConfigFromCache.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdlib>
#include <limits>

namespace dslc {

std::string tuningCachePath(const std::string &dir) {
  std::string base = dir;
  if (base.empty()) {
    if (const char *d = std::getenv("DSLC_CACHE_DIR"); d && *d)
      base = d;
    else if (const char *x = std::getenv("XDG_CACHE_HOME"); x && *x)
      base = std::string(x) + "/dslc";
    else if (const char *h = std::getenv("HOME"); h && *h)
      base = std::string(h) + "/.cache/dslc";
    else
      base = ".";
  }
  return base + "/tuning.json";
}

namespace {

int sizeBucket(int64_t n) {
  int b = 0;
  while (n > 1) {
    n >>= 1;
    ++b;
  }
  return b;
}

/// The config of `name`/`sha` in an entry's value.per_kernel, if listed.
const llvm::json::Object *kernelConfig(const llvm::json::Object &value,
                                       llvm::StringRef name,
                                       llvm::StringRef sha) {
  const llvm::json::Array *perKernel = value.getArray("per_kernel");
  if (!perKernel)
    return nullptr;
  for (const llvm::json::Value &k : *perKernel) {
    const llvm::json::Object *o = k.getAsObject();
    if (!o || o->getString("kernel") != name || o->getString("sha256") != sha)
      continue;
    return o->getObject("config");
  }
  return nullptr;
}

} // namespace

std::optional<TunedConfig> findTunedConfig(const TunedConfigQuery &q,
                                           std::string &why) {
  std::string path = tuningCachePath(q.cacheDir);
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    why = "no tuning cache at " + path;
    return std::nullopt;
  }
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse((*buffer)->getBuffer());
  if (!parsed) {
    why = path + " is not valid JSON: " + llvm::toString(parsed.takeError());
    return std::nullopt;
  }
  const llvm::json::Object *root = parsed->getAsObject();
  const llvm::json::Array *entries = root ? root->getArray("entries") : nullptr;
  if (!entries) {
    why = path + " has no 'entries' list";
    return std::nullopt;
  }
  int want = q.size ? sizeBucket(*q.size) : std::numeric_limits<int>::max();
  const llvm::json::Object *best = nullptr, *bestKey = nullptr;
  int bestBucket = 0;
  int64_t matches = 0;
  for (const llvm::json::Value &e : *entries) {
    const llvm::json::Object *entry = e.getAsObject();
    const llvm::json::Object *key = entry ? entry->getObject("key") : nullptr;
    const llvm::json::Object *value =
        entry ? entry->getObject("value") : nullptr;
    if (!key || !value || key->getInteger("world_size") != q.worldSize ||
        key->getString("dtype") != q.dtype)
      continue;
    const llvm::json::Object *config =
        kernelConfig(*value, q.kernel, q.sourceSha256);
    std::optional<int64_t> bucket = key->getInteger("bucket");
    if (!config || !bucket)
      continue;
    ++matches;
    int b = static_cast<int>(*bucket);
    auto distance = [&](int x) {
      return q.size ? std::abs(static_cast<int64_t>(x) - want)
                    : -static_cast<int64_t>(x); // largest bucket first
    };
    if (!best || distance(b) < distance(bestBucket)) {
      best = config;
      bestKey = key;
      bestBucket = b;
    }
  }
  if (!best) {
    why = "no entry in " + path + " for kernel '" + q.kernel +
          "' (this source), world size " + std::to_string(q.worldSize) +
          ", dtype " + q.dtype;
    return std::nullopt;
  }
  // The runtime applies max_ctas at load time; the compiler's config has
  // block sizes and warps only.
  llvm::json::Object config = *best;
  config.erase("max_ctas");
  TunedConfig out;
  {
    llvm::raw_string_ostream os(out.configJSON);
    os << llvm::json::Value(std::move(config));
  }
  out.description =
      "size bucket 2^" + std::to_string(bestBucket) +
      (q.size && bestBucket != want
           ? " (the nearest tuned to 2^" + std::to_string(want) + ")"
           : "") +
      ", tuned on " + bestKey->getString("device").value_or("?").str() +
      " (" + std::to_string(matches) + " matching entr" +
      (matches == 1 ? "y" : "ies") + " in " + path + ")";
  return out;
}

} // namespace dslc
