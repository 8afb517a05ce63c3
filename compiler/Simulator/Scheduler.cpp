//===- Scheduler.cpp - Interleaves the CTAs of every rank ----------------===//

#include "compiler/Simulator/Scheduler.h"

#include "dialects/Comm/CommDialect.h"

#include <algorithm>
#include <climits>
#include <random>
#include <set>

using namespace dslc;
using namespace dslc::sim;

const char *dslc::sim::policyName(Policy policy) {
  switch (policy) {
  case Policy::Uniform:
    return "uniform";
  case Policy::Sticky:
    return "sticky";
  case Policy::Priority:
    return "priority";
  }
  return "?";
}

namespace {

/// The runnable candidates of a schedule: task ids, and for each rank whose
/// next launch waits to be picked, `launchBase + rank`. Adding and removing
/// are O(1), O(log n) when `byPriority` orders them (the priority policy);
/// a pick by the seeded generator or by priority is too.
class RunQueue {
public:
  RunQueue(size_t n, bool ordered)
      : pos(n, -1), priorityOf(n, 0), ordered(ordered) {}
  bool contains(uint32_t id) const { return pos[id] >= 0; }
  bool empty() const { return ids.empty(); }
  void add(uint32_t id, uint64_t priority) {
    if (contains(id))
      return;
    pos[id] = int64_t(ids.size());
    ids.push_back(id);
    priorityOf[id] = priority;
    if (ordered)
      byPriority.insert({priority, id});
  }
  void remove(uint32_t id) {
    if (!contains(id))
      return;
    size_t k = size_t(pos[id]);
    pos[id] = -1;
    if (k + 1 != ids.size()) {
      ids[k] = ids.back();
      pos[ids[k]] = int64_t(k);
    }
    ids.pop_back();
    if (ordered)
      byPriority.erase({priorityOf[id], id});
  }
  uint32_t pickUniform(std::mt19937_64 &rng) const {
    return ids[rng() % ids.size()];
  }
  uint32_t pickHighest() const { return byPriority.rbegin()->second; }

private:
  std::vector<uint32_t> ids;
  std::vector<int64_t> pos; ///< Index in `ids`, -1 when not runnable.
  std::vector<uint64_t> priorityOf;
  bool ordered;
  std::set<std::pair<uint64_t, uint32_t>> byPriority;
};

/// Registers a blocked task with the buffers whose writes may unblock it:
/// every slot a signal/wait still needs, the first packet an ll_get misses.
void watch(Task &t, uint32_t id) {
  for (BlockedSlot &b : t.waitingOn) {
    t.watches.push_back({b.pad, b.pad->watchers.insert({b.element, id})});
    if (llvm::isa<comm::LLGetOp>(t.blockedOp))
      break;
  }
}

void unwatch(Task &t) {
  for (auto &[buffer, it] : t.watches)
    buffer->watchers.erase(it);
  t.watches.clear();
}

} // namespace

ScheduleResult Scheduler::run() {
  ScheduleResult result;
  std::mt19937_64 rng(seed);
  Interpreter interp(world, reporter);
  unsigned ranks = world.worldSize;
  // Per rank: the launch in flight (-1 before the first) and CTAs left.
  std::vector<int64_t> call(ranks, -1), left(ranks, 0);
  std::vector<uint64_t> launchPriority(ranks);
  for (uint64_t &p : launchPriority)
    p = rng();
  // Task ids are stable: rank r's CTA c is task r * numCtas + c in every
  // launch; the launch of rank r is candidate launchBase + r.
  uint32_t numCtas = static_cast<uint32_t>(world.numCtas);
  uint32_t launchBase = ranks * numCtas;
  std::vector<Task> tasks(size_t(ranks) * numCtas);
  RunQueue queue(size_t(launchBase) + ranks, policy == Policy::Priority);
  for (unsigned r = 0; r < ranks; ++r)
    queue.add(launchBase + r, launchPriority[r]);
  int64_t last = -1;

  auto launch = [&](unsigned r) {
    queue.remove(launchBase + r);
    ++call[r];
    onLaunch(world, r, call[r]);
    for (uint32_t c = 0; c < numCtas; ++c) {
      uint32_t id = r * numCtas + c;
      Task &t = tasks[id];
      t = Task();
      t.rank = r;
      t.cta = c;
      t.call = call[r];
      t.priority = rng();
      queue.add(id, t.priority);
    }
    left[r] = world.numCtas;
  };

  while (!queue.empty()) {
    uint32_t pick = 0;
    switch (policy) {
    case Policy::Uniform:
      pick = queue.pickUniform(rng);
      break;
    case Policy::Sticky:
      pick = last >= 0 && rng() % 16 != 0 && queue.contains(uint32_t(last))
                 ? uint32_t(last)
                 : queue.pickUniform(rng);
      break;
    case Policy::Priority:
      pick = queue.pickHighest();
      break;
    }
    last = pick;
    ++result.steps;
    ++world.steps;
    world.work += world.stepWork; // the switch to a CTA whose state is cold

    if (pick >= launchBase) {
      launch(pick - launchBase);
      continue;
    }
    Task &t = tasks[pick];
    StepResult step = interp.step(t);
    // Tasks a write of this step unblocked become runnable again.
    for (uint32_t id : world.woken) {
      Task &w = tasks[id];
      if (!w.blocked)
        continue;
      unwatch(w);
      w.blocked = false;
      queue.add(id, w.priority);
    }
    world.woken.clear();
    switch (step) {
    case StepResult::Yielded:
      break;
    case StepResult::Blocked:
      t.blocked = true;
      queue.remove(pick);
      watch(t, pick);
      break;
    case StepResult::Done: {
      queue.remove(pick);
      unsigned r = t.rank;
      if (--left[r] == 0) {
        onFinish(world, r, call[r]);
        if (call[r] + 1 < calls)
          queue.add(launchBase + r, launchPriority[r]);
      }
      break;
    }
    case StepResult::Failed:
      result.failed = true;
      return result;
    }
    if (world.fatal) {
      result.failed = true;
      return result;
    }
  }
  bool finished = true;
  for (unsigned r = 0; r < ranks; ++r)
    finished &= call[r] == calls - 1 && left[r] == 0;
  if (!finished) {
    result.deadlock = true;
    reportDeadlock(tasks, result.steps);
  }
  for (Task &t : tasks)
    unwatch(t);
  return result;
}

