//===- RunIR.h - Run one function of Tile IR in the interpreter -*- C++ -*-===//
//
// For the simulator's unit tests: parses a module, binds the function's
// !tile.ref arguments to host buffers and runs it as one CTA of one rank
// (no communication) to the end.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_TESTS_SIMULATOR_RUNIR_H
#define DSLC_TESTS_SIMULATOR_RUNIR_H

#include "compiler/Simulator/Interpreter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <sstream>
#include <string>
#include <vector>

namespace dslc::sim::test {

class RunIR {
public:
  /// Parses `ir`; its first func.func is the kernel.
  explicit RunIR(const std::string &ir);
  /// Reads the module from `path`.
  static std::string readFile(const std::string &path);

  /// Binds the next argument (a !tile.ref of `sizes`) to a buffer holding
  /// `values` (floats or integers by the ref's element type), rounded to
  /// its element type; empty values: zeros.
  Buffer &bind(std::vector<int64_t> sizes, std::vector<double> values = {});
  /// Binds the next argument (an index or integer scalar).
  void bindInt(int64_t value);
  /// Binds the next argument (a float scalar).
  void bindFloat(double value);

  /// Runs MLIR's canonicalizer (the Tile dialect's folds) on the module
  /// before it runs; false when the pass failed.
  bool canonicalize();
  /// Runs what dslc's pipeline runs before the lowering to fold bounds:
  /// canonicalize, -dslc-fold-bounds-by-range, canonicalize.
  bool foldBoundsByRange();
  /// Runs -dslc-split-join-at-memory.
  bool splitJoinAtMemory();
  /// The module as text.
  std::string ir();

  /// Runs the kernel to its end; false when it failed (see report()).
  bool run();
  /// What the simulator printed (errors).
  std::string report() const { return out.str(); }

private:
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  World world;
  std::ostringstream out;
  std::vector<mlir::Type> argTypes;
};

/// Runs `ir`'s kernel of one input tensor (`inSizes`, holding `x`) and one
/// output (`outSizes`, starting zeroed), after `pass` (a RunIR member such
/// as &RunIR::foldBoundsByRange) when given; `after` receives the IR the
/// pass left. Returns the output's values.
std::vector<double> runInToOut(const std::string &ir, bool (RunIR::*pass)(),
                               std::vector<int64_t> inSizes,
                               const std::vector<double> &x,
                               std::vector<int64_t> outSizes,
                               std::string *after = nullptr);

} // namespace dslc::sim::test

#endif // DSLC_TESTS_SIMULATOR_RUNIR_H
