//===- BindingPlan.cpp - How every argument of a kernel is bound ----------===//
#include "contract/BindingPlan.h"

#include "contract/Sizing.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace dslc::contract {

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

const char *collectiveName(CollectiveKind c) {
  switch (c) {
  case CollectiveKind::AllReduce:
    return "all_reduce";
  case CollectiveKind::ReduceScatter:
    return "reduce_scatter";
  case CollectiveKind::AllGather:
    return "all_gather";
  }
  return "?";
}

std::optional<CollectiveKind> parseCollective(const std::string &name) {
  std::string s;
  for (char ch : name)
    if (ch != '_' && ch != '-')
      s += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (CollectiveKind c :
       {CollectiveKind::AllReduce, CollectiveKind::ReduceScatter,
        CollectiveKind::AllGather}) {
    std::string want;
    for (const char *p = collectiveName(c); *p; ++p)
      if (*p != '_')
        want += *p;
    if (s == want)
      return c;
  }
  return std::nullopt;
}

Expected<CollectiveShape> collectiveCounts(CollectiveKind c, int64_t n,
                                           int world) {
  if (n < 1)
    return Failure{
        fmt::format("{}: size {} is not positive", collectiveName(c), n)};
  CollectiveShape s;
  s.total = n;
  if (c == CollectiveKind::AllReduce) {
    s.input = s.output = n;
    return s;
  }
  if (n % world != 0)
    return Failure{fmt::format(
        "{}: size {} is not a multiple of the world size {} (N is the total "
        "element count: every rank {} N / world elements)",
        collectiveName(c), n, world,
        c == CollectiveKind::ReduceScatter ? "receives" : "sends")};
  s.input = c == CollectiveKind::ReduceScatter ? n : n / world;
  s.output = c == CollectiveKind::ReduceScatter ? n / world : n;
  return s;
}

std::vector<int64_t> collectiveArgShape(CollectiveKind c, Role role, int rank,
                                        int64_t n, int world) {
  bool gather = c == CollectiveKind::AllGather;
  bool scatter = c == CollectiveKind::ReduceScatter;
  switch (role) {
  case Role::Input:
    return {gather ? n / world : n};
  case Role::Output: {
    int64_t out = scatter ? n / world : n;
    if (rank == 2)
      return {world, out / world};
    return {out};
  }
  case Role::InOut:
    if (rank == 2)
      return {world, n};
    return {world * n};
  case Role::Unused:
    return std::vector<int64_t>(rank, 1);
  default:
    return {};
  }
}

//===----------------------------------------------------------------------===//
// Pieces
//===----------------------------------------------------------------------===//

