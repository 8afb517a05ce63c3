//===- SimulationDump.h - The schema of a simulation dump -------*- C++ -*-===//
//
// `dslc FILE --simulate --world-size N --dump-dir DIR` writes DIR/manifest.json
// (format "dslc-simulation", version 2: kernel, seed, world size, launches,
// the reference and every parameter's role, dtype and sizes, or a scalar's
// value), each input of each launch and rank (r<R>.c<L>.<name>.npy) and the
// simulator's outputs (r<R>.c<L>.<name>.out.npy) as .npy files of the bytes
// a GPU holds (contract/NpyFormat.h). This is the schema with its one writer
// (the simulator's compiler/Simulator/Dump.cpp calls it) and its one reader
// (tooling/simdump, dslrun --inputs-from).
//
// A parameter's role is the contract's Role, spelled in the manifest as
// "input", "output", "signal pad", "peer table", "LL scratch", "workspace"
// (Role::InOut) and, for scalars, kind "scalar" (Role::Scalar).
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_CONTRACT_SIMULATIONDUMP_H
#define DSLC_CONTRACT_SIMULATIONDUMP_H

#include "contract/DType.h"
#include "contract/Expected.h"
#include "contract/Metadata.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dslc::contract {

inline constexpr const char *kDumpFormat = "dslc-simulation";
inline constexpr int kDumpVersion = 2;

/// The manifest's spelling of a tensor's role ("signal pad", "LL scratch",
/// "workspace" for InOut; "scalar" for scalars).
const char *dumpRoleName(Role role);
/// The converse, for the roles a manifest's tensor may have.
std::optional<Role> parseDumpRole(const std::string &name);

/// "r<rank>.c<launch>.<name>.npy" (an input) and "...out.npy" (an output).
std::string dumpInputFile(int rank, int64_t launch, const std::string &name);
std::string dumpOutputFile(int rank, int64_t launch, const std::string &name);

/// One parameter of the manifest (an ABI-level name: a symmetric tensor's
/// peer table appears as its own "X.peers" entry).
struct DumpParam {
  using Role = contract::Role;
  std::string name;
  /// Input, Output, SignalPad, PeerTable, Scratch (an LL packet scratch),
  /// InOut (a workspace: zeroed once, not compared) or Scalar.
  Role role = Role::Input;
  std::string dtypeName; ///< as the manifest spells it (tensors)
  DType dtype = DType::Float32;
  std::vector<int64_t> sizes;
  std::string tableOf; ///< peer tables: the buffer whose addresses they hold
  bool isFloatScalar = false;
  int64_t intValue = 0; ///< scalars
  double floatValue = 0.0;

  bool isTensor() const { return role != Role::Scalar; }
  int64_t numel() const;
  /// numel() * the element size.
  uint64_t bytes() const;
};

struct DumpManifest {
  std::string kernel;
  int worldSize = 0;
  int64_t launches = 0;
  uint64_t seed = 0;
  std::string reference;
  std::vector<DumpParam> params;

  /// The parameter named `name`, or null.
  const DumpParam *find(const std::string &name) const;
};

/// The manifest's JSON text (the writer).
std::string manifestJson(const DumpManifest &m);

/// Parses a manifest's text (the reader); the failure names `origin` and
/// the field: "simulation manifest ORIGIN: params[2] 'x': ...".
Expected<DumpManifest> parseManifest(const std::string &text,
                                     const std::string &origin);

} // namespace dslc::contract

#endif // DSLC_CONTRACT_SIMULATIONDUMP_H
