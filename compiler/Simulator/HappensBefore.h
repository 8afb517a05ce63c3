//===- HappensBefore.h - Data races found by vector clocks ------*- C++ -*-===//
//
// Every access to a data buffer (inputs, outputs, workspaces, LL scratches)
// is checked against the earlier accesses of other CTAs and hosts: two
// accesses to one element, one a write, that no chain of synchronization
// orders are a data race, whatever order the schedule ran them in. So a
// race is found on the first run, every seed, even when the values happen
// to come out right.
//
// Synchronization follows the PTX that CommLowering.cpp emits
// (docs/compiler.md, "Communication in PTX"):
//   - a signal releases (sem release/acq_rel) what its CTA did before its
//     last CTA barrier: the `bar.sync` of hasPreviousMemAccess=True, else
//     the previous one (a wait's hasSubsequentMemAccess barrier, the
//     kernel's start); a signal's exchange/CAS also acquires with sem
//     acquire/acq_rel;
//   - a wait acquires (sem other than relaxed; a CAS update with acquire or
//     acq_rel) the clock of the slot it read; only the waiting thread has
//     it until the next CTA barrier spreads it to every thread;
//   - a release at scope gpu orders nothing for another rank, nor does an
//     acquire at scope gpu of another rank's release;
//   - slots keep the releases of every RMW on them (a release sequence);
//   - an LL packet's flag orders the packet: ll_get of a packet acquires
//     the clock its ll_put released (the writing thread's);
//   - launches of one rank are ordered (a stream): launch k+1 and its
//     host-side refill of the inputs come after all of launch k, whose
//     outputs the host reads when it finishes.
//
// Clocks: one component per (rank, CTA index) per launch and one per rank's
// host, stored so that copies and joins cost the components learned, not
// the CTAs of the world (VectorClock.h): each rank's launch clock is built
// once per launch and shared by every clock derived from it.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_SIMULATOR_HAPPENSBEFORE_H
#define DSLC_COMPILER_SIMULATOR_HAPPENSBEFORE_H

#include "compiler/Simulator/Memory.h"
#include "compiler/Simulator/VectorClock.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace dslc::sim {

class Reporter;

using ClockRef = std::shared_ptr<const VectorClock>;

/// What a CTA knows: `now` orders every thread's next access; `atBarrier`
/// is what a release publishes (the CTA's state at its last barrier);
/// `pending` was acquired by one thread and reaches the others at the next
/// barrier.
struct CtaClock {
  Epoch self;
  VectorClock now, atBarrier, pending;
  /// The CTA's own clock at its last barrier: its accesses up to this clock
  /// are in `atBarrier`.
  uint32_t barrierClock = 0;
  bool hasPending = false;
  /// The release of the signal in progress (one per signal op).
  ClockRef releasing;
};

/// One side of a race.
struct RaceAccess {
  Epoch epoch;
  mlir::Operation *op = nullptr; ///< Null: the host.
  bool write = false;
};

/// The reads of one element range that no later read is ordered after (a
/// later read ordered after an earlier one stands for both), at most one
/// per CTA and host. Each remembers when it was made (`tick`, from the
/// counter launch clocks are numbered by), so that dropping the reads a new
/// read's clock covers costs what that clock learned, not the readers:
///   - a launch clock covers only reads older than itself, and a rank's
///     newer launch clock covers all an older one does: the reads are
///     checked against each rank's launch clock once, when a newer one
///     comes;
///   - the clock's own components are looked up by CTA.
class ReadSet {
public:
  /// Drops the reads `now` covers.
  void prune(const VectorClock &now);
  /// Adds a read (after prune(), which dropped its CTA's earlier one).
  void add(const RaceAccess &a, uint64_t tick);
  void clear() { *this = ReadSet(); }
  size_t size() const { return reads.size(); }
  const RaceAccess &operator[](size_t k) const { return reads[k].access; }

private:
  struct Read {
    RaceAccess access;
    uint64_t tick;
  };
  template <typename Pred> void removeIf(Pred pred);
  void remove(size_t k);

  llvm::SmallVector<Read, 2> reads;
  /// Position of each reader's read, by rank << 32 | CTA, once there are
  /// more than a few.
  llvm::DenseMap<uint64_t, uint32_t> index;
  /// Per rank: the newest launch clock of that rank the reads older than it
  /// were checked against.
  llvm::SmallVector<std::pair<unsigned, uint64_t>, 2> checked;
};

