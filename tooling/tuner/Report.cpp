//===- Report.cpp - Tables, CSV and progress of the tuner -----------------===//
#include "tooling/tuner/Report.h"

#include "tooling/tuner/NcclTests.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

namespace dslc::tune {

double busBandwidthGBs(const std::string &collective, int64_t n,
                       size_t elemBytes, int world, double us) {
  Expected<double> factor = busFactor(collective, world);
  if (us <= 0 || !factor)
    return 0;
  double alg = static_cast<double>(n) * elemBytes / (us * 1e-6) / 1e9;
  return alg * *factor;
}

std::string csvHeader() {
  return "source,collective,world,size,dtype,impl,config,mode,us,busbw_gbs,"
         "ok,note,procs,in_place";
}

namespace {
std::string csvField(const std::string &s) {
  if (s.find_first_of(",\"\n") == std::string::npos)
    return s;
  std::string r = "\"";
  for (char c : s)
    r += c == '"' ? std::string("\"\"") : std::string(1, c);
  return r + "\"";
}

std::vector<std::string> splitCsv(const std::string &line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}
} // namespace

std::string csvLine(const BenchRow &r) {
  return fmt::format("{},{},{},{},{},{},{},{},{:.3f},{:.2f},{},{},{},{}",
                     r.source, r.collective, r.world, r.n, r.dtype,
                     csvField(r.impl), csvField(r.config), r.mode, r.us,
                     r.busGBs, r.ok ? 1 : 0, csvField(r.note), r.procs,
                     r.inPlace ? 1 : 0);
}

std::vector<BenchRow> parseCsv(const std::string &text) {
  std::vector<BenchRow> rows;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) {
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (line.empty() || line.rfind("source,", 0) == 0)
      continue;
    auto f = splitCsv(line);
    if (f.size() < 11)
      continue;
    BenchRow r;
    r.source = f[0];
    r.collective = f[1];
    r.world = std::atoi(f[2].c_str());
    r.n = std::atoll(f[3].c_str());
    r.dtype = f[4];
    r.impl = f[5];
    r.config = f[6];
    r.mode = f[7];
    r.us = std::atof(f[8].c_str());
    r.busGBs = std::atof(f[9].c_str());
    r.ok = f[10] == "1";
    r.wrong = r.ok ? 0 : -1;
    if (f.size() > 11)
      r.note = f[11];
    if (f.size() > 13) {
      r.procs = std::atoi(f[12].c_str());
      r.inPlace = f[13] == "1";
    }
    rows.push_back(r);
  }
  return rows;
}

