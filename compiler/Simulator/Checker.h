//===- Checker.h - Inputs before, outputs after every launch ----*- C++ -*-===//
//
// The host side of every launch of a schedule: before it, the rank's inputs
// get their seeded values and its outputs are poisoned (sparing elements
// this launch already wrote); after it, every output is checked (written
// by the launch, not overwritten by a later one, not NaN or poisoned) and
// each output with an expectation is compared with it (Reference.h: the
// collective's result or a user reference kernel's). Reports name the
// schedule, launch, rank and output.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_SIMULATOR_CHECKER_H
#define DSLC_COMPILER_SIMULATOR_CHECKER_H

#include "compiler/Simulator/Binding.h"
#include "compiler/Simulator/Dump.h"
#include "compiler/Simulator/Interpreter.h"
#include "compiler/Simulator/Reference.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace dslc::sim {

class Checker {
public:
  /// Expects the collective `spec` names (if any) of every launch and rank.
  Checker(const Binding &binding, const ReferenceSpec &spec,
          const Inputs &inputs, unsigned worldSize, int64_t calls,
          Reporter &reporter, Dumper *dumper);

  /// What output `arg` of `rank` must hold after launch `call` (ranks that
  /// must hold the same share one).
  void expect(int64_t call, unsigned rank, int arg,
              std::shared_ptr<const Expected> e);

  void onLaunch(World &world, unsigned rank, int64_t call);
  void onFinish(World &world, unsigned rank, int64_t call, int64_t schedule);
  /// "all-reduce of 'x' (...): max relative error ..." or why not checked;
  /// `requested` is the --reference option.
  std::string verdict(const std::string &requested) const;

  unsigned mismatches = 0;
  bool anyUnwritten = false, anyPoisoned = false;
  int64_t finishedLaunches = 0;
  double worstRel = 0, worstAbs = 0;

private:
  /// Reports the worst element of an output that differs from what it
  /// must hold.
  void reportWrong(const Buffer &b, const Check &c, const std::string &head,
                   const Expected &e, double tol);
  void reportUnwritten(const Buffer &b, const ArgBinding &a, const Check &c,
                       const std::string &head);

  const Binding &binding;
  const ReferenceSpec &spec;
  const Inputs &inputs;
  unsigned worldSize;
  Reporter &reporter;
  Dumper *dumper;
  /// [call][rank]: output argument -> what it must hold.
  std::vector<std::vector<std::map<int, std::shared_ptr<const Expected>>>>
      expected;
};

/// "E" for a 1-d buffer, "[i, j, ...] (E)" otherwise.
std::string elementText(const Buffer &b, int64_t flat);

} // namespace dslc::sim

#endif // DSLC_COMPILER_SIMULATOR_CHECKER_H
