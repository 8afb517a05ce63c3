//===- SimulationDump.cpp - Read a dslc --simulate dump -------------------===//
#include "tooling/simdump/SimulationDump.h"

#include "contract/Numerics.h"
#include "contract/Tolerance.h"
#include "tooling/harness/ElementTypes.h"
#include "tooling/support/Sizes.h"

#include "compiler/Simulator/NpyFormat.h"
#include "runtime/Error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

namespace dslc::run {

using namespace dslc::rt;
using contract::isFloatFormat;
using contract::isFp8;
using nlohmann::json;

const char *dumpRoleName(DumpParam::Role role) {
  switch (role) {
  case DumpParam::Role::Input:
    return "input";
  case DumpParam::Role::Output:
    return "output";
  case DumpParam::Role::SignalPad:
    return "signal pad";
  case DumpParam::Role::PeerTable:
    return "peer table";
  case DumpParam::Role::Scratch:
    return "LL scratch";
  case DumpParam::Role::Workspace:
    return "workspace";
  case DumpParam::Role::Scalar:
    return "scalar";
  }
  return "?";
}

int64_t DumpParam::numel() const { return tooling::numel(sizes); }

uint64_t DumpParam::bytes() const {
  return static_cast<uint64_t>(numel()) * dtypeSize(dtype);
}

const DumpParam *SimulationDump::find(const std::string &name) const {
  for (const DumpParam &p : params)
    if (p.name == name)
      return &p;
  return nullptr;
}

std::string SimulationDump::inputPath(int rank, int64_t launch,
                                      const std::string &name) const {
  return fmt::format("{}/r{}.c{}.{}.npy", dir, rank, launch, name);
}

std::string SimulationDump::outputPath(int rank, int64_t launch,
                                       const std::string &name) const {
  return fmt::format("{}/r{}.c{}.{}.out.npy", dir, rank, launch, name);
}

namespace {

std::string shapeText(const DumpParam &p) {
  std::string s = p.dtypeName + "[";
  for (size_t i = 0; i < p.sizes.size(); ++i)
    s += (i ? "x" : "") + std::to_string(p.sizes[i]);
  return s + "]";
}

/// Reads the .npy file `path` of parameter `p` (its header only when
/// `header` is set) and checks it: the parameter's numpy type, its sizes,
/// C order, numel * element size bytes of data. Returns the data.
std::vector<char> readDataFile(const std::string &path, const DumpParam &p,
                               const char *what, bool header = false) {
  std::error_code ec;
  auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status))
    raise(ErrorCode::Io,
          fmt::format("simulation dump: missing {} file {} ({} '{}')", what,
                      path, dumpRoleName(p.role), p.name));
  if (!std::filesystem::is_regular_file(status))
    raise(ErrorCode::Io, fmt::format("simulation dump: {} file {} is not a "
                                     "regular file",
                                     what, path));
  uint64_t size = std::filesystem::file_size(path, ec);
  if (ec)
    raise(ErrorCode::Io, fmt::format("simulation dump: cannot read the size "
                                     "of {}: {}",
                                     path, ec.message()));
  std::ifstream in(path, std::ios::binary);
  if (!in)
    raise(ErrorCode::Io,
          fmt::format("simulation dump: cannot open {} file {}", what, path));
  // The header is at most a few hundred bytes for our shapes.
  std::vector<char> data(header ? std::min<uint64_t>(size, 4096) : size);
  in.read(data.data(), static_cast<std::streamsize>(data.size()));
  if (static_cast<uint64_t>(in.gcount()) != data.size())
    raise(ErrorCode::Io,
          fmt::format("simulation dump: short read of {} file {}", what, path));
  npy::Header h;
  std::string error;
  if (!npy::parseHeader(data.data(), data.size(), h, error))
    raise(ErrorCode::InvalidArgument,
          fmt::format("simulation dump: {} file {}: {}", what, path, error));
  std::string descr = npy::descrOf(p.dtypeName);
  if (h.descr != descr || h.fortranOrder || h.shape != p.sizes) {
    std::string shape;
    for (size_t d = 0; d < h.shape.size(); ++d)
      shape += (d ? "x" : "") + std::to_string(h.shape[d]);
    raise(ErrorCode::InvalidArgument,
          fmt::format("simulation dump: {} file {} holds '{}' [{}]{}, but "
                      "'{}' is {} (numpy '{}', C order)",
                      what, path, h.descr, shape,
                      h.fortranOrder ? " in Fortran order" : "", p.name,
                      shapeText(p), descr));
  }
  if (size - h.dataOffset != p.bytes())
    raise(ErrorCode::InvalidArgument,
          fmt::format("simulation dump: {} file {} holds {} bytes of data, "
                      "but '{}' is {} ({} elements of {} bytes = {} bytes)",
                      what, path, size - h.dataOffset, p.name, shapeText(p),
                      p.numel(), dtypeSize(p.dtype), p.bytes()));
  if (header)
    return {};
  data.erase(data.begin(), data.begin() + std::ptrdiff_t(h.dataOffset));
  return data;
}

