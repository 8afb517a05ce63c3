//===- Reporter.h - What the simulator found --------------------*- C++ -*-===//
//
// Errors (deadlocks, out-of-bounds slots and peers, bad addresses, reads of
// data a peer has not written yet, reads of output elements never written,
// result mismatches) and warnings (ordering hazards), each with the source
// location of the op, printed in the order found. Repeats of one finding at
// one op are counted, not printed again.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_SIMULATOR_REPORTER_H
#define DSLC_COMPILER_SIMULATOR_REPORTER_H

#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"

#include <map>
#include <ostream>
#include <string>

namespace dslc::sim {

/// "file:line:col" of an op (its DSL source location), or "<unknown>".
std::string where(mlir::Operation *op);
std::string where(mlir::Location loc);

class Reporter {
public:
  explicit Reporter(std::ostream &os) : os(os) {}

  /// Reports once per `key` (later repeats are counted). Returns true when
  /// printed.
  bool error(const std::string &key, const std::string &message);
  bool warning(const std::string &key, const std::string &message);
  /// A continuation line of the last report.
  void detail(const std::string &line);

  unsigned getNumErrors() const { return numErrors; }
  unsigned getNumWarnings() const { return numWarnings; }
  std::ostream &stream() { return os; }

private:
  bool emit(const char *severity, const std::string &key,
            const std::string &message);
  std::ostream &os;
  std::map<std::string, unsigned> seen;
  unsigned numErrors = 0, numWarnings = 0;
};

} // namespace dslc::sim

#endif // DSLC_COMPILER_SIMULATOR_REPORTER_H
