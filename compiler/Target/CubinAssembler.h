//===- CubinAssembler.h - PTX to cubin --------------------------*- C++ -*-===//

#ifndef DSLC_COMPILER_TARGET_CUBINASSEMBLER_H
#define DSLC_COMPILER_TARGET_CUBINASSEMBLER_H

#include <optional>
#include <string>
#include <vector>

namespace dslc {

enum class AssemblerRoute {
  Auto,      ///< nvJitLink in-process when it loads, else ptxas; when
             ///< nvJitLink's cubin spills and ptxas is there, the one of
             ///< the two that spills less.
  NvJitLink, ///< libnvJitLink.so.13 (CUDA 13), in-process.
  Ptxas,     ///< The ptxas executable (DSLC_PTXAS, CUDA's bin, or PATH).
};

struct CubinResult {
  std::vector<char> cubin;
  std::string log;   ///< Assembler info log (resource usage with -v).
  std::string route; ///< "nvjitlink" or "ptxas".
};

/// Assembles `ptx` for `arch` (sm_90, ...). `verbose` asks the assembler
/// for its resource report (registers, spills) in the log. On failure
/// returns std::nullopt and sets `error` to the assembler's message.
std::optional<CubinResult> assembleCubin(const std::string &ptx,
                                         const std::string &arch,
                                         AssemblerRoute route, bool verbose,
                                         std::string &error);

/// Path of the ptxas executable, or empty.
std::string findPtxas();

/// What the assembler's resource report (verbose log) says of spills: the
/// largest spill stores and loads of any function, in bytes per thread.
struct SpillReport {
  int64_t storeBytes = 0, loadBytes = 0;
  bool any() const { return storeBytes > 0 || loadBytes > 0; }
  /// Whether a compile again (the other assembler, loads kept back) may
  /// still remove the spills: at most kMaxRetriedSpillBytes of stores.
  bool retryable() const {
    return any() && storeBytes <= kMaxRetriedSpillBytes;
  }
  /// What the retries remove is tens of registers (the two assemblers'
  /// allocations: 228 B against none for Helion's attention_backward; 32 B
  /// a thread of prefetched loads, 64 B of early loads, a held row or
  /// two), and each runs ptxas again: jsd at one warp spills 7276 B, and
  /// nvJitLink then the ptxas executable took 6 s of a tuner's on-demand
  /// compile where one assembler takes 3.
  static constexpr int64_t kMaxRetriedSpillBytes = 1024;
};
SpillReport parseSpills(const std::string &log);

} // namespace dslc

#endif // DSLC_COMPILER_TARGET_CUBINASSEMBLER_H
