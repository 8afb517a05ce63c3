//===- DType.h - The contract's element types in dslc::rt -------*- C++ -*-===//
//
// The runtime names element types as the contract does (contract/DType.h);
// this header only brings those names into dslc::rt.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_RUNTIME_DTYPE_H
#define DSLC_RUNTIME_DTYPE_H

#include "contract/DType.h"

namespace dslc::rt {
using contract::DType;
using contract::dtypeName;
using contract::dtypeSize;
using contract::isFloating;
using contract::parseDType;
} // namespace dslc::rt

#endif // DSLC_RUNTIME_DTYPE_H
