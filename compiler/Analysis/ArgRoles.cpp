//===- ArgRoles.cpp - The role of every argument of a tile kernel --------===//
#include "compiler/Analysis/ArgRoles.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>

using namespace mlir;

namespace dslc {
namespace {

using contract::Access;
using contract::Role;

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
    } else if (auto view = dyn_cast<tile::ViewOp>(op)) {
      bits |= accessOf(view.getResult());
    } else if (isa<tile::DimOp>(op)) {
      continue;
    } else if (isa<tile::LoadOp, tile::AsyncCopyOp, tile::GatherOp,
                   comm::LLGetOp, comm::MulticastLoadReduceOp>(op)) {
      bits |= kRead;
    } else if (isa<tile::StoreOp, tile::ScatterOp, comm::LLPutOp,
                   comm::MulticastStoreOp>(op)) {
      bits |= kWrite;
    } else {
      // Signal and wait read and write their slots.
      bits |= kRead | kWrite;
    }
  }
  return bits;
}

Access accessFromBits(unsigned bits) {
  switch (bits) {
  case kRead:
    return Access::Read;
  case kWrite:
    return Access::Write;
  case kRead | kWrite:
    return Access::ReadWrite;
  default:
    return Access::None;
  }
}

/// The role a tensor has by what the kernel does with its memory alone.
Role roleFromAccess(Access access) {
  switch (access) {
  case Access::Read:
    return Role::Input;
  case Access::Write:
    return Role::Output;
  case Access::ReadWrite:
    return Role::InOut;
  case Access::None:
    return Role::Unused;
  }
  return Role::Unused;
}

/// The kernel argument `v` is, through a peer's copy and a stack view of
/// it, or null.
BlockArgument underlyingArg(Value v, Block &entry) {
  v = tile::viewedTensor(v);
  if (auto peer = v.getDefiningOp<comm::PeerOp>())
    v = peer.getStack();
  if (auto view = v.getDefiningOp<comm::StackViewOp>())
    v = view.getLike();
  auto arg = dyn_cast<BlockArgument>(v);
  return arg && arg.getOwner() == &entry ? arg : BlockArgument();
}

/// What the analysis learns about one argument.
struct ArgFacts {
  std::string name;
  Role special = Role::Unused;    ///< PeerTable, SignalPad or Scratch, if any
  Operation *decidedBy = nullptr; ///< the op that made it special
  std::string tableOf;
  contract::PacketScratch packets;
  std::set<const void *> putSites;
};

class RoleAnalysis {
public:
  RoleAnalysis(func::FuncOp kernel, const std::vector<std::string> &names,
               const std::map<unsigned, std::string> &peersOf)
      : kernel(kernel), entry(kernel.getBody().front()),
        facts(entry.getNumArguments()), peersOf(peersOf) {
    for (unsigned i = 0; i < facts.size() && i < names.size(); ++i)
      facts[i].name = names[i];
  }

  LogicalResult run();
  const ArgFacts &operator[](unsigned i) const { return facts[i]; }

private:
  /// Gives argument `arg` the role `role` because of `op`; an error when it
  /// already has another.
  LogicalResult mark(BlockArgument arg, Role role, Operation *op);
  void countPackets(ArgFacts &f, Operation *op, RankedTensorType tile,
                    int64_t packet);

  func::FuncOp kernel;
  Block &entry;
  std::vector<ArgFacts> facts;
  const std::map<unsigned, std::string> &peersOf;
};

LogicalResult RoleAnalysis::mark(BlockArgument arg, Role role, Operation *op) {
  ArgFacts &f = facts[arg.getArgNumber()];
  if (f.decidedBy && f.special != role) {
    InFlightDiagnostic diag = op->emitError()
                              << "'" << f.name << "' is used as a "
                              << contract::roleName(role) << " here, but as a "
                              << contract::roleName(f.special)
                              << " elsewhere; a tensor has one role";
    diag.attachNote(f.decidedBy->getLoc())
        << "used as a " << contract::roleName(f.special) << " here";
    return diag;
  }
  if (!f.decidedBy) {
    f.special = role;
    f.decidedBy = op;
  }
  return success();
}

void RoleAnalysis::countPackets(ArgFacts &f, Operation *op,
                                RankedTensorType tile, int64_t packet) {
  // The tile of packets: each packet carries packetPayloadBytes of data.
  int64_t dataBytes =
      tile.getNumElements() *
      int64_t(tile.getElementType().getIntOrFloatBitWidth() / 8);
  f.packets.tileBytes =
      std::max(f.packets.tileBytes,
               dataBytes * packet / comm::packetPayloadBytes(packet));
  // An ll_put unrolled over peers is one call in the source: one region.
  if (isa<comm::LLPutOp>(op))
    f.putSites.insert(op->getLoc().getAsOpaquePointer());
  f.packets.puts = static_cast<int64_t>(f.putSites.size());
}

