//===- GenDot.cpp - Matrix multiplication of 2-d (and batched) tiles ------===//
//
// hl.dot(a, b, acc=None, out_dtype=None), torch.addmm(acc, a, b, beta=,
// alpha=), torch.mm(a, b), torch.matmul(a, b) and `a @ b` on 2-d tiles, and
// torch.bmm / torch.baddbmm (and the others) on 3-d ones (a batch), as
// tile.dot: products accumulated in f32 from the f32 accumulator. The
// masked K tail of loaded tiles is passed as valid_k, so it adds nothing.
// Result dtypes follow Helion and torch: hl.dot gives acc's dtype, else
// out_dtype, else f32; addmm gives acc's dtype; mm / matmul / @ give the
// inputs' dtype.
//
//===----------------------------------------------------------------------===//

#include "compiler/MLIRGen/Generator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace dslc::mlirgen {

/// Element types tile.dot takes as inputs.
static bool isDotInput(Type t) {
  return t.isF32() || t.isBF16() || t.isF16() || isFP8(t);
}

Result Generator::genDot(llvm::StringRef fn, const SemValue &aIn,
                         const SemValue &bIn, const SemValue *accIn,
                         Type resultType, const ast::Expr &where) {
  Result a = asTile(aIn, where);
  if (failed(a))
    return failure();
  Result b = asTile(bIn, where);
  if (failed(b))
    return failure();
  auto at = cast<RankedTensorType>(a->value.getType());
  auto bt = cast<RankedTensorType>(b->value.getType());
  auto shapeText = [](RankedTensorType t) {
    std::string s = "[";
    for (int64_t d = 0; d < t.getRank(); ++d)
      s += (d ? ", " : "") + std::to_string(t.getDimSize(d));
    return s + "]";
  };
  // 2-d tiles, or 3-d ones: a batch of matrices (torch.bmm).
  int64_t rank = at.getRank();
  for (auto [what, t] :
       {std::pair<const char *, RankedTensorType>{"a", at}, {"b", bt}})
    if (t.getRank() != 2 && t.getRank() != 3)
      return fail(where.getRange(),
                  fn.str() + " multiplies 2-d tiles (or 3-d: a batch); " +
                      what + " is " + std::to_string(t.getRank()) + "-d " +
                      shapeText(t));
  if (bt.getRank() != rank)
    return fail(where.getRange(), fn.str() + ": a is " + shapeText(at) +
                                      " and b is " + shapeText(bt) +
                                      ": both 2-d, or both a batch (3-d)");
  int64_t q = rank - 2; // the batch dimension's count
  if (q && at.getDimSize(0) != bt.getDimSize(0))
    return fail(where.getRange(), fn.str() + ": the batches differ: a is " +
                                      shapeText(at) + ", b is " +
                                      shapeText(bt));
  if (at.getDimSize(q + 1) != bt.getDimSize(q))
    return fail(where.getRange(),
                fn.str() + ": the inner dimensions differ: a is " +
                    shapeText(at) + ", b is " + shapeText(bt) + " (a's " +
                    std::to_string(at.getDimSize(q + 1)) +
                    " columns against b's " + std::to_string(bt.getDimSize(q)) +
                    " rows)");
  Type et = at.getElementType();
  if (et != bt.getElementType())
    return fail(where.getRange(), fn.str() + " of different dtypes (" +
                                      typeToDType(et) + " and " +
                                      typeToDType(bt.getElementType()) +
                                      "): convert one with .to(...)");
  if (!isDotInput(et))
    return fail(where.getRange(),
                fn.str() + " of " + typeToDType(et) +
                    " tiles: the inputs must be float32, bfloat16, float16, "
                    "float8_e4m3fn or float8_e5m2");
  if (!resultType.isF32() && !resultType.isBF16() && !resultType.isF16())
    return fail(where.getRange(), fn.str() + " cannot produce " +
                                      typeToDType(resultType) +
                                      ": the result dtype must be float32, "
                                      "bfloat16 or float16");
  SmallVector<int64_t> shape{at.getDimSize(q), bt.getDimSize(q + 1)};
  if (q)
    shape.insert(shape.begin(), at.getDimSize(0));
  if (failed(checkTileSize(shape, where.getRange())))
    return failure();
  mlir::Location l = loc(where);
  auto f32Tile = RankedTensorType::get(shape, builder.getF32Type());
  auto validOf = [](const SemValue &v, size_t d) {
    return d < v.valid.size() ? v.valid[d] : ValidCount();
  };
  SmallVector<ValidCount, 4> valid{validOf(*a, q), validOf(*b, q + 1)};
  if (q)
    valid.insert(valid.begin(),
                 mergeValid({validOf(*a, 0)}, {validOf(*b, 0)}).front());
  Value acc;
  if (accIn) {
    Result c = asTile(*accIn, where);
    if (failed(c))
      return failure();
    auto ct = cast<RankedTensorType>(c->value.getType());
    if (ct.getShape() != ArrayRef<int64_t>(shape))
      return fail(where.getRange(), fn.str() + ": the accumulator is " +
                                        shapeText(ct) + ", the product is " +
                                        shapeText(f32Tile));
    if (!isa<FloatType>(ct.getElementType()))
      return fail(where.getRange(), fn.str() + ": the accumulator is " +
                                        typeToDType(ct.getElementType()) +
                                        "; it must be a float tile");
    acc = castValue(c->value, builder.getF32Type(), l);
    valid = mergeValid(valid, c->valid);
  }
  if (probe) {
    std::array<int64_t, 3> least = helionMinDotSize(et);
    noteDotMinimum(validOf(*a, q), least[0]);
    noteDotMinimum(validOf(*b, q + 1), least[1]);
    noteDotMinimum(validOf(*a, q + 1), least[2]);
    noteDotMinimum(validOf(*b, q), least[2]);
  }
  SmallVector<ValidCount, 1> k =
      mergeValid({validOf(*a, q + 1)}, {validOf(*b, q)});
  Value validK = materialize(k.front(), l);
  Value r =
      tile::DotOp::create(builder, l, f32Tile, a->value, b->value, acc, validK);
  SemValue v = SemValue::ofKind(SemValue::Kind::TileData);
  v.value = castValue(r, resultType, l);
  v.valid = std::move(valid);
  return v;
}

