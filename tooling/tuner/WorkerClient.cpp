//===- WorkerClient.cpp - The tuner's side of the measuring child ---------===//
//
// Starts the worker (Worker.cpp's workerMain in a child process), sends it
// requests and reads its replies over pipes, with a deadline on every
// reply; kills it when it hangs or the tuner stops.
//
//===----------------------------------------------------------------------===//
#include "tooling/tuner/Worker.h"

#include "runtime/Error.h"
#include "runtime/Rendezvous.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace dslc::tune {

using nlohmann::json;
using namespace dslc::rt;

WorkerClient::~WorkerClient() { stop(); }

void WorkerClient::kill() {
  callerUp_ = false;
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int st = 0;
    waitpid(pid_, &st, 0);
  }
  pid_ = -1;
  if (toWorker_ >= 0)
    close(toWorker_);
  if (fromWorker_ >= 0)
    close(fromWorker_);
  toWorker_ = fromWorker_ = -1;
  buffered_.clear();
}

void WorkerClient::stop() {
  if (!running())
    return;
  std::string reply, why;
  (void)roundTrip("{\"op\":\"quit\"}", reply, why, 20);
  if (pid_ > 0) {
    // Give it a moment to tear down NCCL, then make sure it is gone.
    for (int i = 0; i < 100; ++i) {
      int st = 0;
      if (waitpid(pid_, &st, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      usleep(50 * 1000);
    }
  }
  kill();
}

bool WorkerClient::start(std::string &why) {
  if (caller()) {
    // The caller measures in its own process: a fault that ended its GPU
    // context (or its exit) cannot be undone by a restart.
    if (callerUsed_) {
      why = "the measuring process (the tuner's caller) is gone, or a "
            "candidate's fault ended its GPU context; it cannot be restarted";
      return false;
    }
    toWorker_ = opts_.callerOut;
    fromWorker_ = opts_.callerIn;
    callerUp_ = callerUsed_ = true;
    buffered_.clear();
    return true;
  }
  int req[2], rep[2];
  if (pipe2(req, O_CLOEXEC) != 0 || pipe2(rep, O_CLOEXEC) != 0) {
    why = fmt::format("pipe: {}", std::strerror(errno));
    return false;
  }
  std::vector<std::string> args = {"tuner",
                                   "__worker",
                                   "--collective",
                                   opts_.collective,
                                   "--dtype",
                                   opts_.dtype,
                                   "--kernel-timeout-ms",
                                   std::to_string(opts_.kernelTimeoutMs),
                                   "--reference",
                                   opts_.referenceCubin};
  if (opts_.ncclLog)
    args.push_back("--nccl-log");
  if (opts_.virtualWorld > 0) {
    args.push_back("--virtual-world");
    args.push_back(std::to_string(opts_.virtualWorld));
  }
  if (!opts_.devices.empty()) {
    std::string d;
    for (size_t i = 0; i < opts_.devices.size(); ++i)
      d += (i ? "," : "") + std::to_string(opts_.devices[i]);
    args.push_back("--devices");
    args.push_back(d);
  }
  std::string rdv;
  if (readProcessEnv()) {
    std::string base = opts_.rendezvousBase.empty()
                           ? defaultRendezvousPath() + ".tuner"
                           : opts_.rendezvousBase;
    rdv = fmt::format("{}.w{}", base, generation_);
  }
  ++generation_;
  pid_t pid = fork();
  if (pid < 0) {
    why = fmt::format("fork: {}", std::strerror(errno));
    return false;
  }
  if (pid == 0) {
    dup2(req[0], 0);
    int fd = dup(rep[1]);
    setenv("DSLC_TUNER_REPLY_FD", std::to_string(fd).c_str(), 1);
    if (!rdv.empty())
      setenv("DSLC_RENDEZVOUS", rdv.c_str(), 1);
    std::vector<char *> cargs;
    for (auto &s : args)
      cargs.push_back(const_cast<char *>(s.c_str()));
    cargs.push_back(nullptr);
    // $DSLC_TUNER_WORKER replaces the worker (tests: a scripted one).
    const char *exe = std::getenv("DSLC_TUNER_WORKER");
    execv(exe && *exe ? exe : "/proc/self/exe", cargs.data());
    std::perror("tuner: exec worker");
    _exit(127);
  }
  close(req[0]);
  close(rep[1]);
  pid_ = pid;
  toWorker_ = req[1];
  fromWorker_ = rep[0];
  buffered_.clear();
  return true;
}

bool WorkerClient::roundTrip(const std::string &request, std::string &reply,
                             std::string &why, double timeoutS) {
  std::string line = request + "\n";
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = write(toWorker_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      why = "the worker is gone (write failed)";
      kill();
      return false;
    }
    done += static_cast<size_t>(n);
  }
  auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::milliseconds(static_cast<int64_t>(timeoutS * 1000));
  while (true) {
    size_t nl = buffered_.find('\n');
    if (nl != std::string::npos) {
      reply = buffered_.substr(0, nl);
      buffered_.erase(0, nl + 1);
      return true;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) {
      why = fmt::format("no answer within {:.0f} s (hung?); worker killed",
                        timeoutS);
      kill();
      return false;
    }
    pollfd p{fromWorker_, POLLIN, 0};
    int r = poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1000)));
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      continue;
    char buf[4096];
    ssize_t n = read(fromWorker_, buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0 && caller()) {
      why = "the measuring process (the tuner's caller) closed its pipe";
      kill();
      return false;
    }
    if (n <= 0) {
      int st = 0;
      waitpid(pid_, &st, 0);
      pid_ = -1;
      why = WIFSIGNALED(st)
                ? fmt::format("the worker died (signal {})", WTERMSIG(st))
                : fmt::format("the worker exited (status {})",
                              WIFEXITED(st) ? WEXITSTATUS(st) : -1);
      kill();
      return false;
    }
    buffered_.append(buf, static_cast<size_t>(n));
  }
}

