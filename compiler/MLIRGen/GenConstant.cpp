//===- GenConstant.cpp - Compile-time evaluation --------------------------===//

#include "compiler/MLIRGen/Generator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace dslc::mlirgen {

Value Generator::indexConst(mlir::Location l, int64_t v) {
  return arith::ConstantIndexOp::create(builder, l, v);
}

FailureOr<Value> Generator::toIndex(const SemValue &v, const ast::Expr &where) {
  mlir::Location l = loc(where);
  switch (v.kind) {
  case SemValue::Kind::Int:
    return indexConst(l, v.intValue);
  case SemValue::Kind::Scalar:
    if (v.value.getType().isIndex())
      return v.value;
    if (v.value.getType().isInteger(1)) // a bool is 0 or 1
      return castValue(v.value, builder.getIndexType(), l);
    if (isa<IntegerType>(v.value.getType()))
      return Value(arith::IndexCastOp::create(builder, l,
                                              builder.getIndexType(), v.value));
    break;
  case SemValue::Kind::Unbound:
    return unboundError(v, where.getRange());
  default:
    break;
  }
  return error(where.getRange(),
               std::string("expected an integer, got ") + kindName(v.kind));
}

FailureOr<int64_t> Generator::constIntOf(const ast::Expr &x,
                                         const std::string &what) {
  Result v = genExpr(x);
  if (failed(v))
    return failure();
  return toConstInt(*v, x, what);
}

LogicalResult Generator::unboundError(const SemValue &v, SourceRange where,
                                      const std::string &what) {
  if (!reportedUnbound.insert(v.text).second)
    return failure();
  std::string head = what.empty() ? "constexpr '" + v.text + "' has no value"
                                  : what + " needs constexpr '" + v.text +
                                        "', which has no value";
  return error(where, head + ": pass -D " + v.text + "=VALUE");
}

FailureOr<int64_t> Generator::toConstInt(const SemValue &v,
                                         const ast::Expr &where,
                                         const std::string &what) {
  if (v.kind == SemValue::Kind::Int)
    return v.intValue;
  if (v.kind == SemValue::Kind::Scalar && v.known) {
    for (const SemValue::ShapeKnown::Size &s : v.known->sizes)
      compileSizeIn(s.param, s.dim, s.value);
    return v.known->value;
  }
  if (v.kind == SemValue::Kind::Unbound)
    return unboundError(v, where.getRange(), what);
  if (v.kind == SemValue::Kind::Scalar && !v.sizesRead.empty()) {
    // Computed from tensor sizes: one error per missing size.
    bool reported = false;
    for (const auto &[param, dim] : v.sizesRead)
      reported |= failedSizes.count(sizeKey(param, dim)) != 0;
    for (const auto &[param, dim] : v.sizesRead)
      markSizeFailed(param, dim);
    if (reported)
      return failure();
    const auto &[param, dim] = v.sizesRead.front();
    return error(where.getRange(),
                 what +
                     " must be a compile-time integer, got a run-time "
                     "scalar computed from " +
                     sizeKey(param, dim) + ": pass -D '" + sizeKey(param, dim) +
                     "=N'" + shapeAdvice(param) + " (or hl.specialize it)");
  }
  return error(where.getRange(),
               what + " must be a compile-time integer, got " +
                   kindName(v.kind) +
                   (v.kind == SemValue::Kind::Scalar
                        ? " (make it static with hl.specialize or -D)"
                        : ""));
}

FailureOr<SemValue> Generator::defineValue(const std::string &name,
                                           const std::string &text,
                                           SourceRange where) {
  llvm::StringRef t = llvm::StringRef(text).trim();
  int64_t i;
  double d;
  if (t == "True" || t == "true")
    return SemValue::integer(1);
  if (t == "False" || t == "false")
    return SemValue::integer(0);
  if (!t.getAsInteger(0, i))
    return SemValue::integer(i);
  if (!t.getAsDouble(d)) {
    SemValue v = SemValue::ofKind(SemValue::Kind::Float);
    v.floatValue = d;
    return v;
  }
  if (t.size() >= 2 && (t.front() == '"' || t.front() == '\'') &&
      t.back() == t.front()) {
    SemValue v = SemValue::ofKind(SemValue::Kind::String);
    v.text = t.drop_front().drop_back().str();
    return v;
  }
  if (auto dtype =
          canonicalDType(t.starts_with("torch.") ? t.drop_front(6) : t)) {
    SemValue v = SemValue::ofKind(SemValue::Kind::DType);
    v.text = *dtype;
    return v;
  }
  if (t == "None")
    return SemValue::none();
  // [a, b] or (a, b): a list of the values above (list[int] parameters).
  if (t.size() >= 2 && ((t.front() == '[' && t.back() == ']') ||
                        (t.front() == '(' && t.back() == ')'))) {
    SemValue list = SemValue::ofKind(SemValue::Kind::Tuple);
    llvm::StringRef rest = t.drop_front().drop_back().trim();
    int depth = 0;
    size_t start = 0;
    for (size_t k = 0; k <= rest.size(); ++k) {
      char c = k < rest.size() ? rest[k] : ',';
      depth += (c == '[' || c == '(') - (c == ']' || c == ')');
      if (c != ',' || depth)
        continue;
      llvm::StringRef item = rest.slice(start, k).trim();
      start = k + 1;
      if (item.empty() && k == rest.size())
        break; // a trailing comma, or []
      FailureOr<SemValue> v = defineValue(name, item.str(), where);
      if (failed(v))
        return failure();
      list.elements.push_back(*v);
    }
    return list;
  }
  diags->error(where, "-D " + name + "=" + text +
                          ": value must be an integer, float, True/False, "
                          "None, a quoted string, a dtype or a list of those "
                          "([1, 2])");
  return failure();
}

