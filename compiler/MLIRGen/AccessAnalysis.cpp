//===- AccessAnalysis.cpp - Each kernel parameter's role ------------------===//
#include "compiler/MLIRGen/AccessAnalysis.h"

#include "compiler/Analysis/ArgRoles.h"

#include <algorithm>

using namespace mlir;

namespace dslc {
namespace {

/// The arguments that are a symmetric tensor's own peer table (named as
/// its `peers` ABI slot), by index: the tensor's name.
std::map<unsigned, std::string>
peerTablesOfSymmetric(const std::vector<std::string> &argNames,
                      const KernelDescription &desc) {
  std::map<unsigned, std::string> out;
  for (const contract::ArgSpec &a : desc.args) {
    if (!a.symmetric)
      continue;
    contract::AbiSlot slot;
    slot.kind = contract::SlotKind::Peers;
    slot.param = a.name;
    auto it = std::find(argNames.begin(), argNames.end(),
                        contract::canonicalSlotName(slot));
    if (it != argNames.end())
      out[static_cast<unsigned>(it - argNames.begin())] = a.name;
  }
  return out;
}

} // namespace

LogicalResult describeParamAccess(func::FuncOp kernel,
                                  const std::vector<std::string> &argNames,
                                  KernelDescription &desc) {
  std::map<unsigned, std::string> peersOf =
      peerTablesOfSymmetric(argNames, desc);
  std::set<unsigned> returned;
  for (unsigned i = 0; i < argNames.size(); ++i) {
    int idx = desc.findArg(argNames[i]);
    if (idx >= 0 && desc.args[idx].isOutput)
      returned.insert(i);
  }
  FailureOr<std::vector<ArgRole>> roles =
      decideArgRoles(kernel, argNames, peersOf, returned);
  if (failed(roles))
    return failure();
  for (unsigned i = 0; i < roles->size() && i < argNames.size(); ++i) {
    int idx = desc.findArg(argNames[i]);
    if (idx < 0)
      continue; // a symmetric tensor's own table
    contract::ArgSpec &spec = desc.args[idx];
    const ArgRole &r = (*roles)[i];
    spec.role = r.role;
    if (spec.isTensor()) {
      spec.access = r.access;
      spec.peerTableFor = r.role == contract::Role::PeerTable ? r.of : "";
      spec.packets = r.packets;
    }
  }
  for (contract::ArgSpec &c : desc.constexprs)
    c.role = contract::Role::Constexpr;
  // Equal sizes bind inputs and outputs only: scratch, pads, staging and
  // workspaces are sized by the contract (an LL scratch or a staging
  // buffer may hold more than the data).
  auto isData = [&](const std::string &name) {
    int idx = desc.findArg(name);
    if (idx < 0)
      return false;
    contract::Role r = desc.args[idx].role;
    return r == contract::Role::Input || r == contract::Role::Output;
  };
  llvm::erase_if(desc.sameSizes, [&](const contract::SameSize &s) {
    return !isData(s.param) || !isData(s.as);
  });
  return success();
}

} // namespace dslc
