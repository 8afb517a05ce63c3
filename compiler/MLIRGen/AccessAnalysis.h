//===- AccessAnalysis.h - Each kernel parameter's role ----------*- C++ -*-===//
//
// After MLIRGen, every parameter of a kernel gets its role
// (compiler/Analysis/ArgRoles.h decides it, the one place that does): set
// on the kernel's arguments as #tile.role and written into the kernel
// description (the metadata) with the access facts, the peer tables'
// targets and the LL scratch's packets.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_COMPILER_MLIRGEN_ACCESSANALYSIS_H
#define DSLC_COMPILER_MLIRGEN_ACCESSANALYSIS_H

#include "compiler/MLIRGen/KernelDescription.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>
#include <vector>

namespace dslc {

/// Decides the role of every argument of `kernel` (`argNames[i]` names
/// argument i; a symmetric tensor's peer table is `NAME.peers`), sets the
/// `tile.role` argument attributes and fills role, access, peerTableFor and
/// packets of `desc`'s arguments and constexprs. Conflicting uses are
/// reported as errors on `kernel`'s context; returns failure then.
mlir::LogicalResult
describeParamAccess(mlir::func::FuncOp kernel,
                    const std::vector<std::string> &argNames,
                    KernelDescription &desc);

} // namespace dslc

#endif // DSLC_COMPILER_MLIRGEN_ACCESSANALYSIS_H
