//===- GenComm.cpp - Communication builtins -------------------------------===//

#include "compiler/MLIRGen/Generator.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace dslc::mlirgen {

Result Generator::genRemoteTensors(const ast::CallExpr &e) {
  const ast::Expr *arg = argument(e, 0, "tensor");
  if (!arg)
    return fail(e.getRange(), "get_remote_tensors needs a tensor");
  Result t = genExpr(*arg);
  if (failed(t))
    return failure();
  SemValue *peers =
      t->kind == SemValue::Kind::Ref ? lookup(t->text + ".peers") : nullptr;
  if (!peers)
    return fail(arg->getRange(),
                "get_remote_tensors takes a tensor parameter of the kernel");
  if (!desc.worldSize && !reportedUnbound.insert("world_size").second)
    return failure();
  if (!desc.worldSize)
    return fail(e.getRange(),
                "get_remote_tensors needs the world size at compile time: " +
                    worldSizeHint());
  auto refType = cast<tile::RefType>(t->value.getType());
  SemValue v = SemValue::ofKind(SemValue::Kind::PeerList);
  v.value = comm::StackViewOp::create(
      builder, loc(e),
      comm::StackType::get(&ctx, refType.getElementType(), refType.getRank()),
      peers->value, t->value);
  v.peers = *desc.worldSize;
  v.text = t->text;
  return v;
}

Result Generator::genStackTensor(const ast::CallExpr &e) {
  const ast::Expr *likeArg = argument(e, 0, "tensor_like");
  const ast::Expr *ptrArg = argument(e, 1, "dev_ptrs");
  if (!likeArg || !ptrArg)
    return fail(e.getRange(),
                "hl.stacktensor_like(tensor_like, dev_ptrs) takes two "
                "arguments");
  Result like = genExpr(*likeArg);
  Result ptrs = genExpr(*ptrArg);
  if (failed(like) || failed(ptrs))
    return failure();
  if (like->kind != SemValue::Kind::Ref)
    return fail(likeArg->getRange(), "tensor_like must be a tensor");
  if (ptrs->kind != SemValue::Kind::Ref ||
      cast<tile::RefType>(ptrs->value.getType()).getRank() != 1 ||
      !cast<tile::RefType>(ptrs->value.getType())
           .getElementType()
           .isInteger(64))
    return fail(ptrArg->getRange(),
                "dev_ptrs must be a 1-d uint64 tensor of peer addresses (or "
                "a full slice of one, t[:])");
  return stackOf(*like, *ptrs, loc(e));
}

SemValue Generator::stackOf(const SemValue &like, const SemValue &ptrs,
                            mlir::Location l) {
  if (desc.worldSize)
    addConstraint({ptrs.text, 0, "==", *desc.worldSize});
  auto refType = cast<tile::RefType>(like.value.getType());
  SemValue v = SemValue::ofKind(SemValue::Kind::Stack);
  v.value = comm::StackViewOp::create(
      builder, l,
      comm::StackType::get(&ctx, refType.getElementType(), refType.getRank()),
      ptrs.value, like.value);
  v.text = like.text;
  return v;
}

