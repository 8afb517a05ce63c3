//===- KernelPlan.h - Binding any kernel from its metadata ------*- C++ -*-===//
//
// How dslrun, the harness and the tuner bind a kernel that is not a known
// collective: every argument from its role in the metadata
// (docs/kernel-abi.md, "Roles"), shapes and scalar values from the command
// line (a ProblemSpec: --size NAME=AxB, --scalar NAME=V), everything else
// from the contract's sizing rules. No list of known kernels, no GPU.
//
//   role              shape                          filled
//   input             --size NAME=...                seeded random, per rank
//   output            --size, else its `like`'s,     poisoned (0xff) before
//                     else fixed by constraints      each phase; checked
//   inout             --size, else constraints       zeroed once (workspace)
//   signal_pad        contract::constrainedShape     zeroed once
//   peer_table of X   [world]                        X's peer addresses
//   scratch           contract::llScratchBytes       zeroed once
//   unused            --size, else 1s                zeroed once
//   scalar            --scalar NAME=V (int scalars:  by value
//                     also --size NAME=V)
//
// Every problem (a missing or unknown size, a rank mismatch, a scalar
// without a value, an int scalar with a fraction) is listed in one error.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLING_HARNESS_KERNELPLAN_H
#define DSLC_TOOLING_HARNESS_KERNELPLAN_H

#include "contract/Expected.h"
#include "runtime/Binding.h"
#include "runtime/Metadata.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dslc::run {

/// The sizes and scalar values of one problem.
struct ProblemSpec {
  std::map<std::string, std::vector<int64_t>> shapes;
  std::map<std::string, double> scalars;
  /// Terms in the longest sum behind one output element (a matmul's K
  /// times the world size...); 0: the world size. The tolerance against a
  /// reference is u * sqrt(sumTerms + 1) (contract/Tolerance.h).
  int64_t sumTerms = 0;

  /// Adds "NAME=AxB" (a tensor's shape; a single value may also be an
  /// int scalar's: planKernel decides by the kernel's metadata).
  contract::Expected<bool> addSize(const std::string &text);
  /// Adds "NAME=V" (a scalar's value, decimal or scientific).
  contract::Expected<bool> addScalar(const std::string &text);
  /// Adds every comma-separated item of "x=4x8192,weight=8192" as a size.
  contract::Expected<bool> addSizes(const std::string &text);
  /// "weight=8192,x=4x8192;eps=1e-06" (sorted; for messages and keys).
  std::string text() const;
  bool empty() const { return shapes.empty() && scalars.empty(); }
};

/// How the harness fills an argument.
enum class Fill { Random, Poison, Zero, PeerTable, Scalar };
const char *fillName(Fill f);

struct PlannedArg {
  std::string name;
  rt::Role role = rt::Role::Input; ///< outputs: Role::Output
  rt::DType dtype = rt::DType::Float32;
  bool isTensor = true;
  std::vector<int64_t> shape;
  size_t bytes = 0;       ///< per rank (at least 16 for tensors)
  bool symmetric = false; ///< in the heap with a peer table
  bool inHeap = false;    ///< symmetric heap (else cudaMalloc)
  int tableOf = -1;       ///< peer tables: the argument listed
  Fill fill = Fill::Zero;
  double scalar = 0; ///< scalars

  int64_t numel() const;
  bool isOutput() const { return role == rt::Role::Output; }
};

struct KernelPlan {
  std::string kernel;
  int world = 1;
  std::vector<PlannedArg> args; ///< one per metadata.args
  int64_t tiles = 0;            ///< the grid's tile count
  ProblemSpec spec;

  std::vector<int> inputs() const;  ///< Fill::Random arguments
  std::vector<int> outputs() const; ///< outputs (checked)
  int find(const std::string &name) const;
  /// Bytes per rank of symmetric heap the plan needs (with slack).
  size_t heapBytes() const;
  /// One line per argument: "a_shared: input bfloat16[8192], random".
  std::vector<std::string> describe() const;
};

/// Throws rt::Error(InvalidArgument) naming the kernel and listing every
/// problem.
KernelPlan planKernel(const rt::KernelMetadata &md, int world,
                      const ProblemSpec &spec);

/// Binds every argument of `a` (local[j] / peers[j] per argument; a peer
/// table gets peers[its target]; scalars by value), then a.check(world,
/// rank).
void bindKernel(rt::BoundArgs &a, const KernelPlan &plan,
                const std::vector<void *> &local,
                const std::vector<void *> &peers, int rank);

} // namespace dslc::run

#endif // DSLC_TOOLING_HARNESS_KERNELPLAN_H
