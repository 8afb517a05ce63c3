//===- AST.h - Syntax tree of a tile program --------------------*- C++ -*-===//
//
// The parser produces one ast::Module per file: a plain tree that owns its
// children through std::unique_ptr. There are two node hierarchies:
//
//   Expr  (NameExpr, IntLiteralExpr, ..., CallExpr, SubscriptExpr, ...)
//   Stmt  (ExprStmt, AssignStmt, ..., ForStmt, IfStmt, FunctionDef, ...)
//
// Every node has getKind() and getRange() (file, line, column of its first
// and one-past-last character; see SourceManager.h). Kinds are listed once in
// DSLC_EXPR_NODES / DSLC_STMT_NODES below.
//
// Walking the tree
//   - Switch on getKind() and downcast with ast::cast<T> / ast::dyn_cast<T>
//     / ast::isa<T> (LLVM-style `classof`, so llvm::isa/cast/dyn_cast work
//     as well):
//         if (auto *call = ast::dyn_cast<ast::CallExpr>(&expr))
//           if (ast::getDottedName(call->getCallee()) == "hl.tile") ...
//   - Or derive from ExprVisitor<Derived, R> / StmtVisitor<Derived, R>
//     (ASTVisitor.h) and define visitCall(const CallExpr &),
//     visitFor(const ForStmt &), ...; unimplemented visits fall back to
//     visitExpr / visitStmt.
//
// Reporting at a node
//   diags.error(node.getRange(), "message") on the DiagnosticEngine
//   (Diagnostics.h) prints "file:line:col: error: message" plus the source
//   line with a caret under the node.
//
// Python semantics kept in the tree
//   - `elif` is an IfStmt (isElif() true) as the only statement of the
//     else-branch of the previous IfStmt, as in Python's ast.
//   - `a < b < c` is one CompareExpr with operands {a, b, c} and two ops.
//   - `x[a, b]` has one index: a TupleExpr; `x[1:2]` a SliceExpr.
//   - Adjacent string literals are concatenated into one StringLiteralExpr.
//   - Docstrings (a string expression as the first statement of the module
//     or a function) are removed from the body and kept in getDocstring().
//   - `and`/`or` are BinaryExprs with BinaryOp::And/Or (they short-circuit).
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_FRONTEND_AST_H
#define DSLC_FRONTEND_AST_H

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

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

#define DSLC_STMT_NODES(X)                                                     \
  X(Expr, ExprStmt)                                                            \
  X(Assign, AssignStmt)                                                        \
  X(AugAssign, AugAssignStmt)                                                  \
  X(AnnAssign, AnnAssignStmt)                                                  \
  X(For, ForStmt)                                                              \
  X(While, WhileStmt)                                                          \
  X(If, IfStmt)                                                                \
  X(Return, ReturnStmt)                                                        \
  X(Pass, PassStmt)                                                            \
  X(Break, BreakStmt)                                                          \
  X(Continue, ContinueStmt)                                                    \
  X(Assert, AssertStmt)                                                        \
  X(Import, ImportStmt)                                                        \
  X(ImportFrom, ImportFromStmt)                                                \
  X(FunctionDef, FunctionDef)

class Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using StmtList = std::vector<StmtPtr>;

class Stmt {
public:
  enum class Kind {
#define DSLC_STMT_KIND(K, C) K,
    DSLC_STMT_NODES(DSLC_STMT_KIND)
#undef DSLC_STMT_KIND
  };

  virtual ~Stmt() = default;
  Stmt(const Stmt &) = delete;
  Stmt &operator=(const Stmt &) = delete;

  Kind getKind() const { return kind; }
  SourceRange getRange() const { return range; }
  Location getLoc() const { return range.begin; }
  void setRange(SourceRange r) { range = r; }

protected:
  Stmt(Kind kind, SourceRange range) : kind(kind), range(range) {}

private:
  Kind kind;
  SourceRange range;
};

#define DSLC_STMT_CLASSOF(K)                                                   \
  static bool classof(const Stmt *s) { return s->getKind() == Kind::K; }

