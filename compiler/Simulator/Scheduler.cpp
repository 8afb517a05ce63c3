//===- Scheduler.cpp - Interleaves the CTAs of every rank ----------------===//

#include "compiler/Simulator/Scheduler.h"

#include "dialects/Comm/CommDialect.h"

#include <algorithm>
#include <random>

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

ScheduleResult Scheduler::run() {
  ScheduleResult result;
  std::mt19937_64 rng(seed);
  Interpreter interp(world, reporter);
  unsigned ranks = world.worldSize;
  // Per rank: the launch in flight (-1 before the first), CTAs left, and
  // whether its next launch waits for the scheduler to pick it.
  std::vector<int64_t> call(ranks, -1), left(ranks, 0);
  std::vector<uint8_t> launchPending(ranks, 1);
  std::vector<uint64_t> launchPriority(ranks);
  for (uint64_t &p : launchPriority)
    p = rng();
  std::vector<Task> tasks;
  std::vector<size_t> taskOf; // per rank: first task index of its launch
  taskOf.assign(ranks, 0);
  // Candidates: task index, or ~rank for a pending launch.
  std::vector<int64_t> candidates;
  int64_t last = -1;

  auto launch = [&](unsigned r) {
    launchPending[r] = 0;
    ++call[r];
    onLaunch(world, r, call[r]);
    // Reuse the rank's slots in `tasks` so indices stay stable.
    if (call[r] == 0) {
      taskOf[r] = tasks.size();
      for (int64_t c = 0; c < world.numCtas; ++c)
        tasks.emplace_back();
    }
    for (int64_t c = 0; c < world.numCtas; ++c) {
      Task &t = tasks[taskOf[r] + c];
      uint64_t priority = rng();
      t = Task();
      t.rank = r;
      t.cta = static_cast<unsigned>(c);
      t.call = call[r];
      t.priority = priority;
    }
    left[r] = world.numCtas;
  };

  while (true) {
    candidates.clear();
    for (unsigned r = 0; r < ranks; ++r)
      if (launchPending[r])
        candidates.push_back(~int64_t(r));
    for (size_t k = 0; k < tasks.size(); ++k) {
      const Task &t = tasks[k];
      if (t.done || (t.blocked && t.blockedAtVersion == world.padVersion))
        continue;
      candidates.push_back(int64_t(k));
    }
    if (candidates.empty()) {
      bool finished = true;
      for (unsigned r = 0; r < ranks; ++r)
        finished &= call[r] == calls - 1 && left[r] == 0;
      if (!finished) {
        result.deadlock = true;
        reportDeadlock(tasks, result.steps);
      }
      break;
    }
    int64_t pick = -1;
    switch (policy) {
    case Policy::Uniform:
      pick = candidates[rng() % candidates.size()];
      break;
    case Policy::Sticky:
      if (last >= 0 && rng() % 16 != 0 &&
          std::find(candidates.begin(), candidates.end(), last) !=
              candidates.end())
        pick = last;
      else
        pick = candidates[rng() % candidates.size()];
      break;
    case Policy::Priority: {
      uint64_t best = 0;
      for (int64_t c : candidates) {
        uint64_t p = c < 0 ? launchPriority[~c] : tasks[c].priority;
        if (pick == -1 || p > best)
          pick = c, best = p;
      }
      break;
    }
    }
    last = pick;
    ++result.steps;
    ++world.steps;
    if (pick < 0) {
      launch(static_cast<unsigned>(~pick));
      continue;
    }
    Task &t = tasks[pick];
    switch (interp.step(t)) {
    case StepResult::Yielded:
      t.blocked = false;
      break;
    case StepResult::Blocked:
      t.blocked = true;
      t.blockedAtVersion = world.padVersion;
      break;
    case StepResult::Done: {
      t.blocked = false;
      unsigned r = t.rank;
      if (--left[r] == 0) {
        onFinish(world, r, call[r]);
        if (call[r] + 1 < calls)
          launchPending[r] = 1;
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
  return result;
}

void Scheduler::reportDeadlock(const std::vector<Task> &tasks, uint64_t step) {
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
  std::stable_sort(order.begin(), order.end(), [](const Task *a, const Task *b) {
    return std::make_pair(a->rank, a->cta) < std::make_pair(b->rank, b->cta);
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
        reporter.detail("rank " + std::to_string(t.rank) + " CTA " +
                        std::to_string(t.cta) + " (launch " +
                        std::to_string(t.call) + "): ll_get at " +
                        where(t.blockedOp) + ": packet " +
                        std::to_string(b.coords[0]) + " of '" + b.pad->name +
                        "' on rank " + std::to_string(b.pad->rank) +
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
      reporter.detail("rank " + std::to_string(t.rank) + " CTA " +
                      std::to_string(t.cta) + " (launch " +
                      std::to_string(t.call) + "): " + kind + " at " +
                      where(t.blockedOp) + ": slot [" + coords + "] of '" +
                      b.pad->name + "' on rank " +
                      std::to_string(b.pad->rank) + ": expected " +
                      std::to_string(b.expected) + ", current " +
                      std::to_string(b.current));
    }
  }
}
