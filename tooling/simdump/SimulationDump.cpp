//===- SimulationDump.cpp - Read a dslc --simulate dump -------------------===//
#include "tooling/simdump/SimulationDump.h"

#include "contract/Numerics.h"
#include "contract/Tolerance.h"
#include "tooling/harness/ElementTypes.h"
#include "tooling/support/Sizes.h"

#include "contract/NpyFormat.h"
#include "runtime/Error.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

namespace dslc::run {

using namespace dslc::rt;
using contract::isFloatFormat;
using contract::isFp8;

std::string SimulationDump::inputPath(int rank, int64_t launch,
                                      const std::string &name) const {
  return dir + "/" + contract::dumpInputFile(rank, launch, name);
}

std::string SimulationDump::outputPath(int rank, int64_t launch,
                                       const std::string &name) const {
  return dir + "/" + contract::dumpOutputFile(rank, launch, name);
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
  std::string origin = dir + "/manifest.json";
  contract::Expected<contract::DumpManifest> m =
      contract::parseManifest(text, origin);
  if (!m)
    raise(ErrorCode::Metadata, m.error());
  SimulationDump d;
  static_cast<contract::DumpManifest &>(d) = std::move(*m);
  d.dir = dir;
  d.manifest = origin;
  return d;
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
        p->role != DumpParam::Role::InOut)
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