std::string formatShape(const std::vector<int64_t> &shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

const char *fillName(Fill f) {
  switch (f) {
  case Fill::Seeded:
    return "random";
  case Fill::Poison:
    return "poisoned";
  case Fill::Zero:
    return "zeroed";
  case Fill::ZeroOnce:
    return "zeroed once";
  case Fill::PeerTable:
    return "peer addresses";
  case Fill::Scalar:
    return "by value";
  }
  return "?";
}

int64_t ArgBinding::numel() const {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

Role bindingRole(const ArgSpec &a) {
  return a.isOutput ? Role::Output : a.role;
}

Expected<std::vector<int64_t>> commShape(const KernelMetadata &md, int arg,
                                         int world, int64_t tiles) {
  const ArgSpec &a = md.args.at(arg);
  switch (a.role) {
  case Role::SignalPad:
    return constrainedShape(md, arg, world, tiles);
  case Role::PeerTable:
    return std::vector<int64_t>{world};
  case Role::Scratch: {
    Expected<int64_t> bytes = llScratchBytes(md, arg, world, tiles);
    if (!bytes)
      return Failure{bytes.error()};
    return std::vector<int64_t>{*bytes /
                                static_cast<int64_t>(dtypeSize(a.dtype))};
  }
  default:
    return std::vector<int64_t>{};
  }
}

int64_t checkedBytes(const std::vector<int64_t> &shape, DType t) {
  int64_t n = static_cast<int64_t>(dtypeSize(t));
  for (int64_t s : shape)
    if (s < 0 || (s > 0 && n > (int64_t(1) << 50) / s))
      return -1;
    else
      n *= s;
  return n;
}

size_t heapBytesFor(const std::vector<size_t> &bytes, int world) {
  auto roundUp = [](size_t v) { return (v + 255) / 256 * 256; };
  size_t total = size_t(4) << 20; // slack: peer tables, alignment
  for (size_t b : bytes)
    total += roundUp(b) + roundUp(static_cast<size_t>(world) * 8);
  return total;
}

std::vector<SizeProblem>
checkSizes(const KernelMetadata &md,
           const std::vector<std::vector<int64_t>> &shapes, int64_t tiles) {
  std::vector<SizeProblem> out;
  for (const Constraint &c : md.constraints) {
    int i = md.findArg(c.param);
    if (i < 0 || !md.args[i].isTensor() || c.dim >= shapes[i].size())
      continue;
    int64_t actual = shapes[i][c.dim];
    if (!c.holds(actual, tiles))
      out.push_back({&c, nullptr, i, actual, ""});
  }
  // Dimensions one tile indexes must agree (the runtime checks the same at
  // launch): a mismatch would read or write masked tails silently.
  for (const SameSize &s : md.sameSizes) {
    int a = md.findArg(s.param), b = md.findArg(s.as);
    if (a < 0 || b < 0 || s.dim >= shapes[a].size() ||
        s.asDim >= shapes[b].size())
      continue;
    std::string why = s.problem(shapes[a][s.dim], shapes[b][s.asDim]);
    if (!why.empty())
      out.push_back({nullptr, &s, a, shapes[a][s.dim], why});
  }
  return out;
}

//===----------------------------------------------------------------------===//
// BindingPlan
//===----------------------------------------------------------------------===//

std::vector<int> BindingPlan::inputs() const {
  std::vector<int> out;
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].fill == Fill::Seeded)
      out.push_back(static_cast<int>(i));
  return out;
}

std::vector<int> BindingPlan::outputs() const {
  std::vector<int> out;
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].isOutput())
      out.push_back(static_cast<int>(i));
  return out;
}

int BindingPlan::find(const std::string &name) const {
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].name == name)
      return static_cast<int>(i);
  return -1;
}

size_t BindingPlan::heapBytes() const {
  std::vector<size_t> bytes;
  for (const ArgBinding &p : args)
    if (p.inHeap)
      bytes.push_back(p.bytes);
  return heapBytesFor(bytes, world);
}

namespace {

/// Plans one kernel for one request, collecting every problem.
class Planner {
public:
  Planner(const KernelMetadata &md, const BindingRequest &req,
          BindingPlan &plan)
      : md(md), req(req), plan(plan) {}

  void checkNames();
  void planData();
  /// fromData: the data's element count, else nullopt.
  void findData();
  /// The grid's tile count, then pads, tables and scratch. Fails (without
  /// the list) when the tile count overflows.
  Expected<bool> planComm();
  void checkConstraints();
  void sizeBytes();
  std::vector<BindProblem> problems;

private:
  bool shapeFromRequest(const ArgSpec &a, std::vector<int64_t> &shape);
  std::vector<int64_t> fixedShape(int arg) const;
  void planScalar(const ArgSpec &a, ArgBinding &pa);
  void planTensor(int i);
  void planFromData(int i);
  bool isBound(const ArgSpec &a) const { return req.bound.count(a.name) > 0; }
  void add(BindProblem::Kind k, int arg, std::string what) {
    problems.push_back({k, arg, std::move(what)});
  }

