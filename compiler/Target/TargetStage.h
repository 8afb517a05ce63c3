//===- TargetStage.h - LLVM/NVVM-dialect IR to LLVM IR, PTX, cubin -*- C++
//-*-===//
//
// The Target stage, once, for dslc (after its pass pipeline) and for
// dslc-translate (IR written or transformed by hand): the instructions the
// target GPU lacks are located errors, then LLVM IR (libdevice linked, -O3),
// PTX and a cubin, stopping at what was asked. Metadata, spill policy and
// where the bytes go stay with the caller.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_COMPILER_TARGET_TARGETSTAGE_H
#define DSLC_COMPILER_TARGET_TARGETSTAGE_H

#include "compiler/Target/CubinAssembler.h"
#include "compiler/Target/GpuArch.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/Timing.h"

#include <optional>
#include <string>

namespace dslc {

/// Where the Target stage stops.
enum class TargetOutput { LLVMIR, PTX, Cubin };

struct TargetRequest {
  GpuArch arch = getDefaultGpuArch();
  TargetOutput output = TargetOutput::Cubin;
  AssemblerRoute route = AssemblerRoute::Auto;
  /// Ask the assembler for its resource report (spills) in `assemblerLog`.
  bool verbose = false;
};

struct TargetArtifact {
  /// LLVM IR text, PTX text or the cubin's bytes.
  std::string bytes;
  bool binary = false;
  /// The assembler's log (Cubin only; with `verbose`, ptxas -v's report).
  std::string assemblerLog;
  /// PTX or Cubin: why ptxas serializes the kernel's wgmma products
  /// (PtxChecks.h), when it does.
  std::optional<std::string> wgmmaSerialized;
};

/// Runs the Target stage on a module of LLVM/NVVM dialect ops. Located
/// problems (an instruction the arch lacks, a failed translation) go to
/// the module's diagnostic handler and leave `error` empty; a PTX or
/// assembler failure returns its message in `error`. Stage timings nest in
/// `timing`.
std::optional<TargetArtifact> runTargetStage(mlir::ModuleOp module,
                                             const TargetRequest &request,
                                             mlir::TimingScope &timing,
                                             std::string &error);

} // namespace dslc

#endif // DSLC_COMPILER_TARGET_TARGETSTAGE_H
