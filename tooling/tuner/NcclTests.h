//===- NcclTests.h - nccl-tests conventions for tuner bench -----*- C++ -*-===//
//
// What `tuner bench` shares with NVIDIA's nccl-tests (all_reduce_perf & co.)
// so its numbers read like theirs (no GPU here; unit-tested):
//   - the size sweep in bytes: -b MIN -e MAX -f FACTOR (sizes as every tool
//     spells them: 8, 1K, 64M, 2G);
//   - the element count of a size: bytes / element size, rounded down to a
//     multiple of the world for reduce-scatter and all-gather;
//   - the bus bandwidth factor per collective;
//   - the table: size (B), count, type, redop, then time, algbw, busbw,
//     #wrong for out-of-place and for in-place, and the average bus
//     bandwidth line;
//   - which NCCL kernel ran, from NCCL's TUNING log lines
//     (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING).
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLING_TUNER_NCCLTESTS_H
#define DSLC_TOOLING_TUNER_NCCLTESTS_H

#include "contract/Expected.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dslc::tune {

using contract::Expected;

/// nccl-tests' bus bandwidth factor: busbw = algbw * factor, with
/// all_reduce 2(W-1)/W, reduce_scatter and all_gather (W-1)/W. Fails for an
/// unknown collective or a world below 1.
Expected<double> busFactor(const std::string &collective, int world);

/// The sizes of `-b MIN -e MAX -f FACTOR` in bytes: MIN, MIN*F, ... while
/// at most MAX (nccl-tests' multiplicative sweep). Fails, naming the option,
/// when MIN is 0, MAX < MIN, or FACTOR < 2.
Expected<std::vector<int64_t>> byteSweep(int64_t minBytes, int64_t maxBytes,
                                         int64_t factor);

/// The collective's total element count N for a size of `bytes` (the
/// all-reduce's buffer, the all-gather's output, the reduce-scatter's
/// input): bytes / elemBytes, rounded down to a multiple of `world` for
/// reduce_scatter and all_gather, as nccl-tests rounds. Fails when that is
/// 0 (the size is too small for one element per rank).
Expected<int64_t> elementsForBytes(const std::string &collective, int64_t bytes,
                                   size_t elemBytes, int world);

/// One side (out-of-place or in-place) of a nccl-tests row.
struct NcclTestsSide {
  bool measured = false; ///< false: printed as N/A (not supported)
  double us = 0;
  int64_t wrong = 0; ///< elements wrong (-1: the run failed)
};

struct NcclTestsRow {
  int64_t n = 0; ///< total elements
  NcclTestsSide outOfPlace, inPlace;
};

/// nccl-tests' names: "bfloat16", "half", "float" (our dtype names in).
std::string ncclTestsTypeName(const std::string &dtype);
/// "sum", or "none" for all_gather.
std::string ncclTestsRedop(const std::string &collective);
/// The count column: N for all_reduce, N / world for reduce_scatter and
/// all_gather (the per-rank count nccl-tests prints).
int64_t ncclTestsCount(const std::string &collective, int64_t n, int world);

/// The table of one implementation, nccl-tests' layout: a title line
/// ("# <title>"), two header lines, one line per row, then
/// "# Out of bounds values : K OK|FAILED" and
/// "# Avg bus bandwidth    : X" (the mean of every measured busbw, both
/// sides, as nccl-tests averages). Throws nothing; an unknown collective
/// prints bandwidths as 0.
std::string ncclTestsTable(const std::string &title,
                           const std::string &collective,
                           const std::string &dtype, size_t elemBytes,
                           int world, const std::vector<NcclTestsRow> &rows);
/// The mean bus bandwidth (GB/s) of the rows, both sides, measured and
/// right only; 0 when none.
double averageBusBandwidth(const std::string &collective, size_t elemBytes,
                           int world, const std::vector<NcclTestsRow> &rows);

/// One NCCL TUNING log line: which kernel NCCL chose for one call.
struct NcclKernelChoice {
  std::string func; ///< AllReduce, ReduceScatter, AllGather, ...
  int64_t bytes = 0;
  /// "symk AllReduce_AGxLL_R" for a symmetric kernel, else
  /// "RING/LL" (algorithm/protocol).
  std::string kernel;
  int channels = 0;
};

/// Parses "... NCCL INFO AllReduce: 2048 Bytes -> Algo RING proto LL
/// channel{Lo..Hi}={0..1}" and "... NCCL INFO AllReduce [Symmetric]: 2048
/// Bytes -> Kernel AllReduce_AGxLL_R nchannels 2 nthreads 512 ...";
/// nullopt for any other line.
std::optional<NcclKernelChoice> parseNcclTuningLine(const std::string &line);

/// NCCL's function name for a collective ("all_reduce" -> "AllReduce").
std::string ncclFuncName(const std::string &collective);

/// The kernels the lines show for `func` at `bytes`, distinct, in order,
/// joined by "; " (e.g. "symk AllReduce_AGxLL_R ch 2"); empty when no line
/// matches.
std::string ncclKernelsFor(const std::vector<std::string> &lines,
                           const std::string &func, int64_t bytes);

} // namespace dslc::tune

#endif // DSLC_TOOLING_TUNER_NCCLTESTS_H