void Generator::noteDotMinimum(const ValidCount &valid, int64_t min) {
  for (const ValidCount::Bound &b : valid.bounds) {
    auto it = probe->tileBlocks.find(b.begin);
    if (it == probe->tileBlocks.end())
      continue;
    std::vector<int64_t> &mins = probe->dotMinimums;
    if (mins.size() <= it->second)
      mins.resize(it->second + 1, 1);
    mins[it->second] = std::max(mins[it->second], min);
  }
}

Result Generator::genMatmulOperator(const SemValue &lhs, const SemValue &rhs,
                                    const ast::Expr &where) {
  for (const SemValue *v : {&lhs, &rhs})
    if (v->kind != SemValue::Kind::TileData && v->kind != SemValue::Kind::Ref)
      return fail(where.getRange(),
                  std::string("operator '@' multiplies 2-d tiles, got ") +
                      kindName(v->kind));
  Result a = asTile(lhs, where);
  if (failed(a))
    return failure();
  Type et = cast<RankedTensorType>(a->value.getType()).getElementType();
  if (isFP8(et))
    return fail(where.getRange(), "'@' of fp8 tiles: use hl.dot(a, b) (its "
                                  "result is float32)");
  return genDot("'@'", *a, rhs, nullptr, et, where);
}

std::optional<Result> Generator::genMatmulCall(const ast::CallExpr &e,
                                               const std::string &n) {
  // bmm and baddbmm are mm and addmm of 3-d tiles (a batch); bmm may give
  // an out_dtype (Helion's attention passes it as the third argument).
  bool isDot = n == "hl.dot";
  bool isAddmm = n == "torch.addmm" || n == "torch.baddbmm";
  bool isMm = n == "torch.mm" || n == "torch.matmul" || n == "torch.bmm";
  bool isBmm = n == "torch.bmm";
  if (!isDot && !isAddmm && !isMm)
    return std::nullopt;
  llvm::SmallVector<llvm::StringRef, 4> keys;
  if (isDot)
    keys = {"mat1", "mat2", "acc", "out_dtype"};
  else if (isAddmm)
    keys = {"input", "mat1", "mat2", "beta", "alpha"};
  else if (isBmm)
    keys = {"input", "mat2", "out_dtype"};
  else
    keys = {"input", "mat2"};
  if (failed(checkKeywords(e, n, keys)))
    return Result(failure());
  const ast::Expr *accArg = nullptr, *aArg, *bArg;
  if (isAddmm) {
    accArg = argument(e, 0, "input");
    aArg = argument(e, 1, "mat1");
    bArg = argument(e, 2, "mat2");
  } else {
    aArg = argument(e, 0, isDot ? "mat1" : "input");
    bArg = argument(e, 1, isDot ? "mat2" : "mat2");
    if (isDot)
      accArg = argument(e, 2, "acc");
  }
  size_t most = isAddmm ? 3 : isDot ? 4 : isBmm ? 3 : 2;
  size_t positional = llvm::count_if(e.getArgs(), [](const ast::Argument &x) {
    return x.kind == ast::Argument::Kind::Positional;
  });
  if (!aArg || !bArg || (isAddmm && !accArg) || positional > most)
    return fail(e.getRange(), isAddmm ? n + " takes (input, mat1, mat2, "
                                            "beta=1, alpha=1)"
                              : isDot ? n + " takes (a, b, acc=None, "
                                            "out_dtype=None)"
                                      : n + " takes two 2-d tiles");
  Result a = genExpr(*aArg);
  if (failed(a))
    return Result(failure());
  Result b = genExpr(*bArg);
  if (failed(b))
    return Result(failure());
  std::optional<SemValue> acc;
  if (accArg) {
    Result c = genExpr(*accArg);
    if (failed(c))
      return Result(failure());
    if (c->kind != SemValue::Kind::None)
      acc = *c;
  }
  Result at = asTile(*a, *aArg);
  if (failed(at))
    return Result(failure());
  Result bt = asTile(*b, *bArg);
  if (failed(bt))
    return Result(failure());
  Type et = cast<RankedTensorType>(at->value.getType()).getElementType();
  bool batch = n == "torch.bmm" || n == "torch.baddbmm";
  for (const SemValue *t : {&*at, &*bt})
    if (batch && cast<RankedTensorType>(t->value.getType()).getRank() != 3)
      return fail(
          e.getRange(),
          n + " multiplies 3-d tiles (a batch of matrices), got a " +
              std::to_string(
                  cast<RankedTensorType>(t->value.getType()).getRank()) +
              "-d tile: use " +
              (n == "torch.bmm" ? "torch.mm" : "torch.addmm") +
              " for 2-d tiles");
  if (isMm) {
    Type result = et;
    if (const ast::Expr *outArg = isBmm ? argument(e, 2, "out_dtype") : nullptr)
      if (!ast::isa<ast::NoneLiteralExpr>(*outArg)) {
        FailureOr<std::string> d = dtypeValue(*outArg);
        if (failed(d))
          return Result(failure());
        result = dtypeToType(&ctx, *d);
      }
    if (isFP8(result))
      return fail(e.getRange(), n + " of fp8 tiles: use hl.dot(a, b) (its "
                                    "result is float32)");
    return genDot(n, *at, *bt, nullptr, result, e);
  }
  auto accTile = [&]() -> FailureOr<SemValue> {
    Result c = asTile(*acc, *accArg);
    if (failed(c))
      return failure();
    return *c;
  };
  if (isDot) {
    Type result = isFP8(et) || et.getIntOrFloatBitWidth() < 32
                      ? Type(builder.getF32Type())
                      : et;
    const ast::Expr *outArg = argument(e, 3, "out_dtype");
    FailureOr<SemValue> c = acc ? accTile() : FailureOr<SemValue>(SemValue());
    if (failed(c))
      return Result(failure());
    if (acc)
      result = cast<RankedTensorType>(c->value.getType()).getElementType();
    if (outArg && !ast::isa<ast::NoneLiteralExpr>(*outArg)) {
      FailureOr<std::string> d = dtypeValue(*outArg);
      if (failed(d))
        return Result(failure());
      result = dtypeToType(&ctx, *d);
    }
    return genDot(n, *at, *bt, acc ? &*c : nullptr, result, e);
  }
  // torch.addmm(input, mat1, mat2, beta=1, alpha=1) = beta * input +
  // alpha * (mat1 @ mat2), in input's dtype (Helion's f32 accumulator with
  // 16-bit inputs).
  FailureOr<SemValue> c = accTile();
  if (failed(c))
    return Result(failure());
  Type result = cast<RankedTensorType>(c->value.getType()).getElementType();
  double factors[2];
  const char *names[2] = {"beta", "alpha"};
  for (int i = 0; i < 2; ++i) {
    factors[i] = 1;
    const ast::Expr *k = keyword(e, names[i]);
    if (!k)
      continue;
    Result f = genExpr(*k);
    if (failed(f))
      return Result(failure());
    if (!isNumber(*f))
      return fail(k->getRange(),
                  n + ": " + names[i] + "= must be a compile-time number");
    factors[i] =
        f->kind == SemValue::Kind::Int ? double(f->intValue) : f->floatValue;
  }
  double beta = factors[0], alpha = factors[1];
  auto accShape = cast<RankedTensorType>(c->value.getType()).getShape();
  auto aShape = cast<RankedTensorType>(at->value.getType()).getShape();
  auto bShape = cast<RankedTensorType>(bt->value.getType()).getShape();
  size_t r = aShape.size();
  bool fullAcc = accShape.size() == r && bShape.size() == r &&
                 accShape[r - 2] == aShape[r - 2] &&
                 accShape[r - 1] == bShape[r - 1] &&
                 (r == 2 || accShape[0] == aShape[0]);
  if (beta == 1 && alpha == 1 && fullAcc)
    return genDot(n, *at, *bt, &*c, result, e);
  // The general form: the product in f32, scaled and added as tile
  // arithmetic (a bias of shape [N] broadcasts; beta = 0 ignores input, as
  // torch does).
  Result prod = genDot(n, *at, *bt, nullptr, builder.getF32Type(), e);
  if (failed(prod))
    return Result(failure());
  mlir::Location l = loc(e);
  auto scaled = [&](const SemValue &t, double f) -> Result {
    if (f == 1)
      return t;
    SemValue s = SemValue::ofKind(SemValue::Kind::Float);
    s.floatValue = f;
    return binaryOp(ast::BinaryOp::Mul, t, s, e);
  };
  Result sum = scaled(*prod, alpha);
  if (failed(sum))
    return Result(failure());
  if (beta != 0) {
    SemValue in = *c;
    in.value = castValue(in.value, builder.getF32Type(), l);
    Result bin = scaled(in, beta);
    if (failed(bin))
      return Result(failure());
    sum = binaryOp(ast::BinaryOp::Add, *sum, *bin, e);
    if (failed(sum))
      return Result(failure());
  }
  sum->value = castValue(sum->value, result, l);
  return sum;
}

} // namespace dslc::mlirgen
