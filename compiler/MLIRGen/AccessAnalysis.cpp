//===- AccessAnalysis.cpp - How a kernel uses each tensor parameter -------===//
#include "compiler/MLIRGen/AccessAnalysis.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "llvm/ADT/StringRef.h"

#include <map>

using namespace mlir;

namespace dslc {
namespace {

enum AccessBits : unsigned { kNone = 0, kRead = 1, kWrite = 2 };

/// What the ops using `ref` (a tensor, a peer's copy or a stack tensor) do
/// with its memory. Unknown users count as both, so a new op errs on the
/// side of "readwrite".
unsigned accessOf(Value ref) {
  unsigned bits = kNone;
  for (OpOperand &use : ref.getUses()) {
    Operation *op = use.getOwner();
    if (auto view = dyn_cast<comm::StackViewOp>(op)) {
      // Operand 0 is the table (its entries are read as addresses), 1 the
      // tensor whose copies the stack names.
      bits |= use.getOperandNumber() == 0 ? kRead : accessOf(view.getResult());
    } else if (auto peer = dyn_cast<comm::PeerOp>(op)) {
      bits |= accessOf(peer.getResult());
    } else if (isa<tile::DimOp>(op)) {
      continue;
    } else if (isa<tile::LoadOp, comm::LLGetOp, comm::MulticastLoadReduceOp>(
                   op)) {
      bits |= kRead;
    } else if (isa<tile::StoreOp, comm::LLPutOp, comm::MulticastStoreOp>(op)) {
      bits |= kWrite;
    } else {
      // Signal and wait read and write their slots.
      bits |= kRead | kWrite;
    }
  }
  return bits;
}

const char *accessName(unsigned bits) {
  switch (bits) {
  case kRead:
    return "read";
  case kWrite:
    return "write";
  case kRead | kWrite:
    return "readwrite";
  default:
    return "none";
  }
}

} // namespace

void describeParamAccess(func::FuncOp kernel,
                         const std::vector<std::string> &argNames,
                         KernelDescription &desc) {
  std::map<std::string, unsigned> access;
  std::map<std::string, std::string> tableFor;
  Block &entry = kernel.getBody().front();
  for (BlockArgument arg : entry.getArguments()) {
    if (!isa<tile::RefType>(arg.getType()) ||
        arg.getArgNumber() >= argNames.size())
      continue;
    llvm::StringRef name = argNames[arg.getArgNumber()];
    // A symmetric tensor's own table (`NAME.peers`) is reached through the
    // tensor's stack view, whose uses count for the tensor.
    if (name.ends_with(".peers"))
      continue;
    access[name.str()] |= accessOf(arg);
    for (OpOperand &use : arg.getUses()) {
      auto view = dyn_cast<comm::StackViewOp>(use.getOwner());
      if (!view || use.getOperandNumber() != 0)
        continue;
      auto like = dyn_cast<BlockArgument>(view.getLike());
      if (like && like.getOwner() == &entry &&
          like.getArgNumber() < argNames.size())
        tableFor[name.str()] = argNames[like.getArgNumber()];
    }
  }
  for (ParamDescription &p : desc.params) {
    if (p.kind != ParamDescription::Kind::Tensor)
      continue;
    p.access = accessName(access[p.name]);
    auto it = tableFor.find(p.name);
    if (it != tableFor.end())
      p.peerTableFor = it->second;
  }
}

} // namespace dslc
