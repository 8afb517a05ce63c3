//===- HappensBefore.cpp - Data races found by vector clocks -------------===//

#include "compiler/Simulator/HappensBefore.h"

#include "compiler/Simulator/Reporter.h"

#include "dialects/Comm/CommDialect.h"

#include <algorithm>
#include <cassert>
#include <tuple>

using namespace dslc::sim;

//===----------------------------------------------------------------------===//
// RaceLog
//===----------------------------------------------------------------------===//

namespace {

/// "rank 0 CTA 2 (launch 1) reads it at f.py:3:4" or the host's access.
std::string describe(const RaceAccess &a, uint32_t numCtas) {
  const Epoch &e = a.epoch;
  if (!a.op)
    return a.write ? "rank " + std::to_string(e.rank) +
                         "'s host refills it before launch " +
                         std::to_string(e.launch)
                   : "rank " + std::to_string(e.rank) +
                         "'s host uses its result of launch " +
                         std::to_string(e.launch);
  (void)numCtas;
  return "rank " + std::to_string(e.rank) + " CTA " + std::to_string(e.cta) +
         " (launch " + std::to_string(e.launch) + ") " +
         (a.write ? "writes" : "reads") + " it at " + where(a.op);
}

/// The part of an access that does not depend on the schedule.
std::string site(const RaceAccess &a) {
  if (!a.op)
    return a.write ? "host refill" : "host result";
  return (a.write ? "write at " : "read at ") + where(a.op);
}

std::string hint(const RaceAccess &x, const RaceAccess &y) {
  const RaceAccess *host = !x.op ? &x : !y.op ? &y : nullptr;
  if (!host && (llvm::isa<dslc::comm::LLPutOp>(x.op) ||
                llvm::isa<dslc::comm::LLPutOp>(y.op)))
    return "an ll_put may overwrite packets before a peer's ll_get has "
           "read them (or two puts share packets): use a region per sender "
           "and alternate regions by the flag's parity";
  if (!host)
    return "no signal -> wait (release -> acquire), CTA barrier or launch "
           "boundary orders them";
  const RaceAccess &cta = host == &x ? y : x;
  int32_t hostLaunch = host->epoch.launch, launch = cta.epoch.launch;
  if (host->write)
    return launch < hostLaunch
               ? "a peer still reads this input of launch " +
                     std::to_string(launch) +
                     " when its rank refills it for the next launch: a "
                     "signal/wait round after the last read of peers' data "
                     "is missing"
               : "the read is not ordered after its rank made the data "
                 "ready: a signal/wait before the read is missing (or the "
                 "wait's barrier, hasSubsequentMemAccess)";
  return launch > hostLaunch
             ? "a peer's launch " + std::to_string(launch) +
                   " stores into this output before its rank finished "
                   "launch " +
                   std::to_string(hostLaunch) +
                   ": a signal/wait round at the end of the kernel is missing"
             : "the store is not ordered before the end of the launch it "
               "belongs to: a wait for a release (signal) after the store is "
               "missing";
}

} // namespace

void RaceLog::add(const Buffer &b, int64_t element, const RaceAccess &earlier,
                  const RaceAccess &later, uint32_t numCtas) {
  // Canonical order of the two sides: by their source sites.
  const RaceAccess *x = &earlier, *y = &later;
  std::string sx = site(*x), sy = site(*y);
  if (sy < sx) {
    std::swap(x, y);
    std::swap(sx, sy);
  }
  std::string key = b.name + "|" + sx + "|" + sy;
  if (printed.count(key))
    return;
  std::vector<int64_t> order = {int64_t(b.rank),        int64_t(x->epoch.rank),
                                int64_t(x->epoch.cta),  x->epoch.launch,
                                int64_t(y->epoch.rank), int64_t(y->epoch.cta),
                                y->epoch.launch,        element};
  auto it = pending.find(key);
  if (it != pending.end() && it->second.order <= order)
    return;
  Race &r = pending[key];
  r.order = order;
  r.text = "data race on '" + b.name + "' of rank " + std::to_string(b.rank) +
           " (element " + std::to_string(element) +
           "): " + describe(*x, numCtas) + ", and " + describe(*y, numCtas) +
           "; " + hint(*x, *y);
}

unsigned RaceLog::flush(Reporter &reporter) {
  unsigned n = 0;
  for (auto &[key, race] : pending) {
    printed[key] = true;
    reporter.error("race@" + key, race.text);
    ++n;
  }
  pending.clear();
  return n;
}

//===----------------------------------------------------------------------===//
// ReadSet
//===----------------------------------------------------------------------===//

namespace {

/// Reads are indexed by reader once there are more than this many.
constexpr size_t kIndexedReads = 8;

uint64_t readerKey(uint32_t rank, uint32_t cta) {
  return uint64_t(rank) << 32 | cta;
}

} // namespace