std::string renderTable(const std::vector<std::vector<std::string>> &rows) {
  std::vector<size_t> width;
  for (const auto &r : rows)
    for (size_t i = 0; i < r.size(); ++i) {
      if (width.size() <= i)
        width.push_back(0);
      width[i] = std::max(width[i], r[i].size());
    }
  std::string out;
  for (size_t ri = 0; ri < rows.size(); ++ri) {
    std::string line;
    for (size_t i = 0; i < rows[ri].size(); ++i) {
      std::string cell = rows[ri][i];
      // Left-align the first two columns, right-align numbers.
      if (i < 2)
        line += cell + std::string(width[i] - cell.size(), ' ');
      else
        line += std::string(width[i] - cell.size(), ' ') + cell;
      if (i + 1 < rows[ri].size())
        line += " | ";
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out += line + "\n";
    if (ri == 0) {
      std::string sep;
      for (size_t i = 0; i < width.size(); ++i)
        sep += std::string(width[i], '-') + (i + 1 < width.size() ? "-|-" : "");
      out += sep + "\n";
    }
  }
  return out;
}

std::string BenchRow::label() const {
  std::string l = impl;
  if (procs > 1)
    l += fmt::format(" ({} procs)", procs);
  if (inPlace)
    l += " in-place";
  return l;
}

bool isNcclImpl(const std::string &impl) {
  return impl == "nccl" || impl == "nccl_win";
}

namespace {
/// Cells of one mode's out-of-place rows, by (size, dtype, label).
struct RowIndex {
  std::vector<std::string> labels; ///< NCCL's first, then in order
  std::set<std::pair<int64_t, std::string>> sizes;
  std::map<std::tuple<int64_t, std::string, std::string>, const BenchRow *> at;

  RowIndex(const std::vector<BenchRow> &rows, const std::string &mode,
           bool perGpuOnly = false) {
    std::vector<std::string> nccl, other;
    for (const BenchRow &r : rows) {
      if (r.mode != mode || r.inPlace)
        continue;
      if (perGpuOnly && r.procs <= 1 && !isNcclImpl(r.impl))
        continue;
      std::vector<std::string> &list = isNcclImpl(r.impl) ? nccl : other;
      if (std::find(list.begin(), list.end(), r.label()) == list.end())
        list.push_back(r.label());
      sizes.insert({r.n, r.dtype});
      at[{r.n, r.dtype, r.label()}] = &r;
    }
    labels = nccl;
    labels.insert(labels.end(), other.begin(), other.end());
  }
  const BenchRow *find(int64_t n, const std::string &dtype,
                       const std::string &label) const {
    auto it = at.find({n, dtype, label});
    return it == at.end() ? nullptr : it->second;
  }
  /// The fastest right result of size n among NCCL's or the others'.
  const BenchRow *fastest(int64_t n, const std::string &dtype, bool nccl,
                          bool perGpuOnly = false) const {
    const BenchRow *best = nullptr;
    for (const auto &[key, r] : at)
      if (std::get<0>(key) == n && std::get<1>(key) == dtype &&
          isNcclImpl(r->impl) == nccl && r->ok && r->us > 0 &&
          (!perGpuOnly || r->procs > 1) && (!best || r->us < best->us))
        best = r;
    return best;
  }
};
} // namespace

std::string benchTable(const std::vector<BenchRow> &rows,
                       const std::string &mode) {
  RowIndex idx(rows, mode);
  std::vector<std::vector<std::string>> table;
  std::vector<std::string> head = {"size", "dtype"};
  for (const auto &l : idx.labels)
    head.push_back(l + " us");
  head.push_back("speedup");
  head.push_back("best");
  table.push_back(head);
  // The pick of this process (else of another model, else the first
  // kernel) is compared with NCCL.
  std::string speedupOf;
  auto rankOf = [](const std::string &l) {
    return l == "pick" ? 0 : l.rfind("pick", 0) == 0 ? 1 : 2;
  };
  for (const auto &l : idx.labels)
    if (!isNcclImpl(l.substr(0, l.find(' '))) &&
        (speedupOf.empty() || rankOf(l) < rankOf(speedupOf)))
      speedupOf = l;
  for (const auto &[n, dtype] : idx.sizes) {
    std::vector<std::string> line = {formatSize(n), dtype};
    for (const auto &l : idx.labels) {
      const BenchRow *r = idx.find(n, dtype, l);
      line.push_back(!r ? "-" : r->ok ? fmt::format("{:.2f}", r->us) : "FAIL");
    }
    const BenchRow *nc = idx.fastest(n, dtype, true);
    const BenchRow *pk = idx.find(n, dtype, speedupOf);
    if (nc && pk && pk->ok && pk->us > 0)
      line.push_back(fmt::format("{:.2f}x", nc->us / pk->us));
    else
      line.push_back("-");
    const BenchRow *best = idx.fastest(n, dtype, false);
    if (!best || (nc && nc->us < best->us))
      best = nc;
    line.push_back(best ? best->label() : "-");
    table.push_back(line);
  }
  return renderTable(table);
}

std::string headlineTable(const std::vector<BenchRow> &rows) {
  RowIndex idx(rows, "graph", /*perGpuOnly=*/true);
  std::vector<std::vector<std::string>> table = {
      {"size", "dtype", "pick us", "fastest NCCL us", "NCCL column",
       "NCCL kernel", "NCCL / pick"}};
  for (const auto &[n, dtype] : idx.sizes) {
    const BenchRow *pk = nullptr;
    for (const auto &[key, r] : idx.at)
      if (std::get<0>(key) == n && std::get<1>(key) == dtype &&
          r->impl == "pick" && r->procs > 1)
        pk = r;
    if (!pk || !pk->ok)
      pk = idx.fastest(n, dtype, false, /*perGpuOnly=*/true);
    if (!pk)
      continue;
    const BenchRow *nc = idx.fastest(n, dtype, true);
    std::vector<std::string> line = {formatSize(n), dtype,
                                     fmt::format("{:.2f}", pk->us)};
    if (pk->impl != "pick")
      line[2] += " (" + pk->impl + ")";
    line.push_back(nc ? fmt::format("{:.2f}", nc->us) : "-");
    line.push_back(nc ? nc->label() : "-");
    line.push_back(nc && !nc->config.empty() ? nc->config : "-");
    line.push_back(nc ? fmt::format("{:.2f}x", nc->us / pk->us) : "-");
    table.push_back(line);
  }
  return table.size() > 1 ? renderTable(table) : "";
}

std::string Progress::bar(size_t done, size_t total, double seconds,
                          const std::string &what, const std::string &label,
                          int width) {
  double frac = total ? double(done) / total : 1.0;
  int fill = static_cast<int>(frac * width + 0.5);
  std::string b =
      "[" + std::string(fill, '#') + std::string(width - fill, '.') + "]";
  return fmt::format("{} {} {}/{} {:.0f}s {}", what, b, done, total, seconds,
                     label);
}

void Progress::start(size_t total, const std::string &what) {
  total_ = total;
  done_ = 0;
  what_ = what;
  label_.clear();
  t0_ = std::chrono::steady_clock::now();
  if (!tty_)
    std::fprintf(out_, "%s: %zu to do\n", what.c_str(), total);
  redraw();
}

void Progress::step(const std::string &label) {
  ++done_;
  label_ = label;
  redraw();
}

void Progress::log(const std::string &line) {
  if (tty_ && drawn_)
    std::fprintf(out_, "\r\033[K");
  std::fprintf(out_, "%s\n", line.c_str());
  drawn_ = false;
  redraw();
}

void Progress::redraw() {
  if (!tty_ || total_ == 0)
    return;
  double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_)
          .count();
  std::string l = bar(std::min(done_, total_), total_, s, what_, label_);
  if (l.size() > 110)
    l = l.substr(0, 110);
  std::fprintf(out_, "\r\033[K%s", l.c_str());
  std::fflush(out_);
  drawn_ = true;
}

void Progress::finish() {
  if (tty_ && drawn_)
    std::fprintf(out_, "\n");
  drawn_ = false;
  total_ = 0;
}

} // namespace dslc::tune