/// An expression evaluated for its effect: `hl.signal(...)`.
class ExprStmt : public Stmt {
public:
  ExprStmt(SourceRange range, ExprPtr expr)
      : Stmt(Kind::Expr, range), expr(std::move(expr)) {}
  const Expr &getExpr() const { return *expr; }
  DSLC_STMT_CLASSOF(Expr)
private:
  ExprPtr expr;
};

/// `t1 = t2 = value`; targets in source order (at least one). Tuple
/// unpacking `a, b = v` has one TupleExpr target.
class AssignStmt : public Stmt {
public:
  AssignStmt(SourceRange range, ExprList targets, ExprPtr value)
      : Stmt(Kind::Assign, range), targets(std::move(targets)),
        value(std::move(value)) {}
  const ExprList &getTargets() const { return targets; }
  const Expr &getValue() const { return *value; }
  DSLC_STMT_CLASSOF(Assign)
private:
  ExprList targets;
  ExprPtr value;
};

/// `target op= value`, e.g. `acc += a[tile]` (op is BinaryOp::Add).
class AugAssignStmt : public Stmt {
public:
  AugAssignStmt(SourceRange range, ExprPtr target, BinaryOp op, ExprPtr value)
      : Stmt(Kind::AugAssign, range), target(std::move(target)), op(op),
        value(std::move(value)) {}
  const Expr &getTarget() const { return *target; }
  BinaryOp getOp() const { return op; }
  const Expr &getValue() const { return *value; }
  DSLC_STMT_CLASSOF(AugAssign)
private:
  ExprPtr target;
  BinaryOp op;
  ExprPtr value;
};

/// `target: annotation [= value]`.
class AnnAssignStmt : public Stmt {
public:
  AnnAssignStmt(SourceRange range, ExprPtr target, ExprPtr annotation,
                ExprPtr value)
      : Stmt(Kind::AnnAssign, range), target(std::move(target)),
        annotation(std::move(annotation)), value(std::move(value)) {}
  const Expr &getTarget() const { return *target; }
  const Expr &getAnnotation() const { return *annotation; }
  const Expr *getValue() const { return value.get(); }
  DSLC_STMT_CLASSOF(AnnAssign)
private:
  ExprPtr target, annotation, value;
};

/// `for target in iter: body [else: orelse]`.
class ForStmt : public Stmt {
public:
  ForStmt(SourceRange range, ExprPtr target, ExprPtr iter, StmtList body,
          StmtList orelse)
      : Stmt(Kind::For, range), target(std::move(target)),
        iter(std::move(iter)), body(std::move(body)),
        orelse(std::move(orelse)) {}
  const Expr &getTarget() const { return *target; }
  const Expr &getIter() const { return *iter; }
  const StmtList &getBody() const { return body; }
  const StmtList &getElse() const { return orelse; }
  DSLC_STMT_CLASSOF(For)
private:
  ExprPtr target, iter;
  StmtList body, orelse;
};

/// `while cond: body [else: orelse]`.
class WhileStmt : public Stmt {
public:
  WhileStmt(SourceRange range, ExprPtr cond, StmtList body, StmtList orelse)
      : Stmt(Kind::While, range), cond(std::move(cond)), body(std::move(body)),
        orelse(std::move(orelse)) {}
  const Expr &getCond() const { return *cond; }
  const StmtList &getBody() const { return body; }
  const StmtList &getElse() const { return orelse; }
  DSLC_STMT_CLASSOF(While)
private:
  ExprPtr cond;
  StmtList body, orelse;
};

/// `if cond: then [elif ...] [else: orelse]`.
class IfStmt : public Stmt {
public:
  IfStmt(SourceRange range, ExprPtr cond, StmtList thenBody, StmtList orelse,
         bool isElif)
      : Stmt(Kind::If, range), cond(std::move(cond)),
        thenBody(std::move(thenBody)), orelse(std::move(orelse)),
        elif (isElif) {}
  const Expr &getCond() const { return *cond; }
  const StmtList &getThen() const { return thenBody; }
  const StmtList &getElse() const { return orelse; }
  /// True for an `elif` (the sole statement of its parent's else-branch).
  bool isElif() const { return elif; }
  DSLC_STMT_CLASSOF(If)
private:
  ExprPtr cond;
  StmtList thenBody, orelse;
  bool elif;
};

