//===- Metadata.cpp - dslc kernel metadata (*.cubin.json) -----------------===//
#include "runtime/Metadata.h"

#include "runtime/Error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace dslc::rt {

using nlohmann::json;

const char *argKindName(ArgSpec::Kind kind) {
  switch (kind) {
  case ArgSpec::Kind::Tensor:
    return "tensor";
  case ArgSpec::Kind::Tuple:
    return "tuple";
  case ArgSpec::Kind::Int:
    return "int";
  case ArgSpec::Kind::Float:
    return "float";
  }
  return "?";
}

const char *accessName(Access access) {
  switch (access) {
  case Access::Unknown:
    return "unknown";
  case Access::None:
    return "none";
  case Access::Read:
    return "read";
  case Access::Write:
    return "write";
  case Access::ReadWrite:
    return "readwrite";
  }
  return "?";
}

int64_t Extent::apply(int64_t size) const {
  if (kind == Kind::Const)
    return value;
  int64_t v = (size + add) / div; // div >= 1 (checked by the parser)
  if (size + add < 0)
    v = 0;
  return v;
}

int64_t multiplyTiles(const KernelMetadata &md,
                      const std::vector<int64_t> &extents) {
  int64_t tiles = 1;
  for (size_t i = 0; i < md.tiles.size() && i < extents.size(); ++i) {
    int64_t block = md.tiles[i].block;
    int64_t n = extents[i] / block + (extents[i] % block != 0 ? 1 : 0);
    if (n != 0 && tiles > std::numeric_limits<int64_t>::max() / n)
      raise(ErrorCode::InvalidArgument,
            fmt::format("kernel {}: grid tile count overflows", md.kernel));
    tiles *= n;
  }
  return tiles;
}

int KernelMetadata::findArg(const std::string &name) const {
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].name == name)
      return static_cast<int>(i);
  return -1;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    raise(ErrorCode::Io, fmt::format("cannot open {}", path));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad())
    raise(ErrorCode::Io, fmt::format("cannot read {}", path));
  return ss.str();
}

namespace {

class Parser {
public:
  explicit Parser(const std::string &origin) : origin(origin) {}

  [[noreturn]] void fail(const std::string &what) const {
    raise(ErrorCode::Metadata, fmt::format("metadata {}: {}", origin, what));
  }

  const json &need(const json &obj, const char *key, const std::string &where) {
    auto it = obj.find(key);
    if (it == obj.end())
      fail(fmt::format("{}missing field '{}'", where, key));
    return *it;
  }

  std::string str(const json &obj, const char *key, const std::string &where) {
    const json &v = need(obj, key, where);
    if (!v.is_string())
      fail(fmt::format("{}field '{}' must be a string", where, key));
    return v.get<std::string>();
  }

  int64_t integer(const json &obj, const char *key, const std::string &where) {
    const json &v = need(obj, key, where);
    if (!v.is_number_integer())
      fail(fmt::format("{}field '{}' must be an integer", where, key));
    return v.get<int64_t>();
  }

  int64_t integerOr(const json &obj, const char *key, int64_t dflt,
                    const std::string &where) {
    if (!obj.contains(key))
      return dflt;
    return integer(obj, key, where);
  }

  DType dtype(const json &obj, const std::string &where) {
    std::string name = str(obj, "dtype", where);
    auto t = parseDType(name);
    if (!t)
      fail(fmt::format("{}unknown dtype '{}'", where, name));
    return *t;
  }

  Access access(const json &obj, const std::string &where) {
    std::string name = str(obj, "access", where);
    if (name == "read")
      return Access::Read;
    if (name == "write")
      return Access::Write;
    if (name == "readwrite")
      return Access::ReadWrite;
    if (name == "none")
      return Access::None;
    fail(fmt::format("{}unknown access '{}' (read, write, readwrite or none)",
                     where, name));
  }

