//===- VectorClock.h - Happens-before clocks of CTAs and hosts --*- C++ -*-===//
//
// A vector clock has one component per (rank, CTA index) per launch and one
// per rank's host. Stored whole, a CTA's clock would hold every CTA of every
// rank it heard of, and copying it at every start, barrier and release would
// make a run cost CTAs squared. Instead a clock is
//
//   - a few *launch clocks* (LaunchClock): the flat, immutable clock a rank
//     starts a launch with (all its earlier launches, what its CTAs learned
//     of other ranks), shared by reference by every clock derived from it.
//     A rank's newer launch clock knows everything an older one does, so a
//     clock keeps at most one per rank, the newest;
//   - a short sorted list of components learned since (its own CTA's clock,
//     what its acquires brought).
//
// Copies and joins cost the ranks plus the components learned, not the
// CTAs of the world; a rank's launch clock is built once per launch from
// what its CTAs ended with (ClockBuilder), at a cost of the components it
// gathers.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_SIMULATOR_VECTORCLOCK_H
#define DSLC_COMPILER_SIMULATOR_VECTORCLOCK_H

#include "compiler/Simulator/ComponentTrie.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/IntrusiveRefCntPtr.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <vector>

namespace dslc::sim {

/// An event: CTA `cta` of rank `rank` (cta == number of CTAs: the rank's
/// host) in launch `launch`, at that CTA's clock `clock`.
struct Epoch {
  uint32_t rank = 0, cta = 0;
  int32_t launch = 0;
  uint32_t clock = 0;
};

/// One component: the latest launch and clock known of (rank, cta).
/// Knowing a later launch of a CTA means knowing all of an earlier one.
struct ClockEntry {
  uint32_t rank, cta;
  int32_t launch;
  uint32_t clock;
};

/// Whether component `x` (of e's rank and CTA) knows event `e`.
inline bool entryCovers(const ClockEntry &x, const Epoch &e) {
  return x.launch > e.launch || (x.launch == e.launch && x.clock >= e.clock);
}

/// A flat clock: per rank the launches known complete, plus the components
/// known inside later launches (sorted by rank and CTA). Once shared as a
/// rank's launch clock it is immutable.
class LaunchClock : public llvm::RefCountedBase<LaunchClock> {
public:
  explicit LaunchClock(unsigned worldSize) : completed(worldSize, 0) {}

  bool covers(const Epoch &e) const;
  void join(const LaunchClock &other);
  /// Joins components sorted by (rank, cta), any number per key.
  void join(llvm::ArrayRef<ClockEntry> sorted);
  void set(const Epoch &e);
  /// Every event of `rank` in launches before `launches` is known.
  void complete(unsigned rank, int32_t launches);

  /// The rank whose launch clock this is, and when it was made (a rank's
  /// later launch clock knows all its earlier ones).
  unsigned owner = 0;
  uint64_t serial = 0;

private:
  std::vector<int32_t> completed;
  std::vector<ClockEntry> partial; ///< launch >= completed[rank].
};

using LaunchClockRef = llvm::IntrusiveRefCntPtr<const LaunchClock>;

class VectorClock {
public:
  VectorClock() = default;
  explicit VectorClock(const ClockSpace &space) : space(&space) {}
  VectorClock(LaunchClockRef base, const ClockSpace &space) : space(&space) {
    bases.push_back(std::move(base));
  }

  /// Whether event `e` happened before what this clock knows.
  bool covers(const Epoch &e) const;
  void join(const VectorClock &other);
  /// Raises the component of e's (rank, CTA) to e's launch and clock.
  void set(const Epoch &e);
  void clear() {
    bases.clear();
    entries.clear();
    many.reset();
    pruned = 0;
  }

  /// The launch clocks it holds (by owner) and the components learned since
  /// (by rank and CTA): covers() is whether either knows the event.
  llvm::ArrayRef<LaunchClockRef> launchClocks() const { return bases; }
  /// The components, when they are few (no trie): a list by rank and CTA.
  llvm::ArrayRef<ClockEntry> fewComponents() const { return entries; }
  bool hasManyComponents() const { return bool(many); }
  /// Whether the components alone know `e`.
  bool componentsCover(const Epoch &e) const;

private:
  friend class ClockBuilder;
  /// Components beyond this many move from the list to the trie.
  static constexpr size_t kListedComponents = 64;
  /// Drops listed components their rank's launch clock covers, once the
  /// list has doubled since the last time (so joins stay linear in what
  /// they bring); moves a list still long into the trie.
  void prune();

  const ClockSpace *space = nullptr;
  llvm::SmallVector<LaunchClockRef, 2> bases; ///< By owner, one each.
  llvm::SmallVector<ClockEntry, 4> entries;   ///< By (rank, cta), one each.
  /// More components (a key may also be listed: the later stamp counts).
  TrieRef many;
  size_t pruned = 0;
};

/// Gathers the clocks a rank's CTAs ended a launch with; builds the rank's
/// next launch clock from them.
class ClockBuilder {
public:
  void add(const VectorClock &c);
  /// `start` joined with everything added.
  LaunchClock build(const LaunchClock &start);
  void clear() {
    bases.clear();
    entries.clear();
    seen.clear();
    tries.clear();
  }

private:
  llvm::SmallVector<LaunchClockRef, 4> bases; ///< The newest per owner.
  std::vector<ClockEntry> entries;
  /// Trie nodes already gathered, kept alive by `tries`.
  llvm::DenseSet<const TrieNode *> seen;
  std::vector<TrieRef> tries;
};

} // namespace dslc::sim

#endif // DSLC_COMPILER_SIMULATOR_VECTORCLOCK_H
