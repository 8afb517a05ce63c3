//===- Candidates.cpp - Compiling the tuner's candidates ahead ------------===//
#include "tooling/tuner/Candidates.h"

#include "contract/AtomicFile.h"
#include "contract/TuningCache.h"
#include "runtime/Error.h"
#include "runtime/Kernel.h"
#include "runtime/Metadata.h"
#include "tooling/harness/DslReference.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <set>
#include <thread>

namespace dslc::tune {

using rt::ErrorCode;
using rt::raise;

namespace {

namespace fs = std::filesystem;

void makeDir(const std::string &dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    raise(ErrorCode::Io,
          fmt::format("cannot create {}: {}", dir, ec.message()));
}

} // namespace

std::string candidateDirName(const KernelConfig &c) {
  KernelConfig compiled = c;
  compiled.maxCtas = 0; // the runtime's cap: one cubin for every cap
  std::string s;
  for (char ch : compiled.brief())
    if (ch == ' ')
      s += '_';
    else if (ch != '=')
      s += ch;
  return s;
}

namespace {
/// The reference, compiled once for the first kernel's dtypes into
/// DIR/reference/ref.cubin (rank-independent: it runs on one GPU).
void compileManifestReference(Manifest &m, const CompileOptions &opts,
                              bool retyped) {
  makeDir(m.dir + "/reference");
  rt::KernelMetadata md = rt::loadMetadataFile(
      fmt::format("{}/probe/{}.r0.cubin.json", m.dir, m.kernels.at(0).name));
  std::vector<std::string> extra = opts.extraArgs;
  extra.insert(extra.end(), opts.referenceArgs.begin(),
               opts.referenceArgs.end());
  if (retyped) {
    // The probe has the annotated dtypes; the candidates may be retyped.
    for (rt::ArgSpec &a : md.args)
      if (a.isTensor() && rt::isFloating(a.dtype) &&
          a.dtype != rt::DType::Float64)
        a.dtype = *rt::parseDType(m.dtype);
  }
  m.reference = opts.reference;
  m.referenceCubin = "reference/ref.cubin";
  run::compileReference(opts.dslc, opts.reference, md, m.worldSize,
                        m.dir + "/" + m.referenceCubin, extra);
  if (opts.log)
    opts.log(fmt::format("reference {}: compiled into {}/{}", opts.reference,
                         m.dir, m.referenceCubin));
}

} // namespace

tooling::DslcCompile
dslcCompile(const std::string &dslc, const std::string &file,
            const std::string &kernel, int rank, int worldSize,
            const KernelConfig *config, const std::string &signature,
            const std::string &out, const std::vector<std::string> &extraArgs) {
  tooling::DslcCompile c;
  c.dslc = dslc;
  c.file = file;
  c.kernel = kernel;
  c.out = out;
  c.rank = rank;
  c.worldSize = worldSize;
  if (config)
    c.config = config->toJson(/*forCompiler=*/true);
  c.signature = signature;
  c.extraArgs = extraArgs;
  return c;
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
  std::vector<std::string> kernelArgs = opts.extraArgs;
  kernelArgs.insert(kernelArgs.end(), opts.kernelArgs.begin(),
                    opts.kernelArgs.end());
  m.collective = collective;
  m.worldSize = worldSize;
  m.dtype = dtype;
  makeDir(dir + "/probe");

  // Probes: each kernel's defaults, and what its metadata says.
  std::vector<std::vector<KernelConfig>> spaceConfigs; // each kernel's
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
    tooling::DslcCompile probe = dslcCompile(opts.dslc, file, k, 0, worldSize,
                                             nullptr, "", out, kernelArgs);
    tooling::ProcessResult pr = tooling::runDslc(probe, opts.timeoutS);
    if (!pr.ok())
      raise(ErrorCode::InvalidArgument,
            fmt::format("kernel {}: its default config does not compile "
                        "(dslc {}):\n  {}\n{}",
                        k, pr.describe(), tooling::displayCommand(probe.argv()),
                        pr.output));
    rt::KernelMetadata md = rt::loadMetadataFile(out + ".json");
    if (m.dtype.empty())
      m.dtype = contract::tunedDtype(md.args);
    if (m.dtype.empty())
      m.dtype = "none";
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
    // Grid caps serve kernels that spin (fewer CTAs polling their peers);
    // one that never waits leaves SMs idle under a cap below the SM count.
    SpaceOptions spaceOptions = opts.space;
    if (!info.spins)
      spaceOptions.ctaCaps = {0};
    m.spaces.emplace_back(k, info.tunables, spaceOptions);
    info.space = m.spaces.back().dims();
    m.kernels.push_back(info);
    const KernelSpace &space = m.spaces.back();
    spaceConfigs.push_back(space.compileConfigs());
    log(fmt::format("kernel {}: default {}, {} configs to compile "
                    "({} points with grid caps)",
                    k, space.config(space.defaultPoint()).brief(),
                    spaceConfigs.back().size(), space.points().size()));
    for (const auto &[why, count] : space.droppedPoints())
      log(fmt::format("kernel {}: {} point(s) left out: {}", k, count, why));
  }
  m.set = contract::CandidatesManifest::setKey(m.kernels, opts.setName);
  if (opts.reference == contract::kCallerReference)
    m.reference = opts.reference; // checked by whoever measures: no cubin
  else if (!opts.reference.empty())
    compileManifestReference(m, opts, !dtype.empty());

