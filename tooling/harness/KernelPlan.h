//===- KernelPlan.h - Binding any kernel from its metadata ------*- C++ -*-===//
//
// How dslrun, the harness and the tuner bind a kernel that is not a known
// collective: the contract's binding plan (contract/BindingPlan.h: every
// argument from its role in the metadata, sizes from the contract's
// rules) for the shapes and scalar values of the command line (a
// ProblemSpec: --size NAME=AxB, --scalar NAME=V). Outputs are poisoned
// with 0xff before each phase. No list of known kernels, no GPU.
//
// Every problem (a missing or unknown size, a rank mismatch, a scalar
// without a value, an int scalar with a fraction) is listed in one error.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLING_HARNESS_KERNELPLAN_H
#define DSLC_TOOLING_HARNESS_KERNELPLAN_H

#include "contract/BindingPlan.h"
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

/// How the harness fills an argument, and the decision for one argument:
/// the contract's (contract/BindingPlan.h).
using contract::Fill;
using contract::fillName;
using PlannedArg = contract::ArgBinding;

/// The contract's plan for a problem, with the problem.
struct KernelPlan : contract::BindingPlan {
  ProblemSpec spec;

  /// One line per argument: "a_shared: input bfloat16[8192], random".
  std::vector<std::string> describe() const;
};

/// contract::planBinding for the spec's shapes and scalars; throws
/// rt::Error(InvalidArgument) naming the kernel and listing every problem.
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