Result Generator::genSpecialize(const ast::CallExpr &e) {
  if (e.getArgs().size() != 1)
    return fail(e.getRange(), "hl.specialize takes one argument");
  const ast::Expr &arg = *e.getArgs()[0].value;
  Result v = genExpr(arg);
  if (failed(v))
    return failure();
  if (v->kind == SemValue::Kind::Int)
    return *v;
  if (v->kind == SemValue::Kind::Unbound)
    return unboundError(*v, arg.getRange());
  // Arithmetic on sizes --shape gives: those sizes compiled in.
  if (v->kind == SemValue::Kind::Scalar && !isPlainSize(*v) &&
      (v->known || !v->sizesRead.empty())) {
    FailureOr<int64_t> n = toConstInt(*v, arg, "hl.specialize's value");
    if (failed(n))
      return failure();
    return SemValue::integer(*n);
  }
  if (!isPlainSize(*v))
    return fail(arg.getRange(),
                "hl.specialize takes a tensor size (or an int parameter, "
                "then compiled in from -D NAME=VALUE), got " +
                    std::string(kindName(v->kind)));
  // The static value: -D NAME (the variable it is assigned to, or the
  // tensor's dimension as PARAM.size(D)), or --world-size for a size that
  // is then named world_size; else the tensor's --shape.
  const std::string &param = v->origin->param;
  unsigned dim = v->origin->dim;
  std::string dimKey = sizeKey(param, dim);
  std::optional<std::string> text, source;
  std::string varName;
  if (auto *n = ast::dyn_cast<ast::NameExpr>(&arg))
    varName = n->getName();
  std::string name = varName.empty() ? dimKey : varName;
  for (const std::string &key : {varName, dimKey}) {
    if (key.empty())
      continue;
    auto it = options.defines.find(key);
    if (it != options.defines.end()) {
      usedDefines.insert(key);
      text = it->second;
      source = "-D " + key + "=" + it->second;
      break;
    }
  }
  if (!text && isWorldSizeName(varName) && options.worldSize) {
    text = std::to_string(*options.worldSize);
    source = "--world-size " + *text;
  }
  std::optional<int64_t> shaped = shapeSize(param, dim);
  if (!text && !shaped) {
    // One mistake, however many uses need the value.
    bool reported =
        sizeFailed(*v, dim) || (isWorldSizeName(varName) &&
                                !reportedUnbound.insert("world_size").second);
    markSizeFailed(param, dim);
    if (reported)
      return failure();
    return fail(e.getRange(),
                "hl.specialize(" + name +
                    ") needs the value to compile for: pass -D " + name +
                    "=VALUE" +
                    (isWorldSizeName(varName) ? " or --world-size N" : "") +
                    shapeAdvice(param));
  }
  int64_t value;
  if (text) {
    auto given = defineValue(name, *text, e.getRange());
    if (failed(given) || given->kind != SemValue::Kind::Int ||
        given->intValue < 0) {
      markSizeFailed(param, dim);
      if (failed(given))
        return failure();
      return fail(e.getRange(), "a specialized size must be a non-negative "
                                "integer, got '" +
                                    *text + "'");
    }
    value = given->intValue;
    // -D wins (later uses see its value); the contradiction is reported.
    if (shaped && *shaped != value) {
      addConstraint({param, dim, "==", value});
      return fail(e.getRange(), "hl.specialize(" + name + "): " + *source +
                                    " contradicts " + shapeSpelling(param) +
                                    " (whose size " + std::to_string(dim) +
                                    " is " + std::to_string(*shaped) +
                                    "); give one of them");
    }
  } else {
    value = *shaped;
  }
  if (isWorldSizeName(varName))
    desc.worldSize = value;
  addConstraint({param, dim, "==", value});
  desc.constants[name] = std::to_string(value);
  return SemValue::integer(value);
}

/// `a ** b` for b >= 0 by squaring; nothing when a power overflows.
static std::optional<int64_t> checkedPow(int64_t a, int64_t b) {
  int64_t result = 1;
  while (true) {
    if (b & 1)
      if (llvm::MulOverflow(result, a, result))
        return std::nullopt;
    b >>= 1;
    if (b == 0)
      return result;
    if (llvm::MulOverflow(a, a, a))
      return std::nullopt;
  }
}