  KernelMetadata parse(const std::string &text);

private:
  void parseArgs(const json &root, KernelMetadata &md);
  void checkPeerTables(const KernelMetadata &md);
  void parseAbi(const json &root, KernelMetadata &md);
  void parseGrid(const json &root, KernelMetadata &md);
  void parseConstraints(const json &root, KernelMetadata &md);
  std::string origin;
};

KernelMetadata Parser::parse(const std::string &text) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error &e) {
    fail(fmt::format("not valid JSON: {}", e.what()));
  }
  if (!root.is_object())
    fail("top level is not an object");
  KernelMetadata md;
  md.origin = origin;
  std::string format = str(root, "format", "");
  if (format != "dslc-kernel")
    fail(fmt::format("format is '{}', expected 'dslc-kernel'", format));
  md.version = static_cast<int>(integer(root, "version", ""));
  if (md.version < 1 || md.version > 1)
    fail(fmt::format("version {} is not supported (this runtime reads "
                     "version 1)",
                     md.version));
  md.kernel = str(root, "kernel", "");
  md.entry = root.contains("entry") ? str(root, "entry", "") : md.kernel;
  md.arch = root.contains("arch") ? str(root, "arch", "") : "";
  if (root.contains("source") && root["source"].is_object()) {
    const json &src = root["source"];
    if (src.contains("file") && src["file"].is_string())
      md.sourceFile = src["file"].get<std::string>();
    if (src.contains("line") && src["line"].is_number_integer())
      md.sourceLine = src["line"].get<int>();
  }
  md.numWarps = static_cast<int>(integerOr(root, "num_warps", 0, ""));
  md.threadsPerCta =
      static_cast<int>(integerOr(root, "threads_per_cta", md.numWarps * 32, ""));
  if (md.threadsPerCta < 1 || md.threadsPerCta > 1024)
    fail(fmt::format("threads_per_cta {} is outside 1..1024 (give "
                     "threads_per_cta or num_warps)",
                     md.threadsPerCta));
  md.sharedBytes = static_cast<int>(integerOr(root, "shared_bytes", 0, ""));
  if (root.contains("spins")) {
    if (!root["spins"].is_boolean())
      fail("field 'spins' must be a boolean");
    md.spins = root["spins"].get<bool>();
  }
  md.stateBytes = integerOr(root, "state_bytes", 0, "");
  if (md.stateBytes < 0)
    fail("state_bytes is negative");
  if (root.contains("world_size")) {
    md.worldSize = static_cast<int>(integer(root, "world_size", ""));
    if (*md.worldSize < 1)
      fail(fmt::format("world_size {} is not positive", *md.worldSize));
  }
  if (root.contains("rank")) {
    md.rank = static_cast<int>(integer(root, "rank", ""));
    if (*md.rank < 0 || (md.worldSize && *md.rank >= *md.worldSize))
      fail(fmt::format("rank {} is outside the world size", *md.rank));
  }
  parseArgs(root, md);
  checkPeerTables(md);
  parseAbi(root, md);
  parseGrid(root, md);
  parseConstraints(root, md);
  return md;
}

