//===- Scheduler.h - Interleaves the CTAs of every rank ---------*- C++ -*-===//
//
// One schedule = one run of K launches on every rank. Each rank launches
// (the host writes its inputs, poisons its outputs, starts its CTAs) at a
// point the scheduler picks, and its next launch once all its CTAs finish;
// the pads persist. Every step runs one CTA up to its next global access
// or comm op. The pick is seeded; three policies alternate over the
// schedules: uniform (any runnable CTA), sticky (keep running one CTA while
// it can: ranks run far ahead of each other) and priority (a fixed random
// order of CTAs). When nothing can run and work remains, it is a deadlock.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_SIMULATOR_SCHEDULER_H
#define DSLC_COMPILER_SIMULATOR_SCHEDULER_H

#include "compiler/Simulator/Interpreter.h"

#include <functional>

namespace dslc::sim {

enum class Policy { Uniform, Sticky, Priority };
const char *policyName(Policy policy);

struct ScheduleResult {
  uint64_t steps = 0;
  bool deadlock = false;
  bool failed = false; ///< A fatal error stopped the run.
};

class Scheduler {
public:
  using LaunchHook = std::function<void(World &, unsigned rank, int64_t call)>;

  /// `onLaunch` fills inputs/poisons outputs before a launch; `onFinish`
  /// checks a rank's outputs once all its CTAs of `call` are done.
  Scheduler(World &world, Reporter &reporter, int64_t calls, uint64_t seed,
            Policy policy, LaunchHook onLaunch, LaunchHook onFinish)
      : world(world), reporter(reporter), calls(calls), seed(seed),
        policy(policy), onLaunch(std::move(onLaunch)),
        onFinish(std::move(onFinish)) {}

  ScheduleResult run();

private:
  void reportDeadlock(const std::vector<Task> &tasks, uint64_t step);
  /// One blocked wait/signal slot of a deadlock report: its line, and what
  /// groups it with others (the op, its location, the pad, the values).
  struct BlockedLine {
    std::string key;
    unsigned rank = 0;
    int64_t cta = 0;
    std::string text;
  };
  void reportBlockedSlots(const std::vector<BlockedLine> &slots);

  World &world;
  Reporter &reporter;
  int64_t calls;
  uint64_t seed;
  Policy policy;
  LaunchHook onLaunch, onFinish;
};

} // namespace dslc::sim

#endif // DSLC_COMPILER_SIMULATOR_SCHEDULER_H
