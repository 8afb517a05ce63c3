//===- Simulator.h - Run a kernel's Tile/Comm IR on the CPU -----*- C++ -*-===//
//
// `dslc FILE --simulate --world-size N`: compiles the kernel once per rank
// (my_rank/rank = r, world_size = N), binds its parameters to host buffers
// of every rank, runs all CTAs of all ranks under seeded interleavings and
// checks the outputs against a float64 reference. See docs/simulator.md.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_SIMULATOR_SIMULATOR_H
#define DSLC_COMPILER_SIMULATOR_SIMULATOR_H

#include "compiler/Frontend/AST.h"
#include "compiler/Frontend/CompileOptions.h"
#include "compiler/Frontend/Diagnostics.h"
#include "compiler/Simulator/SimulationOptions.h"

#include "mlir/IR/MLIRContext.h"

namespace dslc {

/// Simulates `kernel`, specialized by `compile`, for `*compile.worldSize`
/// ranks as `options` say. Reports go to standard output; problems with the
/// program or the options go to `diags`. Returns the exit code: 0 when
/// every launch of every schedule finished with correct results and no
/// error was found, 1 otherwise.
int simulate(mlir::MLIRContext &context, const ast::Module &module,
             const ast::FunctionDef &kernel, const CompileOptions &compile,
             const SimulationOptions &options, DiagnosticEngine &diags);

} // namespace dslc

#endif // DSLC_COMPILER_SIMULATOR_SIMULATOR_H
