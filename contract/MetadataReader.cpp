//===- MetadataReader.cpp - Kernel metadata from JSON ---------------------===//
#include "contract/JsonSupport.h"
#include "contract/MetadataJson.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace dslc::contract {

using detail::FieldReader;
using detail::json;

namespace {

std::string inQuotes(const std::string &s) { return "'" + s + "'"; }

class Reader : public FieldReader {
public:
  explicit Reader(const std::string &origin)
      : FieldReader("metadata " + origin + ": ") {}

  KernelMetadata read(const std::string &text, const std::string &origin);

private:
  /// The "name" of object `obj` at `where0` ("params[2]: "), and `where`
  /// with the name for the object's own fields ("params[2] 'x': ").
  std::string named(const json &obj, const std::string &where0,
                    std::string &where) const;
  void readHeader(const json &root, KernelMetadata &md) const;
  void readLaunch(const json &root, KernelMetadata &md) const;
  ArgSpec readParam(const json &p, const std::string &where) const;
  void readTensor(const json &p, ArgSpec &a, const std::string &where) const;
  /// "dim_order": a permutation of the tensor's dimensions, if present.
  void readDimOrder(const json &p, ArgSpec &a, const std::string &where) const;
  void checkRoleAccess(const ArgSpec &a, const std::string &where) const;
  ArgSpec readOutput(const json &o, const std::string &where) const;
  void readArgs(const json &root, KernelMetadata &md) const;
  void checkPeerTables(const KernelMetadata &md) const;
  AbiSlot readSlot(const json &s, const KernelMetadata &md,
                   const std::string &where) const;
  void readAbi(const json &root, KernelMetadata &md) const;
  void checkAbiComplete(const KernelMetadata &md) const;
  void readGrid(const json &root, KernelMetadata &md) const;
  /// An extent object `e` (a grid tile's, a returned view's size) into `g`.
  void readExtent(const KernelMetadata &md, const json &e,
                  const std::string &where, GridExtent &g) const;
  /// One loop's tiles ("grid.tiles" or "grid.more_loops[L]").
  std::vector<GridExtent> readTiles(const KernelMetadata &md, const json &tiles,
                                    const std::string &at) const;
  void readConstraints(const json &root, KernelMetadata &md) const;
  void readSameSizes(const json &root, KernelMetadata &md) const;
  void readReturns(const json &root, KernelMetadata &md) const;
  /// Index of tensor argument `name`, or a failure at `where`.
  int tensorArg(const KernelMetadata &md, const std::string &name,
                const std::string &where) const;
};

std::string Reader::named(const json &obj, const std::string &where0,
                          std::string &where) const {
  if (!obj.is_object())
    fail(where0, "not an object");
  std::string name = str(obj, "name", where0);
  where = where0.substr(0, where0.size() - 2) + " " + inQuotes(name) + ": ";
  return name;
}

void Reader::readHeader(const json &root, KernelMetadata &md) const {
  std::string format = str(root, "format", "");
  if (format != "dslc-kernel")
    fail("", "format is '" + format + "', expected 'dslc-kernel'");
  int64_t version = integer(root, "version", "");
  if (version != kMetadataVersion)
    fail("", "version " + std::to_string(version) +
                 " is not supported: this build reads version " +
                 std::to_string(kMetadataVersion) +
                 " (compile the kernel again with this dslc)");
  md.version = static_cast<int>(version);
  md.kernel = str(root, "kernel", "");
  md.entry = strOr(root, "entry", md.kernel, "");
  md.arch = strOr(root, "arch", "", "");
  if (root.contains("source")) {
    const json &src = object(root, "source", "");
    md.sourceFile = strOr(src, "file", "", "source: ");
    int64_t line = integerOr(src, "line", 0, "source: ");
    if (line < 0)
      fail("source: ", "line " + std::to_string(line) + " is negative");
    md.sourceLine = static_cast<unsigned>(line);
    md.sourceSha256 = strOr(src, "sha256", "", "source: ");
  }
  if (root.contains("constants")) {
    const json &c = object(root, "constants", "");
    for (auto it = c.begin(); it != c.end(); ++it)
      md.constants[it.key()] = it.value().dump();
  }
  if (root.contains("tunables")) {
    const json &t = array(root, "tunables", "");
    for (size_t i = 0; i < t.size(); ++i)
      md.tunables.push_back(
          tunable(t[i], "tunables[" + std::to_string(i) + "]: "));
  }
}

void Reader::readLaunch(const json &root, KernelMetadata &md) const {
  md.numWarps = integer(root, "num_warps", "");
  if (!isValidNumWarps(md.numWarps))
    fail("", "num_warps " + std::to_string(md.numWarps) + " is outside 1.." +
                 std::to_string(kMaxNumWarps));
  int64_t threads = integerOr(root, "threads_per_cta", md.threadsPerCta(), "");
  if (threads != md.threadsPerCta())
    fail("", "threads_per_cta " + std::to_string(threads) + " is not " +
                 std::to_string(kWarpSize) + " x num_warps " +
                 std::to_string(md.numWarps));
  md.sharedBytes = integerOr(root, "shared_bytes", 0, "");
  if (md.sharedBytes < 0)
    fail("", "shared_bytes is negative");
  md.spins = boolean(root, "spins", false, "");
  md.stateBytes = integerOr(root, "state_bytes", 0, "");
  if (md.stateBytes < 0)
    fail("", "state_bytes is negative");
  md.multicast = strOr(root, "multicast", "software", "");
  if (md.multicast != "software" && md.multicast != "nvls")
    fail("", "multicast '" + md.multicast + "' is not 'software' or 'nvls'");
  if (root.contains("default_timeout_ms")) {
    md.defaultTimeoutMs = integer(root, "default_timeout_ms", "");
    if (*md.defaultTimeoutMs < 0)
      fail("", "default_timeout_ms is negative");
  }
  if (root.contains("world_size")) {
    md.worldSize = integer(root, "world_size", "");
    if (*md.worldSize < 1)
      fail("",
           "world_size " + std::to_string(*md.worldSize) + " is not positive");
  }
  md.maxTensorElements = integerOr(root, "max_tensor_elements", 0, "");
  if (md.maxTensorElements < 0)
    fail("", "max_tensor_elements is negative (0: no limit)");
  if (root.contains("rank")) {
    md.rank = integer(root, "rank", "");
    if (*md.rank < 0 || (md.worldSize && *md.rank >= *md.worldSize))
      fail("",
           "rank " + std::to_string(*md.rank) + " is outside the world size");
  }
}

void Reader::checkRoleAccess(const ArgSpec &a, const std::string &where) const {
  Access want;
  switch (a.role) {
  case Role::Input:
    want = Access::Read;
    break;
  case Role::InOut:
    want = Access::ReadWrite;
    break;
  case Role::Unused:
    want = Access::None;
    break;
  case Role::Output:
    // 'none': an output this specialization never writes (its stores sit
    // under a constexpr condition compiled out, e.g. Helion's layer_norm
    // bwd without the bias gradient); the caller gets it as allocated.
    if (a.writes() || a.access == Access::None)
      return;
    fail(where, std::string("an output's access must be 'write', "
                            "'readwrite' or 'none', not '") +
                    accessName(a.access) + "'");
  default:
    return; // pads, tables and scratch: any access
  }
  if (a.access != want)
    fail(where, std::string("role '") + roleName(a.role) + "' needs access '" +
                    accessName(want) + "', not '" + accessName(a.access) + "'");
}

void Reader::readDimOrder(const json &p, ArgSpec &a,
                          const std::string &where) const {
  if (!p.contains("dim_order"))
    return;
  const json &order = p["dim_order"];
  bool ok = order.is_array() && order.size() == size_t(a.rank);
  for (size_t s = 0; ok && s < order.size(); ++s) {
    // (a number past any rank fails the permutation test, not the cast)
    ok = order[s].is_number_unsigned() && order[s].get<uint64_t>() < 64;
    if (ok)
      a.dimOrder.push_back(order[s].get<unsigned>());
  }
  if (!ok || !isPermutation(a.dimOrder))
    fail(where, "dim_order is not a permutation of the " +
                    std::to_string(a.rank) + " dimensions");
}

void Reader::readTensor(const json &p, ArgSpec &a,
                        const std::string &where) const {
  a.rank = static_cast<int>(integer(p, "rank", where));
  if (a.rank < 1 || a.rank > 8)
    fail(where, "rank " + std::to_string(a.rank) + " is outside 1..8");
  a.symmetric = boolean(p, "symmetric", false, where);
  readDimOrder(p, a, where);
  a.implicit = boolean(p, "implicit", false, where);
  if (a.implicit && a.role != Role::SignalPad)
    fail(where, "only a signal pad can be implicit (the local pad of a peer "
                "table passed to symm_mem_sync), not role '" +
                    std::string(roleName(a.role)) + "'");
  std::string access = str(p, "access", where);
  std::optional<Access> acc = parseAccess(access);
  if (!acc)
    fail(where,
         "unknown access '" + access + "' (read, write, readwrite or none)");
  a.access = *acc;
  checkRoleAccess(a, where);
  if (a.role == Role::PeerTable) {
    if (a.dtype != DType::UInt64 || a.rank != 1)
      fail(where, "a peer table must be a uint64 tensor of rank 1");
    a.peerTableFor = str(p, "peer_table_for", where);
  } else if (p.contains("peer_table_for")) {
    fail(where, "'peer_table_for' needs role 'peer_table'");
  }
  if (a.role == Role::Scratch) {
    const json &k = object(p, "packets", where);
    a.packets.puts = integer(k, "puts", where + "packets: ");
    a.packets.tileBytes = integer(k, "tile_bytes", where + "packets: ");
    if (a.packets.puts < 1 || a.packets.tileBytes < 1)
      fail(where, "packets: puts and tile_bytes must be positive");
  }
}

ArgSpec Reader::readParam(const json &p, const std::string &where0) const {
  ArgSpec a;
  std::string where;
  a.name = named(p, where0, where);
  std::string role = str(p, "role", where);
  std::optional<Role> r = parseRole(role);
  if (!r || *r == Role::Peers)
    fail(where, "unknown role '" + role +
                    "' (input, output, inout, scratch, signal_pad, "
                    "peer_table, scalar, constexpr or unused)");
  a.role = *r;
  if (a.role == Role::Constexpr) {
    a.kind = ArgSpec::Kind::Constexpr;
    if (p.contains("value"))
      a.value = p.at("value").dump();
    return a;
  }
  std::string dtype = str(p, "dtype", where);
  std::optional<DType> t = parseDType(dtype);
  if (!t)
    fail(where, "unknown dtype '" + dtype + "'");
  a.dtype = *t;
  if (a.role == Role::Scalar) {
    a.kind = ArgSpec::Kind::Scalar;
    if (a.dtype != DType::Int64 && a.dtype != DType::Float32)
      fail(where, "a scalar is int64 or float32 (the ABI passes i64 and "
                  "f32), not " +
                      dtype);
    if (p.contains("value")) { // its default
      const json &v = p.at("value");
      if (!v.is_number() || (a.dtype == DType::Int64 && !v.is_number_integer()))
        fail(where, std::string("a scalar's default 'value' must be ") +
                        (a.dtype == DType::Int64 ? "an integer" : "a number"));
      a.value = v.dump();
    }
    return a;
  }
  readTensor(p, a, where);
  return a;
}

ArgSpec Reader::readOutput(const json &o, const std::string &where0) const {
  std::string where;
  std::string name = named(o, where0, where);
  std::string dtype = str(o, "dtype", where);
  std::optional<DType> t = parseDType(dtype);
  if (!t)
    fail(where, "unknown dtype '" + dtype + "'");
  ArgSpec a = ArgSpec::output(name, *t, 0, strOr(o, "like", "", where));
  // An output's access defaults to "write".
  json tensor = o;
  if (!tensor.contains("access"))
    tensor["access"] = "write";
  readTensor(tensor, a, where);
  a.zeroed = boolean(o, "zeroed", false, where);
  return a;
}

void Reader::readArgs(const json &root, KernelMetadata &md) const {
  std::set<std::string> names;
  auto add = [&](ArgSpec a, const std::string &where) {
    if (!names.insert(a.name).second)
      fail(where, "duplicate argument name '" + a.name + "'");
    (a.kind == ArgSpec::Kind::Constexpr ? md.constexprs : md.args)
        .push_back(std::move(a));
  };
  const json &params = array(root, "params", "");
  for (size_t i = 0; i < params.size(); ++i) {
    std::string where = "params[" + std::to_string(i) + "]: ";
    add(readParam(params[i], where), where);
  }
  if (!root.contains("outputs"))
    return;
  const json &outs = array(root, "outputs", "");
  for (size_t i = 0; i < outs.size(); ++i) {
    std::string where = "outputs[" + std::to_string(i) + "]: ";
    add(readOutput(outs[i], where), where);
  }
}

int Reader::tensorArg(const KernelMetadata &md, const std::string &name,
                      const std::string &where) const {
  int idx = md.findArg(name);
  if (idx < 0 || !md.args[idx].isTensor())
    fail(where, inQuotes(name) + " is not a tensor argument");
  return idx;
}

void Reader::checkPeerTables(const KernelMetadata &md) const {
  for (size_t i = 0; i < md.args.size(); ++i) {
    const ArgSpec &a = md.args[i];
    if (a.role == Role::PeerTable) {
      int target = md.findArg(a.peerTableFor);
      if (target < 0 || static_cast<size_t>(target) == i ||
          !md.args[target].isTensor())
        fail("params " + inQuotes(a.name) + ": ",
             "peer_table_for '" + a.peerTableFor +
                 "' names no other tensor argument");
    }
    if (a.isOutput && !a.like.empty())
      tensorArg(md, a.like, "outputs " + inQuotes(a.name) + ": like: ");
    if (a.implicit &&
        std::none_of(md.args.begin(), md.args.end(), [&](const ArgSpec &t) {
          return t.role == Role::PeerTable && t.peerTableFor == a.name;
        }))
      fail("params " + inQuotes(a.name) + ": ",
           "an implicit signal pad must be listed by a peer table "
           "(peer_table_for), whose caller binds the pad with it");
  }
}

AbiSlot Reader::readSlot(const json &s, const KernelMetadata &md,
                         const std::string &where0) const {
  AbiSlot slot;
  std::string where;
  slot.name = named(s, where0, where);
  std::string type = str(s, "type", where);
  std::optional<SlotType> t = parseSlotType(type);
  if (!t)
    fail(where, "unknown type '" + type + "' (ptr, i64 or f32)");
  slot.type = *t;
  std::string kind = str(s, "kind", where);
  std::optional<SlotKind> k = parseSlotKind(kind);
  if (!k)
    fail(where, "unknown kind '" + kind +
                    "' (data, size, peers, scalar, timeout, error or state)");
  slot.kind = *k;
  slot.param = strOr(s, "param", "", where);
  slot.dim = static_cast<int>(integerOr(s, "dim", -1, where));
  Expected<bool> shape = checkSlotShape(slot);
  if (!shape)
    fail(where, shape.error());
  if (isHidden(slot.kind))
    return slot;
  slot.arg = md.findArg(slot.param);
  if (slot.arg < 0)
    fail(where, "names no parameter or output ('" + slot.param + "')");
  const ArgSpec &arg = md.args[slot.arg];
  if (slot.kind == SlotKind::Scalar ? arg.kind != ArgSpec::Kind::Scalar
                                    : !arg.isTensor())
    fail(where, "a slot of kind '" + kind + "' for " + argKindName(arg) + " '" +
                    arg.name + "'");
  if (slot.kind == SlotKind::Size && slot.dim >= arg.rank)
    fail(where, "dimension " + std::to_string(slot.dim) + " but '" + arg.name +
                    "' has rank " + std::to_string(arg.rank));
  if (slot.kind == SlotKind::Peers && !arg.symmetric)
    fail(where, "'" + arg.name + "' is not a symmetric tensor");
  if (slot.kind == SlotKind::Scalar &&
      slot.type != (arg.isIntScalar() ? SlotType::I64 : SlotType::F32))
    fail(where, "type is '" + type + "', expected '" +
                    (arg.isIntScalar() ? "i64" : "f32") + "'");
  if (slot.name != canonicalSlotName(slot))
    fail(where, "a slot of kind '" + kind + "' must be named '" +
                    canonicalSlotName(slot) + "'");
  return slot;
}

void Reader::readAbi(const json &root, KernelMetadata &md) const {
  const json &abi = array(root, "abi", "");
  std::set<std::tuple<int, int, int>> seen; // kind, arg, dim
  for (size_t i = 0; i < abi.size(); ++i) {
    std::string where = "abi[" + std::to_string(i) + "]: ";
    AbiSlot slot = readSlot(abi[i], md, where);
    if (!seen.insert({static_cast<int>(slot.kind), slot.arg, slot.dim}).second)
      fail(where, "duplicate slot '" + slot.name + "'");
    md.abi.push_back(std::move(slot));
  }
  checkAbiComplete(md);
}

void Reader::checkAbiComplete(const KernelMetadata &md) const {
  auto has = [&](SlotKind kind, int arg, int dim) {
    for (const AbiSlot &s : md.abi)
      if (s.kind == kind && s.arg == arg && s.dim == dim)
        return true;
    return false;
  };
  for (SlotKind h : {SlotKind::Timeout, SlotKind::Error, SlotKind::State})
    if (!has(h, -1, -1))
      fail("", std::string("abi lacks the hidden slot '") + hiddenSlotName(h) +
                   "'");
  for (size_t i = 0; i < md.args.size(); ++i) {
    const ArgSpec &a = md.args[i];
    int arg = static_cast<int>(i);
    if (!a.isTensor()) {
      if (!has(SlotKind::Scalar, arg, -1))
        fail("", "abi has no slot for the value of '" + a.name +
                     "' (expected '" + a.name + "')");
      continue;
    }
    if (!has(SlotKind::Data, arg, -1))
      fail("", "abi has no slot for the address of '" + a.name +
                   "' (expected '" + a.name + "')");
    for (int d = 0; d < a.rank; ++d)
      if (!has(SlotKind::Size, arg, d))
        fail("", "abi has no slot for size " + std::to_string(d) + " of '" +
                     a.name + "' (expected '" + a.name + ".size" +
                     std::to_string(d) + "')");
    if (a.symmetric && !has(SlotKind::Peers, arg, -1))
      fail("", "abi has no '" + a.name + ".peers' slot for symmetric tensor '" +
                   a.name + "'");
  }
}

void Reader::readGrid(const json &root, KernelMetadata &md) const {
  const json &grid = object(root, "grid", "");
  if (grid.contains("max_ctas")) {
    md.maxCtas = integer(grid, "max_ctas", "grid: ");
    if (*md.maxCtas < 1)
      fail("", "grid.max_ctas must be positive");
  }
  md.grid = readTiles(md, array(grid, "tiles", "grid: "), "grid.tiles");
  if (grid.contains("more_loops")) {
    const json &loops = array(grid, "more_loops", "grid: ");
    for (size_t l = 0; l < loops.size(); ++l) {
      std::string where = "grid.more_loops[" + std::to_string(l) + "]";
      if (!loops[l].is_array())
        fail(where + ": ", "not an array");
      md.moreGrids.push_back(readTiles(md, loops[l], where));
    }
  }
}

void Reader::readExtent(const KernelMetadata &md, const json &e,
                        const std::string &where, GridExtent &g) const {
  if (!e.is_object())
    fail(where, "extent: not an object");
  if (e.contains("param")) {
    g.param = str(e, "param", where);
    int64_t dim = integer(e, "dim", where);
    int idx = tensorArg(md, *g.param, where);
    if (dim < 0 || dim >= md.args[idx].rank)
      fail(where, "dim " + std::to_string(dim) + " outside the rank " +
                      std::to_string(md.args[idx].rank) + " of '" + *g.param +
                      "'");
    g.dim = static_cast<unsigned>(dim);
  } else if (e.contains("scalar")) {
    g.scalar = str(e, "scalar", where);
    int idx = md.findArg(*g.scalar);
    if (idx < 0 || !md.args[idx].isIntScalar())
      fail(where, "'" + *g.scalar + "' is not an int argument");
  } else if (e.contains("const")) {
    if (e.contains("add") || e.contains("div"))
      fail(where, "'add' and 'div' apply to 'param' and 'scalar' extents, "
                  "not to a constant");
    g.constant = integer(e, "const", where);
    if (*g.constant < 0)
      fail(where, "negative constant extent");
  } else {
    fail(where, "extent needs 'param', 'scalar' or 'const'");
  }
  if (!g.constant) {
    g.add = integerOr(e, "add", 0, where + "extent: ");
    g.div = integerOr(e, "div", 1, where + "extent: ");
    if (g.div < 1)
      fail(where + "extent: ",
           "div " + std::to_string(g.div) + " is not positive");
  }
}

std::vector<GridExtent> Reader::readTiles(const KernelMetadata &md,
                                          const json &tiles,
                                          const std::string &at) const {
  std::vector<GridExtent> out;
  for (size_t i = 0; i < tiles.size(); ++i) {
    std::string where = at + "[" + std::to_string(i) + "]: ";
    const json &t = tiles[i];
    if (!t.is_object())
      fail(where, "not an object");
    GridExtent g;
    g.block = integer(t, "block", where);
    if (g.block < 1)
      fail(where, "block " + std::to_string(g.block) + " is not positive");
    readExtent(md, object(t, "extent", where), where, g);
    out.push_back(g);
  }
  return out;
}

void Reader::readConstraints(const json &root, KernelMetadata &md) const {
  if (!root.contains("constraints"))
    return;
  const json &cs = array(root, "constraints", "");
  static const std::set<std::string> ops = {"==", "!=", "<", "<=", ">", ">="};
  for (size_t i = 0; i < cs.size(); ++i) {
    std::string where = "constraints[" + std::to_string(i) + "]: ";
    const json &c = cs[i];
    if (!c.is_object())
      fail(where, "not an object");
    Constraint con;
    con.param = str(c, "param", where);
    int64_t dim = integer(c, "dim", where);
    con.op = str(c, "op", where);
    if (!ops.count(con.op))
      fail(where, "unknown op '" + con.op + "'");
    int idx = tensorArg(md, con.param, where);
    if (dim < 0 || dim >= md.args[idx].rank)
      fail(where, "dim " + std::to_string(dim) + " outside the rank " +
                      std::to_string(md.args[idx].rank) + " of '" + con.param +
                      "'");
    con.dim = static_cast<unsigned>(dim);
    const json &v = need(c, "value", where);
    if (v.is_string() && v.get<std::string>() == "num_tiles")
      con.value = NumTiles{};
    else if (v.is_number_integer())
      con.value = v.get<int64_t>();
    else
      fail(where, "value must be an integer or \"num_tiles\"");
    md.constraints.push_back(con);
  }
}

void Reader::readSameSizes(const json &root, KernelMetadata &md) const {
  if (!root.contains("same_sizes"))
    return;
  const json &ss = array(root, "same_sizes", "");
  for (size_t i = 0; i < ss.size(); ++i) {
    std::string where = "same_sizes[" + std::to_string(i) + "]: ";
    const json &e = ss[i];
    if (!e.is_object())
      fail(where, "not an object");
    SameSize s;
    auto dimOf = [&](const std::string &param, const char *key) {
      int idx = tensorArg(md, param, where);
      int64_t d = integer(e, key, where);
      if (d < 0 || d >= md.args[idx].rank)
        fail(where,
             std::string(key) + " " + std::to_string(d) + " outside the rank " +
                 std::to_string(md.args[idx].rank) + " of '" + param + "'");
      return static_cast<unsigned>(d);
    };
    s.param = str(e, "param", where);
    s.dim = dimOf(s.param, "dim");
    s.as = str(e, "as", where);
    s.asDim = dimOf(s.as, "as_dim");
    s.where = strOr(e, "where", "", where);
    s.asserted = boolean(e, "asserted", false, where);
    std::string relation = strOr(e, "relation", "==", where);
    std::optional<SameSize::Relation> r = SameSize::parseRelation(relation);
    if (!r)
      fail(where, "relation '" + relation + "' is not ==, >= or >");
    s.relation = *r;
    md.sameSizes.push_back(s);
  }
}

void Reader::readReturns(const json &root, KernelMetadata &md) const {
  if (!root.contains("returns"))
    return;
  const json &r = object(root, "returns", "");
  Returns out;
  out.tuple = boolean(r, "tuple", false, "returns: ");
  const json &values = array(r, "values", "returns: ");
  if (values.size() != 1 && !out.tuple)
    fail("returns: ", std::to_string(values.size()) +
                          " values, but 'tuple' is false (one value)");
  for (size_t i = 0; i < values.size(); ++i) {
    std::string where = "returns.values[" + std::to_string(i) + "]: ";
    if (values[i].is_null()) {
      out.values.push_back(std::nullopt);
      continue;
    }
    if (!values[i].is_string())
      fail(where, "not a tensor argument's name or null");
    std::string name = values[i].get<std::string>();
    tensorArg(md, name, where);
    out.values.push_back(name);
  }
  if (r.contains("views")) {
    const json &views = array(r, "views", "returns: ");
    if (views.size() != values.size())
      fail("returns: ", std::to_string(views.size()) + " views for " +
                            std::to_string(values.size()) + " values");
    for (size_t i = 0; i < views.size(); ++i) {
      std::string where = "returns.views[" + std::to_string(i) + "]: ";
      std::vector<ViewDim> dims;
      if (!views[i].is_null()) {
        if (!views[i].is_array() || views[i].empty() || views[i].size() > 8)
          fail(where, "not null or an array of 1 to 8 sizes");
        int inferred = 0;
        for (const json &d : views[i]) {
          ViewDim dim;
          if (d.is_object() && d.contains("infer")) {
            ++inferred;
          } else {
            dim.size.emplace();
            readExtent(md, d, where, *dim.size);
          }
          dims.push_back(std::move(dim));
        }
        if (inferred > 1)
          fail(where, "more than one size to infer");
        if (!out.values[i])
          fail(where, "a view of no tensor (its value is null)");
      }
      out.views.push_back(std::move(dims));
    }
  }
  md.returns = std::move(out);
}

KernelMetadata Reader::read(const std::string &text,
                            const std::string &origin) {
  json root = detail::parseObject(text, *this);
  KernelMetadata md;
  md.origin = origin;
  readHeader(root, md);
  readLaunch(root, md);
  readArgs(root, md);
  checkPeerTables(md);
  readAbi(root, md);
  readGrid(root, md);
  readConstraints(root, md);
  readSameSizes(root, md);
  readReturns(root, md);
  return md;
}

} // namespace

Expected<KernelMetadata> readMetadata(const std::string &text,
                                      const std::string &origin) {
  try {
    return Reader(origin).read(text, origin);
  } catch (const detail::ReadError &e) {
    return Failure{e.message};
  } catch (const std::exception &e) {
    // nlohmann's own exceptions (a value of the wrong type somewhere).
    return Failure{"metadata " + origin + ": " + e.what()};
  }
}

} // namespace dslc::contract
