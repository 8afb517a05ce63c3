//===- GenOutputs.cpp - Tensors a kernel makes and returns ----------------===//
//
// torch.empty_like / torch.zeros_like / torch.empty / torch.zeros outside
// the tile loop: an output parameter the runtime binds after the inputs
// (docs/kernel-abi.md). Its shape rule for the runtime is `like` (the
// parameter whose sizes it takes) when it has one, and launch constraints
// for its constant dimensions.
//
//===----------------------------------------------------------------------===//

#include "compiler/MLIRGen/Generator.h"

#include "contract/DType.h"
#include "dialects/Tile/TileDialect.h"

using namespace mlir;

namespace dslc::mlirgen {

SemValue Generator::addOutput(tile::RefType type, const std::string &dtype,
                              const std::string &like, const ast::Expr &where) {
  // Named as the kernel names it (the variable assigned, which `return`
  // gives back), unless that name is taken (a parameter reassigned, a
  // second output in one statement): then out, out1, ...
  auto taken = [&](const std::string &name) {
    return llvm::is_contained(argNames, name) ||
           llvm::any_of(desc.args, [&](const OutputDescription &o) {
             return o.name == name;
           });
  };
  std::string outName = outputNameHint;
  outputNameHint.clear();
  unsigned k = 0;
  if (outName.empty() || outName == "_" || taken(outName)) {
    outName = "out";
    while (taken(outName))
      outName = "out" + std::to_string(++k);
  }
  Block &entry = func.getBody().front();
  BlockArgument arg = entry.addArgument(type, loc(where));
  argNames.push_back(outName);
  func.setType(builder.getFunctionType(entry.getArgumentTypes(), {}));
  desc.args.push_back(OutputDescription::output(
      outName, *contract::parseDType(dtype), type.getRank(), like));
  refDTypes[outName] = dtype;
  SemValue v = SemValue::ofKind(SemValue::Kind::Ref);
  v.value = arg;
  v.text = outName;
  return v;
}

Result Generator::genOutputLike(const ast::CallExpr &e, llvm::StringRef fn,
                                bool zeros) {
  const ast::Expr *arg = argument(e, 0, "input");
  if (!arg)
    return fail(e.getRange(), fn.str() + " needs a tensor");
  Result like = genExpr(*arg);
  if (failed(like))
    return failure();
  if (like->kind == SemValue::Kind::TileData) {
    if (!inGrid)
      return fail(e.getRange(),
                  "a tile value exists only inside the tile loop");
    return genFillLike(e, *like, nullptr);
  }
  if (like->kind != SemValue::Kind::Ref)
    return fail(arg->getRange(),
                fn.str() + " takes a tensor parameter or a tile value, got " +
                    kindName(like->kind));
  if (!inGrid && !like->viewSizes.empty()) {
    // Like a view: shaped by the view's sizes.
    std::string dtype = refDTypes.count(like->text)
                            ? refDTypes[like->text]
                            : typeToDType(refShape(*like).second);
    auto chosen = dtypeArgument(e, ~size_t(0), dtype);
    if (failed(chosen))
      return failure();
    std::vector<std::pair<SemValue, const ast::Expr *>> values;
    for (const SemValue &s : like->viewSizes)
      values.push_back({s, arg});
    return makeOutput(e, fn, std::move(values), zeros, *chosen);
  }
  if (inGrid)
    return fail(e.getRange(),
                fn.str() + " of a tensor makes an output: call it before the "
                           "kernel's tile loop (a tile is torch.zeros_like of "
                           "a tile value, or hl.zeros)");
  auto type = cast<tile::RefType>(like->value.getType());
  std::string dtype = refDTypes.count(like->text)
                          ? refDTypes[like->text]
                          : typeToDType(type.getElementType());
  auto chosen = dtypeArgument(e, ~size_t(0), dtype);
  if (failed(chosen))
    return failure();
  type = tile::RefType::get(&ctx, dtypeToType(&ctx, *chosen), type.getRank());
  SemValue out = addOutput(type, *chosen, like->text, e);
  desc.args.back().zeroed = zeros;
  return out;
}

/// The dimension expressions of `torch.empty(m, n)`, `torch.empty([m, n])`
/// or `torch.empty((m, n))`.
static std::vector<const ast::Expr *> shapeArguments(const ast::CallExpr &e) {
  std::vector<const ast::Expr *> positional;
  for (const ast::Argument &a : e.getArgs())
    if (a.kind == ast::Argument::Kind::Positional)
      positional.push_back(a.value.get());
  if (positional.size() == 1)
    return elementsOf(*positional[0]);
  return positional;
}

Result Generator::genOutputShaped(const ast::CallExpr &e, llvm::StringRef fn,
                                  bool zeros, const std::string &dflt) {
  std::vector<const ast::Expr *> dims = shapeArguments(e);
  if (dims.empty())
    if (const ast::Expr *size = keyword(e, "size"))
      dims = elementsOf(*size);
  if (dims.empty())
    return fail(e.getRange(), fn.str() + " needs a shape");
  if (dims.size() > 8)
    return fail(e.getRange(), "a tensor has at most 8 dimensions");
  // A shape may also be one value holding the sizes (x.size(), x.shape).
  std::vector<std::pair<SemValue, const ast::Expr *>> values;
  for (const ast::Expr *d : dims) {
    // `[n, *w.shape]`: the starred sizes in place.
    bool starred = ast::isa<ast::StarredExpr>(*d);
    Result v =
        genExpr(starred ? ast::cast<ast::StarredExpr>(*d).getValue() : *d);
    if (failed(v))
      return failure();
    if (starred && v->kind != SemValue::Kind::Tuple)
      return fail(d->getRange(),
                  "a starred dimension must be a tuple of sizes");
    if (v->kind == SemValue::Kind::Tuple && (dims.size() == 1 || starred)) {
      for (const SemValue &x : v->elements)
        values.push_back({x, d});
      if (values.empty() || values.size() > 8)
        return fail(d->getRange(), "a tensor has 1 to 8 dimensions");
    } else {
      values.push_back({*v, d});
    }
  }
  auto dtype = dtypeArgument(e, ~size_t(0), dflt);
  if (failed(dtype))
    return failure();
  return makeOutput(e, fn, std::move(values), zeros, *dtype);
}

Result Generator::makeOutput(
    const ast::CallExpr &e, llvm::StringRef fn,
    std::vector<std::pair<SemValue, const ast::Expr *>> values, bool zeros,
    const std::string &dtype) {
  // Each dimension: a constant, a size of a tensor parameter, or another
  // run-time integer (the caller then passes the output).
  std::vector<SemValue> sizes;
  for (auto &[value, d] : values) {
    std::optional<SemValue> v = value;
    // Arithmetic on sizes --shape gives (m // world_size): compiled in.
    if (v->kind == SemValue::Kind::Scalar && v->known &&
        !(v->origin && v->origin->plain())) {
      FailureOr<int64_t> n = toConstInt(*v, *d, "a dimension");
      if (failed(n))
        return failure();
      v = SemValue::integer(*n);
    }
    if (v->kind == SemValue::Kind::Int && v->intValue >= 0) {
      sizes.push_back(*v);
      continue;
    }
    if (v->kind == SemValue::Kind::Unbound)
      return unboundError(*v, d->getRange());
    if (v->kind != SemValue::Kind::Scalar || isa<FloatType>(v->value.getType()))
      return fail(d->getRange(),
                  "a dimension of " + fn.str() +
                      " must be a non-negative integer (a constant, a tensor "
                      "size or a run-time integer), got " +
                      kindName(v->kind));
    sizes.push_back(*v);
  }
  // `like`: every dimension is the same dimension of one parameter.
  std::string like;
  const SemValue &first = sizes.front();
  if (first.kind == SemValue::Kind::Scalar && first.origin &&
      first.origin->plain()) {
    like = first.origin->param;
    for (auto [d, s] : llvm::enumerate(sizes))
      if (s.kind != SemValue::Kind::Scalar || !s.origin || !s.origin->plain() ||
          s.origin->param != like || s.origin->dim != d)
        like.clear();
    if (SemValue *p = lookup(like))
      if (p->kind != SemValue::Kind::Ref || !p->viewSizes.empty() ||
          cast<tile::RefType>(p->value.getType()).getRank() != sizes.size())
        like.clear();
  }
  auto type = tile::RefType::get(&ctx, dtypeToType(&ctx, dtype), sizes.size());
  SemValue out = addOutput(type, dtype, like, e);
  // torch.zeros: the metadata asks every caller to zero it.
  desc.args.back().zeroed = zeros;
  for (auto [d, s] : llvm::enumerate(sizes))
    if (s.kind == SemValue::Kind::Int)
      addConstraint({out.text, unsigned(d), "==", s.intValue});
  // The kernel knows its output's sizes as made (a `:` over one of them
  // needs it at compile time: out[b, h, tile, :] of q.size(2)).
  out.viewSizes = std::move(sizes);
  return out;
}

} // namespace dslc::mlirgen
