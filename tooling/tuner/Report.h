//===- Report.h - Tables, CSV and progress of the tuner ---------*- C++ -*-===//
//
// Formatting only (no GPU): the size spellings (1K, 64M), bus bandwidth as
// nccl-tests counts it, the benchmark's CSV (long format: one row per size,
// implementation and mode; benchmarks/pytorch_symm_mem.py writes the same
// columns so the files concatenate) and its table (one row per size, one
// column per implementation, like Helion PR #245's), and a progress bar that
// is a bar on a terminal and plain log lines otherwise.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLING_TUNER_REPORT_H
#define DSLC_TOOLING_TUNER_REPORT_H

#include "tooling/support/Sizes.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace dslc::tune {

/// Sizes are spelled as every tool spells them (tooling/support/Sizes.h).
using tooling::formatSize;

/// Bus bandwidth in GB/s (1e9 bytes/s) of a collective over N = `n`
/// elements of `elemBytes` in `us` microseconds (nccl-tests' busbw:
/// all_reduce algbw * 2(W-1)/W; reduce_scatter, all_gather algbw * (W-1)/W,
/// algbw = N * elemBytes / time).
double busBandwidthGBs(const std::string &collective, int64_t n,
                       size_t elemBytes, int world, double us);

struct BenchRow {
  std::string source = "dslc"; ///< dslc | pytorch
  std::string collective = "all_reduce";
  int world = 2;
  int64_t n = 0;
  std::string dtype = "bfloat16";
  std::string impl;   ///< nccl, a kernel name, "pick", torch_one_shot, ...
  std::string config; ///< the config used ("" for libraries)
  std::string mode;   ///< graph | eager
  double us = 0;      ///< median per call
  double busGBs = 0;
  bool ok = true; ///< result checked and right
  std::string note;
  /// Processes of the run: 1 (one drives every GPU), the world size (one
  /// per GPU), 0 unknown (files without the column).
  int procs = 0;
  bool inPlace = false; ///< NCCL in place (nccl-tests' in-place columns)
  /// Elements wrong (nccl-tests' #wrong); -1 when the run failed otherwise
  /// or the count is unknown (not in the CSV: `ok` and `note` are).
  int64_t wrong = 0;
  /// The column name in tables: the implementation, with " (N procs)" for
  /// one process per GPU and " in-place".
  std::string label() const;
};

std::string csvHeader();
std::string csvLine(const BenchRow &r);
/// Parses a CSV written by csvLine (header skipped); bad lines skipped.
std::vector<BenchRow> parseCsv(const std::string &text);

/// A plain text table, columns padded, first row the header.
std::string renderTable(const std::vector<std::vector<std::string>> &rows);

/// NCCL's rows: impl "nccl" (cudaMalloc buffers) or "nccl_win" (buffers
/// in the symmetric window).
bool isNcclImpl(const std::string &impl);

/// The table of one mode (out-of-place rows): size | dtype | a column per
/// implementation (NCCL's first) | speedup | best. `speedup` is the
/// fastest NCCL column over `pick` (else the first kernel); failed results
/// print as "FAIL".
std::string benchTable(const std::vector<BenchRow> &rows,
                       const std::string &mode);

/// The headline: graph rows of the one-process-per-GPU run (procs > 1),
/// per size the pick (else the fastest kernel) against the fastest NCCL
/// column of any process model, with the NCCL kernel that ran:
/// size | dtype | pick us | fastest NCCL us | NCCL column | NCCL kernel |
/// NCCL / pick. Empty when no such rows.
std::string headlineTable(const std::vector<BenchRow> &rows);

class Progress {
public:
  /// A bar when `tty` (redrawn in place on stderr), log lines otherwise.
  Progress(bool tty, std::FILE *out = stderr) : tty_(tty), out_(out) {}
  void start(size_t total, const std::string &what);
  void step(const std::string &label);
  /// A line that stays (printed above the bar).
  void log(const std::string &line);
  void finish();
  /// The bar line for done/total (exposed for tests).
  static std::string bar(size_t done, size_t total, double seconds,
                         const std::string &what, const std::string &label,
                         int width = 30);

private:
  void redraw();
  bool tty_;
  std::FILE *out_;
  size_t total_ = 0, done_ = 0;
  std::string what_, label_;
  std::chrono::steady_clock::time_point t0_;
  bool drawn_ = false;
};

} // namespace dslc::tune

#endif // DSLC_TOOLING_TUNER_REPORT_H