class ReturnStmt : public Stmt {
public:
  ReturnStmt(SourceRange range, ExprPtr value)
      : Stmt(Kind::Return, range), value(std::move(value)) {}
  /// Null for a bare `return`.
  const Expr *getValue() const { return value.get(); }
  DSLC_STMT_CLASSOF(Return)
private:
  ExprPtr value;
};

class PassStmt : public Stmt {
public:
  explicit PassStmt(SourceRange range) : Stmt(Kind::Pass, range) {}
  DSLC_STMT_CLASSOF(Pass)
};

class BreakStmt : public Stmt {
public:
  explicit BreakStmt(SourceRange range) : Stmt(Kind::Break, range) {}
  DSLC_STMT_CLASSOF(Break)
};

class ContinueStmt : public Stmt {
public:
  explicit ContinueStmt(SourceRange range) : Stmt(Kind::Continue, range) {}
  DSLC_STMT_CLASSOF(Continue)
};

/// `assert test[, message]`.
class AssertStmt : public Stmt {
public:
  AssertStmt(SourceRange range, ExprPtr test, ExprPtr message)
      : Stmt(Kind::Assert, range), test(std::move(test)),
        message(std::move(message)) {}
  const Expr &getTest() const { return *test; }
  const Expr *getMessage() const { return message.get(); }
  DSLC_STMT_CLASSOF(Assert)
private:
  ExprPtr test, message;
};

/// One `name [as asName]` of an import.
struct ImportAlias {
  std::string name;   ///< Dotted: "helion.language".
  std::string asName; ///< Empty when there is no `as`.
  SourceRange range;
  /// The name this import binds: asName, else (for `import a.b`) "a", else
  /// (for `from m import x`) "x".
  std::string getBoundName(bool fromImport) const;
};

/// `import a.b as c, d`.
class ImportStmt : public Stmt {
public:
  ImportStmt(SourceRange range, std::vector<ImportAlias> names)
      : Stmt(Kind::Import, range), names(std::move(names)) {}
  const std::vector<ImportAlias> &getNames() const { return names; }
  DSLC_STMT_CLASSOF(Import)
private:
  std::vector<ImportAlias> names;
};

/// `from [.]*module import x as y, ...` or `from module import *`
/// (isStar(), with no names).
class ImportFromStmt : public Stmt {
public:
  ImportFromStmt(SourceRange range, std::string module, unsigned level,
                 std::vector<ImportAlias> names, bool star)
      : Stmt(Kind::ImportFrom, range), module(std::move(module)), level(level),
        names(std::move(names)), star(star) {}
  /// Dotted module name; may be empty for `from . import x`.
  const std::string &getModule() const { return module; }
  /// Number of leading dots (relative import).
  unsigned getLevel() const { return level; }
  const std::vector<ImportAlias> &getNames() const { return names; }
  bool isStar() const { return star; }
  DSLC_STMT_CLASSOF(ImportFrom)
private:
  std::string module;
  unsigned level;
  std::vector<ImportAlias> names;
  bool star;
};

/// One parameter of a def.
struct Param {
  enum class Kind {
    Normal,  ///< `x`, `x: T`, `x: T = d`
    VarArgs, ///< `*args`
    KwArgs,  ///< `**kwargs`
  };
  Kind kind = Kind::Normal;
  std::string name;
  SourceRange range;           ///< The whole parameter (name through default).
  SourceRange nameRange;       ///< Just the name.
  ExprPtr annotation;          ///< May be null.
  ExprPtr defaultValue;        ///< May be null.
  bool keywordOnly = false;    ///< After `*` or `*args`.
  bool positionalOnly = false; ///< Before `/`.
};

/// `@decorator` line: the expression after `@` (`helion.kernel(config=...)`
/// is a CallExpr, bare `@x` a NameExpr/AttributeExpr).
struct Decorator {
  SourceRange range; ///< From `@` to the end of the expression.
  ExprPtr expr;
};

