//===- Binding.cpp - Kernel parameters to host buffers -------------------===//

#include "compiler/Simulator/Binding.h"

#include "contract/BindingPlan.h"
#include "contract/Sizing.h"
#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace dslc;
using namespace dslc::sim;

int64_t dslc::sim::defaultExtent(const KernelDescription &desc,
                                 const Binding &binding, unsigned worldSize) {
  int64_t block = desc.grid.empty() ? 1024 : desc.grid.front().block;
  int64_t base = block * 3 + (block + 1) / 2;
  if (desc.grid.empty() || !desc.grid.front().param)
    return base;
  // The tensor the grid runs over gets 3.5 tiles.
  const GridExtent &g = desc.grid.front();
  int64_t tied = std::max<int64_t>(base * g.div - g.add, 1);
  int o = binding.output;
  if (o >= 0 && binding.args[o].name == *g.param &&
      binding.args[o].sizes.size() == 1 && binding.args[o].like.empty()) {
    if (binding.collective == "reduce-scatter")
      return tied * worldSize;
    if (binding.collective == "all-gather")
      return std::max<int64_t>(tied / worldSize, 1);
  }
  return tied;
}

namespace {

std::string shapeText(const std::vector<int64_t> &sizes) {
  std::string s;
  for (size_t k = 0; k < sizes.size(); ++k)
    s += (k ? "x" : "") + std::to_string(sizes[k]);
  return s;
}

/// The argument `v` is, through a view, a peer's copy or a stack view of it.
Value underlyingArg(Value v) {
  v = tile::viewedTensor(v);
  if (auto peer = v.getDefiningOp<comm::PeerOp>())
    v = peer.getStack();
  if (auto view = v.getDefiningOp<comm::StackViewOp>())
    v = view.getLike();
  return v;
}

/// Whether `v` is a peer's copy or a stack of copies (memory on peers).
bool onPeers(Value v) {
  return v.getDefiningOp<comm::PeerOp>() ||
         v.getDefiningOp<comm::StackViewOp>();
}

} // namespace

namespace {

/// Whether the access facts (roles, where data moves) are those of a
/// collective from `in` into `o`; otherwise Binding::why says why not.
bool collectiveFacts(Binding &binding, const ArgBinding &in,
                     const ArgBinding &o) {
  if (in.contractRole != contract::Role::Input) {
    binding.why = "the kernel never reads '" + in.name + "'";
    return false;
  }
  std::string others;
  bool moves = in.remoteRead || o.remoteWritten;
  for (const ArgBinding &a : binding.args) {
    if (a.kind != ArgBinding::Kind::Tensor)
      continue;
    moves |= a.role == Role::Scratch || (a.role == Role::InOut && a.symmetric);
    if (&a != &in && a.contractRole == contract::Role::Input)
      others += (others.empty() ? "'" : ", '") + a.name + "'";
  }
  if (!others.empty()) {
    binding.why = "it reads inputs besides '" + in.name + "' (" + others +
                  "): not a plain collective";
    return false;
  }
  if (!moves) {
    binding.why = "no data moves between ranks (no rank reads a peer's '" +
                  in.name + "' or writes a peer's '" + o.name +
                  "', no LL scratch or staging buffer)";
    return false;
  }
  return true;
}

} // namespace

