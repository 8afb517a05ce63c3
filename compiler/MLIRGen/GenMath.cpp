//===- GenMath.cpp - Elementwise math on tiles ----------------------------===//
//
// torch's elementwise functions (rsqrt, sqrt, exp, log, abs, sigmoid, tanh,
// relu, maximum, minimum, where, clamp, `**`) and comparisons of tiles, in
// function and method spellings. Transcendentals of 16-bit tiles compute in
// f32 and round back (torch keeps the dtype); of integer tiles, in f32
// (torch's result is float32). The math ops lower through libdevice or
// exact PTX (docs/compiler.md).
//
//===----------------------------------------------------------------------===//

#include "compiler/MLIRGen/Generator.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;

namespace dslc::mlirgen {

/// The unary functions, torch.NAME(x) and x.NAME().
static const char *const kUnaryMath[] = {
    "rsqrt", "sqrt", "exp",  "log",   "abs",   "sigmoid", "tanh", "relu",
    "neg",   "exp2", "log2", "log10", "log1p", "expm1",   "sin",  "cos",
    "tan",   "erf",  "atan", "floor", "ceil",  "round",   "trunc"};

/// Rounding to an integral value: of an integer tile, the tile itself.
static bool isRounding(llvm::StringRef fn) {
  return fn == "floor" || fn == "ceil" || fn == "round" || fn == "trunc";
}

bool isUnaryMath(llvm::StringRef name) {
  return llvm::is_contained(kUnaryMath, name);
}

/// A unary function of a constant.
static std::optional<double> foldUnary(llvm::StringRef fn, double x) {
  if (fn == "rsqrt")
    return 1 / std::sqrt(x);
  if (fn == "sqrt")
    return std::sqrt(x);
  if (fn == "exp")
    return std::exp(x);
  if (fn == "log")
    return std::log(x);
  if (fn == "abs")
    return std::fabs(x);
  if (fn == "sigmoid")
    return 1 / (1 + std::exp(-x));
  if (fn == "tanh")
    return std::tanh(x);
  if (fn == "relu")
    return x > 0 ? x : 0;
  if (fn == "neg")
    return -x;
  static const std::pair<const char *, double (*)(double)> kMore[] = {
      {"exp2", [](double v) { return std::exp2(v); }},
      {"log2", [](double v) { return std::log2(v); }},
      {"log10", [](double v) { return std::log10(v); }},
      {"log1p", [](double v) { return std::log1p(v); }},
      {"expm1", [](double v) { return std::expm1(v); }},
      {"sin", [](double v) { return std::sin(v); }},
      {"cos", [](double v) { return std::cos(v); }},
      {"tan", [](double v) { return std::tan(v); }},
      {"erf", [](double v) { return std::erf(v); }},
      {"atan", [](double v) { return std::atan(v); }},
      {"floor", [](double v) { return std::floor(v); }},
      {"ceil", [](double v) { return std::ceil(v); }},
      // torch.round: halves to even, as std::nearbyint in the default mode
      {"round", [](double v) { return std::nearbyint(v); }},
      {"trunc", [](double v) { return std::trunc(v); }},
  };
  for (auto &[name, f] : kMore)
    if (fn == name)
      return f(x);
  return std::nullopt;
}

Value Generator::emitUnaryMath(llvm::StringRef fn, Value x, mlir::Location l) {
  Type t = x.getType();
  if (fn == "rsqrt")
    return math::RsqrtOp::create(builder, l, x);
  if (fn == "sqrt")
    return math::SqrtOp::create(builder, l, x);
  if (fn == "exp")
    return math::ExpOp::create(builder, l, x);
  if (fn == "log")
    return math::LogOp::create(builder, l, x);
  if (fn == "tanh")
    return math::TanhOp::create(builder, l, x);
  if (fn == "exp2")
    return math::Exp2Op::create(builder, l, x);
  if (fn == "log2")
    return math::Log2Op::create(builder, l, x);
  if (fn == "log10")
    return math::Log10Op::create(builder, l, x);
  if (fn == "log1p")
    return math::Log1pOp::create(builder, l, x);
  if (fn == "expm1")
    return math::ExpM1Op::create(builder, l, x);
  if (fn == "sin")
    return math::SinOp::create(builder, l, x);
  if (fn == "cos")
    return math::CosOp::create(builder, l, x);
  if (fn == "tan")
    return math::TanOp::create(builder, l, x);
  if (fn == "erf")
    return math::ErfOp::create(builder, l, x);
  if (fn == "atan")
    return math::AtanOp::create(builder, l, x);
  if (fn == "floor")
    return math::FloorOp::create(builder, l, x);
  if (fn == "ceil")
    return math::CeilOp::create(builder, l, x);
  if (fn == "round")
    return math::RoundEvenOp::create(builder, l, x);
  if (fn == "trunc")
    return math::TruncOp::create(builder, l, x);
  Value one = arith::ConstantOp::create(
      builder, l,
      cast<TypedAttr>(DenseElementsAttr::get(
          cast<ShapedType>(t),
          builder.getFloatAttr(getElementTypeOrSelf(t), 1.0))));
  // sigmoid: 1 / (1 + exp(-x))
  Value e =
      math::ExpOp::create(builder, l, arith::NegFOp::create(builder, l, x));
  return arith::DivFOp::create(builder, l, one,
                               arith::AddFOp::create(builder, l, one, e));
}

Result Generator::genUnaryMath(llvm::StringRef fn, const SemValue &arg,
                               const ast::Expr &where) {
  mlir::Location l = loc(where);
  if (arg.kind == SemValue::Kind::Int || arg.kind == SemValue::Kind::Float) {
    double x = arg.kind == SemValue::Kind::Int ? arg.intValue : arg.floatValue;
    if (arg.kind == SemValue::Kind::Int &&
        (fn == "abs" || fn == "neg" || fn == "relu" || isRounding(fn)))
      return SemValue::integer(int64_t(*foldUnary(fn, x)));
    SemValue f = SemValue::ofKind(SemValue::Kind::Float);
    f.floatValue = *foldUnary(fn, x);
    return f;
  }
  // A run-time scalar (a loaded element, a float parameter): the same
  // function on a one-element tile, read back.
  if (arg.kind == SemValue::Kind::Scalar) {
    Type element = arg.value.getType();
    Type f = isa<FloatType>(element) && !element.isIndex()
                 ? element
                 : builder.getF32Type();
    if (fn == "abs" || fn == "neg" || fn == "relu")
      f = element.isIndex() ? builder.getI64Type() : element;
    auto type = RankedTensorType::get({1}, f);
    SemValue one = SemValue::ofKind(SemValue::Kind::TileData);
    one.value =
        tile::SplatOp::create(builder, l, type, castValue(arg.value, f, l));
    Result r = genUnaryMath(fn, one, where);
    if (failed(r))
      return failure();
    SemValue s = SemValue::ofKind(SemValue::Kind::Scalar);
    auto rt = cast<RankedTensorType>(r->value.getType());
    s.value =
        tile::ReduceOp::create(builder, l, rt.getElementType(), r->value,
                               uint64_t(0), tile::ReduceKind::sum, Value());
    return s;
  }
  Result t = asTile(arg, where);
  if (failed(t))
    return failure();
  Type element = getElementTypeOrSelf(t->value.getType());
  if (isFP8(element))
    return fail(where.getRange(),
                "torch." + fn.str() +
                    " of an fp8 tile: fp8 is a storage "
                    "type, convert with .to(torch.float32) first");
  SemValue out = *t;
  out.indexTile.reset();
  bool isFloat = isa<FloatType>(element);
  if (fn == "neg") {
    if (!isFloat)
      return binaryOp(ast::BinaryOp::Sub, SemValue::integer(0), *t, where);
    out.value = arith::NegFOp::create(builder, l, t->value);
    return out;
  }
  if (fn == "abs") {
    out.value = isFloat ? Value(math::AbsFOp::create(builder, l, t->value))
                        : Value(math::AbsIOp::create(builder, l, t->value));
    return out;
  }
  if (isRounding(fn) && !isFloat)
    return out; // integers are integral already
  if (fn == "relu")
    return combineTiles(
        *t, SemValue::integer(0), where,
        [&](Value a, Value b, bool isF) -> FailureOr<Value> {
          return isF ? Value(arith::MaximumFOp::create(builder, l, a, b))
                     : Value(arith::MaxSIOp::create(builder, l, a, b));
        },
        "torch.relu");
  // Transcendentals: f32 for 16-bit and integer tiles, then torch's dtype.
  Type compute = element.isF64() ? element : builder.getF32Type();
  Type result = isFloat ? element : builder.getF32Type();
  Value x = castValue(t->value, compute, l);
  out.value = castValue(emitUnaryMath(fn, x, l), result, l);
  return out;
}

Result Generator::genMinMax2(bool isMax, const SemValue &a, const SemValue &b,
                             const ast::Expr &where) {
  mlir::Location l = loc(where);
  auto emit = [&](Value x, Value y, bool isFloat) -> Value {
    if (isFloat) // NaN-propagating, as torch.maximum
      return isMax ? Value(arith::MaximumFOp::create(builder, l, x, y))
                   : Value(arith::MinimumFOp::create(builder, l, x, y));
    return isMax ? Value(arith::MaxSIOp::create(builder, l, x, y))
                 : Value(arith::MinSIOp::create(builder, l, x, y));
  };
  auto scalar = [](const SemValue &v) {
    return isNumber(v) || v.kind == SemValue::Kind::Scalar;
  };
  if (scalar(a) && scalar(b)) {
    // Two 0-d values (a loaded element and x.new_full([], n)) as scalar
    // arithmetic takes them (floatScalarBinary, scalarBinary): f32 when
    // either is a float, else a signed index.
    SemValue s = SemValue::ofKind(SemValue::Kind::Scalar);
    if (isFloatScalar(a) || isFloatScalar(b)) {
      Type f32 = builder.getF32Type();
      s.value = emit(scalarAs(a, f32, l), scalarAs(b, f32, l), true);
      return s;
    }
    FailureOr<Value> x = toIndex(a, where), y = toIndex(b, where);
    if (failed(x) || failed(y))
      return failure();
    s.value = emit(*x, *y, false);
    return s;
  }
  return combineTiles(
      a, b, where,
      [&](Value x, Value y, bool isFloat) -> FailureOr<Value> {
        return emit(x, y, isFloat);
      },
      isMax ? "torch.maximum" : "torch.minimum");
}

Result Generator::genClamp(const SemValue &x, const ast::Expr *lo,
                           const ast::Expr *hi, const ast::Expr &where) {
  Result r = x;
  for (auto [bound, isMax] : {std::pair{lo, true}, std::pair{hi, false}}) {
    if (!bound)
      continue;
    Result b = genExpr(*bound);
    if (failed(b))
      return failure();
    if (b->kind == SemValue::Kind::None)
      continue;
    r = genMinMax2(isMax, *r, *b, where);
    if (failed(r))
      return failure();
  }
  return r;
}

Result Generator::genWhere(const SemValue &cond, const SemValue &a,
                           const SemValue &b, const ast::Expr &where) {
  mlir::Location l = loc(where);
  // A 0-d bool condition (flex_attention's mask_mod returning
  // x.new_ones(size=(), dtype=torch.bool)) is a one-element tile that
  // broadcasts.
  Result c = failure();
  if (cond.kind == SemValue::Kind::Scalar &&
      cond.value.getType().isInteger(1)) {
    SemValue one = SemValue::ofKind(SemValue::Kind::TileData);
    one.value = tile::SplatOp::create(
        builder, l, RankedTensorType::get({1}, builder.getI1Type()),
        cond.value);
    c = one;
  } else {
    c = asTile(cond, where);
  }
  if (failed(c))
    return failure();
  if (!getElementTypeOrSelf(c->value.getType()).isInteger(1))
    return fail(where.getRange(),
                "torch.where needs a bool tile condition (a comparison)");
  // Two numbers or scalars (torch.where(mask, 0.5, 3.0)): the first as a
  // tile of the condition's shape, float32 when either is a float, else
  // int64 (torch's result dtype).
  SemValue first = a;
  auto isTile = [](const SemValue &v) {
    return v.kind == SemValue::Kind::TileData || v.kind == SemValue::Kind::Ref;
  };
  if (!isTile(a) && !isTile(b)) {
    Type element = isFloatScalar(a) || isFloatScalar(b)
                       ? Type(builder.getF32Type())
                       : Type(builder.getI64Type());
    auto shape = cast<RankedTensorType>(c->value.getType()).getShape();
    FailureOr<Value> tile =
        coerceTile(a, RankedTensorType::get(shape, element), where);
    if (failed(tile))
      return failure();
    first = SemValue::ofKind(SemValue::Kind::TileData);
    first.value = *tile;
  }
  // The two branches, promoted and broadcast together, then with the
  // condition.
  SemValue picked;
  Result ab = combineTiles(
      first, b, where,
      [&](Value x, Value y, bool) -> FailureOr<Value> {
        picked = SemValue::ofKind(SemValue::Kind::TileData);
        picked.value = y;
        return x;
      },
      "torch.where");
  if (failed(ab))
    return failure();
  auto type = cast<RankedTensorType>(ab->value.getType());
  auto cshape = cast<RankedTensorType>(c->value.getType()).getShape();
  auto shape = broadcastShape(cshape, type.getShape(), where);
  if (failed(shape) || failed(checkTileSize(*shape, where.getRange())))
    return failure();
  SemValue x = *ab, y = picked, k = *c;
  y.valid = x.valid;
  for (SemValue *v : {&x, &y, &k})
    broadcastTo(*v, *shape, l);
  SemValue out = x;
  out.value = arith::SelectOp::create(builder, l, k.value, x.value, y.value);
  out.valid = mergeValid(x.valid, k.valid);
  return out;
}

Result Generator::tilePow(const SemValue &lhs, const SemValue &rhs,
                          const ast::Expr &where) {
  Result base = asTile(lhs, where);
  if (failed(base))
    return failure();
  // A small integral exponent: products (exact, as torch computes x**2).
  double k = rhs.kind == SemValue::Kind::Int     ? double(rhs.intValue)
             : rhs.kind == SemValue::Kind::Float ? rhs.floatValue
                                                 : -1;
  if (k >= 1 && k <= 16 && k == std::floor(k)) {
    Result r = *base;
    for (int i = 1; i < int(k); ++i) {
      r = binaryOp(ast::BinaryOp::Mul, *r, *base, where);
      if (failed(r))
        return failure();
    }
    return r;
  }
  if (k == 0.5)
    return genUnaryMath("sqrt", *base, where);
  mlir::Location l = loc(where);
  return combineTiles(
      *base, rhs, where,
      [&](Value x, Value y, bool isFloat) -> FailureOr<Value> {
        if (!isFloat)
          return error(where.getRange(),
                       "'**' of an integer tile needs a constant exponent "
                       "from 1 to 16");
        Type element = getElementTypeOrSelf(x.getType());
        Type compute = element.isF64() ? element : builder.getF32Type();
        Value p = math::PowFOp::create(builder, l, castValue(x, compute, l),
                                       castValue(y, compute, l));
        return castValue(p, element, l);
      },
      "operator '**'");
}

Result Generator::genTileCompare(ast::CompareOp op, const SemValue &a,
                                 const SemValue &b, const ast::Expr &where) {
  using CO = ast::CompareOp;
  mlir::Location l = loc(where);
  return combineTiles(
      a, b, where,
      [&](Value x, Value y, bool isFloat) -> FailureOr<Value> {
        // torch's comparisons: ordered (false with a NaN) except !=.
        static const std::tuple<CO, arith::CmpFPredicate, arith::CmpIPredicate>
            predicates[] = {
                {CO::Eq, arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq},
                {CO::NotEq, arith::CmpFPredicate::UNE,
                 arith::CmpIPredicate::ne},
                {CO::Lt, arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt},
                {CO::LtE, arith::CmpFPredicate::OLE, arith::CmpIPredicate::sle},
                {CO::Gt, arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt},
                {CO::GtE, arith::CmpFPredicate::OGE,
                 arith::CmpIPredicate::sge}};
        for (auto [o, fp, ip] : predicates)
          if (o == op)
            return isFloat ? Value(arith::CmpFOp::create(builder, l, fp, x, y))
                           : Value(arith::CmpIOp::create(builder, l, ip, x, y));
        return error(where.getRange(), "'is', 'in' and their negations do "
                                       "not compare tiles");
      },
      std::string("operator '") + ast::getCompareOpSpelling(op) + "'");
}

std::optional<Result> Generator::genMathCall(const ast::CallExpr &e,
                                             llvm::StringRef fn,
                                             const ast::Expr *self) {
  // `self` is the receiver of a method call (x.rsqrt()), else the first
  // argument.
  auto arg = [&](size_t i, llvm::StringRef name) -> const ast::Expr * {
    if (self && i == 0)
      return self;
    return argument(e, i - (self ? 1 : 0), name);
  };
  auto value = [&](const ast::Expr *x) -> Result {
    if (!x)
      return fail(e.getRange(),
                  "torch." + fn.str() + " is missing an argument");
    return genExpr(*x);
  };
  if (isUnaryMath(fn)) {
    Result x = value(arg(0, "input"));
    if (failed(x))
      return failure();
    return genUnaryMath(fn, *x, e);
  }
  if (fn == "maximum" || fn == "minimum") {
    Result a = value(arg(0, "input")), b = value(arg(1, "other"));
    if (failed(a) || failed(b))
      return failure();
    return genMinMax2(fn == "maximum", *a, *b, e);
  }
  if (fn == "clamp" || fn == "clip") {
    Result x = value(arg(0, "input"));
    if (failed(x))
      return failure();
    return genClamp(*x, arg(1, "min"), arg(2, "max"), e);
  }
  if (fn == "where" && !self) {
    Result c = value(arg(0, "condition")), a = value(arg(1, "input")),
           b = value(arg(2, "other"));
    if (failed(c) || failed(a) || failed(b))
      return failure();
    return genWhere(*c, *a, *b, e);
  }
  if (fn == "pow") {
    Result a = value(arg(0, "input")), b = value(arg(1, "exponent"));
    if (failed(a) || failed(b))
      return failure();
    return binaryOp(ast::BinaryOp::Pow, *a, *b, e);
  }
  return std::nullopt;
}

std::optional<Result> Generator::genPythonMathCall(const ast::CallExpr &e,
                                                   llvm::StringRef fn) {
  // Python's math module: functions of numbers, folded; of run-time
  // scalars, computed in f32.
  static const char *const kFolded[] = {"ceil", "floor", "trunc"};
  bool rounding = llvm::is_contained(kFolded, fn);
  if (!isUnaryMath(fn) && !rounding && fn != "pow" && fn != "isqrt")
    return fail(e.getCallee().getRange(),
                "math." + fn.str() + " is not supported in a dslc kernel");
  if (e.getArgs().size() != (fn == "pow" ? 2u : 1u))
    return fail(e.getRange(), "math." + fn.str() + " takes " +
                                  (fn == "pow" ? "two numbers" : "one number"));
  Result x = genExpr(*e.getArgs()[0].value);
  if (failed(x))
    return failure();
  if (fn == "pow") {
    Result y = genExpr(*e.getArgs()[1].value);
    if (failed(y))
      return failure();
    if (!isNumber(*x) || !isNumber(*y))
      return fail(e.getRange(), "math.pow takes numbers");
    auto d = [](const SemValue &v) {
      return v.kind == SemValue::Kind::Int ? double(v.intValue) : v.floatValue;
    };
    SemValue f = SemValue::ofKind(SemValue::Kind::Float);
    f.floatValue = std::pow(d(*x), d(*y));
    return Result(f);
  }
  if (isNumber(*x)) {
    double v =
        x->kind == SemValue::Kind::Int ? double(x->intValue) : x->floatValue;
    if (rounding || fn == "isqrt") {
      double r = fn == "ceil"    ? std::ceil(v)
                 : fn == "floor" ? std::floor(v)
                 : fn == "trunc" ? std::trunc(v)
                                 : std::floor(std::sqrt(v));
      if (!std::isfinite(r) || std::abs(r) >= 9.2e18)
        return fail(e.getRange(), "math." + fn.str() + " overflows");
      return Result(SemValue::integer(int64_t(r)));
    }
    SemValue f = SemValue::ofKind(SemValue::Kind::Float);
    f.floatValue = *foldUnary(fn, v);
    return Result(f);
  }
  if (x->kind == SemValue::Kind::Scalar && !rounding && fn != "isqrt" &&
      fn != "sigmoid" && fn != "relu") {
    mlir::Location l = loc(e);
    SemValue s = SemValue::ofKind(SemValue::Kind::Scalar);
    Value f = castValue(x->value, builder.getF32Type(), l);
    if (fn == "abs")
      s.value = math::AbsFOp::create(builder, l, f);
    else if (fn == "neg")
      s.value = arith::NegFOp::create(builder, l, f);
    else
      s.value = emitUnaryMath(fn, f, l);
    return Result(s);
  }
  return fail(e.getArgs()[0].value->getRange(),
              "math." + fn.str() + " takes a number (a tile uses torch." +
                  fn.str() + ")");
}

} // namespace dslc::mlirgen
