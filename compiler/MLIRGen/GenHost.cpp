//===- GenHost.cpp - Host code around the tile loops ----------------------===//
//
// Helion runs the code outside a kernel's tile loops on the host, as
// PyTorch: it views tensors (`x.view(-1)`, `x.reshape(...)`), counts their
// elements, makes outputs (`x.new_empty(...)`), compares shapes and, after
// the loop, computes with the outputs (`losses.mean()`). dslc compiles what
// the device needs of it:
// - a view of a contiguous tensor is `tile.view` (the same memory with other
//   sizes), whose sizes are integer constants or run-time index scalars;
// - `numel()` is the product of the sizes;
// - `float(n)`, `int(x)` convert numbers and run-time scalars;
// - `torch.broadcast_tensors` of tensors of one shape is the tensors;
// - anything else host code computes from tensors is a Host value: the
//   kernel cannot read it (an error naming it where it would), and a kernel
//   may return it, which leaves that computation to its caller.
//
//===----------------------------------------------------------------------===//

#include "compiler/MLIRGen/Generator.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace dslc::mlirgen {

bool GeneratorState::isViewMethod(llvm::StringRef method) {
  return method == "view" || method == "reshape" || method == "view_as" ||
         method == "flatten" || method == "contiguous" || method == "numel" ||
         method == "new_empty" || method == "new_zeros" ||
         method == "new_ones" || method == "new_full";
}

FailureOr<std::vector<SemValue>> Generator::refSizes(const SemValue &ref,
                                                     const ast::Expr &where) {
  if (!ref.viewSizes.empty())
    return ref.viewSizes;
  std::vector<SemValue> sizes;
  unsigned rank = refShape(ref).first;
  for (unsigned d = 0; d < rank; ++d) {
    Result s = tensorSize(ref, d, where);
    if (failed(s))
      return failure();
    sizes.push_back(*s);
  }
  return sizes;
}

Result Generator::productOf(const std::vector<SemValue> &sizes,
                            const ast::Expr &where) {
  SemValue n = SemValue::integer(1);
  for (const SemValue &s : sizes) {
    Result p = binaryOp(ast::BinaryOp::Mul, n, s, where);
    if (failed(p))
      return failure();
    n = *p;
  }
  return n;
}

Result Generator::hostValue(const ast::Expr &e) {
  SemValue v = SemValue::ofKind(SemValue::Kind::Host);
  v.where = &e;
  return v;
}

bool Generator::isHostTensor(const SemValue &v) const {
  return !inGrid &&
         (v.kind == SemValue::Kind::Ref || v.kind == SemValue::Kind::Host);
}

LogicalResult Generator::hostValueUsed(const SemValue &v,
                                       const ast::Expr &where) {
  (void)error(where.getRange(),
              "this value is computed by host code (in Helion, PyTorch "
              "before the kernel's loop runs): a dslc kernel reads its "
              "parameters as they are passed; compute it before the call "
              "and pass it as a parameter");
  if (v.where)
    diags->note(v.where->getRange(), "computed here");
  return failure();
}

/// The sizes a view call gives: `view(a, b)`, `view([a, b])`,
/// `view((a, b))`; -1 once, for the size the others leave.
static std::vector<const ast::Expr *>
viewSizeArguments(const ast::CallExpr &e) {
  std::vector<const ast::Expr *> positional;
  for (const ast::Argument &a : e.getArgs())
    if (a.kind == ast::Argument::Kind::Positional)
      positional.push_back(a.value.get());
  if (positional.size() == 1 && (ast::isa<ast::ListExpr>(*positional[0]) ||
                                 ast::isa<ast::TupleExpr>(*positional[0])))
    return elementsOf(*positional[0]);
  return positional;
}

