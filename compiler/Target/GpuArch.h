//===- GpuArch.h - The GPU architectures dslc compiles for ------*- C++ -*-===//
//
// One table (GpuArch.cpp) of the architectures `--arch` accepts, each with
// the PTX ISA version dslc emits for it. An architecture is in the table
// when LLVM 22's NVPTX backend generates code for it and CUDA 13's ptxas
// assembles every example for it; --arch rejects anything else by name.
// Only sm_90 has run on a GPU (docs/compiler.md, "Architectures").
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_COMPILER_TARGET_GPUARCH_H
#define DSLC_COMPILER_TARGET_GPUARCH_H

#include <string>
#include <string_view>

namespace dslc {

struct GpuArch {
  /// "sm_90a": the --arch spelling, LLVM's CPU name and ptxas's -arch.
  const char *name;
  /// The SM version: 90 for sm_90, sm_90a.
  unsigned smVersion;
  /// The PTX ISA version of the emitted PTX, times ten (84 = PTX 8.4): at
  /// least 8.4, the version dslc was developed against, and at least what
  /// the architecture needs.
  unsigned ptxVersion;

  /// multimem.st / multimem.ld_reduce (--multicast=nvls) need sm_90.
  bool hasMultimem() const { return smVersion >= 90; }
  /// cvt to and from fp8 (e4m3x2 / e5m2x2) needs sm_89.
  bool hasFp8Convert() const { return smVersion >= 89; }
  /// The LLVM subtarget feature of ptxVersion, e.g. "+ptx84".
  std::string getPtxFeature() const;
  /// "8.4".
  std::string getPtxVersionString() const;
};

/// The entry for `name`, or null when dslc does not compile for it.
const GpuArch *lookupGpuArch(std::string_view name);
/// sm_90: what dslc compiles for without --arch.
const GpuArch &getDefaultGpuArch();
/// The accepted names, in table order, separated by ", ".
std::string getGpuArchNames();

} // namespace dslc

#endif // DSLC_COMPILER_TARGET_GPUARCH_H