void Parser::parseArgs(const json &root, KernelMetadata &md) {
  std::set<std::string> names;
  auto add = [&](ArgSpec spec, const std::string &where) {
    if (!names.insert(spec.name).second)
      fail(fmt::format("{}duplicate argument name '{}'", where, spec.name));
    md.args.push_back(std::move(spec));
  };
  const json &params = need(root, "params", "");
  if (!params.is_array())
    fail("field 'params' must be an array");
  for (size_t i = 0; i < params.size(); ++i) {
    const json &p = params[i];
    std::string where = fmt::format("params[{}]: ", i);
    if (!p.is_object())
      fail(where + "not an object");
    ArgSpec spec;
    spec.name = str(p, "name", where);
    where = fmt::format("params[{}] '{}': ", i, spec.name);
    std::string kind = str(p, "kind", where);
    if (kind == "constexpr")
      continue;
    if (kind == "tensor" || kind == "tuple") {
      spec.kind = kind == "tensor" ? ArgSpec::Kind::Tensor : ArgSpec::Kind::Tuple;
      spec.dtype = dtype(p, where);
      spec.rank = static_cast<int>(integer(p, "rank", where));
      if (spec.rank < 0 || spec.rank > 8)
        fail(fmt::format("{}rank {} is outside 0..8", where, spec.rank));
      if (p.contains("symmetric")) {
        if (!p["symmetric"].is_boolean())
          fail(where + "field 'symmetric' must be a boolean");
        spec.symmetric = p["symmetric"].get<bool>();
      }
      if (p.contains("access"))
        spec.access = access(p, where);
      if (p.contains("peer_table_for")) {
        if (kind != "tensor" || spec.dtype != DType::UInt64 || spec.rank != 1)
          fail(where + "'peer_table_for' needs a uint64 tensor of rank 1");
        spec.peerTableFor = str(p, "peer_table_for", where);
      }
    } else if (kind == "int") {
      spec.kind = ArgSpec::Kind::Int;
    } else if (kind == "float") {
      spec.kind = ArgSpec::Kind::Float;
    } else {
      fail(fmt::format("{}unknown kind '{}'", where, kind));
    }
    add(std::move(spec), where);
  }
  if (!root.contains("outputs"))
    return;
  const json &outs = root["outputs"];
  if (!outs.is_array())
    fail("field 'outputs' must be an array");
  for (size_t i = 0; i < outs.size(); ++i) {
    const json &o = outs[i];
    std::string where = fmt::format("outputs[{}]: ", i);
    if (!o.is_object())
      fail(where + "not an object");
    ArgSpec spec;
    spec.name = str(o, "name", where);
    where = fmt::format("outputs[{}] '{}': ", i, spec.name);
    spec.kind = ArgSpec::Kind::Tensor;
    spec.isOutput = true;
    spec.dtype = dtype(o, where);
    spec.rank = static_cast<int>(integer(o, "rank", where));
    if (spec.rank < 0 || spec.rank > 8)
      fail(fmt::format("{}rank {} is outside 0..8", where, spec.rank));
    if (o.contains("like"))
      spec.like = str(o, "like", where);
    spec.access = Access::Write;
    if (o.contains("access")) {
      spec.access = access(o, where);
      if (!spec.writes())
        fail(fmt::format("{}an output's access must be 'write' or "
                         "'readwrite', not '{}'",
                         where, accessName(spec.access)));
    }
    add(std::move(spec), where);
  }
}

void Parser::checkPeerTables(const KernelMetadata &md) {
  // Peer tables name a tensor argument other than themselves.
  for (size_t i = 0; i < md.args.size(); ++i) {
    const ArgSpec &a = md.args[i];
    if (a.peerTableFor.empty())
      continue;
    int target = md.findArg(a.peerTableFor);
    if (target < 0 || static_cast<size_t>(target) == i ||
        md.args[target].kind != ArgSpec::Kind::Tensor)
      fail(fmt::format("params '{}': peer_table_for '{}' names no other "
                       "tensor argument",
                       a.name, a.peerTableFor));
  }
}

