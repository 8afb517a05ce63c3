//===- ParseStmt.cpp - Statements, blocks and definitions -----------------===//
//
// The module, simple and compound statements, imports, function definitions
// and their parameters, indented blocks.
//
//===----------------------------------------------------------------------===//

#include "compiler/Frontend/Parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace dslc {

using namespace ast;

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

std::unique_ptr<Module> Parser::parseModule(bool allowHostCode) {
  StmtList body;
  std::vector<HostCode> hostCode;
  while (!check(TokenKind::EndOfFile) && !diags.limitReached()) {
    if (check(TokenKind::Dedent) || check(TokenKind::Newline)) {
      consume();
      continue;
    }
    if (allowHostCode)
      parseTopLevelStatement(body, hostCode);
    else
      parseStatement(body);
  }
  std::optional<std::string> doc = takeDocstring(body);
  return std::make_unique<Module>(sourceManager.getFileName(fileId), fileId,
                                  std::move(doc), std::move(body),
                                  std::move(hostCode));
}

void Parser::parseTopLevelStatement(StmtList &body,
                                    std::vector<HostCode> &hostCode) {
  size_t start = pos, before = body.size();
  Location begin = tok().range.begin;
  std::vector<Diagnostic> captured;
  diags.setCapture(&captured);
  parseStatement(body);
  diags.setCapture(nullptr);
  auto isError = [](const Diagnostic &d) {
    return d.severity == Severity::Error;
  };
  bool failed = std::any_of(captured.begin(), captured.end(), isError);
  // A kernel is DSL code whatever it holds: a def decorated with
  // helion.kernel (or the like), parsed or not.
  bool kernel = false;
  std::string name;
  for (size_t i = start; i < pos; ++i) {
    const Token &t = tokens[i];
    if (t.is(TokenKind::KwDef)) {
      if (i + 1 < pos && tokens[i + 1].is(TokenKind::Identifier))
        name = std::string(tokens[i + 1].text);
      break;
    }
    if (!tokens[start].is(TokenKind::At))
      break; // a def starts with '@' or 'def'
    if (i >= start + 2 && t.is(TokenKind::Identifier) &&
        tokens[i - 1].is(TokenKind::Dot) &&
        tokens[i - 2].is(TokenKind::Identifier) &&
        FunctionDef::isKernelDecoratorName(std::string(tokens[i - 2].text) +
                                           "." + std::string(t.text)))
      kernel = true;
  }
  if (!failed || kernel) {
    for (Diagnostic &d : captured)
      diags.report(d.range, d.severity, std::move(d.message));
    return;
  }
  body.erase(body.begin() + before, body.end());
  const Diagnostic &first =
      *std::find_if(captured.begin(), captured.end(), isError);
  hostCode.push_back({rangeFrom(begin), name, first.range, first.message});
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

} // namespace dslc
