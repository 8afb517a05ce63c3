//===- Parser.cpp - Recursive-descent parser ------------------------------===//

#include "compiler/Frontend/Parser.h"

#include <fmt/format.h>

#include <set>

namespace dslc {

using namespace ast;

std::unique_ptr<Module> parseFile(const SourceManager &sourceManager,
                                  uint32_t fileId, DiagnosticEngine &diags) {
  Lexer lexer(sourceManager, fileId, diags);
  Parser parser(lexer, sourceManager, fileId, diags);
  return parser.parseModule();
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

//===----------------------------------------------------------------------===//
// Module and statements
//===----------------------------------------------------------------------===//

static std::optional<std::string> takeDocstring(StmtList &body) {
  if (body.empty())
    return std::nullopt;
  auto *exprStmt = dyn_cast<ExprStmt>(body.front().get());
  if (!exprStmt)
    return std::nullopt;
  auto *str = dyn_cast<StringLiteralExpr>(&exprStmt->getExpr());
  if (!str || str->isBytes() || str->isFormat())
    return std::nullopt;
  std::string doc = str->getValue();
  body.erase(body.begin());
  return doc;
}

std::unique_ptr<Module> Parser::parseModule() {
  StmtList body;
  while (!check(TokenKind::EndOfFile) && !diags.limitReached()) {
    if (check(TokenKind::Dedent) || check(TokenKind::Newline)) {
      consume();
      continue;
    }
    parseStatement(body);
  }
  std::optional<std::string> doc = takeDocstring(body);
  return std::make_unique<Module>(sourceManager.getFileName(fileId), fileId,
                                  std::move(doc), std::move(body));
}

void Parser::parseStatement(StmtList &out) {
  size_t start = pos;
  StmtPtr stmt;
  bool ok = true;
  switch (tok().kind) {
  case TokenKind::Indent:
    errorAt(tok(), "unexpected indent");
    skipBlock();
    return;
  case TokenKind::At:
  case TokenKind::KwDef:
    stmt = parseFunctionDef();
    ok = stmt != nullptr;
    break;
  case TokenKind::KwIf:
    stmt = parseIf();
    ok = stmt != nullptr;
    break;
  case TokenKind::KwFor:
    stmt = parseFor();
    ok = stmt != nullptr;
    break;
  case TokenKind::KwWhile:
    stmt = parseWhile();
    ok = stmt != nullptr;
    break;
  case TokenKind::KwClass:
  case TokenKind::KwTry:
  case TokenKind::KwWith:
  case TokenKind::KwAsync:
    errorAt(tok(),
            fmt::format("{} statements are not supported", describe(tok())));
    ok = false;
    break;
  case TokenKind::KwElif:
  case TokenKind::KwElse:
  case TokenKind::KwExcept:
  case TokenKind::KwFinally:
    errorAt(tok(), fmt::format("unexpected {}", describe(tok())));
    ok = false;
    break;
  default:
    ok = parseSimpleStatements(out);
    break;
  }
  if (stmt)
    out.push_back(std::move(stmt));
  if (!ok)
    synchronize(start);
}

bool Parser::parseSimpleStatements(StmtList &out) {
  for (;;) {
    StmtPtr stmt = parseSmallStatement();
    if (!stmt)
      return false;
    out.push_back(std::move(stmt));
    if (!accept(TokenKind::Semi))
      break;
    if (check(TokenKind::Newline) || check(TokenKind::EndOfFile))
      break;
  }
  if (check(TokenKind::EndOfFile))
    return true;
  return expect(TokenKind::Newline, "end of line");
}

StmtPtr Parser::parseSmallStatement() {
  const Token &first = tok();
  Location begin = first.range.begin;
  switch (first.kind) {
  case TokenKind::KwPass:
    consume();
    return std::make_unique<PassStmt>(rangeFrom(begin));
  case TokenKind::KwBreak:
    consume();
    return std::make_unique<BreakStmt>(rangeFrom(begin));
  case TokenKind::KwContinue:
    consume();
    return std::make_unique<ContinueStmt>(rangeFrom(begin));
  case TokenKind::KwReturn: {
    consume();
    ExprPtr value;
    if (!check(TokenKind::Newline) && !check(TokenKind::Semi) &&
        !check(TokenKind::EndOfFile)) {
      value = parseExprList(/*allowStar=*/true);
      if (!value)
        return nullptr;
    }
    return std::make_unique<ReturnStmt>(rangeFrom(begin), std::move(value));
  }
  case TokenKind::KwAssert: {
    consume();
    ExprPtr test = parseTest();
    if (!test)
      return nullptr;
    ExprPtr message;
    if (accept(TokenKind::Comma)) {
      message = parseTest();
      if (!message)
        return nullptr;
    }
    return std::make_unique<AssertStmt>(rangeFrom(begin), std::move(test),
                                        std::move(message));
  }
  case TokenKind::KwImport:
    return parseImport();
  case TokenKind::KwFrom:
    return parseFromImport();
  case TokenKind::KwDel:
  case TokenKind::KwGlobal:
  case TokenKind::KwNonlocal:
  case TokenKind::KwRaise:
  case TokenKind::KwYield:
    errorAt(first,
            fmt::format("{} statements are not supported", describe(first)));
    return nullptr;
  default:
    return parseExprOrAssignment();
  }
}

bool Parser::checkAssignTarget(const Expr &target, const char *context) {
  switch (target.getKind()) {
  case Expr::Kind::Name:
  case Expr::Kind::Attribute:
  case Expr::Kind::Subscript:
    return true;
  case Expr::Kind::Tuple:
    for (const ExprPtr &e : cast<TupleExpr>(target).getElements())
      if (!checkAssignTarget(*e, context))
        return false;
    return true;
  case Expr::Kind::List:
    for (const ExprPtr &e : cast<ListExpr>(target).getElements())
      if (!checkAssignTarget(*e, context))
        return false;
    return true;
  case Expr::Kind::Starred:
    return checkAssignTarget(cast<StarredExpr>(target).getValue(), context);
  default:
    break;
  }
  const char *what = "expression";
  switch (target.getKind()) {
  case Expr::Kind::Call:
    what = "function call";
    break;
  case Expr::Kind::IntLiteral:
  case Expr::Kind::FloatLiteral:
  case Expr::Kind::StringLiteral:
  case Expr::Kind::BoolLiteral:
  case Expr::Kind::NoneLiteral:
  case Expr::Kind::EllipsisLiteral:
    what = "literal";
    break;
  default:
    break;
  }
  diags.error(target.getRange(), fmt::format("cannot {} {}", context, what));
  return false;
}

static std::optional<BinaryOp> augAssignOp(TokenKind kind) {
  switch (kind) {
  case TokenKind::PlusEqual:
    return BinaryOp::Add;
  case TokenKind::MinusEqual:
    return BinaryOp::Sub;
  case TokenKind::StarEqual:
    return BinaryOp::Mul;
  case TokenKind::SlashEqual:
    return BinaryOp::Div;
  case TokenKind::DoubleSlashEqual:
    return BinaryOp::FloorDiv;
  case TokenKind::PercentEqual:
    return BinaryOp::Mod;
  case TokenKind::AtEqual:
    return BinaryOp::MatMul;
  case TokenKind::AmpEqual:
    return BinaryOp::BitAnd;
  case TokenKind::PipeEqual:
    return BinaryOp::BitOr;
  case TokenKind::CaretEqual:
    return BinaryOp::BitXor;
  case TokenKind::LShiftEqual:
    return BinaryOp::LShift;
  case TokenKind::RShiftEqual:
    return BinaryOp::RShift;
  case TokenKind::DoubleStarEqual:
    return BinaryOp::Pow;
  default:
    return std::nullopt;
  }
}

StmtPtr Parser::parseExprOrAssignment() {
  Location begin = tok().range.begin;
  ExprPtr first = parseExprList(/*allowStar=*/true);
  if (!first)
    return nullptr;

  // Annotated assignment: `x: T [= v]`.
  if (check(TokenKind::Colon)) {
    consume();
    if (!isa<NameExpr>(*first) && !isa<AttributeExpr>(*first) &&
        !isa<SubscriptExpr>(*first)) {
      diags.error(first->getRange(),
                  "only a name, attribute or subscript can be annotated");
      return nullptr;
    }
    ExprPtr annotation = parseTest();
    if (!annotation)
      return nullptr;
    ExprPtr value;
    if (accept(TokenKind::Equal)) {
      value = parseExprList(/*allowStar=*/true);
      if (!value)
        return nullptr;
    }
    return std::make_unique<AnnAssignStmt>(rangeFrom(begin), std::move(first),
                                           std::move(annotation),
                                           std::move(value));
  }

  // Augmented assignment: `x += v`.
  if (std::optional<BinaryOp> op = augAssignOp(tok().kind)) {
    consume();
    if (!isa<NameExpr>(*first) && !isa<AttributeExpr>(*first) &&
        !isa<SubscriptExpr>(*first)) {
      diags.error(first->getRange(),
                  fmt::format("'{}=' needs a name, attribute or subscript on "
                              "its left",
                              getBinaryOpSpelling(*op)));
      return nullptr;
    }
    ExprPtr value = parseExprList(/*allowStar=*/false);
    if (!value)
      return nullptr;
    return std::make_unique<AugAssignStmt>(rangeFrom(begin), std::move(first),
                                           *op, std::move(value));
  }

  // (Chained) assignment: `a = b = v`.
  if (check(TokenKind::Equal)) {
    ExprList exprs;
    exprs.push_back(std::move(first));
    while (accept(TokenKind::Equal)) {
      ExprPtr next = parseExprList(/*allowStar=*/true);
      if (!next)
        return nullptr;
      exprs.push_back(std::move(next));
    }
    ExprPtr value = std::move(exprs.back());
    exprs.pop_back();
    for (const ExprPtr &target : exprs)
      if (!checkAssignTarget(*target, "assign to"))
        return nullptr;
    return std::make_unique<AssignStmt>(rangeFrom(begin), std::move(exprs),
                                        std::move(value));
  }

  if (check(TokenKind::Walrus)) {
    errorAt(tok(), "assignment expressions (':=') are not supported");
    return nullptr;
  }
  return std::make_unique<ExprStmt>(rangeFrom(begin), std::move(first));
}

bool Parser::parseDottedName(std::string &name) {
  if (!check(TokenKind::Identifier)) {
    errorExpected("module name");
    return false;
  }
  name = std::string(consume().text);
  while (accept(TokenKind::Dot)) {
    if (!check(TokenKind::Identifier)) {
      errorExpected("name after '.'");
      return false;
    }
    name += ".";
    name += consume().text;
  }
  return true;
}

StmtPtr Parser::parseImport() {
  Location begin = tok().range.begin;
  consume(); // import
  std::vector<ImportAlias> names;
  do {
    ImportAlias alias;
    Location aliasBegin = tok().range.begin;
    if (!parseDottedName(alias.name))
      return nullptr;
    if (!parseAsName(alias.asName))
      return nullptr;
    alias.range = rangeFrom(aliasBegin);
    names.push_back(std::move(alias));
  } while (accept(TokenKind::Comma));
  return std::make_unique<ImportStmt>(rangeFrom(begin), std::move(names));
}

/// An optional `as NAME` after an imported name; false after an error.
bool Parser::parseAsName(std::string &asName) {
  if (!accept(TokenKind::KwAs))
    return true;
  if (!check(TokenKind::Identifier)) {
    errorExpected("name after 'as'");
    return false;
  }
  asName = std::string(consume().text);
  return true;
}

StmtPtr Parser::parseFromImport() {
  Location begin = tok().range.begin;
  consume(); // from
  unsigned level = 0;
  for (;;) {
    if (accept(TokenKind::Dot))
      ++level;
    else if (accept(TokenKind::Ellipsis))
      level += 3;
    else
      break;
  }
  std::string module;
  if (level == 0 || check(TokenKind::Identifier))
    if (!parseDottedName(module))
      return nullptr;
  if (!expect(TokenKind::KwImport, "'import'"))
    return nullptr;
  std::vector<ImportAlias> names;
  if (check(TokenKind::Star)) {
    consume();
    return std::make_unique<ImportFromStmt>(rangeFrom(begin), module, level,
                                            std::move(names), true);
  }
  bool paren = accept(TokenKind::LParen);
  do {
    if (paren && check(TokenKind::RParen))
      break;
    ImportAlias alias;
    Location aliasBegin = tok().range.begin;
    if (!check(TokenKind::Identifier)) {
      errorExpected("name to import");
      return nullptr;
    }
    alias.name = std::string(consume().text);
    if (!parseAsName(alias.asName))
      return nullptr;
    alias.range = rangeFrom(aliasBegin);
    names.push_back(std::move(alias));
  } while (accept(TokenKind::Comma));
  if (paren && !expect(TokenKind::RParen, "')'"))
    return nullptr;
  if (names.empty()) {
    errorExpected("name to import");
    return nullptr;
  }
  return std::make_unique<ImportFromStmt>(rangeFrom(begin), module, level,
                                          std::move(names), false);
}

StmtPtr Parser::parseFunctionDef() {
  Location begin = tok().range.begin;
  std::vector<Decorator> decorators;
  while (check(TokenKind::At)) {
    Location decoBegin = tok().range.begin;
    consume();
    ExprPtr expr = parseTest();
    if (!expr)
      return nullptr;
    Decorator d;
    d.range = rangeFrom(decoBegin);
    d.expr = std::move(expr);
    decorators.push_back(std::move(d));
    if (!expect(TokenKind::Newline, "end of line after decorator"))
      return nullptr;
  }
  if (check(TokenKind::KwClass) || check(TokenKind::KwAsync)) {
    errorAt(tok(),
            fmt::format("{} definitions are not supported", describe(tok())));
    return nullptr;
  }
  if (!expect(TokenKind::KwDef, "'def' after decorator"))
    return nullptr;
  uint32_t defLine = tokens[pos - 1].range.begin.line;
  if (!check(TokenKind::Identifier)) {
    errorExpected("function name");
    return nullptr;
  }
  const Token &nameTok = consume();
  std::string name(nameTok.text);
  SourceRange nameRange = nameTok.range;
  if (!expect(TokenKind::LParen, "'('"))
    return nullptr;
  std::vector<Param> params;
  if (!parseParams(params))
    return nullptr;
  ExprPtr returns;
  if (accept(TokenKind::Arrow)) {
    returns = parseTest();
    if (!returns)
      return nullptr;
  }
  if (!expect(TokenKind::Colon, "':'"))
    return nullptr;
  StmtList body;
  if (!parseBlock(body, fmt::format("function definition on line {}", defLine)))
    return nullptr;
  std::optional<std::string> doc = takeDocstring(body);
  return std::make_unique<FunctionDef>(
      rangeFrom(begin), std::move(name), nameRange, std::move(decorators),
      std::move(params), std::move(returns), std::move(doc), std::move(body));
}

bool Parser::parseParams(std::vector<Param> &params) {
  bool keywordOnly = false, sawSlash = false, sawKwArgs = false,
       sawDefault = false;
  std::set<std::string> seen;
  while (!check(TokenKind::RParen)) {
    Location pbegin = tok().range.begin;
    if (sawKwArgs) {
      errorAt(tok(), "no parameter may follow '**' parameter");
      return false;
    }
    if (check(TokenKind::Slash)) {
      if (sawSlash || keywordOnly || params.empty()) {
        errorAt(tok(), "'/' must follow the positional parameters once");
        return false;
      }
      consume();
      sawSlash = true;
      for (Param &p : params)
        p.positionalOnly = true;
    } else {
      Param param;
      if (accept(TokenKind::Star)) {
        if (keywordOnly) {
          errorAt(tokens[pos - 1], "'*' may appear only once");
          return false;
        }
        keywordOnly = true;
        if (check(TokenKind::Comma) || check(TokenKind::RParen)) {
          // Bare `*`: the following parameters are keyword-only.
          if (!accept(TokenKind::Comma))
            break;
          continue;
        }
        param.kind = Param::Kind::VarArgs;
      } else if (accept(TokenKind::DoubleStar)) {
        param.kind = Param::Kind::KwArgs;
        sawKwArgs = true;
      }
      if (!check(TokenKind::Identifier)) {
        errorExpected("parameter name");
        return false;
      }
      const Token &nameTok = consume();
      param.name = std::string(nameTok.text);
      param.nameRange = nameTok.range;
      if (!seen.insert(param.name).second) {
        diags.error(nameTok.range,
                    fmt::format("duplicate parameter '{}'", param.name));
        return false;
      }
      if (accept(TokenKind::Colon)) {
        param.annotation = parseTest();
        if (!param.annotation)
          return false;
      }
      if (accept(TokenKind::Equal)) {
        if (param.kind != Param::Kind::Normal) {
          errorAt(tokens[pos - 1],
                  "a '*' or '**' parameter cannot have a default value");
          return false;
        }
        param.defaultValue = parseTest();
        if (!param.defaultValue)
          return false;
        if (!keywordOnly)
          sawDefault = true;
      } else if (param.kind == Param::Kind::Normal && !keywordOnly &&
                 sawDefault) {
        diags.error(param.nameRange,
                    "parameter without a default follows parameter with a "
                    "default");
        return false;
      }
      param.keywordOnly = keywordOnly && param.kind == Param::Kind::Normal;
      if (param.kind == Param::Kind::VarArgs)
        keywordOnly = true;
      param.range = rangeFrom(pbegin);
      params.push_back(std::move(param));
    }
    if (!accept(TokenKind::Comma))
      break;
  }
  return expect(TokenKind::RParen, "')' or parameter");
}

bool Parser::parseBlock(StmtList &body, const std::string &context) {
  if (!check(TokenKind::Newline)) {
    // `if x: return y` -- simple statements on the header's line.
    if (check(TokenKind::EndOfFile)) {
      errorExpected(fmt::format("an indented block after {}", context).c_str());
      return false;
    }
    return parseSimpleStatements(body);
  }
  consume(); // NEWLINE
  if (!check(TokenKind::Indent)) {
    errorExpected(fmt::format("an indented block after {}", context).c_str());
    // Recovery: the following statements parse at the outer level.
    return true;
  }
  if (blockDepth >= kMaxBlockDepth) {
    errorAt(tok(), "too many levels of indentation");
    skipBlock();
    return true;
  }
  consume(); // INDENT
  ++blockDepth;
  while (!check(TokenKind::Dedent) && !check(TokenKind::EndOfFile) &&
         !diags.limitReached())
    parseStatement(body);
  accept(TokenKind::Dedent);
  --blockDepth;
  return true;
}

bool Parser::parseOptionalElse(StmtList &orelse, const char *context) {
  if (!check(TokenKind::KwElse))
    return true;
  uint32_t line = tok().range.begin.line;
  consume();
  if (!expect(TokenKind::Colon, "':'"))
    return false;
  return parseBlock(orelse,
                    fmt::format("'else' of {} on line {}", context, line));
}

StmtPtr Parser::parseIf() {
  struct Clause {
    Location begin;
    ExprPtr cond;
    StmtList body;
  };
  std::vector<Clause> clauses;
  StmtList orelse;
  do {
    Clause clause;
    clause.begin = tok().range.begin;
    bool isElif = check(TokenKind::KwElif);
    uint32_t line = tok().range.begin.line;
    consume(); // if / elif
    clause.cond = parseTest();
    if (!clause.cond)
      return nullptr;
    if (!expect(TokenKind::Colon, "':'"))
      return nullptr;
    if (!parseBlock(clause.body, fmt::format("'{}' statement on line {}",
                                             isElif ? "elif" : "if", line)))
      return nullptr;
    clauses.push_back(std::move(clause));
  } while (check(TokenKind::KwElif));
  if (!parseOptionalElse(orelse, "'if' statement"))
    return nullptr;
  Location end = lastEnd();
  StmtPtr result;
  for (size_t i = clauses.size(); i-- > 0;) {
    StmtList elseBody;
    if (result)
      elseBody.push_back(std::move(result));
    else
      elseBody = std::move(orelse);
    result = std::make_unique<IfStmt>(
        SourceRange(clauses[i].begin, end), std::move(clauses[i].cond),
        std::move(clauses[i].body), std::move(elseBody), i != 0);
  }
  return result;
}

StmtPtr Parser::parseFor() {
  Location begin = tok().range.begin;
  uint32_t line = begin.line;
  consume(); // for
  ExprPtr target = parseTargetList();
  if (!target)
    return nullptr;
  if (!checkAssignTarget(*target, "use as a loop target a"))
    return nullptr;
  if (!expect(TokenKind::KwIn, "'in'"))
    return nullptr;
  ExprPtr iter = parseExprList(/*allowStar=*/true);
  if (!iter)
    return nullptr;
  if (!expect(TokenKind::Colon, "':'"))
    return nullptr;
  StmtList body, orelse;
  if (!parseBlock(body, fmt::format("'for' statement on line {}", line)))
    return nullptr;
  if (!parseOptionalElse(orelse, "'for' statement"))
    return nullptr;
  return std::make_unique<ForStmt>(rangeFrom(begin), std::move(target),
                                   std::move(iter), std::move(body),
                                   std::move(orelse));
}

StmtPtr Parser::parseWhile() {
  Location begin = tok().range.begin;
  uint32_t line = begin.line;
  consume(); // while
  ExprPtr cond = parseTest();
  if (!cond)
    return nullptr;
  if (!expect(TokenKind::Colon, "':'"))
    return nullptr;
  StmtList body, orelse;
  if (!parseBlock(body, fmt::format("'while' statement on line {}", line)))
    return nullptr;
  if (!parseOptionalElse(orelse, "'while' statement"))
    return nullptr;
  return std::make_unique<WhileStmt>(rangeFrom(begin), std::move(cond),
                                     std::move(body), std::move(orelse));
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

ExprPtr Parser::checkHeight(ExprPtr expr) {
  if (expr && expr->getHeight() > kMaxExprHeight) {
    diags.error(SourceRange(expr->getRange().begin),
                "expression nested too deeply");
    return nullptr;
  }
  return expr;
}

bool Parser::rejectComprehension() {
  if (!check(TokenKind::KwFor) && !check(TokenKind::KwAsync))
    return false;
  errorAt(tok(), "comprehensions are not supported");
  return true;
}

/// Tokens that can start an expression (used to decide whether a trailing
/// comma ends a tuple).
static bool startsExpression(TokenKind k) {
  switch (k) {
  case TokenKind::Identifier:
  case TokenKind::Integer:
  case TokenKind::Float:
  case TokenKind::String:
  case TokenKind::KwNone:
  case TokenKind::KwTrue:
  case TokenKind::KwFalse:
  case TokenKind::KwNot:
  case TokenKind::KwLambda:
  case TokenKind::KwAwait:
  case TokenKind::KwYield:
  case TokenKind::LParen:
  case TokenKind::LBracket:
  case TokenKind::LBrace:
  case TokenKind::Minus:
  case TokenKind::Plus:
  case TokenKind::Tilde:
  case TokenKind::Star:
  case TokenKind::Ellipsis:
    return true;
  default:
    return false;
  }
}

ExprPtr Parser::parseExprList(bool allowStar) {
  Location begin = tok().range.begin;
  ExprPtr first = parseStarOrTest(allowStar);
  if (!first || !check(TokenKind::Comma))
    return first;
  ExprList elements;
  elements.push_back(std::move(first));
  while (accept(TokenKind::Comma)) {
    if (!startsExpression(tok().kind))
      break;
    ExprPtr e = parseStarOrTest(allowStar);
    if (!e)
      return nullptr;
    elements.push_back(std::move(e));
  }
  return checkHeight(std::make_unique<TupleExpr>(rangeFrom(begin),
                                                 std::move(elements), false));
}

ExprPtr Parser::parseTargetList() {
  Location begin = tok().range.begin;
  ExprList elements;
  bool comma = false;
  do {
    if (!elements.empty() && !startsExpression(tok().kind))
      break;
    ExprPtr e;
    if (check(TokenKind::Star)) {
      Location sb = tok().range.begin;
      consume();
      ExprPtr inner = parseBitOr();
      if (!inner)
        return nullptr;
      e = std::make_unique<StarredExpr>(rangeFrom(sb), std::move(inner));
    } else {
      e = parseBitOr();
    }
    if (!e)
      return nullptr;
    elements.push_back(std::move(e));
    comma = check(TokenKind::Comma);
  } while (accept(TokenKind::Comma));
  if (elements.size() == 1 && !comma)
    return std::move(elements.front());
  return checkHeight(std::make_unique<TupleExpr>(rangeFrom(begin),
                                                 std::move(elements), false));
}

ExprPtr Parser::parseStarOrTest(bool allowStar) {
  if (!check(TokenKind::Star))
    return parseTest();
  if (!allowStar) {
    errorAt(tok(), "starred expression is not allowed here");
    return nullptr;
  }
  Location begin = tok().range.begin;
  consume();
  ExprPtr value = parseBitOr();
  if (!value)
    return nullptr;
  return checkHeight(
      std::make_unique<StarredExpr>(rangeFrom(begin), std::move(value)));
}

ExprPtr Parser::parseTest() {
  if (check(TokenKind::KwLambda)) {
    errorAt(tok(), "lambda expressions are not supported");
    return nullptr;
  }
  if (check(TokenKind::KwYield) || check(TokenKind::KwAwait)) {
    errorAt(tok(),
            fmt::format("{} expressions are not supported", describe(tok())));
    return nullptr;
  }
  Location begin = tok().range.begin;
  ExprPtr value = parseOr();
  if (!value || !check(TokenKind::KwIf))
    return value;
  consume(); // if
  ExprPtr cond = parseOr();
  if (!cond)
    return nullptr;
  if (!expect(TokenKind::KwElse, "'else' in conditional expression"))
    return nullptr;
  NestingGuard guard(*this);
  if (!guard.ok)
    return nullptr;
  ExprPtr otherwise = parseTest();
  if (!otherwise)
    return nullptr;
  return checkHeight(
      std::make_unique<IfElseExpr>(rangeFrom(begin), std::move(value),
                                   std::move(cond), std::move(otherwise)));
}

namespace {
/// A binary operator's token and node.
struct BinarySpelling {
  TokenKind token;
  BinaryOp op;
};
/// One left-associative precedence level: its operators.
struct BinaryLevel {
  const BinarySpelling *ops;
  size_t count;
};
constexpr BinarySpelling kOr[] = {{TokenKind::KwOr, BinaryOp::Or}};
constexpr BinarySpelling kAnd[] = {{TokenKind::KwAnd, BinaryOp::And}};
constexpr BinarySpelling kBitOr[] = {{TokenKind::Pipe, BinaryOp::BitOr}};
constexpr BinarySpelling kBitXor[] = {{TokenKind::Caret, BinaryOp::BitXor}};
constexpr BinarySpelling kBitAnd[] = {{TokenKind::Amp, BinaryOp::BitAnd}};
constexpr BinarySpelling kShift[] = {{TokenKind::LShift, BinaryOp::LShift},
                                     {TokenKind::RShift, BinaryOp::RShift}};
constexpr BinarySpelling kArith[] = {{TokenKind::Plus, BinaryOp::Add},
                                     {TokenKind::Minus, BinaryOp::Sub}};
constexpr BinarySpelling kTerm[] = {{TokenKind::Star, BinaryOp::Mul},
                                    {TokenKind::Slash, BinaryOp::Div},
                                    {TokenKind::DoubleSlash, BinaryOp::FloorDiv},
                                    {TokenKind::Percent, BinaryOp::Mod},
                                    {TokenKind::At, BinaryOp::MatMul}};
#define DSLC_LEVEL(ops) BinaryLevel{ops, sizeof(ops) / sizeof(ops[0])}
/// Python's binary levels, loosest first. Between `and` and `|` sit the
/// prefix `not` and the chained comparisons (Parser::parseNot); after `*`
/// come the unary operators and `**` (Parser::parseFactor).
constexpr BinaryLevel kBinaryLevels[] = {
    DSLC_LEVEL(kOr),     DSLC_LEVEL(kAnd),   DSLC_LEVEL(kBitOr),
    DSLC_LEVEL(kBitXor), DSLC_LEVEL(kBitAnd), DSLC_LEVEL(kShift),
    DSLC_LEVEL(kArith),  DSLC_LEVEL(kTerm)};
#undef DSLC_LEVEL
constexpr unsigned kNotLevel = 2;    ///< `not`/comparisons come before this.
constexpr unsigned kNumBinaryLevels =
    sizeof(kBinaryLevels) / sizeof(kBinaryLevels[0]);
} // namespace

ExprPtr Parser::parseOr() { return parseBinaryLevel(0); }

ExprPtr Parser::parseBitOr() { return parseBinaryLevel(kNotLevel); }

/// The operand of level `level`: the next level, `not`/comparisons between
/// `and` and `|`, the unary operators after the last level.
ExprPtr Parser::parseBinaryOperand(unsigned level) {
  if (level == kNotLevel)
    return parseNot();
  if (level == kNumBinaryLevels)
    return parseFactor();
  return parseBinaryLevel(level);
}

ExprPtr Parser::parseBinaryLevel(unsigned level) {
  const BinaryLevel &ops = kBinaryLevels[level];
  Location begin = tok().range.begin;
  ExprPtr lhs = parseBinaryOperand(level + 1);
  while (lhs) {
    const BinarySpelling *spelling = nullptr;
    for (size_t i = 0; i < ops.count && !spelling; ++i)
      if (tok().kind == ops.ops[i].token)
        spelling = &ops.ops[i];
    if (!spelling)
      return lhs;
    consume();
    ExprPtr rhs = parseBinaryOperand(level + 1);
    if (!rhs)
      return nullptr;
    lhs = checkHeight(std::make_unique<BinaryExpr>(
        rangeFrom(begin), spelling->op, std::move(lhs), std::move(rhs)));
  }
  return lhs;
}

ExprPtr Parser::parseNot() {
  if (!check(TokenKind::KwNot))
    return parseComparison();
  NestingGuard guard(*this);
  if (!guard.ok)
    return nullptr;
  Location begin = tok().range.begin;
  consume();
  ExprPtr operand = parseNot();
  if (!operand)
    return nullptr;
  return checkHeight(std::make_unique<UnaryExpr>(rangeFrom(begin), UnaryOp::Not,
                                                 std::move(operand)));
}

ExprPtr Parser::parseComparison() {
  Location begin = tok().range.begin;
  ExprPtr first = parseBitOr();
  if (!first)
    return nullptr;
  ExprList operands;
  std::vector<CompareOp> ops;
  operands.push_back(std::move(first));
  for (;;) {
    CompareOp op;
    switch (tok().kind) {
    case TokenKind::Less:
      op = CompareOp::Lt;
      break;
    case TokenKind::Greater:
      op = CompareOp::Gt;
      break;
    case TokenKind::LessEqual:
      op = CompareOp::LtE;
      break;
    case TokenKind::GreaterEqual:
      op = CompareOp::GtE;
      break;
    case TokenKind::EqualEqual:
      op = CompareOp::Eq;
      break;
    case TokenKind::NotEqual:
      op = CompareOp::NotEq;
      break;
    case TokenKind::KwIn:
      op = CompareOp::In;
      break;
    case TokenKind::KwIs:
      op = peekTok().is(TokenKind::KwNot) ? CompareOp::IsNot : CompareOp::Is;
      break;
    case TokenKind::KwNot:
      if (!peekTok().is(TokenKind::KwIn))
        goto done;
      op = CompareOp::NotIn;
      break;
    default:
      goto done;
    }
    consume();
    if (op == CompareOp::IsNot || op == CompareOp::NotIn)
      consume();
    {
      ExprPtr rhs = parseBitOr();
      if (!rhs)
        return nullptr;
      operands.push_back(std::move(rhs));
      ops.push_back(op);
    }
    if (operands.size() > kMaxExprHeight) {
      diags.error(SourceRange(begin), "expression nested too deeply");
      return nullptr;
    }
  }
done:
  if (ops.empty())
    return std::move(operands.front());
  return checkHeight(std::make_unique<CompareExpr>(
      rangeFrom(begin), std::move(operands), std::move(ops)));
}

ExprPtr Parser::parseFactor() {
  UnaryOp op;
  switch (tok().kind) {
  case TokenKind::Minus:
    op = UnaryOp::Neg;
    break;
  case TokenKind::Plus:
    op = UnaryOp::Pos;
    break;
  case TokenKind::Tilde:
    op = UnaryOp::Invert;
    break;
  default:
    return parsePower();
  }
  NestingGuard guard(*this);
  if (!guard.ok)
    return nullptr;
  Location begin = tok().range.begin;
  consume();
  ExprPtr operand = parseFactor();
  if (!operand)
    return nullptr;
  return checkHeight(
      std::make_unique<UnaryExpr>(rangeFrom(begin), op, std::move(operand)));
}

ExprPtr Parser::parsePower() {
  Location begin = tok().range.begin;
  ExprPtr base = parsePrimary();
  if (!base || !check(TokenKind::DoubleStar))
    return base;
  NestingGuard guard(*this);
  if (!guard.ok)
    return nullptr;
  consume();
  ExprPtr exponent = parseFactor(); // Right-associative; binds -x tighter.
  if (!exponent)
    return nullptr;
  return checkHeight(std::make_unique<BinaryExpr>(
      rangeFrom(begin), BinaryOp::Pow, std::move(base), std::move(exponent)));
}

ExprPtr Parser::parsePrimary() {
  Location begin = tok().range.begin;
  ExprPtr expr = parseAtom();
  while (expr) {
    if (check(TokenKind::LParen)) {
      expr = parseCallArgs(std::move(expr));
    } else if (check(TokenKind::LBracket)) {
      expr = parseSubscript(std::move(expr));
    } else if (check(TokenKind::Dot)) {
      consume();
      if (!check(TokenKind::Identifier)) {
        errorExpected("attribute name after '.'");
        return nullptr;
      }
      const Token &name = consume();
      expr = checkHeight(
          std::make_unique<AttributeExpr>(rangeFrom(begin), std::move(expr),
                                          std::string(name.text), name.range));
    } else {
      break;
    }
  }
  return expr;
}

ExprPtr Parser::parseCallArgs(ExprPtr callee) {
  NestingGuard guard(*this);
  if (!guard.ok)
    return nullptr;
  Location begin = callee->getRange().begin;
  consume(); // (
  std::vector<Argument> args;
  bool sawKeyword = false;
  while (!check(TokenKind::RParen)) {
    Argument arg;
    Location argBegin = tok().range.begin;
    if (accept(TokenKind::Star)) {
      arg.kind = Argument::Kind::Star;
      arg.value = parseTest();
    } else if (accept(TokenKind::DoubleStar)) {
      arg.kind = Argument::Kind::DoubleStar;
      arg.value = parseTest();
      sawKeyword = true;
    } else if (check(TokenKind::Identifier) && peekTok().is(TokenKind::Equal)) {
      arg.kind = Argument::Kind::Keyword;
      arg.name = std::string(consume().text);
      consume(); // =
      for (const Argument &prev : args)
        if (prev.kind == Argument::Kind::Keyword && prev.name == arg.name) {
          errorAt(tokens[pos - 2],
                  fmt::format("keyword argument '{}' repeated", arg.name));
          return nullptr;
        }
      arg.value = parseTest();
      sawKeyword = true;
    } else {
      if (sawKeyword) {
        errorAt(tok(), "positional argument follows keyword argument");
        return nullptr;
      }
      arg.value = parseTest();
      if (arg.value && rejectComprehension())
        return nullptr;
    }
    if (!arg.value)
      return nullptr;
    arg.range = rangeFrom(argBegin);
    args.push_back(std::move(arg));
    if (!accept(TokenKind::Comma))
      break;
  }
  if (!expect(TokenKind::RParen, "',' or ')' in call"))
    return nullptr;
  return checkHeight(std::make_unique<CallExpr>(
      rangeFrom(begin), std::move(callee), std::move(args)));
}

ExprPtr Parser::parseSliceItem() {
  Location begin = tok().range.begin;
  ExprPtr lower;
  if (!check(TokenKind::Colon)) {
    lower = parseTest();
    if (!lower || !check(TokenKind::Colon))
      return lower;
  }
  consume(); // :
  ExprPtr upper, step;
  auto endsPart = [&] {
    return check(TokenKind::Colon) || check(TokenKind::Comma) ||
           check(TokenKind::RBracket);
  };
  if (!endsPart()) {
    upper = parseTest();
    if (!upper)
      return nullptr;
  }
  if (accept(TokenKind::Colon) && !endsPart()) {
    step = parseTest();
    if (!step)
      return nullptr;
  }
  return checkHeight(std::make_unique<SliceExpr>(
      rangeFrom(begin), std::move(lower), std::move(upper), std::move(step)));
}

ExprPtr Parser::parseSubscript(ExprPtr base) {
  NestingGuard guard(*this);
  if (!guard.ok)
    return nullptr;
  Location begin = base->getRange().begin;
  consume(); // [
  Location indexBegin = tok().range.begin;
  ExprList items;
  bool trailingComma = false;
  do {
    if (!items.empty() && check(TokenKind::RBracket)) {
      trailingComma = true;
      break;
    }
    ExprPtr item = parseSliceItem();
    if (!item)
      return nullptr;
    items.push_back(std::move(item));
  } while (accept(TokenKind::Comma));
  if (items.empty()) {
    errorExpected("index");
    return nullptr;
  }
  ExprPtr index;
  if (items.size() == 1 && !trailingComma) {
    index = std::move(items.front());
  } else {
    index = std::make_unique<TupleExpr>(rangeFrom(indexBegin), std::move(items),
                                        false);
  }
  if (!expect(TokenKind::RBracket, "',' or ']' in subscript"))
    return nullptr;
  return checkHeight(std::make_unique<SubscriptExpr>(
      rangeFrom(begin), std::move(base), std::move(index)));
}

ExprPtr Parser::parseStrings() {
  Location begin = tok().range.begin;
  std::string value;
  bool bytes = tok().strIsBytes, format = false;
  while (check(TokenKind::String)) {
    const Token &t = consume();
    if (t.strIsBytes != bytes) {
      diags.error(t.range, "cannot mix bytes and non-bytes literals");
      return nullptr;
    }
    format |= t.strIsFormat;
    value += t.strValue;
  }
  return std::make_unique<StringLiteralExpr>(rangeFrom(begin), std::move(value),
                                             bytes, format);
}

ExprPtr Parser::parseAtom() {
  const Token &t = tok();
  SourceRange range = t.range;
  switch (t.kind) {
  case TokenKind::Identifier:
    consume();
    return std::make_unique<NameExpr>(range, std::string(t.text));
  case TokenKind::Integer:
    consume();
    return std::make_unique<IntLiteralExpr>(range, t.intValue);
  case TokenKind::Float:
    consume();
    return std::make_unique<FloatLiteralExpr>(range, t.floatValue);
  case TokenKind::String:
    return parseStrings();
  case TokenKind::KwTrue:
  case TokenKind::KwFalse:
    consume();
    return std::make_unique<BoolLiteralExpr>(range,
                                             t.kind == TokenKind::KwTrue);
  case TokenKind::KwNone:
    consume();
    return std::make_unique<NoneLiteralExpr>(range);
  case TokenKind::Ellipsis:
    consume();
    return std::make_unique<EllipsisLiteralExpr>(range);
  case TokenKind::LParen:
    return parseParenthesized();
  case TokenKind::LBracket:
    return parseListDisplay();
  case TokenKind::LBrace:
    return parseDictDisplay();
  case TokenKind::KwLambda:
  case TokenKind::KwYield:
  case TokenKind::KwAwait:
    errorAt(t, fmt::format("{} expressions are not supported", describe(t)));
    return nullptr;
  default:
    errorExpected("expression");
    return nullptr;
  }
}

ExprPtr Parser::parseParenthesized() {
  NestingGuard guard(*this);
  if (!guard.ok)
    return nullptr;
  Location begin = tok().range.begin;
  consume(); // (
  if (accept(TokenKind::RParen))
    return std::make_unique<TupleExpr>(rangeFrom(begin), ExprList(), true);
  ExprPtr first = parseStarOrTest(/*allowStar=*/true);
  if (!first)
    return nullptr;
  if (rejectComprehension())
    return nullptr;
  if (check(TokenKind::Walrus)) {
    errorAt(tok(), "assignment expressions (':=') are not supported");
    return nullptr;
  }
  if (accept(TokenKind::RParen))
    return first; // Plain grouping.
  ExprList elements;
  elements.push_back(std::move(first));
  while (accept(TokenKind::Comma)) {
    if (check(TokenKind::RParen))
      break;
    ExprPtr e = parseStarOrTest(/*allowStar=*/true);
    if (!e)
      return nullptr;
    elements.push_back(std::move(e));
  }
  if (!expect(TokenKind::RParen, "',' or ')'"))
    return nullptr;
  return checkHeight(
      std::make_unique<TupleExpr>(rangeFrom(begin), std::move(elements), true));
}

ExprPtr Parser::parseListDisplay() {
  NestingGuard guard(*this);
  if (!guard.ok)
    return nullptr;
  Location begin = tok().range.begin;
  consume(); // [
  ExprList elements;
  while (!check(TokenKind::RBracket)) {
    ExprPtr e = parseStarOrTest(/*allowStar=*/true);
    if (!e)
      return nullptr;
    if (elements.empty() && rejectComprehension())
      return nullptr;
    elements.push_back(std::move(e));
    if (!accept(TokenKind::Comma))
      break;
  }
  if (!expect(TokenKind::RBracket, "',' or ']'"))
    return nullptr;
  return checkHeight(
      std::make_unique<ListExpr>(rangeFrom(begin), std::move(elements)));
}

ExprPtr Parser::parseDictDisplay() {
  NestingGuard guard(*this);
  if (!guard.ok)
    return nullptr;
  Location begin = tok().range.begin;
  consume(); // {
  ExprList keys, values;
  while (!check(TokenKind::RBrace)) {
    if (accept(TokenKind::DoubleStar)) {
      ExprPtr mapping = parseBitOr();
      if (!mapping)
        return nullptr;
      keys.push_back(nullptr);
      values.push_back(std::move(mapping));
    } else {
      ExprPtr key = parseTest();
      if (!key)
        return nullptr;
      if (!check(TokenKind::Colon)) {
        if (check(TokenKind::Comma) || check(TokenKind::RBrace) ||
            check(TokenKind::KwFor))
          diags.error(SourceRange(begin, tok().range.begin),
                      "set displays and comprehensions are not supported");
        else
          errorExpected("':' in dictionary");
        return nullptr;
      }
      consume();
      ExprPtr value = parseTest();
      if (!value)
        return nullptr;
      if (rejectComprehension())
        return nullptr;
      keys.push_back(std::move(key));
      values.push_back(std::move(value));
    }
    if (!accept(TokenKind::Comma))
      break;
  }
  if (!expect(TokenKind::RBrace, "',' or '}'"))
    return nullptr;
  return checkHeight(std::make_unique<DictExpr>(
      rangeFrom(begin), std::move(keys), std::move(values)));
}

} // namespace dslc