bool dslc::sim::chooseCollective(const std::string &requested,
                                 const KernelDescription &desc,
                                 const SimulationOptions &options,
                                 unsigned worldSize, Binding &binding) {
  binding.collective.clear();
  binding.why.clear();
  binding.input = binding.output = -1;
  // The result: the one output; the data: its `like`, else the one input of
  // its dtype.
  int outputs = 0;
  for (size_t k = 0; k < binding.args.size(); ++k) {
    const ArgBinding &a = binding.args[k];
    if (a.kind != ArgBinding::Kind::Tensor || a.role != Role::Output)
      continue;
    binding.output = ++outputs == 1 ? int(k) : -1;
  }
  if (binding.output < 0) {
    binding.why = "the kernel has " + std::to_string(outputs) + " outputs";
    return false;
  }
  const ArgBinding &o = binding.args[binding.output];
  for (size_t k = 0; k < binding.args.size(); ++k) {
    const ArgBinding &a = binding.args[k];
    if (a.kind != ArgBinding::Kind::Tensor || a.role != Role::Input)
      continue;
    if (!o.like.empty()) {
      if (a.name == o.like)
        binding.input = int(k);
      continue;
    }
    if (a.type.kind != o.type.kind || a.type.bits != o.type.bits)
      continue;
    if (binding.input >= 0) {
      binding.input = -1;
      break;
    }
    binding.input = int(k);
  }
  if (binding.input < 0) {
    binding.why = "no single input has the output's dtype";
    return false;
  }
  if (requested == "all-reduce" || requested == "reduce-scatter" ||
      requested == "all-gather") {
    binding.collective = requested;
    return true;
  }
  if (requested != "auto")
    return false;
  const ArgBinding &in = binding.args[binding.input];
  if (!collectiveFacts(binding, in, o))
    return false;
  // 1. torch.empty_like(I).
  if (!o.like.empty()) {
    binding.collective = "all-reduce";
    return true;
  }
  // 2. The [world size, N] rows of an all-gather.
  if (o.sizes.size() == 2 && in.sizes.size() == 1) {
    binding.collective = "all-gather";
    return true;
  }
  if (o.sizes.size() != 1 || in.sizes.size() != 1) {
    binding.why = "'" + o.name + "' has " + std::to_string(o.sizes.size()) +
                  " dimension(s) and '" + in.name + "' " +
                  std::to_string(in.sizes.size()) + ": no collective's shapes";
    return false;
  }
  // 3. Both sizes known: their ratio.
  int64_t oSize = o.sizes[0];
  int64_t iSize = in.sizes[0] ? in.sizes[0] : options.defaultSize.value_or(0);
  if (oSize && iSize) {
    if (oSize == iSize)
      binding.collective = "all-reduce";
    else if (oSize * int64_t(worldSize) == iSize)
      binding.collective = "reduce-scatter";
    else if (oSize == iSize * int64_t(worldSize))
      binding.collective = "all-gather";
    else
      binding.why = "'" + o.name + "' has " + std::to_string(oSize) +
                    " element(s) and '" + in.name + "' " +
                    std::to_string(iSize) +
                    ": neither equal (all-reduce) nor a world size apart "
                    "(reduce-scatter, all-gather)";
    return !binding.collective.empty();
  }
  // 4. Where the data moves.
  bool gridOverOutput = !desc.grid.empty() && desc.grid.front().param &&
                        *desc.grid.front().param == o.name &&
                        desc.grid.front().div == 1;
  if (o.remoteWritten && !in.remoteRead)
    binding.collective = "all-gather";
  else if (!o.remoteWritten && gridOverOutput)
    binding.collective = "reduce-scatter";
  else
    binding.collective = "all-reduce";
  return true;
}

namespace {

/// The buffer role of a parameter: its own, but unused tensors (filled
/// with seeded values, as inputs) and a symmetric tensor's `X.peers` (a
/// peer table).
Role bufferRole(contract::Role role) {
  switch (role) {
  case Role::Output:
  case Role::InOut:
  case Role::Scratch:
  case Role::SignalPad:
  case Role::PeerTable:
    return role;
  case Role::Peers:
    return Role::PeerTable;
  default:
    return Role::Input;
  }
}

/// Binds the sizes of one kernel. `index` maps argument names to indices
/// into binding.args.
class Binder {
public:
  Binder(func::FuncOp func, const KernelDescription &desc,
         const SimulationOptions &options, unsigned worldSize, Binding &binding)
      : func(func), desc(desc), options(options), worldSize(worldSize),
        binding(binding) {}

  bool run();
  std::string error;

private:
  bool collectArguments();
  void observeDataMovement();
  bool applyExplicitSizes();
  /// Unknown sizes from the metadata's same_sizes and the known ones.
  void applySameSizes();
  void applyFixedSizes();
  bool sizeInputs(int64_t extent);
  bool sizeOutput(size_t k, int64_t extent);
  /// Pads, tables, scratch, scalar values, the grid's tiles and the size
  /// checks: the contract's binding plan for the sizes chosen so far.
  bool planTheRest();
  /// The simulator's words for one of the plan's problems.
  std::string problemText(const contract::BindingPlan &plan,
                          const contract::BindProblem &p) const;
  ArgBinding *argOf(Value v);
  /// The index of `name` in the description's arguments (-1: not there,
  /// e.g. a symmetric tensor's `X.peers`).
  int descArg(const std::string &name) const { return desc.findArg(name); }

