//===- Candidates.cpp - Compiling the tuner's candidates ahead ------------===//
#include "tools/tuner/Candidates.h"

#include "runtime/Error.h"
#include "runtime/Metadata.h"

#include <fmt/format.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <sys/wait.h>
#include <thread>

namespace dslc::tune {

using rt::ErrorCode;
using rt::raise;

namespace {

void makeDir(const std::string &dir) {
  std::string out;
  if (runCommand("mkdir -p " + shellQuote(dir), out) != 0)
    raise(ErrorCode::Io, fmt::format("cannot create {}: {}", dir, out));
}

std::string configDirName(const KernelConfig &c) {
  std::string s;
  for (size_t i = 0; i < c.blockSizes.size(); ++i)
    s += fmt::format("{}bs{}", i ? "_" : "", c.blockSizes[i]);
  if (c.numWarps > 0)
    s += fmt::format("{}w{}", s.empty() ? "" : "_", c.numWarps);
  return s.empty() ? "default" : s;
}

/// The last few lines of a compiler's output, for a skip reason.
std::string tail(const std::string &text, size_t lines = 3) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' '))
    t.pop_back();
  size_t pos = t.size();
  for (size_t i = 0; i < lines && pos != std::string::npos && pos > 0; ++i)
    pos = t.rfind('\n', pos - 1);
  std::string r = pos == std::string::npos ? t : t.substr(pos + 1);
  for (char &c : r)
    if (c == '\n')
      c = ' ';
  return r;
}

} // namespace

std::string shellQuote(const std::string &s) {
  std::string r = "'";
  for (char c : s) {
    if (c == '\'')
      r += "'\\''";
    else
      r += c;
  }
  return r + "'";
}

int runCommand(const std::string &cmd, std::string &output) {
  output.clear();
  FILE *p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p)
    return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0)
    output.append(buf, n);
  int st = pclose(p);
  if (st == -1)
    return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

std::string dslcCommand(const std::string &dslc, const std::string &file,
                        const std::string &kernel, int rank, int worldSize,
                        const KernelConfig *config,
                        const std::string &signature, const std::string &out,
                        const std::vector<std::string> &extraArgs) {
  std::string cmd = fmt::format(
      "{} {} -k {} -D my_rank={} -D world_size={} --emit=cubin -o {}",
      shellQuote(dslc), shellQuote(file), shellQuote(kernel), rank, worldSize,
      shellQuote(out));
  if (config)
    cmd += " --config " + shellQuote(config->toJson(/*forCompiler=*/true));
  if (!signature.empty())
    cmd += " --signature " + shellQuote(signature);
  for (const std::string &a : extraArgs)
    cmd += " " + shellQuote(a);
  return cmd;
}

