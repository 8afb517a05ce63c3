//===- UserReference.h - A reference kernel written in the DSL --*- C++ -*-===//
//
// `--reference FILE.py:NAME`: the expected outputs of every rank come from
// NAME, a plain (non-communicating) tile kernel of FILE.py that the
// simulator compiles and runs itself, once per launch. Its convention
// (docs/simulator.md, "User references"):
//   - a tensor parameter named like an input X of the checked kernel
//     receives every rank's X stacked on a leading dimension: [W, *X's
//     sizes], row r holding rank r's values of that launch;
//   - a tensor it writes (a parameter, or a returned torch.empty_like)
//     named like an output O of the checked kernel is O's expectation,
//     stacked the same way: row r is what rank r's O must hold after the
//     launch. When both kernels have exactly one output, the names need not
//     match;
//   - its scalar parameters take the checked kernel's values by name, its
//     constexprs the same -D values (world_size is the world size); the
//     dtypes of stacked tensors follow the checked kernel's (so a
//     --signature of the kernel applies to its reference too);
//   - it must not communicate (no signal, wait, peers or packets), and its
//     other parameters are errors.
// Outputs of the kernel it does not produce are checked only for being
// written, not NaN or poisoned.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_SIMULATOR_USERREFERENCE_H
#define DSLC_COMPILER_SIMULATOR_USERREFERENCE_H

#include "compiler/Frontend/CompileOptions.h"
#include "compiler/Frontend/SourceManager.h"
#include "compiler/Simulator/Checker.h"
#include "compiler/Simulator/Inputs.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <memory>
#include <string>
#include <vector>

namespace dslc::sim {

/// Whether --reference names a user reference ("FILE.py:NAME").
bool isUserReference(const std::string &reference);

class UserReference {
public:
  /// Parses and compiles the reference `spec` names for the checked
  /// kernel's `binding` on `worldSize` ranks (`options`: the checked
  /// kernel's), and binds its parameters. Program errors are reported with
  /// their location; other problems return null with `error` set.
  static std::unique_ptr<UserReference>
  load(mlir::MLIRContext &ctx, const std::string &spec,
       const CompileOptions &options, const Binding &binding,
       unsigned worldSize, std::string &error);

  /// The checked kernel's outputs it produces (argument indices).
  const std::vector<int> &outputs() const { return checked; }
  const std::string &name() const { return spec; }

  /// Runs the reference on the inputs of launch `call` and gives `checker`
  /// each rank's row of every output it produces. False with `error` set
  /// when the reference fails.
  bool run(const Inputs &inputs, int64_t call, Checker &checker,
           std::string &error);

private:
  /// One parameter of the reference.
  struct Param {
    std::string name;
    enum class Kind { Input, Output, Int, Float } kind = Kind::Input;
    int kernelArg = -1; ///< The checked kernel's argument it stands for.
    ElemType type;
    std::vector<int64_t> sizes; ///< Stacked: [W, ...].
    int64_t intValue = 0;
    double floatValue = 0;
  };

  bool bindParams(const Binding &binding, std::string &error);
  bool checkPlain(std::string &error);

  std::string spec;
  unsigned worldSize = 1;
  SourceManager sources;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp func;
  std::vector<Param> params;
  std::vector<int> checked;
};

} // namespace dslc::sim

#endif // DSLC_COMPILER_SIMULATOR_USERREFERENCE_H
