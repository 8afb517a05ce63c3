//===- SourceManager.h - Source buffers and locations -----------*- C++ -*-===//
//
// The SourceManager owns the text of every file the frontend reads. A
// Location names a position in one of them (file id, 1-based line, 1-based
// column counted in bytes, so a tab is one column) and a SourceRange a
// half-open span [begin, end). Every AST node carries a SourceRange; later
// stages turn it into mlir::FileLineColLoc with getFileName()/line/column.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_FRONTEND_SOURCEMANAGER_H
#define DSLC_FRONTEND_SOURCEMANAGER_H

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace dslc {

/// A position in a source buffer. `fileId` 0 means "no location".
struct Location {
  uint32_t fileId = 0;
  uint32_t line = 0;   ///< 1-based.
  uint32_t column = 0; ///< 1-based, in bytes (a tab counts as one column).
  uint32_t offset = 0; ///< 0-based byte offset in the buffer.

  bool isValid() const { return fileId != 0; }
};

/// A half-open range [begin, end) of source text. `end` is the position just
/// past the last character. An empty range (begin == end) marks a point.
struct SourceRange {
  Location begin;
  Location end;

  SourceRange() = default;
  SourceRange(Location b, Location e) : begin(b), end(e) {}
  explicit SourceRange(Location point) : begin(point), end(point) {}
  bool isValid() const { return begin.isValid(); }
};

/// The text of one file plus the offsets at which its lines start.
/// Lines end at "\n", "\r\n" or a lone "\r" (Python's universal newlines).
class SourceBuffer {
public:
  SourceBuffer(std::string name, std::string text);

  const std::string &getName() const { return name; }
  std::string_view getText() const { return text; }
  unsigned getNumLines() const { return lineStarts.size(); }
  /// The text of line `line` (1-based) without its line terminator; empty
  /// when out of range.
  std::string_view getLine(unsigned line) const;

private:
  std::string name;
  std::string text;
  std::vector<uint32_t> lineStarts;
};

/// Owns source buffers; hands out stable file ids starting at 1.
class SourceManager {
public:
  /// Largest file the frontend accepts (16 MiB).
  static constexpr size_t kMaxFileSize = 16u << 20;

  /// Adds a buffer and returns its id.
  uint32_t addBuffer(std::string name, std::string text);
  /// Reads `path` ("-" = standard input). On failure returns 0 and sets
  /// `error` to a message (e.g. "No such file or directory").
  uint32_t addFile(const std::string &path, std::string &error);

  /// Null when `fileId` is not a valid id.
  const SourceBuffer *getBuffer(uint32_t fileId) const;
  /// "" when `fileId` is not a valid id.
  const std::string &getFileName(uint32_t fileId) const;

private:
  // unique_ptr: buffers never move, so string_views into them stay valid.
  std::vector<std::unique_ptr<SourceBuffer>> buffers;
};

} // namespace dslc

#endif // DSLC_FRONTEND_SOURCEMANAGER_H
