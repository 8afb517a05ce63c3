//===- TuningCache.cpp - On-disk cache of tuned kernel configs ------------===//
#include "runtime/TuningCache.h"

#include "contract/AtomicFile.h"
#include "runtime/Error.h"
#include "runtime/Metadata.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dslc::rt {

namespace {
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

/// The file's text, or nullopt when there is none.
std::optional<std::string> readIfPresent(const std::string &path) {
  if (::access(path.c_str(), F_OK) != 0)
    return std::nullopt;
  return readFile(path);
}
} // namespace

TuningCache::TuningCache(std::string dir) {
  contract::Expected<std::string> where = contract::cacheDir(dir);
  if (!where)
    raise(ErrorCode::Io, "tuning cache: " + where.error());
  dir_ = *where;
  path_ = contract::tuningCacheFile(dir_);
  lockPath_ = path_ + ".lock";
  warn_ = [](const std::string &msg) {
    std::fprintf(stderr, "dslc: warning: %s\n", msg.c_str());
  };
}

std::vector<TuningRecord> TuningCache::load() const {
  std::optional<std::string> text = readIfPresent(path_);
  if (!text)
    return {};
  return contract::parseTuningCache(*text, path_, warn_);
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
  std::optional<std::string> text = readIfPresent(path_);
  if (!text)
    return {};
  return contract::parseTuningCache(*text, path_, [&](const std::string &msg) {
    damaged = true;
    warn_(msg);
  });
}

void TuningCache::writeLocked(const std::vector<TuningRecord> &records,
                              bool damaged) {
  if (damaged) {
    std::string aside = path_ + ".corrupt";
    if (std::rename(path_.c_str(), aside.c_str()) == 0)
      warn_(
          fmt::format("tuning cache: the damaged file was moved to {}", aside));
  }
  std::string text = contract::serializeTuningCache(records);
  contract::Expected<bool> ok = contract::writeFileAtomically(path_, text);
  if (!ok)
    raise(ErrorCode::Io, "tuning cache: " + ok.error());
}

void TuningCache::store(const std::vector<TuningRecord> &records) {
  withLock([&] {
    bool damaged = false;
    std::vector<TuningRecord> all = readLocked(damaged);
    for (const TuningRecord &r : records)
      contract::putRecord(all, r);
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
