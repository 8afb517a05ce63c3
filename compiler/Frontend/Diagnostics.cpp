//===- Diagnostics.cpp - Error, warning and note reporting ----------------===//

#include "compiler/Frontend/Diagnostics.h"

#include <fmt/format.h>

#include <algorithm>

namespace dslc {

const char *getSeverityName(Severity severity) {
  switch (severity) {
  case Severity::Note:
    return "note";
  case Severity::Warning:
    return "warning";
  case Severity::Error:
    return "error";
  }
  return "error";
}

DiagnosticEngine::DiagnosticEngine(const SourceManager &sourceManager,
                                   std::ostream *os)
    : sourceManager(sourceManager), os(os) {}

void DiagnosticEngine::report(SourceRange range, Severity severity,
                              std::string message) {
  if (capture) {
    capture->push_back({severity, range, std::move(message)});
    return;
  }
  if (stopped) {
    lastSuppressed = true;
    return;
  }
  if (severity == Severity::Note) {
    if (lastSuppressed)
      return;
  } else if (severity == Severity::Error) {
    if (errorLimit != 0 && numErrors >= errorLimit) {
      stopped = true;
      lastSuppressed = true;
      Diagnostic stop{Severity::Error, SourceRange(),
                      "too many errors emitted, stopping now"};
      if (os)
        *os << format(stop) << std::flush;
      collected.push_back(std::move(stop));
      return;
    }
    ++numErrors;
  } else {
    ++numWarnings;
  }
  lastSuppressed = false;
  Diagnostic diag{severity, range, std::move(message)};
  if (os)
    *os << format(diag) << std::flush;
  if (collected.size() < 4096)
    collected.push_back(std::move(diag));
}

namespace {

/// Length of the UTF-8 sequence starting at s[i], or 0 if it is invalid.
size_t utf8SequenceLength(std::string_view s, size_t i) {
  unsigned char c = s[i];
  size_t n = c >= 0xF0 && c <= 0xF4   ? 4
             : c >= 0xE0 && c <= 0xEF ? 3
             : c >= 0xC2 && c <= 0xDF ? 2
                                      : 0;
  if (n == 0 || i + n > s.size())
    return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80)
      return 0;
  return n;
}

} // namespace

std::string DiagnosticEngine::format(const Diagnostic &diag) const {
  std::string out;
  const SourceBuffer *buf =
      diag.range.isValid() ? sourceManager.getBuffer(diag.range.begin.fileId)
                           : nullptr;
  if (!buf) {
    // Not about a place in the program (options, output files, the error
    // limit): the form of the driver's own messages.
    out = fmt::format("dslc: {}: {}\n", getSeverityName(diag.severity),
                      diag.message);
    return out;
  }
  const Location &b = diag.range.begin;
  out = fmt::format("{}:{}:{}: {}: {}\n", buf->getName(), b.line, b.column,
                    getSeverityName(diag.severity), diag.message);

  std::string_view line = buf->getLine(b.line);
  // Byte columns of the caret and of the end of the underline (exclusive).
  size_t caret = b.column - 1;
  size_t endCol = caret + 1;
  const Location &e = diag.range.end;
  if (e.isValid() && e.line == b.line && e.column > b.column)
    endCol = e.column - 1;
  else if (e.isValid() && e.line > b.line)
    endCol = line.size();
  if (caret > line.size())
    caret = line.size();
  endCol = std::max(std::min(endCol, line.size()), caret + 1);

  // Show a window of very long lines so that garbage input does not print
  // megabytes per diagnostic.
  constexpr size_t kWindow = 160;
  size_t start = 0, stop = line.size();
  if (line.size() > kWindow) {
    start = caret > kWindow / 2 ? caret - kWindow / 2 : 0;
    stop = std::min(line.size(), start + kWindow);
    endCol = std::min(endCol, std::max(stop, caret + 1));
  }

  // Render the line: valid UTF-8 and tabs are kept (the caret line copies
  // tabs so it lines up); other control or invalid bytes become '?'.
  std::string text, marks;
  for (size_t i = start; i < stop;) {
    unsigned char c = line[i];
    size_t n = 1;
    if (c >= 0x80)
      n = std::max<size_t>(utf8SequenceLength(line, i), 1);
    char mark = caret >= i && caret < i + n ? '^'
                : i > caret && i < endCol   ? '~'
                                            : ' ';
    if (c == '\t') {
      text += '\t';
      marks += mark == ' ' ? '\t' : mark;
    } else if (n > 1) {
      text.append(line.substr(i, n));
      marks += mark;
    } else {
      text += (c < 0x20 || c >= 0x7F) ? '?' : static_cast<char>(c);
      marks += mark;
    }
    i += n;
  }
  if (caret >= stop)
    marks += '^';
  while (!marks.empty() && (marks.back() == ' ' || marks.back() == '\t'))
    marks.pop_back();
  out += text;
  out += '\n';
  out += marks;
  out += '\n';
  return out;
}

} // namespace dslc
