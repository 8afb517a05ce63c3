//===- TuningCache.cpp - On-disk cache of tuned kernel configs ------------===//
#include "runtime/TuningCache.h"

#include "runtime/Error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dslc::rt {

using nlohmann::json;

namespace {
constexpr const char *kFormat = "dslc-tuning-cache";
constexpr int kVersion = 1;

json configToJson(const KernelConfig &c, bool forCompiler) {
  json j = json::object();
  if (!c.blockSizes.empty())
    j["block_sizes"] = c.blockSizes;
  if (c.numWarps > 0)
    j["num_warps"] = c.numWarps;
  if (c.maxCtas > 0 && !forCompiler)
    j["max_ctas"] = c.maxCtas;
  return j;
}

KernelConfig configFromJson(const json &j) {
  if (!j.is_object())
    raise(ErrorCode::InvalidArgument, "config is not a JSON object");
  KernelConfig c;
  if (j.contains("block_sizes")) {
    const json &b = j.at("block_sizes");
    if (!b.is_array())
      raise(ErrorCode::InvalidArgument, "config: block_sizes is not an array");
    for (const json &v : b) {
      if (!v.is_number_integer() || v.get<int64_t>() < 1)
        raise(ErrorCode::InvalidArgument,
              "config: block_sizes must be positive integers");
      c.blockSizes.push_back(v.get<int64_t>());
    }
  }
  if (j.contains("num_warps")) {
    const json &w = j.at("num_warps");
    if (!w.is_number_integer() || w.get<int>() < 1 || w.get<int>() > 32)
      raise(ErrorCode::InvalidArgument,
            "config: num_warps must be an integer from 1 to 32");
    c.numWarps = w.get<int>();
  }
  if (j.contains("max_ctas")) {
    const json &m = j.at("max_ctas");
    if (!m.is_number_integer() || m.get<int64_t>() < 0)
      raise(ErrorCode::InvalidArgument,
            "config: max_ctas must be a non-negative integer");
    c.maxCtas = m.get<int64_t>();
  }
  return c;
}

json choiceToJson(const KernelChoice &c) {
  return json{{"kernel", c.kernel}, {"file", c.file},
              {"sha256", c.sha256}, {"cubin", c.cubin},
              {"config", configToJson(c.config, false)},
              {"us", c.us},         {"eager_us", c.eagerUs}};
}

/// Throws json exceptions or Error on a missing / mistyped field.
KernelChoice choiceFromJson(const json &j) {
  KernelChoice c;
  c.kernel = j.at("kernel").get<std::string>();
  c.file = j.value("file", "");
  c.sha256 = j.value("sha256", "");
  c.cubin = j.value("cubin", "");
  c.config = configFromJson(j.at("config"));
  c.us = j.at("us").get<double>();
  c.eagerUs = j.value("eager_us", 0.0);
  return c;
}

json recordToJson(const TuningRecord &r) {
  const TuningKey &k = r.key;
  const TuningValue &v = r.value;
  json per = json::array();
  for (const KernelChoice &c : v.perKernel)
    per.push_back(choiceToJson(c));
  return json{
      {"key",
       {{"collective", k.collective},
        {"kernel", k.kernel},
        {"device", k.device},
        {"driver", k.driver},
        {"world_size", k.worldSize},
        {"dtype", k.dtype},
        {"bucket", k.bucket}}},
      {"value",
       {{"pick", choiceToJson(v.pick)},
        {"per_kernel", per},
        {"nccl_us", v.ncclUs},
        {"nccl_eager_us", v.ncclEagerUs},
        {"size", v.size},
        {"date", v.date},
        {"candidates", v.candidates}}}};
}

TuningRecord recordFromJson(const json &j) {
  TuningRecord r;
  const json &k = j.at("key");
  r.key.collective = k.at("collective").get<std::string>();
  r.key.kernel = k.at("kernel").get<std::string>();
  r.key.device = k.at("device").get<std::string>();
  r.key.driver = k.at("driver").get<std::string>();
  r.key.worldSize = k.at("world_size").get<int>();
  r.key.dtype = k.at("dtype").get<std::string>();
  r.key.bucket = k.at("bucket").get<int>();
  const json &v = j.at("value");
  r.value.pick = choiceFromJson(v.at("pick"));
  if (v.contains("per_kernel"))
    for (const json &c : v.at("per_kernel"))
      r.value.perKernel.push_back(choiceFromJson(c));
  r.value.ncclUs = v.value("nccl_us", 0.0);
  r.value.ncclEagerUs = v.value("nccl_eager_us", 0.0);
  r.value.size = v.value("size", int64_t(0));
  r.value.date = v.value("date", "");
  r.value.candidates = v.value("candidates", "");
  return r;
}

void makeDirs(const std::string &dir) {
  std::string cur;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = dir.find('/', pos + 1);
    cur = dir.substr(0, pos);
    if (cur.empty())
      continue;
    if (mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST)
      raise(ErrorCode::Io, fmt::format("tuning cache: cannot create {}: {}",
                                       cur, std::strerror(errno)));
  }
}

