//===- ProcessTest.cpp - Running child programs ---------------------------===//
//
// runProcess on programs that succeed, fail, die, hang (with a child of
// their own that keeps the output pipe open), print more than is kept, or
// do not exist; the argument vector reaches the child unchanged (no shell).
//
//===----------------------------------------------------------------------===//
#include "tooling/support/Process.h"

#include <catch2/catch.hpp>

#include <csignal>

using namespace dslc::tooling;

namespace {
ProcessResult sh(const std::string &script, ProcessOptions o = {}) {
  return runProcess({"/bin/sh", "-c", script}, o);
}
} // namespace

TEST_CASE("a program's output and status come back", "[process]") {
  ProcessResult r = sh("echo out; echo err >&2; exit 0");
  CHECK(r.ok());
  CHECK(r.exitCode == 0);
  CHECK(r.output == "out\nerr\n");
  CHECK(r.describe() == "exited with status 0");
}

TEST_CASE("arguments are passed as they are, without a shell", "[process]") {
  ProcessResult r = runProcess({"/bin/sh", "-c", "printf '%s|' \"$@\"", "sh",
                                "a b", "'q'", "$HOME", "; rm -rf /", ""});
  REQUIRE(r.ok());
  CHECK(r.output == "a b|'q'|$HOME|; rm -rf /||");
}

TEST_CASE("a failing program gives its status", "[process]") {
  ProcessResult r = sh("echo bad input >&2; exit 3");
  CHECK_FALSE(r.ok());
  CHECK(r.exitCode == 3);
  CHECK(r.signal == 0);
  CHECK(r.describe() == "exited with status 3");
  CHECK(lastLines(r.output) == "bad input");
}

TEST_CASE("a program that dies is reported with its signal", "[process]") {
  ProcessResult r = sh("kill -SEGV $$");
  CHECK_FALSE(r.ok());
  CHECK(r.signal == SIGSEGV);
  CHECK(r.exitCode == 128 + SIGSEGV);
  CHECK(r.describe().find("killed by signal 11") == 0);
}

TEST_CASE("a program that hangs is killed at the limit, its children too",
          "[process]") {
  ProcessOptions o;
  o.timeoutS = 0.5;
  // The background sleep inherits the output pipe: the wait must not
  // depend on the pipe closing.
  ProcessResult r = sh("echo started; sleep 60 & sleep 60", o);
  CHECK(r.timedOut);
  CHECK_FALSE(r.ok());
  CHECK(r.seconds < 5);
  CHECK(r.output == "started\n");
  CHECK(r.describe().find("did not finish within") == 0);
}

TEST_CASE("a program that exits while its child holds the output",
          "[process]") {
  ProcessOptions o;
  o.timeoutS = 30;
  ProcessResult r = sh("echo parent; sleep 20 & exit 4", o);
  CHECK_FALSE(r.timedOut);
  CHECK(r.exitCode == 4);
  CHECK(r.seconds < 5);
  CHECK(r.output == "parent\n");
}

TEST_CASE("a program that prints a lot keeps the last bytes", "[process]") {
  ProcessOptions o;
  o.maxOutputBytes = 1000;
  ProcessResult r =
      sh("i=0; while [ $i -lt 20000 ]; do echo line$i; i=$((i+1)); done; "
         "echo the end",
         o);
  REQUIRE(r.ok());
  CHECK(r.output.size() == 1000);
  CHECK(r.droppedBytes > 100000);
  CHECK(lastLines(r.output, 1) == "the end");
}

TEST_CASE("a program that does not exist is not started", "[process]") {
  ProcessResult r = runProcess({"/nonexistent/dslc", "x.py"});
  CHECK_FALSE(r.started);
  CHECK_FALSE(r.ok());
  CHECK(r.describe().find("could not start: /nonexistent/dslc") == 0);
  ProcessResult onPath = runProcess({"dslc-no-such-program-on-path"});
  CHECK_FALSE(onPath.started);
  CHECK(runProcess({}).error == "no program to run");
}

TEST_CASE("environment and working directory reach the child", "[process]") {
  ProcessOptions o;
  o.env["DSLC_PROCESS_TEST"] = "value 1";
  o.unsetEnv.push_back("HOME");
  o.workDir = "/";
  ProcessResult r = sh("echo \"$DSLC_PROCESS_TEST|${HOME-unset}|$(pwd)\"", o);
  REQUIRE(r.ok());
  CHECK(r.output == "value 1|unset|/\n");
}

TEST_CASE("commands are displayed quoted where needed", "[process]") {
  CHECK(displayCommand({"dslc", "a.py", "-k", "x", "--config",
                        "{\"num_warps\": 4}", "it's"}) ==
        "dslc a.py -k x --config '{\"num_warps\": 4}' 'it'\\''s'");
  CHECK(lastLines("a\nb\nc\nd\n", 2) == "c d");
}
