//===- AtomicFileTest.cpp - Writes that never leave a torn file -----------===//
//
// A writer that fails or is killed in the middle of a write leaves the old
// file intact. The failures are real: the child process writing runs under
// RLIMIT_FSIZE, so its write() fails with EFBIG (SIGXFSZ ignored) or the
// kernel kills it with SIGXFSZ (default action) partway through the bytes.
//
//===----------------------------------------------------------------------===//
#include "contract/AtomicFile.h"

#include <catch2/catch.hpp>

#include <csignal>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace dslc::contract;

namespace {

struct ScratchDir {
  std::string path;
  ScratchDir() {
    char tmpl[] = "/tmp/dslc-atomic-XXXXXX";
    REQUIRE(::mkdtemp(tmpl));
    path = tmpl;
  }
  ~ScratchDir() {
    for (const std::string &n : names())
      ::unlink((path + "/" + n).c_str());
    ::rmdir(path.c_str());
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    if (DIR *d = ::opendir(path.c_str())) {
      while (dirent *e = ::readdir(d))
        if (std::string(e->d_name) != "." && std::string(e->d_name) != "..")
          out.push_back(e->d_name);
      ::closedir(d);
    }
    return out;
  }
};

std::string slurp(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

off_t fileSize(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? st.st_size : -1;
}

constexpr rlim_t kLimit = 64 << 10;

/// Forks a child that writes `bytes` to `path` with files limited to
/// kLimit bytes; SIGXFSZ ignored or not. Returns the wait status. The
/// child exits 0 when writeFileAtomically reported a failure that names
/// `path` and the failed write, 1 otherwise.
int writeLimited(const std::string &path, const std::string &bytes,
                 bool ignoreSigxfsz) {
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::signal(SIGXFSZ, ignoreSigxfsz ? SIG_IGN : SIG_DFL);
    struct rlimit rl = {kLimit, kLimit};
    ::setrlimit(RLIMIT_FSIZE, &rl);
    Expected<bool> r = writeFileAtomically(path, bytes);
    bool named = !r && r.error().find("'" + path + "'") != std::string::npos &&
                 r.error().find("write to") != std::string::npos &&
                 r.error().find("File too large") != std::string::npos;
    ::_exit(named ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return status;
}

} // namespace

TEST_CASE("writeFileAtomically creates and replaces a file",
          "[contract][atomic]") {
  ScratchDir dir;
  std::string path = dir.path + "/cache.json";
  REQUIRE(writeFileAtomically(path, "first\n"));
  CHECK(slurp(path) == "first\n");
  REQUIRE(writeFileAtomically(path, "second, longer\n"));
  CHECK(slurp(path) == "second, longer\n");
  REQUIRE(writeFileAtomically(path, ""));
  CHECK(fileSize(path) == 0);
  // No temporary file is left behind.
  CHECK(dir.names() == std::vector<std::string>{"cache.json"});
}

TEST_CASE("writeFileAtomically names the file and the step that failed",
          "[contract][atomic]") {
  ScratchDir dir;
  Expected<bool> r = writeFileAtomically(dir.path + "/missing/out.ptx", "x");
  REQUIRE_FALSE(r);
  CHECK(r.error().find("cannot write '" + dir.path + "/missing/out.ptx'") !=
        std::string::npos);
  CHECK(r.error().find("No such file or directory") != std::string::npos);
  CHECK_FALSE(writeFileAtomically("", "x"));
}

TEST_CASE("writeFileAtomically keeps links and writes devices in place",
          "[contract][atomic]") {
  ScratchDir dir;
  std::string target = dir.path + "/target.ptx";
  std::string link = dir.path + "/link.ptx";
  REQUIRE(writeFileAtomically(target, "old"));
  REQUIRE(::symlink(target.c_str(), link.c_str()) == 0);
  REQUIRE(writeFileAtomically(link, "new"));
  struct stat st;
  REQUIRE(::lstat(link.c_str(), &st) == 0);
  CHECK(S_ISLNK(st.st_mode));
  CHECK(slurp(target) == "new");
  // /dev/null stays a device (root could otherwise rename over it).
  REQUIRE(writeFileAtomically("/dev/null", "discarded"));
  REQUIRE(::stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  Expected<bool> r = writeFileAtomically(dir.path, "x");
  REQUIRE_FALSE(r);
  CHECK(r.error().find("it is a directory") != std::string::npos);
}

TEST_CASE("a write that fails midway leaves the old file intact",
          "[contract][atomic]") {
  ScratchDir dir;
  std::string path = dir.path + "/manifest.json";
  std::string old = "{\"version\": 1}\n";
  REQUIRE(writeFileAtomically(path, old));
  std::string big(4 * kLimit, 'x');
  int status = writeLimited(path, big, /*ignoreSigxfsz=*/true);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0); // failure reported, naming file and step
  CHECK(slurp(path) == old);
  // The partial temporary file was removed.
  CHECK(dir.names() == std::vector<std::string>{"manifest.json"});
}

TEST_CASE("a writer killed midway leaves the old file intact",
          "[contract][atomic]") {
  ScratchDir dir;
  std::string path = dir.path + "/tuning.json";
  std::string old(1000, 'o');
  REQUIRE(writeFileAtomically(path, old));
  std::string big(4 * kLimit, 'n');
  int status = writeLimited(path, big, /*ignoreSigxfsz=*/false);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGXFSZ);
  CHECK(slurp(path) == old);
  // The kill came in the middle of the bytes: the temporary file holds
  // exactly the first kLimit of them, and nothing replaced the old file.
  std::vector<std::string> names = dir.names();
  REQUIRE(names.size() == 2);
  std::string tmp = names[0] == "tuning.json" ? names[1] : names[0];
  CHECK(tmp.rfind("tuning.json.tmp.", 0) == 0);
  CHECK(fileSize(dir.path + "/" + tmp) == static_cast<off_t>(kLimit));
  // The next write replaces the file whatever was left.
  REQUIRE(writeFileAtomically(path, "new\n"));
  CHECK(slurp(path) == "new\n");
}
