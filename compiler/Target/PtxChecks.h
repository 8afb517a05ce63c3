//===- PtxChecks.h - What a kernel's PTX tells before ptxas runs -*- C++
//-*-===//
//
// Facts about generated PTX that change how fast the kernel runs and that
// neither ptxas nor nvJitLink reports: the Target stage attaches them to
// its artifact, the driver warns.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_COMPILER_TARGET_PTXCHECKS_H
#define DSLC_COMPILER_TARGET_PTXCHECKS_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace dslc {

/// Why ptxas serializes the wgmma products of `ptx` (each waited for
/// before the next is issued): the first instruction it assembles as a call
/// of a subroutine (a call, a 64-bit integer division or remainder by a
/// run-time value, an IEEE f32 or f64 division or reciprocal), described
/// with the instruction; nothing when `ptx` has no wgmma or no such
/// instruction. (A call anywhere in a function serializes its wgmma: seen
/// in the SASS of dslc's matmul, 2026-12-05; ptxas -v says nothing.)
std::optional<std::string> wgmmaSerialization(llvm::StringRef ptx);

} // namespace dslc

#endif // DSLC_COMPILER_TARGET_PTXCHECKS_H
