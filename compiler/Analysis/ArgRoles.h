//===- ArgRoles.h - The role of every argument of a tile kernel -*- C++ -*-===//
//
// The one decision of what each argument of a tile kernel is for
// (contract::Role, docs/kernel-abi.md "Roles"):
//   peer table  a 64-bit table passed as a stack tensor's `dev_ptrs`
//               (hl.stacktensor_like / hl.multicast_like), "of" the
//               stack's `tensor_like` argument;
//   signal pad  the pad of comm.signal / comm.wait (directly, as a peer's
//               copy or as a stack tensor made from it);
//   scratch     the buffer of comm.ll_put / comm.ll_get (directly or as a
//               peer's copy), with the packets seen going through it;
//   output      a tensor the kernel returns;
//   and for the other tensors, by what the kernel does with their memory
//   (directly, through peers or through stack tensors): input (reads),
//   output (writes), inout (both), unused (neither); scalars are scalars;
//   a symmetric tensor's own table is "peers of" it.
// The roles go on the arguments as #tile.role. MLIRGen's access analysis
// runs it on every kernel it generates (and fills the metadata from it);
// the ABI flattening runs it on kernels written in the IR without roles.
// A tensor that would have two of the first three roles, or a returned
// tensor used as one, is an error at the operation that makes it so.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_COMPILER_ANALYSIS_ARGROLES_H
#define DSLC_COMPILER_ANALYSIS_ARGROLES_H

#include "contract/Metadata.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace dslc {

/// What the analysis decides for one argument.
struct ArgRole {
  contract::Role role = contract::Role::Input;
  contract::Access access = contract::Access::None; ///< tensors
  std::string of; ///< PeerTable / Peers: the tensor whose copies it lists
  contract::PacketScratch packets; ///< Scratch
};

/// Decides the role of every argument of tile kernel `kernel` and sets it
/// as the argument's #tile.role. `names[i]` names argument i; `peersOf`
/// maps the index of a symmetric tensor's own table to the tensor's name;
/// `returned` holds the indices of the tensors the kernel returns.
mlir::FailureOr<std::vector<ArgRole>>
decideArgRoles(mlir::func::FuncOp kernel, const std::vector<std::string> &names,
               const std::map<unsigned, std::string> &peersOf,
               const std::set<unsigned> &returned);

/// For a kernel written in the IR whose arguments carry no #tile.role:
/// decides them as above (names from `tile.arg_names`, no symmetric
/// tables, no returned tensors: a written tensor is an output). A kernel
/// whose arguments all have roles is left alone; one with only some is an
/// error.
mlir::LogicalResult decideMissingRoles(mlir::func::FuncOp kernel);

} // namespace dslc

#endif // DSLC_COMPILER_ANALYSIS_ARGROLES_H
