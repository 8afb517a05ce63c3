//===- AccessAnalysis.h - Each kernel parameter's role ----------*- C++ -*-===//
//
// After MLIRGen, every parameter of a kernel gets its role (contract::Role,
// docs/kernel-abi.md), decided here and nowhere else:
//   peer table  a 64-bit table passed as a stack tensor's `dev_ptrs`
//               (hl.stacktensor_like / hl.multicast_like), "of" the
//               stack's `tensor_like` parameter;
//   signal pad  the pad of hl.signal / hl.wait (directly, as a peer's copy
//               or as a stack tensor made from it);
//   scratch     the buffer of hl.ll_put / hl.ll_get (directly or as a
//               peer's copy), with the packets the compiler sees going
//               through it (contract::PacketScratch);
//   output      a tensor the kernel returns (torch.empty_like);
//   and for the other tensors, by what the kernel does with their memory
//   (directly, through peers or through stack tensors): input (reads),
//   output (writes), inout (both), unused (neither: only sizes or the
//   address); scalars are scalars, a symmetric tensor's implicit table
//   `X.peers` is "peers of X".
// The role goes on each argument of the kernel as a #tile.role attribute
// and into the kernel description (the metadata), with the access facts.
// A tensor that would have two of the first three roles is an error at
// the operation that makes it so.
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
