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
// DSLC_EXPR_NODES (ASTExpr.h) / DSLC_STMT_NODES (below).
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

#include "compiler/Frontend/ASTExpr.h"
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
