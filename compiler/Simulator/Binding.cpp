//===- Binding.cpp - Kernel parameters to host buffers -------------------===//

#include "compiler/Simulator/Binding.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <set>

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

/// The argument `v` is, through a peer's copy or a stack view of it.
Value underlyingArg(Value v) {
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

bool dslc::sim::chooseCollective(const std::string &requested,
                                 const KernelDescription &desc,
                                 const SimulationOptions &options,
                                 unsigned worldSize, Binding &binding) {
  binding.collective.clear();
  binding.input = binding.output = -1;
  // The result: the one output; the data: its `like`, else the one input of
  // its dtype.
  for (size_t k = 0; k < binding.args.size(); ++k) {
    const ArgBinding &a = binding.args[k];
    if (a.kind != ArgBinding::Kind::Tensor || a.role != Role::Output)
      continue;
    if (binding.output >= 0) {
      binding.output = -1;
      break;
    }
    binding.output = int(k);
  }
  if (binding.output < 0)
    return false;
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
  if (binding.input < 0)
    return false;
  if (requested == "all-reduce" || requested == "reduce-scatter" ||
      requested == "all-gather") {
    binding.collective = requested;
    return true;
  }
  if (requested != "auto")
    return false;
  const ArgBinding &in = binding.args[binding.input];
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
  if (o.sizes.size() != 1 || in.sizes.size() != 1)
    return false;
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

bool dslc::sim::bindParameters(func::FuncOp func, const KernelDescription &desc,
                               const SimulationOptions &options,
                               unsigned worldSize, Binding &binding,
                               std::string &error) {
  Block &entry = func.getBody().front();
  auto names = func->getAttrOfType<ArrayAttr>("tile.arg_names");
  if (!names || names.size() != entry.getNumArguments()) {
    error = "the kernel function has no 'tile.arg_names' for its arguments";
    return false;
  }
  std::map<std::string, unsigned> index;
  binding = Binding();
  for (auto [k, arg] : llvm::enumerate(entry.getArguments())) {
    ArgBinding a;
    a.name = cast<StringAttr>(names[k]).getValue().str();
    Type t = arg.getType();
    if (auto ref = dyn_cast<tile::RefType>(t)) {
      a.kind = ArgBinding::Kind::Tensor;
      a.type = ElemType::fromType(ref.getElementType());
      a.sizes.assign(ref.getRank(), 0);
    } else if (isa<FloatType>(t)) {
      a.kind = ArgBinding::Kind::FloatScalar;
      a.type = ElemType::fromType(t);
    } else {
      a.kind = ArgBinding::Kind::IntScalar;
      a.type = ElemType::fromType(t);
    }
    index[a.name] = k;
    binding.args.push_back(a);
  }
  auto argOf = [&](Value v) -> ArgBinding * {
    auto ba = dyn_cast<BlockArgument>(v);
    if (!ba || ba.getOwner() != &entry)
      return nullptr;
    return &binding.args[ba.getArgNumber()];
  };
  bool ok = true;
  auto makeTable = [&](ArgBinding &table, ArgBinding &of) {
    if (table.role == Role::PeerTable && table.tableOf != of.name) {
      error = "the address table '" + table.name + "' is used for both '" +
              table.tableOf + "' and '" + of.name + "'";
      ok = false;
    }
    table.role = Role::PeerTable;
    table.tableOf = of.name;
    of.symmetric = true;
  };

  // What the description says: symmetric tensors and their tables, access,
  // outputs.
  for (const ParamDescription &pd : desc.params) {
    if (!index.count(pd.name))
      continue;
    ArgBinding &a = binding.args[index[pd.name]];
    a.access = pd.access;
    if (pd.symmetric) {
      a.symmetric = true;
      if (index.count(pd.name + ".peers"))
        makeTable(binding.args[index[pd.name + ".peers"]], a);
    }
    if (pd.peerTableFor && index.count(*pd.peerTableFor))
      makeTable(a, binding.args[index[*pd.peerTableFor]]);
  }
  for (const OutputDescription &o : desc.outputs)
    if (index.count(o.name)) {
      ArgBinding &a = binding.args[index[o.name]];
      a.role = Role::Output;
      a.like = o.like;
    }
  // What the IR shows: stack views (tables of older descriptions), stores
  // into and loads from peers' memory, signal pads.
  func.walk([&](Operation *op) {
    if (auto view = dyn_cast<comm::StackViewOp>(op)) {
      ArgBinding *table = argOf(view.getTable());
      ArgBinding *like = argOf(view.getLike());
      if (table && like)
        makeTable(*table, *like);
    }
    if (auto store = dyn_cast<comm::MulticastStoreOp>(op)) {
      if (ArgBinding *a = argOf(underlyingArg(store.getStack()))) {
        a->stackWritten = a->remoteWritten = true;
        a->role = Role::Output;
      }
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
    Value pad;
    if (auto s = dyn_cast<comm::SignalOp>(op))
      pad = s.getPad();
    else if (auto w = dyn_cast<comm::WaitOp>(op))
      pad = w.getPad();
    if (!pad)
      return;
    if (ArgBinding *a = argOf(underlyingArg(pad)))
      if (a->role != Role::Output)
        a->role = Role::Pad;
  });
  // LL scratch: of ll_put (a peer's, through comm.peer of a stack view) and
  // ll_get.
  std::map<ArgBinding *, std::set<const void *>> putSites;
  func.walk([&](Operation *op) {
    Value scratch;
    RankedTensorType tile;
    int64_t packet = 16;
    if (auto put = dyn_cast<comm::LLPutOp>(op)) {
      scratch = put.getScratch();
      tile = put.getValue().getType();
      packet = put.getPacket();
    } else if (auto get = dyn_cast<comm::LLGetOp>(op)) {
      scratch = get.getScratch();
      tile = get.getResult().getType();
      packet = get.getPacket();
    } else {
      return;
    }
    ArgBinding *a = argOf(underlyingArg(scratch));
    if (!a)
      return;
    if (a->role == Role::Output || a->role == Role::Pad) {
      error = "'" + a->name + "' is used both as an LL scratch and as " +
              (a->role == Role::Pad ? "a signal pad" : "an output");
      ok = false;
      return;
    }
    if (a->type.isFloat() || a->type.bits < 8) {
      error = "the LL scratch '" + a->name + "' is a " + a->type.name() +
              " tensor; the simulator needs an integer one (int64)";
      ok = false;
      return;
    }
    a->role = Role::Scratch;
    int64_t bytes = tile.getNumElements() *
                    int64_t(ElemType::fromType(tile.getElementType())
                                .byteSize()) *
                    packet / (packet / 2);
    a->packetTileBytes = std::max(a->packetTileBytes, bytes);
    // An ll_put unrolled over peers is one call in the source: one region.
    if (isa<comm::LLPutOp>(op))
      putSites[a].insert(op->getLoc().getAsOpaquePointer());
  });
  if (!ok)
    return false;
  for (auto &[a, sites] : putSites)
    a->llPuts = int64_t(sites.size());
  // The access facts, where the description has them.
  for (ArgBinding &a : binding.args) {
    if (a.kind != ArgBinding::Kind::Tensor || a.access.empty() ||
        !a.like.empty() || a.role == Role::PeerTable ||
        a.role == Role::Scratch || a.role == Role::Pad)
      continue;
    if (a.type.isFloat()) {
      if (a.access == "write")
        a.role = Role::Output;
      else if (a.access == "readwrite")
        a.role = Role::Workspace;
      else
        a.role = Role::Input;
    } else if (a.access == "readwrite" && a.type.bits == 32) {
      a.role = Role::Pad;
    }
  }

  // Sizes: explicit, then fixed by constraints.
  for (auto &[name, dims] : options.sizes) {
    if (!index.count(name)) {
      error = "--size " + name + "=...: the kernel has no parameter '" + name +
              "'";
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
  for (const Constraint &c : desc.constraints) {
    if (!index.count(c.param) || c.op != "==" ||
        !std::holds_alternative<int64_t>(c.value))
      continue;
    ArgBinding &a = binding.args[index[c.param]];
    if (c.dim < a.sizes.size() && a.sizes[c.dim] == 0)
      a.sizes[c.dim] = std::get<int64_t>(c.value);
  }
  // `none` checks nothing but sizes the outputs as `auto` would.
  chooseCollective(options.reference == "none" ? "auto" : options.reference,
                   desc, options, worldSize, binding);
  int64_t extent = options.defaultSize.value_or(
      defaultExtent(desc, binding, worldSize));
  for (ArgBinding &a : binding.args) {
    if (a.kind == ArgBinding::Kind::IntScalar && !options.sizes.count(a.name)) {
      error = "the int parameter '" + a.name +
              "' needs a value: pass --size " + a.name + "=V";
      return false;
    }
    if (a.kind == ArgBinding::Kind::FloatScalar && !options.sizes.count(a.name))
      a.floatValue = 1.0;
    if (a.kind != ArgBinding::Kind::Tensor || a.role != Role::Input)
      continue;
    for (size_t d = 0; d < a.sizes.size(); ++d) {
      if (a.sizes[d])
        continue;
      if (d == 0) {
        a.sizes[d] = extent;
        continue;
      }
      error = "the " + std::to_string(a.sizes.size()) + "-d tensor '" +
              a.name + "' needs its sizes: pass --size " + a.name + "=AxB";
      return false;
    }
  }
  // Outputs and workspaces: like their `like`, else by the collective.
  for (size_t k = 0; k < binding.args.size(); ++k) {
    ArgBinding &a = binding.args[k];
    if (a.kind != ArgBinding::Kind::Tensor ||
        (a.role != Role::Output && a.role != Role::Workspace))
      continue;
    if (!a.like.empty()) {
      if (index.count(a.like))
        a.sizes = binding.args[index[a.like]].sizes;
      continue;
    }
    if (!llvm::is_contained(a.sizes, int64_t(0)))
      continue;
    if (a.sizes.size() > 2) {
      error = "the " + std::to_string(a.sizes.size()) + "-d " +
              roleName(a.role) + " '" + a.name +
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
      continue;
    }
    if (binding.output != int(k) || binding.collective == "all-reduce" ||
        binding.collective.empty()) {
      a.sizes[0] = n;
    } else if (binding.collective == "all-gather") {
      a.sizes[0] = n * int64_t(worldSize);
    } else if (n % int64_t(worldSize)) {
      error = "a reduce-scatter needs an input a multiple of the world "
              "size, but '" + binding.args[binding.input].name + "' has " +
              std::to_string(n) + " element(s) (--size N) for " +
              std::to_string(worldSize) + " ranks: pass a multiple of " +
              std::to_string(worldSize) + " (each rank's '" + a.name +
              "' gets N / " + std::to_string(worldSize) + ")";
      return false;
    } else {
      a.sizes[0] = n / int64_t(worldSize);
    }
  }
  for (ArgBinding &a : binding.args)
    if (a.role == Role::PeerTable && a.sizes[0] == 0)
      a.sizes[0] = worldSize;

  // The grid.
  binding.numTiles = 1;
  binding.tilesPerDim.clear();
  for (const GridExtent &g : desc.grid) {
    int64_t n = 0;
    if (g.param && index.count(*g.param))
      n = binding.args[index[*g.param]].sizes[g.dim];
    else if (g.scalar && index.count(*g.scalar))
      n = binding.args[index[*g.scalar]].intValue;
    else if (g.constant)
      n = *g.constant;
    if (g.param || g.scalar)
      n = g.div > 0 ? std::max<int64_t>(n + g.add, 0) / g.div : n;
    int64_t tiles = (n + g.block - 1) / g.block;
    binding.tilesPerDim.push_back(tiles);
    binding.numTiles *= tiles;
  }

  // Pads: rows for every tile, a column per rank, unless told otherwise.
  for (const Constraint &c : desc.constraints) {
    if (!index.count(c.param) || c.op != ">=")
      continue;
    ArgBinding &a = binding.args[index[c.param]];
    int64_t v = std::holds_alternative<int64_t>(c.value)
                    ? std::get<int64_t>(c.value)
                    : binding.numTiles;
    if (c.dim < a.sizes.size() && a.sizes[c.dim] == 0)
      a.sizes[c.dim] = std::max<int64_t>(v, 1);
  }
  // LL scratch: two regions (flag parities) per ll_put, per sender, a tile
  // of packets per tile of the grid.
  for (ArgBinding &a : binding.args) {
    if (a.role != Role::Scratch || !llvm::is_contained(a.sizes, int64_t(0)))
      continue;
    if (a.sizes.size() != 1) {
      error = "the " + std::to_string(a.sizes.size()) + "-d LL scratch '" +
              a.name + "' needs its sizes: pass --size " + a.name +
              "=AxB...";
      return false;
    }
    int64_t bytes = 2 * std::max<int64_t>(a.llPuts, 1) * int64_t(worldSize) *
                    std::max<int64_t>(binding.numTiles, 1) *
                    a.packetTileBytes;
    int64_t eb = a.type.byteSize();
    a.sizes[0] = std::max<int64_t>((bytes + eb - 1) / eb, 1);
  }
  for (ArgBinding &a : binding.args) {
    if (a.kind != ArgBinding::Kind::Tensor)
      continue;
    for (size_t d = 0; d < a.sizes.size(); ++d)
      if (a.sizes[d] == 0)
        a.sizes[d] = d == 0 ? std::max<int64_t>(binding.numTiles, 1)
                            : int64_t(worldSize);
  }

  // Every constraint must hold.
  for (const Constraint &c : desc.constraints) {
    if (!index.count(c.param))
      continue;
    const ArgBinding &a = binding.args[index[c.param]];
    if (c.dim >= a.sizes.size())
      continue;
    int64_t v = std::holds_alternative<int64_t>(c.value)
                    ? std::get<int64_t>(c.value)
                    : binding.numTiles;
    int64_t have = a.sizes[c.dim];
    if ((c.op == "==" && have != v) || (c.op == ">=" && have < v)) {
      error = "'" + a.name + "' has size " + std::to_string(have) +
              " in dimension " + std::to_string(c.dim) +
              " but the kernel needs " + c.op + " " + std::to_string(v) +
              (std::holds_alternative<int64_t>(c.value) ? ""
                                                        : " (num_tiles)");
      return false;
    }
  }
  return true;
}