void ReadSet::remove(size_t k) {
  if (!index.empty())
    index.erase(
        readerKey(reads[k].access.epoch.rank, reads[k].access.epoch.cta));
  if (k + 1 != reads.size()) {
    reads[k] = reads.back();
    if (!index.empty()) {
      const Epoch &e = reads[k].access.epoch;
      index[readerKey(e.rank, e.cta)] = uint32_t(k);
    }
  }
  reads.pop_back();
}

template <typename Pred> void ReadSet::removeIf(Pred pred) {
  for (size_t k = 0; k < reads.size();) {
    if (pred(reads[k]))
      remove(k);
    else
      ++k;
  }
}

void ReadSet::prune(const VectorClock &now) {
  if (reads.empty())
    return;
  // A launch clock knows only reads made before it; the newest of a rank's
  // knows all its older ones did.
  for (const LaunchClockRef &base : now.launchClocks()) {
    auto *seen = llvm::find_if(
        checked, [&](const auto &c) { return c.first == base->owner; });
    if (seen == checked.end())
      seen = checked.insert(checked.end(), {base->owner, 0});
    if (base->serial <= seen->second)
      continue;
    seen->second = base->serial;
    removeIf([&](const Read &r) {
      return r.tick < base->serial && base->covers(r.access.epoch);
    });
  }
  llvm::ArrayRef<ClockEntry> components = now.fewComponents();
  if (index.empty() || now.hasManyComponents() ||
      reads.size() <= components.size()) {
    removeIf(
        [&](const Read &r) { return now.componentsCover(r.access.epoch); });
    return;
  }
  for (const ClockEntry &x : components) {
    auto it = index.find(readerKey(x.rank, x.cta));
    if (it != index.end() && entryCovers(x, reads[it->second].access.epoch))
      remove(it->second);
  }
}

void ReadSet::add(const RaceAccess &a, uint64_t tick) {
  reads.push_back({a, tick});
  if (!index.empty()) {
    bool fresh =
        index.insert({readerKey(a.epoch.rank, a.epoch.cta), reads.size() - 1})
            .second;
    assert(fresh && "a reader's earlier read is covered by its clock");
    (void)fresh;
    return;
  }
  if (reads.size() > kIndexedReads)
    for (size_t k = 0; k < reads.size(); ++k)
      index[readerKey(reads[k].access.epoch.rank, reads[k].access.epoch.cta)] =
          uint32_t(k);
}

//===----------------------------------------------------------------------===//
// RaceDetector
//===----------------------------------------------------------------------===//

RaceDetector::RaceDetector(unsigned worldSize, uint32_t numCtas, RaceLog &log)
    : worldSize(worldSize), numCtas(numCtas), log(log),
      space(worldSize, uint64_t(numCtas) + 1), endClock(worldSize) {
  for (unsigned r = 0; r < worldSize; ++r)
    launchClock.push_back(freeze(r, LaunchClock(worldSize)));
}

LaunchClockRef RaceDetector::freeze(unsigned rank, LaunchClock c) {
  auto *shared = new LaunchClock(std::move(c));
  shared->owner = rank;
  shared->serial = ++serial;
  return LaunchClockRef(shared);
}

Epoch RaceDetector::hostEpoch(unsigned rank, int32_t launch,
                              uint32_t clock) const {
  return Epoch{rank, numCtas, launch, clock};
}

void RaceDetector::beginLaunch(unsigned rank, int32_t launch,
                               const std::vector<Buffer *> &inputs) {
  LaunchClock next = *launchClock[rank];
  next.set(hostEpoch(rank, launch, 1));
  launchClock[rank] = freeze(rank, std::move(next));
  VectorClock now(launchClock[rank], space);
  RaceAccess refill{hostEpoch(rank, launch, 1), nullptr, true};
  for (Buffer *b : inputs)
    check(now, refill, *b, 0, b->numel, nullptr);
  endClock[rank].clear();
}

void RaceDetector::endLaunch(unsigned rank, int32_t launch,
                             const std::vector<Buffer *> &outputs) {
  LaunchClock end = endClock[rank].build(*launchClock[rank]);
  endClock[rank].clear();
  end.set(hostEpoch(rank, launch, 2));
  LaunchClockRef ended = freeze(rank, std::move(end));
  RaceAccess use{hostEpoch(rank, launch, 2), nullptr, false};
  VectorClock now(ended, space);
  for (Buffer *b : outputs)
    check(now, use, *b, 0, b->numel, nullptr);
  LaunchClock next = *ended;
  next.complete(rank, launch + 1);
  launchClock[rank] = freeze(rank, std::move(next));
}

void RaceDetector::startCta(CtaClock &c, unsigned rank, uint32_t cta,
                            int32_t launch) {
  c.self = Epoch{rank, cta, launch, 1};
  c.now = VectorClock(launchClock[rank], space);
  c.now.set(c.self);
  c.pending = VectorClock(space);
  c.hasPending = false;
  c.releasing.reset();
  // The kernel's start is a barrier: every thread starts after the launch.
  c.atBarrier = c.now;
  c.barrierClock = c.self.clock;
  ++c.self.clock;
  c.now.set(c.self);
}

