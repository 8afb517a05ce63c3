//===- Rendezvous.cpp - Process environment and unique-id files -----------===//
#include "runtime/Rendezvous.h"

#include "contract/AtomicFile.h"
#include "runtime/Error.h"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace dslc::rt {

namespace {
int parseInt(const char *name, const char *text) {
  char *end = nullptr;
  errno = 0;
  long v = std::strtol(text, &end, 10);
  if (errno || end == text || *end != '\0' || v < 0 || v > (1 << 24))
    raise(ErrorCode::InvalidArgument,
          fmt::format("environment variable {}='{}' is not a valid "
                      "non-negative integer",
                      name, text));
  return static_cast<int>(v);
}

constexpr const char *kMagic = "dslc-rendezvous 1";
} // namespace

std::optional<ProcessEnv>
readProcessEnv(const std::function<const char *(const char *)> &getenv) {
  struct Scheme {
    const char *rank, *size, *local;
  };
  const Scheme schemes[] = {
      {"RANK", "WORLD_SIZE", "LOCAL_RANK"},
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
       "OMPI_COMM_WORLD_LOCAL_RANK"},
      {"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"},
  };
  for (const Scheme &s : schemes) {
    const char *r = getenv(s.rank);
    const char *w = getenv(s.size);
    if (!r && !w)
      continue;
    if (!r || !w)
      raise(ErrorCode::InvalidArgument,
            fmt::format("{} is set but {} is not", r ? s.rank : s.size,
                        r ? s.size : s.rank));
    ProcessEnv env;
    env.rank = parseInt(s.rank, r);
    env.worldSize = parseInt(s.size, w);
    if (env.worldSize < 1)
      raise(ErrorCode::InvalidArgument,
            fmt::format("{}={} must be at least 1", s.size, env.worldSize));
    if (env.rank >= env.worldSize)
      raise(ErrorCode::InvalidArgument,
            fmt::format("{}={} is not below {}={}", s.rank, env.rank, s.size,
                        env.worldSize));
    const char *l = getenv(s.local);
    // Without a local rank, assume one node (rank == local rank).
    env.localRank = l ? parseInt(s.local, l) : env.rank;
    env.source = fmt::format("{}/{}/{}", s.rank, s.size, s.local);
    return env;
  }
  return std::nullopt;
}

std::optional<ProcessEnv> readProcessEnv() {
  return readProcessEnv([](const char *n) { return std::getenv(n); });
}

void writeUniqueIdFile(const std::string &path, const UniqueIdBytes &id,
                       int worldSize) {
  std::string text = fmt::format("{}\nworld_size {}\nid ", kMagic, worldSize);
  for (unsigned char c : id)
    text += fmt::format("{:02x}", c);
  text += "\n";
  contract::Expected<bool> ok = contract::writeFileAtomically(path, text);
  if (!ok)
    raise(ErrorCode::Io, "rendezvous: " + ok.error());
}

UniqueIdBytes readUniqueIdFile(const std::string &path, int worldSize,
                               int64_t timeoutMs) {
  auto start = std::chrono::steady_clock::now();
  std::string text;
  while (true) {
    std::ifstream in(path);
    if (in) {
      std::ostringstream ss;
      ss << in.rdbuf();
      text = ss.str();
      break;
    }
    auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
    if (waited >= timeoutMs)
      raise(ErrorCode::Timeout,
            fmt::format("rendezvous: {} did not appear within {} ms (did rank "
                        "0 start, and does it use the same file?)",
                        path, timeoutMs));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::istringstream in(text);
  std::string magic, key, hex;
  int fileWorld = -1;
  std::getline(in, magic);
  if (magic != kMagic)
    raise(ErrorCode::InvalidArgument,
          fmt::format("rendezvous: {} is not a dslc rendezvous file (first "
                      "line '{}')",
                      path, magic));
  if (!(in >> key >> fileWorld) || key != "world_size")
    raise(ErrorCode::InvalidArgument,
          fmt::format("rendezvous: {}: malformed world_size line", path));
  if (fileWorld != worldSize)
    raise(ErrorCode::InvalidArgument,
          fmt::format("rendezvous: {} was written for world size {}, this "
                      "process has world size {} (a stale file from another "
                      "job?)",
                      path, fileWorld, worldSize));
  if (!(in >> key >> hex) || key != "id" || hex.size() != 2 * 128 ||
      hex.find_first_not_of("0123456789abcdef") != std::string::npos)
    raise(ErrorCode::InvalidArgument,
          fmt::format("rendezvous: {}: malformed id line", path));
  UniqueIdBytes id;
  for (size_t i = 0; i < id.size(); ++i)
    id[i] = static_cast<char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return id;
}

std::string defaultRendezvousPath() {
  if (const char *p = std::getenv("DSLC_RENDEZVOUS"))
    return p;
  const char *job = std::getenv("TORCHELASTIC_RUN_ID");
  if (!job)
    job = std::getenv("MASTER_PORT");
  if (!job)
    job = std::getenv("OMPI_MCA_ess_base_jobid");
  std::string tag = job ? job : "default";
  for (char &c : tag)
    if (!isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_')
      c = '_';
  return fmt::format("/tmp/dslc-rendezvous-{}.id", tag);
}

} // namespace dslc::rt
