//===- Backend.h - Entry point of everything after the parser ---*- C++ -*-===//
//
// The dslc driver parses the file, resolves the kernel, and for every
// --emit other than `ast` calls runBackend. The MLIR-based implementation
// lives with the compiler pipeline (target DslcPipeline); while that is not
// built, tools/dslc/BackendUnavailable.cpp provides one that reports an
// error.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_FRONTEND_BACKEND_H
#define DSLC_FRONTEND_BACKEND_H

#include "compiler/Frontend/AST.h"
#include "compiler/Frontend/CompileOptions.h"
#include "compiler/Frontend/Diagnostics.h"

namespace dslc {

/// Compiles kernel `options.kernel` of `module` (the driver guarantees that
/// `module.lookupFunction(options.kernel)` is a kernel and that the module
/// parsed without errors) to `options.emit`, writing `options.outputPath`.
/// Problems in the program are reported through `diags` at AST ranges.
/// Returns the process exit code: 0 on success, 1 after an error.
int runBackend(const ast::Module &module, DiagnosticEngine &diags,
               const CompileOptions &options);

} // namespace dslc

#endif // DSLC_FRONTEND_BACKEND_H
