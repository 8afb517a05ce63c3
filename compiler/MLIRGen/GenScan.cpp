//===- GenScan.cpp - Scans and reductions with a combine function ---------===//
//
// hl.associative_scan(fn, xs, dim, reverse=False), hl.cumsum / hl.cumprod
// (x, dim, reverse=False), torch.cumsum / torch.cumprod (x, dim) and
// x.cumsum(dim) / x.cumprod(dim), and hl.reduce(fn, xs, dim, other=0,
// keep_dims=False), over tiles. A scan of extent B along `dim` is Hillis
// and Steele's: for s = 1, 2, 4, ... < B every element combines with the
// element s before it (tile.shift by s; `combine(earlier, later)`, the
// function inlined on whole tiles), where there is one. log2(B) steps,
// each through shared memory. A reverse scan combines with the element s
// after it, within the valid extent (the masked tail of a loaded tile is
// never combined into the valid elements). hl.reduce is the scan's last
// valid element along `dim`, taken with a max over that one element.
// A tuple of tiles is scanned together (the combine function takes and
// returns one tile per input: Helion's segmented sums carry the segment
// index beside the value). cumsum / cumprod accumulate 16-bit floats in f32
// and integers in int64, as torch does.
//
//===----------------------------------------------------------------------===//

#include "compiler/MLIRGen/Generator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <limits>

using namespace mlir;

