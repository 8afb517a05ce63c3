//===- OptionValues.cpp - dslc's option values, read and checked ----------===//
//
// Everything dslc's command line says, checked: numbers by readNumbers
// (digits only, no overflow, bounds from the headers that own them), the
// others by their own reader, then what options say about each other. No
// llvm::cl here: tools/dslc's command line (CommandLine.cpp) fills a
// RawOptions, so these checks are a library that unit tests call too.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/DriverOptions.h"

#include "contract/DType.h"
#include "contract/Metadata.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstdlib>
#include <iterator>
#include <limits>

using namespace dslc;
using llvm::StringRef;

namespace {

constexpr uint64_t kMaxU64 = std::numeric_limits<uint64_t>::max();
constexpr const char *kReferenceKinds[] = {
    "auto", "all-reduce", "reduce-scatter", "all-gather", "none"};

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

/// A problem with the options: the text of one `dslc: error:` line.
using Check = std::optional<std::string>;

Check fail(std::string message) { return message; }

/// The numeric options, read.
struct Numbers {
  std::optional<uint64_t> worldSize, rank, timeoutMs, seed, ctas, calls,
      schedules;
};

/// Reads every numeric option: a decimal integer (isDecimal: digits only;
/// too large for 64 bits is out of range, never wrapped) within the bounds
/// of this table, the one place they are applied.
Check readNumbers(const RawOptions &raw, Numbers &n) {
  struct Spec {
    const char *name;
    uint64_t min, max;
    std::optional<uint64_t> &value;
  };
  const Spec specs[] = {
      {"world-size", 1, kMaxWorldSize, n.worldSize},
      {"rank", 0, kMaxWorldSize - 1, n.rank},
      {"timeout-ms", 0, kMaxTimeoutMs, n.timeoutMs},
      {"seed", 0, kMaxU64, n.seed},
      {"ctas", 1, kMaxSimulatedCtas, n.ctas},
      {"calls", 1, kMaxSimulatedCalls, n.calls},
      {"schedules", 1, kMaxSimulatedSchedules, n.schedules},
  };
  for (const Spec &spec : specs) {
    auto given = raw.numbers.find(spec.name);
    if (given == raw.numbers.end())
      continue;
    const std::string &text = given->second;
    std::optional<uint64_t> value = parseDecimal(text);
    if (!isDecimal(text))
      return fail(llvm::formatv("--{0} expects a non-negative integer, got "
                                "'{1}'",
                                spec.name, text));
    if (!value || *value < spec.min || *value > spec.max)
      return fail(llvm::formatv("--{0} must be between {1} and {2}, got {3}",
                                spec.name, spec.min, spec.max, text));
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

/// --dim-order NAME=AxB...: a permutation of 0..rank-1.
Check readDimOrder(StringRef text, CompileOptions &c) {
  auto [name, list] = text.split('=');
  std::vector<unsigned> order;
  bool ok = text.contains('=') && isIdentifier(name) && !list.empty();
  llvm::SmallVector<StringRef, 4> parts;
  list.split(parts, 'x');
  for (StringRef p : parts) {
    std::optional<uint64_t> d = parseDecimal(std::string_view(p));
    ok = ok && d && *d < 16;
    order.push_back(ok ? unsigned(*d) : 0);
  }
  if (!ok)
    return fail(llvm::formatv("--dim-order expects NAME=AxB... (dimensions "
                              "0 to 15), got '{0}'",
                              text));
  if (!contract::isPermutation(order))
    return fail(llvm::formatv("--dim-order {0}: not a permutation of the "
                              "dimensions 0 to {1}",
                              text, order.size() - 1));
  c.dimOrders[name.str()] = order;
  return std::nullopt;
}

Check readCompileOptions(const RawOptions &raw, const Numbers &n,
                         CompileOptions &c) {
  for (const std::string &d : raw.defines) {
    auto [name, value] = StringRef(d).split('=');
    if (!StringRef(d).contains('=') || !isDefineName(name) || value.empty())
      return fail(llvm::formatv(
          "-D expects NAME=VALUE or TENSOR.size(D)=VALUE, got '{0}'", d));
    c.defines[name.str()] = value.str();
  }
  for (const std::string &s : raw.signatures)
    if (Check e = readSignature(s, c))
      return e;
  for (const std::string &s : raw.dimOrders)
    if (Check e = readDimOrder(s, c))
      return e;
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const std::string &text : raw.shapes)
    if (Check e = readSize("--shape", text, 0, nullptr, shapes))
      return e;
  for (auto &[name, sizes] : shapes)
    c.shapes[name] = TensorShape{std::move(sizes)};
  c.specializeShapes = raw.specializeShapes;
  if (raw.config)
    if (Check e = readConfig(*raw.config, c.configJSON))
      return e;
  c.multicast = raw.multicast;
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
    return fail(
        llvm::formatv("--scalar {0}: '{1}' is given twice", text, name));
  return std::nullopt;
}

/// --simulate's options; without --simulate only --size (for
/// --config-from-cache) may be given.
Check readSimulationOptions(const RawOptions &raw, const Numbers &n,
                            DriverOptions &opts) {
  BackendOptions &b = opts.backend;
  CompileOptions &c = b.compile;
  const bool simulationOnly[] = {raw.numbers.count("seed") != 0,
                                 raw.numbers.count("ctas") != 0,
                                 raw.reference.has_value(),
                                 raw.numbers.count("calls") != 0,
                                 raw.numbers.count("schedules") != 0,
                                 raw.dumpDir.has_value(),
                                 !raw.scalars.empty()};
  const char *const simulationOnlyNames[] = {
      "seed", "ctas", "reference", "calls", "schedules", "dump-dir", "scalar"};
  int64_t ranks = c.worldSize.value_or(1);
  SimulationOptions s;
  for (const std::string &text : raw.sizes)
    if (Check e = readSize("--size", text, raw.simulate ? ranks : 0,
                           &s.defaultSize, s.sizes))
      return e;
  for (const std::string &text : raw.scalars)
    if (Check e = readScalar(text, s.scalars))
      return e;
  if (b.cachedConfig) {
    b.cachedConfig->size = s.defaultSize;
    b.cachedConfig->shapes = s.sizes;
  }
  if (!raw.simulate) {
    for (size_t i = 0; i < std::size(simulationOnly); ++i)
      if (simulationOnly[i])
        return fail(llvm::formatv("--{0} applies to --simulate only",
                                  simulationOnlyNames[i]));
    if (!raw.sizes.empty() && !b.cachedConfig)
      return fail("--size applies to --simulate and --config-from-cache");
    return std::nullopt;
  }

  if (raw.emit && *raw.emit != EmitKind::Tile)
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
  std::string reference = raw.reference.value_or("auto");
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
  if (raw.dumpDir && raw.dumpDir->empty())
    return fail("--dump-dir needs a directory");
  s.dumpDir = raw.dumpDir.value_or("");
  if (Check e = shareSimulatedShapes(c, s))
    return e;
  opts.emit = EmitKind::Tile;
  b.simulation = std::move(s);
  return std::nullopt;
}

} // namespace

std::optional<std::string> dslc::readDriverOptions(const RawOptions &raw,
                                                   DriverOptions &opts) {
  if (raw.inputFiles.empty())
    return fail("no input file");
  if (raw.inputFiles.size() > 1)
    return fail(llvm::formatv("more than one input file ('{0}' and '{1}')",
                              raw.inputFiles[0], raw.inputFiles[1]));
  opts.inputFile = raw.inputFiles[0];
  if (raw.kernel) {
    if (!isIdentifier(*raw.kernel))
      return fail(
          llvm::formatv("-k expects a kernel name, got '{0}'", *raw.kernel));
    opts.kernel = raw.kernel;
  }
  if (raw.output) {
    if (raw.output->empty())
      return fail("-o needs a file name ('-' for stdout)");
    opts.output = raw.output;
  }
  if (!raw.emit && !raw.simulate)
    return fail("missing --emit=KIND (ast, tile, llvm, llvmir, ptx or cubin)");
  opts.emit = raw.emit.value_or(EmitKind::AST);

  BackendOptions &b = opts.backend;
  Numbers n;
  if (Check e = readNumbers(raw, n))
    return e;
  if (Check e = readCompileOptions(raw, n, b.compile))
    return e;
  if (raw.arch) {
    const GpuArch *arch = lookupGpuArch(*raw.arch);
    if (!arch)
      return fail(llvm::formatv("unsupported --arch '{0}'; dslc compiles "
                                "for {1}",
                                *raw.arch, getGpuArchNames()));
    b.arch = *arch;
  }
  if (b.compile.multicast == MulticastMode::NVLS && !b.arch.hasMultimem())
    return fail(llvm::formatv("--multicast=nvls needs multimem instructions, "
                              "which {0} does not have (sm_90 or newer)",
                              b.arch.name));
  b.timeoutMs = n.timeoutMs;
  b.cubinVia = raw.cubinVia;
  b.spillsAreErrors = raw.werrorSpills;
  b.issueLoadsEarly = raw.issueLoadsEarly;
  b.preciseMath = raw.preciseMath;
  if (raw.configFromCache || raw.cacheDir) {
    if (!b.compile.configJSON.empty())
      return fail("--config and --config-from-cache both give the config; "
                  "use one");
    b.cachedConfig =
        CachedConfigRequest{raw.cacheDir.value_or(""), std::nullopt};
  }
  return readSimulationOptions(raw, n, opts);
}
