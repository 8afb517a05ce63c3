//===- AtomicFile.cpp - Whole-file replacement that never tears -----------===//
#include "contract/AtomicFile.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dslc::contract {

namespace {

std::string errnoText(int err) { return std::strerror(err); }

/// The directory holding `path` ("." for a bare name).
std::string parentDir(const std::string &path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return ".";
  if (slash == 0)
    return "/";
  return path.substr(0, slash);
}

/// Creates a temporary file next to `path`; -1 with `tmp` naming the last
/// attempt when none can be made.
int createTemp(const std::string &path, std::string &tmp) {
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    tmp = path + ".tmp." + std::to_string(::getpid()) + "." +
          std::to_string(counter++);
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST)
      return fd;
  }
  errno = EEXIST;
  return -1;
}

/// Writes every byte, retrying short writes and EINTR; errno on failure.
bool writeAll(int fd, std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = EIO;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

} // namespace

/// Writes straight into something that is not a regular file (/dev/null,
/// /dev/stdout, a FIFO): it cannot be replaced, and must not be.
Expected<bool> writeInPlace(const std::string &path, std::string_view bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0)
    return Failure{"cannot write '" + path + "': " + errnoText(errno)};
  bool ok = writeAll(fd, bytes);
  int err = errno;
  ::close(fd);
  if (!ok)
    return Failure{"cannot write '" + path + "': " + errnoText(err)};
  return true;
}

Expected<bool> writeFileAtomically(const std::string &pathIn,
                                   std::string_view bytes) {
  if (pathIn.empty())
    return Failure{"cannot write a file with an empty name"};
  std::string path = pathIn;
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    // Replace the file the link points to, not the link.
    if (char *real = ::realpath(path.c_str(), nullptr)) {
      path = real;
      std::free(real);
    }
  }
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode))
      return Failure{"cannot write '" + pathIn + "': it is a directory"};
    return writeInPlace(path, bytes);
  }
  std::string tmp;
  int fd = createTemp(path, tmp);
  if (fd < 0)
    return Failure{"cannot write '" + path + "': cannot create '" + tmp +
                   "': " + errnoText(errno)};
  auto fail = [&](const char *step) {
    int err = errno;
    if (fd >= 0)
      ::close(fd);
    ::unlink(tmp.c_str());
    return Failure{"cannot write '" + path + "': " + step + " '" + tmp +
                   "' failed: " + errnoText(err)};
  };
  if (!writeAll(fd, bytes))
    return fail("write to");
  if (::fsync(fd) != 0)
    return fail("fsync of");
  int closed = ::close(fd);
  fd = -1;
  if (closed != 0)
    return fail("close of");
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    return fail("rename of");
  // The rename is durable once the directory is on disk. A directory that
  // cannot be opened or synced (some filesystems refuse) leaves the new file
  // in place: that is not a torn write, so it is not an error.
  int dir = ::open(parentDir(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    (void)::fsync(dir);
    ::close(dir);
  }
  return true;
}

} // namespace dslc::contract
