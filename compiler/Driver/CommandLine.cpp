//===- CommandLine.cpp - dslc's command line ------------------------------===//
//
// The options are llvm::cl globals. Values with a fixed set of spellings
// use ChoiceParser; the rest are kept as written in a RawOptions, which
// readDriverOptions (OptionValues.cpp) checks.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/DriverOptions.h"

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

cl::opt<bool> specializeShapes(
    "specialize-shapes",
    cl::desc("Compile in every size --shape gives (each checked at launch), "
             "as Helion's static_shapes=True does: bounds tests of tiles "
             "that divide their dimensions fold away; one cubin per shape"),
    cl::cat(compileCategory));

cl::list<std::string> dimOrderList(
    "dim-order", cl::value_desc("NAME=AxB..."),
    cl::desc("A tensor parameter passed as the row-major tensor it is stored "
             "as: stored dimension i is dimension A, B, ... of the tensor "
             "the kernel sees (torch's Tensor.dim_order(); 1x0: a "
             "transposed matrix, e.g. y.T.contiguous().T); its --shape "
             "gives the stored sizes (repeatable)"),
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

cl::opt<bool> issueLoadsEarly(
    "issue-loads-early",
    cl::desc("Issue a load written after a reduction above it (default "
             "true; =false keeps program order, to measure the pass)"),
    cl::init(true), cl::Hidden, cl::cat(compileCategory));

cl::opt<bool> preciseMath(
    "precise-math",
    cl::desc("Correctly rounded exp and f32 division everywhere (default: "
             "ex2.approx and div.full, or a row's reciprocal, where the "
             "result is only rounded to 16-bit or narrower floats, as "
             "Triton does everywhere)"),
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

/// What the parsed options say, as written.
RawOptions rawOptions() {
  RawOptions raw;
  raw.inputFiles.assign(inputFiles.begin(), inputFiles.end());
  auto text = [](const cl::opt<std::string> &o) {
    return o.getNumOccurrences() ? std::optional<std::string>(o.getValue())
                                 : std::nullopt;
  };
  raw.kernel = text(kernelName);
  raw.output = text(outputFile);
  raw.config = text(configText);
  raw.cacheDir = text(cacheDir);
  raw.arch = text(archName);
  raw.reference = text(reference);
  raw.dumpDir = text(dumpDir);
  if (emitKind.getNumOccurrences())
    raw.emit = emitKind.getValue();
  raw.defines.assign(defineList.begin(), defineList.end());
  raw.signatures.assign(signatureList.begin(), signatureList.end());
  raw.shapes.assign(shapeList.begin(), shapeList.end());
  raw.specializeShapes = specializeShapes;
  raw.dimOrders.assign(dimOrderList.begin(), dimOrderList.end());
  raw.sizes.assign(sizeList.begin(), sizeList.end());
  raw.scalars.assign(scalarList.begin(), scalarList.end());
  for (const cl::opt<std::string> *o :
       {&worldSize, &rankValue, &timeoutMs, &seed, &ctas, &calls, &schedules})
    if (o->getNumOccurrences())
      raw.numbers[o->ArgStr.str()] = o->getValue();
  raw.multicast = multicastMode;
  raw.cubinVia = cubinVia;
  raw.werrorSpills = werrorSpills;
  raw.issueLoadsEarly = issueLoadsEarly;
  raw.preciseMath = preciseMath;
  raw.simulate = simulate;
  raw.configFromCache = configFromCache;
  return raw;
}

/// A problem found before the options are read (an '@' argument).
using Check = std::optional<std::string>;
Check fail(std::string message) { return message; }

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
    llvm::errs() << "dslc: error: " << *error << "\n"
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
    error = readDriverOptions(rawOptions(), opts);
  if (parsed && !error)
    return true;
  if (error)
    llvm::errs() << "dslc: error: " << *error << "\n";
  else
    reportCommandLineErrors(parseErrors,
                            llvm::sys::path::filename(argc ? argv[0] : ""));
  llvm::errs() << "Run 'dslc --help' for usage.\n";
  return false;
}
