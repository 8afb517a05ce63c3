//===- KernelPlan.cpp - Binding any kernel from its metadata --------------===//
#include "tooling/harness/KernelPlan.h"

#include "runtime/CollectivePlan.h"
#include "runtime/Error.h"
#include "tooling/support/Sizes.h"

#include <fmt/format.h>

namespace dslc::run {

using namespace dslc::rt;
using contract::Expected;
using contract::Failure;

//===----------------------------------------------------------------------===//
// ProblemSpec
//===----------------------------------------------------------------------===//

Expected<bool> ProblemSpec::addSize(const std::string &text) {
  Expected<tooling::NamedText> nv = tooling::splitNamed(text);
  if (!nv)
    return Failure{fmt::format("--size {}: give NAME=AxB (a tensor's shape) "
                               "or NAME=V (an int scalar)",
                               text)};
  Expected<std::vector<int64_t>> shape = tooling::parseShape(nv->value);
  if (!shape)
    return Failure{fmt::format("--size {}: {}", text, shape.error())};
  shapes[nv->name] = *shape;
  return true;
}

Expected<bool> ProblemSpec::addScalar(const std::string &text) {
  Expected<tooling::NamedText> nv = tooling::splitNamed(text);
  if (!nv)
    return Failure{fmt::format("--scalar {}: give NAME=VALUE", text)};
  Expected<double> v = tooling::parseNumber(nv->value);
  if (!v)
    return Failure{fmt::format("--scalar {}: {}", text, v.error())};
  scalars[nv->name] = *v;
  return true;
}

Expected<bool> ProblemSpec::addSizes(const std::string &text) {
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string item = text.substr(
        pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (!item.empty()) {
      Expected<bool> ok = addSize(item);
      if (!ok)
        return ok;
    }
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
  return true;
}

std::string ProblemSpec::text() const {
  std::string s;
  for (const auto &[name, shape] : shapes)
    s += fmt::format("{}{}={}", s.empty() ? "" : ",", name,
                     tooling::formatShape(shape));
  if (!scalars.empty()) {
    s += ";";
    bool first = true;
    for (const auto &[name, v] : scalars) {
      s += fmt::format("{}{}={}", first ? "" : ",", name, v);
      first = false;
    }
  }
  return s;
}

//===----------------------------------------------------------------------===//
// Planning
//===----------------------------------------------------------------------===//

KernelPlan planKernel(const KernelMetadata &md, int world,
                      const ProblemSpec &spec) {
  contract::BindingRequest req;
  req.world = world;
  req.shapes = spec.shapes;
  req.scalars = spec.scalars;
  Expected<contract::BindingPlan> plan = contract::planBinding(md, req);
  if (!plan)
    raise(ErrorCode::InvalidArgument, plan.error());
  KernelPlan out;
  static_cast<contract::BindingPlan &>(out) = std::move(*plan);
  out.spec = spec;
  return out;
}

std::vector<std::string> KernelPlan::describe() const {
  std::vector<std::string> lines;
  for (const PlannedArg &p : args) {
    if (!p.isTensor) {
      lines.push_back(fmt::format("{}: scalar {} = {}", p.name,
                                  dtypeName(p.dtype), p.scalar));
      continue;
    }
    lines.push_back(
        fmt::format("{}: {} {}[{}]{}, {}", p.name, roleName(p.role),
                    dtypeName(p.dtype), tooling::formatShape(p.shape),
                    p.symmetric ? " symmetric" : "", fillName(p.fill)));
  }
  return lines;
}

void bindKernel(BoundArgs &a, const KernelPlan &plan,
                const std::vector<void *> &local,
                const std::vector<void *> &peers, int rank) {
  const KernelMetadata &md = a.metadata();
  for (size_t j = 0; j < plan.args.size(); ++j) {
    const PlannedArg &p = plan.args[j];
    int pos = static_cast<int>(j);
    if (!p.isTensor) {
      if (md.args[j].isIntScalar())
        a.setInt(pos, static_cast<int64_t>(p.scalar));
      else
        a.setFloat(pos, p.scalar);
      continue;
    }
    a.setTensor(pos, planTensor(md, pos, p.tableOf, p.shape, local, peers));
  }
  a.check(plan.world, rank);
}

} // namespace dslc::run