  const KernelMetadata &md;
  const BindingRequest &req;
  BindingPlan &plan;
  std::optional<int64_t> dataCount;
};

void Planner::checkNames() {
  for (const auto &[name, shape] : req.shapes)
    if (md.findArg(name) < 0)
      add(BindProblem::UnknownName, -1,
          fmt::format("--size {}: the kernel has no argument '{}'", name,
                      name));
  for (const auto &[name, v] : req.scalars) {
    int i = md.findArg(name);
    if (i < 0 || md.args[i].isTensor())
      add(BindProblem::UnknownName, -1,
          fmt::format("--scalar {}: the kernel has no scalar '{}'", name,
                      name));
  }
}

/// A tensor's shape from the request (rank checked).
bool Planner::shapeFromRequest(const ArgSpec &a, std::vector<int64_t> &shape) {
  auto it = req.shapes.find(a.name);
  if (it == req.shapes.end())
    return false;
  if (static_cast<int>(it->second.size()) != a.rank) {
    add(BindProblem::RankMismatch, md.findArg(a.name),
        fmt::format("--size {}={}: '{}' has rank {}, the size has {} "
                    "extent(s)",
                    a.name, formatShape(it->second), a.name, a.rank,
                    it->second.size()));
    return false;
  }
  shape = it->second;
  return true;
}

/// A shape every dimension of which is known without the caller: fixed by
/// a constraint (==), or equal by a same_sizes rule to a dimension of a
/// tensor whose shape the request gives (`torch.empty([m, n])` with
/// m = x.size(0), n = y.size(1): the launch checks out's sizes against
/// those, so they are the only ones it accepts); else empty.
std::vector<int64_t> Planner::fixedShape(int arg) const {
  const std::string &name = md.args[arg].name;
  auto requested = [&](const std::string &p, unsigned d) {
    auto it = req.shapes.find(p);
    return it != req.shapes.end() && d < it->second.size()
               ? std::optional<int64_t>(it->second[d])
               : std::nullopt;
  };
  std::vector<int64_t> shape;
  for (int d = 0; d < md.args[arg].rank; ++d) {
    std::optional<int64_t> v;
    for (const Constraint &c : md.constraints)
      if (c.param == name && static_cast<int>(c.dim) == d && c.op == "==" &&
          !c.isNumTiles())
        v = c.valueWith(0);
    for (const SameSize &s : md.sameSizes) {
      if (v)
        break;
      if (s.relation != SameSize::Relation::Eq)
        continue;
      if (s.param == name && static_cast<int>(s.dim) == d)
        v = requested(s.as, s.asDim);
      else if (s.as == name && static_cast<int>(s.asDim) == d)
        v = requested(s.param, s.dim);
    }
    if (!v)
      return {};
    shape.push_back(*v);
  }
  return shape;
}

void Planner::planScalar(const ArgSpec &a, ArgBinding &pa) {
  pa.fill = Fill::Scalar;
  auto s = req.scalars.find(a.name);
  auto z = req.shapes.find(a.name);
  if (s != req.scalars.end())
    pa.scalar = s->second;
  else if (z != req.shapes.end() && z->second.size() == 1)
    pa.scalar = static_cast<double>(z->second[0]);
  else if (std::optional<double> def = a.scalarDefault())
    pa.scalar = *def; // the source's default
  else if (!isBound(a))
    add(BindProblem::NoValue, md.findArg(a.name),
        fmt::format("scalar '{}' ({}) has no value and no default in the "
                    "source: give --scalar {}=V",
                    a.name, argKindName(a), a.name));
  if (a.isIntScalar() &&
      (pa.scalar != std::floor(pa.scalar) || std::fabs(pa.scalar) > 9.0e15))
    add(BindProblem::NotInteger, md.findArg(a.name),
        fmt::format("int scalar '{}' given {}", a.name, pa.scalar));
}

void Planner::planTensor(int i) {
  const ArgSpec &a = md.args[i];
  ArgBinding &pa = plan.args[i];
  switch (pa.role) {
  case Role::Input:
    pa.fill = Fill::Seeded;
    if (!shapeFromRequest(a, pa.shape) && !isBound(a))
      add(BindProblem::NoSize, i,
          fmt::format("input '{}' ({}, rank {}) has no size: give --size "
                      "{}={}",
                      a.name, dtypeName(a.dtype), a.rank, a.name,
                      a.rank == 2 ? "AxB" : "N"));
    return;
  case Role::Output:
  case Role::InOut:
  case Role::Unused:
    pa.fill = pa.role != Role::Output ? Fill::ZeroOnce
              : a.zeroed              ? Fill::Zero
                                      : Fill::Poison;
    if (shapeFromRequest(a, pa.shape) || isBound(a))
      return;
    pa.shape = fixedShape(i);
    if (!pa.shape.empty() || a.rank == 0)
      return;
    if (pa.role == Role::Unused)
      pa.shape.assign(a.rank, 1);
    else if (a.isOutput && !a.like.empty())
      return; // from `like`, later
    else if (req.fromData && (pa.role == Role::InOut || req.collective))
      planFromData(i);
    else
      add(BindProblem::NoSize, i,
          fmt::format("{} '{}' ({}, rank {}) has no size: give --size {}=...",
                      pa.role == Role::Output ? "output" : "inout", a.name,
                      dtypeName(a.dtype), a.rank, a.name));
    return;
  default:
    pa.fill = pa.role == Role::PeerTable ? Fill::PeerTable : Fill::ZeroOnce;
    if (pa.role != Role::PeerTable) // a given pad or scratch: the caller's
      shapeFromRequest(a, pa.shape);
    return;
  }
}

void Planner::findData() {
  if (!req.fromData)
    return;
  auto given = [&](const ArgSpec &a) {
    return a.isTensor() && req.shapes.count(a.name) > 0;
  };
  auto it = std::find_if(md.args.begin(), md.args.end(), [&](auto &a) {
    return given(a) && bindingRole(a) == Role::Input;
  });
  if (it == md.args.end())
    it = std::find_if(md.args.begin(), md.args.end(),
                      [&](auto &a) { return given(a) && isFloating(a.dtype); });
  if (it == md.args.end())
    return;
  dataCount = 1;
  for (int64_t s : req.shapes.at(it->name))
    *dataCount *= s;
}

/// An output's or a workspace's shape from the data's element count.
void Planner::planFromData(int i) {
  ArgBinding &pa = plan.args[i];
  if (!dataCount) {
    add(BindProblem::NoData, i,
        fmt::format("{} '{}' is sized from the data input, and no floating "
                    "tensor was given",
                    roleName(md.args[i].role), pa.name));
    return;
  }
  CollectiveKind c = req.collective.value_or(CollectiveKind::AllReduce);
  int64_t n =
      c == CollectiveKind::AllGather ? *dataCount * plan.world : *dataCount;
  if (req.collective) {
    Expected<CollectiveShape> counts = collectiveCounts(c, n, plan.world);
    if (!counts) {
      add(BindProblem::Collective, i, counts.error());
      return;
    }
  }
  pa.shape = collectiveArgShape(c, pa.role, md.args[i].rank, n, plan.world);
}

/// Role, fill and shape of every tensor that nothing but the request,
/// `like` or constraints sizes; scalars' values.
void Planner::planData() {
  findData();
  for (size_t i = 0; i < md.args.size(); ++i) {
    const ArgSpec &a = md.args[i];
    ArgBinding &pa = plan.args[i];
    pa.name = a.name;
    pa.dtype = a.dtype;
    pa.role = bindingRole(a);
    pa.isTensor = a.isTensor();
    pa.symmetric = a.symmetric;
    if (a.isTensor())
      planTensor(static_cast<int>(i));
    else
      planScalar(a, pa);
  }
  for (size_t i = 0; i < md.args.size(); ++i) {
    const ArgSpec &a = md.args[i];
    ArgBinding &pa = plan.args[i];
    if (a.isOutput && pa.shape.empty() && !a.like.empty()) {
      int like = md.findArg(a.like);
      if (like >= 0)
        pa.shape = plan.args[like].shape;
      // (a `like` with a problem of its own is named once, by it)
      bool named = std::any_of(
          problems.begin(), problems.end(),
          [&](const BindProblem &p) { return p.arg == like && like >= 0; });
      if (pa.shape.empty() && !isBound(a) && !named)
        add(BindProblem::LikeMissing, static_cast<int>(i),
            fmt::format("output '{}' is shaped like '{}', which has no size",
                        a.name, a.like));
    }
    if (pa.role == Role::PeerTable) {
      pa.tableOf = md.findArg(a.peerTableFor);
      if (pa.tableOf >= 0)
        plan.args[pa.tableOf].symmetric = true;
    }
  }
}

Expected<bool> Planner::planComm() {
  Expected<int64_t> tiles =
      numTiles(md, [&](const GridExtent &e) -> Expected<int64_t> {
        int arg = md.findArg(e.param ? *e.param : e.scalar.value_or(""));
        if (arg < 0)
          return int64_t(0);
        const ArgBinding &pa = plan.args[arg];
        if (!pa.isTensor)
          return static_cast<int64_t>(pa.scalar);
        return e.dim < pa.shape.size() ? pa.shape[e.dim] : 0;
      });
  if (!tiles)
    return Failure{tiles.error()};
  plan.gridTiles = *tiles;
  plan.tiles = std::max<int64_t>(*tiles, 1);
  for (size_t i = 0; i < md.args.size(); ++i) {
    ArgBinding &pa = plan.args[i];
    if (pa.role != Role::SignalPad && pa.role != Role::PeerTable &&
        pa.role != Role::Scratch)
      continue;
    if (pa.role != Role::PeerTable && req.shapes.count(pa.name))
      continue; // the caller's (planTensor)
    Expected<std::vector<int64_t>> shape =
        commShape(md, static_cast<int>(i), plan.world, plan.tiles);
    if (!shape)
      add(BindProblem::Comm, static_cast<int>(i), shape.error());
    else
      pa.shape = *shape;
  }
  return true;
}

/// The metadata's size constraints on the planned shapes (the runtime
/// checks them again at launch): a shape a kernel was not compiled for
/// (`-D H=4096` given x=7x8192) is named here, before any GPU work.
void Planner::checkConstraints() {
  std::vector<std::vector<int64_t>> shapes;
  for (const ArgBinding &pa : plan.args)
    shapes.push_back(pa.shape);
  for (const SizeProblem &p : checkSizes(md, shapes, plan.tiles)) {
    if (!p.constraint) {
      add(BindProblem::SameSize, p.arg, p.why);
      problems.back().same = p.same;
      problems.back().actual = p.actual;
      continue;
    }
    const Constraint &c = *p.constraint;
    add(BindProblem::Constraint, p.arg,
        fmt::format("'{}' of shape {}: dim {} is {}, but the kernel needs {} "
                    "{}{}",
                    c.param, formatShape(plan.args[p.arg].shape), c.dim,
                    p.actual, c.op, c.valueWith(plan.tiles),
                    c.isNumTiles() ? " (num_tiles)" : ""));
    problems.back().constraint = &c;
    problems.back().actual = p.actual;
  }
}

void Planner::sizeBytes() {
  for (size_t i = 0; i < plan.args.size(); ++i) {
    ArgBinding &pa = plan.args[i];
    if (!pa.isTensor)
      continue;
    int64_t bytes = checkedBytes(pa.shape, pa.dtype);
    if (bytes < 0)
      add(BindProblem::TooLarge, static_cast<int>(i),
          fmt::format("'{}' of shape {} is too large", pa.name,
                      formatShape(pa.shape)));
    pa.bytes = static_cast<size_t>(std::max<int64_t>(bytes, 16));
    pa.inHeap =
        pa.symmetric || (pa.role != Role::Output && pa.role != Role::PeerTable);
  }
}

} // namespace