bool readWholeFile(const std::string &path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}
} // namespace

std::string KernelConfig::toJson(bool forCompiler) const {
  return configToJson(*this, forCompiler).dump();
}

KernelConfig KernelConfig::fromJson(const std::string &text) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded())
    raise(ErrorCode::InvalidArgument,
          fmt::format("config '{}' is not valid JSON", text));
  return configFromJson(j);
}

std::string KernelConfig::brief() const {
  std::string s;
  if (!blockSizes.empty()) {
    s += "bs=";
    for (size_t i = 0; i < blockSizes.size(); ++i)
      s += (i ? "x" : "") + std::to_string(blockSizes[i]);
  }
  if (numWarps > 0)
    s += (s.empty() ? "" : " ") + fmt::format("w={}", numWarps);
  if (maxCtas > 0)
    s += (s.empty() ? "" : " ") + fmt::format("ctas={}", maxCtas);
  return s.empty() ? "default" : s;
}

bool KernelConfig::operator<(const KernelConfig &o) const {
  if (blockSizes != o.blockSizes)
    return blockSizes < o.blockSizes;
  if (numWarps != o.numWarps)
    return numWarps < o.numWarps;
  return maxCtas < o.maxCtas;
}

bool TuningKey::operator==(const TuningKey &o) const {
  return collective == o.collective && kernel == o.kernel &&
         device == o.device && driver == o.driver &&
         worldSize == o.worldSize && dtype == o.dtype && bucket == o.bucket;
}

std::string TuningKey::str() const {
  return fmt::format("{} {} on {}x {} ({}), {}, bucket 2^{}", collective,
                     kernel, worldSize, device, driver, dtype, bucket);
}

int sizeBucket(int64_t count) {
  int b = 0;
  while (count > 1) {
    count >>= 1;
    ++b;
  }
  return b;
}

std::string defaultCacheDir() {
  if (const char *d = std::getenv("DSLC_CACHE_DIR"); d && *d)
    return d;
  if (const char *x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return std::string(x) + "/dslc";
  if (const char *h = std::getenv("HOME"); h && *h)
    return std::string(h) + "/.cache/dslc";
  return "/tmp/dslc-cache";
}

std::string isoDateNow() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

TuningCache::TuningCache(std::string dir)
    : dir_(dir.empty() ? defaultCacheDir() : std::move(dir)) {
  path_ = dir_ + "/tuning.json";
  lockPath_ = path_ + ".lock";
  warn_ = [](const std::string &msg) {
    std::fprintf(stderr, "dslc: warning: %s\n", msg.c_str());
  };
}

std::vector<TuningRecord> TuningCache::parse(const std::string &text,
                                             const std::string &origin,
                                             const WarningHandler &warn) {
  std::vector<TuningRecord> out;
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    warn(fmt::format("tuning cache {} is not a JSON object (damaged?); "
                     "ignored",
                     origin));
    return out;
  }
  if (j.value("format", "") != kFormat) {
    warn(fmt::format("tuning cache {}: format is not '{}'; ignored", origin,
                     kFormat));
    return out;
  }
  int version = j.value("version", 0);
  if (version < 1 || version > kVersion) {
    warn(fmt::format("tuning cache {}: version {} (this build reads {}); "
                     "ignored",
                     origin, version, kVersion));
    return out;
  }
  if (!j.contains("entries") || !j["entries"].is_array()) {
    warn(fmt::format("tuning cache {}: no 'entries' array; ignored", origin));
    return out;
  }
  size_t idx = 0;
  for (const json &e : j["entries"]) {
    try {
      TuningRecord r = recordFromJson(e);
      // A later duplicate replaces an earlier one.
      bool replaced = false;
      for (TuningRecord &o : out)
        if (o.key == r.key) {
          o = r;
          replaced = true;
        }
      if (!replaced)
        out.push_back(std::move(r));
    } catch (const std::exception &ex) {
      warn(fmt::format("tuning cache {}: entries[{}] ignored: {}", origin, idx,
                       ex.what()));
    }
    ++idx;
  }
  return out;
}

