//===- Lexer.cpp - Python-style tokenizer ---------------------------------===//

#include "compiler/Frontend/Lexer.h"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>

namespace dslc {

namespace {

bool isIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isIdentChar(char c) { return isIdentStart(c) || (c >= '0' && c <= '9'); }
bool isDigitIn(char c, unsigned base) {
  switch (base) {
  case 2:
    return c == '0' || c == '1';
  case 8:
    return c >= '0' && c <= '7';
  case 10:
    return c >= '0' && c <= '9';
  default:
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
           (c >= 'A' && c <= 'F');
  }
}
unsigned digitValue(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return c - 'A' + 10;
}

char closerFor(char open) {
  return open == '(' ? ')' : open == '[' ? ']' : '}';
}

void appendUtf8(std::string &out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

struct Punctuator {
  const char *spelling;
  TokenKind kind;
};
constexpr Punctuator kPunctuators[] = {
#define DSLC_TOKEN_PUNCT(Name, Spelling) {Spelling, TokenKind::Name},
    DSLC_PUNCTUATORS(DSLC_TOKEN_PUNCT)
#undef DSLC_TOKEN_PUNCT
};

} // namespace

Lexer::Lexer(const SourceManager &sourceManager, uint32_t fileId,
             DiagnosticEngine &diags)
    : sourceManager(sourceManager), fileId(fileId), diags(diags) {
  if (const SourceBuffer *buf = sourceManager.getBuffer(fileId))
    text = buf->getText();
  // A UTF-8 byte order mark starts the file, as CPython accepts it; columns
  // still count the bytes of the line.
  if (text.substr(0, 3) == "\xEF\xBB\xBF")
    pos = 3;
}

Location Lexer::locAt(size_t offset) const {
  Location loc;
  loc.fileId = fileId;
  loc.line = line;
  loc.column = static_cast<uint32_t>(offset - lineStart + 1);
  loc.offset = static_cast<uint32_t>(offset);
  return loc;
}

void Lexer::consumeNewline() {
  lastBreakOffset = pos;
  lastBreakLineStart = lineStart;
  if (text[pos] == '\r' && pos + 1 < text.size() && text[pos + 1] == '\n')
    ++pos;
  ++pos;
  ++line;
  lineStart = pos;
}

void Lexer::error(SourceRange range, std::string message) {
  lastErrorLine = range.begin.line;
  diags.error(range, std::move(message));
}

Token &Lexer::push(TokenKind kind, size_t begin) {
  Token tok;
  tok.kind = kind;
  tok.range = rangeFrom(begin);
  tok.text = text.substr(begin, pos - begin);
  pending.push_back(std::move(tok));
  if (kind != TokenKind::Newline && kind != TokenKind::Indent &&
      kind != TokenKind::Dedent)
    lineHasTokens = true;
  return pending.back();
}

Token Lexer::next() {
  while (pending.empty())
    step();
  Token tok = std::move(pending.front());
  pending.pop_front();
  if (tok.kind == TokenKind::EndOfFile)
    pending.push_back(tok); // EOF repeats.
  return tok;
}

std::vector<Token> Lexer::lexAll() {
  std::vector<Token> result;
  do
    result.push_back(next());
  while (result.back().isNot(TokenKind::EndOfFile));
  return result;
}

void Lexer::step() {
  size_t before = pending.size();
  while (pending.size() == before) {
    if (finished || diags.limitReached() || atEnd()) {
      finish();
      return;
    }
    if (atLineStart && brackets.empty()) {
      atLineStart = false;
      lexIndentation();
      continue;
    }
    atLineStart = false;
    char c = peek();
    if (c == ' ' || c == '\t' || c == '\f') {
      ++pos;
      continue;
    }
    if (c == '#') {
      while (!atEnd() && !atNewline()) {
        if (text[pos] == '\0')
          error(SourceRange(here(), locAt(pos + 1)),
                "null byte in source file");
        ++pos;
      }
      continue;
    }
    if (c == '\n' || c == '\r') {
      size_t begin = pos;
      if (brackets.empty() && lineHasTokens) {
        Token &tok = push(TokenKind::Newline, begin);
        tok.range.end = tok.range.begin;
        lineHasTokens = false;
      }
      consumeNewline();
      atLineStart = true;
      continue;
    }
    if (c == '\\') {
      size_t begin = pos++;
      if (atNewline()) {
        consumeNewline();
        continue;
      }
      if (atEnd())
        error(rangeFrom(begin),
              "unexpected end of file after line continuation character");
      else
        error(rangeFrom(begin),
              "unexpected character after line continuation character");
      continue;
    }
    size_t prefixLen = 0;
    if (isStringStart(prefixLen)) {
      lexString(prefixLen);
      continue;
    }
    if (isIdentStart(c)) {
      lexIdentifierOrKeyword();
      continue;
    }
    if ((c >= '0' && c <= '9') ||
        (c == '.' && peek(1) >= '0' && peek(1) <= '9')) {
      lexNumber();
      continue;
    }
    if (std::strchr("()[]{},:.;@=-+*/%&|^~<>!", c) &&
        !(c == '!' && peek(1) != '=')) {
      lexPunctuator();
      continue;
    }
    lexInvalid();
  }
}

void Lexer::finish() {
  if (finished) {
    push(TokenKind::EndOfFile, pos);
    return;
  }
  finished = true;
  if (diags.limitReached()) {
    // Stop cleanly: close the line and the blocks so the stream is well
    // formed.
    brackets.clear();
  }
  pos = text.size();
  if (!brackets.empty()) {
    const Bracket &b = brackets.back();
    error(SourceRange(b.loc), fmt::format("'{}' was never closed", b.open));
    unclosedBracket = true;
  }
  // Place the end-of-file tokens at the end of the last line when the
  // buffer ends with a line break.
  Location endLoc = here();
  if (pos == lineStart && line > 1 && pos > 0) {
    endLoc.line = line - 1;
    endLoc.column = lastBreakOffset - lastBreakLineStart + 1;
    endLoc.offset = text.size();
  }
  auto pushAtEnd = [&](TokenKind kind) {
    Token &tok = push(kind, pos);
    tok.range = SourceRange(endLoc);
  };
  if (lineHasTokens)
    pushAtEnd(TokenKind::Newline);
  lineHasTokens = false;
  while (indents.size() > 1) {
    indents.pop_back();
    altIndents.pop_back();
    pushAtEnd(TokenKind::Dedent);
  }
  pushAtEnd(TokenKind::EndOfFile);
}

void Lexer::lexIndentation() {
  size_t begin = pos;
  unsigned col = 0, alt = 0;
  while (!atEnd()) {
    char c = text[pos];
    if (c == ' ') {
      ++col;
      ++alt;
    } else if (c == '\t') {
      col = (col / 8 + 1) * 8;
      ++alt;
    } else if (c == '\f') {
      col = alt = 0;
    } else {
      break;
    }
    ++pos;
  }
  // Blank and comment-only lines do not change the indentation.
  if (atEnd() || atNewline() || peek() == '#')
    return;
  // A backslash at the start of a line does not start a logical line in
  // CPython either; treat it as content (the main loop reports or joins).
  SourceRange wsRange(locAt(begin), here());
  auto inconsistent = [&] {
    error(wsRange, "inconsistent use of tabs and spaces in indentation");
  };
  if (col == indents.back()) {
    if (alt != altIndents.back())
      inconsistent();
  } else if (col > indents.back()) {
    if (alt <= altIndents.back())
      inconsistent();
    indents.push_back(col);
    altIndents.push_back(alt);
    Token &tok = push(TokenKind::Indent, begin);
    tok.range = SourceRange(here());
  } else {
    while (indents.size() > 1 && col < indents.back()) {
      indents.pop_back();
      altIndents.pop_back();
      Token &tok = push(TokenKind::Dedent, pos);
      tok.range = SourceRange(here());
    }
    if (col != indents.back())
      error(SourceRange(here()),
            "unindent does not match any outer indentation level");
    else if (alt != altIndents.back())
      inconsistent();
  }
}

void Lexer::lexIdentifierOrKeyword() {
  size_t begin = pos;
  while (!atEnd() && isIdentChar(text[pos]))
    ++pos;
  std::string_view spelling = text.substr(begin, pos - begin);
  push(getKeywordKind(spelling), begin);
}

bool Lexer::isStringStart(size_t &prefixLen) const {
  size_t i = 0;
  bool seenR = false, seenBF = false, seenU = false;
  for (; i < 2; ++i) {
    char c = peek(i);
    if ((c == 'r' || c == 'R') && !seenR && !seenU)
      seenR = true;
    else if ((c == 'b' || c == 'B' || c == 'f' || c == 'F') && !seenBF &&
             !seenU)
      seenBF = true;
    else if ((c == 'u' || c == 'U') && i == 0)
      seenU = true;
    else
      break;
  }
  char q = peek(i);
  if (q != '\'' && q != '"')
    return false;
  prefixLen = i;
  return true;
}

void Lexer::lexString(size_t prefixLen) {
  size_t begin = pos;
  bool raw = false, bytes = false, format = false;
  for (size_t i = 0; i < prefixLen; ++i) {
    char c = text[pos + i] | 0x20;
    raw |= c == 'r';
    bytes |= c == 'b';
    format |= c == 'f';
  }
  pos += prefixLen;
  char quote = text[pos];
  bool triple = peek(1) == quote && peek(2) == quote;
  pos += triple ? 3 : 1;
  Location startLoc = locAt(begin);
  std::string value;
  bool terminated = false;
  while (!atEnd()) {
    char c = text[pos];
    if (c == quote) {
      if (!triple) {
        ++pos;
        terminated = true;
        break;
      }
      if (peek(1) == quote && peek(2) == quote) {
        pos += 3;
        terminated = true;
        break;
      }
      value += c;
      ++pos;
      continue;
    }
    if (c == '\n' || c == '\r') {
      if (!triple)
        break;
      value += '\n';
      consumeNewline();
      continue;
    }
    if (c == '\0') {
      error(SourceRange(here(), locAt(pos + 1)), "null byte in string literal");
      ++pos;
      continue;
    }
    if (c != '\\') {
      value += c;
      ++pos;
      continue;
    }
    // Backslash.
    size_t escBegin = pos++;
    if (atEnd())
      break;
    char e = text[pos];
    if (e == '\n' || e == '\r') {
      // Line continuation inside the literal (kept verbatim when raw).
      if (raw) {
        value += '\\';
        value += '\n';
      }
      consumeNewline();
      continue;
    }
    if (raw) {
      value += '\\';
      value += e;
      ++pos;
      continue;
    }
    ++pos;
    switch (e) {
    case '\\':
    case '\'':
    case '"':
      value += e;
      break;
    case 'a':
      value += '\a';
      break;
    case 'b':
      value += '\b';
      break;
    case 'f':
      value += '\f';
      break;
    case 'n':
      value += '\n';
      break;
    case 'r':
      value += '\r';
      break;
    case 't':
      value += '\t';
      break;
    case 'v':
      value += '\v';
      break;
    case 'x': {
      if (isDigitIn(peek(), 16) && isDigitIn(peek(1), 16)) {
        value +=
            static_cast<char>(digitValue(peek()) * 16 + digitValue(peek(1)));
        pos += 2;
      } else {
        error(rangeFrom(escBegin), "invalid \\x escape in string literal");
      }
      break;
    }
    case 'u':
    case 'U': {
      unsigned n = e == 'u' ? 4 : 8;
      if (bytes) {
        value += '\\';
        value += e;
        break;
      }
      uint32_t cp = 0;
      unsigned k = 0;
      for (; k < n && isDigitIn(peek(), 16); ++k, ++pos)
        cp = cp * 16 + digitValue(text[pos]);
      if (k != n || cp > 0x10FFFF)
        error(rangeFrom(escBegin),
              fmt::format("invalid \\{} escape in string literal", e));
      else
        appendUtf8(value, cp);
      break;
    }
    default:
      if (e >= '0' && e <= '7') {
        unsigned v = e - '0';
        for (int k = 0; k < 2 && peek() >= '0' && peek() <= '7'; ++k, ++pos)
          v = v * 8 + (text[pos] - '0');
        value += static_cast<char>(v & 0xFF);
      } else {
        // Unknown escapes (including \N{...}) are kept as written, as
        // CPython does.
        value += '\\';
        --pos;
      }
      break;
    }
  }
  if (!terminated) {
    if (triple) {
      Location openEnd = startLoc;
      openEnd.column += prefixLen + 3;
      openEnd.offset += prefixLen + 3;
      error(SourceRange(startLoc, openEnd),
            "unterminated triple-quoted string literal");
    } else {
      error(SourceRange(startLoc, here()), "unterminated string literal");
      // The statement is broken: end the logical line here rather than let
      // brackets opened before the quote swallow the following lines.
      brackets.clear();
    }
  }
  Token tok;
  tok.kind = TokenKind::String;
  tok.range = SourceRange(startLoc, here());
  tok.text = text.substr(begin, pos - begin);
  tok.strValue = std::move(value);
  tok.strIsBytes = bytes;
  tok.strIsRaw = raw;
  tok.strIsFormat = format;
  pending.push_back(std::move(tok));
  lineHasTokens = true;
}

void Lexer::lexNumber() {
  size_t begin = pos;
  bool isFloat = false;
  bool bad = false;
  unsigned base = 10;
  char prefix = static_cast<char>(peek(1) | 0x20);
  if (peek() == '0' && (prefix == 'x' || prefix == 'o' || prefix == 'b')) {
    char b = prefix;
    base = b == 'x' ? 16 : b == 'o' ? 8 : 2;
    pos += 2;
  }
  // Digits with single underscores between them (and, after a base prefix,
  // one leading underscore, as Python allows "0x_ff").
  auto scanDigits = [&](unsigned digitBase, bool allowLeadingUnderscore) {
    size_t count = 0;
    bool lastUnderscore = false;
    while (!atEnd()) {
      char c = text[pos];
      if (c == '_') {
        if (lastUnderscore || (count == 0 && !allowLeadingUnderscore))
          bad = true;
        lastUnderscore = true;
        ++pos;
        continue;
      }
      if (!isDigitIn(c, digitBase))
        break;
      lastUnderscore = false;
      ++count;
      ++pos;
    }
    if (lastUnderscore)
      bad = true;
    return count;
  };
  if (base != 10) {
    if (scanDigits(base, true) == 0)
      bad = true;
  } else {
    scanDigits(10, false);
    if (peek() == '.' && !(peek(1) == '.' && peek(2) == '.')) {
      isFloat = true;
      ++pos;
      if (isDigitIn(peek(), 10))
        scanDigits(10, false);
    }
    if ((peek() | 0x20) == 'e' &&
        (isDigitIn(peek(1), 10) ||
         ((peek(1) == '+' || peek(1) == '-') && isDigitIn(peek(2), 10)))) {
      isFloat = true;
      pos += (peek(1) == '+' || peek(1) == '-') ? 2 : 1;
      scanDigits(10, false);
    }
  }
  // A number glued to letters ("12abc", "1e", "3j").
  if (!atEnd() && isIdentChar(text[pos])) {
    bool complex = (text[pos] | 0x20) == 'j' &&
                   (pos + 1 >= text.size() || !isIdentChar(text[pos + 1]));
    while (!atEnd() && isIdentChar(text[pos]))
      ++pos;
    error(rangeFrom(begin), complex ? "complex literals are not supported"
                                    : "invalid numeric literal");
    push(isFloat ? TokenKind::Float : TokenKind::Integer, begin);
    return;
  }
  std::string digits;
  for (size_t i = begin; i < pos; ++i)
    if (text[i] != '_')
      digits += text[i];
  if (bad) {
    error(rangeFrom(begin), "invalid numeric literal");
    push(isFloat ? TokenKind::Float : TokenKind::Integer, begin);
    return;
  }
  if (isFloat) {
    Token &tok = push(TokenKind::Float, begin);
    tok.floatValue = std::strtod(digits.c_str(), nullptr);
    return;
  }
  size_t first = base == 10 ? 0 : 2;
  if (base == 10 && digits.size() > 1 && digits[0] == '0' &&
      digits.find_first_not_of('0') != std::string::npos) {
    error(rangeFrom(begin), "leading zeros in decimal integer literals are "
                            "not permitted; use an 0o prefix for octal "
                            "integers");
    push(TokenKind::Integer, begin);
    return;
  }
  uint64_t value = 0;
  bool overflow = false;
  for (size_t i = first; i < digits.size(); ++i) {
    uint64_t d = digitValue(digits[i]);
    if (value > (UINT64_MAX - d) / base) {
      overflow = true;
      break;
    }
    value = value * base + d;
  }
  if (overflow) {
    error(rangeFrom(begin),
          "integer literal too large (the limit is 2**64 - 1)");
    value = 0;
  }
  Token &tok = push(TokenKind::Integer, begin);
  tok.intValue = value;
}

void Lexer::lexPunctuator() {
  size_t begin = pos;
  const Punctuator *best = nullptr;
  size_t bestLen = 0;
  for (const Punctuator &p : kPunctuators) {
    size_t len = std::strlen(p.spelling);
    if (len > bestLen && text.substr(pos, len) == p.spelling) {
      best = &p;
      bestLen = len;
    }
  }
  if (!best) {
    lexInvalid();
    return;
  }
  pos += bestLen;
  TokenKind kind = best->kind;
  char c = text[begin];
  if (c == '(' || c == '[' || c == '{') {
    brackets.push_back({c, locAt(begin)});
  } else if (c == ')' || c == ']' || c == '}') {
    if (brackets.empty()) {
      error(rangeFrom(begin), fmt::format("unmatched '{}'", c));
      return; // Drop it.
    }
    Bracket open = brackets.back();
    brackets.pop_back();
    if (closerFor(open.open) != c) {
      error(rangeFrom(begin),
            fmt::format("closing '{}' does not match opening '{}'", c,
                        open.open));
      diags.note(SourceRange(open.loc),
                 fmt::format("'{}' opened here", open.open));
      // Repair: treat it as the matching closer.
      kind = open.open == '('   ? TokenKind::RParen
             : open.open == '[' ? TokenKind::RBracket
                                : TokenKind::RBrace;
    }
  }
  push(kind, begin);
}

void Lexer::lexInvalid() {
  size_t begin = pos;
  unsigned char c = text[pos];
  if (c == 0) {
    ++pos;
    error(rangeFrom(begin), "null byte in source file");
    return;
  }
  if (c >= 0x80) {
    // Decode one UTF-8 sequence for a readable message.
    size_t n = c >= 0xF0 && c <= 0xF4   ? 4
               : c >= 0xE0 && c <= 0xEF ? 3
               : c >= 0xC2 && c <= 0xDF ? 2
                                        : 0;
    bool valid = n != 0 && pos + n <= text.size();
    for (size_t k = 1; valid && k < n; ++k)
      valid = (static_cast<unsigned char>(text[pos + k]) & 0xC0) == 0x80;
    if (valid) {
      uint32_t cp = c & (0xFF >> (n + 1));
      for (size_t k = 1; k < n; ++k)
        cp = (cp << 6) | (static_cast<unsigned char>(text[pos + k]) & 0x3F);
      pos += n;
      error(rangeFrom(begin),
            fmt::format("invalid character U+{:04X} in source", cp));
    } else {
      ++pos;
      error(rangeFrom(begin),
            fmt::format("invalid UTF-8 byte 0x{:02X} in source", c));
    }
    return;
  }
  ++pos;
  if (c >= 0x21 && c < 0x7F)
    error(rangeFrom(begin), fmt::format("invalid character '{}' in source",
                                        static_cast<char>(c)));
  else
    error(rangeFrom(begin),
          fmt::format("invalid character 0x{:02X} in source", c));
}

} // namespace dslc
