//===- SimulationDump.h - Read a dslc --simulate dump -----------*- C++ -*-===//
//
// `dslc FILE --simulate --world-size N --dump-dir DIR` writes a dump whose
// schema (manifest.json and the .npy files of every input and output) is
// the contract's (contract/SimulationDump.h, contract/NpyFormat.h). This
// file reads such a dump from disk, checks it against a kernel's metadata
// and compares a GPU output with the simulator's (docs/runtime.md,
// "Differential check"). Nothing here needs a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLING_SIMDUMP_SIMULATIONDUMP_H
#define DSLC_TOOLING_SIMDUMP_SIMULATIONDUMP_H

#include "contract/Numerics.h"
#include "contract/SimulationDump.h"
#include "runtime/DType.h"
#include "runtime/Metadata.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dslc::run {

using contract::DumpParam;
using contract::dumpRoleName;

/// A dump on disk: its manifest (contract/SimulationDump.h, the schema and
/// its one reader) and where its files are.
struct SimulationDump : contract::DumpManifest {
  std::string dir;      ///< directory holding manifest.json
  std::string manifest; ///< dir + "/manifest.json" (for messages)

  std::string inputPath(int rank, int64_t launch,
                        const std::string &name) const;
  std::string outputPath(int rank, int64_t launch,
                         const std::string &name) const;
  /// The bytes of an input (role Input) or of the simulator's output (role
  /// Output) of `rank` in `launch`: the elements of its .npy file. Throws
  /// Error(Io) when the file is missing or unreadable,
  /// Error(InvalidArgument) when it is not a .npy file of the parameter's
  /// type and sizes (C order).
  std::vector<char> readInput(int rank, int64_t launch,
                              const DumpParam &p) const;
  std::vector<char> readOutput(int rank, int64_t launch,
                               const DumpParam &p) const;
};

/// Parses the text of a manifest; `dir` is the dump directory (file paths and
/// messages). Throws Error(Metadata) naming the manifest and the field.
SimulationDump parseSimulationManifest(const std::string &text,
                                       const std::string &dir);
/// Reads DIR/manifest.json and checks that every input and output file of
/// every rank and launch is present with the size the manifest gives
/// (Error(Io) / Error(InvalidArgument) naming the file otherwise).
SimulationDump loadSimulationDump(const std::string &dir);

/// Checks that `dump` was made for the kernel `md` describes on `worldSize`
/// ranks: same kernel name and world size (and the metadata's, when it was
/// specialized), every bindable argument present in the manifest with a
/// matching kind, role, dtype and rank, every manifest parameter known to the
/// kernel. Integer dtypes match by width (the simulator's IR has signless
/// integers: a uint64 peer table is dumped as int64); peer tables must hold
/// `worldSize` 64-bit entries. Throws Error(InvalidArgument) listing every
/// mismatch.
void checkDumpMatchesKernel(const SimulationDump &dump,
                            const rt::KernelMetadata &md, int worldSize);

/// A GPU output compared element by element with the simulator's.
struct OutputComparison {
  rt::DType dtype = rt::DType::Float32;
  int64_t elements = 0;
  int64_t differing = 0; ///< elements whose bytes differ
  /// Largest distance in units in the last place over differing float
  /// elements (kUlpInfinite when a NaN or a sign/class mismatch makes it
  /// meaningless; integers: 0 when equal, else kUlpInfinite).
  uint64_t maxUlp = 0;
  int64_t firstDiffering = -1;
  std::string firstGot, firstExpected; ///< values at firstDiffering
  int64_t worstElement = -1;           ///< where maxUlp was seen
  /// Floats more than 1 ulp apart: the contract's tolerance model
  /// (contract/Tolerance.h) over the output, for the world size.
  bool withinTolerance = false;
  double relError = 0, tolerance = 0;

  static constexpr uint64_t kUlpInfinite = contract::kUlpInfinite;
  bool bitwiseEqual() const { return differing == 0; }
  /// Integers: bitwise equal. Floats: no element more than `maxUlpAllowed`
  /// ulps away, or the whole output within the tolerance model (reductions
  /// and math functions may round differently on the GPU).
  bool acceptable(uint64_t maxUlpAllowed = 1) const;
};

/// Compares `n` elements of `dtype` (little-endian, as the GPU stores them)
/// made from the data of `worldSize` ranks.
OutputComparison compareOutputs(rt::DType dtype, const void *got,
                                const void *expected, int64_t n,
                                int worldSize = 1);

/// Distance in ulps between two values given as raw bits (the contract's).
using contract::ulpDistance;

/// One line: "rank R: output 'out' (bfloat16[100003]): bitwise equal to the
/// simulator" or the count of differing elements, max ulp, the first one and
/// "ok"/"FAILED".
std::string formatVerdict(int rank, const DumpParam &p,
                          const OutputComparison &c);

} // namespace dslc::run

#endif // DSLC_TOOLING_SIMDUMP_SIMULATIONDUMP_H
