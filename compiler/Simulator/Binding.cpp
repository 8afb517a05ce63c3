//===- Binding.cpp - Kernel parameters to host buffers -------------------===//

#include "compiler/Simulator/Binding.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace dslc;
using namespace dslc::sim;

int64_t dslc::sim::defaultExtent(const KernelDescription &desc) {
  int64_t block = desc.grid.empty() ? 1024 : desc.grid.front().block;
  return block * 3 + (block + 1) / 2;
}

namespace {

std::string shapeText(const std::vector<int64_t> &sizes) {
  std::string s;
  for (size_t k = 0; k < sizes.size(); ++k)
    s += (k ? "x" : "") + std::to_string(sizes[k]);
  return s;
}

} // namespace

bool dslc::sim::bindParameters(func::FuncOp func, const KernelDescription &desc,
                               const CompileOptions &options,
                               unsigned worldSize, Binding &binding,
                               std::string &error) {
  Block &entry = func.getBody().front();
  auto names = func->getAttrOfType<ArrayAttr>("tile.arg_names");
  if (!names || names.size() != entry.getNumArguments()) {
    error = "the kernel function has no 'tile.arg_names' for its arguments";
    return false;
  }
  std::map<std::string, unsigned> index;
  binding.args.clear();
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

  // Roles.
  for (const ParamDescription &pd : desc.params)
    if (pd.symmetric && index.count(pd.name)) {
      binding.args[index[pd.name]].symmetric = true;
      if (index.count(pd.name + ".peers")) {
        ArgBinding &t = binding.args[index[pd.name + ".peers"]];
        t.role = Role::PeerTable;
        t.tableOf = pd.name;
      }
    }
  for (const OutputDescription &o : desc.outputs)
    if (index.count(o.name))
      binding.args[index[o.name]].role = Role::Output;
  bool ok = true;
  func.walk([&](comm::MulticastStoreOp store) {
    if (auto view = store.getStack().getDefiningOp<comm::StackViewOp>())
      if (ArgBinding *like = argOf(view.getLike())) {
        like->role = Role::Output;
        like->stackWritten = true;
      }
  });
  func.walk([&](Operation *op) {
    if (auto view = dyn_cast<comm::StackViewOp>(op)) {
      ArgBinding *table = argOf(view.getTable());
      ArgBinding *like = argOf(view.getLike());
      if (!table || !like)
        return;
      if (table->role == Role::PeerTable && table->tableOf != like->name) {
        error = "the address table '" + table->name +
                "' is used for both '" + table->tableOf + "' and '" +
                like->name + "'";
        ok = false;
      }
      table->role = Role::PeerTable;
      table->tableOf = like->name;
      like->symmetric = true;
    }
    Value pad;
    if (auto s = dyn_cast<comm::SignalOp>(op))
      pad = s.getPad();
    else if (auto w = dyn_cast<comm::WaitOp>(op))
      pad = w.getPad();
    if (!pad)
      return;
    if (auto view = pad.getDefiningOp<comm::StackViewOp>())
      pad = view.getLike();
    if (ArgBinding *a = argOf(pad))
      if (a->role != Role::Output)
        a->role = Role::Pad;
  });
  // LL scratch: of ll_put (a peer's, through comm.peer of a stack view) and
  // ll_get.
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
    if (auto peer = scratch.getDefiningOp<comm::PeerOp>())
      if (auto view = peer.getStack().getDefiningOp<comm::StackViewOp>())
        scratch = view.getLike();
    ArgBinding *a = argOf(scratch);
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
  });
  if (!ok)
    return false;

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
  int64_t extent = options.defaultSize.value_or(defaultExtent(desc));
  for (ArgBinding &a : binding.args) {
    if (a.kind == ArgBinding::Kind::IntScalar && !options.sizes.count(a.name)) {
      error = "the int parameter '" + a.name +
              "' needs a value: pass --size " + a.name + "=V";
      return false;
    }
    if (a.kind == ArgBinding::Kind::FloatScalar && !options.sizes.count(a.name))
      a.floatValue = 1.0;
    if (a.kind == ArgBinding::Kind::Tensor && a.stackWritten) {
      // Written by every rank: [world size, N] (or [N] when 1-d).
      if (a.sizes.size() > 2 &&
          llvm::is_contained(a.sizes, int64_t(0))) {
        error = "the " + std::to_string(a.sizes.size()) + "-d tensor '" +
                a.name + "' (stored into through a stack view) needs its "
                "sizes: pass --size " + a.name + "=AxBx...";
        return false;
      }
      if (a.sizes.size() == 2 && a.sizes[0] == 0)
        a.sizes[0] = worldSize;
      if (!a.sizes.empty() && a.sizes.back() == 0)
        a.sizes.back() = extent;
      continue;
    }
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
  for (ArgBinding &a : binding.args) {
    if (a.role == Role::PeerTable && a.sizes[0] == 0)
      a.sizes[0] = worldSize;
    if (a.role != Role::Output)
      continue;
    for (const OutputDescription &o : desc.outputs)
      if (o.name == a.name && index.count(o.like))
        a.sizes = binding.args[index[o.like]].sizes;
  }

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
  // LL scratch: two regions (flag parities) per sender, a tile of packets
  // per tile of the grid.
  for (ArgBinding &a : binding.args) {
    if (a.role != Role::Scratch || !llvm::is_contained(a.sizes, int64_t(0)))
      continue;
    if (a.sizes.size() != 1) {
      error = "the " + std::to_string(a.sizes.size()) + "-d LL scratch '" +
              a.name + "' needs its sizes: pass --size " + a.name +
              "=AxB...";
      return false;
    }
    int64_t bytes = 2 * int64_t(worldSize) *
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
