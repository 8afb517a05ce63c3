//===- DslReference.h - A reference kernel written in the DSL ---*- C++ -*-===//
//
// The user's reference for a kernel that is not a plain collective (e.g. a
// fused all-reduce + residual + RMSNorm): a plain tile kernel of the same
// file, compiled by dslc, run once on the first local GPU over every
// rank's inputs. The convention is the simulator's (docs/simulator.md,
// "User references"):
//   - a tensor parameter named like an input X of the checked kernel gets
//     every rank's X stacked on a new leading dimension, [W, *X's shape];
//   - an output (or written parameter) named like an output O of the
//     checked kernel is O's expectation stacked the same way: row r is what
//     rank r's O must hold; when both kernels have one output the names
//     need not match;
//   - a scalar takes the checked kernel's value by name;
//   - nothing else (no pads, tables, packets): errors name the parameter.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLING_HARNESS_DSLREFERENCE_H
#define DSLC_TOOLING_HARNESS_DSLREFERENCE_H

#include "runtime/Communicator.h"
#include "runtime/Kernel.h"
#include "tooling/harness/KernelHarness.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace dslc::run {

/// How each reference argument is bound (no GPU: unit-tested).
struct ReferenceBinding {
  struct Arg {
    enum class Kind { StackedInput, StackedOutput, Scalar };
    Kind kind = Kind::StackedInput;
    int checked = -1;           ///< the checked kernel's argument (plan index)
    std::vector<int64_t> shape; ///< [W, *checked shape] (tensors)
  };
  std::vector<Arg> args; ///< one per reference metadata.args
};

/// Matches the reference's arguments with the checked kernel's plan.
/// Throws rt::Error(InvalidArgument) listing every problem (an unknown
/// name, a role the convention does not bind, a dtype or rank mismatch).
ReferenceBinding bindReference(const rt::KernelMetadata &reference,
                               const KernelPlan &checked);

/// Compiles reference `spec` ("FILE.py:NAME") for `world` ranks into
/// `out` (+ .json) with `dslc`: -D world_size=W and the checked kernel's
/// other constants; when the reference's tensors named like the checked
/// kernel's have other dtypes (a --signature given to the checked kernel),
/// compiles again with --signature giving them the checked dtypes. Throws
/// rt::Error(InvalidArgument) with dslc's message.
void compileReference(const std::string &dslc, const std::string &spec,
                      const rt::KernelMetadata &checked, int world,
                      const std::string &out,
                      const std::vector<std::string> &extraArgs = {});

class DslReference : public Reference {
public:
  /// `kernel` is the reference loaded on `comm` (Kernel::load is
  /// collective); `label` names it in verdicts ("ref.py:rmsnorm_ref").
  DslReference(rt::Communicator &comm, std::unique_ptr<rt::Kernel> kernel,
               std::string label);
  ~DslReference() override;
  void prepare(const KernelPlan &plan, uint32_t seed) override;
  const std::vector<double> *expected(int arg, int rank) const override;
  std::string name() const override { return "reference " + label_; }

private:
  void freeBuffers() noexcept;
  rt::Communicator &comm_;
  std::unique_ptr<rt::Kernel> kernel_;
  std::string label_;
  std::vector<void *> buffers_; ///< on local rank 0's device
  std::string preparedFor_;     ///< kernel, problem and seed computed
  /// (checked output, rank) -> values
  std::map<std::pair<int, int>, std::vector<double>> expected_;
};

} // namespace dslc::run

#endif // DSLC_TOOLING_HARNESS_DSLREFERENCE_H