void Parser::parseAbi(const json &root, KernelMetadata &md) {
  const json &abi = need(root, "abi", "");
  if (!abi.is_array())
    fail("field 'abi' must be an array");
  std::set<std::string> seen;
  for (size_t i = 0; i < abi.size(); ++i) {
    const json &s = abi[i];
    std::string where = fmt::format("abi[{}]: ", i);
    if (!s.is_object())
      fail(where + "not an object");
    AbiSlot slot;
    slot.name = str(s, "name", where);
    where = fmt::format("abi[{}] '{}': ", i, slot.name);
    std::string type = str(s, "type", where);
    if (type == "ptr")
      slot.type = SlotType::Ptr;
    else if (type == "i64")
      slot.type = SlotType::I64;
    else if (type == "f32")
      slot.type = SlotType::F32;
    else
      fail(fmt::format("{}unknown type '{}' (ptr, i64 or f32)", where, type));
    if (!seen.insert(slot.name).second)
      fail(where + "duplicate slot");
    auto expectType = [&](SlotType want, const char *wantName) {
      if (slot.type != want)
        fail(fmt::format("{}type is '{}', expected '{}'", where, type,
                         wantName));
    };
    if (slot.name == "__dslc_timeout_ns") {
      slot.role = AbiSlot::Role::Timeout;
      expectType(SlotType::I64, "i64");
    } else if (slot.name == "__dslc_error") {
      slot.role = AbiSlot::Role::ErrorRecord;
      expectType(SlotType::Ptr, "ptr");
    } else if (slot.name == "__dslc_state") {
      slot.role = AbiSlot::Role::State;
      expectType(SlotType::Ptr, "ptr");
    } else {
      std::string base = slot.name, suffix;
      int idx = md.findArg(slot.name);
      if (idx < 0) {
        size_t dot = slot.name.rfind('.');
        if (dot != std::string::npos) {
          base = slot.name.substr(0, dot);
          suffix = slot.name.substr(dot + 1);
          idx = md.findArg(base);
        }
      }
      if (idx < 0)
        fail(where + "names no parameter or output");
      const ArgSpec &arg = md.args[idx];
      slot.arg = idx;
      bool isTensor = arg.kind == ArgSpec::Kind::Tensor;
      bool isTuple = arg.kind == ArgSpec::Kind::Tuple;
      if (suffix.empty()) {
        if (isTensor) {
          slot.role = AbiSlot::Role::Data;
          expectType(SlotType::Ptr, "ptr");
        } else if (isTuple) {
          fail(where + "a tuple is passed as '<name>.table'");
        } else {
          slot.role = AbiSlot::Role::Scalar;
          expectType(arg.kind == ArgSpec::Kind::Int ? SlotType::I64
                                                    : SlotType::F32,
                     arg.kind == ArgSpec::Kind::Int ? "i64" : "f32");
        }
      } else if (suffix.rfind("size", 0) == 0 && suffix.size() > 4 &&
                 suffix.find_first_not_of("0123456789", 4) ==
                     std::string::npos) {
        if (!isTensor && !isTuple)
          fail(where + "a size slot of a scalar");
        slot.role = AbiSlot::Role::Size;
        slot.dim = std::stoi(suffix.substr(4));
        if (slot.dim >= arg.rank)
          fail(fmt::format("{}dimension {} but '{}' has rank {}", where,
                           slot.dim, arg.name, arg.rank));
        expectType(SlotType::I64, "i64");
      } else if (suffix == "peers") {
        if (!isTensor || !arg.symmetric)
          fail(fmt::format("{}'{}' is not a symmetric tensor", where,
                           arg.name));
        slot.role = AbiSlot::Role::Peers;
        expectType(SlotType::Ptr, "ptr");
      } else if (suffix == "table") {
        if (!isTuple)
          fail(fmt::format("{}'{}' is not a tuple", where, arg.name));
        slot.role = AbiSlot::Role::Table;
        expectType(SlotType::Ptr, "ptr");
      } else {
        fail(fmt::format("{}unknown slot suffix '{}'", where, suffix));
      }
    }
    md.abi.push_back(std::move(slot));
  }
  for (const char *hidden : {"__dslc_timeout_ns", "__dslc_error", "__dslc_state"})
    if (!seen.count(hidden))
      fail(fmt::format("abi lacks the hidden slot '{}'", hidden));
  for (const ArgSpec &arg : md.args) {
    const char *need = nullptr;
    std::string slot;
    if (arg.kind == ArgSpec::Kind::Tuple) {
      slot = arg.name + ".table";
      need = "table";
    } else {
      slot = arg.name;
      need = "value";
    }
    if (!seen.count(slot))
      fail(fmt::format("abi has no slot for the {} of '{}' (expected '{}')",
                       need, arg.name, slot));
    if (arg.symmetric && !seen.count(arg.name + ".peers"))
      fail(fmt::format("abi has no '{}.peers' slot for symmetric tensor '{}'",
                       arg.name, arg.name));
  }
}