void checkDataFile(const std::string &path, const DumpParam &p,
                   const char *what) {
  readDataFile(path, p, what, /*header=*/true);
}

class ManifestParser {
public:
  explicit ManifestParser(std::string origin) : origin_(std::move(origin)) {}

  [[noreturn]] void fail(const std::string &what) const {
    raise(ErrorCode::Metadata,
          fmt::format("simulation manifest {}: {}", origin_, what));
  }

  const json &need(const json &obj, const char *key,
                   const std::string &where) const {
    auto it = obj.find(key);
    if (it == obj.end())
      fail(fmt::format("{}missing '{}'", where, key));
    return *it;
  }

  std::string needString(const json &obj, const char *key,
                         const std::string &where) const {
    const json &v = need(obj, key, where);
    if (!v.is_string())
      fail(
          fmt::format("{}'{}' must be a string, not {}", where, key, v.dump()));
    return v.get<std::string>();
  }

  int64_t needInt(const json &obj, const char *key, const std::string &where,
                  int64_t min) const {
    const json &v = need(obj, key, where);
    if (!v.is_number_integer() || v.get<int64_t>() < min)
      fail(fmt::format("{}'{}' must be an integer >= {}, not {}", where, key,
                       min, v.dump()));
    return v.get<int64_t>();
  }

  DumpParam parseParam(const json &j, size_t index) const {
    std::string where = fmt::format("params[{}]: ", index);
    if (!j.is_object())
      fail(fmt::format("{}must be an object, not {}", where, j.dump()));
    DumpParam p;
    p.name = needString(j, "name", where);
    if (p.name.empty())
      fail(where + "empty 'name'");
    where = fmt::format("params[{}] '{}': ", index, p.name);
    std::string kind = needString(j, "kind", where);
    if (kind == "scalar") {
      p.role = DumpParam::Role::Scalar;
      const json &v = need(j, "value", where);
      if (!v.is_number())
        fail(fmt::format("{}scalar 'value' must be a number, not {}", where,
                         v.dump()));
      p.isFloatScalar = v.is_number_float();
      if (p.isFloatScalar)
        p.floatValue = v.get<double>();
      else
        p.intValue = v.get<int64_t>();
      return p;
    }
    if (kind != "tensor")
      fail(fmt::format("{}'kind' must be \"tensor\" or \"scalar\", not "
                       "\"{}\"",
                       where, kind));
    std::string role = needString(j, "role", where);
    if (role == "input")
      p.role = DumpParam::Role::Input;
    else if (role == "output")
      p.role = DumpParam::Role::Output;
    else if (role == "signal pad")
      p.role = DumpParam::Role::SignalPad;
    else if (role == "peer table")
      p.role = DumpParam::Role::PeerTable;
    else if (role == "LL scratch")
      p.role = DumpParam::Role::Scratch;
    else if (role == "workspace")
      p.role = DumpParam::Role::Workspace;
    else
      fail(fmt::format("{}unknown role \"{}\" (expected input, output, "
                       "signal pad, peer table, LL scratch or workspace)",
                       where, role));
    p.dtypeName = needString(j, "dtype", where);
    std::optional<DType> dt = parseDType(p.dtypeName);
    if (!dt)
      fail(fmt::format("{}dtype \"{}\" has no runtime equivalent", where,
                       p.dtypeName));
    p.dtype = *dt;
    const json &sizes = need(j, "sizes", where);
    if (!sizes.is_array())
      fail(fmt::format("{}'sizes' must be an array, not {}", where,
                       sizes.dump()));
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (!sizes[d].is_number_integer() || sizes[d].get<int64_t>() < 0)
        fail(fmt::format("{}sizes[{}] must be a non-negative integer, not {}",
                         where, d, sizes[d].dump()));
      p.sizes.push_back(sizes[d].get<int64_t>());
    }
    if (p.role == DumpParam::Role::PeerTable)
      p.tableOf = needString(j, "table_of", where);
    return p;
  }

  SimulationDump parse(const std::string &text, const std::string &dir) const {
    json j;
    try {
      j = json::parse(text);
    } catch (const json::exception &e) {
      fail(fmt::format("not valid JSON: {}", e.what()));
    }
    if (!j.is_object())
      fail("the top level must be an object");
    SimulationDump d;
    d.dir = dir;
    d.manifest = origin_;
    std::string format = needString(j, "format", "");
    if (format != "dslc-simulation")
      fail(fmt::format("'format' is \"{}\", expected \"dslc-simulation\" "
                       "(a dump of dslc --simulate --dump-dir)",
                       format));
    if (!j.contains("version") || !j["version"].is_number_integer() ||
        j["version"].get<int64_t>() != 2)
      fail("the dump is not of format version 2 (its files are not .npy): "
           "make it again with dslc FILE --simulate --dump-dir DIR");
    d.kernel = needString(j, "kernel", "");
    d.worldSize = static_cast<int>(needInt(j, "world_size", "", 1));
    d.launches = needInt(j, "launches", "", 1);
    d.seed = static_cast<uint64_t>(needInt(j, "seed", "", 0));
    if (j.contains("reference") && j["reference"].is_string())
      d.reference = j["reference"].get<std::string>();
    const json &params = need(j, "params", "");
    if (!params.is_array() || params.empty())
      fail("'params' must be a non-empty array");
    std::set<std::string> seen;
    for (size_t i = 0; i < params.size(); ++i) {
      DumpParam p = parseParam(params[i], i);
      if (!seen.insert(p.name).second)
        fail(
            fmt::format("params[{}]: parameter '{}' appears twice", i, p.name));
      d.params.push_back(std::move(p));
    }
    for (const DumpParam &p : d.params) {
      if (p.role != DumpParam::Role::PeerTable)
        continue;
      const DumpParam *of = d.find(p.tableOf);
      if (!of || !of->isTensor() || of->role == DumpParam::Role::PeerTable)
        fail(fmt::format("peer table '{}': table_of '{}' is not a tensor "
                         "parameter of the manifest",
                         p.name, p.tableOf));
    }
    return d;
  }