void Scheduler::reportDeadlock(const std::vector<Task> &tasks, uint64_t step) {
  std::vector<BlockedLine> slots;
  unsigned blocked = 0;
  for (const Task &t : tasks)
    blocked += !t.done;
  reporter.error("deadlock@" + std::to_string(seed),
                 "deadlock after " + std::to_string(step) +
                     " steps: every live CTA of every rank is blocked (" +
                     std::to_string(blocked) + " CTA(s))");
  std::vector<const Task *> order;
  for (const Task &t : tasks)
    order.push_back(&t);
  std::stable_sort(order.begin(), order.end(),
                   [](const Task *a, const Task *b) {
                     return std::make_pair(a->rank, a->cta) <
                            std::make_pair(b->rank, b->cta);
                   });
  for (const Task *tp : order) {
    const Task &t = *tp;
    if (t.done || !t.blockedOp)
      continue;
    if (llvm::isa<comm::LLGetOp>(t.blockedOp)) {
      // A tile has many packets: name the first few.
      constexpr size_t kShown = 4;
      for (size_t k = 0; k < t.waitingOn.size() && k < kShown; ++k) {
        const BlockedSlot &b = t.waitingOn[k];
        reporter.detail(
            "rank " + std::to_string(t.rank) + " CTA " + std::to_string(t.cta) +
            " (launch " + std::to_string(t.call) + "): ll_get at " +
            where(t.blockedOp) + ": packet " + std::to_string(b.coords[0]) +
            " of '" + b.pad->name + "' on rank " + std::to_string(b.pad->rank) +
            ": expected flag " + std::to_string(b.expected) +
            ", current flag " + std::to_string(b.current));
      }
      if (t.waitingOn.size() > kShown)
        reporter.detail("rank " + std::to_string(t.rank) + " CTA " +
                        std::to_string(t.cta) + " (launch " +
                        std::to_string(t.call) + "): ll_get at " +
                        where(t.blockedOp) + ": " +
                        std::to_string(t.waitingOn.size() - kShown) +
                        " more packet(s) without the flag");
      continue;
    }
    std::string kind = "wait";
    if (auto s = llvm::dyn_cast<comm::SignalOp>(t.blockedOp))
      kind = "signal (CAS " + std::to_string(*s.getWaitFor()) + " -> " +
             std::to_string(s.getSignal()) + ")";
    for (const BlockedSlot &b : t.waitingOn) {
      std::string coords;
      for (size_t k = 0; k < b.coords.size(); ++k)
        coords += (k ? ", " : "") + std::to_string(b.coords[k]);
      std::string what = kind + " at " + where(t.blockedOp);
      std::string pad = "'" + b.pad->name + "'";
      std::string values = "expected " + std::to_string(b.expected) +
                           ", current " + std::to_string(b.current);
      slots.push_back({what + " on " + pad + ": " + values, t.rank, t.cta,
                       "rank " + std::to_string(t.rank) + " CTA " +
                           std::to_string(t.cta) + " (launch " +
                           std::to_string(t.call) + "): " + what + ": slot [" +
                           coords + "] of " + pad + " on rank " +
                           std::to_string(b.pad->rank) + ": " + values});
    }
  }
  reportBlockedSlots(slots);
}

void Scheduler::reportBlockedSlots(const std::vector<BlockedLine> &slots) {
  // The first few in full; the rest grouped by what blocks them (one wait
  // of a kernel over many tiles and ranks is one line, not hundreds).
  constexpr size_t kShown = 8;
  for (size_t k = 0; k < slots.size() && k < kShown; ++k)
    reporter.detail(slots[k].text);
  if (slots.size() <= kShown)
    return;
  struct Group {
    size_t count = 0;
    unsigned rankLo = ~0u, rankHi = 0;
    int64_t ctaLo = INT64_MAX, ctaHi = 0;
  };
  std::vector<std::pair<std::string, Group>> groups;
  for (size_t k = kShown; k < slots.size(); ++k) {
    const BlockedLine &l = slots[k];
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto &g) { return g.first == l.key; });
    if (it == groups.end())
      it = groups.insert(groups.end(), {l.key, Group()});
    Group &g = it->second;
    ++g.count;
    g.rankLo = std::min(g.rankLo, l.rank);
    g.rankHi = std::max(g.rankHi, l.rank);
    g.ctaLo = std::min(g.ctaLo, l.cta);
    g.ctaHi = std::max(g.ctaHi, l.cta);
  }
  auto range = [](auto lo, auto hi) {
    return lo == hi ? std::to_string(lo)
                    : std::to_string(lo) + "-" + std::to_string(hi);
  };
  reporter.detail(std::to_string(slots.size() - kShown) +
                  " more blocked slot(s):");
  for (const auto &[key, g] : groups)
    reporter.detail("  " + std::to_string(g.count) + " x " + key + " (ranks " +
                    range(g.rankLo, g.rankHi) + ", CTAs " +
                    range(g.ctaLo, g.ctaHi) + ")");
}
