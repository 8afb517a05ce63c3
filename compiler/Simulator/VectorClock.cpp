//===- VectorClock.cpp - Happens-before clocks of CTAs and hosts ----------===//

#include "compiler/Simulator/VectorClock.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <tuple>

using namespace dslc::sim;

namespace {

auto key(const ClockEntry &x) { return std::tie(x.rank, x.cta); }
auto time(const ClockEntry &x) { return std::tie(x.launch, x.clock); }

bool entryLess(const ClockEntry &x, const ClockEntry &y) {
  return key(x) < key(y);
}

/// The entry of e's (rank, CTA) in `sorted`, or null.
const ClockEntry *findEntry(llvm::ArrayRef<ClockEntry> sorted, const Epoch &e) {
  const ClockEntry *it = std::lower_bound(
      sorted.begin(), sorted.end(), e, [](const ClockEntry &x, const Epoch &k) {
        return std::tie(x.rank, x.cta) < std::tie(k.rank, k.cta);
      });
  if (it == sorted.end() || it->rank != e.rank || it->cta != e.cta)
    return nullptr;
  return it;
}

/// Merges two lists sorted by key into `out` (the later time per key),
/// keeping the entries `keep` accepts.
template <typename Out, typename Keep>
void mergeSorted(llvm::ArrayRef<ClockEntry> a, llvm::ArrayRef<ClockEntry> b,
                 Out &out, Keep keep) {
  const ClockEntry *x = a.begin(), *y = b.begin();
  while (x != a.end() || y != b.end()) {
    if (y == b.end() || (x != a.end() && key(*x) < key(*y))) {
      if (keep(*x))
        out.push_back(*x);
      ++x;
    } else if (x == a.end() || key(*y) < key(*x)) {
      if (keep(*y))
        out.push_back(*y);
      ++y;
    } else {
      const ClockEntry &later = time(*x) >= time(*y) ? *x : *y;
      if (keep(later))
        out.push_back(later);
      ++x, ++y;
    }
  }
}

/// Sorts `v` by key and keeps the latest entry of each key.
void sortUnique(std::vector<ClockEntry> &v) {
  std::sort(v.begin(), v.end(), [](const ClockEntry &x, const ClockEntry &y) {
    return std::tie(x.rank, x.cta, x.launch, x.clock) <
           std::tie(y.rank, y.cta, y.launch, y.clock);
  });
  // The last of each run of equal keys is the latest.
  size_t n = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i + 1 < v.size() && key(v[i]) == key(v[i + 1]))
      continue;
    v[n++] = v[i];
  }
  v.resize(n);
}

} // namespace

//===----------------------------------------------------------------------===//
// LaunchClock
//===----------------------------------------------------------------------===//

bool LaunchClock::covers(const Epoch &e) const {
  if (e.rank < completed.size() && e.launch < completed[e.rank])
    return true;
  const ClockEntry *x = findEntry(partial, e);
  return x && entryCovers(*x, e);
}

void LaunchClock::set(const Epoch &e) {
  if (e.rank < completed.size() && e.launch < completed[e.rank])
    return;
  ClockEntry entry{e.rank, e.cta, e.launch, e.clock};
  auto it = std::lower_bound(partial.begin(), partial.end(), entry, entryLess);
  if (it != partial.end() && key(*it) == key(entry)) {
    if (time(entry) > time(*it))
      *it = entry;
    return;
  }
  partial.insert(it, entry);
}

void LaunchClock::complete(unsigned rank, int32_t launches) {
  if (rank >= completed.size())
    completed.resize(rank + 1, 0);
  completed[rank] = std::max(completed[rank], launches);
  llvm::erase_if(partial, [&](const ClockEntry &x) {
    return x.rank == rank && x.launch < launches;
  });
}

void LaunchClock::join(const LaunchClock &o) {
  if (completed.size() < o.completed.size())
    completed.resize(o.completed.size(), 0);
  for (size_t r = 0; r < o.completed.size(); ++r)
    completed[r] = std::max(completed[r], o.completed[r]);
  join(o.partial);
}

void LaunchClock::join(llvm::ArrayRef<ClockEntry> sorted) {
  std::vector<ClockEntry> merged;
  merged.reserve(partial.size() + sorted.size());
  mergeSorted(partial, sorted, merged, [&](const ClockEntry &x) {
    return !(x.rank < completed.size() && x.launch < completed[x.rank]);
  });
  partial = std::move(merged);
}

//===----------------------------------------------------------------------===//
// VectorClock
//===----------------------------------------------------------------------===//