LogicalResult RoleAnalysis::run() {
  WalkResult result = kernel.walk([&](Operation *op) -> WalkResult {
    if (auto view = dyn_cast<comm::StackViewOp>(op)) {
      auto table = dyn_cast<BlockArgument>(view.getTable());
      BlockArgument like = underlyingArg(view.getLike(), entry);
      if (!table || table.getOwner() != &entry || !like)
        return WalkResult::advance();
      ArgFacts &f = facts[table.getArgNumber()];
      // A symmetric tensor's own table stays "peers of" it.
      if (peersOf.count(table.getArgNumber()))
        return WalkResult::advance();
      if (failed(mark(table, Role::PeerTable, op)))
        return WalkResult::interrupt();
      if (!f.tableOf.empty() && f.tableOf != facts[like.getArgNumber()].name) {
        op->emitError() << "the address table '" << f.name
                        << "' is used for both '" << f.tableOf << "' and '"
                        << facts[like.getArgNumber()].name << "'";
        return WalkResult::interrupt();
      }
      f.tableOf = facts[like.getArgNumber()].name;
      return WalkResult::advance();
    }
    Value pad, scratch;
    RankedTensorType tile;
    int64_t packet = 16;
    if (auto s = dyn_cast<comm::SignalOp>(op))
      pad = s.getPad();
    else if (auto w = dyn_cast<comm::WaitOp>(op))
      pad = w.getPad();
    else if (auto put = dyn_cast<comm::LLPutOp>(op))
      scratch = put.getScratch(), tile = put.getValue().getType(),
      packet = put.getPacket();
    else if (auto get = dyn_cast<comm::LLGetOp>(op))
      scratch = get.getScratch(), tile = get.getResult().getType(),
      packet = get.getPacket();
    if (pad)
      if (BlockArgument arg = underlyingArg(pad, entry))
        if (failed(mark(arg, Role::SignalPad, op)))
          return WalkResult::interrupt();
    if (scratch)
      if (BlockArgument arg = underlyingArg(scratch, entry)) {
        if (failed(mark(arg, Role::Scratch, op)))
          return WalkResult::interrupt();
        countPackets(facts[arg.getArgNumber()], op, tile, packet);
      }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

} // namespace

FailureOr<std::vector<ArgRole>>
decideArgRoles(func::FuncOp kernel, const std::vector<std::string> &names,
               const std::map<unsigned, std::string> &peersOf,
               const std::set<unsigned> &returned) {
  RoleAnalysis analysis(kernel, names, peersOf);
  if (failed(analysis.run()))
    return failure();
  Block &entry = kernel.getBody().front();
  MLIRContext *ctx = kernel.getContext();
  std::vector<ArgRole> roles(entry.getNumArguments());
  for (BlockArgument arg : entry.getArguments()) {
    unsigned i = arg.getArgNumber();
    const ArgFacts &f = analysis[i];
    ArgRole &r = roles[i];
    r.role = Role::Scalar;
    if (auto it = peersOf.find(i); it != peersOf.end()) {
      r.role = Role::Peers;
      r.of = it->second;
    } else if (isa<tile::RefType>(arg.getType())) {
      r.access = accessFromBits(accessOf(arg));
      r.role = f.decidedBy ? f.special : roleFromAccess(r.access);
      if (returned.count(i) && !f.decidedBy)
        r.role = Role::Output;
      if (returned.count(i) && r.role != Role::Output) {
        f.decidedBy->emitError()
            << "the returned tensor '" << f.name << "' is used as a "
            << contract::roleName(r.role)
            << " here; a returned tensor is an output";
        return failure();
      }
      r.of = f.tableOf;
      r.packets = f.packets;
    }
    kernel.setArgAttr(i, tile::kRoleAttr,
                      tile::RoleAttr::get(ctx, r.role,
                                          r.of.empty()
                                              ? StringAttr()
                                              : StringAttr::get(ctx, r.of)));
  }
  return roles;
}

LogicalResult decideMissingRoles(func::FuncOp kernel) {
  unsigned n = kernel.getNumArguments(), with = 0;
  for (unsigned i = 0; i < n; ++i)
    with += tile::getArgRole(kernel, i) ? 1 : 0;
  if (with == n)
    return success();
  std::vector<std::string> names;
  auto given = kernel->getAttrOfType<ArrayAttr>(tile::kArgNamesAttr);
  for (unsigned i = 0; i < n; ++i) {
    auto s = given && i < given.size() ? dyn_cast<StringAttr>(given[i])
                                       : StringAttr();
    names.push_back(s ? s.str() : "arg" + std::to_string(i));
  }
  if (with != 0) {
    for (unsigned i = 0; i < n; ++i)
      if (!tile::getArgRole(kernel, i))
        return kernel.emitError()
               << "kernel parameter '" << names[i]
               << "' has no #tile.role (argument attribute '" << tile::kRoleAttr
               << "') while others have one";
  }
  return success(succeeded(decideArgRoles(kernel, names, {}, {})));
}

} // namespace dslc