Result Generator::genView(const ast::CallExpr &e, const SemValue &ref,
                          llvm::StringRef method) {
  auto from = refSizes(ref, e);
  if (failed(from))
    return failure();
  Result numel = productOf(*from, e);
  if (failed(numel))
    return failure();
  if (method == "numel")
    return numel;
  if (method == "contiguous")
    return ref; // dslc's tensors are contiguous (a window reads the same)
  if (!ref.windowStarts.empty())
    return fail(e.getRange(),
                method.str() + " of a slice taken before the loop: the slice "
                               "is not contiguous; slice the view instead, "
                               "or pass the sliced tensor made contiguous");
  std::vector<SemValue> sizes;
  if (method == "flatten") {
    if (!e.getArgs().empty())
      return fail(e.getRange(), "flatten() with dimensions is not supported: "
                                "write view(...) with the sizes");
    sizes.push_back(*numel);
  } else if (method == "view_as") {
    const ast::Expr *other = argument(e, 0, "other");
    Result like = other ? genExpr(*other) : Result(failure());
    if (!other)
      return fail(e.getRange(), "view_as takes a tensor");
    if (failed(like))
      return failure();
    if (like->kind != SemValue::Kind::Ref)
      return fail(other->getRange(), std::string("view_as takes a tensor, "
                                                 "got ") +
                                         kindName(like->kind));
    auto s = refSizes(*like, e);
    if (failed(s))
      return failure();
    sizes = *s;
  } else {
    std::optional<size_t> inferred;
    for (const ast::Expr *x : viewSizeArguments(e)) {
      Result v = genExpr(*x);
      if (failed(v))
        return failure();
      if (v->kind ==
          SemValue::Kind::Tuple) { // view(*x.size()) spelled x.size()
        for (const SemValue &el : v->elements)
          sizes.push_back(el);
        continue;
      }
      if (v->kind == SemValue::Kind::Int && v->intValue == -1) {
        if (inferred)
          return fail(x->getRange(), "only one size of a view may be -1");
        inferred = sizes.size();
      } else if (!(v->kind == SemValue::Kind::Int && v->intValue >= 0) &&
                 !(v->kind == SemValue::Kind::Scalar &&
                   !isa<FloatType>(v->value.getType()))) {
        return fail(x->getRange(),
                    std::string("a view's size is a non-negative integer or a "
                                "run-time size, got ") +
                        kindName(v->kind));
      }
      sizes.push_back(*v);
    }
    if (sizes.empty() || sizes.size() > 8)
      return fail(e.getRange(), "a view has 1 to 8 dimensions");
    if (inferred) {
      std::vector<SemValue> others;
      for (auto [k, s] : llvm::enumerate(sizes))
        if (k != *inferred)
          others.push_back(s);
      Result rest = productOf(others, e);
      Result left = succeeded(rest)
                        ? binaryOp(ast::BinaryOp::FloorDiv, *numel, *rest, e)
                        : Result(failure());
      if (failed(left))
        return failure();
      sizes[*inferred] = *left;
    }
  }
  // Static view sizes that disagree with a static tensor: Python's error.
  Result count = productOf(sizes, e);
  if (failed(count))
    return failure();
  auto known = [](const SemValue &v) -> std::optional<int64_t> {
    if (v.kind == SemValue::Kind::Int)
      return v.intValue;
    if (v.kind == SemValue::Kind::Scalar && v.known)
      return v.known->value;
    return std::nullopt;
  };
  std::optional<int64_t> have = known(*numel), want = known(*count);
  if (have && want && *have != *want)
    return fail(e.getRange(), "a view of a tensor of " + std::to_string(*have) +
                                  " elements (by its sizes here) as " +
                                  std::to_string(*want) +
                                  " elements: the sizes must multiply to the "
                                  "tensor's count");
  mlir::Location l = loc(e);
  SmallVector<Value> operands;
  for (const SemValue &s : sizes) {
    auto i = toIndex(s, e);
    if (failed(i))
      return failure();
    operands.push_back(*i);
  }
  auto type = tile::RefType::get(&ctx, refShape(ref).second, sizes.size());
  SemValue v = ref;
  v.value = tile::ViewOp::create(builder, l, type, ref.value, operands);
  v.viewSizes = std::move(sizes);
  return v;
}

Result Generator::genNewTensor(const ast::CallExpr &e, const SemValue &ref,
                               llvm::StringRef method) {
  // x.new_empty(shape, dtype=): torch.empty(shape, dtype=) with x's dtype.
  std::string dtype = refDTypes.count(ref.text)
                          ? refDTypes[ref.text]
                          : typeToDType(refShape(ref).second);
  if (inGrid) {
    const ast::Expr *shape = argument(e, 0, "size");
    if (!shape)
      return fail(e.getRange(), method.str() + " needs a shape");
    if (method == "new_full" || method == "new_empty")
      return fail(e.getRange(), method.str() +
                                    " in the loop: write hl.full(shape, value, "
                                    "dtype=) or hl.zeros(shape, dtype=)");
    return genTileFill(e, "torch.zeros", *shape, nullptr, dtype,
                       method == "new_ones" ? 1 : 0);
  }
  if (method == "new_ones" || method == "new_full")
    return fail(e.getRange(),
                "x." + method.str() +
                    " outside the tile loop would be an output filled "
                    "before the kernel, which dslc does not do: make it with "
                    "new_empty and store the values in the loop");
  return genOutputShaped(e, "x." + method.str(), method == "new_zeros", dtype);
}

