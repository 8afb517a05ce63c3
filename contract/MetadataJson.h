//===- MetadataJson.h - The metadata file: one reader, one writer -*- C++
//-*-===//
//
// `dslc --emit=ptx|cubin` writes K.json beside its output with
// writeMetadata(); the runtime, the tuner and dslrun read it with
// readMetadata(), which checks everything docs/kernel-abi.md promises (the
// version, every role and slot against its parameter, the hidden slots,
// the grid and the constraints) so that consumers need not.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_CONTRACT_METADATAJSON_H
#define DSLC_CONTRACT_METADATAJSON_H

#include "contract/Expected.h"
#include "contract/Metadata.h"

#include <string>

namespace dslc::contract {

/// The metadata as JSON text (two-space indented, ending in a newline).
std::string writeMetadata(const KernelMetadata &md);

/// Parses metadata text; `origin` names the file in messages, which read
/// "metadata ORIGIN: FIELD: PROBLEM". Unknown keys are ignored; another
/// format or version is refused, naming both versions.
Expected<KernelMetadata> readMetadata(const std::string &text,
                                      const std::string &origin);

} // namespace dslc::contract

#endif // DSLC_CONTRACT_METADATAJSON_H
