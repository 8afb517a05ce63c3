//===- KernelDescription.h - What MLIRGen learns about a kernel -*- C++ -*-===//
//
// Everything the runtime needs besides the code is the kernel contract's
// KernelMetadata (contract/Metadata.h): MLIRGen fills the parameters,
// outputs, constants, tunables, grid and constraints, the access analysis
// their roles, the pipeline the ABI slots and build facts, and
// contract::writeMetadata writes it. The names below are the compiler's
// words for the contract's types; they are the same types.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_MLIRGEN_KERNELDESCRIPTION_H
#define DSLC_COMPILER_MLIRGEN_KERNELDESCRIPTION_H

#include "contract/Metadata.h"

namespace dslc {

using KernelDescription = contract::KernelMetadata;
using ParamDescription = contract::ArgSpec;
using OutputDescription = contract::ArgSpec;
using GridExtent = contract::GridExtent;
using Constraint = contract::Constraint;

} // namespace dslc

#endif // DSLC_COMPILER_MLIRGEN_KERNELDESCRIPTION_H