void Parser::parseGrid(const json &root, KernelMetadata &md) {
  if (!root.contains("grid"))
    fail("missing field 'grid'");
  const json &grid = root["grid"];
  if (!grid.is_object())
    fail("field 'grid' must be an object");
  if (grid.contains("max_ctas")) {
    md.maxCtas = integer(grid, "max_ctas", "grid: ");
    if (*md.maxCtas < 1)
      fail("grid.max_ctas must be positive");
  }
  const json &tiles = need(grid, "tiles", "grid: ");
  if (!tiles.is_array())
    fail("grid.tiles must be an array");
  for (size_t i = 0; i < tiles.size(); ++i) {
    std::string where = fmt::format("grid.tiles[{}]: ", i);
    const json &t = tiles[i];
    if (!t.is_object())
      fail(where + "not an object");
    GridTile tile;
    tile.block = integer(t, "block", where);
    if (tile.block < 1)
      fail(fmt::format("{}block {} is not positive", where, tile.block));
    const json &e = need(t, "extent", where);
    if (!e.is_object())
      fail(where + "extent must be an object");
    if (e.contains("param")) {
      tile.extent.kind = Extent::Kind::ParamDim;
      tile.extent.name = str(e, "param", where);
      tile.extent.dim = static_cast<int>(integer(e, "dim", where));
      int idx = md.findArg(tile.extent.name);
      if (idx < 0 || (md.args[idx].kind != ArgSpec::Kind::Tensor &&
                      md.args[idx].kind != ArgSpec::Kind::Tuple))
        fail(fmt::format("{}'{}' is not a tensor argument", where,
                         tile.extent.name));
      if (tile.extent.dim < 0 || tile.extent.dim >= md.args[idx].rank)
        fail(fmt::format("{}dim {} outside the rank {} of '{}'", where,
                         tile.extent.dim, md.args[idx].rank,
                         tile.extent.name));
    } else if (e.contains("scalar")) {
      tile.extent.kind = Extent::Kind::Scalar;
      tile.extent.name = str(e, "scalar", where);
      int idx = md.findArg(tile.extent.name);
      if (idx < 0 || md.args[idx].kind != ArgSpec::Kind::Int)
        fail(fmt::format("{}'{}' is not an int argument", where,
                         tile.extent.name));
    } else if (e.contains("const")) {
      if (e.contains("add") || e.contains("div"))
        fail(where + "'add' and 'div' apply to 'param' and 'scalar' extents, "
                     "not to a constant");
      tile.extent.kind = Extent::Kind::Const;
      tile.extent.value = integer(e, "const", where);
      if (tile.extent.value < 0)
        fail(where + "negative constant extent");
    } else {
      fail(where + "extent needs 'param', 'scalar' or 'const'");
    }
    if (tile.extent.kind != Extent::Kind::Const) {
      tile.extent.add = integerOr(e, "add", 0, where + "extent: ");
      tile.extent.div = integerOr(e, "div", 1, where + "extent: ");
      if (tile.extent.div < 1)
        fail(fmt::format("{}extent: div {} is not positive", where,
                         tile.extent.div));
    }
    md.tiles.push_back(tile);
  }
}

void Parser::parseConstraints(const json &root, KernelMetadata &md) {
  if (!root.contains("constraints"))
    return;
  const json &cs = root["constraints"];
  if (!cs.is_array())
    fail("field 'constraints' must be an array");
  static const std::set<std::string> ops = {"==", "!=", "<", "<=", ">", ">="};
  for (size_t i = 0; i < cs.size(); ++i) {
    std::string where = fmt::format("constraints[{}]: ", i);
    const json &c = cs[i];
    if (!c.is_object())
      fail(where + "not an object");
    Constraint con;
    con.param = str(c, "param", where);
    con.dim = static_cast<int>(integer(c, "dim", where));
    con.op = str(c, "op", where);
    if (!ops.count(con.op))
      fail(fmt::format("{}unknown op '{}'", where, con.op));
    int idx = md.findArg(con.param);
    if (idx < 0 || (md.args[idx].kind != ArgSpec::Kind::Tensor &&
                    md.args[idx].kind != ArgSpec::Kind::Tuple))
      fail(fmt::format("{}'{}' is not a tensor argument", where, con.param));
    if (con.dim < 0 || con.dim >= md.args[idx].rank)
      fail(fmt::format("{}dim {} outside the rank {} of '{}'", where, con.dim,
                       md.args[idx].rank, con.param));
    const json &v = need(c, "value", where);
    if (v.is_string() && v.get<std::string>() == "num_tiles")
      con.numTiles = true;
    else if (v.is_number_integer())
      con.value = v.get<int64_t>();
    else
      fail(where + "value must be an integer or \"num_tiles\"");
    md.constraints.push_back(con);
  }
}

} // namespace

KernelMetadata parseMetadata(const std::string &text,
                             const std::string &origin) {
  return Parser(origin).parse(text);
}

KernelMetadata loadMetadataFile(const std::string &path) {
  return parseMetadata(readFile(path), path);
}

} // namespace dslc::rt
