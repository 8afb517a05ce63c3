//===- MetadataWriter.h - Kernel metadata as JSON ---------------*- C++ -*-===//
//
// Writes docs/kernel-abi.md's metadata file from the kernel description and
// the ABI slots the lowering produced.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_PIPELINE_METADATAWRITER_H
#define DSLC_COMPILER_PIPELINE_METADATAWRITER_H

#include "compiler/MLIRGen/KernelDescription.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <utility>
#include <vector>

namespace dslc {

struct AbiSlot {
  std::string name;
  std::string type; ///< "ptr", "i64", "f32", ...
};

struct BuildFacts {
  std::string arch;
  std::string sourceSha256;
  std::vector<AbiSlot> abi;
  std::optional<uint64_t> defaultTimeoutMs;
  std::string multicast; ///< "software" or "nvls".
  int64_t sharedBytes = 0; ///< Static shared memory per CTA.
};

void writeMetadata(llvm::raw_ostream &os, const KernelDescription &desc,
                   const BuildFacts &facts);

} // namespace dslc

#endif // DSLC_COMPILER_PIPELINE_METADATAWRITER_H