/// `stack[:, idx].sum(0)` (also `.sum(dim=0)`): the sum over peers of
/// every peer's tile at `idx`, one comm.multicast_load_reduce (a load per
/// peer, or `multimem.ld_reduce` with --multicast=nvls).
Result Generator::genLoadReduce(const ast::CallExpr &e, const SemValue &stack,
                                const ast::SubscriptExpr &sub) {
  const char *form = "a stack tensor is loaded as `stack[:, index].sum(0)`: "
                     "the sum over peers";
  auto *tuple = ast::dyn_cast<ast::TupleExpr>(&sub.getIndex());
  auto *peers =
      tuple && !tuple->getElements().empty()
          ? ast::dyn_cast<ast::SliceExpr>(tuple->getElements().front().get())
          : nullptr;
  if (!peers || peers->getLower() || peers->getUpper() || peers->getStep())
    return fail(sub.getIndex().getRange(), form);
  const ast::Expr *dim = argument(e, 0, "dim");
  if (!dim || e.getArgs().size() != 1)
    return fail(e.getRange(), form);
  Result d = genExpr(*dim);
  if (failed(d))
    return failure();
  if (d->kind != SemValue::Kind::Int || d->intValue != 0)
    return fail(dim->getRange(), "only the peer dimension (0) of a stack "
                                 "tensor can be summed");
  auto type = cast<comm::StackType>(stack.value.getType());
  unsigned rank = type.getRank();
  // The index without the peer slice, as accessOf expects it.
  std::vector<const ast::Expr *> rest;
  for (size_t i = 1; i < tuple->getElements().size(); ++i)
    rest.push_back(tuple->getElements()[i].get());
  if (rest.size() != rank)
    return fail(sub.getIndex().getRange(),
                "a stack of " + std::to_string(rank) +
                    "-d tensors needs ':' "
                    "and " +
                    std::to_string(rank) + " indices, got " +
                    std::to_string(rest.size()));
  auto access = accessOfList(stack, rest, sub.getIndex());
  if (failed(access))
    return failure();
  if (access->gather)
    return fail(sub.getIndex().getRange(),
                "a stack tensor is read at tiles, not at computed indices");
  auto mode = options.multicast == MulticastMode::NVLS
                  ? comm::MulticastMode::nvls
                  : comm::MulticastMode::software;
  SemValue v = SemValue::ofKind(SemValue::Kind::TileData);
  v.value = comm::MulticastLoadReduceOp::create(
      builder, loc(e),
      RankedTensorType::get(access->shape, type.getElementType()), stack.value,
      access->offsets, access->limits, access->dims, mode);
  return v;
}

Result Generator::genEpoch(const ast::CallExpr &e) {
  if (!e.getArgs().empty())
    return fail(e.getRange(), "hl.epoch takes no arguments");
  if (!inGrid)
    return fail(e.getRange(), "hl.epoch is per CTA: call it inside the "
                              "kernel's tile loop");
  desc.stateBytes = std::max(desc.stateBytes, 4 * kMaxEpochCtas);
  desc.maxCtas = kMaxEpochCtas;
  SemValue v = SemValue::ofKind(SemValue::Kind::Scalar);
  v.value = comm::EpochOp::create(builder, loc(e), builder.getI32Type());
  return v;
}

