//===- NcclTypes.h - dslc's types and ops as NCCL's -------------*- C++ -*-===//
#ifndef DSLC_RUNTIME_NCCLTYPES_H
#define DSLC_RUNTIME_NCCLTYPES_H

#include "runtime/Collectives.h"

#include <nccl.h>

namespace dslc::rt {

/// The NCCL type of `t`; Error(InvalidArgument) when NCCL has none.
ncclDataType_t ncclType(DType t);
ncclRedOp_t ncclOp(ReduceOp op);

} // namespace dslc::rt

#endif // DSLC_RUNTIME_NCCLTYPES_H