std::string TuningCache::serialize(const std::vector<TuningRecord> &records) {
  json entries = json::array();
  for (const TuningRecord &r : records)
    entries.push_back(recordToJson(r));
  json j{{"format", kFormat}, {"version", kVersion}, {"entries", entries}};
  return j.dump(1) + "\n";
}

std::vector<TuningRecord> TuningCache::load() const {
  std::string text;
  if (!readWholeFile(path_, text))
    return {};
  return parse(text, path_, warn_);
}

std::optional<TuningValue> TuningCache::lookup(const TuningKey &key) const {
  for (TuningRecord &r : load())
    if (r.key == key)
      return std::move(r.value);
  return std::nullopt;
}

template <typename Fn> void TuningCache::withLock(Fn fn) {
  makeDirs(dir_);
  int fd = ::open(lockPath_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    raise(ErrorCode::Io, fmt::format("tuning cache: cannot open {}: {}",
                                     lockPath_, std::strerror(errno)));
  while (flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR)
      continue;
    int err = errno;
    ::close(fd);
    raise(ErrorCode::Io, fmt::format("tuning cache: cannot lock {}: {}",
                                     lockPath_, std::strerror(err)));
  }
  try {
    fn();
  } catch (...) {
    flock(fd, LOCK_UN);
    ::close(fd);
    throw;
  }
  flock(fd, LOCK_UN);
  ::close(fd);
}

std::vector<TuningRecord> TuningCache::readLocked(bool &damaged) const {
  damaged = false;
  std::string text;
  if (!readWholeFile(path_, text))
    return {};
  bool any = false;
  auto records = parse(text, path_, [&](const std::string &msg) {
    any = true;
    warn_(msg);
  });
  damaged = any;
  return records;
}

void TuningCache::writeLocked(const std::vector<TuningRecord> &records,
                              bool damaged) {
  if (damaged) {
    std::string aside = path_ + ".corrupt";
    if (std::rename(path_.c_str(), aside.c_str()) == 0)
      warn_(fmt::format("tuning cache: the damaged file was moved to {}",
                        aside));
  }
  std::string text = serialize(records);
  std::string tmp = fmt::format("{}.tmp.{}", path_, getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    raise(ErrorCode::Io, fmt::format("tuning cache: cannot write {}: {}", tmp,
                                     std::strerror(errno)));
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      int err = errno;
      ::close(fd);
      std::remove(tmp.c_str());
      raise(ErrorCode::Io, fmt::format("tuning cache: cannot write {}: {}",
                                       tmp, std::strerror(err)));
    }
    done += static_cast<size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  if (std::rename(tmp.c_str(), path_.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    raise(ErrorCode::Io, fmt::format("tuning cache: cannot rename {} to {}: {}",
                                     tmp, path_, std::strerror(err)));
  }
}

void TuningCache::store(const std::vector<TuningRecord> &records) {
  withLock([&] {
    bool damaged = false;
    std::vector<TuningRecord> all = readLocked(damaged);
    for (const TuningRecord &r : records) {
      bool replaced = false;
      for (TuningRecord &o : all)
        if (o.key == r.key) {
          o = r;
          replaced = true;
        }
      if (!replaced)
        all.push_back(r);
    }
    writeLocked(all, damaged);
  });
}

size_t TuningCache::erase(const std::function<bool(const TuningKey &)> &pred) {
  size_t removed = 0;
  withLock([&] {
    bool damaged = false;
    std::vector<TuningRecord> all = readLocked(damaged), kept;
    for (TuningRecord &r : all) {
      if (pred(r.key))
        ++removed;
      else
        kept.push_back(std::move(r));
    }
    if (removed || damaged)
      writeLocked(kept, damaged);
  });
  return removed;
}

} // namespace dslc::rt