Result Generator::genPacket(const ast::CallExpr &e, bool isPut) {
  const char *fn = isPut ? "hl.ll_put" : "hl.ll_get";
  // hl.ll_put(scratch, slot, value, flag, packet=16)
  // hl.ll_get(scratch, slot, flag, shape, dtype=..., packet=16)
  static const llvm::StringRef putKeys[] = {"scratch", "slot", "value", "flag",
                                            "packet"};
  static const llvm::StringRef getKeys[] = {"scratch", "slot",  "flag",
                                            "shape",   "dtype", "packet"};
  if (failed(
          checkKeywords(e, fn, isPut ? ArrayRef(putKeys) : ArrayRef(getKeys))))
    return failure();
  const ast::Expr *scratchArg = argument(e, 0, "scratch");
  const ast::Expr *slotArg = argument(e, 1, "slot");
  const ast::Expr *valueArg = isPut ? argument(e, 2, "value") : nullptr;
  const ast::Expr *flagArg = argument(e, isPut ? 3 : 2, "flag");
  const ast::Expr *shapeArg = isPut ? nullptr : argument(e, 3, "shape");
  if (!scratchArg || !slotArg || !flagArg || (isPut && !valueArg) ||
      (!isPut && !shapeArg))
    return fail(e.getRange(),
                std::string(fn) +
                    (isPut ? " takes (scratch, slot, value, flag)"
                           : " takes (scratch, slot, flag, shape)"));
  Result scratch = genExpr(*scratchArg);
  if (failed(scratch))
    return failure();
  if (scratch->kind != SemValue::Kind::Ref)
    return fail(scratchArg->getRange(),
                std::string("the scratch must be a tensor (a peer's, for "
                            "hl.ll_put), got ") +
                    kindName(scratch->kind));
  Result slotValue = genExpr(*slotArg);
  if (failed(slotValue))
    return failure();
  auto slot = toIndex(*slotValue, *slotArg);
  if (failed(slot))
    return failure();
  mlir::Location l = loc(e);
  FailureOr<Value> flag = packetFlag(*flagArg, l);
  if (failed(flag))
    return failure();
  int64_t packet = 16;
  if (const ast::Expr *p = keyword(e, "packet")) {
    auto c = constIntOf(*p, "the packet size");
    if (failed(c))
      return failure();
    if (*c != 8 && *c != 16)
      return fail(p->getRange(), "the packet size must be 8 or 16 bytes, got " +
                                     std::to_string(*c));
    packet = *c;
  }
  desc.spins |= !isPut;
  if (isPut) {
    Result value = genExpr(*valueArg);
    if (failed(value))
      return failure();
    if (value->kind != SemValue::Kind::TileData)
      return fail(valueArg->getRange(),
                  std::string("hl.ll_put sends a tile value, got ") +
                      kindName(value->kind));
    if (auto problem = comm::packetTileProblem(
            cast<RankedTensorType>(value->value.getType()), packet))
      return fail(valueArg->getRange(), "hl.ll_put: " + *problem);
    comm::LLPutOp::create(builder, l, value->value, scratch->value, *slot,
                          *flag, uint64_t(packet));
    return SemValue::none();
  }
  auto dtype = dtypeArgument(e, ~size_t(0), "float32");
  if (failed(dtype))
    return failure();
  auto type = tileShapeOf(*shapeArg, dtypeToType(&ctx, *dtype));
  if (failed(type))
    return failure();
  if (auto problem = comm::packetTileProblem(*type, packet))
    return fail(e.getRange(), "hl.ll_get: " + *problem);
  SemValue t = SemValue::ofKind(SemValue::Kind::TileData);
  t.value = comm::LLGetOp::create(builder, l, *type, scratch->value, *slot,
                                  *flag, uint64_t(packet));
  return t;
}

/// The i32 flag of an LL packet: a constant or an integer scalar.
FailureOr<Value> Generator::packetFlag(const ast::Expr &flagArg,
                                       mlir::Location l) {
  Result flagValue = genExpr(flagArg);
  if (failed(flagValue))
    return failure();
  if (flagValue->kind == SemValue::Kind::Int)
    return Value(
        arith::ConstantIntOp::create(builder, l, flagValue->intValue, 32));
  if (flagValue->kind == SemValue::Kind::Scalar &&
      isa<IntegerType, IndexType>(flagValue->value.getType())) {
    Value flag = flagValue->value;
    if (flag.getType().isIndex())
      flag = arith::IndexCastOp::create(builder, l, builder.getI32Type(), flag);
    else if (!flag.getType().isInteger(32))
      flag = arith::TruncIOp::create(builder, l, builder.getI32Type(), flag);
    return flag;
  }
  return error(flagArg.getRange(),
               std::string("the flag must be an integer (hl.epoch()), got ") +
                   kindName(flagValue->kind));
}