namespace dslc::mlirgen {

namespace {

bool isScanName(llvm::StringRef n) {
  return n == "hl.associative_scan" || n == "hl.cumsum" || n == "hl.cumprod" ||
         n == "torch.cumsum" || n == "torch.cumprod" || n == "hl.reduce";
}

} // namespace

Value Generator::indexAlong(RankedTensorType shape, int64_t dim,
                            mlir::Location l) {
  int64_t extent = shape.getDimSize(dim);
  Type i32 = builder.getI32Type();
  Value iota =
      tile::IotaOp::create(builder, l, RankedTensorType::get({extent}, i32));
  SmallVector<int64_t> unit(shape.getRank(), 1);
  unit[dim] = extent;
  Value index = tile::ReshapeOp::create(builder, l,
                                        RankedTensorType::get(unit, i32), iota);
  if (unit != SmallVector<int64_t>(shape.getShape()))
    index = tile::BroadcastOp::create(
        builder, l, RankedTensorType::get(shape.getShape(), i32), index);
  return index;
}

Value Generator::scanIndexMask(RankedTensorType shape, int64_t dim,
                               int64_t offset, const SemValue &like,
                               mlir::Location l) {
  int64_t extent = shape.getDimSize(dim);
  Value index = indexAlong(shape, dim, l);
  auto full = cast<RankedTensorType>(index.getType());
  auto splat = [&](Value v) {
    return tile::SplatOp::create(builder, l, full, v).getResult();
  };
  if (offset > 0) // forward: the element `offset` before exists
    return arith::CmpIOp::create(
               builder, l, arith::CmpIPredicate::sge, index,
               splat(arith::ConstantIntOp::create(builder, l, offset, 32)))
        .getResult();
  // reverse: the element `-offset` after is inside the valid extent
  Value bound = arith::ConstantIntOp::create(builder, l, extent + offset, 32);
  if (dim < int64_t(like.valid.size()) && !like.valid[dim].all()) {
    Value valid = arith::IndexCastOp::create(builder, l, builder.getI32Type(),
                                             materialize(like.valid[dim], l));
    bound = arith::AddIOp::create(
        builder, l, valid,
        arith::ConstantIntOp::create(builder, l, offset, 32));
  }
  return arith::CmpIOp::create(builder, l, arith::CmpIPredicate::slt, index,
                               splat(bound))
      .getResult();
}

FailureOr<std::vector<SemValue>>
Generator::scanTiles(const ScanCombine &combine, std::vector<SemValue> values,
                     int64_t dim, bool reverse, const ast::Expr &where) {
  mlir::Location l = loc(where);
  auto type = cast<RankedTensorType>(values.front().value.getType());
  int64_t extent = type.getDimSize(dim);
  for (int64_t s = 1; s < extent; s *= 2) {
    int64_t offset = reverse ? -s : s;
    std::vector<SemValue> shifted = values;
    for (SemValue &v : shifted) {
      v.indexTile.reset();
      v.value = tile::ShiftOp::create(builder, l, v.value.getType(), v.value,
                                      uint64_t(dim), uint64_t(offset));
    }
    FailureOr<std::vector<SemValue>> combined =
        reverse ? combine(values, shifted) : combine(shifted, values);
    if (failed(combined))
      return failure();
    if (combined->size() != values.size()) {
      (void)error(where.getRange(),
                  "the combine function returns " +
                      std::to_string(combined->size()) + " value(s) for " +
                      std::to_string(values.size()) +
                      " input(s): it takes the earlier and the later "
                      "elements of each input and returns one of each");
      return failure();
    }
    Value mask = scanIndexMask(type, dim, offset, values.front(), l);
    for (auto [v, c] : llvm::zip(values, *combined)) {
      Result ct = asTile(c, where);
      if (failed(ct))
        return failure();
      auto vt = cast<RankedTensorType>(v.value.getType());
      Value cv = ct->value;
      if (cast<RankedTensorType>(cv.getType()).getShape() != vt.getShape()) {
        (void)error(where.getRange(),
                    "the combine function changes the shape of a tile: it "
                    "is applied element by element");
        return failure();
      }
      cv = castValue(cv, vt.getElementType(), l);
      v.value = arith::SelectOp::create(builder, l, mask, cv, v.value);
      v.indexTile.reset();
    }
  }
  return values;
}

std::optional<Result> Generator::genScanCall(const ast::CallExpr &e,
                                             llvm::StringRef n,
                                             const ast::Expr *self) {
  if (!self && !isScanName(n))
    return std::nullopt;
  bool custom = n == "hl.associative_scan" || n == "hl.reduce";
  bool reduce = n == "hl.reduce";
  bool sum = n.ends_with("cumsum");
  size_t first = self ? 0 : 1;
  // The combine function (custom) or the kind.
  SemValue fn;
  if (custom) {
    const ast::Expr *f = argument(e, 0, "combine_fn");
    if (!f)
      return fail(e.getRange(), n.str() + " needs a combine function");
    Result fv = genExpr(*f);
    if (failed(fv))
      return failure();
    if (!fv->lambda && !fv->function)
      return fail(f->getRange(), n.str() + "'s combine function must be a def "
                                           "of this file or a lambda");
    fn = *fv;
  }
  // Helion names the input `input_tensor`, torch `input`.
  const ast::Expr *input =
      self ? self
           : argument(e, custom ? 1 : 0,
                      n.starts_with("hl.") ? "input_tensor" : "input");
  const ast::Expr *dimArg = argument(e, self ? 0 : (custom ? 2 : first), "dim");
  if (!input || !dimArg)
    return fail(e.getRange(),
                n.str() + " needs " +
                    (custom ? "(combine_fn, input, dim)" : "(x, dim)"));
  Result in = genExpr(*input);
  if (failed(in))
    return failure();
  bool tuple = in->kind == SemValue::Kind::Tuple;
  std::vector<SemValue> values =
      tuple ? in->elements : std::vector<SemValue>{*in};
  if (values.empty())
    return fail(input->getRange(), n.str() + " of an empty tuple");
  for (SemValue &v : values) {
    Result t = asTile(v, *input);
    if (failed(t))
      return failure();
    v = *t;
  }
  auto type = cast<RankedTensorType>(values.front().value.getType());
  for (const SemValue &v : values)
    if (cast<RankedTensorType>(v.value.getType()).getShape() != type.getShape())
      return fail(input->getRange(),
                  n.str() + " of tiles of different shapes: broadcast them "
                            "first (t.expand_as(other))");
  if (type.getRank() == 0)
    return fail(input->getRange(), n.str() + " of a 0-d tile");
  auto d = constIntOf(*dimArg, "the dimension of " + n.str());
  if (failed(d))
    return failure();
  int64_t dim = *d < 0 ? *d + type.getRank() : *d;
  if (dim < 0 || dim >= type.getRank())
    return fail(dimArg->getRange(),
                "dimension " + std::to_string(*d) + " is out of range for a " +
                    std::to_string(type.getRank()) + "-d tile");
  FailureOr<bool> reverse = boolKeyword(e, "reverse", /*dflt=*/false);
  if (failed(reverse))
    return failure();
  mlir::Location l = loc(e);
  ScanCombine combine;
  std::vector<Type> resultTypes;
  if (custom) {
    combine = [&](const std::vector<SemValue> &a,
                  const std::vector<SemValue> &b)
        -> FailureOr<std::vector<SemValue>> {
      std::vector<SemValue> args(a);
      args.insert(args.end(), b.begin(), b.end());
      Result r = callWithValues(fn, args, e);
      if (failed(r))
        return failure();
      if (r->kind == SemValue::Kind::Tuple)
        return r->elements;
      return std::vector<SemValue>{*r};
    };
  } else {
    // torch's accumulation types: f32 for 16-bit floats, int64 for ints.
    SemValue &v = values.front();
    Type element = type.getElementType();
    resultTypes.push_back(element);
    Type acc = element;
    if (isa<FloatType>(element) && element.getIntOrFloatBitWidth() < 32)
      acc = builder.getF32Type();
    if (element.isInteger())
      acc = builder.getI64Type();
    if (isFP8(element))
      return fail(input->getRange(), n.str() + " of an fp8 tile: convert it "
                                               "with .to(torch.float32) first");
    v.value = castValue(v.value, acc, l);
    if (element.isInteger())
      resultTypes.back() = acc; // torch.cumsum of ints is int64
    combine = [&, sum](const std::vector<SemValue> &a,
                       const std::vector<SemValue> &b)
        -> FailureOr<std::vector<SemValue>> {
      Result r = binaryOp(sum ? ast::BinaryOp::Add : ast::BinaryOp::Mul,
                          a.front(), b.front(), e);
      if (failed(r))
        return failure();
      return std::vector<SemValue>{*r};
    };
  }
  FailureOr<std::vector<SemValue>> scanned =
      scanTiles(combine, values, dim, *reverse, e);
  if (failed(scanned))
    return failure();
  for (auto [v, t] : llvm::zip(*scanned, resultTypes))
    v.value = castValue(v.value, t, l);
  if (reduce)
    return lastAlong(*scanned, dim, e);
  if (scanned->size() == 1 && !tuple)
    return scanned->front();
  SemValue out = SemValue::ofKind(SemValue::Kind::Tuple);
  out.elements = *scanned;
  return out;
}

Result Generator::lastAlong(std::vector<SemValue> scanned, int64_t dim,
                            const ast::CallExpr &e) {
  mlir::Location l = loc(e);
  FailureOr<bool> keep = boolKeyword(e, "keep_dims", /*dflt=*/false);
  if (failed(keep))
    return failure();
  auto type = cast<RankedTensorType>(scanned.front().value.getType());
  int64_t extent = type.getDimSize(dim);
  // The last valid index along `dim`.
  Value last = arith::ConstantIntOp::create(builder, l, extent - 1, 32);
  const SemValue &like = scanned.front();
  if (dim < int64_t(like.valid.size()) && !like.valid[dim].all())
    last = arith::SubIOp::create(
        builder, l,
        arith::IndexCastOp::create(builder, l, builder.getI32Type(),
                                   materialize(like.valid[dim], l)),
        arith::ConstantIntOp::create(builder, l, 1, 32));
  Value index = indexAlong(type, dim, l);
  auto full = cast<RankedTensorType>(index.getType());
  Value isLast =
      arith::CmpIOp::create(builder, l, arith::CmpIPredicate::eq, index,
                            tile::SplatOp::create(builder, l, full, last));
  std::vector<SemValue> out;
  for (SemValue v : scanned) {
    auto vt = cast<RankedTensorType>(v.value.getType());
    Type element = vt.getElementType();
    if (element.isInteger(1))
      return fail(e.getRange(), "hl.reduce of a bool tile: convert it with "
                                ".to(torch.int32) first");
    // Every other element the lowest value: a max keeps the last one
    // exactly (-0.0 and NaN included).
    TypedAttr lowest =
        isa<FloatType>(element)
            ? TypedAttr(builder.getFloatAttr(
                  element, -std::numeric_limits<double>::infinity()))
            : TypedAttr(builder.getIntegerAttr(
                  element,
                  APInt::getSignedMinValue(element.getIntOrFloatBitWidth())));
    Value fill = tile::SplatOp::create(
        builder, l, vt, arith::ConstantOp::create(builder, l, lowest));
    Value picked = arith::SelectOp::create(builder, l, isLast, v.value, fill);
    SmallVector<int64_t> shape(vt.getShape());
    if (*keep)
      shape[dim] = 1;
    else
      shape.erase(shape.begin() + dim);
    v.value = tile::ReduceOp::create(
        builder, l, RankedTensorType::get(shape, element), picked,
        uint64_t(dim), tile::ReduceKind::max, Value());
    v.indexTile.reset();
    if (dim < int64_t(v.valid.size())) {
      if (*keep)
        v.valid[dim] = ValidCount();
      else
        v.valid.erase(v.valid.begin() + dim);
    }
    out.push_back(v);
  }
  if (out.size() == 1)
    return out.front();
  SemValue t = SemValue::ofKind(SemValue::Kind::Tuple);
  t.elements = out;
  return t;
}

Result Generator::callWithValues(const SemValue &f,
                                 const std::vector<SemValue> &args,
                                 const ast::CallExpr &e) {
  std::vector<HelperArg> bound;
  for (const SemValue &a : args)
    bound.push_back({nullptr, "", e.getRange(), a});
  if (f.function)
    return inlineHelper(e.getRange(), e.getCallee().getRange(), bound,
                        *f.function);
  return callLambda(e, f, bound);
}

} // namespace dslc::mlirgen
