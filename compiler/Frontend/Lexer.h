//===- Lexer.h - Python-style tokenizer -------------------------*- C++ -*-===//
//
// Tokenizes one source buffer following Python's lexical rules:
//  - INDENT/DEDENT from leading whitespace (tab stops of 8); indentation that
//    compares differently with tabs of width 8 and width 1 is an error
//    ("inconsistent use of tabs and spaces in indentation"), as in CPython.
//  - Line breaks inside (), [] and {} and after a backslash are joined.
//  - Comments, blank lines; strings with prefixes r/b/f/u, single, double and
//    triple quotes; ints (decimal, 0x, 0o, 0b, underscores), floats.
// Any input, including binary garbage, yields tokens plus diagnostics: a
// malformed piece is reported and skipped (or repaired, e.g. an unterminated
// string ends at the line end), so the parser sees a usable token stream.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_FRONTEND_LEXER_H
#define DSLC_FRONTEND_LEXER_H

#include "compiler/Frontend/Diagnostics.h"
#include "compiler/Frontend/Token.h"

#include <deque>
#include <vector>

namespace dslc {

class Lexer {
public:
  Lexer(const SourceManager &sourceManager, uint32_t fileId,
        DiagnosticEngine &diags);

  /// The next token. The stream always ends with NEWLINE (when the last
  /// line had tokens), the DEDENTs closing open blocks, then EOF, which is
  /// returned again on every later call. Tokens are produced on demand, so
  /// lexer and parser diagnostics come out in source order.
  Token next();
  /// Tokenizes the whole (rest of the) buffer, EOF included.
  std::vector<Token> lexAll();

  /// True when the buffer ended inside brackets (already reported); the
  /// parser then stays quiet about the unexpected end of file.
  bool hadUnclosedBracket() const { return unclosedBracket; }
  /// Line of the last error the lexer reported (0: none). The parser stays
  /// quiet about that line: its complaint would only echo the lexer's.
  uint32_t getLastErrorLine() const { return lastErrorLine; }
  /// True for a token the lexer synthesized at the end of the buffer
  /// (final NEWLINE, DEDENTs, EOF).
  bool isAtEndOfBuffer(const Token &token) const {
    return token.range.begin.offset >= text.size() ||
           token.kind == TokenKind::EndOfFile;
  }

private:
  struct Bracket {
    char open;
    Location loc;
  };

  char peek(size_t ahead = 0) const {
    return pos + ahead < text.size() ? text[pos + ahead] : '\0';
  }
  bool atEnd() const { return pos >= text.size(); }
  bool atNewline() const {
    return !atEnd() && (text[pos] == '\n' || text[pos] == '\r');
  }
  /// Consumes one "\n", "\r\n" or "\r" and starts a new line.
  void consumeNewline();
  Location here() const { return locAt(pos); }
  Location locAt(size_t offset) const;
  SourceRange rangeFrom(size_t begin) const {
    return SourceRange(locAt(begin), here());
  }

  void error(SourceRange range, std::string message);
  Token &push(TokenKind kind, size_t begin);

  /// Lexes until at least one token is pending.
  void step();
  /// End of buffer: reports unclosed brackets, queues NEWLINE, DEDENTs, EOF.
  void finish();
  void lexIndentation();
  void lexIdentifierOrKeyword();
  void lexString(size_t prefixLen);
  void lexNumber();
  void lexPunctuator();
  void lexInvalid();
  /// True when a string literal (with optional prefix) starts here; sets
  /// `prefixLen`.
  bool isStringStart(size_t &prefixLen) const;

  const SourceManager &sourceManager;
  uint32_t fileId;
  DiagnosticEngine &diags;
  std::string_view text;

  size_t pos = 0;
  uint32_t line = 1;
  size_t lineStart = 0;
  bool atLineStart = true;
  bool lineHasTokens = false;
  bool unclosedBracket = false;
  bool finished = false;
  uint32_t lastErrorLine = 0;
  // Where the last consumed line break was (to place end-of-file tokens at
  // the end of the last line rather than on an empty line after it).
  size_t lastBreakOffset = 0, lastBreakLineStart = 0;
  std::vector<unsigned> indents{0};    ///< Columns with tabs to 8.
  std::vector<unsigned> altIndents{0}; ///< Columns with tabs as 1.
  std::vector<Bracket> brackets;
  std::deque<Token> pending;
};

} // namespace dslc

#endif // DSLC_FRONTEND_LEXER_H
