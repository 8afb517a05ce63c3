//===- GenAtomic.cpp - hl.atomic_add and the other atomics ----------------===//
//
// hl.atomic_<op>(target, index, value, sem="relaxed") updates the elements
// of `target` that `index` (a list: tiles, scalars, slices, integer tiles)
// selects with `value` (a tile broadcast to them, or a scalar), each with
// one atomic read-modify-write: tile.atomic, a scatter whose stores are
// atomic (GatherLowering.cpp). Helion returns the old values; dslc's atomics
// return nothing (the examples discard them).
//
//===----------------------------------------------------------------------===//

#include "compiler/MLIRGen/Generator.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace dslc::mlirgen {

Value Generator::validMask(const Gather &g, mlir::Location l) {
  // Positions past a tile's end (a masked tail, e.g. of computed indices
  // loaded with the tile) update nothing: an atomic_max of the zeros read
  // there would change element 0.
  Value mask = g.mask;
  auto shape = llvm::ArrayRef<int64_t>(g.shape);
  Type i64 = builder.getI64Type();
  auto boolType = RankedTensorType::get(shape, builder.getI1Type());
  for (size_t k = 0; k < shape.size(); ++k) {
    if (g.valid[k].all())
      continue;
    auto type = RankedTensorType::get({shape[k]}, i64);
    Value count = castValue(materialize(g.valid[k], l), i64, l);
    Value in =
        arith::CmpIOp::create(builder, l, arith::CmpIPredicate::slt,
                              tile::IotaOp::create(builder, l, type),
                              tile::SplatOp::create(builder, l, type, count));
    if (shape.size() > 1) {
      SmallVector<int64_t> unit(shape.size(), 1);
      unit[k] = shape[k];
      in = tile::ReshapeOp::create(
          builder, l, RankedTensorType::get(unit, builder.getI1Type()), in);
      in = tile::BroadcastOp::create(builder, l, boolType, in);
    }
    mask = mask ? Value(arith::AndIOp::create(builder, l, mask, in)) : in;
  }
  return mask;
}

Result Generator::genAtomic(const ast::CallExpr &e, llvm::StringRef fn) {
  std::optional<tile::AtomicKind> kind =
      llvm::StringSwitch<std::optional<tile::AtomicKind>>(fn)
          .Case("hl.atomic_add", tile::AtomicKind::add)
          .Case("hl.atomic_max", tile::AtomicKind::max)
          .Case("hl.atomic_min", tile::AtomicKind::min)
          .Case("hl.atomic_and", tile::AtomicKind::andi)
          .Case("hl.atomic_or", tile::AtomicKind::ori)
          .Case("hl.atomic_xor", tile::AtomicKind::xori)
          .Case("hl.atomic_xchg", tile::AtomicKind::xchg)
          .Default(std::nullopt);
  if (!kind)
    return fail(e.getCallee().getRange(),
                fn.str() + " is not a Helion atomic: hl.atomic_add, _max, "
                           "_min, _and, _or, _xor and _xchg are");
  if (failed(checkKeywords(e, fn, {"target", "index", "value", "sem"})))
    return failure();
  if (!inGrid)
    return fail(e.getRange(), fn.str() + " updates a tensor: call it inside "
                                         "the kernel's tile loop");
  const ast::Expr *targetArg = argument(e, 0, "target");
  const ast::Expr *indexArg = argument(e, 1, "index");
  const ast::Expr *valueArg = argument(e, 2, "value");
  if (!targetArg || !indexArg || !valueArg)
    return fail(e.getRange(), fn.str() + " takes (target, index, value)");
  FailureOr<std::string> semName = stringKeyword(e, "sem", "relaxed");
  if (failed(semName))
    return failure();
  std::optional<tile::AtomicSem> sem = tile::symbolizeAtomicSem(*semName);
  if (!sem)
    return fail(keyword(e, "sem")->getRange(),
                "sem is 'relaxed', 'acquire', 'release' or 'acq_rel', got '" +
                    *semName + "'");
  Result target = genExpr(*targetArg);
  if (failed(target))
    return failure();
  if (target->kind != SemValue::Kind::Ref)
    return fail(targetArg->getRange(),
                fn.str() + " updates a tensor in global memory, got " +
                    kindName(target->kind));
  Result value = genExpr(*valueArg);
  if (failed(value))
    return failure();
  std::vector<const ast::Expr *> idx = elementsOf(*indexArg);
  if (idx.empty() && !ast::isa<ast::ListExpr>(*indexArg) &&
      !ast::isa<ast::TupleExpr>(*indexArg))
    idx.push_back(indexArg);
  FailureOr<Access> access =
      accessOfList(*target, idx, *indexArg, /*forceGather=*/true);
  if (failed(access))
    return failure();
  FailureOr<Gather> g = gatherOf(*target, access->entries, nullptr, *indexArg);
  if (failed(g))
    return failure();
  Type element = refShape(*target).second;
  bool isInt = isa<IntegerType>(element) && !element.isInteger(1);
  if (!isInt && !element.isF16() && !element.isBF16() && !element.isF32() &&
      !element.isF64())
    return fail(targetArg->getRange(),
                fn.str() +
                    " updates integers or bf16, f16, f32, f64 "
                    "elements, not " +
                    typeToDType(element));
  if (!isInt &&
      (*kind == tile::AtomicKind::andi || *kind == tile::AtomicKind::ori ||
       *kind == tile::AtomicKind::xori))
    return fail(e.getCallee().getRange(),
                fn.str() + " updates integer elements, not " +
                    typeToDType(element));
  auto type = RankedTensorType::get(g->shape, element);
  FailureOr<Value> v = coerceTile(*value, type, *valueArg);
  if (failed(v))
    return failure();
  tile::AtomicOp::create(builder, loc(e), *kind, *sem, *v, target->value,
                         g->indices, validMask(*g, loc(e)));
  return SemValue::ofKind(SemValue::Kind::None);
}

} // namespace dslc::mlirgen
