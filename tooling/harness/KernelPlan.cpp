//===- KernelPlan.cpp - Binding any kernel from its metadata --------------===//
#include "tooling/harness/KernelPlan.h"

#include "contract/Sizing.h"
#include "runtime/Error.h"
#include "tooling/support/Sizes.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

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

const char *fillName(Fill f) {
  switch (f) {
  case Fill::Random:
    return "random";
  case Fill::Poison:
    return "poisoned";
  case Fill::Zero:
    return "zeroed once";
  case Fill::PeerTable:
    return "peer addresses";
  case Fill::Scalar:
    return "by value";
  }
  return "?";
}

//===----------------------------------------------------------------------===//
// Planning
//===----------------------------------------------------------------------===//

int64_t PlannedArg::numel() const { return tooling::numel(shape); }

namespace {

int64_t roundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

/// Collects every problem of a plan, reported at once.
struct Problems {
  std::vector<std::string> list;
  void add(std::string what) { list.push_back(std::move(what)); }
};

/// numel * element size, or -1 on overflow.
int64_t checkedBytes(const std::vector<int64_t> &shape, DType t) {
  int64_t n = static_cast<int64_t>(dtypeSize(t));
  for (int64_t s : shape)
    if (s < 0 || (s > 0 && n > (int64_t(1) << 50) / s))
      return -1;
    else
      n *= s;
  return n;
}

/// A tensor's shape from the spec (rank checked), else empty.
bool shapeFromSpec(const ArgSpec &a, const ProblemSpec &spec,
                   std::vector<int64_t> &shape, Problems &p) {
  auto it = spec.shapes.find(a.name);
  if (it == spec.shapes.end())
    return false;
  if (static_cast<int>(it->second.size()) != a.rank) {
    p.add(fmt::format("--size {}={}: '{}' has rank {}, the size has {} "
                      "extent(s)",
                      a.name, tooling::formatShape(it->second), a.name, a.rank,
                      it->second.size()));
    return false;
  }
  shape = it->second;
  return true;
}

/// A shape every dimension of which the constraints fix (==), or empty.
std::vector<int64_t> fixedShape(const KernelMetadata &md, int arg) {
  std::vector<int64_t> shape;
  for (int d = 0; d < md.args[arg].rank; ++d) {
    std::optional<int64_t> v;
    for (const Constraint &c : md.constraints)
      if (c.param == md.args[arg].name && static_cast<int>(c.dim) == d &&
          c.op == "==" && !c.isNumTiles())
        v = c.valueWith(0);
    if (!v)
      return {};
    shape.push_back(*v);
  }
  return shape;
}

/// Role, fill and shape of every tensor that nothing but the spec, `like`
/// or constraints sizes; scalars' values.
void planData(const KernelMetadata &md, const ProblemSpec &spec,
              KernelPlan &plan, Problems &p) {
  for (size_t i = 0; i < md.args.size(); ++i) {
    const ArgSpec &a = md.args[i];
    PlannedArg &pa = plan.args[i];
    pa.name = a.name;
    pa.dtype = a.dtype;
    pa.role = a.isOutput ? Role::Output : a.role;
    pa.isTensor = a.isTensor();
    pa.symmetric = a.symmetric;
    if (!a.isTensor()) {
      pa.fill = Fill::Scalar;
      auto s = spec.scalars.find(a.name);
      auto z = spec.shapes.find(a.name);
      if (s != spec.scalars.end())
        pa.scalar = s->second;
      else if (z != spec.shapes.end() && z->second.size() == 1)
        pa.scalar = static_cast<double>(z->second[0]);
      else if (std::optional<double> def = a.scalarDefault())
        pa.scalar = *def; // the source's default
      else
        p.add(fmt::format("scalar '{}' ({}) has no value and no default in "
                          "the source: give --scalar {}=V",
                          a.name, argKindName(a), a.name));
      if (a.isIntScalar() && pa.scalar != std::floor(pa.scalar))
        p.add(fmt::format("int scalar '{}' given {}", a.name, pa.scalar));
      continue;
    }
    switch (pa.role) {
    case Role::Input:
      pa.fill = Fill::Random;
      if (!shapeFromSpec(a, spec, pa.shape, p))
        p.add(fmt::format("input '{}' ({}, rank {}) has no size: give "
                          "--size {}={}",
                          a.name, dtypeName(a.dtype), a.rank, a.name,
                          a.rank == 2 ? "AxB" : "N"));
      break;
    case Role::Output:
    case Role::InOut:
    case Role::Unused:
      pa.fill = pa.role == Role::Output ? Fill::Poison : Fill::Zero;
      if (shapeFromSpec(a, spec, pa.shape, p))
        break;
      pa.shape = fixedShape(md, static_cast<int>(i));
      if (!pa.shape.empty() || a.rank == 0)
        break;
      if (pa.role == Role::Unused)
        pa.shape.assign(a.rank, 1);
      else if (a.isOutput && !a.like.empty())
        break; // from `like`, below
      else
        p.add(fmt::format("{} '{}' ({}, rank {}) has no size: give --size "
                          "{}=...",
                          pa.role == Role::Output ? "output" : "inout", a.name,
                          dtypeName(a.dtype), a.rank, a.name));
      break;
    default:
      pa.fill = pa.role == Role::PeerTable ? Fill::PeerTable : Fill::Zero;
      break;
    }
  }
  for (size_t i = 0; i < md.args.size(); ++i) {
    const ArgSpec &a = md.args[i];
    PlannedArg &pa = plan.args[i];
    if (a.isOutput && pa.shape.empty() && !a.like.empty()) {
      int like = md.findArg(a.like);
      if (like >= 0)
        pa.shape = plan.args[like].shape;
    }
  }
}

/// Names in the spec that are no argument of the kernel.
void checkSpecNames(const KernelMetadata &md, const ProblemSpec &spec,
                    Problems &p) {
  auto known = [&](const std::string &name) { return md.findArg(name) >= 0; };
  for (const auto &[name, shape] : spec.shapes)
    if (!known(name))
      p.add(fmt::format("--size {}: the kernel has no argument '{}'", name,
                        name));
  for (const auto &[name, v] : spec.scalars) {
    int i = md.findArg(name);
    if (i < 0 || md.args[i].isTensor())
      p.add(fmt::format("--scalar {}: the kernel has no scalar '{}'", name,
                        name));
  }
}

/// The grid's tile count, then pads, tables and scratch.
void planComm(const KernelMetadata &md, KernelPlan &plan, Problems &p) {
  int64_t tiles = numTilesWith(md, [&](const GridExtent &e) -> int64_t {
    int arg = md.findArg(e.param ? *e.param : e.scalar.value_or(""));
    if (arg < 0)
      return 0;
    const PlannedArg &pa = plan.args[arg];
    if (!pa.isTensor)
      return static_cast<int64_t>(pa.scalar);
    return e.dim < pa.shape.size() ? pa.shape[e.dim] : 0;
  });
  plan.tiles = std::max<int64_t>(tiles, 1);
  for (size_t i = 0; i < md.args.size(); ++i) {
    PlannedArg &pa = plan.args[i];
    if (pa.role == Role::SignalPad)
      pa.shape = contract::constrainedShape(md, static_cast<int>(i), plan.world,
                                            plan.tiles);
    if (pa.role == Role::PeerTable) {
      pa.shape = {plan.world};
      pa.tableOf = md.findArg(md.args[i].peerTableFor);
      if (pa.tableOf >= 0)
        plan.args[pa.tableOf].symmetric = true;
    }
    if (pa.role == Role::Scratch) {
      Expected<int64_t> bytes = contract::llScratchBytes(
          md, static_cast<int>(i), plan.world, plan.tiles);
      if (!bytes) {
        p.add(bytes.error());
        continue;
      }
      int64_t es = static_cast<int64_t>(dtypeSize(pa.dtype));
      pa.shape = {*bytes / es};
    }
  }
}

/// The metadata's size constraints on the planned shapes (the runtime
/// checks them again at launch): a shape a kernel was not compiled for
/// (`-D H=4096` given x=7x8192) is named here, before any GPU work.
void checkConstraints(const KernelMetadata &md, const KernelPlan &plan,
                      Problems &p) {
  for (const Constraint &c : md.constraints) {
    int i = md.findArg(c.param);
    if (i < 0 || !plan.args[i].isTensor || c.dim >= plan.args[i].shape.size())
      continue;
    int64_t actual = plan.args[i].shape[c.dim];
    if (!c.holds(actual, plan.tiles))
      p.add(fmt::format("'{}' of shape {}: dim {} is {}, but the kernel "
                        "needs {} {}{}",
                        c.param, tooling::formatShape(plan.args[i].shape),
                        c.dim, actual, c.op, c.valueWith(plan.tiles),
                        c.isNumTiles() ? " (num_tiles)" : ""));
  }
  for (const SameSize &s : md.sameSizes) {
    int a = md.findArg(s.param), b = md.findArg(s.as);
    if (a < 0 || b < 0 || s.dim >= plan.args[a].shape.size() ||
        s.asDim >= plan.args[b].shape.size())
      continue;
    std::string why =
        s.problem(plan.args[a].shape[s.dim], plan.args[b].shape[s.asDim]);
    if (!why.empty())
      p.add(why);
  }
}

} // namespace

