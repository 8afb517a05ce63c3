//===- NcclTests.cpp - nccl-tests conventions for tuner bench -------------===//
#include "tooling/tuner/NcclTests.h"

#include "tooling/support/Sizes.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <regex>

namespace dslc::tune {

using contract::Failure;

Expected<double> busFactor(const std::string &collective, int world) {
  if (world < 1)
    return Failure{fmt::format("world size {} is not positive", world)};
  if (collective == "all_reduce")
    return 2.0 * (world - 1) / world;
  if (collective == "reduce_scatter" || collective == "all_gather")
    return double(world - 1) / world;
  return Failure{fmt::format("no bus bandwidth factor for collective '{}' "
                             "(all_reduce, reduce_scatter, all_gather)",
                             collective)};
}

Expected<std::vector<int64_t>> byteSweep(int64_t minBytes, int64_t maxBytes,
                                         int64_t factor) {
  if (minBytes < 1)
    return Failure{
        fmt::format("-b/--minbytes {}: must be at least 1 byte", minBytes)};
  if (maxBytes < minBytes)
    return Failure{fmt::format("-e/--maxbytes {} is below -b/--minbytes {}",
                               tooling::formatSize(maxBytes),
                               tooling::formatSize(minBytes))};
  if (factor < 2)
    return Failure{fmt::format("-f/--stepfactor {}: must be at least 2 (a "
                               "multiplicative sweep)",
                               factor)};
  std::vector<int64_t> out;
  for (int64_t b = minBytes;;) {
    out.push_back(b);
    if (b > maxBytes / factor) // the next step would pass MAX (or overflow)
      break;
    b *= factor;
  }
  return out;
}

Expected<int64_t> elementsForBytes(const std::string &collective, int64_t bytes,
                                   size_t elemBytes, int world) {
  if (elemBytes == 0 || world < 1)
    return Failure{"element size and world must be positive"};
  int64_t n = bytes / static_cast<int64_t>(elemBytes);
  if (collective != "all_reduce")
    n = n / world * world;
  if (n < 1)
    return Failure{fmt::format(
        "size {} B holds no {} of {}-byte elements{}", bytes,
        collective == "all_reduce" ? "whole number" : "multiple of the world",
        elemBytes,
        collective == "all_reduce"
            ? ""
            : fmt::format(" (at least {} B at world {})",
                          static_cast<int64_t>(elemBytes) * world, world))};
  return n;
}

std::string ncclTestsTypeName(const std::string &dtype) {
  if (dtype == "bfloat16" || dtype == "bf16")
    return "bfloat16";
  if (dtype == "float16" || dtype == "f16")
    return "half";
  if (dtype == "float32" || dtype == "f32")
    return "float";
  return dtype;
}

std::string ncclTestsRedop(const std::string &collective) {
  return collective == "all_gather" ? "none" : "sum";
}

int64_t ncclTestsCount(const std::string &collective, int64_t n, int world) {
  return collective == "all_reduce" || world < 1 ? n : n / world;
}

namespace {

/// nccl-tests prints times with 2 decimals below 100 us, 1 below 10 ms.
std::string timeCell(double us) {
  if (us >= 10000)
    return fmt::format("{:7.0f}", us);
  if (us >= 100)
    return fmt::format("{:7.1f}", us);
  return fmt::format("{:7.2f}", us);
}

double algbwGBs(int64_t n, size_t elemBytes, double us) {
  return us > 0 ? static_cast<double>(n) * elemBytes / (us * 1e3) : 0;
}

} // namespace

double averageBusBandwidth(const std::string &collective, size_t elemBytes,
                           int world, const std::vector<NcclTestsRow> &rows) {
  Expected<double> f = busFactor(collective, world);
  double factor = f ? *f : 0;
  double sum = 0;
  int count = 0;
  for (const NcclTestsRow &r : rows)
    for (const NcclTestsSide *s : {&r.outOfPlace, &r.inPlace})
      if (s->measured && s->wrong == 0 && s->us > 0) {
        sum += algbwGBs(r.n, elemBytes, s->us) * factor;
        ++count;
      }
  return count ? sum / count : 0;
}

std::string ncclTestsTable(const std::string &title,
                           const std::string &collective,
                           const std::string &dtype, size_t elemBytes,
                           int world, const std::vector<NcclTestsRow> &rows) {
  Expected<double> f = busFactor(collective, world);
  double factor = f ? *f : 0;
  std::string out = "# " + title + "\n";
  // Each side is 33 characters wide: "  time  algbw  busbw  #wrong".
  out += fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}{:^33}{:^33}", "", "", "",
                     "", "out-of-place", "in-place");
  while (out.back() == ' ')
    out.pop_back();
  out += "\n";
  out += fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}", "size", "count", "type",
                     "redop");
  for (int side = 0; side < 2; ++side)
    out += fmt::format("  {:>7}  {:>6}  {:>6}  {:>6}", "time", "algbw", "busbw",
                       "#wrong");
  out += "\n";
  out += fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}", "(B)", "(elements)", "",
                     "");
  for (int side = 0; side < 2; ++side)
    out += fmt::format("  {:>7}  {:>6}  {:>6}  {:>6}", "(us)", "(GB/s)",
                       "(GB/s)", "");
  while (out.back() == ' ')
    out.pop_back();
  out += "\n";
  int64_t wrongTotal = 0;
  for (const NcclTestsRow &r : rows) {
    out += fmt::format("  {:>10}  {:>12}  {:>8}  {:>6}",
                       r.n * static_cast<int64_t>(elemBytes),
                       ncclTestsCount(collective, r.n, world),
                       ncclTestsTypeName(dtype), ncclTestsRedop(collective));
    for (const NcclTestsSide *s : {&r.outOfPlace, &r.inPlace}) {
      if (!s->measured) {
        out += fmt::format("  {:>7}  {:>6}  {:>6}  {:>6}", "N/A", "N/A", "N/A",
                           "N/A");
        continue;
      }
      if (s->wrong < 0) {
        out +=
            fmt::format("  {:>7}  {:>6}  {:>6}  {:>6}", "FAIL", "-", "-", "-");
        wrongTotal += 1;
        continue;
      }
      double alg = algbwGBs(r.n, elemBytes, s->us);
      out += fmt::format("  {}  {:6.2f}  {:6.2f}  {:>6}", timeCell(s->us), alg,
                         alg * factor, s->wrong);
      wrongTotal += s->wrong;
    }
    out += "\n";
  }
  out += fmt::format("# Out of bounds values : {} {}\n", wrongTotal,
                     wrongTotal ? "FAILED" : "OK");
  out += fmt::format("# Avg bus bandwidth    : {:.4f} \n",
                     averageBusBandwidth(collective, elemBytes, world, rows));
  return out;
}