DeviceInfo WorkerClient::info() {
  std::string why, reply;
  if (!running() && !start(why))
    raise(ErrorCode::Internal, "tuner: cannot start a worker: " + why);
  if (!roundTrip("{\"op\":\"info\"}", reply, why, opts_.requestTimeoutS))
    raise(ErrorCode::Internal, "tuner: worker: " + why);
  json j = json::parse(reply, nullptr, false);
  if (j.is_discarded())
    raise(ErrorCode::Internal, "tuner: worker: bad reply: " + reply);
  if (!j.value("ok", false)) {
    kill();
    raise(static_cast<ErrorCode>(j.value("code", 10)),
          j.value("reason", std::string("worker failed")));
  }
  DeviceInfo d;
  d.device = j.value("device", "");
  d.driver = j.value("driver", "");
  d.worldSize = j.value("world_size", 0);
  d.numLocal = j.value("num_local", 0);
  d.rank = j.value("rank", 0);
  d.multiprocessors = j.value("multiprocessors", 0);
  return d;
}

MeasureReply WorkerClient::measure(const MeasureRequest &req) {
  MeasureReply out;
  std::string why, reply;
  if (!running()) {
    if (!start(why)) {
      out.fatal = true;
      out.reason = why;
      return out;
    }
    ++restarts_;
    // A fresh worker must come up (communicator) before it can measure.
    if (!roundTrip("{\"op\":\"info\"}", reply, why, opts_.requestTimeoutS)) {
      out.fatal = true;
      out.reason = "worker restart failed: " + why;
      return out;
    }
  }
  json r{{"op", "measure"},
         {"cubin", req.cubin},
         {"max_ctas", req.maxCtas},
         {"n", req.n},
         {"max_n", std::max(req.n, req.maxN)},
         {"iters", req.iters},
         {"graph_replays", req.graphReplays},
         {"repetitions", req.repetitions},
         {"seed", req.seed},
         {"nccl_window", req.ncclWindow},
         {"in_place", req.inPlace},
         {"l2_cold", req.l2Cold},
         {"warmup", req.warmup},
         {"cutoff_us", req.cutoffUs}};
  if (!req.shapes.empty() || !req.scalars.empty()) {
    r["shapes"] = req.shapes;
    r["scalars"] = req.scalars;
  }
  if (!roundTrip(r.dump(), reply, why, opts_.requestTimeoutS)) {
    out.fatal = true;
    out.reason = why;
    return out;
  }
  json j = json::parse(reply, nullptr, false);
  if (j.is_discarded()) {
    out.fatal = true;
    out.reason = "bad reply from the worker: " + reply;
    kill();
    return out;
  }
  out.ok = j.value("ok", false);
  out.fatal = j.value("fatal", false);
  out.reason = j.value("reason", "");
  out.eagerUs = j.value("eager_us", 0.0);
  out.graphUs = j.value("graph_us", 0.0);
  out.eagerMinUs = j.value("eager_min_us", 0.0);
  out.graphMinUs = j.value("graph_min_us", 0.0);
  out.mismatches = j.value("mismatches", int64_t(0));
  out.ncclKernel = j.value("nccl_kernel", "");
  out.sets = j.value("sets", 1);
  out.note = j.value("note", "");
  out.cutOff = j.value("cut_off", false);
  if (out.fatal) {
    // It exits after a fatal reply; reap it.
    int st = 0;
    for (int i = 0; i < 200 && pid_ > 0; ++i) {
      if (waitpid(pid_, &st, WNOHANG) == pid_)
        pid_ = -1;
      else
        usleep(25 * 1000);
    }
    kill();
  }
  return out;
}

} // namespace dslc::tune
