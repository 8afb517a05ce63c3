//===- JobLauncher.cpp - Start N ranks of this program as one job ---------===//
#include "tooling/harness/JobLauncher.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace dslc::run {

int launchJob(const char *tool, int n, int argc, char **argv) {
  std::string dir = std::string("/tmp/") + tool + "-XXXXXX";
  std::vector<char> tmpl(dir.begin(), dir.end());
  tmpl.push_back('\0');
  if (!mkdtemp(tmpl.data())) {
    std::fprintf(stderr, "%s: cannot create a temporary directory: ", tool);
    std::perror("mkdtemp");
    return 1;
  }
  dir = tmpl.data();
  std::string rdv = dir + "/rendezvous.id";
  std::vector<std::string> args;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--launch") {
      ++i;
      continue;
    }
    if (a.rfind("--launch=", 0) == 0)
      continue;
    args.push_back(a);
  }
  args.push_back("--rendezvous");
  args.push_back(rdv);
  std::vector<pid_t> pids;
  int result = 0;
  for (int r = 0; r < n; ++r) {
    pid_t pid = fork();
    if (pid < 0) {
      std::fprintf(stderr, "%s: cannot start rank %d: ", tool, r);
      std::perror("fork");
      result = 1;
      break;
    }
    if (pid == 0) {
      setenv("RANK", std::to_string(r).c_str(), 1);
      setenv("WORLD_SIZE", std::to_string(n).c_str(), 1);
      setenv("LOCAL_RANK", std::to_string(r).c_str(), 1);
      setenv("LOCAL_WORLD_SIZE", std::to_string(n).c_str(), 1);
      std::vector<char *> cargs;
      for (std::string &s : args)
        cargs.push_back(s.data());
      cargs.push_back(nullptr);
      execv("/proc/self/exe", cargs.data());
      std::fprintf(stderr, "%s: rank %d: ", tool, r);
      std::perror("exec");
      _exit(127);
    }
    pids.push_back(pid);
  }
  for (size_t done = 0; done < pids.size(); ++done) {
    int status = 0;
    pid_t pid = wait(&status);
    int code = WIFEXITED(status)
                   ? WEXITSTATUS(status)
                   : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    for (size_t r = 0; r < pids.size(); ++r)
      if (pids[r] == pid && code != 0) {
        std::fprintf(stderr, "%s: rank %zu exited with status %d\n", tool, r,
                     code);
        if (!result)
          result = code;
      }
  }
  std::remove(rdv.c_str());
  rmdir(dir.c_str());
  return result;
}

} // namespace dslc::run
