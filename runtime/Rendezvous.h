//===- Rendezvous.h - Process environment and unique-id files ---*- C++ -*-===//
//
// How a process learns its place in a multi-process job (RANK / WORLD_SIZE /
// LOCAL_RANK as torchrun sets them, or Open MPI's / PMI's variables) and how
// rank 0 hands the NCCL unique id to the others through a file on one node.
// Multi-node jobs hand the id in themselves (Communicator::createRank).
// Nothing here needs a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_RUNTIME_RENDEZVOUS_H
#define DSLC_RUNTIME_RENDEZVOUS_H

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace dslc::rt {

/// A process's place in the job.
struct ProcessEnv {
  int rank = 0;
  int worldSize = 1;
  int localRank = 0;
  std::string source; ///< which variables gave it ("RANK/WORLD_SIZE", ...)
};

/// Reads RANK/WORLD_SIZE/LOCAL_RANK, else OMPI_COMM_WORLD_{RANK,SIZE,
/// LOCAL_RANK}, else PMI_RANK/PMI_SIZE (+MPI_LOCALRANKID). Returns nullopt
/// when none is set; throws Error(InvalidArgument) when they are malformed or
/// inconsistent. `getenv` is injectable for tests.
std::optional<ProcessEnv>
readProcessEnv(const std::function<const char *(const char *)> &getenv);
std::optional<ProcessEnv> readProcessEnv();

/// The opaque NCCL unique id (ncclUniqueId is 128 bytes).
using UniqueIdBytes = std::array<char, 128>;

/// Writes the id to `path` atomically (temporary file + rename), recording
/// the world size so a reader of a stale file from another job of another
/// size notices.
void writeUniqueIdFile(const std::string &path, const UniqueIdBytes &id,
                       int worldSize);

/// Waits up to timeoutMs for `path` to appear, then reads and validates it.
/// Throws Error(Timeout) naming the file when it does not appear, and
/// Error(InvalidArgument) when it is malformed or made for another world
/// size.
UniqueIdBytes readUniqueIdFile(const std::string &path, int worldSize,
                               int64_t timeoutMs);

/// The rendezvous file to use when the caller names none: $DSLC_RENDEZVOUS,
/// else /tmp/dslc-rendezvous-<job>.id where job is $TORCHELASTIC_RUN_ID,
/// $MASTER_PORT or $OMPI_COMM_WORLD_... job id, or "default".
std::string defaultRendezvousPath();

} // namespace dslc::rt

#endif // DSLC_RUNTIME_RENDEZVOUS_H
