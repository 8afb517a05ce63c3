//===- GenReduce.cpp - Reductions across tile dimensions ------------------===//
//
// torch.sum / mean / amax / amin / max / min / prod (`torch.X(t, dim=,
// keepdim=)` and `t.X(dim, keepdim=)`) as tile.reduce along each reduced
// dimension; torch.argmax / argmin, and torch.max / min with a dimension
// (values and indices), as the extreme and then the smallest index holding
// it (two reductions). The masked tail of a loaded tile is passed as `valid`,
// so it never contributes; mean divides by the valid count. 16-bit inputs
// accumulate in f32 and round back to the input's dtype, integer sums are
// int64 (torch's result types).
//
//===----------------------------------------------------------------------===//

#include "compiler/MLIRGen/Generator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <limits>

using namespace mlir;

namespace dslc::mlirgen {

bool isReduction(llvm::StringRef name) {
  return name == "sum" || name == "mean" || name == "amax" || name == "amin" ||
         name == "max" || name == "min" || name == "prod" || name == "argmax" ||
         name == "argmin";
}

FailureOr<SmallVector<int64_t>>
Generator::reductionDims(const ast::Expr *dimArg, int64_t rank) {
  SmallVector<int64_t> dims;
  SemValue v = SemValue::none();
  if (dimArg) {
    Result r = genExpr(*dimArg);
    if (failed(r))
      return failure();
    v = *r;
  }
  if (v.kind == SemValue::Kind::None) { // every dimension
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(d);
    return dims;
  }
  std::vector<SemValue> items =
      v.kind == SemValue::Kind::Tuple ? v.elements : std::vector<SemValue>{v};
  for (const SemValue &item : items) {
    auto d = toConstInt(item, *dimArg, "a reduction dimension");
    if (failed(d))
      return failure();
    int64_t dd = *d < 0 ? *d + rank : *d;
    if (dd < 0 || dd >= rank || llvm::is_contained(dims, dd))
      return error(dimArg->getRange(),
                   "dimension " + std::to_string(*d) +
                       " is out of range (or repeated) for a " +
                       std::to_string(rank) + "-d tile");
    dims.push_back(dd);
  }
  return dims;
}

Result Generator::genReduction(llvm::StringRef fn, const SemValue &arg,
                               const ast::Expr *dimArg, bool keepdim,
                               const ast::Expr &where) {
  Result input = asTile(arg, where);
  if (failed(input))
    return failure();
  auto type = cast<RankedTensorType>(input->value.getType());
  Type element = type.getElementType();
  if (isFP8(element))
    return fail(where.getRange(), "torch." + fn.str() +
                                      " of an fp8 tile: fp8 is a storage "
                                      "type, convert with .to(torch.float32) "
                                      "first");
  bool isFloat = isa<FloatType>(element);
  if (fn == "mean" && !isFloat)
    return fail(where.getRange(), "torch.mean of an integer tile: convert it "
                                  "with .to(torch.float32) first");
  auto dims = reductionDims(dimArg, type.getRank());
  if (failed(dims))
    return failure();
  return reduceTile(fn, *input, *dims, keepdim, where);
}

Result Generator::reduceTile(llvm::StringRef fn, const SemValue &input,
                             llvm::ArrayRef<int64_t> dims, bool keepdim,
                             const ast::Expr &where) {
  Type element = cast<RankedTensorType>(input.value.getType()).getElementType();
  bool isFloat = isa<FloatType>(element);
  tile::ReduceKind kind = fn == "sum" || fn == "mean"   ? tile::ReduceKind::sum
                          : fn == "prod"                ? tile::ReduceKind::prod
                          : fn == "amax" || fn == "max" ? tile::ReduceKind::max
                                                        : tile::ReduceKind::min;
  // Accumulate 16-bit floats in f32; sum integers (and bools) in int64.
  mlir::Location l = loc(where);
  Type accType = element;
  if (isFloat && element.getIntOrFloatBitWidth() < 32)
    accType = builder.getF32Type();
  if (!isFloat &&
      (kind == tile::ReduceKind::sum || kind == tile::ReduceKind::prod))
    accType = builder.getI64Type();
  Type resultType =
      isFloat || kind == tile::ReduceKind::sum || kind == tile::ReduceKind::prod
          ? (isFloat ? element : accType)
          : element;
  SemValue acc = input;
  acc.indexTile.reset();
  acc.value = castValue(acc.value, accType, l);
  Value count; // mean: the number of elements reduced
  int64_t staticCount = 1;
  // Reduce the highest dimensions first so the others keep their index.
  SmallVector<int64_t> order(dims);
  llvm::sort(order, std::greater<int64_t>());
  for (int64_t d : order) {
    auto t = cast<RankedTensorType>(acc.value.getType());
    SmallVector<int64_t> shape(t.getShape());
    Value valid =
        d < int64_t(acc.valid.size()) ? materialize(acc.valid[d], l) : Value();
    if (valid)
      count = count ? Value(arith::MulIOp::create(builder, l, count, valid))
                    : valid;
    else
      staticCount *= shape[d];
    if (keepdim)
      shape[d] = 1;
    else
      shape.erase(shape.begin() + d);
    acc.value = tile::ReduceOp::create(builder, l,
                                       RankedTensorType::get(shape, accType),
                                       acc.value, uint64_t(d), kind, valid);
    if (d < int64_t(acc.valid.size())) {
      if (keepdim)
        acc.valid[d] = ValidCount();
      else
        acc.valid.erase(acc.valid.begin() + d);
    }
  }
  if (fn == "mean") {
    auto t = cast<RankedTensorType>(acc.value.getType());
    Value n = indexConst(l, staticCount);
    if (count)
      n = arith::MulIOp::create(builder, l, count, n);
    // An empty tile's mean is 0 / 0 = NaN, as torch's.
    Value nf = castValue(n, accType, l);
    acc.value = arith::DivFOp::create(builder, l, acc.value,
                                      tile::SplatOp::create(builder, l, t, nf));
  }
  acc.value = castValue(acc.value, resultType, l);
  return acc;
}

Result Generator::genArgReduction(llvm::StringRef fn, const SemValue &arg,
                                  const ast::Expr *dimArg, bool keepdim,
                                  const ast::Expr &where) {
  bool isMax = fn.ends_with("max");
  bool valuesToo = !fn.starts_with("arg");
  std::string name = "torch." + fn.str();
  if (!dimArg)
    return fail(where.getRange(),
                name + " of a whole tile (no dim) is not supported: give "
                       "the dimension (dim=...)");
  Result input = asTile(arg, where);
  if (failed(input))
    return failure();
  auto type = cast<RankedTensorType>(input->value.getType());
  Type element = type.getElementType();
  if (isFP8(element) || element.isInteger(1))
    return fail(where.getRange(), name + " of a " +
                                      (isFP8(element) ? "fp8" : "bool") +
                                      " tile: convert it with "
                                      ".to(torch.float32) first");
  auto dims = reductionDims(dimArg, type.getRank());
  if (failed(dims))
    return failure();
  if (dims->size() != 1)
    return fail(dimArg->getRange(), name + " takes one dimension");
  int64_t dim = dims->front();
  mlir::Location l = loc(where);
  // The extreme, kept along `dim` and broadcast back over it; then the
  // smallest index holding it (torch's first occurrence; a NaN, which
  // torch's max and argmax treat as the largest, matches itself).
  Result best = reduceTile(isMax ? "amax" : "amin", *input, {dim},
                           /*keepdim=*/true, where);
  if (failed(best))
    return failure();
  Value x = castValue(input->value, element, l);
  Value spread = tile::BroadcastOp::create(builder, l, type, best->value);
  Value match;
  if (isa<FloatType>(element))
    match = arith::OrIOp::create(
        builder, l,
        arith::CmpFOp::create(builder, l, arith::CmpFPredicate::OEQ, x, spread),
        arith::CmpFOp::create(builder, l, arith::CmpFPredicate::UNO, x, x));
  else
    match =
        arith::CmpIOp::create(builder, l, arith::CmpIPredicate::eq, x, spread);
  auto i64Type = RankedTensorType::get(type.getShape(), builder.getI64Type());
  Value index =
      arith::ExtSIOp::create(builder, l, i64Type, indexAlong(type, dim, l));
  Value never = tile::SplatOp::create(
      builder, l, i64Type,
      arith::ConstantIntOp::create(builder, l,
                                   std::numeric_limits<int64_t>::max(), 64));
  SemValue candidates = *input;
  candidates.indexTile.reset();
  candidates.value = arith::SelectOp::create(builder, l, match, index, never);
  Result indices = reduceTile("amin", candidates, {dim}, keepdim, where);
  if (failed(indices) || !valuesToo)
    return indices;
  Result values =
      reduceTile(isMax ? "amax" : "amin", *input, {dim}, keepdim, where);
  if (failed(values))
    return failure();
  SemValue out = SemValue::ofKind(SemValue::Kind::Tuple);
  out.elements = {*values, *indices};
  out.text = kValuesIndices;
  return out;
}

std::optional<Result> Generator::genReductionCall(const ast::CallExpr &e,
                                                  llvm::StringRef fn,
                                                  const ast::Expr *self) {
  if (!isReduction(fn))
    return std::nullopt;
  const ast::Expr *input = self ? self : argument(e, 0, "input");
  if (!input)
    return fail(e.getRange(), "torch." + fn.str() + " needs a tile");
  const ast::Expr *dimArg = argument(e, self ? 0 : 1, "dim");
  Result v = genExpr(*input);
  if (failed(v))
    return failure();
  FailureOr<bool> keepdim = boolKeyword(e, "keepdim", /*dflt=*/false);
  if (failed(keepdim))
    return failure();
  bool withIndex =
      fn.starts_with("arg") || ((fn == "max" || fn == "min") && dimArg);
  if (withIndex)
    return genArgReduction(fn, *v, dimArg, *keepdim, e);
  return genReduction(fn, *v, dimArg, *keepdim, e);
}

} // namespace dslc::mlirgen