Manifest compileCandidates(const std::string &dslFile,
                           const std::vector<std::string> &kernels,
                           const std::string &collective, int worldSize,
                           const std::string &dtype, const std::string &dir,
                           const CompileOptions &opts) {
  auto log = [&](const std::string &s) {
    if (opts.log)
      opts.log(s);
  };
  Manifest m;
  m.dir = dir;
  m.collective = collective;
  m.worldSize = worldSize;
  m.dtype = dtype;
  makeDir(dir + "/probe");

  // Probes: each kernel's defaults, and what its metadata says.
  for (const std::string &spec : kernels) {
    // "FILE.py:NAME" names a kernel of another file than --dsl.
    std::string file = dslFile, k = spec;
    size_t colon = spec.rfind(':');
    if (colon != std::string::npos && colon > 3 &&
        spec.compare(colon - 3, 3, ".py") == 0) {
      file = spec.substr(0, colon);
      k = spec.substr(colon + 1);
    }
    std::string out = fmt::format("{}/probe/{}.r0.cubin", dir, k);
    std::string cmd = dslcCommand(opts.dslc, file, k, 0, worldSize, nullptr,
                                  "", out, opts.extraArgs);
    std::string text;
    if (runCommand(cmd, text) != 0)
      raise(ErrorCode::InvalidArgument,
            fmt::format("kernel {}: its default config does not compile:\n"
                        "  {}\n{}",
                        k, cmd, text));
    rt::KernelMetadata md = rt::loadMetadataFile(out + ".json");
    KernelInfo info;
    info.name = k;
    info.file = file;
    info.sha256 = md.sourceSha256;
    info.tunables = md.tunables;
    info.spins = md.spins;
    for (const rt::ArgSpec &a : md.args)
      if (!a.isOutput && a.isTensor() && rt::isFloating(a.dtype) &&
          a.dtype != rt::DType::Float64)
        info.floatParams.push_back({a.name, a.rank});
    m.spaces.emplace_back(k, info.tunables, opts.space);
    info.space = m.spaces.back().dims();
    m.kernels.push_back(info);
    log(fmt::format("kernel {}: default {}, {} configs to compile "
                    "({} points with grid caps)",
                    k, m.spaces.back().config(m.spaces.back().defaultPoint())
                           .brief(),
                    m.spaces.back().compileConfigs().size(),
                    m.spaces.back().points().size()));
  }
  m.set = contract::CandidatesManifest::setKey(m.kernels, opts.setName);

  // Every compile of every rank, in parallel.
  struct Job {
    size_t cand;
    int rank;
    std::string cmd;
  };
  std::vector<Job> jobs;
  for (size_t k = 0; k < m.kernels.size(); ++k) {
    const KernelInfo &info = m.kernels[k];
    std::string signature = info.signature(dtype);
    for (const KernelConfig &c : m.spaces[k].compileConfigs()) {
      CompiledCandidate cc;
      cc.kernel = static_cast<int>(k);
      cc.config = c;
      std::string sub = fmt::format("{}/{}", info.name, configDirName(c));
      makeDir(dir + "/" + sub);
      cc.cubin = sub + "/k.r{rank}.cubin";
      cc.ok = true;
      m.compiled.push_back(cc);
      for (int r = 0; r < worldSize; ++r)
        jobs.push_back(
            {m.compiled.size() - 1, r,
             dslcCommand(opts.dslc, info.file, info.name, r, worldSize, &c,
                         signature,
                         fmt::format("{}/{}/k.r{}.cubin", dir, sub, r),
                         opts.extraArgs)});
    }
  }
  std::mutex mu;
  std::atomic<size_t> next{0}, done{0};
  auto worker = [&] {
    while (true) {
      size_t j = next++;
      if (j >= jobs.size())
        return;
      std::string text;
      int rc = runCommand(jobs[j].cmd, text);
      std::lock_guard<std::mutex> lock(mu);
      CompiledCandidate &cc = m.compiled[jobs[j].cand];
      if (rc != 0 && cc.ok) {
        cc.ok = false;
        cc.reason = fmt::format("dslc failed for rank {} (status {}): {}",
                                jobs[j].rank, rc, tail(text));
        log(fmt::format("skip {} {}: {}", m.kernels[cc.kernel].name,
                        cc.config.brief(), cc.reason));
      }
      ++done;
      if (opts.progress)
        opts.progress(done, jobs.size());
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < std::max(1, opts.jobs); ++t)
    threads.emplace_back(worker);
  for (auto &t : threads)
    t.join();
  saveManifest(m);
  return m;
}

void saveManifest(const Manifest &m) {
  std::string path = contract::manifestFile(m.dir);
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << contract::writeCandidatesManifest(m);
    if (!out)
      raise(ErrorCode::Io, fmt::format("cannot write {}", tmp));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    raise(ErrorCode::Io, fmt::format("cannot write {}", path));
}

Manifest loadManifest(const std::string &dir) {
  std::string path = contract::manifestFile(dir);
  contract::Expected<contract::CandidatesManifest> read =
      contract::readCandidatesManifest(rt::readFile(path), path);
  if (!read)
    raise(ErrorCode::Metadata, read.error());
  Manifest m;
  static_cast<contract::CandidatesManifest &>(m) = std::move(*read);
  m.dir = dir;
  for (const KernelInfo &k : m.kernels)
    m.spaces.emplace_back(k.name, k.space);
  return m;
}

} // namespace dslc::tune
