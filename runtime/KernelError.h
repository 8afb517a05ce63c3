//===- KernelError.h - Messages for kernel timeout records ------*- C++ -*-===//
#ifndef DSLC_RUNTIME_KERNELERROR_H
#define DSLC_RUNTIME_KERNELERROR_H

#include "runtime/ErrorRecord.h"
#include "runtime/Metadata.h"

#include <cstdint>
#include <string>

namespace dslc::rt {

/// "rank R: kernel K: wait at FILE:LINE:COL timed out after T ms: slot S
/// expected E, saw V (CTA C, address A)". Empty when status is 0.
std::string formatErrorRecord(const DslcErrorRecord &rec,
                              const KernelMetadata &md, int rank,
                              int64_t timeoutMs);

} // namespace dslc::rt

#endif // DSLC_RUNTIME_KERNELERROR_H
