//===- SimulationOptions.h - How dslc --simulate runs a kernel --*- C++ -*-===//
//
// The options of `dslc FILE --simulate` besides those that specialize the
// kernel (CompileOptions), and their bounds. The driver parses and bounds
// them (tools/dslc); the simulator reads them (Simulator.h, Binding.h).
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_COMPILER_SIMULATOR_SIMULATIONOPTIONS_H
#define DSLC_COMPILER_SIMULATOR_SIMULATIONOPTIONS_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dslc {

// Bounds of a simulation (docs/simulator.md, "Bounds"). The simulator keeps
// every rank's memory and CTA state on the host and runs the CTAs of all
// ranks interleaved on one thread, so time and memory grow with the ranks
// times the elements and with the CTAs of all ranks; the host bytes and the
// work a run plans are bounded below, whatever the sizes. Measured: the
// one-shot at its default size takes 3 s at 64 ranks; the one-shot with
// 16384 CTAs in all, each holding a tile, 5 s (issue 30: the race
// detector's cost no longer grows with the CTAs squared).

/// Ranks simulated (--world-size with --simulate).
inline constexpr int64_t kMaxSimulatedWorldSize = 128;
/// CTAs of all ranks together (--ctas times the world size).
inline constexpr int64_t kMaxSimulatedCtas = 16384;
/// Elements of one tensor (the product of its sizes) times the world size,
/// for --size N and --size NAME=AxB.
inline constexpr int64_t kMaxSimulatedElements = int64_t(1) << 24;
/// Work of one run (all schedules), in elementwise operations: every
/// interpreted op costs kOpWork plus the elements of its tile operands and
/// results (kLLElementWork each for an LL put or get, which packs, polls
/// and race-checks them word by word; times the world size for multicast
/// ops); every scheduler step stepWork(CTAs of all ranks that hold tiles),
/// the switch to a CTA whose state is out of cache (measured: about 1 us a
/// step with a few such CTAs, CTAs without tiles included, up to 10 us with
/// 16384 that all hold tiles, picked at random); the host's refill and
/// check of a buffer kHostElementWork per element. With these weights every
/// measured kernel runs 4.5e8 to 5e9 a second of CPU on the loaded two-core
/// machine (docs/simulator.md, "Cost"), so a run ends within about 10 s of CPU:
/// any run within the driver's bounds (8 ranks x 64K elements, 16384 CTAs, 100
/// calls) finishes or stops at this bound in that time. Every example at 64K
/// elements x 8 ranks takes under 6e8 (10 calls: under 4.2e9); the
/// one-shot at its default size 1.8e9 at 64 ranks, and at 100 ranks it
/// stops in its third schedule (7 s; it took 12 s before steps counted).
inline constexpr int64_t kMaxSimulatedWork = int64_t(1) << 32;
inline constexpr int64_t kOpWork = 64;
inline constexpr int64_t kHostElementWork = 8;
inline constexpr int64_t kLLElementWork = 2;
/// A step's work with kMaxSimulatedCtas CTAs that hold tiles, in
/// proportion below (but at least kMinStepWork).
inline constexpr int64_t kStepWork = 4096;
inline constexpr int64_t kMinStepWork = 1024;
inline int64_t stepWork(int64_t busyCtasOfAllRanks) {
  int64_t w = kStepWork * busyCtasOfAllRanks / kMaxSimulatedCtas;
  return w > kMinStepWork ? w : kMinStepWork;
}
/// Host memory the simulator may plan for: every rank's buffers (8 bytes
/// an element, 16 for outputs), every launch's inputs (8) and expected
/// outputs (16, shared by ranks that expect the same). The run's other
/// state (tiles in flight, race shadows) stays well below it; the two-shot
/// at 16 ranks and its default size plans 1.9 GiB and peaks at 2.4 GB.
inline constexpr int64_t kMaxSimulatedHostBytes = int64_t(5) << 29;
/// --calls K and --schedules S.
inline constexpr int64_t kMaxSimulatedCalls = 100;
inline constexpr int64_t kMaxSimulatedSchedules = 1000;

struct SimulationOptions {
  /// --seed: inputs and CTA interleavings; the same seed, the same run.
  uint64_t seed = 1;
  /// --ctas N: CTAs per rank (persistent grid); unset = one per tile.
  std::optional<int64_t> ctas;
  /// --size N: the default extent of data tensors; --size NAME=AxB: the
  /// sizes of one tensor (or the value of an int scalar).
  std::optional<int64_t> defaultSize;
  std::map<std::string, std::vector<int64_t>> sizes;
  /// --scalar NAME=V: a scalar parameter's value (a float or an int);
  /// scalars neither here nor in `sizes` take the source's default.
  std::map<std::string, double> scalars;
  /// --reference: auto, all-reduce, reduce-scatter, all-gather or none.
  std::string reference = "auto";
  /// --dump-dir: where the simulator writes inputs, outputs and a manifest.
  std::string dumpDir;
  /// --calls K: launches back to back on the same pads.
  int64_t calls = 1;
  /// --schedules S: interleavings tried (seeds seed, seed+1, ...).
  int64_t schedules = 3;
};

} // namespace dslc

#endif // DSLC_COMPILER_SIMULATOR_SIMULATIONOPTIONS_H
