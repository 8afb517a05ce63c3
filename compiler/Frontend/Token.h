//===- Token.h - Tokens of the Python-syntax tile language ------*- C++ -*-===//
//
// The lexer turns a buffer into these tokens, Python style: NEWLINE ends a
// logical line, INDENT/DEDENT bracket blocks, and line breaks inside
// (), [] and {} produce no token.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_FRONTEND_TOKEN_H
#define DSLC_FRONTEND_TOKEN_H

#include "compiler/Frontend/SourceManager.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace dslc {

// clang-format off: one X(...) per line, which clang-format would reflow.
// Keywords: X(Name, "spelling") gives TokenKind::KwName.
#define DSLC_KEYWORDS(X)                                                       \
  X(False, "False")                                                            \
  X(None, "None")                                                              \
  X(True, "True")                                                              \
  X(And, "and")                                                                \
  X(As, "as")                                                                  \
  X(Assert, "assert")                                                          \
  X(Async, "async")                                                            \
  X(Await, "await")                                                            \
  X(Break, "break")                                                            \
  X(Class, "class")                                                            \
  X(Continue, "continue")                                                      \
  X(Def, "def")                                                                \
  X(Del, "del")                                                                \
  X(Elif, "elif")                                                              \
  X(Else, "else")                                                              \
  X(Except, "except")                                                          \
  X(Finally, "finally")                                                        \
  X(For, "for")                                                                \
  X(From, "from")                                                              \
  X(Global, "global")                                                          \
  X(If, "if")                                                                  \
  X(Import, "import")                                                          \
  X(In, "in")                                                                  \
  X(Is, "is")                                                                  \
  X(Lambda, "lambda")                                                          \
  X(Nonlocal, "nonlocal")                                                      \
  X(Not, "not")                                                                \
  X(Or, "or")                                                                  \
  X(Pass, "pass")                                                              \
  X(Raise, "raise")                                                            \
  X(Return, "return")                                                          \
  X(Try, "try")                                                                \
  X(While, "while")                                                            \
  X(With, "with")                                                              \
  X(Yield, "yield")

// Operators and delimiters: X(Name, "spelling") gives TokenKind::Name. The
// lexer picks the longest spelling that matches (maximal munch).
#define DSLC_PUNCTUATORS(X)                                                    \
  X(LParen, "(")                                                               \
  X(RParen, ")")                                                               \
  X(LBracket, "[")                                                             \
  X(RBracket, "]")                                                             \
  X(LBrace, "{")                                                               \
  X(RBrace, "}")                                                               \
  X(Comma, ",")                                                                \
  X(Colon, ":")                                                                \
  X(Dot, ".")                                                                  \
  X(Semi, ";")                                                                 \
  X(At, "@")                                                                   \
  X(Equal, "=")                                                                \
  X(Arrow, "->")                                                               \
  X(Ellipsis, "...")                                                           \
  X(Walrus, ":=")                                                              \
  X(Plus, "+")                                                                 \
  X(Minus, "-")                                                                \
  X(Star, "*")                                                                 \
  X(Slash, "/")                                                                \
  X(DoubleSlash, "//")                                                         \
  X(Percent, "%")                                                              \
  X(DoubleStar, "**")                                                          \
  X(Amp, "&")                                                                  \
  X(Pipe, "|")                                                                 \
  X(Caret, "^")                                                                \
  X(Tilde, "~")                                                                \
  X(LShift, "<<")                                                              \
  X(RShift, ">>")                                                              \
  X(Less, "<")                                                                 \
  X(Greater, ">")                                                              \
  X(LessEqual, "<=")                                                           \
  X(GreaterEqual, ">=")                                                        \
  X(EqualEqual, "==")                                                          \
  X(NotEqual, "!=")                                                            \
  X(PlusEqual, "+=")                                                           \
  X(MinusEqual, "-=")                                                          \
  X(StarEqual, "*=")                                                           \
  X(SlashEqual, "/=")                                                          \
  X(DoubleSlashEqual, "//=")                                                   \
  X(PercentEqual, "%=")                                                        \
  X(AtEqual, "@=")                                                             \
  X(AmpEqual, "&=")                                                            \
  X(PipeEqual, "|=")                                                           \
  X(CaretEqual, "^=")                                                          \
  X(LShiftEqual, "<<=")                                                        \
  X(RShiftEqual, ">>=")                                                        \
  X(DoubleStarEqual, "**=")
// clang-format on

enum class TokenKind : uint8_t {
  EndOfFile,
  Newline,
  Indent,
  Dedent,
  Identifier,
  Integer,
  Float,
  String,
#define DSLC_TOKEN_KW(Name, Spelling) Kw##Name,
  DSLC_KEYWORDS(DSLC_TOKEN_KW)
#undef DSLC_TOKEN_KW
#define DSLC_TOKEN_PUNCT(Name, Spelling) Name,
      DSLC_PUNCTUATORS(DSLC_TOKEN_PUNCT)
#undef DSLC_TOKEN_PUNCT
};

/// A human-readable name for diagnostics: "identifier", "newline",
/// "'def'", "'+='", ...
const char *getTokenKindName(TokenKind kind);
/// The keyword for `spelling`, or TokenKind::Identifier.
TokenKind getKeywordKind(std::string_view spelling);
bool isKeyword(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::EndOfFile;
  SourceRange range;
  /// The token's bytes in the source buffer (empty for NEWLINE at EOF,
  /// INDENT, DEDENT and EOF).
  std::string_view text;

  // Literal payloads.
  uint64_t intValue = 0; ///< Integer.
  double floatValue = 0; ///< Float.
  std::string strValue;  ///< String: decoded contents (escapes processed
                         ///< unless raw).
  bool strIsBytes = false, strIsRaw = false, strIsFormat = false;

  bool is(TokenKind k) const { return kind == k; }
  bool isNot(TokenKind k) const { return kind != k; }
};

} // namespace dslc

#endif // DSLC_FRONTEND_TOKEN_H
