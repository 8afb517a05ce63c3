//===- GenComposites.cpp - More torch functions as compositions ----------===//
//
// torch functions that Helion kernels call and that are compositions of
// elementwise math and reductions dslc already has: the activations of
// torch.nn.functional beyond GenActivations.cpp's (softplus, hardtanh,
// relu6, hardsigmoid, hardswish, elu, leaky_relu, mish, logsigmoid,
// softsign), torch.reciprocal, sign, clamp_min/clamp_max, logsumexp,
// nan_to_num, var/std (and var_mean/std_mean) and the vector norm (p = 1
// or 2) along dimensions. Each computes
// in f32 for 16-bit inputs and rounds back, as torch does.
//
//===----------------------------------------------------------------------===//

#include "compiler/MLIRGen/Generator.h"

#include <limits>

using namespace mlir;

namespace dslc::mlirgen {

namespace {
/// The torch.nn.functional names this file computes.
const char *const kFunctional[] = {
    "softplus", "hardtanh",   "relu6", "hardsigmoid", "hardswish",
    "elu",      "leaky_relu", "mish",  "logsigmoid",  "softsign"};
/// The torch.X / x.X names this file computes.
const char *const kTorch[] = {"reciprocal", "logsumexp", "nan_to_num", "norm",
                              "sign",       "clamp_min", "clamp_max",  "var",
                              "std",        "var_mean",  "std_mean"};

SemValue number(double v) {
  SemValue f = SemValue::ofKind(SemValue::Kind::Float);
  f.floatValue = v;
  return f;
}
} // namespace

bool Generator::isCompositeFunctional(llvm::StringRef fn) {
  return llvm::is_contained(kFunctional, fn);
}

std::optional<Result> Generator::genCompositeCall(const ast::CallExpr &e,
                                                  llvm::StringRef fn,
                                                  const ast::Expr *self) {
  bool functional = fn.consume_front("nn.functional.");
  if (functional ? !isCompositeFunctional(fn) : !llvm::is_contained(kTorch, fn))
    return std::nullopt;
  std::string name =
      (functional ? "torch.nn.functional." : "torch.") + fn.str();
  const ast::Expr *input = self ? self : argument(e, 0, "input");
  if (!input)
    return fail(e.getRange(), name + " needs a tile");
  Result x = genExpr(*input);
  if (failed(x))
    return failure();
  Type resultType;
  FailureOr<SemValue> v = computeTile(*x, resultType, name, e);
  if (failed(v))
    return failure();
  // The arguments after the input: positional (after it) or by keyword.
  unsigned first = self ? 0 : 1;
  auto arg = [&](unsigned k, const char *key, double def) -> Result {
    const ast::Expr *a = argument(e, first + k, key);
    if (!a || ast::isa<ast::NoneLiteralExpr>(*a))
      return number(def);
    return genExpr(*a);
  };
  Result r = functional ? genCompositeActivation(fn, *v, arg, e)
                        : genCompositeTorch(fn, *v, arg, first, e);
  if (failed(r))
    return failure();
  if (r->kind == SemValue::Kind::Tuple) { // var_mean, std_mean
    for (SemValue &x : r->elements)
      x.value = castValue(x.value, resultType, loc(e));
    return r;
  }
  r->value = castValue(r->value, resultType, loc(e));
  return r;
}

Result Generator::genCompositeActivation(llvm::StringRef fn, const SemValue &v,
                                         const CompositeArg &arg,
                                         const ast::Expr &e) {
  using BO = ast::BinaryOp;
  using CO = ast::CompareOp;
  auto bin = [&](BO op, Result a, Result b) -> Result {
    if (failed(a) || failed(b))
      return failure();
    return binaryOp(op, *a, *b, e);
  };
  auto math = [&](const char *f, Result a) -> Result {
    return failed(a) ? a : genUnaryMath(f, *a, e);
  };
  auto clamp = [&](Result a, double lo, double hi) -> Result {
    Result r = failed(a) ? a : genMinMax2(true, *a, number(lo), e);
    return failed(r) ? r : genMinMax2(false, *r, number(hi), e);
  };
  auto select = [&](Result cond, Result a, Result b) -> Result {
    if (failed(cond) || failed(a) || failed(b))
      return failure();
    return genWhere(*cond, *a, *b, e);
  };
  auto positive = [&](Result a) -> Result {
    return failed(a) ? a : genTileCompare(CO::Gt, *a, number(0), e);
  };
  // softplus(x) = log1p(exp(beta x)) / beta, x itself where beta x > threshold.
  auto softplus = [&](Result a, Result beta, Result threshold) -> Result {
    Result bx = bin(BO::Mul, a, beta);
    Result soft = bin(BO::Div, math("log1p", math("exp", bx)), beta);
    Result big = failed(bx) || failed(threshold)
                     ? Result(failure())
                     : genTileCompare(CO::Gt, *bx, *threshold, e);
    return select(big, a, soft);
  };
  if (fn == "softplus")
    return softplus(v, arg(0, "beta", 1.0), arg(1, "threshold", 20.0));
  if (fn == "hardtanh") {
    Result lo = arg(0, "min_val", -1.0), hi = arg(1, "max_val", 1.0);
    if (failed(lo) || failed(hi))
      return failure();
    Result r = genMinMax2(true, v, *lo, e);
    return failed(r) ? r : genMinMax2(false, *r, *hi, e);
  }
  if (fn == "relu6")
    return clamp(v, 0.0, 6.0);
  if (fn == "hardsigmoid")
    return bin(BO::Div, clamp(bin(BO::Add, v, number(3.0)), 0.0, 6.0),
               number(6.0));
  if (fn == "hardswish")
    return bin(BO::Mul, v,
               bin(BO::Div, clamp(bin(BO::Add, v, number(3.0)), 0.0, 6.0),
                   number(6.0)));
  if (fn == "elu")
    return select(positive(v), v,
                  bin(BO::Mul, arg(0, "alpha", 1.0), math("expm1", v)));
  if (fn == "leaky_relu")
    return select(positive(v), v,
                  bin(BO::Mul, v, arg(0, "negative_slope", 0.01)));
  if (fn == "mish")
    return bin(BO::Mul, v,
               math("tanh", softplus(v, number(1.0), number(20.0))));
  if (fn == "logsigmoid") // -softplus(-x)
    return bin(
        BO::Sub, number(0.0),
        softplus(bin(BO::Sub, number(0.0), v), number(1.0), number(20.0)));
  // softsign(x) = x / (1 + |x|)
  return bin(BO::Div, v, bin(BO::Add, number(1.0), math("abs", v)));
}

Result Generator::genCompositeTorch(llvm::StringRef fn, const SemValue &v,
                                    const CompositeArg &arg, unsigned first,
                                    const ast::CallExpr &e) {
  using BO = ast::BinaryOp;
  if (fn == "reciprocal")
    return binaryOp(BO::Div, number(1.0), v, e);
  if (fn == "clamp_min" || fn == "clamp_max") {
    Result bound = arg(0, fn == "clamp_min" ? "min" : "max", 0.0);
    if (failed(bound))
      return failure();
    return genMinMax2(fn == "clamp_min", v, *bound, e);
  }
  if (fn == "sign") {
    // 1, -1 or 0 (a NaN stays NaN, as torch.sign).
    using CO = ast::CompareOp;
    Result pos = genTileCompare(CO::Gt, v, number(0), e);
    Result neg = genTileCompare(CO::Lt, v, number(0), e);
    Result nan = genTileCompare(CO::NotEq, v, v, e);
    if (failed(pos) || failed(neg) || failed(nan))
      return failure();
    Result r = genWhere(*neg, number(-1.0), number(0.0), e);
    r = failed(r) ? r : genWhere(*pos, number(1.0), *r, e);
    return failed(r) ? r : genWhere(*nan, v, *r, e);
  }
  if (fn == "nan_to_num") {
    // NaN -> nan (0), +inf -> posinf, -inf -> neginf (f32's extremes: the
    // result is rounded back to the input's dtype after).
    double big = std::numeric_limits<float>::max();
    Result nan = arg(0, "nan", 0.0), pos = arg(1, "posinf", big),
           neg = arg(2, "neginf", -big);
    if (failed(nan) || failed(pos) || failed(neg))
      return failure();
    // Only the NaNs and infinities change: finite values stay as they are.
    double inf = std::numeric_limits<double>::infinity();
    Result r = v;
    for (auto [match, value] :
         {std::pair{Result(v), *nan}, std::pair{Result(number(inf)), *pos},
          std::pair{Result(number(-inf)), *neg}}) {
      // NaN is the one value unequal to itself.
      Result hit = genTileCompare(match->kind == SemValue::Kind::Float
                                      ? ast::CompareOp::Eq
                                      : ast::CompareOp::NotEq,
                                  v, *match, e);
      r = failed(hit) || failed(r) ? Result(failure())
                                   : genWhere(*hit, value, *r, e);
    }
    return r;
  }
  if (fn == "var" || fn == "std" || fn == "var_mean" || fn == "std_mean")
    return genVariance(fn, v, first, e);
  // logsumexp(input, dim, keepdim=False); norm(input, p=2, dim=None,
  // keepdim=False): where dim and keepdim are among the arguments.
  bool lse = fn == "logsumexp";
  unsigned dimAt = first + (lse ? 0 : 1);
  const ast::Expr *dimArg = argument(e, dimAt, "dim");
  FailureOr<bool> keepdim = boolArgument(e, dimAt + 1, "keepdim", false);
  if (failed(keepdim))
    return failure();
  auto rank = cast<RankedTensorType>(v.value.getType()).getRank();
  if (lse && !dimArg)
    return fail(e.getRange(), "torch.logsumexp needs dim= (the dimensions "
                              "it reduces)");
  FailureOr<SmallVector<int64_t>> dims = reductionDims(dimArg, rank);
  if (failed(dims))
    return failure();
  if (lse) {
    // max + log(sum(exp(x - max))): the max subtracted for range.
    Result m = reduceTile("amax", v, *dims, /*keepdim=*/true, e);
    Result shifted = failed(m) ? m : binaryOp(BO::Sub, v, *m, e);
    Result ex = failed(shifted) ? shifted : genUnaryMath("exp", *shifted, e);
    Result s = failed(ex) ? ex : reduceTile("sum", *ex, *dims, true, e);
    Result r = failed(s) ? s : genUnaryMath("log", *s, e);
    r = failed(r) ? r : binaryOp(BO::Add, *r, *m, e);
    // Without keepdim the reduced (now unit) dimensions go: a sum over
    // one element each.
    return failed(r) || *keepdim ? r : reduceTile("sum", *r, *dims, false, e);
  }
  Result p = arg(0, "p", 2.0);
  if (failed(p))
    return failure();
  double order = p->kind == SemValue::Kind::Int     ? double(p->intValue)
                 : p->kind == SemValue::Kind::Float ? p->floatValue
                                                    : -1;
  if (order != 1.0 && order != 2.0)
    return fail(e.getRange(), "torch.norm: dslc computes p = 1 or 2 (a "
                              "compile-time number)");
  Result terms =
      order == 1.0 ? genUnaryMath("abs", v, e) : binaryOp(BO::Mul, v, v, e);
  Result s =
      failed(terms) ? terms : reduceTile("sum", *terms, *dims, *keepdim, e);
  return failed(s) || order == 1.0 ? s : genUnaryMath("sqrt", *s, e);
}

Result Generator::genVariance(llvm::StringRef fn, const SemValue &v,
                              unsigned first, const ast::CallExpr &e) {
  // var(input, dim=None, unbiased=True, keepdim=False) or with
  // correction=: sum((x - mean)^2) / (N - correction), N the elements
  // reduced (a masked tail's excluded); std its square root; the *_mean
  // forms return (var or std, mean).
  using BO = ast::BinaryOp;
  const ast::Expr *dimArg = argument(e, first, "dim");
  FailureOr<bool> unbiased = boolArgument(e, first + 1, "unbiased", true);
  if (failed(unbiased))
    return failure();
  int64_t correction = *unbiased ? 1 : 0;
  if (const ast::Expr *c = keyword(e, "correction")) {
    Result cv = genExpr(*c);
    if (failed(cv))
      return failure();
    if (cv->kind != SemValue::Kind::Int || cv->intValue < 0)
      return fail(c->getRange(), "'correction' must be an integer >= 0");
    correction = cv->intValue;
  }
  FailureOr<bool> keepdim = boolArgument(e, first + 2, "keepdim", false);
  if (failed(keepdim))
    return failure();
  auto rank = cast<RankedTensorType>(v.value.getType()).getRank();
  FailureOr<SmallVector<int64_t>> dims = reductionDims(dimArg, rank);
  if (failed(dims))
    return failure();
  Result mean = reduceTile("mean", v, *dims, /*keepdim=*/true, e);
  Result d = failed(mean) ? mean : binaryOp(BO::Sub, v, *mean, e);
  Result sq = failed(d) ? d : binaryOp(BO::Mul, *d, *d, e);
  Result ss = failed(sq) ? sq : reduceTile("sum", *sq, *dims, *keepdim, e);
  // N: the valid elements reduced, as a sum of ones shaped like d.
  Result ones = failed(d) ? d : binaryOp(BO::Mul, *d, number(0.0), e);
  ones = failed(ones) ? ones : binaryOp(BO::Add, *ones, number(1.0), e);
  Result n = failed(ones) ? ones : reduceTile("sum", *ones, *dims, *keepdim, e);
  Result den =
      failed(n) ? n : binaryOp(BO::Sub, *n, number(double(correction)), e);
  Result r = failed(ss) || failed(den) ? Result(failure())
                                       : binaryOp(BO::Div, *ss, *den, e);
  if (fn.starts_with("std"))
    r = failed(r) ? r : genUnaryMath("sqrt", *r, e);
  if (failed(r) || !fn.ends_with("_mean"))
    return r;
  Result m = *keepdim ? mean : reduceTile("mean", v, *dims, false, e);
  if (failed(m))
    return failure();
  SemValue pair = SemValue::ofKind(SemValue::Kind::Tuple);
  pair.elements = {*r, *m};
  return pair;
}

} // namespace dslc::mlirgen
