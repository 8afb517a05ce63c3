//===- CompilerStack.h - The stack dslc compiles on -------------*- C++ -*-===//
//
// The parser, MLIRGen and the AST's destructors recurse once per level of an
// expression (up to Parser::kMaxExprHeight = 1000 and kMaxNesting = 256)
// and of a block (kMaxBlockDepth = 100). A 999-term `1 + 1 + ... + 1` needs
// about 1.5 MiB in MLIRGen (Release; several times that with sanitizers),
// more than a 1 MiB `ulimit -s`. So dslc does not depend on the stack it
// was started with: it compiles on a thread whose stack is
// kCompilerStackBytes, large enough for every input within the limits with
// a wide margin (docs/language.md, "Limits"; tests/tools/dslc/stack.test
// runs the deepest inputs under `ulimit -s 1024`).
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_FRONTEND_COMPILERSTACK_H
#define DSLC_FRONTEND_COMPILERSTACK_H

#include <cstddef>
#include <functional>

namespace dslc {

/// Stack size of the compiler thread. Only the pages a compilation touches
/// are backed by memory.
inline constexpr size_t kCompilerStackBytes = size_t(256) << 20;

/// Runs `fn` on a thread with kCompilerStackBytes of stack and returns its
/// result; runs it on the calling thread when no such thread can be made.
int runOnCompilerStack(const std::function<int()> &fn);

} // namespace dslc

#endif // DSLC_FRONTEND_COMPILERSTACK_H