std::optional<Result> Generator::genRefMethod(const ast::CallExpr &e,
                                              const SemValue &ref,
                                              llvm::StringRef method) {
  if (method == "new_empty" || method == "new_zeros" || method == "new_ones" ||
      method == "new_full")
    return genNewTensor(e, ref, method);
  if (isViewMethod(method))
    return genView(e, ref, method);
  return std::nullopt;
}

Result Generator::genNumberCast(const ast::CallExpr &e, bool toFloat) {
  const char *fn = toFloat ? "float" : "int";
  if (e.getArgs().size() != 1)
    return fail(e.getRange(), std::string(fn) + "() takes one number");
  const ast::Expr &arg = *e.getArgs()[0].value;
  // float("-inf"), float("nan"): the strings Python reads.
  if (toFloat)
    if (auto *str = ast::dyn_cast<ast::StringLiteralExpr>(&arg)) {
      llvm::StringRef t = llvm::StringRef(str->getValue()).trim().lower();
      SemValue v = SemValue::ofKind(SemValue::Kind::Float);
      if (t == "inf" || t == "+inf" || t == "infinity")
        v.floatValue = std::numeric_limits<double>::infinity();
      else if (t == "-inf" || t == "-infinity")
        v.floatValue = -std::numeric_limits<double>::infinity();
      else if (t == "nan")
        v.floatValue = std::numeric_limits<double>::quiet_NaN();
      else if (llvm::StringRef(str->getValue())
                   .trim()
                   .getAsDouble(v.floatValue))
        return fail(arg.getRange(), "float() of a string that is not a "
                                    "number");
      return v;
    }
  Result v = genExpr(arg);
  if (failed(v))
    return failure();
  switch (v->kind) {
  case SemValue::Kind::Int:
    if (!toFloat)
      return *v;
    {
      SemValue f = SemValue::ofKind(SemValue::Kind::Float);
      f.floatValue = double(v->intValue);
      return f;
    }
  case SemValue::Kind::Float:
    if (toFloat)
      return *v;
    if (!std::isfinite(v->floatValue) || std::abs(v->floatValue) >= 9.2e18)
      return fail(arg.getRange(), "int() of a float that is not a finite "
                                  "64-bit integer");
    return SemValue::integer(int64_t(v->floatValue));
  case SemValue::Kind::Scalar: {
    SemValue s = *v;
    s.value = castValue(v->value,
                        toFloat ? Type(builder.getF32Type())
                                : Type(builder.getI64Type()),
                        loc(e));
    if (toFloat) {
      s.origin.reset();
      s.known.reset();
    }
    return s;
  }
  case SemValue::Kind::Host:
  case SemValue::Kind::Ref:
    if (!inGrid)
      return hostValue(e); // float(t.sum().item()) and the like
    [[fallthrough]];
  default:
    return fail(arg.getRange(), std::string(fn) + "() of " + kindName(v->kind) +
                                    ": it converts numbers and run-time "
                                    "scalars (a tile converts with .to())");
  }
}

Result Generator::genBroadcastTensors(const ast::CallExpr &e) {
  // Tensors of one shape broadcast to themselves; others would need strided
  // views, which dslc's contiguous tensors are not.
  SemValue out = SemValue::ofKind(SemValue::Kind::Tuple);
  std::optional<std::vector<SemValue>> shape;
  for (const ast::Argument &a : e.getArgs()) {
    Result v = genExpr(*a.value);
    if (failed(v))
      return failure();
    if (v->kind != SemValue::Kind::Ref)
      return fail(a.value->getRange(),
                  std::string("torch.broadcast_tensors takes tensors, got ") +
                      kindName(v->kind));
    auto sizes = refSizes(*v, *a.value);
    if (failed(sizes))
      return failure();
    if (shape) {
      SemValue x = SemValue::ofKind(SemValue::Kind::Tuple),
               y = SemValue::ofKind(SemValue::Kind::Tuple);
      x.elements = *shape;
      y.elements = *sizes;
      Result same = compareTuples(ast::CompareOp::Eq, x, y, e);
      if (failed(same))
        return failure();
      std::optional<int64_t> decided;
      if (same->kind == SemValue::Kind::Int)
        decided = same->intValue;
      else if (same->known)
        decided = toConstInt(*same, e, "");
      if (!decided)
        return fail(a.value->getRange(),
                    "torch.broadcast_tensors: the shapes must be the same, "
                    "which dslc checks at compile time: pass --shape for "
                    "the tensors");
      if (!*decided)
        return fail(a.value->getRange(),
                    "torch.broadcast_tensors of tensors of different shapes "
                    "is not supported (dslc's tensors are contiguous, not "
                    "strided views): index the smaller tensor with the tiles "
                    "of its own dimensions in the loop, and let the tile "
                    "arithmetic broadcast");
    } else {
      shape = *sizes;
    }
    out.elements.push_back(*v);
  }
  return out;
}

