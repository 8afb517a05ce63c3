//===- Options.cpp - dslc command-line parsing ----------------------------===//
//
// The options are llvm::cl globals. Values with a fixed set of spellings
// use ChoiceParser; the rest are strings read after parsing: numbers by
// readNumbers (digits only, no overflow, bounds from the headers that own
// them), the others by their own reader, then what options say about each
// other.
//
//===----------------------------------------------------------------------===//

#include "tools/dslc/Options.h"

#include "contract/DType.h"

#include "compiler/Conversion/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <unistd.h>

using namespace dslc;
namespace cl = llvm::cl;
using llvm::StringRef;

namespace {

cl::OptionCategory compileCategory("Compilation options");
cl::OptionCategory simulateCategory("Simulation options (with --simulate, "
                                    "docs/simulator.md)");
cl::OptionCategory mlirCategory("MLIR options (IR printing, timing, pass "
                                "manager)");

/// Reads one of the values listed with cl::values; an unknown one is an
/// error that lists them.
template <typename T> class ChoiceParser : public cl::parser<T> {
public:
  using cl::parser<T>::parser;
  bool parse(cl::Option &o, StringRef argName, StringRef arg, T &value) {
    std::string names;
    for (size_t i = 0; i < this->Values.size(); ++i) {
      if (this->Values[i].Name == arg) {
        value = this->Values[i].V.getValue();
        return false;
      }
      names += (i == 0 ? "" : i + 1 == this->Values.size() ? " or " : ", ");
      names += this->Values[i].Name.str();
    }
    return o.error("unknown value '" + arg + "' (expected " + names + ")",
                   argName);
  }
};

constexpr uint64_t kMaxU64 = std::numeric_limits<uint64_t>::max();
constexpr const char *kVersion = "0.1.0";

//===- Compilation --------------------------------------------------------===//

cl::list<std::string> inputFiles(cl::Positional, cl::desc("<FILE>"),
                                 cl::cat(compileCategory));

cl::opt<std::string>
    kernelName("k", cl::Prefix, cl::value_desc("NAME"),
               cl::desc("Kernel to compile (needed when FILE defines "
                        "several; with --emit=ast, print only that kernel)"),
               cl::cat(compileCategory));

cl::opt<EmitKind, false, ChoiceParser<EmitKind>> emitKind(
    "emit", cl::value_desc("KIND"),
    cl::desc("What to produce (required unless --simulate)"),
    cl::values(
        clEnumValN(EmitKind::AST, "ast", "the syntax tree (S-expressions)"),
        clEnumValN(EmitKind::Tile, "tile", "MLIR in the tile/comm dialects"),
        clEnumValN(EmitKind::LLVM, "llvm", "MLIR in the LLVM/NVVM dialects"),
        clEnumValN(EmitKind::LLVMIR, "llvmir", "LLVM IR"),
        clEnumValN(EmitKind::PTX, "ptx", "PTX (+ OUT.json metadata)"),
        clEnumValN(EmitKind::Cubin, "cubin",
                   "cubin (+ OUT.json metadata; needs -o)")),
    cl::cat(compileCategory));

cl::opt<std::string>
    outputFile("o", cl::Prefix, cl::value_desc("OUT"),
               cl::desc("Output file; '-' is stdout (the default for text)"),
               cl::cat(compileCategory));

cl::list<std::string>
    defineList("D", cl::Prefix, cl::value_desc("NAME=VALUE"),
               cl::desc("Bind a constexpr parameter or an hl.specialize'd "
                        "value (repeatable; the last wins), e.g. -D "
                        "world_size=2; a specialized tensor size is -D "
                        "'x.size(1)=8192'"),
               cl::cat(compileCategory));

cl::opt<std::string> configText(
    "config", cl::value_desc("JSON|@FILE"),
    cl::desc("Kernel config as a JSON object, inline or from FILE, e.g. "
             "'{\"block_sizes\": [8192], \"num_warps\": 32}'"),
    cl::cat(compileCategory));

cl::opt<bool> configFromCache(
    "config-from-cache",
    cl::desc("Take the config the tuner chose for this kernel (its source's "
             "sha256 and name), world size, dtype and --size N from the "
             "tuning cache (docs/tuner.md); the kernel's own config when "
             "nothing matches"),
    cl::cat(compileCategory));

cl::opt<std::string>
    cacheDir("cache-dir", cl::value_desc("DIR"),
             cl::desc("The tuning cache to read (implies --config-from-cache;"
                      " default $DSLC_CACHE_DIR, $XDG_CACHE_HOME/dslc, "
                      "~/.cache/dslc)"),
             cl::cat(compileCategory));

cl::list<std::string> shapeList(
    "shape", cl::value_desc("NAME=AxB"),
    cl::desc("Sizes of a tensor parameter, compiled in where the kernel "
             "needs one at compile time (hl.specialize(x.size(d)), ':', "
             "assert x.size(d) == ...) and no -D gives it; each size used is "
             "checked at launch (repeatable; the syntax of --size)"),
    cl::cat(compileCategory));

cl::list<std::string> signatureList(
    "signature", cl::CommaSeparated, cl::value_desc("NAME=DTYPE[RANK],..."),
    cl::desc("Element type and rank of parameters whose annotation does not "
             "give them (NAME=DTYPE alone: a scalar); DTYPE is a canonical "
             "name (bfloat16, float32, float8_e4m3fn, ...) or a short one "
             "(bf16, f32, i32, ...)"),
    cl::cat(compileCategory));

/// --arch's help lists GpuArch.cpp's table (built before the option).
const std::string archHelp =
    "GPU architecture (default sm_90): " + getGpuArchNames();
cl::opt<std::string> archName("arch", cl::value_desc("sm_NN"),
                              cl::desc(archHelp), cl::cat(compileCategory));

cl::opt<MulticastMode, false, ChoiceParser<MulticastMode>> multicastMode(
    "multicast", cl::value_desc("MODE"),
    cl::desc("How stores to stack tensors reach every peer"),
    cl::values(clEnumValN(MulticastMode::Software, "software",
                          "one store per peer (default)"),
               clEnumValN(MulticastMode::NVLS, "nvls",
                          "multimem.st / multimem.ld_reduce (sm_90 and "
                          "newer)")),
    cl::init(MulticastMode::Software), cl::cat(compileCategory));

const std::string worldSizeHelp =
    kMaxSimulatedWorldSize < kMaxWorldSize
        ? llvm::formatv("Number of ranks to specialize for (at most {0}; {1} "
                        "with --simulate)",
                        kMaxWorldSize, kMaxSimulatedWorldSize)
              .str()
        : llvm::formatv("Number of ranks to specialize for (at most {0})",
                        kMaxWorldSize)
              .str();
cl::opt<std::string> worldSize("world-size", cl::value_desc("N"),
                               cl::desc(worldSizeHelp),
                               cl::cat(compileCategory));

cl::opt<std::string> rankValue("rank", cl::value_desc("R"),
                               cl::desc("Rank to specialize for (0 <= R < N)"),
                               cl::cat(compileCategory));

cl::opt<std::string>
    timeoutMs("timeout-ms", cl::value_desc("MS"),
              cl::desc("Bound on every spin in the kernel (0 = unbounded; "
                       "at most one day)"),
              cl::cat(compileCategory));

cl::opt<CubinRoute, false, ChoiceParser<CubinRoute>> cubinVia(
    "cubin-via", cl::value_desc("ROUTE"), cl::desc("How PTX becomes a cubin"),
    cl::values(clEnumValN(CubinRoute::NvJitLink, "nvjitlink",
                          "libnvJitLink in process, else ptxas (default)"),
               clEnumValN(CubinRoute::Ptxas, "ptxas", "the ptxas executable")),
    cl::init(CubinRoute::NvJitLink), cl::cat(compileCategory));

cl::opt<bool> werrorSpills(
    "Werror-spills",
    cl::desc("Register spills in the cubin are an error (default: a "
             "warning naming the bytes and the config)"),
    cl::cat(compileCategory));

//===- Simulation ---------------------------------------------------------===//

cl::opt<bool> simulate("simulate",
                       cl::desc("Run the kernel on the CPU for --world-size "
                                "ranks and check its outputs (no --emit)"),
                       cl::cat(simulateCategory));

cl::opt<std::string>
    seed("seed", cl::value_desc("S"),
         cl::desc("Seed of inputs and interleavings (default 1)"),
         cl::cat(simulateCategory));

const std::string ctasHelp = llvm::formatv(
    "CTAs per rank (default: one per tile; at most {0} over all ranks)",
    kMaxSimulatedCtas);
cl::opt<std::string> ctas("ctas", cl::value_desc("N"), cl::desc(ctasHelp),
                          cl::cat(simulateCategory));

cl::list<std::string>
    sizeList("size", cl::value_desc("N|NAME=AxB"),
             cl::desc("Extent of data tensors, or the sizes of one tensor / "
                      "value of an int scalar (repeatable; with "
                      "--config-from-cache: the size to look up)"),
             cl::cat(simulateCategory));

cl::list<std::string>
    scalarList("scalar", cl::value_desc("NAME=V"),
               cl::desc("The value of a scalar parameter, float or int "
                        "(repeatable; default: the source's default)"),
               cl::cat(simulateCategory));

/// A collective, or FILE.py:NAME (a reference kernel, docs/simulator.md);
/// checked by readSimulationOptions.
cl::opt<std::string> reference(
    "reference", cl::value_desc("KIND"),
    cl::desc("The collective to check the outputs against: auto (default: "
             "from the kernel's inputs and outputs), all-reduce, "
             "reduce-scatter, all-gather, none (no check), or FILE.py:NAME, "
             "a reference kernel over every rank's data stacked"),
    cl::init("auto"), cl::cat(simulateCategory));
constexpr const char *kReferenceKinds[] = {"auto", "all-reduce",
                                           "reduce-scatter", "all-gather",
                                           "none"};

cl::opt<std::string>
    calls("calls", cl::value_desc("K"),
          cl::desc("Launch the kernel K times on the same pads (default 1)"),
          cl::cat(simulateCategory));

cl::opt<std::string> schedules("schedules", cl::value_desc("S"),
                               cl::desc("Interleavings to try (default 3)"),
                               cl::cat(simulateCategory));

cl::opt<std::string>
    dumpDir("dump-dir", cl::value_desc("DIR"),
            cl::desc("Write inputs, outputs and a manifest to DIR"),
            cl::cat(simulateCategory));

//===- Reading values -----------------------------------------------------===//

bool isIdentifier(StringRef s) {
  if (s.empty() || llvm::isDigit(s[0]))
    return false;
  return llvm::all_of(s, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// What -D may bind: a constexpr or a specialized value (NAME), or a
/// specialized tensor size (NAME.size(D)).
bool isDefineName(StringRef s) {
  size_t dot = s.find(".size(");
  if (dot == StringRef::npos)
    return isIdentifier(s);
  StringRef dim = s.substr(dot + 6);
  return isIdentifier(s.take_front(dot)) && dim.consume_back(")") &&
         !dim.empty() && llvm::all_of(dim, llvm::isDigit);
}

/// Parse errors, reported as `dslc: error: MESSAGE` by parseCommandLine.
struct OptionError {
  std::string message;
};
using Check = std::optional<OptionError>;

Check fail(std::string message) { return OptionError{std::move(message)}; }

/// The numeric options, read.
struct Numbers {
  std::optional<uint64_t> worldSize, rank, timeoutMs, seed, ctas, calls,
      schedules;
};

/// Reads every numeric option: a decimal integer (isDecimal: digits only;
/// too large for 64 bits is out of range, never wrapped) within the bounds
/// of this table, the one place they are applied.
Check readNumbers(Numbers &n) {
  struct Spec {
    cl::opt<std::string> &option;
    uint64_t min, max;
    std::optional<uint64_t> &value;
  };
  const Spec specs[] = {
      {worldSize, 1, kMaxWorldSize, n.worldSize},
      {rankValue, 0, kMaxWorldSize - 1, n.rank},
      {timeoutMs, 0, kMaxTimeoutMs, n.timeoutMs},
      {seed, 0, kMaxU64, n.seed},
      {ctas, 1, kMaxSimulatedCtas, n.ctas},
      {calls, 1, kMaxSimulatedCalls, n.calls},
      {schedules, 1, kMaxSimulatedSchedules, n.schedules},
  };
  for (const Spec &spec : specs) {
    if (!spec.option.getNumOccurrences())
      continue;
    const std::string &text = spec.option.getValue();
    std::optional<uint64_t> value = parseDecimal(text);
    if (!isDecimal(text))
      return fail(llvm::formatv("--{0} expects a non-negative integer, got "
                                "'{1}'",
                                spec.option.ArgStr, text));
    if (!value || *value < spec.min || *value > spec.max)
      return fail(llvm::formatv("--{0} must be between {1} and {2}, got {3}",
                                spec.option.ArgStr, spec.min, spec.max, text));
    spec.value = value;
  }
  return std::nullopt;
}

Check readSignature(StringRef entry, CompileOptions &c) {
  auto [name, type] = entry.split('=');
  if (!entry.contains('=') || !isIdentifier(name))
    return fail(llvm::formatv("--signature expects NAME=DTYPE[RANK], got '{0}'",
                              entry));
  ParamSignature sig;
  if (size_t bracket = type.find('['); bracket != StringRef::npos) {
    StringRef rank = type.substr(bracket + 1);
    std::optional<uint64_t> n;
    if (rank.consume_back("]"))
      n = parseDecimal(std::string_view(rank));
    if (!n || *n > 16)
      return fail(llvm::formatv("--signature: bad rank in '{0}' (expected "
                                "DTYPE[N] with 0 <= N <= 16)",
                                entry));
    sig.rank = static_cast<unsigned>(*n);
    type = type.take_front(bracket);
  }
  std::optional<contract::DType> canon = contract::parseDType(type.str());
  if (!canon)
    return fail(llvm::formatv(
        "--signature: unknown dtype '{0}' for '{1}' (expected one of {2}, "
        "or a short name such as bf16)",
        type, name, contract::dtypeNameList()));
  sig.dtype = contract::dtypeName(*canon);
  c.signature[name.str()] = sig;
  return std::nullopt;
}

/// Reads at most `limit` bytes of `path` (so /dev/zero or a FIFO end too).
llvm::Expected<std::string> readPrefix(StringRef path, size_t limit) {
  namespace fs = llvm::sys::fs;
  llvm::Expected<fs::file_t> file = fs::openNativeFileForRead(path);
  if (!file)
    return file.takeError();
  std::string text(limit, '\0');
  size_t size = 0;
  while (size < limit) {
    llvm::Expected<size_t> n = fs::readNativeFile(
        *file, llvm::MutableArrayRef<char>(&text[size], limit - size));
    if (!n) {
      fs::closeFile(*file);
      return n.takeError();
    }
    if (*n == 0)
      break;
    size += *n;
  }
  fs::closeFile(*file);
  text.resize(size);
  return text;
}

/// --config JSON or @FILE, at most kMaxConfigBytes either way.
Check readConfig(StringRef value, std::string &json) {
  if (value.consume_front("@")) {
    llvm::Expected<std::string> text = readPrefix(value, kMaxConfigBytes + 1);
    if (!text)
      return fail(llvm::formatv("--config: cannot read '{0}': {1}", value,
                                llvm::toString(text.takeError())));
    json = std::move(*text);
  } else {
    json = value.str();
  }
  if (json.size() > kMaxConfigBytes)
    return fail(llvm::formatv("--config: the config is larger than {0} MiB; "
                              "a config is one small JSON object",
                              kMaxConfigBytes >> 20));
  size_t first = json.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || json[first] != '{')
    return fail("--config expects a JSON object ('{...}') or @FILE");
  return std::nullopt;
}

/// The sizes of --size A[xB...], each >= 1 and their product at most
/// `maxElements` (checked without overflow).
std::optional<std::vector<int64_t>>
readDims(StringRef list, uint64_t maxElements, bool &tooLarge) {
  std::vector<int64_t> dims;
  uint64_t product = 1;
  llvm::SmallVector<StringRef> parts;
  list.split(parts, 'x');
  for (StringRef part : parts) {
    std::optional<uint64_t> n = parseDecimal(std::string_view(part));
    if (!isDecimal(std::string_view(part)) || (n && *n < 1))
      return std::nullopt;
    if (!n || *n > maxElements || product > maxElements / *n) {
      tooLarge = true;
      return std::nullopt;
    }
    product *= *n;
    dims.push_back(static_cast<int64_t>(*n));
  }
  return dims;
}

/// `option` N or `option` NAME=A[xB...] (--size, --shape: one syntax).
/// A simulated tensor holds at most kMaxSimulatedElements over all
/// `ranks`; other sizes (ranks = 0) fit in int64_t. `extent` is null where
/// the option takes NAME=A[xB...] only.
Check readSize(StringRef option, StringRef text, int64_t ranks,
               std::optional<int64_t> *extent,
               std::map<std::string, std::vector<int64_t>> &sizes) {
  auto [name, list] =
      text.contains('=') ? text.split('=') : std::make_pair(StringRef(), text);
  uint64_t maxElements = ranks
                             ? uint64_t(kMaxSimulatedElements) / uint64_t(ranks)
                             : uint64_t(std::numeric_limits<int64_t>::max());
  bool tooLarge = false;
  std::optional<std::vector<int64_t>> dims =
      readDims(list, maxElements, tooLarge);
  if (tooLarge && ranks)
    return fail(llvm::formatv(
        "{0} {1}: a simulated tensor holds at most {2} elements over "
        "all {3} rank(s), i.e. {4} per rank",
        option, text, kMaxSimulatedElements, ranks, maxElements));
  if (tooLarge)
    return fail(
        llvm::formatv("{0} {1} is larger than {2}", option, text, maxElements));
  bool named = text.contains('=');
  if (!dims || (named && !isIdentifier(name)) ||
      (!named && (!extent || dims->size() != 1)))
    return fail(llvm::formatv("{0} expects {1}NAME=A[xB...] with "
                              "positive integers, got '{2}'",
                              option, extent ? "N or " : "", text));
  if (named)
    sizes[name.str()] = *dims;
  else
    *extent = dims->front();
  return std::nullopt;
}

Check readCompileOptions(const Numbers &n, CompileOptions &c) {
  for (const std::string &d : defineList) {
    auto [name, value] = StringRef(d).split('=');
    if (!StringRef(d).contains('=') || !isDefineName(name) || value.empty())
      return fail(llvm::formatv(
          "-D expects NAME=VALUE or TENSOR.size(D)=VALUE, got '{0}'", d));
    c.defines[name.str()] = value.str();
  }
  for (const std::string &s : signatureList)
    if (Check e = readSignature(s, c))
      return e;
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const std::string &text : shapeList)
    if (Check e = readSize("--shape", text, 0, nullptr, shapes))
      return e;
  for (auto &[name, sizes] : shapes)
    c.shapes[name] = TensorShape{std::move(sizes)};
  if (configText.getNumOccurrences())
    if (Check e = readConfig(configText, c.configJSON))
      return e;
  c.multicast = multicastMode;
  if (n.worldSize)
    c.worldSize = static_cast<int64_t>(*n.worldSize);
  if (n.rank)
    c.rank = static_cast<int64_t>(*n.rank);
  if (std::optional<std::string> error = checkCompileOptions(c))
    return fail(*error);
  return std::nullopt;
}

/// Under --simulate, --size NAME=AxB and --shape NAME=AxB say the same: the
/// compiler compiles in the sizes it needs from either, and the simulator
/// allocates the tensor with them. They must agree where both name a tensor.
Check shareSimulatedShapes(CompileOptions &c, SimulationOptions &s) {
  for (const auto &[name, shape] : c.shapes) {
    auto [it, added] = s.sizes.emplace(name, shape.sizes);
    if (!added && it->second != shape.sizes)
      return fail(llvm::formatv(
          "{0} contradicts {1}; give one of them", shape.spelling(name),
          TensorShape{it->second, /*fromSimulation=*/true}.spelling(name)));
  }
  for (const auto &[name, sizes] : s.sizes)
    c.shapes.emplace(name, TensorShape{sizes, /*fromSimulation=*/true});
  if (std::optional<std::string> error = checkCompileOptions(c))
    return fail(*error);
  return std::nullopt;
}

/// --scalar NAME=V: a finite number.
Check readScalar(const std::string &text, std::map<std::string, double> &out) {
  size_t eq = text.find('=');
  std::string name = text.substr(0, eq);
  if (eq == std::string::npos || name.empty() || eq + 1 == text.size())
    return fail(llvm::formatv("--scalar {0}: give NAME=V", text));
  std::string value = text.substr(eq + 1);
  char *end = nullptr;
  double v = std::strtod(value.c_str(), &end);
  if (end == value.c_str() || *end || !std::isfinite(v))
    return fail(llvm::formatv("--scalar {0}: '{1}' is not a finite number",
                              text, value));
  if (!out.emplace(name, v).second)
    return fail(llvm::formatv("--scalar {0}: '{1}' is given twice", text,
                              name));
  return std::nullopt;
}

/// --simulate's options; without --simulate only --size (for
/// --config-from-cache) may be given.
Check readSimulationOptions(const Numbers &n, DriverOptions &opts) {
  BackendOptions &b = opts.backend;
  CompileOptions &c = b.compile;
  // cl::list's operator& gives its storage: std::addressof gives the list.
  cl::Option *const simulationOnly[] = {&seed,      &ctas,
                                        &reference, &calls,
                                        &schedules, &dumpDir,
                                        std::addressof(scalarList)};
  int64_t ranks = c.worldSize.value_or(1);
  SimulationOptions s;
  for (const std::string &text : sizeList)
    if (Check e = readSize("--size", text, simulate ? ranks : 0, &s.defaultSize,
                           s.sizes))
      return e;
  for (const std::string &text : scalarList)
    if (Check e = readScalar(text, s.scalars))
      return e;
  if (b.cachedConfig)
    b.cachedConfig->size = s.defaultSize;
  if (!simulate) {
    for (cl::Option *o : simulationOnly)
      if (o->getNumOccurrences())
        return fail(
            llvm::formatv("--{0} applies to --simulate only", o->ArgStr));
    if (!sizeList.empty() && (!b.cachedConfig || !s.sizes.empty()))
      return fail("--size NAME=AxB applies to --simulate only, --size N to "
                  "--simulate and --config-from-cache");
    return std::nullopt;
  }

  if (opts.emit != EmitKind::Tile && emitKind.getNumOccurrences())
    return fail("--simulate does not take --emit (it runs the kernel "
                "instead of writing it)");
  if (!c.worldSize)
    return fail("--simulate needs --world-size N");
  if (*c.worldSize > kMaxSimulatedWorldSize)
    return fail(llvm::formatv("--simulate runs at most {0} ranks (the "
                              "simulator holds every rank's memory on the "
                              "host); --world-size is {1}",
                              kMaxSimulatedWorldSize, *c.worldSize));
  if (c.rank)
    return fail("--simulate runs every rank; drop --rank");
  if (n.ctas) {
    // Both are bounded (readNumbers), so the product does not overflow.
    int64_t total = static_cast<int64_t>(*n.ctas) * ranks;
    if (total > kMaxSimulatedCtas)
      return fail(llvm::formatv("--ctas {0} with {1} ranks simulates {2} "
                                "CTAs; at most {3} in all",
                                *n.ctas, ranks, total, kMaxSimulatedCtas));
    s.ctas = static_cast<int64_t>(*n.ctas);
  }
  if (!llvm::is_contained(kReferenceKinds, StringRef(reference)) &&
      StringRef(reference).find(':') == StringRef::npos)
    return fail(llvm::formatv("--reference: unknown value '{0}' (expected "
                              "auto, all-reduce, reduce-scatter, all-gather, "
                              "none or FILE.py:NAME, a reference kernel)",
                              reference));
  s.reference = reference;
  s.seed = n.seed.value_or(s.seed);
  s.calls = static_cast<int64_t>(n.calls.value_or(s.calls));
  s.schedules = static_cast<int64_t>(n.schedules.value_or(s.schedules));
  if (dumpDir.getNumOccurrences() && dumpDir.empty())
    return fail("--dump-dir needs a directory");
  s.dumpDir = dumpDir;
  if (Check e = shareSimulatedShapes(c, s))
    return e;
  opts.emit = EmitKind::Tile;
  b.simulation = std::move(s);
  return std::nullopt;
}

Check readOptions(DriverOptions &opts) {
  if (inputFiles.empty())
    return fail("no input file");
  if (inputFiles.size() > 1)
    return fail(llvm::formatv("more than one input file ('{0}' and '{1}')",
                              inputFiles[0], inputFiles[1]));
  opts.inputFile = inputFiles[0];
  if (kernelName.getNumOccurrences()) {
    if (!isIdentifier(kernelName))
      return fail(llvm::formatv("-k expects a kernel name, got '{0}'",
                                kernelName.getValue()));
    opts.kernel = kernelName;
  }
  if (outputFile.getNumOccurrences()) {
    if (outputFile.empty())
      return fail("-o needs a file name ('-' for stdout)");
    opts.output = outputFile;
  }
  if (!emitKind.getNumOccurrences() && !simulate)
    return fail("missing --emit=KIND (ast, tile, llvm, llvmir, ptx or cubin)");
  opts.emit = emitKind;

  BackendOptions &b = opts.backend;
  Numbers n;
  if (Check e = readNumbers(n))
    return e;
  if (Check e = readCompileOptions(n, b.compile))
    return e;
  if (archName.getNumOccurrences()) {
    const GpuArch *arch = lookupGpuArch(archName.getValue());
    if (!arch)
      return fail(llvm::formatv("unsupported --arch '{0}'; dslc compiles "
                                "for {1}",
                                archName.getValue(), getGpuArchNames()));
    b.arch = *arch;
  }
  if (b.compile.multicast == MulticastMode::NVLS && !b.arch.hasMultimem())
    return fail(llvm::formatv("--multicast=nvls needs multimem instructions, "
                              "which {0} does not have (sm_90 or newer)",
                              b.arch.name));
  b.timeoutMs = n.timeoutMs;
  b.cubinVia = cubinVia;
  b.spillsAreErrors = werrorSpills;
  if (configFromCache || cacheDir.getNumOccurrences()) {
    if (!b.compile.configJSON.empty())
      return fail("--config and --config-from-cache both give the config; "
                  "use one");
    b.cachedConfig = CachedConfigRequest{cacheDir, std::nullopt};
  }
  return readSimulationOptions(n, opts);
}

//===- Errors from llvm::cl -----------------------------------------------===//

/// llvm::cl reports an unknown option on the stream it is given, but a bad
/// or missing value on llvm::errs(); while it parses, standard error goes
/// to a temporary file so that both become `dslc: error:` lines.
class StderrCapture {
public:
  StderrCapture() {
    llvm::errs().flush();
    std::fflush(stderr);
    file = std::tmpfile();
    saved = file ? ::dup(2) : -1;
    if (saved >= 0)
      ::dup2(::fileno(file), 2);
  }
  std::string finish() {
    std::string text;
    if (saved < 0)
      return text;
    llvm::errs().flush();
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(saved);
    std::rewind(file);
    char buffer[4096];
    while (size_t n = std::fread(buffer, 1, sizeof buffer, file))
      text.append(buffer, n);
    std::fclose(file);
    saved = -1;
    return text;
  }
  ~StderrCapture() { finish(); }

private:
  std::FILE *file = nullptr;
  int saved = -1;
};

/// Rewords llvm::cl's "PROG: for the --x option: msg", "PROG: Unknown
/// command line argument '--y'.  Try: ..." and "PROG: Did you mean ...?"
/// lines as dslc errors and notes.
void reportCommandLineErrors(StringRef text, StringRef program) {
  llvm::SmallVector<StringRef> lines;
  text.split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef line : lines) {
    line.consume_front(program);
    line.consume_front(": ");
    if (line.consume_front("Did you mean ")) {
      llvm::errs() << "dslc: note: did you mean " << line << "\n";
      continue;
    }
    std::string message = line.str();
    if (line.consume_front("Unknown command line argument '"))
      message = "unknown option '" + line.split('\'').first.str() + "'";
    else if (line.consume_front("for the ")) {
      auto [option, rest] = line.split(" option: ");
      message = rest == "requires a value!"
                    ? "option '" + option.str() + "' needs a value"
                    : option.str() + ": " + rest.str();
    }
    llvm::errs() << "dslc: error: " << message << "\n";
  }
}