bool VectorClock::componentsCover(const Epoch &e) const {
  const ClockEntry *x = findEntry(entries, e);
  if (x && entryCovers(*x, e))
    return true;
  if (!many)
    return false;
  std::optional<Stamp> t =
      trie::lookup(many, *space, space->key(e.rank, e.cta));
  return t && entryCovers(ClockEntry{e.rank, e.cta, t->launch, t->clock}, e);
}

bool VectorClock::covers(const Epoch &e) const {
  if (componentsCover(e))
    return true;
  // What a rank did is most often known through its own launch clock.
  for (const LaunchClockRef &b : bases)
    if (b->owner == e.rank && b->covers(e))
      return true;
  for (const LaunchClockRef &b : bases)
    if (b->owner != e.rank && b->covers(e))
      return true;
  return false;
}

void VectorClock::set(const Epoch &e) {
  ClockEntry entry{e.rank, e.cta, e.launch, e.clock};
  auto it = std::lower_bound(entries.begin(), entries.end(), entry, entryLess);
  if (it != entries.end() && key(*it) == key(entry)) {
    if (time(entry) > time(*it))
      *it = entry;
    return;
  }
  entries.insert(it, entry);
  if (entries.size() > kListedComponents || entries.size() > 2 * pruned + 16)
    prune();
}

void VectorClock::join(const VectorClock &o) {
  if (&o == this)
    return;
  if (!space)
    space = o.space;
  // Launch clocks: the newer of each owner's.
  for (const LaunchClockRef &b : o.bases) {
    auto it = llvm::lower_bound(bases, b->owner,
                                [](const LaunchClockRef &x, unsigned owner) {
                                  return x->owner < owner;
                                });
    if (it != bases.end() && (*it)->owner == b->owner) {
      if ((*it)->serial < b->serial)
        *it = b;
      continue;
    }
    bases.insert(it, b);
  }
  if (!o.entries.empty()) {
    llvm::SmallVector<ClockEntry, 4> merged;
    merged.reserve(entries.size() + o.entries.size());
    mergeSorted(entries, o.entries, merged,
                [](const ClockEntry &) { return true; });
    entries = std::move(merged);
  }
  if (o.many)
    many = trie::join(many, o.many, *space);
  if (entries.size() > kListedComponents || entries.size() > 2 * pruned + 16)
    prune();
}

void VectorClock::prune() {
  // Only against the launch clock of the entry's own rank: where it is most
  // often known, at a cost of one search per entry.
  llvm::erase_if(entries, [&](const ClockEntry &x) {
    auto it = llvm::lower_bound(bases, x.rank,
                                [](const LaunchClockRef &b, unsigned owner) {
                                  return b->owner < owner;
                                });
    return it != bases.end() && (*it)->owner == x.rank &&
           (*it)->covers(Epoch{x.rank, x.cta, x.launch, x.clock});
  });
  pruned = entries.size();
  if (entries.size() <= kListedComponents || !space)
    return;
  for (const ClockEntry &x : entries)
    many = trie::insert(many, *space, space->key(x.rank, x.cta),
                        Stamp{x.launch, x.clock});
  entries.clear();
  pruned = 0;
}

//===----------------------------------------------------------------------===//
// ClockBuilder
//===----------------------------------------------------------------------===//

void ClockBuilder::add(const VectorClock &c) {
  for (const LaunchClockRef &b : c.bases) {
    auto *it = llvm::find_if(
        bases, [&](const LaunchClockRef &x) { return x->owner == b->owner; });
    if (it == bases.end())
      bases.push_back(b);
    else if ((*it)->serial < b->serial)
      *it = b;
  }
  entries.insert(entries.end(), c.entries.begin(), c.entries.end());
  if (!c.many)
    return;
  // Clocks that learned from one another share most of their tries: each
  // node is gathered once (and kept alive, so that its address stays its).
  const ClockSpace &space = *c.space;
  if (tries.empty() || tries.back() != c.many)
    tries.push_back(c.many);
  trie::forEachNew(c.many, space, seen, [&](uint64_t key, Stamp t) {
    entries.push_back({uint32_t(key / space.stride),
                       uint32_t(key % space.stride), t.launch, t.clock});
  });
}

LaunchClock ClockBuilder::build(const LaunchClock &start) {
  LaunchClock out = start;
  for (const LaunchClockRef &b : bases)
    out.join(*b);
  sortUnique(entries);
  out.join(entries);
  return out;
}
