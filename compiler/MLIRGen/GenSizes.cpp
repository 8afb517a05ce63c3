//===- GenSizes.cpp - Sizes compiled in from --shape ----------------------===//
//
// A tensor size is a run-time value unless the kernel needs it at compile
// time: hl.specialize(x.size(d)), `:` over a dimension, a whole tensor used
// as a tile, `assert x.size(d) == ...`. There the value comes from -D
// 'x.size(d)=N' (or -D NAME for hl.specialize's variable), else from
// --shape x=AxB (--size under --simulate). Each size so compiled in is a
// launch constraint `==`: the metadata's `==` constraints are exactly the
// sizes a kernel is specialized for (docs/kernel-abi.md), which is what a
// caller keys a per-shape compile cache on. A size that was needed and
// could not be had is reported once; later needs of it fail silently.
// Under --specialize-shapes every size --shape gives is compiled in from the
// start (checkShapes), as Helion's static_shapes=True does; a tensor passed
// permuted (--dim-order) keeps its sizes run-time values.
//
//===----------------------------------------------------------------------===//

#include "compiler/MLIRGen/Generator.h"

using namespace mlir;

namespace dslc::mlirgen {

std::string GeneratorState::sizeKey(const std::string &param, unsigned d) {
  return param + ".size(" + std::to_string(d) + ")";
}

LogicalResult Generator::checkShapes() {
  bool ok = true;
  for (const auto &[name, shape] : options.shapes) {
    const ast::Param *param = nullptr;
    for (const ast::Param &p : kernel.getParams())
      if (p.name == name)
        param = &p;
    const ParamDescription *pd = nullptr;
    for (const ParamDescription &a : desc.args)
      if (a.name == name && !a.isOutput)
        pd = &a;
    bool tensor = pd && pd->kind == ParamDescription::Kind::Tensor;
    // --simulate's --size also gives scalars' values and outputs' sizes:
    // the simulator checks those names.
    if (!tensor && shape.fromSimulation)
      continue;
    if (!param) {
      diags->error(kernel.getNameRange(),
                   shape.spelling(name) + ": kernel '" + kernel.getName() +
                       "' has no parameter '" + name + "'");
      ok = false;
    } else if (!tensor) {
      diags->error(param->range, shape.spelling(name) + ": '" + name +
                                     "' is not a tensor parameter");
      ok = false;
    } else if (shape.sizes.size() != size_t(pd->rank)) {
      diags->error(param->range, shape.spelling(name) + " gives " +
                                     std::to_string(shape.sizes.size()) +
                                     " size(s), but '" + name + "' is a " +
                                     std::to_string(pd->rank) + "-d tensor");
      ok = false;
    } else if (options.specializeShapes && !options.dimOrders.count(name)) {
      // Helion's static_shapes: every size compiled in, used or not.
      for (auto [d, size] : llvm::enumerate(shape.sizes))
        compileSizeIn(name, d, size);
    }
  }
  return success(ok);
}

LogicalResult Generator::decideIndexBits() {
  for (const auto &[name, shape] : options.shapes) {
    if (!shapeSize(name, 0))
      continue; // a scalar's value or an output's sizes (--simulate)
    int64_t numel = contract::saturatedNumel(shape.sizes);
    if (numel <= contract::kMax32BitIndexElements)
      continue;
    if (indexBitsGiven == 32)
      return error(indexDtypeWhere,
                   "index_dtype is torch.int32, but " + shape.spelling(name) +
                       " holds " + std::to_string(numel) +
                       " elements, more than 32-bit index values reach (" +
                       std::to_string(contract::kMax32BitIndexElements) +
                       "): use index_dtype=torch.int64 or None");
    indexBits = 64;
    return success();
  }
  indexBits = indexBitsGiven ? indexBitsGiven : 32;
  return success();
}

std::string Generator::shapedLike(const std::string &name) {
  for (const OutputDescription &o : desc.args)
    if (o.isOutput && o.name == name && !o.like.empty())
      return o.like;
  return name;
}

std::string Generator::shapeSpelling(const std::string &name) {
  std::string param = shapedLike(name);
  auto it = options.shapes.find(param);
  return it == options.shapes.end() ? "--shape" : it->second.spelling(param);
}

std::optional<int64_t> Generator::shapeSize(const std::string &name,
                                            unsigned d) {
  std::string param = shapedLike(name);
  auto it = options.shapes.find(param);
  if (it == options.shapes.end() || d >= it->second.sizes.size())
    return std::nullopt;
  // Only a tensor parameter's (checkShapes): under --simulate an entry may
  // be a scalar's value or an output's sizes.
  for (const ParamDescription &a : desc.args)
    if (a.name == param && !a.isOutput &&
        a.kind == ParamDescription::Kind::Tensor &&
        size_t(a.rank) == it->second.sizes.size())
      return it->second.sizes[d];
  return std::nullopt;
}

std::string Generator::shapeAdvice(const std::string &name) {
  std::string param = shapedLike(name);
  for (const ParamDescription &a : desc.args) {
    if (a.name != param || a.isOutput ||
        a.kind != ParamDescription::Kind::Tensor)
      continue;
    std::string sizes = "A";
    for (int d = 1; d < a.rank; ++d)
      sizes += std::string("x") + char('A' + d);
    return " or --shape " + param + "=" + (a.rank == 1 ? "N" : sizes);
  }
  return "";
}

void Generator::markSizeFailed(const std::string &name, unsigned d) {
  failedSizes.insert(sizeKey(name, d));
  failedSizes.insert(sizeKey(shapedLike(name), d));
}

bool Generator::sizeFailed(const SemValue &ref, unsigned d) {
  return failedSizes.count(sizeKey(ref.text, d)) ||
         failedSizes.count(sizeKey(shapedLike(ref.text), d));
}

} // namespace dslc::mlirgen
