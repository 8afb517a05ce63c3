//===- ASTExpr.h - Expressions of a tile program's syntax tree --*- C++ -*-===//
//
// The Expr half of the syntax tree (AST.h describes the tree and includes
// this file): LLVM-style RTTI helpers, the expression nodes and walkExprs.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_FRONTEND_ASTEXPR_H
#define DSLC_FRONTEND_ASTEXPR_H

#include "compiler/Frontend/SourceManager.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace dslc {
namespace ast {

//===----------------------------------------------------------------------===//
// LLVM-style RTTI helpers (work with any class that has a static classof).
//===----------------------------------------------------------------------===//

template <typename To, typename From> bool isa(const From *node) {
  return node && To::classof(node);
}
template <typename To, typename From,
          typename = std::enable_if_t<!std::is_pointer_v<From>>>
bool isa(const From &node) {
  return To::classof(&node);
}
template <typename To, typename From> const To *dyn_cast(const From *node) {
  return isa<To>(node) ? static_cast<const To *>(node) : nullptr;
}
template <typename To, typename From> To *dyn_cast(From *node) {
  return isa<To>(static_cast<const From *>(node)) ? static_cast<To *>(node)
                                                  : nullptr;
}
template <typename To, typename From,
          typename = std::enable_if_t<!std::is_pointer_v<From>>>
const To &cast(const From &node) {
  assert(isa<To>(node) && "ast::cast to the wrong node type");
  return static_cast<const To &>(node);
}
template <typename To, typename From> const To *cast(const From *node) {
  assert(isa<To>(node) && "ast::cast to the wrong node type");
  return static_cast<const To *>(node);
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

// X(Kind, Class)
#define DSLC_EXPR_NODES(X)                                                     \
  X(Name, NameExpr)                                                            \
  X(IntLiteral, IntLiteralExpr)                                                \
  X(FloatLiteral, FloatLiteralExpr)                                            \
  X(StringLiteral, StringLiteralExpr)                                          \
  X(BoolLiteral, BoolLiteralExpr)                                              \
  X(NoneLiteral, NoneLiteralExpr)                                              \
  X(EllipsisLiteral, EllipsisLiteralExpr)                                      \
  X(Unary, UnaryExpr)                                                          \
  X(Binary, BinaryExpr)                                                        \
  X(Compare, CompareExpr)                                                      \
  X(IfElse, IfElseExpr)                                                        \
  X(Call, CallExpr)                                                            \
  X(Attribute, AttributeExpr)                                                  \
  X(Subscript, SubscriptExpr)                                                  \
  X(Slice, SliceExpr)                                                          \
  X(Tuple, TupleExpr)                                                          \
  X(List, ListExpr)                                                            \
  X(Dict, DictExpr)                                                            \
  X(Starred, StarredExpr)                                                      \
  X(Lambda, LambdaExpr)

class Expr;
using ExprPtr = std::unique_ptr<Expr>;
using ExprList = std::vector<ExprPtr>;

class Expr {
public:
  enum class Kind {
#define DSLC_EXPR_KIND(K, C) K,
    DSLC_EXPR_NODES(DSLC_EXPR_KIND)
#undef DSLC_EXPR_KIND
  };

  virtual ~Expr() = default;
  Expr(const Expr &) = delete;
  Expr &operator=(const Expr &) = delete;

  Kind getKind() const { return kind; }
  SourceRange getRange() const { return range; }
  Location getLoc() const { return range.begin; }
  void setRange(SourceRange r) { range = r; }
  /// Height of this subtree (a leaf is 1); the parser bounds it.
  unsigned getHeight() const { return height; }

protected:
  Expr(Kind kind, SourceRange range, unsigned height = 1)
      : kind(kind), range(range), height(height) {}
  static unsigned heightOf(const ExprPtr &e) { return e ? e->height : 0; }
  static unsigned heightOf(const ExprList &list) {
    unsigned h = 0;
    for (const ExprPtr &e : list)
      h = std::max(h, heightOf(e));
    return h;
  }

private:
  Kind kind;
  SourceRange range;
  unsigned height;
};

#define DSLC_EXPR_CLASSOF(K)                                                   \
  static bool classof(const Expr *e) { return e->getKind() == Kind::K; }

/// An identifier: `x`, `hl`, `torch`.
class NameExpr : public Expr {
public:
  NameExpr(SourceRange range, std::string name)
      : Expr(Kind::Name, range), name(std::move(name)) {}
  const std::string &getName() const { return name; }
  DSLC_EXPR_CLASSOF(Name)
private:
  std::string name;
};

/// An integer literal. Values up to 2**64 - 1 are accepted (larger ones are a
/// lexer error); `fitsInt64()` tells whether it is representable as int64.
class IntLiteralExpr : public Expr {
public:
  IntLiteralExpr(SourceRange range, uint64_t value)
      : Expr(Kind::IntLiteral, range), value(value) {}
  uint64_t getValue() const { return value; }
  bool fitsInt64() const { return value <= uint64_t(INT64_MAX); }
  DSLC_EXPR_CLASSOF(IntLiteral)
private:
  uint64_t value;
};

class FloatLiteralExpr : public Expr {
public:
  FloatLiteralExpr(SourceRange range, double value)
      : Expr(Kind::FloatLiteral, range), value(value) {}
  double getValue() const { return value; }
  DSLC_EXPR_CLASSOF(FloatLiteral)
private:
  double value;
};

/// A string literal with escapes decoded (raw strings keep backslashes).
/// f-strings are kept as their literal text; no interpolation happens.
class StringLiteralExpr : public Expr {
public:
  StringLiteralExpr(SourceRange range, std::string value, bool isBytes,
                    bool isFormat)
      : Expr(Kind::StringLiteral, range), value(std::move(value)),
        bytes(isBytes), format(isFormat) {}
  const std::string &getValue() const { return value; }
  bool isBytes() const { return bytes; }
  bool isFormat() const { return format; }
  DSLC_EXPR_CLASSOF(StringLiteral)
private:
  std::string value;
  bool bytes, format;
};

class BoolLiteralExpr : public Expr {
public:
  BoolLiteralExpr(SourceRange range, bool value)
      : Expr(Kind::BoolLiteral, range), value(value) {}
  bool getValue() const { return value; }
  DSLC_EXPR_CLASSOF(BoolLiteral)
private:
  bool value;
};

class NoneLiteralExpr : public Expr {
public:
  explicit NoneLiteralExpr(SourceRange range)
      : Expr(Kind::NoneLiteral, range) {}
  DSLC_EXPR_CLASSOF(NoneLiteral)
};

/// `...`
class EllipsisLiteralExpr : public Expr {
public:
  explicit EllipsisLiteralExpr(SourceRange range)
      : Expr(Kind::EllipsisLiteral, range) {}
  DSLC_EXPR_CLASSOF(EllipsisLiteral)
};

enum class UnaryOp { Neg, Pos, Invert, Not };
const char *getUnaryOpSpelling(UnaryOp op);

/// `-x`, `+x`, `~x`, `not x`.
class UnaryExpr : public Expr {
public:
  UnaryExpr(SourceRange range, UnaryOp op, ExprPtr operand)
      : Expr(Kind::Unary, range, heightOf(operand) + 1), op(op),
        operand(std::move(operand)) {}
  UnaryOp getOp() const { return op; }
  const Expr &getOperand() const { return *operand; }
  DSLC_EXPR_CLASSOF(Unary)
private:
  UnaryOp op;
  ExprPtr operand;
};

enum class BinaryOp {
  Add,
  Sub,
  Mul,
  Div,
  FloorDiv,
  Mod,
  MatMul,
  Pow,
  LShift,
  RShift,
  BitAnd,
  BitOr,
  BitXor,
  And,
  Or, ///< Short-circuiting `and` / `or`.
};
const char *getBinaryOpSpelling(BinaryOp op);

/// `a + b`, `a ** b`, `a and b`, ...
class BinaryExpr : public Expr {
public:
  BinaryExpr(SourceRange range, BinaryOp op, ExprPtr lhs, ExprPtr rhs)
      : Expr(Kind::Binary, range, std::max(heightOf(lhs), heightOf(rhs)) + 1),
        op(op), lhs(std::move(lhs)), rhs(std::move(rhs)) {}
  BinaryOp getOp() const { return op; }
  const Expr &getLHS() const { return *lhs; }
  const Expr &getRHS() const { return *rhs; }
  DSLC_EXPR_CLASSOF(Binary)
private:
  BinaryOp op;
  ExprPtr lhs, rhs;
};

enum class CompareOp { Eq, NotEq, Lt, LtE, Gt, GtE, Is, IsNot, In, NotIn };
const char *getCompareOpSpelling(CompareOp op);

/// A (possibly chained) comparison: operands[0] ops[0] operands[1] ops[1]
/// operands[2] ...; ops.size() == operands.size() - 1 >= 1.
class CompareExpr : public Expr {
public:
  CompareExpr(SourceRange range, ExprList operands, std::vector<CompareOp> ops)
      : Expr(Kind::Compare, range, heightOf(operands) + 1),
        operands(std::move(operands)), ops(std::move(ops)) {}
  const ExprList &getOperands() const { return operands; }
  const std::vector<CompareOp> &getOps() const { return ops; }
  DSLC_EXPR_CLASSOF(Compare)
private:
  ExprList operands;
  std::vector<CompareOp> ops;
};

/// `then if cond else otherwise`.
class IfElseExpr : public Expr {
public:
  IfElseExpr(SourceRange range, ExprPtr thenExpr, ExprPtr cond,
             ExprPtr elseExpr)
      : Expr(
            Kind::IfElse, range,
            std::max({heightOf(thenExpr), heightOf(cond), heightOf(elseExpr)}) +
                1),
        thenExpr(std::move(thenExpr)), cond(std::move(cond)),
        elseExpr(std::move(elseExpr)) {}
  const Expr &getCond() const { return *cond; }
  const Expr &getThen() const { return *thenExpr; }
  const Expr &getElse() const { return *elseExpr; }
  DSLC_EXPR_CLASSOF(IfElse)
private:
  ExprPtr thenExpr, cond, elseExpr;
};

/// One argument of a call: `x`, `name=x`, `*xs`, `**kw`.
struct Argument {
  enum class Kind { Positional, Keyword, Star, DoubleStar };
  Kind kind = Kind::Positional;
  std::string name;  ///< Keyword arguments only.
  SourceRange range; ///< The whole argument (`name=x`).
  ExprPtr value;
};

/// `callee(args...)`.
class CallExpr : public Expr {
public:
  CallExpr(SourceRange range, ExprPtr callee, std::vector<Argument> args);
  const Expr &getCallee() const { return *callee; }
  const std::vector<Argument> &getArgs() const { return args; }
  /// The value of keyword argument `name`, or null.
  const Expr *getKeyword(const std::string &name) const;
  /// The `index`-th positional argument, or null.
  const Expr *getPositional(size_t index) const;
  size_t getNumPositional() const;
  DSLC_EXPR_CLASSOF(Call)
private:
  ExprPtr callee;
  std::vector<Argument> args;
};

/// `base.name`.
class AttributeExpr : public Expr {
public:
  AttributeExpr(SourceRange range, ExprPtr base, std::string name,
                SourceRange nameRange)
      : Expr(Kind::Attribute, range, heightOf(base) + 1), base(std::move(base)),
        name(std::move(name)), nameRange(nameRange) {}
  const Expr &getBase() const { return *base; }
  const std::string &getName() const { return name; }
  SourceRange getNameRange() const { return nameRange; }
  DSLC_EXPR_CLASSOF(Attribute)
private:
  ExprPtr base;
  std::string name;
  SourceRange nameRange;
};

/// `base[index]`. Several indices form a TupleExpr (`a[:, t]`).
class SubscriptExpr : public Expr {
public:
  SubscriptExpr(SourceRange range, ExprPtr base, ExprPtr index)
      : Expr(Kind::Subscript, range,
             std::max(heightOf(base), heightOf(index)) + 1),
        base(std::move(base)), index(std::move(index)) {}
  const Expr &getBase() const { return *base; }
  const Expr &getIndex() const { return *index; }
  DSLC_EXPR_CLASSOF(Subscript)
private:
  ExprPtr base, index;
};

/// `lower:upper:step` inside a subscript; each part may be null.
class SliceExpr : public Expr {
public:
  SliceExpr(SourceRange range, ExprPtr lower, ExprPtr upper, ExprPtr step)
      : Expr(Kind::Slice, range,
             std::max({heightOf(lower), heightOf(upper), heightOf(step)}) + 1),
        lower(std::move(lower)), upper(std::move(upper)),
        step(std::move(step)) {}
  const Expr *getLower() const { return lower.get(); }
  const Expr *getUpper() const { return upper.get(); }
  const Expr *getStep() const { return step.get(); }
  DSLC_EXPR_CLASSOF(Slice)
private:
  ExprPtr lower, upper, step;
};

/// `(a, b)` or `a, b`.
class TupleExpr : public Expr {
public:
  TupleExpr(SourceRange range, ExprList elements, bool parenthesized)
      : Expr(Kind::Tuple, range, heightOf(elements) + 1),
        elements(std::move(elements)), parenthesized(parenthesized) {}
  const ExprList &getElements() const { return elements; }
  bool isParenthesized() const { return parenthesized; }
  DSLC_EXPR_CLASSOF(Tuple)
private:
  ExprList elements;
  bool parenthesized;
};

/// `[a, b]`.
class ListExpr : public Expr {
public:
  ListExpr(SourceRange range, ExprList elements)
      : Expr(Kind::List, range, heightOf(elements) + 1),
        elements(std::move(elements)) {}
  const ExprList &getElements() const { return elements; }
  DSLC_EXPR_CLASSOF(List)
private:
  ExprList elements;
};

/// `{k: v, ...}`; keys[i] maps to values[i]. A null key is `**mapping`.
class DictExpr : public Expr {
public:
  DictExpr(SourceRange range, ExprList keys, ExprList values)
      : Expr(Kind::Dict, range, std::max(heightOf(keys), heightOf(values)) + 1),
        keys(std::move(keys)), values(std::move(values)) {}
  const ExprList &getKeys() const { return keys; }
  const ExprList &getValues() const { return values; }
  DSLC_EXPR_CLASSOF(Dict)
private:
  ExprList keys, values;
};

/// `*x` in a tuple/list display or an assignment target.
class StarredExpr : public Expr {
public:
  StarredExpr(SourceRange range, ExprPtr value)
      : Expr(Kind::Starred, range, heightOf(value) + 1),
        value(std::move(value)) {}
  const Expr &getValue() const { return *value; }
  DSLC_EXPR_CLASSOF(Starred)
private:
  ExprPtr value;
};

/// `lambda a, b=1: body`: parameters with optional defaults (no `*args`
/// or annotations, as in Python), and one expression.
class LambdaExpr : public Expr {
public:
  struct Param {
    std::string name;
    SourceRange nameRange;
    ExprPtr defaultValue; ///< May be null.
  };
  LambdaExpr(SourceRange range, std::vector<Param> params, ExprPtr body)
      : Expr(Kind::Lambda, range, heightOf(body) + 1),
        params(std::move(params)), body(std::move(body)) {}
  const std::vector<Param> &getParams() const { return params; }
  const Expr &getBody() const { return *body; }
  DSLC_EXPR_CLASSOF(Lambda)
private:
  std::vector<Param> params;
  ExprPtr body;
};

#undef DSLC_EXPR_CLASSOF

/// "a.b.c" for a NameExpr/AttributeExpr chain, std::nullopt otherwise.
std::optional<std::string> getDottedName(const Expr &expr);

/// Calls `fn` on `e` and on every expression inside it (pre-order; a
/// lambda's body included).
void walkExprs(const Expr &e, const std::function<void(const Expr &)> &fn);

} // namespace ast
} // namespace dslc

#endif // DSLC_FRONTEND_ASTEXPR_H