Result Generator::genSignalWait(const ast::CallExpr &e, bool isSignal) {
  const char *fn = isSignal ? "hl.signal" : "hl.wait";
  static const llvm::StringRef signalKeys[] = {
      "signal_pad", "index", "signal", "wait_for",
      "scope",      "op",    "sem",    "hasPreviousMemAccess",
      "as_ptrs"};
  static const llvm::StringRef waitKeys[] = {
      "signal_pad", "index", "signal", "update",
      "scope",      "op",    "sem",    "hasSubsequentMemAccess",
      "as_ptrs"};
  if (failed(checkKeywords(
          e, fn, isSignal ? ArrayRef(signalKeys) : ArrayRef(waitKeys))))
    return failure();
  size_t positional = e.getNumPositional();
  if (positional > 3)
    return fail(e.getRange(), std::string(fn) +
                                  " takes at most 3 positional arguments "
                                  "(pad, index, signal), got " +
                                  std::to_string(positional));
  const ast::Expr *padArg = argument(e, 0, "signal_pad");
  const ast::Expr *indexArg = argument(e, 1, "index");
  if (!padArg || !indexArg)
    return fail(e.getRange(), std::string(fn) + " needs a pad and an index");
  Result pad = genExpr(*padArg);
  if (failed(pad))
    return failure();
  if (pad->kind != SemValue::Kind::Ref && pad->kind != SemValue::Kind::Stack)
    return fail(padArg->getRange(), std::string("the pad must be a tensor") +
                                        (isSignal ? " or a stack tensor" : "") +
                                        ", got " + kindName(pad->kind));
  if (!isSignal && pad->kind == SemValue::Kind::Stack)
    return fail(padArg->getRange(),
                "hl.wait waits on the local pad, not on a stack tensor");
  Type element =
      pad->kind == SemValue::Kind::Ref
          ? cast<tile::RefType>(pad->value.getType()).getElementType()
          : cast<comm::StackType>(pad->value.getType()).getElementType();
  if (!element.isInteger(32))
    return fail(padArg->getRange(), "a signal pad holds int32 or uint32 flags");
  FailureOr<SignalSlots> slots = signalSlots(*pad, *indexArg);
  if (failed(slots))
    return failure();
  FailureOr<SignalOptions> opts = signalOptions(e, isSignal);
  if (failed(opts))
    return failure();

  emitSignalWait(isSignal, pad->value, *slots, *opts, loc(e));
  return SemValue::none();
}

void Generator::emitSignalWait(bool isSignal, Value pad,
                               const SignalSlots &slots,
                               const SignalOptions &opts, mlir::Location l) {
  desc.spins |= !isSignal || opts.extra.has_value();
  IntegerAttr extra =
      opts.extra ? builder.getI64IntegerAttr(*opts.extra) : IntegerAttr();
  if (isSignal)
    comm::SignalOp::create(builder, l, pad, slots.indices, slots.extents,
                           opts.signal, extra, opts.scope, opts.sem,
                           opts.memAccess);
  else
    comm::WaitOp::create(builder, l, pad, slots.indices, slots.extents,
                         opts.signal, extra, opts.scope, opts.sem,
                         opts.memAccess);
}

FailureOr<Generator::SignalSlots>
Generator::signalSlots(const SemValue &pad, const ast::Expr &indexArg) {
  unsigned rank = pad.kind == SemValue::Kind::Ref
                      ? cast<tile::RefType>(pad.value.getType()).getRank()
                      : cast<comm::StackType>(pad.value.getType()).getRank();
  // The index: a list with one entry per pad dimension.
  std::vector<const ast::Expr *> idx = elementsOf(indexArg);
  if (idx.size() != rank)
    return error(indexArg.getRange(), "the pad has " + std::to_string(rank) +
                                          " dimension(s) but the index has " +
                                          std::to_string(idx.size()) +
                                          " entries");
  SignalSlots slots;
  for (unsigned d = 0; d < rank; ++d) {
    Result v = genExpr(*idx[d]);
    if (failed(v))
      return failure();
    if (v->kind == SemValue::Kind::Tile) {
      slots.indices.push_back(v->begin);
      slots.extents.push_back(v->block);
      continue;
    }
    auto i = toIndex(*v, *idx[d]);
    if (failed(i))
      return failure();
    if (v->kind == SemValue::Kind::Int && v->intValue < 0)
      return error(idx[d]->getRange(), "a slot index cannot be negative");
    // A constant slot past a dimension the kernel specialized (`_, world =
    // pad.size(); hl.specialize(world)`) would write outside the pad.
    if (v->kind == SemValue::Kind::Int)
      for (const Constraint &c : desc.constraints)
        if (c.param == pad.text && c.dim == d && c.op == "==" &&
            std::holds_alternative<int64_t>(c.value) &&
            v->intValue >= std::get<int64_t>(c.value))
          return error(idx[d]->getRange(),
                       "slot " + std::to_string(v->intValue) +
                           " is outside dimension " + std::to_string(d) +
                           " of '" + pad.text + "', specialized to size " +
                           std::to_string(std::get<int64_t>(c.value)));
    // A grid tile's id indexes one row per tile: the pad needs that many.
    if (auto *attr = ast::dyn_cast<ast::AttributeExpr>(idx[d]))
      if (attr->getName() == "id" && pad.kind == SemValue::Kind::Ref) {
        Result t = genExpr(attr->getBase());
        if (succeeded(t) && t->kind == SemValue::Kind::Tile && t->gridTile)
          addConstraint({pad.text, d, ">=", contract::NumTiles{}});
      }
    slots.indices.push_back(*i);
    slots.extents.push_back(1);
  }
  return slots;
}

