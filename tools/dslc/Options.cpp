//===- Options.cpp - dslc command-line parsing ----------------------------===//

#include "tools/dslc/Options.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace dslc {

const char *getUsage() {
  return R"(USAGE: dslc FILE [options]

Compiles a Helion-style tile program (Python syntax) to a GPU kernel.

Options:
  -k NAME                 Kernel to compile (needed when FILE defines several;
                          with --emit=ast, print only that kernel)
  --emit=KIND             What to produce (required):
                            ast     the syntax tree (S-expressions)
                            tile    MLIR in the tile/comm dialects
                            llvm    MLIR in the LLVM/NVVM dialects
                            llvmir  LLVM IR
                            ptx     PTX (+ OUT.json metadata)
                            cubin   cubin (+ OUT.json metadata; needs -o)
  -o OUT                  Output file; '-' is stdout (the default for text)
  -D NAME=VALUE           Bind a constexpr parameter or global (repeatable),
                          e.g. -D world_size=2
  --config JSON|@FILE     Kernel config as a JSON object, inline or from FILE,
                          e.g. '{"block_sizes": [8192], "num_warps": 32}'
  --config-from-cache     Take the config the tuner chose for this kernel
                          (its source's sha256 and name), world size, dtype
                          and --size N from the tuning cache (docs/tuner.md);
                          the kernel's own config when nothing matches
  --cache-dir=DIR         The tuning cache to read (default $DSLC_CACHE_DIR,
                          $XDG_CACHE_HOME/dslc, ~/.cache/dslc)
  --signature NAME=DTYPE[RANK],...
                          Element type and rank of parameters whose annotation
                          does not give them (NAME=DTYPE alone: a scalar);
                          DTYPE: bfloat16 float16 float32 float64 int8 uint8
                          int16 int32 uint32 int64 uint64 bool
  --arch=sm_NN            GPU architecture (default sm_90)
  --multicast=MODE        Stores to stack tensors: software (default) or nvls
  --world-size=N          Number of ranks to specialize for
  --rank=R                Rank to specialize for (0 <= R < N)
  --timeout-ms=MS         Bound on every spin in the kernel (0 = unbounded)
  --cubin-via=ROUTE       PTX to cubin with nvjitlink (default) or ptxas

Simulation (docs/simulator.md):
  --simulate              Run the kernel on the CPU for --world-size ranks
                          and check its outputs (no --emit needed)
  --seed=S                Seed of inputs and interleavings (default 1)
  --ctas=N                CTAs per rank (default: one per tile)
  --size N|NAME=AxB       Extent of data tensors, or sizes of one tensor /
                          value of an int scalar (repeatable)
  --reference=KIND        auto (default), all-reduce, reduce-scatter,
                          all-gather, none, or FILE.py:NAME (a reference
                          kernel over every rank's data stacked)
  --calls=K               Launch the kernel K times on the same pads
  --schedules=S           Interleavings to try (default 3)
  --dump-dir=DIR          Write inputs, outputs and a manifest to DIR
  --help                  Print this help and exit
  --version               Print the version and exit

Exit status: 0 on success, 1 on any error.
)";
}

namespace {

bool isIdentifier(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9'))
    return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_'))
      return false;
  return true;
}

bool parseInteger(const std::string &text, int64_t &value) {
  if (text.empty() || text.size() > 19)
    return false;
  for (char c : text)
    if (c < '0' || c > '9')
      return false;
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0')
    return false;
  value = v;
  return true;
}

bool isDType(std::string_view s) {
  static const char *const kDTypes[] = {
      "bfloat16", "float16", "float32", "float64", "int8",   "uint8",
      "int16",    "int32",   "uint32",  "int64",   "uint64", "bool"};
  for (const char *d : kDTypes)
    if (s == d)
      return true;
  return false;
}

bool parseSignature(const std::string &text, CompileOptions &opts,
                    std::string &error) {
  std::stringstream ss(text);
  std::string entry;
  bool any = false;
  while (std::getline(ss, entry, ',')) {
    any = true;
    size_t eq = entry.find('=');
    std::string name = entry.substr(0, eq);
    if (eq == std::string::npos || !isIdentifier(name)) {
      error =
          fmt::format("--signature expects NAME=DTYPE[RANK], got '{}'", entry);
      return false;
    }
    std::string type = entry.substr(eq + 1);
    ParamSignature sig;
    size_t bracket = type.find('[');
    if (bracket != std::string::npos) {
      int64_t rank = 0;
      if (type.back() != ']' ||
          !parseInteger(type.substr(bracket + 1, type.size() - bracket - 2),
                        rank) ||
          rank > 16) {
        error = fmt::format("--signature: bad rank in '{}' (expected "
                            "DTYPE[N] with 0 <= N <= 16)",
                            entry);
        return false;
      }
      sig.rank = static_cast<unsigned>(rank);
      type = type.substr(0, bracket);
    }
    if (!isDType(type)) {
      error = fmt::format("--signature: unknown dtype '{}' for '{}' (expected "
                          "one of bfloat16 float16 float32 float64 int8 "
                          "uint8 int16 int32 uint32 int64 uint64 bool)",
                          type, name);
      return false;
    }
    sig.dtype = type;
    opts.signature[name] = sig;
  }
  if (!any) {
    error = "--signature expects NAME=DTYPE[RANK],...";
    return false;
  }
  return true;
}

bool readConfig(const std::string &value, std::string &json,
                std::string &error) {
  if (!value.empty() && value[0] == '@') {
    std::string path = value.substr(1);
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      error = fmt::format("--config: cannot read '{}': {}", path,
                          std::strerror(errno));
      return false;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    json = ss.str();
  } else {
    json = value;
  }
  size_t first = json.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || json[first] != '{') {
    error = "--config expects a JSON object ('{...}') or @FILE";
    return false;
  }
  return true;
}

/// --size N (the default extent) or --size NAME=A[xB...].
bool parseSize(const std::string &text, CompileOptions &opts,
               std::string &error) {
  size_t eq = text.find('=');
  std::string list = eq == std::string::npos ? text : text.substr(eq + 1);
  std::vector<int64_t> dims;
  std::stringstream ss(list);
  std::string part;
  while (std::getline(ss, part, 'x')) {
    int64_t n = 0;
    if (!parseInteger(part, n) || n < 1) {
      dims.clear();
      break;
    }
    dims.push_back(n);
  }
  if (eq == std::string::npos) {
    if (dims.size() != 1) {
      error = fmt::format("--size expects N or NAME=A[xB...] with positive "
                          "integers, got '{}'",
                          text);
      return false;
    }
    opts.defaultSize = dims[0];
    return true;
  }
  std::string name = text.substr(0, eq);
  if (!isIdentifier(name) || dims.empty()) {
    error = fmt::format("--size expects N or NAME=A[xB...] with positive "
                        "integers, got '{}'",
                        text);
    return false;
  }
  opts.sizes[name] = dims;
  return true;
}

} // namespace