/// A function definition, decorated or not. Kernels are the defs whose
/// decorator is helion.kernel, helion.jit, dslc.kernel or dslc.jit (called or
/// bare); see getKernelDecorator().
class FunctionDef : public Stmt {
public:
  FunctionDef(SourceRange range, std::string name, SourceRange nameRange,
              std::vector<Decorator> decorators, std::vector<Param> params,
              ExprPtr returns, std::optional<std::string> docstring,
              StmtList body)
      : Stmt(Kind::FunctionDef, range), name(std::move(name)),
        nameRange(nameRange), decorators(std::move(decorators)),
        params(std::move(params)), returns(std::move(returns)),
        docstring(std::move(docstring)), body(std::move(body)) {}
  const std::string &getName() const { return name; }
  SourceRange getNameRange() const { return nameRange; }
  const std::vector<Decorator> &getDecorators() const { return decorators; }
  const std::vector<Param> &getParams() const { return params; }
  /// The `-> T` annotation, or null.
  const Expr *getReturns() const { return returns.get(); }
  const std::optional<std::string> &getDocstring() const { return docstring; }
  const StmtList &getBody() const { return body; }

  /// The kernel decorator (see class comment), or null for a plain def.
  const Decorator *getKernelDecorator() const;
  bool isKernel() const { return getKernelDecorator() != nullptr; }
  /// For a called kernel decorator, its keyword argument `name`
  /// (e.g. "config", "static_shapes"); null otherwise.
  const Expr *getDecoratorKeyword(const std::string &name) const;

  /// True for "helion.kernel", "helion.jit", "dslc.kernel", "dslc.jit".
  static bool isKernelDecoratorName(const std::string &dottedName);

  DSLC_STMT_CLASSOF(FunctionDef)
private:
  std::string name;
  SourceRange nameRange;
  std::vector<Decorator> decorators;
  std::vector<Param> params;
  ExprPtr returns;
  std::optional<std::string> docstring;
  StmtList body;
};

#undef DSLC_STMT_CLASSOF

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

/// A top-level statement of the file that is not DSL code (the host side of
/// a Helion file: a launcher with `raise`, `try`, `with`, comprehensions,
/// ...). It is left out of the module; what it was is kept for the error
/// when a kernel calls it.
struct HostCode {
  SourceRange range;
  /// The def's name, empty for other statements.
  std::string name;
  /// The first thing that is not DSL code in it.
  SourceRange firstProblem;
  std::string problem;
};

/// One parsed file. Always produced, even after syntax errors (then it holds
/// the statements that parsed).
class Module {
public:
  Module(std::string fileName, uint32_t fileId,
         std::optional<std::string> docstring, StmtList body,
         std::vector<HostCode> hostCode = {})
      : fileName(std::move(fileName)), fileId(fileId),
        docstring(std::move(docstring)), body(std::move(body)),
        hostCode(std::move(hostCode)) {}
  const std::string &getFileName() const { return fileName; }
  uint32_t getFileId() const { return fileId; }
  const std::optional<std::string> &getDocstring() const { return docstring; }
  /// Top-level statements in order: imports, assignments, defs, ...
  const StmtList &getBody() const { return body; }

  /// Top-level function definitions (kernels and plain defs), in order.
  std::vector<const FunctionDef *> getFunctions() const;
  /// Top-level kernels (decorated defs; see FunctionDef), in order.
  std::vector<const FunctionDef *> getKernels() const;
  /// The top-level def named `name`, or null.
  const FunctionDef *lookupFunction(const std::string &name) const;
  /// Top-level statements left out as host code, in order.
  const std::vector<HostCode> &getHostCode() const { return hostCode; }
  /// The host-code def named `name`, or null.
  const HostCode *lookupHostCode(const std::string &name) const;

private:
  std::string fileName;
  uint32_t fileId;
  std::optional<std::string> docstring;
  StmtList body;
  std::vector<HostCode> hostCode;
};

/// Calls `fn` on every expression of the statements `body` (nested blocks
/// included; not the bodies of nested defs).
void walkExprs(const StmtList &body,
               const std::function<void(const Expr &)> &fn);

} // namespace ast
} // namespace dslc

#endif // DSLC_FRONTEND_AST_H
