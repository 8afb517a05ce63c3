//===- Process.cpp - Run a child program with an argument vector ----------===//
#include "tooling/support/Process.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace dslc::tooling {

namespace {

using Clock = std::chrono::steady_clock;

/// This process's environment with the options' changes, as "K=V" strings.
std::vector<std::string> childEnvironment(const ProcessOptions &o) {
  std::vector<std::string> env;
  for (char **e = environ; e && *e; ++e) {
    std::string kv = *e;
    std::string key = kv.substr(0, kv.find('='));
    if (o.env.count(key) || std::find(o.unsetEnv.begin(), o.unsetEnv.end(),
                                      key) != o.unsetEnv.end())
      continue;
    env.push_back(std::move(kv));
  }
  for (const auto &[k, v] : o.env)
    env.push_back(k + "=" + v);
  return env;
}

std::vector<char *> cStrings(std::vector<std::string> &v) {
  std::vector<char *> out;
  for (std::string &s : v)
    out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

/// Keeps the last `cap` bytes of what the child printed.
void append(ProcessResult &r, const char *data, size_t n, size_t cap) {
  r.output.append(data, n);
  if (r.output.size() > cap) {
    size_t drop = r.output.size() - cap;
    r.output.erase(0, drop);
    r.droppedBytes += drop;
  }
}

/// Starts the child with its output on `outFd`; false with r.error.
bool spawn(const std::vector<std::string> &argv, const ProcessOptions &o,
           int outFd, pid_t &pid, ProcessResult &r) {
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, outFd, 1);
  posix_spawn_file_actions_adddup2(&fa, outFd, 2);
  if (!o.workDir.empty())
    posix_spawn_file_actions_addchdir_np(&fa, o.workDir.c_str());
  // Its own process group, so a timeout kills what it started too; default
  // signal handling (the tools ignore SIGPIPE).
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
  std::vector<std::string> args = argv, env = childEnvironment(o);
  std::vector<char *> cargs = cStrings(args), cenv = cStrings(env);
  int rc = posix_spawnp(&pid, argv[0].c_str(), &fa, &attr, cargs.data(),
                        cenv.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0)
    r.error = fmt::format("{}: {}", argv[0], std::strerror(rc));
  return rc == 0;
}

/// Reads the child's output until it closes the pipe, or it exited and the
/// pipe stayed quiet for a moment (then what it left behind holding the
/// pipe, in its process group, is killed), or the deadline passes (then
/// its group is killed). Returns
/// whether it timed out; `reaped` with `status` when it was waited for.
bool drain(int fd, pid_t pid, const ProcessOptions &o, Clock::time_point t0,
           ProcessResult &r, bool &reaped, int &status) {
  char buf[65536];
  while (true) {
    int waitMs = 200;
    if (o.timeoutS > 0) {
      auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(
              t0 + std::chrono::duration<double>(o.timeoutS) - Clock::now())
              .count();
      if (left <= 0) {
        ::kill(-pid, SIGKILL);
        return true;
      }
      waitMs = static_cast<int>(std::min<int64_t>(left, waitMs));
    }
    pollfd p{fd, POLLIN, 0};
    int pr = poll(&p, 1, waitMs);
    if (pr < 0 && errno != EINTR)
      return false;
    if (pr == 0) {
      // Quiet: stop once the child itself is gone.
      if (!reaped && waitpid(pid, &status, WNOHANG) == pid)
        reaped = true;
      if (reaped) {
        ::kill(-pid, SIGKILL); // what it left holding the output
        return false;
      }
      continue;
    }
    if (pr < 0)
      continue;
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (n <= 0)
      return false; // the child (and all holding the pipe) closed it
    append(r, buf, static_cast<size_t>(n), o.maxOutputBytes);
  }
}

} // namespace

ProcessResult runProcess(const std::vector<std::string> &argv,
                         const ProcessOptions &o) {
  ProcessResult r;
  if (argv.empty() || argv[0].empty()) {
    r.error = "no program to run";
    return r;
  }
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    r.error = fmt::format("pipe: {}", std::strerror(errno));
    return r;
  }
  auto t0 = Clock::now();
  pid_t pid = -1;
  bool spawned = spawn(argv, o, fds[1], pid, r);
  close(fds[1]);
  if (!spawned) {
    close(fds[0]);
    return r;
  }
  r.started = true;
  bool reaped = false;
  int status = 0;
  r.timedOut = drain(fds[0], pid, o, t0, r, reaped, status);
  close(fds[0]);
  while (!reaped && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (r.timedOut)
    ::kill(-pid, SIGKILL); // what the child left behind in its group
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (WIFEXITED(status)) {
    r.exitCode = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
    r.exitCode = 128 + r.signal;
  }
  return r;
}

std::string ProcessResult::describe() const {
  if (!started)
    return "could not start: " + error;
  if (timedOut)
    return fmt::format("did not finish within {:.0f} s (killed)", seconds);
  if (signal)
    return fmt::format("killed by signal {} ({})", signal, strsignal(signal));
  return fmt::format("exited with status {}", exitCode);
}

std::string displayCommand(const std::vector<std::string> &argv) {
  std::string out;
  for (const std::string &a : argv) {
    bool plain = !a.empty() &&
                 a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
                                     "OPQRSTUVWXYZ0123456789_-+=/.,:@%") ==
                     std::string::npos;
    if (!out.empty())
      out += ' ';
    if (plain) {
      out += a;
      continue;
    }
    out += '\'';
    for (char c : a)
      out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

std::string lastLines(const std::string &text, size_t lines) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' '))
    t.pop_back();
  size_t pos = t.size();
  for (size_t i = 0; i < lines && pos != std::string::npos && pos > 0; ++i)
    pos = t.rfind('\n', pos - 1);
  std::string r = pos == std::string::npos ? t : t.substr(pos + 1);
  std::replace(r.begin(), r.end(), '\n', ' ');
  return r;
}

} // namespace dslc::tooling