std::string ncclFuncName(const std::string &collective) {
  if (collective == "all_reduce")
    return "AllReduce";
  if (collective == "reduce_scatter")
    return "ReduceScatter";
  if (collective == "all_gather")
    return "AllGather";
  return collective;
}

std::optional<NcclKernelChoice> parseNcclTuningLine(const std::string &line) {
  // NCCL 2.19+ (enqueue.cc): "%s: %ld Bytes -> Algo %s proto %s
  // channel{Lo..Hi}={%d..%d}"; symmetric kernels (2.27+): "%s [Symmetric]:
  // %ld Bytes -> Kernel %s nchannels %d nthreads %d ...".
  static const std::regex classic(
      R"(NCCL INFO (\w+): (\d+) Bytes -> Algo (\w+) proto (\w+) )"
      R"(channel\{Lo\.\.Hi\}=\{(\d+)\.\.(\d+)\})");
  static const std::regex symmetric(
      R"(NCCL INFO (\w+) \[Symmetric\]: (\d+) Bytes -> Kernel (\w+) )"
      R"(nchannels (\d+))");
  std::smatch m;
  NcclKernelChoice c;
  if (std::regex_search(line, m, symmetric)) {
    c.func = m[1];
    c.bytes = std::stoll(m[2]);
    c.kernel = "symk " + m[3].str();
    c.channels = std::stoi(m[4]);
    return c;
  }
  if (std::regex_search(line, m, classic)) {
    c.func = m[1];
    c.bytes = std::stoll(m[2]);
    c.kernel = m[3].str() + "/" + m[4].str();
    c.channels = std::stoi(m[6]) - std::stoi(m[5]) + 1;
    return c;
  }
  return std::nullopt;
}

std::string ncclKernelsFor(const std::vector<std::string> &lines,
                           const std::string &func, int64_t bytes) {
  std::vector<std::string> seen;
  for (const std::string &l : lines) {
    std::optional<NcclKernelChoice> c = parseNcclTuningLine(l);
    if (!c || c->func != func || c->bytes != bytes)
      continue;
    std::string k = fmt::format("{} ch {}", c->kernel, c->channels);
    if (std::find(seen.begin(), seen.end(), k) == seen.end())
      seen.push_back(k);
  }
  std::string out;
  for (const std::string &k : seen)
    out += (out.empty() ? "" : "; ") + k;
  return out;
}

} // namespace dslc::tune
