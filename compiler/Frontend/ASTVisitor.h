//===- ASTVisitor.h - Kind dispatch over the syntax tree --------*- C++ -*-===//
//
// CRTP visitors over ast::Expr and ast::Stmt (AST.h): a switch on the node
// kind that calls the Derived class's visitKIND, or its visitExpr /
// visitStmt for the kinds it does not handle.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_FRONTEND_ASTVISITOR_H
#define DSLC_FRONTEND_ASTVISITOR_H

#include "compiler/Frontend/AST.h"

namespace dslc {
namespace ast {

/// CRTP dispatch on expression kinds: define `R visitCall(const CallExpr &)`
/// etc. in Derived; missing ones call `R visitExpr(const Expr &)`.
template <typename Derived, typename R = void> class ExprVisitor {
public:
  R visit(const Expr &e) {
    switch (e.getKind()) {
#define DSLC_EXPR_DISPATCH(K, C)                                               \
  case Expr::Kind::K:                                                          \
    return static_cast<Derived *>(this)->visit##K(static_cast<const C &>(e));
      DSLC_EXPR_NODES(DSLC_EXPR_DISPATCH)
#undef DSLC_EXPR_DISPATCH
    }
    return static_cast<Derived *>(this)->visitExpr(e);
  }
  R visitExpr(const Expr &) { return R(); }
#define DSLC_EXPR_DEFAULT(K, C)                                                \
  R visit##K(const C &e) { return static_cast<Derived *>(this)->visitExpr(e); }
  DSLC_EXPR_NODES(DSLC_EXPR_DEFAULT)
#undef DSLC_EXPR_DEFAULT
};

/// CRTP dispatch on statement kinds: `R visitFor(const ForStmt &)`,
/// `R visitFunctionDef(const FunctionDef &)`, ...; missing ones call
/// `R visitStmt(const Stmt &)`.
template <typename Derived, typename R = void> class StmtVisitor {
public:
  R visit(const Stmt &s) {
    switch (s.getKind()) {
#define DSLC_STMT_DISPATCH(K, C)                                               \
  case Stmt::Kind::K:                                                          \
    return static_cast<Derived *>(this)->visit##K(static_cast<const C &>(s));
      DSLC_STMT_NODES(DSLC_STMT_DISPATCH)
#undef DSLC_STMT_DISPATCH
    }
    return static_cast<Derived *>(this)->visitStmt(s);
  }
  R visitStmt(const Stmt &) { return R(); }
#define DSLC_STMT_DEFAULT(K, C)                                                \
  R visit##K(const C &s) { return static_cast<Derived *>(this)->visitStmt(s); }
  DSLC_STMT_NODES(DSLC_STMT_DEFAULT)
#undef DSLC_STMT_DEFAULT
};

} // namespace ast
} // namespace dslc

#endif // DSLC_FRONTEND_ASTVISITOR_H
