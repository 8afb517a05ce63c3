//===- Metadata.h - dslc kernel metadata (*.cubin.json) ---------*- C++ -*-===//
//
// The metadata file that dslc writes beside each cubin is the kernel
// contract's (contract/Metadata.h, docs/kernel-abi.md); the contract reads
// and checks it. This header names the contract's types in dslc::rt and
// turns a refused file into the runtime's Error. Parsing needs no GPU.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_RUNTIME_METADATA_H
#define DSLC_RUNTIME_METADATA_H

#include "contract/Metadata.h"
#include "runtime/DType.h"

#include <functional>
#include <string>

namespace dslc::rt {

using contract::AbiSlot;
using contract::Access;
using contract::accessName;
using contract::argKindName;
using contract::ArgSpec;
using contract::Constraint;
using contract::GridExtent;
using contract::KernelMetadata;
using contract::Role;
using contract::roleName;
using contract::SameSize;
using contract::SlotKind;
using contract::SlotType;

/// Parses metadata JSON text. `origin` names the file in error messages.
/// Throws Error(Metadata) with the contract's message (the file and the
/// field).
KernelMetadata parseMetadata(const std::string &text,
                             const std::string &origin);
/// Reads and parses a file; throws Error(Io) when it cannot be read.
KernelMetadata loadMetadataFile(const std::string &path);

/// The grid's tile count for the raw value of each non-constant extent
/// (`rawSize(extent)`: a tensor's size or a scalar's value). Throws
/// Error(InvalidArgument) naming the kernel on overflow.
int64_t numTilesWith(const KernelMetadata &md,
                     const std::function<int64_t(const GridExtent &)> &rawSize);

/// Reads a whole file; throws Error(Io).
std::string readFile(const std::string &path);

} // namespace dslc::rt

#endif // DSLC_RUNTIME_METADATA_H