/// llvm::cl reads every argument that starts with '@' as a response file
/// (and `@/dev/zero` until memory runs out). dslc has none: an '@' value
/// of an option (`--config @FILE`) is attached to its option
/// (`--config=@FILE`), any other '@' argument is an error.
Check attachAtValues(int argc, const char *const *argv,
                     std::vector<std::string> &args) {
  llvm::DenseMap<StringRef, cl::Option *> &all = cl::getRegisteredOptions();
  for (int i = 0; i < argc; ++i) {
    StringRef arg = argv[i];
    if (i == 0 || !arg.starts_with("@")) {
      args.push_back(arg.str());
      continue;
    }
    StringRef previous = args.back();
    StringRef name = previous;
    bool takesValue = false, prefix = false;
    if (name.consume_front("-") && !name.contains('=')) {
      bool dashes = name.consume_front("-");
      auto it = all.find(name);
      takesValue = it != all.end() &&
                   it->second->getValueExpectedFlag() == cl::ValueRequired;
      prefix = takesValue && !dashes &&
               it->second->getFormattingFlag() == cl::Prefix;
    }
    if (!takesValue)
      return fail(llvm::formatv("'{0}': dslc reads no response files; for a "
                                "file of this name, write ./{0}",
                                arg));
    args.back() = (previous + (prefix ? "" : "=") + arg).str();
  }
  return std::nullopt;
}

} // namespace

