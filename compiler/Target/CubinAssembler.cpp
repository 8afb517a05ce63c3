//===- CubinAssembler.cpp - PTX to cubin ---------------------------------===//
//
// In-process through nvJitLink (loaded with dlopen, so dslc runs where CUDA
// is absent and then falls back), or through the ptxas executable.
//
//===----------------------------------------------------------------------===//

#include "compiler/Target/CubinAssembler.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <dlfcn.h>

using namespace dslc;

namespace {

/// The part of the nvJitLink C API dslc uses (CUDA 13 ABI).
struct NvJitLink {
  using Handle = void *;
  int (*create)(Handle *, uint32_t, const char **) = nullptr;
  int (*destroy)(Handle *) = nullptr;
  int (*addData)(Handle, int, const void *, size_t, const char *) = nullptr;
  int (*complete)(Handle) = nullptr;
  int (*cubinSize)(Handle, size_t *) = nullptr;
  int (*cubin)(Handle, void *) = nullptr;
  int (*errorLogSize)(Handle, size_t *) = nullptr;
  int (*errorLog)(Handle, char *) = nullptr;
  int (*infoLogSize)(Handle, size_t *) = nullptr;
  int (*infoLog)(Handle, char *) = nullptr;
  bool loaded = false;

  static const NvJitLink &get() {
    static NvJitLink api = load();
    return api;
  }

private:
  static NvJitLink load() {
    NvJitLink api;
    void *lib = dlopen("libnvJitLink.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
      lib = dlopen("/usr/local/cuda/lib64/libnvJitLink.so.13",
                   RTLD_NOW | RTLD_LOCAL);
    if (!lib)
      return api;
    auto bind = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::decay_t<decltype(fn)>>(dlsym(lib, name));
      return fn != nullptr;
    };
    api.loaded = bind(api.create, "nvJitLinkCreate") &&
                 bind(api.destroy, "nvJitLinkDestroy") &&
                 bind(api.addData, "nvJitLinkAddData") &&
                 bind(api.complete, "nvJitLinkComplete") &&
                 bind(api.cubinSize, "nvJitLinkGetLinkedCubinSize") &&
                 bind(api.cubin, "nvJitLinkGetLinkedCubin") &&
                 bind(api.errorLogSize, "nvJitLinkGetErrorLogSize") &&
                 bind(api.errorLog, "nvJitLinkGetErrorLog") &&
                 bind(api.infoLogSize, "nvJitLinkGetInfoLogSize") &&
                 bind(api.infoLog, "nvJitLinkGetInfoLog");
    return api;
  }
};

constexpr int kInputPtx = 2; // NVJITLINK_INPUT_PTX (nvJitLink.h, CUDA 13)

std::string readLog(const NvJitLink &api, NvJitLink::Handle h, bool error) {
  size_t size = 0;
  if ((error ? api.errorLogSize : api.infoLogSize)(h, &size) != 0 || !size)
    return "";
  std::string log(size, '\0');
  (error ? api.errorLog : api.infoLog)(h, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
    log.pop_back();
  return log;
}

std::optional<CubinResult> viaNvJitLink(const std::string &ptx,
                                        const std::string &arch, bool verbose,
                                        std::string &error) {
  const NvJitLink &api = NvJitLink::get();
  std::string archOption = "-arch=" + arch;
  std::vector<const char *> options{archOption.c_str()};
  if (verbose)
    options.push_back("-verbose");
  NvJitLink::Handle h = nullptr;
  if (api.create(&h, options.size(), options.data()) != 0) {
    error = "nvJitLinkCreate failed for " + arch;
    return std::nullopt;
  }
  CubinResult result;
  result.route = "nvjitlink";
  bool ok =
      api.addData(h, kInputPtx, ptx.data(), ptx.size(), "dslc.ptx") == 0 &&
      api.complete(h) == 0;
  if (!ok) {
    error = "nvJitLink could not assemble the PTX:\n" + readLog(api, h, true);
    api.destroy(&h);
    return std::nullopt;
  }
  size_t size = 0;
  api.cubinSize(h, &size);
  result.cubin.resize(size);
  api.cubin(h, result.cubin.data());
  result.log = readLog(api, h, false);
  api.destroy(&h);
  return result;
}

std::optional<CubinResult> viaPtxas(const std::string &ptx,
                                    const std::string &arch, bool verbose,
                                    std::string &error) {
  std::string ptxas = findPtxas();
  if (ptxas.empty()) {
    error =
        "ptxas not found (set DSLC_PTXAS or install CUDA at /usr/local/cuda)";
    return std::nullopt;
  }
  llvm::SmallString<128> in, out, log;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("dslc", "ptx", fd, in) ||
      llvm::sys::fs::createTemporaryFile("dslc", "cubin", out) ||
      llvm::sys::fs::createTemporaryFile("dslc", "log", log)) {
    error = "cannot create temporary files for ptxas";
    return std::nullopt;
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  llvm::SmallVector<llvm::StringRef> args{ptxas, "-arch=" + arch, in, "-o",
                                          out};
  std::string archArg = "-arch=" + arch;
  args[1] = archArg;
  if (verbose)
    args.push_back("-v");
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, log.str(),
                                                log.str()};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0, 0,
                                     &execError);
  CubinResult result;
  result.route = "ptxas";
  if (auto buf = llvm::MemoryBuffer::getFile(log))
    result.log = (*buf)->getBuffer().rtrim().str();
  std::optional<CubinResult> value;
  if (rc != 0) {
    error = "ptxas failed (exit " + std::to_string(rc) + ")" +
            (execError.empty() ? "" : ": " + execError) + "\n" + result.log;
  } else if (auto buf = llvm::MemoryBuffer::getFile(out)) {
    llvm::StringRef bytes = (*buf)->getBuffer();
    result.cubin.assign(bytes.begin(), bytes.end());
    value = std::move(result);
  } else {
    error = "ptxas wrote no cubin";
  }
  llvm::sys::fs::remove(in);
  llvm::sys::fs::remove(out);
  llvm::sys::fs::remove(log);
  return value;
}

} // namespace