private:
  std::string origin_;
};

uint64_t loadBits(const unsigned char *p, size_t width) {
  uint64_t v = 0;
  for (size_t i = 0; i < width; ++i) // little-endian, as the GPU stores it
    v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

std::string valueText(DType t, uint64_t bits) {
  if (isFp8(t))
    return fmt::format("{} ({:#x})", fp8ToDouble(static_cast<uint8_t>(bits), t),
                       bits);
  switch (t) {
  case DType::BFloat16:
  case DType::Float32: {
    uint32_t u = t == DType::BFloat16 ? static_cast<uint32_t>(bits) << 16
                                      : static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &u, 4);
    return fmt::format("{} ({:#x})", f, bits);
  }
  case DType::Float16:
    return fmt::format("{} ({:#x})",
                       double(halfToFloat(static_cast<uint16_t>(bits))), bits);
  case DType::Float64: {
    double d;
    std::memcpy(&d, &bits, 8);
    return fmt::format("{} ({:#x})", d, bits);
  }
  case DType::Int8:
    return std::to_string(static_cast<int8_t>(bits));
  case DType::Int16:
    return std::to_string(static_cast<int16_t>(bits));
  case DType::Int32:
    return std::to_string(static_cast<int32_t>(bits));
  case DType::Int64:
    return std::to_string(static_cast<int64_t>(bits));
  default:
    return std::to_string(bits);
  }
}

} // namespace

std::vector<char> SimulationDump::readInput(int rank, int64_t launch,
                                            const DumpParam &p) const {
  return readDataFile(inputPath(rank, launch, p.name), p, "input");
}

std::vector<char> SimulationDump::readOutput(int rank, int64_t launch,
                                             const DumpParam &p) const {
  return readDataFile(outputPath(rank, launch, p.name), p, "output");
}

SimulationDump parseSimulationManifest(const std::string &text,
                                       const std::string &dir) {
  return ManifestParser(dir + "/manifest.json").parse(text, dir);
}

