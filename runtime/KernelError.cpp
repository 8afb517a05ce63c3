//===- KernelError.cpp - Messages for kernel timeout records --------------===//
#include "runtime/KernelError.h"

#include <fmt/format.h>

namespace dslc::rt {

std::string formatErrorRecord(const DslcErrorRecord &rec,
                              const KernelMetadata &md, int rank,
                              int64_t timeoutMs) {
  if (rec.status == DSLC_RECORD_NONE)
    return std::string();
  if (rec.status == DSLC_RECORD_OUT_OF_BOUNDS)
    return fmt::format("rank {}: kernel {}: index at {}:{}:{} is outside its "
                       "tensor: {} reaches {} but the size is {} (CTA {}, "
                       "address {:#x}); for LL packets, the scratch is too "
                       "small for this size",
                       rank, md.kernel,
                       md.sourceFile.empty() ? md.origin : md.sourceFile,
                       rec.line, rec.column, rec.slot, rec.seen, rec.expected,
                       rec.cta, rec.address);
  const char *what = rec.status == DSLC_RECORD_WAIT_TIMEOUT     ? "wait"
                     : rec.status == DSLC_RECORD_PACKET_TIMEOUT ? "packet poll"
                                                                : nullptr;
  std::string kind =
      what ? what : fmt::format("spin (unknown status {})", rec.status);
  std::string file = md.sourceFile.empty() ? md.origin : md.sourceFile;
  return fmt::format("rank {}: kernel {}: {} at {}:{}:{} timed out after {} "
                     "ms: slot {} expected {}, saw {} (CTA {}, address {:#x})",
                     rank, md.kernel, kind, file, rec.line, rec.column,
                     timeoutMs, rec.slot, rec.expected, rec.seen, rec.cta,
                     rec.address);
}

} // namespace dslc::rt
