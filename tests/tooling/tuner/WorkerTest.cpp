//===- WorkerTest.cpp - The worker protocol, with a scripted worker -------===//
//
// $DSLC_TUNER_WORKER replaces the measuring child by a bash script that
// answers like one, dies, or hangs, depending on the candidate's path: the
// client must report each failure as a skipped candidate and carry on with
// a fresh worker. (The real worker needs GPUs: docs/tuner.md.)
//
//===----------------------------------------------------------------------===//
#include "tooling/tuner/Worker.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace dslc::tune;

namespace {
const char *kScript = R"sh(#!/bin/bash
fd=$DSLC_TUNER_REPLY_FD
while IFS= read -r line; do
  case "$line" in
    *'"op":"quit"'*) echo '{"ok":true}' >&$fd; exit 0;;
    *'"op":"info"'*) echo '{"ok":true,"device":"Fake GPU","driver":"cuda 0.0 driver, 0.0 runtime","world_size":2,"num_local":2,"rank":0}' >&$fd;;
    *die*) exit 9;;
    *hang*) sleep 30 >/dev/null 2>&1 {fd}>&-;;
    *fatal*) echo '{"ok":false,"fatal":true,"reason":"trap"}' >&$fd; exit 3;;
    *'"cutoff_us":4.0'*) echo '{"ok":true,"eager_us":9,"graph_us":9,"eager_min_us":9,"graph_min_us":9,"cut_off":true}' >&$fd;;
    *wrong*) echo '{"ok":false,"reason":"wrong result: 3 mismatches"}' >&$fd;;
    *) echo '{"ok":true,"eager_us":5.5,"graph_us":2.25,"eager_min_us":5,"graph_min_us":2}' >&$fd;;
  esac
done
)sh";

struct ScriptedWorker {
  std::string dir;
  ScriptedWorker() {
    char tmpl[] = "/tmp/dslc-worker-test-XXXXXX";
    REQUIRE(mkdtemp(tmpl));
    dir = tmpl;
    std::string path = dir + "/worker.sh";
    std::ofstream(path) << kScript;
    REQUIRE(chmod(path.c_str(), 0755) == 0);
    setenv("DSLC_TUNER_WORKER", path.c_str(), 1);
  }
  ~ScriptedWorker() {
    unsetenv("DSLC_TUNER_WORKER");
    std::system(("rm -rf '" + dir + "'").c_str());
  }
};

MeasureRequest req(const std::string &cubin) {
  MeasureRequest r;
  r.cubin = cubin;
  r.n = 1024;
  return r;
}
} // namespace

TEST_CASE("worker client: replies, deaths, hangs and restarts", "[tuner]") {
  if (access("/bin/bash", X_OK) != 0) {
    WARN("SKIPPED: no /bin/bash");
    return;
  }
  ScriptedWorker sw;
  WorkerOptions o;
  o.requestTimeoutS = 1.5;
  WorkerClient w(o);
  DeviceInfo d = w.info();
  CHECK(d.device == "Fake GPU");
  CHECK(d.worldSize == 2);

  MeasureReply ok = w.measure(req("/c/good.r{rank}.cubin"));
  CHECK(ok.ok);
  CHECK(ok.graphUs == 2.25);
  CHECK(ok.eagerUs == 5.5);

  CHECK_FALSE(ok.cutOff);

  // The cutoff travels to the worker; a reply timed by its warm-up only
  // says so.
  MeasureRequest slow = req("/c/slow");
  slow.cutoffUs = 4;
  MeasureReply cut = w.measure(slow);
  CHECK(cut.ok);
  CHECK(cut.cutOff);
  CHECK(cut.eagerUs == 9);

  MeasureReply wrong = w.measure(req("/c/wrong"));
  CHECK_FALSE(wrong.ok);
  CHECK_FALSE(wrong.fatal);
  CHECK(wrong.reason.find("mismatches") != std::string::npos);
  CHECK(w.restarts() == 0);

  MeasureReply died = w.measure(req("/c/die"));
  CHECK_FALSE(died.ok);
  CHECK(died.fatal);
  CHECK(died.reason.find("exited (status 9)") != std::string::npos);

  MeasureReply after = w.measure(req("/c/good"));
  CHECK(after.ok);
  CHECK(w.restarts() == 1);

  MeasureReply trapped = w.measure(req("/c/fatal"));
  CHECK(trapped.fatal);
  CHECK(trapped.reason == "trap");

  MeasureReply hung = w.measure(req("/c/hang"));
  CHECK(hung.fatal);
  CHECK(hung.reason.find("no answer within") != std::string::npos);

  CHECK(w.measure(req("/c/good")).ok);
  CHECK(w.restarts() == 3);
  w.stop();
}