void RaceDetector::endCta(const CtaClock &c) {
  ClockBuilder &end = endClock[c.self.rank];
  end.add(c.now);
  if (c.hasPending)
    end.add(c.pending);
}

void RaceDetector::barrier(CtaClock &c) {
  if (c.hasPending) {
    c.now.join(c.pending);
    c.pending.clear();
    c.hasPending = false;
  }
  c.atBarrier = c.now;
  c.barrierClock = c.self.clock;
  ++c.self.clock;
  c.now.set(c.self);
}

void RaceDetector::beginSignal(CtaClock &c, bool withBarrier) {
  if (withBarrier)
    barrier(c);
  c.releasing = std::make_shared<VectorClock>(c.atBarrier);
}

void RaceDetector::atomic(CtaClock &c, const Buffer &pad, int64_t flat,
                          bool acquire, bool release, bool sysScope) {
  SlotClock &s = slots[{pad.id, flat}];
  unsigned rank = c.self.rank;
  if (acquire && s.clock && (s.rank == rank || (s.sys && sysScope))) {
    c.pending.join(*s.clock);
    c.hasPending = true;
  }
  if (!release)
    return;
  ClockRef rel =
      c.releasing ? c.releasing : std::make_shared<VectorClock>(c.atBarrier);
  if (s.clock && s.sys == sysScope && (sysScope || s.rank == rank)) {
    // A release sequence: an acquire of the new value also synchronizes
    // with the releases before it.
    auto joined = std::make_shared<VectorClock>(*s.clock);
    joined->join(*rel);
    s.clock = std::move(joined);
  } else {
    s.clock = rel;
  }
  s.sys = sysScope;
  s.rank = rank;
}

RaceDetector::Shadow &RaceDetector::shadowOf(const Buffer &b) {
  if (shadows.size() <= b.id)
    shadows.resize(b.id + 1);
  return shadows[b.id];
}

RaceDetector::Shadow::iterator RaceDetector::split(Shadow &s, int64_t lo,
                                                   int64_t hi) {
  auto boundary = [&](int64_t x) {
    auto it = s.upper_bound(x);
    if (it == s.begin())
      return;
    --it;
    if (it->first == x || it->second.end <= x)
      return;
    Segment tail = it->second;
    it->second.end = x;
    s.emplace(x, std::move(tail));
  };
  boundary(lo);
  boundary(hi);
  int64_t pos = lo;
  auto it = s.lower_bound(lo);
  while (pos < hi) {
    if (it == s.end() || it->first > pos) {
      Segment gap;
      gap.end = it == s.end() ? hi : std::min(hi, it->first);
      it = s.emplace_hint(it, pos, std::move(gap));
    }
    pos = it->second.end;
    ++it;
  }
  return s.lower_bound(lo);
}

void RaceDetector::check(const VectorClock &now, const RaceAccess &a, Buffer &b,
                         int64_t lo, int64_t hi, ClockRef published) {
  if (lo >= hi)
    return;
  Shadow &s = shadowOf(b);
  for (auto it = split(s, lo, hi); it != s.end() && it->first < hi; ++it) {
    Segment &seg = it->second;
    if (seg.written && !now.covers(seg.write.epoch))
      log.add(b, it->first, seg.write, a, numCtas);
    if (a.write) {
      for (size_t k = 0; k < seg.reads.size(); ++k)
        if (!now.covers(seg.reads[k].epoch))
          log.add(b, it->first, seg.reads[k], a, numCtas);
      continue;
    }
    seg.reads.prune(now);
    seg.reads.add(a, ++serial);
  }
  if (!a.write)
    return;
  // Every segment of [lo, hi) now holds just this write: one segment.
  auto first = s.lower_bound(lo);
  s.erase(first, s.lower_bound(hi));
  Segment w;
  w.end = hi;
  w.written = true;
  w.write = a;
  w.published = std::move(published);
  s.emplace(lo, std::move(w));
}

void RaceDetector::access(const CtaClock &c, Buffer &b,
                          const std::vector<std::pair<int64_t, int64_t>> &runs,
                          bool write, mlir::Operation *op) {
  RaceAccess a{c.self, op, write};
  for (auto [lo, hi] : runs)
    check(c.now, a, b, lo, hi, nullptr);
}

void RaceDetector::packetWrite(CtaClock &c, Buffer &b, int64_t lo, int64_t hi,
                               mlir::Operation *op) {
  check(c.now, RaceAccess{c.self, op, true}, b, lo, hi,
        std::make_shared<VectorClock>(c.now));
  // What the CTA does next is not part of this release.
  ++c.self.clock;
  c.now.set(c.self);
}

void RaceDetector::packetRead(CtaClock &c, Buffer &b, int64_t lo, int64_t hi,
                              mlir::Operation *op) {
  Shadow &s = shadowOf(b);
  for (auto it = split(s, lo, hi); it != s.end() && it->first < hi; ++it)
    if (it->second.published)
      c.now.join(*it->second.published);
  check(c.now, RaceAccess{c.self, op, false}, b, lo, hi, nullptr);
}