// Python integers do not overflow; dslc's constants are 64-bit, so a result
// that does not fit is an error at the expression, never a wrapped value.
std::optional<Result> Generator::foldIntegers(ast::BinaryOp op, int64_t a,
                                              int64_t b,
                                              const ast::Expr &where) {
  using BO = ast::BinaryOp;
  std::string spelling = ast::getBinaryOpSpelling(op);
  auto overflow = [&]() -> Result {
    return fail(where.getRange(),
                "integer overflow: " + std::to_string(a) + " " + spelling +
                    " " + std::to_string(b) +
                    " does not fit in 64 bits (constants are int64)");
  };
  int64_t r = 0;
  switch (op) {
  case BO::Add:
    return llvm::AddOverflow(a, b, r) ? overflow() : SemValue::integer(r);
  case BO::Sub:
    return llvm::SubOverflow(a, b, r) ? overflow() : SemValue::integer(r);
  case BO::Mul:
    return llvm::MulOverflow(a, b, r) ? overflow() : SemValue::integer(r);
  case BO::Div: {
    // Python's true division: a float.
    if (b == 0)
      return fail(where.getRange(), "division by zero");
    SemValue v = SemValue::ofKind(SemValue::Kind::Float);
    v.floatValue = static_cast<double>(a) / static_cast<double>(b);
    return v;
  }
  case BO::FloorDiv:
  case BO::Mod: {
    if (b == 0)
      return fail(where.getRange(), "division by zero");
    if (b == -1) // INT64_MIN // -1 does not fit; x % -1 is 0.
      return op == BO::Mod                              ? SemValue::integer(0)
             : a == std::numeric_limits<int64_t>::min() ? overflow()
                                                        : SemValue::integer(-a);
    int64_t q = a / b, m = a % b;
    if (m != 0 && ((m < 0) != (b < 0))) {
      q -= 1;
      m += b;
    }
    return SemValue::integer(op == BO::FloorDiv ? q : m);
  }
  case BO::Pow: {
    if (b < 0) { // Python: a float (and an error for 0 ** -1).
      if (a == 0)
        return fail(where.getRange(), "0 cannot be raised to a negative power");
      SemValue v = SemValue::ofKind(SemValue::Kind::Float);
      v.floatValue = std::pow(static_cast<double>(a), static_cast<double>(b));
      return v;
    }
    std::optional<int64_t> p = checkedPow(a, b);
    return p ? SemValue::integer(*p) : overflow();
  }
  case BO::LShift:
  case BO::RShift:
    if (b < 0)
      return fail(where.getRange(), "negative shift count " +
                                        std::to_string(b) + " in '" + spelling +
                                        "'");
    if (op == BO::RShift) // Arithmetic, as Python's: -1 >> 100 == -1.
      return SemValue::integer(b >= 63 ? (a < 0 ? -1 : 0) : a >> b);
    if (a == 0)
      return SemValue::integer(0);
    // a << b is a * 2**b (2**63 is not an int64).
    if (b >= 63 || llvm::MulOverflow(a, int64_t(1) << b, r))
      return overflow();
    return SemValue::integer(r);
  case BO::BitAnd:
    return SemValue::integer(a & b);
  case BO::BitOr:
    return SemValue::integer(a | b);
  case BO::BitXor:
    return SemValue::integer(a ^ b);
  case BO::And: // Python returns an operand: `2 and 3` is 3.
    return SemValue::integer(a ? b : a);
  case BO::Or:
    return SemValue::integer(a ? a : b);
  case BO::MatMul:
    return fail(where.getRange(),
                "operator '@' (matrix product) is not defined on integers");
  }
  return std::nullopt;
}

std::optional<Result> Generator::foldNumbers(ast::BinaryOp op,
                                             const SemValue &lhs,
                                             const SemValue &rhs,
                                             const ast::Expr &where) {
  using BO = ast::BinaryOp;
  auto value = [](const SemValue &v) {
    return v.kind == SemValue::Kind::Int ? double(v.intValue) : v.floatValue;
  };
  double a = value(lhs), b = value(rhs);
  SemValue r = SemValue::ofKind(SemValue::Kind::Float);
  switch (op) {
  case BO::Add:
    r.floatValue = a + b;
    return r;
  case BO::Sub:
    r.floatValue = a - b;
    return r;
  case BO::Mul:
    r.floatValue = a * b;
    return r;
  case BO::Pow:
    r.floatValue = std::pow(a, b);
    return r;
  case BO::Div:
  case BO::FloorDiv:
  case BO::Mod:
    if (b == 0)
      return fail(where.getRange(), "division by zero");
    r.floatValue = op == BO::Div        ? a / b
                   : op == BO::FloorDiv ? std::floor(a / b)
                                        : a - std::floor(a / b) * b;
    return r;
  default:
    return std::nullopt;
  }
  return std::nullopt;
}

} // namespace dslc::mlirgen