  // Every config (or, past opts.compileAllUpTo, each kernel's default: the
  // search compiles what it visits), every rank, in parallel.
  std::vector<std::pair<int, KernelConfig>> configs;
  size_t total = 0;
  for (const std::vector<KernelConfig> &all : spaceConfigs)
    total += all.size();
  bool onDemand = opts.compileAllUpTo > 0 && total > opts.compileAllUpTo;
  for (size_t k = 0; k < m.kernels.size(); ++k) {
    const KernelSpace &space = m.spaces[k];
    if (onDemand) {
      KernelConfig c = space.config(space.defaultPoint());
      c.maxCtas = 0;
      configs.push_back({static_cast<int>(k), c});
      continue;
    }
    for (const KernelConfig &c : spaceConfigs[k])
      configs.push_back({static_cast<int>(k), c});
  }
  if (onDemand)
    log(fmt::format("{} configs in all: each kernel's default compiled now, "
                    "the others as the search visits them",
                    total));
  CompileOptions typed = opts;
  typed.dtype = dtype;
  compileConfigs(m, configs, typed);
  saveManifest(m); // (compileConfigs saves only when it compiled)
  return m;
}

void compileConfigs(Manifest &m,
                    const std::vector<std::pair<int, KernelConfig>> &configs,
                    const CompileOptions &opts) {
  auto log = [&](const std::string &s) {
    if (opts.log)
      opts.log(s);
  };
  std::vector<std::string> kernelArgs = opts.extraArgs;
  kernelArgs.insert(kernelArgs.end(), opts.kernelArgs.begin(),
                    opts.kernelArgs.end());
  struct Job {
    size_t cand;
    int rank;
    tooling::DslcCompile compile;
    double timeoutS;
  };
  std::vector<Job> jobs;
  std::set<std::string> dirs;
  for (const CompiledCandidate &cc : m.compiled)
    dirs.insert(cc.cubin.substr(0, cc.cubin.rfind('/')));
  for (const auto &[k, c] : configs) {
    if (m.find(k, c))
      continue; // compiled already (or failed: its reason is kept)
    const KernelInfo &info = m.kernels[k];
    std::string sub = fmt::format("{}/{}", info.name, candidateDirName(c));
    // Two configs in one directory: the second compile would overwrite
    // the first's cubin while it is measured under the first's name.
    if (!dirs.insert(sub).second)
      raise(ErrorCode::Internal,
            fmt::format("tuner: configs {} share the candidate directory {}",
                        c.brief(), sub));
    makeDir(m.dir + "/" + sub);
    CompiledCandidate cc;
    cc.kernel = k;
    cc.config = c;
    cc.cubin = sub + "/k.r{rank}.cubin";
    cc.ok = true;
    m.compiled.push_back(cc);
    // No --dtype for a kernel with a reference: its annotated dtypes.
    std::string signature =
        opts.dtype.empty() ? "" : info.signature(opts.dtype);
    // The default is the search's fallback: it always gets the full bound.
    KernelConfig def = m.spaces[k].config(m.spaces[k].defaultPoint());
    def.maxCtas = 0;
    double timeoutS = opts.timeoutS;
    if (opts.candidateTimeoutS > 0 && !(c == def))
      timeoutS = std::min(timeoutS, opts.candidateTimeoutS);
    for (int r = 0; r < m.worldSize; ++r)
      jobs.push_back(
          {m.compiled.size() - 1, r,
           dslcCompile(
               opts.dslc, info.file, info.name, r, m.worldSize, &c, signature,
               fmt::format("{}/{}/k.r{}.cubin", m.dir, sub, r), kernelArgs),
           timeoutS});
  }
  if (jobs.empty())
    return; // nothing new: the manifest on disk is current
  std::mutex mu;
  std::atomic<size_t> next{0}, done{0};
  auto worker = [&] {
    while (true) {
      size_t j = next++;
      if (j >= jobs.size())
        return;
      tooling::ProcessResult r =
          tooling::runDslc(jobs[j].compile, jobs[j].timeoutS);
      std::lock_guard<std::mutex> lock(mu);
      CompiledCandidate &cc = m.compiled[jobs[j].cand];
      if (!r.ok() && cc.ok) {
        cc.ok = false;
        bool bounded = jobs[j].timeoutS < opts.timeoutS;
        cc.reason =
            r.timedOut && bounded
                ? fmt::format("dslc took more than {:g} s for rank {} (a "
                              "candidate's bound under the search's time "
                              "budget: such a config spills far past use)",
                              jobs[j].timeoutS, jobs[j].rank)
                : fmt::format("dslc failed for rank {} ({}): {}", jobs[j].rank,
                              r.describe(), tooling::lastLines(r.output));
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
}

void saveManifest(const Manifest &m) {
  contract::Expected<bool> ok = contract::writeFileAtomically(
      contract::manifestFile(m.dir), contract::writeCandidatesManifest(m));
  if (!ok)
    raise(ErrorCode::Io, ok.error());
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

std::string candidateCodeKey(const Manifest &m, const CompiledCandidate &c) {
  std::string all;
  for (int r = 0; r < m.worldSize; ++r) {
    std::string cubin = m.dir + "/" + rt::expandRankPattern(c.cubin, r);
    std::ifstream bin(cubin, std::ios::binary), meta(cubin + ".json");
    if (!bin || !meta)
      return "";
    std::string bytes((std::istreambuf_iterator<char>(bin)),
                      std::istreambuf_iterator<char>());
    nlohmann::json md =
        nlohmann::json::parse(meta, nullptr, /*allow_exceptions=*/false);
    if (md.is_discarded())
      return "";
    if (md.is_object())
      md.erase("tunables"); // the config as written, not what it compiled
    all += std::to_string(bytes.size()) + ":" + bytes + md.dump() + ";";
  }
  return fmt::format("{:016x}/{}", std::hash<std::string>{}(all), all.size());
}

} // namespace dslc::tune