void dslc::registerCommandLineOptions() {
  // The passes first: --mlir-print-ir-after=PASS lists the registered ones.
  registerConversionPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerAsmPrinterCLOptions();

  llvm::DenseMap<StringRef, cl::Option *> &all = cl::getRegisteredOptions();
  for (auto &[name, option] : all)
    if (name.starts_with("mlir-"))
      option->addCategory(mlirCategory);
  // -h and -help as well as --help.
  static cl::alias helpShort("h", cl::desc("Alias for --help"),
                             cl::aliasopt(*all["help"]));
  cl::HideUnrelatedOptions(
      {&compileCategory, &simulateCategory, &mlirCategory});
  cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { os << "dslc version " << kVersion << "\n"; });
}

bool dslc::parseCommandLine(int argc, const char *const *argv,
                            DriverOptions &opts) {
  std::vector<std::string> args;
  if (Check error = attachAtValues(argc, argv, args)) {
    llvm::errs() << "dslc: error: " << error->message << "\n"
                 << "Run 'dslc --help' for usage.\n";
    return false;
  }
  std::vector<const char *> argPointers;
  for (const std::string &arg : args)
    argPointers.push_back(arg.c_str());

  std::string unknownOptions, parseErrors;
  llvm::raw_string_ostream errorStream(unknownOptions);
  bool parsed;
  {
    StderrCapture capture;
    parsed = cl::ParseCommandLineOptions(
        static_cast<int>(argPointers.size()), argPointers.data(),
        "Compiles a Helion-style tile program (Python syntax) to a GPU "
        "kernel, or simulates it on the CPU.\n\nExit status: 0 on success, "
        "1 on any error.\n",
        &errorStream, /*VFS=*/nullptr, /*EnvVar=*/nullptr,
        /*LongOptionsUseDoubleDash=*/true);
    parseErrors = capture.finish() + unknownOptions;
  }
  Check error;
  if (parsed)
    error = readOptions(opts);
  if (parsed && !error)
    return true;
  if (error)
    llvm::errs() << "dslc: error: " << error->message << "\n";
  else
    reportCommandLineErrors(parseErrors,
                            llvm::sys::path::filename(argc ? argv[0] : ""));
  llvm::errs() << "Run 'dslc --help' for usage.\n";
  return false;
}
