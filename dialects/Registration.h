//===- Registration.h - Every dialect dslc's IR uses -------------*- C++
//-*-===//
//
// One list of the dialects a dslc module can hold, from MLIRGen's output
// (Tile, Comm, arith, math, scf, func, cf) to what the lowering produces
// (vector, LLVM, NVVM, index, gpu): dslc, dslc-opt and dslc-translate all
// register it, so a module one of them prints the others parse.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_DIALECTS_REGISTRATION_H
#define DSLC_DIALECTS_REGISTRATION_H

namespace mlir {
class DialectRegistry;
class MLIRContext;
} // namespace mlir

namespace dslc {

/// Adds every dialect of dslc's pipeline to `registry`.
void registerDslcDialects(mlir::DialectRegistry &registry);
/// Registers and loads them into `context` (the compiler's own contexts).
void loadDslcDialects(mlir::MLIRContext &context);

} // namespace dslc

#endif // DSLC_DIALECTS_REGISTRATION_H
