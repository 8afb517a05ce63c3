//===- ParseExpr.cpp - Expressions ----------------------------------------===//
//
// Python's expression grammar, from conditional expressions down to atoms:
// the binary operator levels, comparisons, calls, subscripts and slices,
// displays; comprehensions and other unsupported forms are diagnosed.
//
//===----------------------------------------------------------------------===//

#include "compiler/Frontend/Parser.h"

#include <fmt/format.h>

#include <set>

namespace dslc {

using namespace ast;

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
  if (check(TokenKind::KwLambda))
    return parseLambda();
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
constexpr BinarySpelling kTerm[] = {
    {TokenKind::Star, BinaryOp::Mul},
    {TokenKind::Slash, BinaryOp::Div},
    {TokenKind::DoubleSlash, BinaryOp::FloorDiv},
    {TokenKind::Percent, BinaryOp::Mod},
    {TokenKind::At, BinaryOp::MatMul}};
#define DSLC_LEVEL(ops)                                                        \
  BinaryLevel { ops, sizeof(ops) / sizeof(ops[0]) }
/// Python's binary levels, loosest first. Between `and` and `|` sit the
/// prefix `not` and the chained comparisons (Parser::parseNot); after `*`
/// come the unary operators and `**` (Parser::parseFactor).
constexpr BinaryLevel kBinaryLevels[] = {
    DSLC_LEVEL(kOr),     DSLC_LEVEL(kAnd),    DSLC_LEVEL(kBitOr),
    DSLC_LEVEL(kBitXor), DSLC_LEVEL(kBitAnd), DSLC_LEVEL(kShift),
    DSLC_LEVEL(kArith),  DSLC_LEVEL(kTerm)};
#undef DSLC_LEVEL
constexpr unsigned kNotLevel = 2; ///< `not`/comparisons come before this.
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
    return parseLambda();
  case TokenKind::KwYield:
  case TokenKind::KwAwait:
    errorAt(t, fmt::format("{} expressions are not supported", describe(t)));
    return nullptr;
  default:
    errorExpected("expression");
    return nullptr;
  }
}

ExprPtr Parser::parseLambda() {
  NestingGuard guard(*this);
  if (!guard.ok)
    return nullptr;
  Location begin = tok().range.begin;
  consume(); // lambda
  std::vector<LambdaExpr::Param> params;
  std::set<std::string> seen;
  while (!check(TokenKind::Colon)) {
    if (check(TokenKind::Star) || check(TokenKind::DoubleStar)) {
      errorAt(tok(), "'*' and '**' parameters of a lambda are not supported: "
                     "name each parameter");
      return nullptr;
    }
    if (!check(TokenKind::Identifier)) {
      errorExpected("lambda parameter name or ':'");
      return nullptr;
    }
    const Token &nameTok = consume();
    LambdaExpr::Param p;
    p.name = std::string(nameTok.text);
    p.nameRange = nameTok.range;
    if (!seen.insert(p.name).second) {
      diags.error(nameTok.range,
                  fmt::format("duplicate parameter '{}'", p.name));
      return nullptr;
    }
    if (accept(TokenKind::Equal)) {
      p.defaultValue = parseTest();
      if (!p.defaultValue)
        return nullptr;
    } else if (!params.empty() && params.back().defaultValue) {
      diags.error(p.nameRange, "parameter without a default follows "
                               "parameter with a default");
      return nullptr;
    }
    params.push_back(std::move(p));
    if (!accept(TokenKind::Comma))
      break;
  }
  if (!expect(TokenKind::Colon, "':' after the lambda's parameters"))
    return nullptr;
  ExprPtr body = parseTest();
  if (!body)
    return nullptr;
  return checkHeight(std::make_unique<LambdaExpr>(
      rangeFrom(begin), std::move(params), std::move(body)));
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
