//===- Diagnostics.h - Error, warning and note reporting --------*- C++ -*-===//
//
// DiagnosticEngine is the one place every stage of dslc reports problems in
// the user's program. A diagnostic prints like clang's:
//
//   prog.py:12:9: error: unterminated string literal
//       x = "abc
//           ^~~~
//
// Later stages report at an AST node with
//   diags.error(node.getRange(), "message");
// or diags.report(range, Severity::Warning, "message"). Notes attach to the
// preceding error/warning (they are dropped with it when it is suppressed).
//
// After `errorLimit` errors (default 20) the engine prints
// "error: too many errors emitted, stopping now" once, drops everything
// after, and limitReached() turns true so producers can stop early.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_FRONTEND_DIAGNOSTICS_H
#define DSLC_FRONTEND_DIAGNOSTICS_H

#include "compiler/Frontend/SourceManager.h"

#include <ostream>
#include <string>
#include <vector>

namespace dslc {

enum class Severity { Note, Warning, Error };

const char *getSeverityName(Severity severity);

/// One reported diagnostic, as collected by the engine.
struct Diagnostic {
  Severity severity;
  SourceRange range; ///< May be invalid (no location).
  std::string message;
};

class DiagnosticEngine {
public:
  /// Diagnostics are printed to `os` as they are reported; pass nullptr to
  /// only collect them.
  explicit DiagnosticEngine(const SourceManager &sourceManager,
                            std::ostream *os = nullptr);

  /// Reports a diagnostic at `range` (the caret line underlines it). An
  /// invalid range prints as "dslc: error: message" with no location.
  void report(SourceRange range, Severity severity, std::string message);
  void report(Location loc, Severity severity, std::string message) {
    report(SourceRange(loc), severity, std::move(message));
  }
  void error(SourceRange range, std::string message) {
    report(range, Severity::Error, std::move(message));
  }
  void warning(SourceRange range, std::string message) {
    report(range, Severity::Warning, std::move(message));
  }
  void note(SourceRange range, std::string message) {
    report(range, Severity::Note, std::move(message));
  }

  unsigned getNumErrors() const { return numErrors; }
  unsigned getNumWarnings() const { return numWarnings; }
  bool hasErrors() const { return numErrors != 0; }
  /// True once the error limit was hit; producers should stop.
  bool limitReached() const { return stopped; }
  /// 0 = unlimited.
  void setErrorLimit(unsigned limit) { errorLimit = limit; }
  void setOutput(std::ostream *stream) { os = stream; }
  /// While `sink` is set, reports are appended there instead (neither
  /// printed nor counted): the parser parses a top-level statement that may
  /// be host code this way and replays them when it is DSL code.
  void setCapture(std::vector<Diagnostic> *sink) { capture = sink; }

  /// Every diagnostic reported and not suppressed, in order (at most a few
  /// thousand are kept).
  const std::vector<Diagnostic> &getDiagnostics() const { return collected; }
  const SourceManager &getSourceManager() const { return sourceManager; }

  /// Formats one diagnostic (location line, source line, caret line), as
  /// printed. Exposed for tests and tools.
  std::string format(const Diagnostic &diag) const;

private:
  const SourceManager &sourceManager;
  std::ostream *os;
  std::vector<Diagnostic> *capture = nullptr;
  std::vector<Diagnostic> collected;
  unsigned numErrors = 0;
  unsigned numWarnings = 0;
  unsigned errorLimit = 20;
  bool stopped = false;
  bool lastSuppressed = false;
};

} // namespace dslc

#endif // DSLC_FRONTEND_DIAGNOSTICS_H
