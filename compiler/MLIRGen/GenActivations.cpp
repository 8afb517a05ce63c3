//===- GenActivations.cpp - torch.nn.functional and composites -----------===//
//
// The functions Helion lowers as compositions of elementwise math and
// reductions: softmax and log_softmax along a dimension (the max
// subtracted first; 16-bit inputs computed in f32 and rounded back, as
// torch does), gelu (erf, or tanh with approximate="tanh"), silu, relu,
// sigmoid, tanh, in `torch.nn.functional.X`, `torch.X` and method
// spellings.
//
//===----------------------------------------------------------------------===//

#include "compiler/MLIRGen/Generator.h"

#include <cmath>

using namespace mlir;

namespace dslc::mlirgen {

/// `F.X` of torch.nn.functional that are plain unary functions.
static const char *const kFunctionalUnary[] = {"relu", "sigmoid", "tanh",
                                               "silu", "gelu"};

static SemValue floatConst(double v) {
  SemValue f = SemValue::ofKind(SemValue::Kind::Float);
  f.floatValue = v;
  return f;
}

std::optional<Result> Generator::genActivationCall(const ast::CallExpr &e,
                                                   llvm::StringRef fn,
                                                   const ast::Expr *self) {
  if (fn.starts_with("nn.functional.") &&
      isCompositeFunctional(fn.drop_front(14)))
    return genCompositeCall(e, fn, self);
  if (fn.consume_front("nn.functional.")) {
    if (fn != "softmax" && fn != "log_softmax" &&
        !llvm::is_contained(kFunctionalUnary, fn))
      return fail(e.getCallee().getRange(),
                  "torch.nn.functional." + fn.str() +
                      " is not supported in a dslc kernel (softmax, "
                      "log_softmax, gelu, silu, relu, sigmoid, tanh, "
                      "softplus, hardtanh, relu6, hardsigmoid, hardswish, "
                      "elu, leaky_relu, mish, logsigmoid and softsign are; "
                      "write others with tile arithmetic)");
  } else if (fn != "softmax" && fn != "log_softmax" && fn != "silu" &&
             fn != "gelu") {
    return std::nullopt;
  }
  const ast::Expr *input = self ? self : argument(e, 0, "input");
  if (!input)
    return fail(e.getRange(), "torch." + fn.str() + " needs a tile");
  Result x = genExpr(*input);
  if (failed(x))
    return failure();
  if (fn == "softmax" || fn == "log_softmax") {
    const ast::Expr *dimArg = argument(e, self ? 0 : 1, "dim");
    if (!dimArg)
      return fail(e.getRange(), "torch." + fn.str() +
                                    " needs dim= (the dimension it "
                                    "normalizes)");
    return genSoftmax(e, *x, *dimArg, fn == "log_softmax");
  }
  if (fn == "silu")
    return genSilu(*x, e);
  if (fn == "gelu") {
    std::string approximate = "none";
    if (keyword(e, "approximate")) {
      auto a = stringKeyword(e, "approximate", "none");
      if (failed(a))
        return failure();
      approximate = *a;
    }
    if (approximate != "none" && approximate != "tanh")
      return fail(e.getRange(), "gelu's approximate= is 'none' or 'tanh'");
    return genGelu(*x, approximate == "tanh", e);
  }
  return genUnaryMath(fn, *x, e); // relu, sigmoid, tanh
}

/// `v` as a float tile to compute with: 16-bit floats widened to f32
/// (torch's internal precision); `resultType` is the dtype to round back
/// to.
FailureOr<SemValue> Generator::computeTile(const SemValue &v, Type &resultType,
                                           llvm::StringRef fn,
                                           const ast::Expr &where) {
  Result t = asTile(v, where);
  if (failed(t))
    return failure();
  Type element = getElementTypeOrSelf(t->value.getType());
  if (!isa<FloatType>(element) || isFP8(element))
    return error(where.getRange(),
                 fn.str() + " of " +
                     (isFP8(element) ? "an fp8" : "an integer") +
                     " tile: convert it with .to(torch.float32) first");
  resultType = element;
  SemValue out = *t;
  out.indexTile.reset();
  if (element.getIntOrFloatBitWidth() < 32)
    out.value = castValue(t->value, builder.getF32Type(), loc(where));
  return out;
}

Result Generator::genSoftmax(const ast::CallExpr &where, const SemValue &x,
                             const ast::Expr &dimArg, bool logSoftmax) {
  const char *fn = logSoftmax ? "torch.log_softmax" : "torch.softmax";
  Type resultType;
  FailureOr<SemValue> v = computeTile(x, resultType, fn, where);
  if (failed(v))
    return failure();
  auto rank = cast<RankedTensorType>(v->value.getType()).getRank();
  auto dims = reductionDims(&dimArg, rank);
  if (failed(dims))
    return failure();
  if (dims->size() != 1)
    return fail(dimArg.getRange(), std::string(fn) + " takes one dimension");
  if (const ast::Expr *dtype = keyword(where, "dtype"))
    if (!ast::isa<ast::NoneLiteralExpr>(*dtype)) {
      auto d = dtypeValue(*dtype);
      if (failed(d))
        return failure();
      resultType = dtypeToType(&ctx, *d);
    }
  // max subtracted for range; the masked tail counts in neither reduction.
  using BO = ast::BinaryOp;
  Result m = reduceTile("amax", *v, *dims, /*keepdim=*/true, where);
  Result shifted =
      succeeded(m) ? binaryOp(BO::Sub, *v, *m, where) : Result(failure());
  Result ex = succeeded(shifted) ? genUnaryMath("exp", *shifted, where)
                                 : Result(failure());
  Result sum = succeeded(ex) ? reduceTile("sum", *ex, *dims, true, where)
                             : Result(failure());
  if (failed(sum))
    return failure();
  Result r = failure();
  if (logSoftmax) {
    Result lse = genUnaryMath("log", *sum, where);
    r = succeeded(lse) ? binaryOp(BO::Sub, *shifted, *lse, where)
                       : Result(failure());
  } else {
    r = binaryOp(BO::Div, *ex, *sum, where);
  }
  if (failed(r))
    return failure();
  r->value = castValue(r->value, resultType, loc(where));
  return r;
}

Result Generator::genSilu(const SemValue &x, const ast::Expr &where) {
  Type resultType;
  FailureOr<SemValue> v = computeTile(x, resultType, "silu", where);
  if (failed(v))
    return failure();
  Result s = genUnaryMath("sigmoid", *v, where);
  Result r = succeeded(s) ? binaryOp(ast::BinaryOp::Mul, *v, *s, where)
                          : Result(failure());
  if (failed(r))
    return failure();
  r->value = castValue(r->value, resultType, loc(where));
  return r;
}

Result Generator::genGelu(const SemValue &x, bool tanhApproximation,
                          const ast::Expr &where) {
  using BO = ast::BinaryOp;
  Type resultType;
  FailureOr<SemValue> v = computeTile(x, resultType, "gelu", where);
  if (failed(v))
    return failure();
  // x * 0.5 * (1 + erf(x / sqrt(2))), or with tanh(sqrt(2 / pi) *
  // (x + 0.044715 * x^3)) in place of the erf.
  Result inner = failure();
  if (tanhApproximation) {
    Result x3 = binaryOp(BO::Mul, *v, *v, where);
    x3 = succeeded(x3) ? binaryOp(BO::Mul, *x3, *v, where) : x3;
    Result t = succeeded(x3)
                   ? binaryOp(BO::Mul, floatConst(0.044715), *x3, where)
                   : x3;
    t = succeeded(t) ? binaryOp(BO::Add, *v, *t, where) : t;
    t = succeeded(t)
            ? binaryOp(BO::Mul, floatConst(std::sqrt(2.0 / M_PI)), *t, where)
            : t;
    inner = succeeded(t) ? genUnaryMath("tanh", *t, where) : t;
  } else {
    Result t = binaryOp(BO::Mul, *v, floatConst(M_SQRT1_2), where);
    inner = succeeded(t) ? genUnaryMath("erf", *t, where) : t;
  }
  Result r = succeeded(inner)
                 ? binaryOp(BO::Add, floatConst(1.0), *inner, where)
                 : inner;
  r = succeeded(r) ? binaryOp(BO::Mul, *r, floatConst(0.5), where) : r;
  r = succeeded(r) ? binaryOp(BO::Mul, *v, *r, where) : r;
  if (failed(r))
    return failure();
  r->value = castValue(r->value, resultType, loc(where));
  return r;
}

} // namespace dslc::mlirgen
