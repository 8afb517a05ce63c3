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
};
SpillReport parseSpills(const std::string &log);

} // namespace dslc

#endif // DSLC_COMPILER_TARGET_CUBINASSEMBLER_H