SimulationDump loadSimulationDump(const std::string &dir) {
  std::string path = dir + "/manifest.json";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    raise(ErrorCode::Io,
          fmt::format("simulation dump {}: no such directory (make one with "
                      "dslc FILE --simulate --world-size N --dump-dir DIR)",
                      dir));
  if (!std::filesystem::exists(path, ec))
    raise(ErrorCode::Io,
          fmt::format("simulation dump {}: no manifest.json in it (make one "
                      "with dslc FILE --simulate --world-size N --dump-dir "
                      "DIR)",
                      dir));
  SimulationDump d = parseSimulationManifest(readFile(path), dir);
  for (int64_t c = 0; c < d.launches; ++c)
    for (int r = 0; r < d.worldSize; ++r)
      for (const DumpParam &p : d.params) {
        if (p.role == DumpParam::Role::Input)
          checkDataFile(d.inputPath(r, c, p.name), p, "input");
        else if (p.role == DumpParam::Role::Output)
          checkDataFile(d.outputPath(r, c, p.name), p, "output");
      }
  return d;
}

void checkDumpMatchesKernel(const SimulationDump &dump,
                            const KernelMetadata &md, int worldSize) {
  std::vector<std::string> problems;
  if (dump.kernel != md.kernel)
    problems.push_back(fmt::format("the dump is of kernel '{}', the cubin's "
                                   "metadata is of kernel '{}'",
                                   dump.kernel, md.kernel));
  if (dump.worldSize != worldSize)
    problems.push_back(fmt::format("the dump was simulated for world size {}, "
                                   "this run has {} rank(s)",
                                   dump.worldSize, worldSize));
  if (md.worldSize && *md.worldSize != dump.worldSize)
    problems.push_back(fmt::format("the kernel was compiled for world size {}, "
                                   "the dump was simulated for {}",
                                   *md.worldSize, dump.worldSize));
  std::set<std::string> matched;
  for (const ArgSpec &a : md.args) {
    const DumpParam *p = dump.find(a.name);
    if (!p) {
      problems.push_back(fmt::format("{} '{}' of the kernel is not in the "
                                     "manifest",
                                     a.isOutput ? "output" : "parameter",
                                     a.name));
      continue;
    }
    matched.insert(a.name);
    std::string what = fmt::format("'{}'", a.name);
    if (a.kind == ArgSpec::Kind::Scalar) {
      if (p->role != DumpParam::Role::Scalar)
        problems.push_back(fmt::format("{}: a {} scalar in the kernel, a {} "
                                       "tensor in the manifest",
                                       what, argKindName(a),
                                       dumpRoleName(p->role)));
      else if (a.isIntScalar() && p->isFloatScalar)
        problems.push_back(fmt::format("{}: an int in the kernel, the float "
                                       "{} in the manifest",
                                       what, p->floatValue));
      continue;
    }
    if (p->role == DumpParam::Role::Scalar) {
      problems.push_back(fmt::format("{}: a tensor in the kernel, a scalar in "
                                     "the manifest",
                                     what));
      continue;
    }
    bool output = a.role == Role::Output;
    if (output != (p->role == DumpParam::Role::Output))
      problems.push_back(fmt::format("{}: {} in the kernel, {} in the "
                                     "manifest",
                                     what, output ? "an output" : "an input",
                                     dumpRoleName(p->role)));
    bool dtypeOk = isFloatFormat(a.dtype) || isFloatFormat(p->dtype)
                       ? a.dtype == p->dtype
                       : dtypeSize(a.dtype) == dtypeSize(p->dtype);
    if (!dtypeOk)
      problems.push_back(fmt::format("{}: dtype {} in the kernel, {} in the "
                                     "manifest",
                                     what, dtypeName(a.dtype), p->dtypeName));
    if (static_cast<int>(p->sizes.size()) != a.rank)
      problems.push_back(fmt::format("{}: rank {} in the kernel, {} ({}) in "
                                     "the manifest",
                                     what, a.rank, p->sizes.size(),
                                     shapeText(*p)));
    if (p->role == DumpParam::Role::PeerTable &&
        (dtypeSize(p->dtype) != 8 || isFloatFormat(p->dtype) ||
         p->sizes != std::vector<int64_t>{worldSize}))
      problems.push_back(fmt::format("{}: a peer table must hold {} 64-bit "
                                     "addresses, the manifest gives {}",
                                     what, worldSize, shapeText(*p)));
    if (a.symmetric && p->role != DumpParam::Role::Input &&
        p->role != DumpParam::Role::SignalPad &&
        p->role != DumpParam::Role::Scratch &&
        p->role != DumpParam::Role::Workspace)
      problems.push_back(fmt::format("{}: symmetric in the kernel, so it must "
                                     "be an input, a signal pad, an LL "
                                     "scratch or a workspace, not a {}",
                                     what, dumpRoleName(p->role)));
  }
  for (const DumpParam &p : dump.params) {
    if (matched.count(p.name))
      continue;
    // A symmetric tensor's peer table is part of the tensor's binding.
    int idx = md.findArg(p.tableOf);
    dslc::contract::AbiSlot peers;
    peers.kind = SlotKind::Peers;
    peers.param = p.tableOf;
    if (p.role == DumpParam::Role::PeerTable && idx >= 0 &&
        md.args[idx].symmetric && p.name == canonicalSlotName(peers))
      continue;
    problems.push_back(fmt::format("{} '{}' of the manifest is not an argument "
                                   "of kernel {}",
                                   dumpRoleName(p.role), p.name, md.kernel));
  }
  if (problems.empty())
    return;
  std::string msg =
      fmt::format("simulation dump {} does not fit {}:", dump.dir, md.origin);
  for (const std::string &s : problems)
    msg += "\n  " + s;
  raise(ErrorCode::InvalidArgument, msg);
}