namespace {
/// planBindingProblems; a failure only when the tile count overflows.
Expected<BindingResult> planAll(const KernelMetadata &md,
                                const BindingRequest &req) {
  BindingResult r;
  BindingPlan &plan = r.plan;
  plan.kernel = md.kernel;
  plan.world = req.world;
  plan.args.resize(md.args.size());
  Planner p(md, req, plan);
  if (req.world < 1) {
    p.problems.push_back(
        {BindProblem::World, -1,
         fmt::format("world size {} is not positive", req.world)});
    plan.world = 1; // sizes below stay defined
  }
  p.checkNames();
  p.planData();
  if (p.problems.empty()) {
    Expected<bool> ok = p.planComm();
    if (!ok)
      return Failure{ok.error()};
  }
  if (p.problems.empty())
    p.checkConstraints();
  p.sizeBytes();
  r.problems = std::move(p.problems);
  return r;
}
} // namespace

BindingResult planBindingProblems(const KernelMetadata &md,
                                  const BindingRequest &req) {
  Expected<BindingResult> r = planAll(md, req);
  if (r)
    return std::move(*r);
  BindingResult out;
  out.plan.kernel = md.kernel;
  out.plan.world = req.world;
  out.problems.push_back({BindProblem::TooLarge, -1, r.error()});
  return out;
}

Expected<BindingPlan> planBinding(const KernelMetadata &md,
                                  const BindingRequest &req) {
  Expected<BindingResult> r = planAll(md, req);
  if (!r)
    return Failure{r.error()};
  if (r->problems.empty())
    return std::move(r->plan);
  std::string msg =
      fmt::format("kernel {}: cannot bind its arguments:", md.kernel);
  for (const BindProblem &p : r->problems)
    msg += "\n  " + p.text;
  return Failure{msg};
}

} // namespace dslc::contract