/// Races found in a run, reported once per pair of accesses (by source
/// location), the earliest instance by rank, CTA and launch, in a fixed
/// order at the end of each schedule: the same races print the same text
/// whatever the seed and policy.
class RaceLog {
public:
  void add(const Buffer &b, int64_t element, const RaceAccess &earlier,
           const RaceAccess &later, uint32_t numCtas);
  /// Prints the races not printed before; returns how many there were.
  unsigned flush(Reporter &reporter);

private:
  struct Race {
    std::string text;
    std::vector<int64_t> order; ///< Ranks, CTAs, launches, element.
  };
  std::map<std::string, Race> pending;
  std::map<std::string, bool> printed;
};

/// The clocks of one schedule: launches, slots and every data element.
class RaceDetector {
public:
  RaceDetector(unsigned worldSize, uint32_t numCtas, RaceLog &log);

  // Launch boundaries (the host of each rank).
  /// Launch `launch` of `rank` starts: the host refills `inputs` after
  /// everything of its previous launches.
  void beginLaunch(unsigned rank, int32_t launch,
                   const std::vector<Buffer *> &inputs);
  /// Launch `launch` of `rank` finished: the host reads `outputs`.
  void endLaunch(unsigned rank, int32_t launch,
                 const std::vector<Buffer *> &outputs);
  void startCta(CtaClock &c, unsigned rank, uint32_t cta, int32_t launch);
  void endCta(const CtaClock &c);

  // Synchronization.
  void barrier(CtaClock &c);
  /// A signal's first attempt: its barrier (if any) and what it releases.
  void beginSignal(CtaClock &c, bool withBarrier);
  /// An atomic on slot `flat` of pad `pad` (signal or wait).
  void atomic(CtaClock &c, const Buffer &pad, int64_t flat, bool acquire,
              bool release, bool sysScope);

  // Data accesses: runs of elements [lo, hi).
  void access(const CtaClock &c, Buffer &b,
              const std::vector<std::pair<int64_t, int64_t>> &runs, bool write,
              mlir::Operation *op);
  /// ll_put of packets covering elements [lo, hi): a write that releases.
  void packetWrite(CtaClock &c, Buffer &b, int64_t lo, int64_t hi,
                   mlir::Operation *op);
  /// ll_get saw the flag of packets covering [lo, hi): acquires their
  /// put's clock, then reads.
  void packetRead(CtaClock &c, Buffer &b, int64_t lo, int64_t hi,
                  mlir::Operation *op);

private:
  struct Segment {
    int64_t end = 0;
    bool written = false;
    RaceAccess write;
    ClockRef published; ///< LL packets: the put's release.
    ReadSet reads;
  };
  using Shadow = std::map<int64_t, Segment>;
  struct SlotClock {
    ClockRef clock;
    bool sys = true;
    unsigned rank = 0;
  };

  Shadow &shadowOf(const Buffer &b);
  /// Splits the segments of `s` at `lo` and `hi` (creating empty ones over
  /// gaps) and returns the first in [lo, hi).
  Shadow::iterator split(Shadow &s, int64_t lo, int64_t hi);
  void check(const VectorClock &now, const RaceAccess &a, Buffer &b, int64_t lo,
             int64_t hi, ClockRef published);
  Epoch hostEpoch(unsigned rank, int32_t launch, uint32_t clock) const;
  /// Shares `c` as rank `rank`'s launch clock.
  LaunchClockRef freeze(unsigned rank, LaunchClock c);

  unsigned worldSize;
  uint32_t numCtas;
  RaceLog &log;
  ClockSpace space;
  /// Numbers launch clocks and reads in the order they are made.
  uint64_t serial = 0;
  std::vector<LaunchClockRef> launchClock; ///< Per rank: its launch's start.
  std::vector<ClockBuilder> endClock;      ///< Per rank: its CTAs that ended.
  std::vector<Shadow> shadows;             ///< By buffer id.
  /// By (pad buffer id, slot).
  llvm::DenseMap<std::pair<unsigned, int64_t>, SlotClock> slots;
};

} // namespace dslc::sim

#endif // DSLC_COMPILER_SIMULATOR_HAPPENSBEFORE_H
