//===- ASTPrinter.h - S-expression dump of the AST (--emit=ast) -*- C++ -*-===//
//
// Prints the tree as indented S-expressions, one node per line, with the
// node's start location as @LINE:COL. The format is stable (lit tests check
// it with FileCheck):
//
//   (module "examples/one_shot_all_reduce.py"
//     (import @17:1
//       (alias torch))
//     (def @30:5 one_shot_all_reduce_kernel kernel
//       (decorator @23:1
//         (call @23:2
//           (attr @23:2 kernel
//             (name @23:2 helion))
//           (kwarg @24:5 config ...)))
//       (param @31:5 signal_pad_addrs
//         (annotation
//           (subscript @31:23 ...)))
//       (returns ...)
//       (body
//         (assign @38:5
//           (tuple @38:5 ...)      ; the targets come first,
//           (call @38:22 ...))     ; the value last
//         ...)))
//
// Statements: import, import-from, def, assign, aug-assign OP, ann-assign,
// for, while, if/elif (children: condition, (then ...), (else ...)),
// return, pass, break, continue, assert, expr.
// Expressions: name, int, float, str/bytes/fstr, bool, none, ellipsis,
// unary OP, binary OP, compare OPS..., if-expr (cond, then, else), call
// (callee, then args: positional as is, (kwarg NAME v), (star-arg v),
// (dstar-arg v)), attr NAME (base), subscript (base, index),
// slice ((lower ...) (upper ...) (step ...), each only when present), tuple,
// list, dict ((item k v) / (unpack v)), starred.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_FRONTEND_ASTPRINTER_H
#define DSLC_FRONTEND_ASTPRINTER_H

#include "compiler/Frontend/AST.h"

#include <ostream>
#include <string>

namespace dslc {

/// Renders `module` (every top-level statement).
std::string printAST(const ast::Module &module);
/// Renders one function definition (for `dslc -k NAME --emit=ast`).
std::string printAST(const ast::FunctionDef &function);
std::string printAST(const ast::Stmt &stmt);
std::string printAST(const ast::Expr &expr);

} // namespace dslc

#endif // DSLC_FRONTEND_ASTPRINTER_H
