//===- NpyFormat.h - The .npy files of a simulation dump --------*- C++ -*-===//
//
// `dslc --simulate --dump-dir DIR` writes every input and output as a .npy
// file (numpy's format, version 1.0: a magic string, a header giving the
// element type, C order and the shape, then the elements as the GPU holds
// them, little endian), so numpy and torch load them directly:
//
//   a = numpy.load("DIR/r0.c0.out.out.npy")
//   t = torch.from_numpy(a)          # .view(torch.bfloat16) for bfloat16
//
// numpy has no bfloat16 or fp8 types: those files hold the raw bits as
// '<u2' / '|u1' (the manifest names the dtype; torch's .view restores it).
// This is the one writer and the one reader of the format, part of the
// dump's schema (contract/SimulationDump.h): the simulator's Dump.cpp
// writes, tooling/simdump reads.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_CONTRACT_NPYFORMAT_H
#define DSLC_CONTRACT_NPYFORMAT_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dslc::npy {

/// numpy's type string of a dtype of docs/kernel-abi.md ("float32" ->
/// "<f4", "bfloat16" -> "<u2", "float8_e4m3fn" -> "|u1", "bool" -> "|b1");
/// empty for an unknown name.
std::string descrOf(const std::string &dtype);

/// The header of a C-order array of `descr` elements and `shape` (magic,
/// version 1.0, length, the dictionary padded so the data starts at a
/// multiple of 64 bytes).
std::string header(const std::string &descr, const std::vector<int64_t> &shape);

struct Header {
  std::string descr;
  std::vector<int64_t> shape;
  bool fortranOrder = false;
  size_t dataOffset = 0; ///< Where the elements start.
};

/// Parses the header at the start of the `size` bytes at `data` (versions
/// 1.0 to 3.0). False with `error` naming what is wrong.
bool parseHeader(const char *data, size_t size, Header &h, std::string &error);

} // namespace dslc::npy

#endif // DSLC_CONTRACT_NPYFORMAT_H