std::string dslc::findPtxas() {
  if (const char *env = std::getenv("DSLC_PTXAS"))
    if (llvm::sys::fs::can_execute(env))
      return env;
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda/bin/ptxas";
  if (auto found = llvm::sys::findProgramByName("ptxas"))
    return *found;
  return "";
}

dslc::SpillReport dslc::parseSpills(const std::string &log) {
  // ptxas -v and nvJitLink -verbose: "N bytes stack frame, S bytes spill
  // stores, L bytes spill loads", one line per function.
  SpillReport r;
  llvm::StringRef rest(log);
  while (!rest.empty()) {
    auto [line, tail] = rest.split('\n');
    rest = tail;
    size_t stores = line.find(" bytes spill stores");
    size_t loads = line.find(" bytes spill loads");
    auto number = [&](size_t end) -> int64_t {
      size_t begin = line.rfind(' ', end - 1);
      begin = begin == llvm::StringRef::npos ? 0 : begin + 1;
      int64_t v = 0;
      if (line.slice(begin, end).getAsInteger(10, v))
        return 0;
      return v;
    };
    if (stores != llvm::StringRef::npos)
      r.storeBytes = std::max(r.storeBytes, number(stores));
    if (loads != llvm::StringRef::npos)
      r.loadBytes = std::max(r.loadBytes, number(loads));
  }
  return r;
}

std::optional<CubinResult>
dslc::assembleCubin(const std::string &ptx, const std::string &arch,
                    AssemblerRoute route, bool verbose, std::string &error) {
  if (route == AssemblerRoute::Ptxas)
    return viaPtxas(ptx, arch, verbose, error);
  if (NvJitLink::get().loaded) {
    std::optional<CubinResult> linked = viaNvJitLink(ptx, arch, verbose, error);
    // The two assemblers of one CUDA release allocate registers apart:
    // where nvJitLink spills, the ptxas executable may not (Helion's
    // attention_backward: 228 B against none), and the other way round, so
    // Auto keeps the cubin that spills less (unless it spills past what a
    // retry may remove: SpillReport::retryable).
    SpillReport spilled = linked ? parseSpills(linked->log) : SpillReport{};
    if (linked && verbose && route == AssemblerRoute::Auto &&
        spilled.retryable() && !findPtxas().empty()) {
      std::string ignored;
      std::optional<CubinResult> assembled = viaPtxas(ptx, arch, true, ignored);
      if (assembled) {
        SpillReport other = parseSpills(assembled->log);
        if (other.storeBytes + other.loadBytes <
            spilled.storeBytes + spilled.loadBytes)
          return assembled;
      }
    }
    return linked;
  }
  if (route == AssemblerRoute::NvJitLink) {
    error = "libnvJitLink.so.13 could not be loaded";
    return std::nullopt;
  }
  return viaPtxas(ptx, arch, verbose, error);
}
