//===- GenDimOrder.cpp - Tensors seen through a permutation ---------------===//
//
// A tensor argument whose strides are a permutation of a row-major layout
// (torch's `y.T.contiguous().T`, `w.t()`: what Helion's fp8_gemm passes as
// its [K, N] operand) is given to the compiler as the tensor it is stored as
// plus its dim order (--dim-order y=1x0, torch's Tensor.dim_order()); `x.T`
// of a tensor inside a kernel is the same view. Such a PermutedRef is read
// through its stored tensor: a subscript loads the stored tile (the
// indices permuted) and transposes it, which is the code `w[tn, tk].T`
// gives (a K-major operand staged as it lies); its sizes are the stored
// tensor's, permuted. The ABI, the metadata's sizes and constraints and
// the runtime see the stored tensor only. Every other use refuses the
// value by its kind (kindName), never reads it as if row-major.
//
//===----------------------------------------------------------------------===//

#include "compiler/MLIRGen/Generator.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace dslc::mlirgen {

namespace {
bool isIdentity(llvm::ArrayRef<unsigned> order) {
  return llvm::equal(order, llvm::seq<unsigned>(0, order.size()));
}

/// "1x0": how --dim-order and messages write a dim order.
std::string orderText(llvm::ArrayRef<unsigned> order) {
  std::string s;
  for (unsigned d : order)
    s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}
} // namespace

SemValue Generator::storedRef(const SemValue &p) {
  SemValue s = p;
  s.kind = SemValue::Kind::Ref;
  s.dimOrder.clear();
  return s;
}

unsigned Generator::storedDim(const SemValue &p, unsigned d) {
  for (unsigned s = 0; s < p.dimOrder.size(); ++s)
    if (p.dimOrder[s] == d)
      return s;
  return d;
}

Result Generator::permuteRef(const SemValue &ref, llvm::ArrayRef<int64_t> perm,
                             const ast::Expr &where) {
  if (ref.kind != SemValue::Kind::Ref &&
      ref.kind != SemValue::Kind::PermutedRef)
    return fail(where.getRange(),
                std::string("cannot transpose ") + kindName(ref.kind));
  if (!ref.viewSizes.empty() || !ref.windowStarts.empty())
    return fail(where.getRange(),
                "a view or slice of '" + ref.text +
                    "' cannot be transposed as a whole: transpose the tiles "
                    "loaded from it (x[tile_a, tile_b].T)");
  // New dimension k is the old dimension perm[k], stored at
  // storedDim(ref, perm[k]); the new order inverts that.
  std::vector<unsigned> order(perm.size());
  for (unsigned k = 0; k < perm.size(); ++k)
    order[storedDim(ref, perm[k])] = k;
  SemValue r = storedRef(ref);
  if (!isIdentity(order)) {
    r.kind = SemValue::Kind::PermutedRef;
    r.dimOrder = std::move(order);
  }
  return r;
}

Result Generator::genPermutedLoad(const SemValue &p, const ast::Expr &index,
                                  const ast::Expr &where) {
  std::vector<const ast::Expr *> idx = elementsOf(index);
  unsigned rank = p.dimOrder.size();
  std::string what = "'" + p.text + "' (seen with dim order " +
                     orderText(p.dimOrder) + ", a transposed tensor)";
  if (!inGrid)
    return fail(where.getRange(),
                what + " is read inside the kernel's loop only (index it "
                       "with tiles there)");
  if (idx.size() != rank)
    return fail(index.getRange(),
                what + " is indexed with one index per dimension: " +
                    std::to_string(rank) + " expected, " +
                    std::to_string(idx.size()) + " given");
  // The stored tensor's indices: stored dimension s is indexed by the
  // index of the dimension it holds.
  std::vector<const ast::Expr *> stored(rank);
  for (unsigned s = 0; s < rank; ++s)
    stored[s] = idx[p.dimOrder[s]];
  SemValue ref = storedRef(p);
  auto access = accessOfList(ref, stored, index);
  if (failed(access))
    return failure();
  if (access->gather || !access->unitDims.empty())
    return fail(index.getRange(),
                what + " is indexed with tiles, integers and slices only "
                       "(no index tensors, no None): pass it contiguous "
                       "(.contiguous()) for that");
  Result t = genAccessLoad(ref, *access, where);
  if (failed(t))
    return failure();
  if (access->element)
    return loadedElement(ref, t->value, where);
  // The loaded tile's dimensions follow the stored ones (access->dims);
  // the kernel's order is that of the dimensions they hold.
  SmallVector<int64_t> perm =
      llvm::to_vector(llvm::seq<int64_t>(0, access->dims.size()));
  llvm::stable_sort(perm, [&](int64_t a, int64_t b) {
    return p.dimOrder[access->dims[a]] < p.dimOrder[access->dims[b]];
  });
  return transposeTile(*t, perm, where);
}

LogicalResult Generator::checkDimOrders() {
  bool ok = true;
  for (const auto &[name, order] : options.dimOrders) {
    ParamDescription *pd = nullptr;
    const ast::Param *param = nullptr;
    for (const ast::Param &q : kernel.getParams())
      if (q.name == name)
        param = &q;
    for (ParamDescription &a : desc.args)
      if (a.name == name && !a.isOutput)
        pd = &a;
    std::string spelling = "--dim-order " + name + "=" + orderText(order);
    if (!param) {
      diags->error(kernel.getNameRange(),
                   spelling + ": kernel '" + kernel.getName() +
                       "' has no parameter '" + name + "'");
      ok = false;
    } else if (!pd || pd->kind != ParamDescription::Kind::Tensor) {
      diags->error(param->range,
                   spelling + ": '" + name + "' is not a tensor parameter");
      ok = false;
    } else if (order.size() != size_t(pd->rank)) {
      diags->error(param->range, spelling + " orders " +
                                     std::to_string(order.size()) +
                                     " dimension(s), but '" + name + "' is a " +
                                     std::to_string(pd->rank) + "-d tensor");
      ok = false;
    } else if (pd->symmetric) {
      diags->error(param->range,
                   spelling + ": '" + name +
                       "' is a symmetric tensor, which peers address "
                       "row-major; pass it contiguous");
      ok = false;
    } else if (!isIdentity(order)) {
      // the metadata says how the caller binds it; bindParameters how the
      // kernel reads it
      pd->dimOrder = order;
    }
  }
  return success(ok);
}

} // namespace dslc::mlirgen
