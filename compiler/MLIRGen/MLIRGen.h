//===- MLIRGen.h - AST of a kernel to the Tile and Comm dialects -*- C++
//-*-===//

#ifndef DSLC_COMPILER_MLIRGEN_MLIRGEN_H
#define DSLC_COMPILER_MLIRGEN_MLIRGEN_H

#include "compiler/Frontend/AST.h"
#include "compiler/Frontend/CompileOptions.h"
#include "compiler/Frontend/Diagnostics.h"
#include "compiler/MLIRGen/KernelDescription.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace dslc {

/// Builds a module holding one `func.func` tile kernel for `kernel`,
/// specialized by `options` (-D constants, --config, --signature,
/// --world-size/--rank) and the decorator's config. Errors in the program
/// are reported through `diags` at their source range; on error the result
/// is null. `description` receives what the runtime needs to know.
mlir::OwningOpRef<mlir::ModuleOp>
generateKernel(mlir::MLIRContext &context, const ast::Module &module,
               const ast::FunctionDef &kernel, const CompileOptions &options,
               DiagnosticEngine &diags, KernelDescription &description);

} // namespace dslc

#endif // DSLC_COMPILER_MLIRGEN_MLIRGEN_H
