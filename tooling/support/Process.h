//===- Process.h - Run a child program with an argument vector --*- C++ -*-===//
//
// The one way the tools start another program (dslc for the tuner's
// candidates and dslrun's --dsl/--reference compiles; the tests' children):
// posix_spawn with an argument vector (no shell, no quoting), standard input
// from /dev/null, standard output and error captured together through a
// pipe, a bounded wait (the child's whole process group is killed when it
// runs past the limit; what it leaves behind holding the pipe when it
// exits is killed too) and a bound on the output kept (the last bytes: a
// compiler's error is at the end). No CUDA, no MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLING_SUPPORT_PROCESS_H
#define DSLC_TOOLING_SUPPORT_PROCESS_H

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace dslc::tooling {

struct ProcessOptions {
  /// Seconds the child may run; 0: unbounded. Past it, SIGKILL to the
  /// child's process group.
  double timeoutS = 0;
  /// Output bytes kept (the last ones); what came before is counted in
  /// ProcessResult::droppedBytes.
  size_t maxOutputBytes = size_t(1) << 20;
  /// Variables added to (or replacing those of) this process's environment.
  std::map<std::string, std::string> env;
  /// Variables removed from the child's environment.
  std::vector<std::string> unsetEnv;
  /// The child's working directory ("": this process's).
  std::string workDir;
};

struct ProcessResult {
  bool started = false; ///< false: `error` says why (nothing ran)
  std::string error;
  int exitCode = -1; ///< the exit status, or 128 + signal
  int signal = 0;    ///< the signal that ended it (0: it exited)
  bool timedOut = false;
  double seconds = 0;
  std::string output; ///< standard output and error, interleaved
  size_t droppedBytes = 0;

  bool ok() const { return started && !timedOut && exitCode == 0; }
  /// "exited with status 3", "killed by signal 11", "did not finish within
  /// 5 s (killed)", "could not start: ..."
  std::string describe() const;
};

/// Runs argv[0] (looked up on PATH when it has no '/') with `argv` and
/// waits for it within the options' bound. Never throws.
ProcessResult runProcess(const std::vector<std::string> &argv,
                         const ProcessOptions &options = {});

/// The argument vector as one line for messages (each argument that needs
/// it in single quotes). For display only: nothing runs it through a shell.
std::string displayCommand(const std::vector<std::string> &argv);

/// The last `lines` lines of `text`, joined by spaces (a failure's reason).
std::string lastLines(const std::string &text, size_t lines = 3);

} // namespace dslc::tooling

#endif // DSLC_TOOLING_SUPPORT_PROCESS_H