bool OutputComparison::acceptable(uint64_t maxUlpAllowed) const {
  if (differing == 0)
    return true;
  if (!isFloatFormat(dtype))
    return false;
  return maxUlp <= maxUlpAllowed || withinTolerance;
}

namespace {
/// The contract's tolerance model over the whole output (reductions and
/// math may round differently on the GPU than in the simulator).
void toleranceOf(OutputComparison &c, const void *got, const void *expected,
                 int64_t n, int worldSize) {
  std::vector<double> g(static_cast<size_t>(n)), e(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    g[k] = loadAny(got, k, c.dtype);
    e[k] = loadAny(expected, k, c.dtype);
  }
  c.tolerance = contract::relativeTolerance(c.dtype, worldSize);
  contract::ToleranceCheck t =
      contract::checkWithTolerance(g.data(), e.data(), nullptr, n, c.tolerance);
  c.relError = t.relError;
  c.withinTolerance = t.ok;
}
} // namespace

OutputComparison compareOutputs(DType dtype, const void *got,
                                const void *expected, int64_t n,
                                int worldSize) {
  OutputComparison c;
  c.dtype = dtype;
  c.elements = n;
  size_t width = dtypeSize(dtype);
  auto *g = static_cast<const unsigned char *>(got);
  auto *e = static_cast<const unsigned char *>(expected);
  for (int64_t k = 0; k < n; ++k) {
    if (std::memcmp(g + k * width, e + k * width, width) == 0)
      continue;
    uint64_t gb = loadBits(g + k * width, width);
    uint64_t eb = loadBits(e + k * width, width);
    if (c.differing++ == 0) {
      c.firstDiffering = k;
      c.firstGot = valueText(dtype, gb);
      c.firstExpected = valueText(dtype, eb);
    }
    uint64_t ulp = ulpDistance(dtype, gb, eb);
    if (c.worstElement < 0 || ulp > c.maxUlp) {
      c.maxUlp = ulp;
      c.worstElement = k;
    }
  }
  if (c.maxUlp > 1 && isFloatFormat(dtype))
    toleranceOf(c, got, expected, n, worldSize);
  return c;
}

std::string formatVerdict(int rank, const DumpParam &p,
                          const OutputComparison &c) {
  std::string head =
      fmt::format("rank {}: output '{}' ({})", rank, p.name, shapeText(p));
  if (c.bitwiseEqual())
    return fmt::format("{}: bitwise equal to the simulator ({} elements): ok",
                       head, c.elements);
  std::string ulp = c.maxUlp == OutputComparison::kUlpInfinite
                        ? std::string("unbounded (NaN or integer)")
                        : std::to_string(c.maxUlp);
  std::string model = fmt::format("relative error {:.2e}, {}", c.relError,
                                  contract::toleranceText(c.tolerance));
  std::string verdict =
      !isFloatFormat(c.dtype) ? "FAILED (integers must be bitwise equal)"
      : c.maxUlp <= 1         ? "within 1 ulp: ok"
      : c.withinTolerance
          ? fmt::format("more than 1 ulp, within the tolerance model ({}): ok",
                        model)
          : fmt::format("FAILED (more than 1 ulp and beyond the tolerance "
                        "model: {})",
                        model);
  return fmt::format("{}: {} of {} elements differ from the simulator, max "
                     "ulp difference {} (element {}); first at element {}: "
                     "GPU {}, simulator {}: {}",
                     head, c.differing, c.elements, ulp, c.worstElement,
                     c.firstDiffering, c.firstGot, c.firstExpected, verdict);
}

} // namespace dslc::run