FailureOr<Generator::SignalOptions>
Generator::signalOptions(const ast::CallExpr &e, bool isSignal) {
  auto signalValue = constIntArgument(e, "signal", 1, 2);
  auto extra = constIntArgument(e, isSignal ? "wait_for" : "update",
                                std::nullopt, ~size_t(0));
  auto scope = stringKeyword(e, "scope", "gpu");
  auto op = stringKeyword(e, "op", "");
  auto sem = stringKeyword(e, "sem", isSignal ? "release" : "acquire");
  auto memAccess = boolKeyword(e, isSignal ? "hasPreviousMemAccess"
                                           : "hasSubsequentMemAccess");
  if (failed(signalValue) || failed(extra) || failed(scope) || failed(op) ||
      failed(sem) || failed(memAccess))
    return failure();
  if (!*signalValue)
    return error(e.getRange(), "'signal' cannot be None");
  SyncSpelling spelling;
  spelling.isSignal = isSignal;
  spelling.scope = *scope;
  spelling.sem = *sem;
  spelling.op = *op;
  spelling.scopeAt = keyword(e, "scope");
  spelling.semAt = keyword(e, "sem");
  spelling.opAt = keyword(e, "op");
  spelling.hasExtra = extra->has_value();
  SignalOptions o;
  if (failed(checkSync(e, spelling, o)))
    return failure();
  o.signal = **signalValue;
  o.extra = *extra;
  o.memAccess = *memAccess;
  return o;
}

LogicalResult Generator::checkSync(const ast::CallExpr &e,
                                   const SyncSpelling &s, SignalOptions &o) {
  auto at = [&](const ast::Expr *x) { return (x ? *x : e).getRange(); };
  if (s.scope != "gpu" && s.scope != "sys")
    return error(at(s.scopeAt),
                 "scope must be \"gpu\" or \"sys\", got \"" + s.scope + "\"");
  std::optional<comm::MemSem> semantic;
  for (auto [name, v] : {std::pair{"relaxed", comm::MemSem::relaxed},
                         std::pair{"acquire", comm::MemSem::acquire},
                         std::pair{"release", comm::MemSem::release},
                         std::pair{"acq_rel", comm::MemSem::acq_rel}})
    if (s.sem == name)
      semantic = v;
  if (!semantic)
    return error(at(s.semAt),
                 "sem must be \"relaxed\", \"acquire\", \"release\" or "
                 "\"acq_rel\", got \"" +
                     s.sem + "\"");
  if (s.isSignal && *semantic == comm::MemSem::acquire)
    return error(at(s.semAt), "a signal cannot have acquire semantics");
  if (!s.isSignal && *semantic == comm::MemSem::release)
    return error(at(s.semAt), "a wait cannot have release semantics");
  // The op= spelling must agree with the CAS/exchange choice.
  if (!s.op.empty()) {
    bool cas = s.op == "atomic_cas";
    bool plain = s.isSignal ? s.op == "atomic_xchg" : s.op == "ld";
    if (!cas && !plain)
      return error(at(s.opAt),
                   std::string("op must be ") +
                       (s.isSignal ? "\"atomic_xchg\" or \"atomic_cas\""
                                   : "\"ld\" or \"atomic_cas\"") +
                       ", got \"" + s.op + "\"");
    if (cas && !s.hasExtra)
      return error(at(s.opAt), std::string("op=\"atomic_cas\" needs ") +
                                   (s.isSignal ? "wait_for" : "update"));
  }
  o.scope = s.scope == "sys" ? comm::MemScope::sys : comm::MemScope::gpu;
  o.sem = *semantic;
  return success();
}

} // namespace dslc::mlirgen