Result Generator::genHelionIntFunction(const ast::CallExpr &e,
                                       llvm::StringRef fn) {
  // helion.next_power_of_2(n), helion.cdiv(a, b) of integers known now
  // (constants, or sizes --shape gives: then compiled in).
  std::vector<int64_t> args;
  for (const ast::Argument &a : e.getArgs()) {
    Result v = genExpr(*a.value);
    if (failed(v))
      return failure();
    FailureOr<int64_t> n = toConstInt(*v, *a.value, fn.str() + "'s argument");
    if (failed(n))
      return failure();
    args.push_back(*n);
  }
  if (fn == "next_power_of_2" && args.size() == 1)
    return SemValue::integer(
        args[0] <= 1 ? 1 : int64_t(llvm::PowerOf2Ceil(args[0])));
  if (fn == "cdiv" && args.size() == 2 && args[1] > 0)
    return SemValue::integer((args[0] + args[1] - 1) / args[1]);
  return fail(e.getRange(), "helion." + fn.str() +
                                " takes one integer (next_power_of_2) or two, "
                                "the second positive (cdiv)");
}

Result Generator::genRegisterTunable(const ast::CallExpr &e) {
  // hl.register_tunable(name, Fragment(low, high, default=low)): the
  // fragment's default (Helion's default config), which dslc's tuner does
  // not search.
  const ast::Expr *nameArg = argument(e, 0, "name");
  const ast::Expr *fragment = argument(e, 1, "fragment");
  auto *call = fragment ? ast::dyn_cast<ast::CallExpr>(fragment) : nullptr;
  if (!nameArg || !call)
    return fail(e.getRange(), "hl.register_tunable takes (name, "
                              "PowerOfTwoFragment(low, high, default) or "
                              "IntegerFragment(...))");
  std::vector<int64_t> bounds;
  for (const ast::Argument &a : call->getArgs()) {
    FailureOr<int64_t> n = constIntOf(*a.value, "a fragment bound");
    if (failed(n))
      return failure();
    bounds.push_back(*n);
  }
  if (bounds.size() < 2 || bounds.size() > 3 || bounds[0] > bounds[1])
    return fail(fragment->getRange(),
                "the fragment takes (low, high) or (low, high, default)");
  int64_t value = std::clamp(bounds.size() == 3 ? bounds[2] : bounds[0],
                             bounds[0], bounds[1]);
  std::string name = "tunable";
  if (auto *s = ast::dyn_cast<ast::StringLiteralExpr>(nameArg))
    name = s->getValue();
  diags->warning(e.getRange(), "hl.register_tunable('" + name +
                                   "'): dslc compiles its default, " +
                                   std::to_string(value) +
                                   " (Helion's default config; dslc's tuner "
                                   "searches block sizes and num_warps)");
  return SemValue::integer(value);
}

std::optional<Result> Generator::moduleConstant(const std::string &name) {
  // Helion's test constants (helion._testing, on a CUDA device).
  if (std::optional<std::string> full = importedFromModule(name)) {
    SemValue v = SemValue::ofKind(SemValue::Kind::DType);
    if (*full == "helion._testing.HALF_DTYPE")
      v.text = "float16";
    else if (*full == "helion._testing.LONG_INT_TYPE")
      v.text = "int64";
    else if (*full == "helion._testing.DEVICE")
      return Result(SemValue::none());
    else
      return std::nullopt;
    return Result(v);
  }
  // NAME = <constant> at the top of the file (the last binding).
  const ast::Expr *value = nullptr;
  for (const ast::StmtPtr &s : module.getBody())
    if (auto *a = ast::dyn_cast<ast::AssignStmt>(s.get()))
      for (const ast::ExprPtr &t : a->getTargets())
        if (auto *n = ast::dyn_cast<ast::NameExpr>(t.get()))
          if (n->getName() == name)
            value = isConstantSyntax(a->getValue()) ? &a->getValue() : nullptr;
  if (!value || !evaluatingConstants.insert(name).second)
    return std::nullopt;
  Result v = genExpr(*value);
  evaluatingConstants.erase(name);
  return v;
}

} // namespace dslc::mlirgen