  func::FuncOp func;
  const KernelDescription &desc;
  const SimulationOptions &options;
  unsigned worldSize;
  Binding &binding;
  std::map<std::string, unsigned> index;
};

ArgBinding *Binder::argOf(Value v) {
  auto ba = dyn_cast<BlockArgument>(v);
  if (!ba || ba.getOwner() != &func.getBody().front())
    return nullptr;
  return &binding.args[ba.getArgNumber()];
}

bool Binder::collectArguments() {
  Block &entry = func.getBody().front();
  auto names = func->getAttrOfType<ArrayAttr>(tile::kArgNamesAttr);
  if (!names || names.size() != entry.getNumArguments()) {
    error = "the kernel function has no 'tile.arg_names' for its arguments";
    return false;
  }
  for (auto [k, arg] : llvm::enumerate(entry.getArguments())) {
    ArgBinding a;
    a.name = cast<StringAttr>(names[k]).getValue().str();
    Type t = arg.getType();
    if (auto ref = dyn_cast<tile::RefType>(t)) {
      a.kind = ArgBinding::Kind::Tensor;
      a.type = ElemType::fromType(ref.getElementType());
      a.sizes.assign(ref.getRank(), 0);
    } else {
      a.kind = isa<FloatType>(t) ? ArgBinding::Kind::FloatScalar
                                 : ArgBinding::Kind::IntScalar;
      a.type = ElemType::fromType(t);
    }
    tile::RoleAttr role = tile::getArgRole(func, k);
    if (!role) {
      error = "the kernel's argument '" + a.name + "' has no role";
      return false;
    }
    a.contractRole = role.getRole();
    a.role = bufferRole(a.contractRole);
    if (role.getOf())
      a.tableOf = role.getOf().getValue().str();
    int d = descArg(a.name);
    if (d >= 0) {
      a.symmetric = desc.args[d].symmetric;
      if (desc.args[d].isOutput)
        a.like = desc.args[d].like;
    }
    if (a.role == Role::Scratch && (a.type.isFloat() || a.type.bits < 8)) {
      error = "the LL scratch '" + a.name + "' is a " + a.type.name() +
              " tensor; the simulator needs an integer one (int64)";
      return false;
    }
    index[a.name] = k;
    binding.args.push_back(a);
  }
  // A peer table's target lives on every rank.
  for (ArgBinding &a : binding.args)
    if (a.role == Role::PeerTable && index.count(a.tableOf))
      binding.args[index[a.tableOf]].symmetric = true;
  return true;
}

void Binder::observeDataMovement() {
  // Stores into and loads from peers' memory (for the collective's choice).
  func.walk([&](Operation *op) {
    if (auto store = dyn_cast<comm::MulticastStoreOp>(op)) {
      if (ArgBinding *a = argOf(underlyingArg(store.getStack())))
        a->stackWritten = a->remoteWritten = true;
    } else if (auto store = dyn_cast<tile::StoreOp>(op)) {
      if (onPeers(store.getRef()))
        if (ArgBinding *a = argOf(underlyingArg(store.getRef())))
          a->remoteWritten = true;
    } else if (auto load = dyn_cast<tile::LoadOp>(op)) {
      if (onPeers(load.getRef()))
        if (ArgBinding *a = argOf(underlyingArg(load.getRef())))
          a->remoteRead = true;
    } else if (auto lr = dyn_cast<comm::MulticastLoadReduceOp>(op)) {
      if (ArgBinding *a = argOf(underlyingArg(lr.getStack())))
        a->remoteRead = true;
    }
  });
}

bool Binder::applyExplicitSizes() {
  for (const auto &[name, v] : options.scalars) {
    if (!index.count(name)) {
      error = "--scalar " + name + "=...: the kernel has no parameter '" +
              name + "'";
      return false;
    }
    if (binding.args[index[name]].kind == ArgBinding::Kind::Tensor) {
      error = "--scalar " + name + "=...: '" + name +
              "' is a tensor: give its sizes with --size " + name + "=AxB";
      return false;
    }
    if (options.sizes.count(name)) {
      error = "'" + name + "' is given by both --size and --scalar";
      return false;
    }
  }
  for (auto &[name, dims] : options.sizes) {
    if (!index.count(name)) {
      error =
          "--size " + name + "=...: the kernel has no parameter '" + name + "'";
      return false;
    }
    ArgBinding &a = binding.args[index[name]];
    if (a.kind == ArgBinding::Kind::Tensor) {
      if (dims.size() != a.sizes.size()) {
        error = "--size " + name + "=" + shapeText(dims) + ": '" + name +
                "' has " + std::to_string(a.sizes.size()) + " dimension(s)";
        return false;
      }
      a.sizes = dims;
    } else {
      if (dims.size() != 1) {
        error = "--size " + name + "=V: '" + name + "' is a scalar";
        return false;
      }
      a.intValue = dims[0];
      a.floatValue = double(dims[0]);
    }
  }
  return true;
}

void Binder::applySameSizes() {
  // A size one side of a relation has (given or fixed) sizes the other,
  // before any guess: out[tm, tn] over a's rows and b's columns is a x b.
  for (bool changed = true; changed;) {
    changed = false;
    for (const contract::SameSize &s : desc.sameSizes) {
      if (s.relation != contract::SameSize::Relation::Eq ||
          !index.count(s.param) || !index.count(s.as))
        continue;
      ArgBinding &a = binding.args[index[s.param]];
      ArgBinding &b = binding.args[index[s.as]];
      if (s.dim >= a.sizes.size() || s.asDim >= b.sizes.size())
        continue;
      int64_t &x = a.sizes[s.dim], &y = b.sizes[s.asDim];
      if ((x == 0) != (y == 0)) {
        (x == 0 ? x : y) = x == 0 ? y : x;
        changed = true;
      }
    }
  }
}

void Binder::applyFixedSizes() {
  for (const Constraint &c : desc.constraints) {
    if (!index.count(c.param) || c.op != "==" || c.isNumTiles())
      continue;
    ArgBinding &a = binding.args[index[c.param]];
    if (c.dim < a.sizes.size() && a.sizes[c.dim] == 0)
      a.sizes[c.dim] = std::get<int64_t>(c.value);
  }
}

bool Binder::sizeInputs(int64_t extent) {
  for (ArgBinding &a : binding.args) {
    if (a.kind != ArgBinding::Kind::Tensor || a.role != Role::Input)
      continue;
    for (size_t d = 0; d < a.sizes.size(); ++d) {
      if (a.sizes[d])
        continue;
      if (d == 0) {
        a.sizes[d] = extent;
        continue;
      }
      error = "the " + std::to_string(a.sizes.size()) + "-d tensor '" + a.name +
              "' needs its sizes: pass --size " + a.name + "=AxB";
      return false;
    }
  }
  return true;
}

/// Outputs and workspaces: like their `like`, else by the collective.
bool Binder::sizeOutput(size_t k, int64_t extent) {
  ArgBinding &a = binding.args[k];
  if (!a.like.empty()) {
    if (index.count(a.like))
      a.sizes = binding.args[index[a.like]].sizes;
    return true;
  }
  if (!llvm::is_contained(a.sizes, int64_t(0)))
    return true;
  if (a.sizes.size() > 2) {
    error = "the " + std::to_string(a.sizes.size()) + "-d " +
            contract::dumpRoleName(a.role) + " '" + a.name +
            "' needs its sizes: pass --size " + a.name + "=AxBx...";
    return false;
  }
  // The data it is made from: the collective's input, else N.
  int64_t n = extent;
  if (binding.output == int(k) && binding.input >= 0 &&
      binding.args[binding.input].sizes.size() == 1)
    n = binding.args[binding.input].sizes[0];
  if (a.sizes.size() == 2) {
    if (a.sizes[0] == 0)
      a.sizes[0] = worldSize;
    if (a.sizes[1] == 0)
      a.sizes[1] = n;
    binding.guessedOutputs.push_back(a.name + "=" + std::to_string(a.sizes[0]) +
                                     "x" + std::to_string(a.sizes[1]));
    return true;
  }
  if (binding.output != int(k) || binding.collective == "all-reduce" ||
      binding.collective.empty()) {
    a.sizes[0] = n;
  } else if (binding.collective == "all-gather") {
    a.sizes[0] = n * int64_t(worldSize);
  } else if (n % int64_t(worldSize)) {
    error = "a reduce-scatter needs an input a multiple of the world "
            "size, but '" +
            binding.args[binding.input].name + "' has " + std::to_string(n) +
            " element(s) (--size N) for " + std::to_string(worldSize) +
            " ranks: pass a multiple of " + std::to_string(worldSize) +
            " (each rank's '" + a.name + "' gets N / " +
            std::to_string(worldSize) + ")";
    return false;
  } else {
    a.sizes[0] = n / int64_t(worldSize);
  }
  return true;
}

bool Binder::planTheRest() {
  contract::BindingRequest req;
  req.world = int(worldSize);
  req.scalars = options.scalars;
  for (const ArgBinding &a : binding.args) {
    if (descArg(a.name) < 0)
      continue; // `X.peers`: sized below
    if (a.kind != ArgBinding::Kind::Tensor) {
      if (auto given = options.sizes.find(a.name); given != options.sizes.end())
        req.shapes[a.name] = given->second; // --size NAME=V
      continue;
    }
    // A pad's or a scratch's sizes nothing fixed: the contract's.
    if (llvm::is_contained(a.sizes, int64_t(0))) {
      if (a.role == Role::Scratch && a.sizes.size() != 1) {
        error = "the " + std::to_string(a.sizes.size()) + "-d LL scratch '" +
                a.name + "' needs its sizes: pass --size " + a.name + "=AxB...";
        return false;
      }
      continue;
    }
    req.shapes[a.name] = a.sizes;
  }
  contract::BindingResult r = contract::planBindingProblems(desc, req);
  if (!r.problems.empty()) {
    error = problemText(r.plan, r.problems.front());
    return false;
  }
  binding.numTiles = r.plan.gridTiles;
  for (ArgBinding &a : binding.args) {
    int d = descArg(a.name);
    if (d < 0) {
      if (a.role == Role::PeerTable && a.sizes[0] == 0)
        a.sizes[0] = worldSize;
      continue;
    }
    const contract::ArgBinding &p = r.plan.args[d];
    if (a.kind == ArgBinding::Kind::Tensor) {
      a.sizes = p.shape;
      a.zeroed = p.fill == contract::Fill::Zero;
    } else {
      a.floatValue = p.scalar;
      a.intValue = static_cast<int64_t>(p.scalar);
    }
  }
  return true;
}

std::string Binder::problemText(const contract::BindingPlan &plan,
                                const contract::BindProblem &p) const {
  using contract::BindProblem;
  const contract::ArgBinding *a = p.arg >= 0 ? &plan.args[p.arg] : nullptr;
  switch (p.kind) {
  case BindProblem::NoValue:
    return "the " +
           std::string(desc.args[p.arg].isIntScalar() ? "int" : "float") +
           " parameter '" + a->name +
           "' has no value and no default in the source: pass --scalar " +
           a->name + "=V";
  case BindProblem::NotInteger:
    return "--scalar " + a->name + "=" + std::to_string(a->scalar) + ": '" +
           a->name + "' is an int parameter";
  case BindProblem::Constraint: {
    const Constraint &c = *p.constraint;
    return "'" + a->name + "' has size " + std::to_string(p.actual) +
           " in dimension " + std::to_string(c.dim) + " but the kernel needs " +
           c.op + " " + std::to_string(c.valueWith(plan.tiles)) +
           (c.isNumTiles() ? " (num_tiles)" : "");
  }
  default:
    return p.text;
  }
}

bool Binder::run() {
  binding = Binding();
  if (!collectArguments())
    return false;
  observeDataMovement();
  // Sizes: explicit, then fixed by constraints.
  if (!applyExplicitSizes())
    return false;
  applyFixedSizes();
  applySameSizes();
  // `none` checks nothing but sizes the outputs as `auto` would.
  chooseCollective(options.reference == "none" ? "auto" : options.reference,
                   desc, options, worldSize, binding);
  int64_t extent =
      options.defaultSize.value_or(defaultExtent(desc, binding, worldSize));
  if (!sizeInputs(extent))
    return false;
  for (size_t k = 0; k < binding.args.size(); ++k) {
    const ArgBinding &a = binding.args[k];
    if (a.kind == ArgBinding::Kind::Tensor &&
        (a.role == Role::Output || a.role == Role::InOut) &&
        !sizeOutput(k, extent))
      return false;
  }
  return planTheRest();
}

} // namespace

bool dslc::sim::bindParameters(func::FuncOp func, const KernelDescription &desc,
                               const SimulationOptions &options,
                               unsigned worldSize, Binding &binding,
                               std::string &error) {
  Binder binder(func, desc, options, worldSize, binding);
  if (binder.run())
    return true;
  error = binder.error;
  return false;
}