KernelPlan planKernel(const KernelMetadata &md, int world,
                      const ProblemSpec &spec) {
  KernelPlan plan;
  plan.kernel = md.kernel;
  plan.world = world;
  plan.spec = spec;
  plan.args.resize(md.args.size());
  Problems p;
  if (world < 1)
    p.add(fmt::format("world size {} is not positive", world));
  checkSpecNames(md, spec, p);
  planData(md, spec, plan, p);
  if (p.list.empty())
    planComm(md, plan, p);
  if (p.list.empty())
    checkConstraints(md, plan, p);
  for (PlannedArg &pa : plan.args) {
    if (!pa.isTensor)
      continue;
    int64_t bytes = checkedBytes(pa.shape, pa.dtype);
    if (bytes < 0)
      p.add(fmt::format("'{}' of shape {} is too large", pa.name,
                        tooling::formatShape(pa.shape)));
    pa.bytes = static_cast<size_t>(std::max<int64_t>(bytes, 16));
    pa.inHeap =
        pa.symmetric || (pa.role != Role::Output && pa.role != Role::PeerTable);
  }
  if (!p.list.empty()) {
    std::string msg =
        fmt::format("kernel {}: cannot bind its arguments:", md.kernel);
    for (const std::string &s : p.list)
      msg += "\n  " + s;
    raise(ErrorCode::InvalidArgument, msg);
  }
  return plan;
}

std::vector<int> KernelPlan::inputs() const {
  std::vector<int> out;
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].fill == Fill::Random)
      out.push_back(static_cast<int>(i));
  return out;
}

std::vector<int> KernelPlan::outputs() const {
  std::vector<int> out;
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].isOutput())
      out.push_back(static_cast<int>(i));
  return out;
}

int KernelPlan::find(const std::string &name) const {
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].name == name)
      return static_cast<int>(i);
  return -1;
}

size_t KernelPlan::heapBytes() const {
  size_t bytes = size_t(4) << 20; // slack: peer tables, alignment
  for (const PlannedArg &p : args)
    if (p.inHeap)
      bytes +=
          static_cast<size_t>(roundUp(static_cast<int64_t>(p.bytes), 256)) +
          static_cast<size_t>(roundUp(world * 8, 256));
  return bytes;
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
    TensorArg t;
    t.dtype = p.dtype;
    t.sizes = p.shape;
    if (p.role == Role::PeerTable) {
      t.data = peers.at(p.tableOf);
    } else {
      t.data = local.at(j);
      if (md.args[j].symmetric)
        t.peers = peers.at(j);
    }
    a.setTensor(pos, t);
  }
  a.check(plan.world, rank);
}

} // namespace dslc::run
