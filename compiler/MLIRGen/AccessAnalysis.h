//===- AccessAnalysis.h - How a kernel uses each tensor parameter -*- C++ -*-===//
//
// After MLIRGen, every tensor parameter is classified by what the kernel does
// with its memory: reads it, writes it, both, or neither (only its sizes or
// address are used). Accesses through a peer's copy (`get_remote_tensors`)
// or a stack tensor count for the parameter the copies are of. A 64-bit
// table passed as a stack tensor's `dev_ptrs` is recorded as the peer table
// of that stack tensor's `tensor_like` parameter. The runtime and dslrun use
// both facts to bind buffers without guessing (docs/kernel-abi.md).
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_COMPILER_MLIRGEN_ACCESSANALYSIS_H
#define DSLC_COMPILER_MLIRGEN_ACCESSANALYSIS_H

#include "compiler/MLIRGen/KernelDescription.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>
#include <vector>

namespace dslc {

/// Fills `access` and `peerTableFor` of the tensor parameters and outputs in
/// `desc`; `argNames[i]` names the kernel's argument `i` (a symmetric
/// tensor's peer table is `NAME.peers`).
void describeParamAccess(mlir::func::FuncOp kernel,
                         const std::vector<std::string> &argNames,
                         KernelDescription &desc);

} // namespace dslc

#endif // DSLC_COMPILER_MLIRGEN_ACCESSANALYSIS_H
