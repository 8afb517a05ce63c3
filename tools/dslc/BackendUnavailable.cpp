//===- BackendUnavailable.cpp - runBackend while MLIR is not built --------===//
//
// Linked into dslc only when the target DslcPipeline does not exist (see
// CMakeLists.txt); the real runBackend lives with the compiler pipeline.
//
//===----------------------------------------------------------------------===//

#include "compiler/Frontend/Backend.h"

#include <fmt/format.h>

int dslc::runBackend(const ast::Module &, DiagnosticEngine &diags,
                     const CompileOptions &options) {
  diags.report(SourceRange(), Severity::Error,
               fmt::format("--emit={} needs the MLIR backend, which is not "
                           "built yet",
                           getEmitKindName(options.emit)));
  return 1;
}
