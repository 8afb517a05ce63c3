//===- InterpreterMath.cpp - The math dialect ----------------------------===//
//
// math ops on scalars and tiles, elementwise: computed in double and
// rounded once to the result type. The GPU computes bf16/f16 math in f32
// and rounds once (MathLowering.cpp), which the rounding through f32
// models; sqrt and abs are exact there and here, the libdevice functions
// (exp, log, rsqrt, tanh, ...) are within their documented ulps of the
// correctly rounded results the simulator computes.
//
//===----------------------------------------------------------------------===//

#include "compiler/Simulator/Interpreter.h"
#include "compiler/Simulator/InterpreterSupport.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace dslc;
using namespace dslc::sim;

namespace {

/// The double function of a float math op of one, two or three operands,
/// or null.
double (*unaryFunction(StringRef name))(double) {
  static const std::pair<const char *, double (*)(double)> table[] = {
      {"math.sqrt", [](double x) { return std::sqrt(x); }},
      {"math.rsqrt", [](double x) { return 1.0 / std::sqrt(x); }},
      {"math.exp", [](double x) { return std::exp(x); }},
      {"math.exp2", [](double x) { return std::exp2(x); }},
      {"math.expm1", [](double x) { return std::expm1(x); }},
      {"math.log", [](double x) { return std::log(x); }},
      {"math.log2", [](double x) { return std::log2(x); }},
      {"math.log10", [](double x) { return std::log10(x); }},
      {"math.log1p", [](double x) { return std::log1p(x); }},
      {"math.tanh", [](double x) { return std::tanh(x); }},
      {"math.sin", [](double x) { return std::sin(x); }},
      {"math.cos", [](double x) { return std::cos(x); }},
      {"math.tan", [](double x) { return std::tan(x); }},
      {"math.erf", [](double x) { return std::erf(x); }},
      {"math.atan", [](double x) { return std::atan(x); }},
      {"math.absf", [](double x) { return std::fabs(x); }},
      {"math.floor", [](double x) { return std::floor(x); }},
      {"math.ceil", [](double x) { return std::ceil(x); }},
      {"math.trunc", [](double x) { return std::trunc(x); }},
      {"math.roundeven", [](double x) { return std::nearbyint(x); }},
  };
  for (auto &[op, f] : table)
    if (name == op)
      return f;
  return nullptr;
}

double (*binaryFunction(StringRef name))(double, double) {
  if (name == "math.atan2")
    return [](double y, double x) { return std::atan2(y, x); };
  if (name == "math.powf")
    return [](double x, double y) { return std::pow(x, y); };
  if (name == "math.copysign")
    return [](double x, double y) { return std::copysign(x, y); };
  return nullptr;
}

} // namespace

Interpreter::Outcome Interpreter::execMath(Task &task, Operation &op) {
  StringRef name = op.getName().getStringRef();
  if (op.getNumResults() != 1)
    return fail(task, op,
                "the simulator does not support '" + name.str() + "'");
  Type resultType = op.getResult(0).getType();
  bool isTile = isa<RankedTensorType>(resultType);
  ElemType rt = ElemType::fromType(
      isTile ? cast<RankedTensorType>(resultType).getElementType()
             : resultType);
  std::shared_ptr<TileVal> out = isTile ? emptyTile(resultType) : nullptr;
  int64_t n = isTile ? out->numel() : 1;
  std::vector<const RtValue *> in;
  for (Value v : op.getOperands())
    in.push_back(&get(task, v));
  auto fAt = [&](unsigned operand, int64_t k) {
    const RtValue &v = *in[operand];
    if (v.kind == RtValue::Kind::Tile)
      return v.tile->type.isFloat() ? v.tile->f[k] : double(v.tile->i[k]);
    return v.kind == RtValue::Kind::Float ? v.f : double(v.i);
  };
  auto iAt = [&](unsigned operand, int64_t k) {
    const RtValue &v = *in[operand];
    return v.kind == RtValue::Kind::Tile ? v.tile->i[k] : v.i;
  };

  if (isa<math::AbsIOp>(op)) {
    // |INT_MIN| wraps to itself, as on the GPU.
    for (int64_t k = 0; k < n; ++k) {
      int64_t x = iAt(0, k);
      int64_t r = wrapInt(rt, x < 0 ? int64_t(0 - uint64_t(x)) : x);
      if (isTile)
        out->i[k] = r;
      else
        task.values[op.getResult(0)] = RtValue::ofInt(r);
    }
  } else {
    auto unary = unaryFunction(name);
    auto binary = binaryFunction(name);
    bool fma = isa<math::FmaOp>(op);
    if (!rt.isFloat() || (!unary && !binary && !fma))
      return fail(task, op,
                  "the simulator does not support '" + name.str() + "'");
    for (int64_t k = 0; k < n; ++k) {
      double r = unary    ? unary(fAt(0, k))
                 : binary ? binary(fAt(0, k), fAt(1, k))
                          : std::fma(fAt(0, k), fAt(1, k), fAt(2, k));
      r = roundTo(rt, r);
      if (isTile)
        out->f[k] = r;
      else
        task.values[op.getResult(0)] = RtValue::ofFloat(r);
    }
  }
  if (isTile)
    task.values[op.getResult(0)] = RtValue::ofTile(out);
  return Outcome::Next;
}