bool parseCommandLine(int argc, const char *const *argv, DriverOptions &opts,
                      std::string &error) {
  CompileOptions &c = opts.compile;
  bool sawInput = false, optionsEnded = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (optionsEnded || arg == "-" || arg.empty() || arg[0] != '-') {
      if (sawInput) {
        error = fmt::format("more than one input file ('{}' and '{}')",
                            opts.inputFile, arg);
        return false;
      }
      sawInput = true;
      opts.inputFile = arg;
      continue;
    }
    if (arg == "--") {
      optionsEnded = true;
      continue;
    }
    if (arg == "--help" || arg == "-h" || arg == "-help") {
      opts.help = true;
      continue;
    }
    if (arg == "--version") {
      opts.version = true;
      continue;
    }
    if (arg == "--simulate") {
      c.simulate = true;
      continue;
    }
    if (arg == "--config-from-cache") {
      c.configFromCache = true;
      continue;
    }

    // Split the option name from an attached value.
    std::string name, value;
    bool hasValue = false;
    if (arg.compare(0, 2, "--") == 0) {
      size_t eq = arg.find('=');
      name = arg.substr(0, eq);
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
        hasValue = true;
      }
    } else {
      name = arg.substr(0, 2);
      if (arg.size() > 2) {
        value = arg.substr(2);
        hasValue = true;
      }
    }
    static const char *const kValued[] = {
        "-k",           "-o",          "-D",           "--emit",
        "--config",     "--signature", "--arch",       "--multicast",
        "--world-size", "--rank",      "--timeout-ms", "--cubin-via",
        "--seed",       "--ctas",      "--size",       "--reference",
        "--dump-dir",   "--calls",     "--schedules", "--cache-dir"};
    bool known = false;
    for (const char *k : kValued)
      known |= name == k;
    if (!known) {
      error = fmt::format("unknown option '{}'", arg);
      return false;
    }
    if (!hasValue) {
      if (i + 1 >= argc) {
        error = fmt::format("option '{}' needs a value", name);
        return false;
      }
      value = argv[++i];
    }

    if (name == "-k") {
      if (!isIdentifier(value)) {
        error = fmt::format("-k expects a kernel name, got '{}'", value);
        return false;
      }
      opts.kernel = value;
    } else if (name == "-o") {
      if (value.empty()) {
        error = "-o needs a file name ('-' for stdout)";
        return false;
      }
      opts.output = value;
    } else if (name == "-D") {
      size_t eq = value.find('=');
      if (eq == std::string::npos || !isIdentifier(value.substr(0, eq)) ||
          eq + 1 == value.size()) {
        error = fmt::format("-D expects NAME=VALUE, got '{}'", value);
        return false;
      }
      c.defines[value.substr(0, eq)] = value.substr(eq + 1);
    } else if (name == "--emit") {
      opts.emit = parseEmitKind(value);
      if (!opts.emit) {
        error = fmt::format("unknown --emit kind '{}' (expected ast, tile, "
                            "llvm, llvmir, ptx or cubin)",
                            value);
        return false;
      }
    } else if (name == "--config") {
      if (!readConfig(value, c.configJSON, error))
        return false;
    } else if (name == "--signature") {
      if (!parseSignature(value, c, error))
        return false;
    } else if (name == "--arch") {
      bool ok = value.size() > 3 && value.compare(0, 3, "sm_") == 0;
      std::string digits = value.substr(std::min<size_t>(3, value.size()));
      if (!digits.empty() && digits.back() == 'a')
        digits.pop_back();
      int64_t sm = 0;
      if (!ok || !parseInteger(digits, sm)) {
        error =
            fmt::format("--arch expects sm_NN (e.g. sm_90), got '{}'", value);
        return false;
      }
      c.arch = value;
    } else if (name == "--multicast") {
      if (value == "software")
        c.multicast = MulticastMode::Software;
      else if (value == "nvls")
        c.multicast = MulticastMode::NVLS;
      else {
        error = fmt::format(
            "--multicast expects 'software' or 'nvls', got '{}'", value);
        return false;
      }
    } else if (name == "--cubin-via") {
      if (value == "nvjitlink")
        c.cubinVia = CubinRoute::NvJitLink;
      else if (value == "ptxas")
        c.cubinVia = CubinRoute::Ptxas;
      else {
        error = fmt::format(
            "--cubin-via expects 'nvjitlink' or 'ptxas', got '{}'", value);
        return false;
      }
    } else if (name == "--cache-dir") {
      c.cacheDir = value;
      c.configFromCache = true;
    } else if (name == "--size") {
      if (!parseSize(value, c, error))
        return false;
    } else if (name == "--reference") {
      // FILE.py:NAME is a reference kernel (docs/simulator.md).
      if (value != "auto" && value != "all-reduce" &&
          value != "reduce-scatter" && value != "all-gather" &&
          value != "none" && value.find(':') == std::string::npos) {
        error = fmt::format(
            "--reference expects auto, all-reduce, reduce-scatter, all-gather, "
            "none or FILE.py:NAME (a reference kernel), got '{}'",
            value);
        return false;
      }
      c.reference = value;
    } else if (name == "--dump-dir") {
      if (value.empty()) {
        error = "--dump-dir needs a directory";
        return false;
      }
      c.dumpDir = value;
    } else {
      int64_t n = 0;
      if (!parseInteger(value, n)) {
        error = fmt::format("{} expects a non-negative integer, got '{}'", name,
                            value);
        return false;
      }
      if (name == "--world-size") {
        if (n < 1) {
          error = "--world-size must be at least 1";
          return false;
        }
        c.worldSize = n;
      } else if (name == "--rank") {
        c.rank = n;
      } else if (name == "--seed") {
        c.seed = static_cast<uint64_t>(n);
      } else if (name == "--ctas" || name == "--calls" ||
                 name == "--schedules") {
        if (n < 1) {
          error = fmt::format("{} must be at least 1", name);
          return false;
        }
        if (name == "--ctas")
          c.ctas = n;
        else if (name == "--calls")
          c.calls = n;
        else
          c.schedules = n;
      } else {
        c.timeoutMs = static_cast<uint64_t>(n);
      }
    }
  }
  if (opts.help || opts.version)
    return true;
  if (!sawInput) {
    error = "no input file";
    return false;
  }
  if (c.simulate) {
    if (opts.emit && *opts.emit != EmitKind::Tile) {
      error = "--simulate does not take --emit (it runs the kernel instead "
              "of writing it)";
      return false;
    }
    if (!c.worldSize) {
      error = "--simulate needs --world-size N";
      return false;
    }
    if (c.rank) {
      error = "--simulate runs every rank; drop --rank";
      return false;
    }
    opts.emit = EmitKind::Tile;
  }
  if (c.configFromCache && !c.configJSON.empty()) {
    error = "--config and --config-from-cache both give the config; use one";
    return false;
  }
  if (!opts.emit) {
    error = "missing --emit=KIND (ast, tile, llvm, llvmir, ptx or cubin)";
    return false;
  }
  if (c.rank && c.worldSize && *c.rank >= *c.worldSize) {
    error = fmt::format("--rank={} is not below --world-size={}", *c.rank,
                        *c.worldSize);
    return false;
  }
  return true;
}

} // namespace dslc
