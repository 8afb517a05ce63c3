//===- Parser.h - Recursive-descent parser ----------------------*- C++ -*-===//
//
// Parses the token stream of one file into an ast::Module (see AST.h for the
// tree and docs/language.md for the accepted syntax).
//
// Error recovery: a statement with a syntax error is reported and skipped up
// to the end of its logical line (and an indented block that follows it), so
// one run reports several independent errors. The DiagnosticEngine's error
// limit stops parsing early.
//
// Limits (reported as errors, never a crash):
//   - kMaxNesting nested parentheses/brackets/unary operators in one
//     expression and kMaxExprHeight levels in an expression tree:
//     "expression nested too deeply";
//   - kMaxBlockDepth nested blocks: "too many levels of indentation".
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_FRONTEND_PARSER_H
#define DSLC_FRONTEND_PARSER_H

#include "compiler/Frontend/AST.h"
#include "compiler/Frontend/Diagnostics.h"
#include "compiler/Frontend/Lexer.h"
#include "compiler/Frontend/Token.h"

#include <deque>
#include <memory>
#include <vector>

namespace dslc {

/// Lexes and parses buffer `fileId`. Always returns a module (holding what
/// parsed); check diags.hasErrors() for success. With `allowHostCode`, a
/// top-level statement that is not DSL code (and is not a kernel) is no
/// error: it is left out as host code (Module::getHostCode), as a Helion
/// file's launcher and test code are; an error is reported if a kernel
/// calls it. Without, the whole file must be DSL code (--emit=ast).
std::unique_ptr<ast::Module> parseFile(const SourceManager &sourceManager,
                                       uint32_t fileId, DiagnosticEngine &diags,
                                       bool allowHostCode = false);

class Parser {
public:
  static constexpr unsigned kMaxNesting = 256;
  static constexpr unsigned kMaxExprHeight = 1000;
  static constexpr unsigned kMaxBlockDepth = 100;

  /// Pulls tokens from `lexer` as it goes (so diagnostics of both come out
  /// in source order).
  Parser(Lexer &lexer, const SourceManager &sourceManager, uint32_t fileId,
         DiagnosticEngine &diags);

  std::unique_ptr<ast::Module> parseModule(bool allowHostCode = false);

private:
  using ExprPtr = ast::ExprPtr;
  using StmtPtr = ast::StmtPtr;
  using StmtList = ast::StmtList;

  // Token access.
  /// Token `index` of the file, lexing up to it on demand (EOF repeats).
  const Token &tokenAt(size_t index);
  const Token &tok() { return tokenAt(pos); }
  const Token &peekTok(size_t n = 1) { return tokenAt(pos + n); }
  bool check(TokenKind kind) { return tok().kind == kind; }
  const Token &consume();
  bool accept(TokenKind kind);
  /// Consumes `kind` or reports "expected <what>" and returns false.
  bool expect(TokenKind kind, const char *what);
  bool atLineStart() const;
  Location lastEnd() const { return lastEndLoc; }
  SourceRange rangeFrom(Location begin) const {
    return SourceRange(begin, lastEndLoc);
  }

  // Diagnostics.
  void errorAt(const Token &at, const std::string &message);
  void errorExpected(const char *what);
  static std::string describe(const Token &token);

  // Recovery.
  void synchronize(size_t statementStart);
  /// Parses one top-level statement with diagnostics captured: DSL code
  /// goes to `body` (its warnings replayed); a statement with errors that
  /// is no kernel goes to `hostCode`, a kernel's errors are replayed.
  void parseTopLevelStatement(StmtList &body,
                              std::vector<ast::HostCode> &hostCode);
  void skipBlock();

  // Statements.
  void parseStatement(StmtList &out);
  bool parseSimpleStatements(StmtList &out);
  StmtPtr parseSmallStatement();
  StmtPtr parseExprOrAssignment();
  StmtPtr parseImport();
  StmtPtr parseFromImport();
  bool parseAsName(std::string &asName);
  bool parseDottedName(std::string &name);
  StmtPtr parseFunctionDef();
  bool parseParams(std::vector<ast::Param> &params);
  StmtPtr parseIf();
  StmtPtr parseFor();
  StmtPtr parseWhile();
  bool parseBlock(StmtList &body, const std::string &context);
  bool parseOptionalElse(StmtList &orelse, const char *context);
  bool checkAssignTarget(const ast::Expr &target, const char *context);

  // Expressions (Python precedence, lowest first).
  ExprPtr parseExprList(bool allowStar); // a, b, *c  (tuple if comma)
  ExprPtr parseTargetList();             // for-loop targets
  ExprPtr parseStarOrTest(bool allowStar);
  ExprPtr parseTest();  // x if c else y
  ExprPtr parseOr();    ///< The loosest binary level.
  ExprPtr parseBitOr(); ///< The binary levels below the comparisons.
  /// A left-associative level of ParseExpr.cpp's table, and its operand.
  ExprPtr parseBinaryLevel(unsigned level);
  ExprPtr parseBinaryOperand(unsigned level);
  ExprPtr parseNot();
  ExprPtr parseComparison();
  ExprPtr parseFactor();
  ExprPtr parsePower();
  ExprPtr parsePrimary();
  ExprPtr parseAtom();
  ExprPtr parseLambda(); ///< `lambda a, b=1: body`
  ExprPtr parseParenthesized();
  ExprPtr parseListDisplay();
  ExprPtr parseDictDisplay();
  ExprPtr parseStrings();
  ExprPtr parseCallArgs(ExprPtr callee);
  ExprPtr parseSubscript(ExprPtr base);
  ExprPtr parseSliceItem();

  /// Rejects trees taller than kMaxExprHeight (returns null after an error).
  ExprPtr checkHeight(ExprPtr expr);
  /// Reports an unsupported comprehension if the current token is `for`.
  bool rejectComprehension();

  struct NestingGuard {
    Parser &parser;
    bool ok;
    explicit NestingGuard(Parser &p);
    ~NestingGuard() { --parser.nesting; }
  };

  Lexer &lexer;
  /// Every token read so far; a deque so references stay valid as it grows.
  std::deque<Token> tokens;
  size_t pos = 0;
  const SourceManager &sourceManager;
  uint32_t fileId;
  DiagnosticEngine &diags;
  Location lastEndLoc;
  unsigned nesting = 0;
  unsigned blockDepth = 0;
};

} // namespace dslc

#endif // DSLC_FRONTEND_PARSER_H
