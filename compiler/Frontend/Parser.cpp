//===- Parser.cpp - Recursive-descent parser ------------------------------===//
//
// The token buffer, diagnostics and error recovery shared by the statement
// (ParseStmt.cpp) and expression (ParseExpr.cpp) halves of the parser.
//
//===----------------------------------------------------------------------===//

#include "compiler/Frontend/Parser.h"

#include <fmt/format.h>

namespace dslc {

using namespace ast;

std::unique_ptr<Module> parseFile(const SourceManager &sourceManager,
                                  uint32_t fileId, DiagnosticEngine &diags,
                                  bool allowHostCode) {
  Lexer lexer(sourceManager, fileId, diags);
  Parser parser(lexer, sourceManager, fileId, diags);
  return parser.parseModule(allowHostCode);
}

Parser::Parser(Lexer &lexer, const SourceManager &sourceManager,
               uint32_t fileId, DiagnosticEngine &diags)
    : lexer(lexer), sourceManager(sourceManager), fileId(fileId), diags(diags) {
  lastEndLoc = tok().range.begin;
}

const Token &Parser::tokenAt(size_t index) {
  while (tokens.size() <= index) {
    if (!tokens.empty() && tokens.back().is(TokenKind::EndOfFile))
      return tokens.back();
    tokens.push_back(lexer.next());
  }
  return tokens[index];
}

Parser::NestingGuard::NestingGuard(Parser &p) : parser(p) {
  ok = ++parser.nesting <= kMaxNesting;
  if (!ok && parser.nesting == kMaxNesting + 1)
    parser.errorAt(parser.tok(), "expression nested too deeply");
}

//===----------------------------------------------------------------------===//
// Tokens and diagnostics
//===----------------------------------------------------------------------===//

const Token &Parser::consume() {
  const Token &t = tok();
  if (t.kind != TokenKind::EndOfFile)
    ++pos;
  if (t.kind != TokenKind::Newline && t.kind != TokenKind::Indent &&
      t.kind != TokenKind::Dedent && t.kind != TokenKind::EndOfFile)
    lastEndLoc = t.range.end;
  return t;
}

bool Parser::accept(TokenKind kind) {
  if (!check(kind))
    return false;
  consume();
  return true;
}

bool Parser::expect(TokenKind kind, const char *what) {
  if (accept(kind))
    return true;
  errorExpected(what);
  return false;
}

bool Parser::atLineStart() const {
  if (pos == 0)
    return true;
  TokenKind prev = tokens[pos - 1].kind;
  return prev == TokenKind::Newline || prev == TokenKind::Indent ||
         prev == TokenKind::Dedent;
}

std::string Parser::describe(const Token &t) {
  switch (t.kind) {
  case TokenKind::EndOfFile:
    return "end of file";
  case TokenKind::Newline:
    return "end of line";
  case TokenKind::Indent:
    return "indent";
  case TokenKind::Dedent:
    return "dedent";
  case TokenKind::String:
    return "string literal";
  default:
    break;
  }
  std::string text(t.text.substr(0, 32));
  return fmt::format("'{}'", text);
}

void Parser::errorAt(const Token &at, const std::string &message) {
  // After "'(' was never closed", complaints about the end of the file only
  // repeat it.
  if (lexer.hadUnclosedBracket() && lexer.isAtEndOfBuffer(at))
    return;
  if (at.range.begin.line == lexer.getLastErrorLine())
    return;
  SourceRange range = at.range;
  if (at.kind == TokenKind::Newline || at.kind == TokenKind::EndOfFile ||
      at.kind == TokenKind::Dedent || at.kind == TokenKind::Indent)
    range = SourceRange(range.begin);
  diags.error(range, message);
}

void Parser::errorExpected(const char *what) {
  if (check(TokenKind::EndOfFile))
    errorAt(tok(), fmt::format("unexpected end of file; expected {}", what));
  else
    errorAt(tok(), fmt::format("expected {}, found {}", what, describe(tok())));
}

//===----------------------------------------------------------------------===//
// Recovery
//===----------------------------------------------------------------------===//

void Parser::skipBlock() {
  // At an INDENT: skip to just past its matching DEDENT.
  unsigned depth = 0;
  while (!check(TokenKind::EndOfFile)) {
    if (check(TokenKind::Indent)) {
      ++depth;
    } else if (check(TokenKind::Dedent)) {
      consume();
      if (--depth == 0)
        return;
      continue;
    }
    consume();
  }
}

void Parser::synchronize(size_t statementStart) {
  // Skip the rest of the logical line (always, when nothing was consumed, so
  // that parsing makes progress), then an indented block that belongs to it.
  if (pos == statementStart || !atLineStart()) {
    while (!check(TokenKind::Newline) && !check(TokenKind::EndOfFile)) {
      // Stop at a block boundary that a broken compound statement left us
      // at; never leave the current block.
      if (check(TokenKind::Dedent) && pos != statementStart)
        return;
      consume();
    }
    accept(TokenKind::Newline);
  }
  if (check(TokenKind::Indent))
    skipBlock();
}

} // namespace dslc
