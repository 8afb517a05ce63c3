//===- MetadataWriter.cpp - Kernel metadata as JSON -----------------------===//
#include "contract/JsonSupport.h"
#include "contract/MetadataJson.h"

namespace dslc::contract {

using detail::json;

namespace {

/// A constexpr's value: its JSON literal, or the text as a string when it
/// is not one.
json literal(const std::string &text) {
  json v = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return v.is_discarded() ? json(text) : v;
}

/// An extent: {"const": N} or {"param", "dim" | "scalar", "add", "div"}.
json extentToJson(const GridExtent &g) {
  json extent;
  if (g.constant) {
    extent["const"] = *g.constant;
  } else {
    if (g.param) {
      extent["param"] = *g.param;
      extent["dim"] = g.dim;
    } else {
      extent["scalar"] = g.scalar.value_or("");
    }
    if (g.add != 0)
      extent["add"] = g.add;
    if (g.div != 1)
      extent["div"] = g.div;
  }
  return extent;
}

json tilesToJson(const std::vector<GridExtent> &loop) {
  json tiles = json::array();
  for (const GridExtent &g : loop)
    tiles.push_back({{"extent", extentToJson(g)}, {"block", g.block}});
  return tiles;
}

json gridToJson(const KernelMetadata &md) {
  json grid = {{"tiles", tilesToJson(md.grid)}};
  if (!md.moreGrids.empty()) {
    json loops = json::array();
    for (const std::vector<GridExtent> &loop : md.moreGrids)
      loops.push_back(tilesToJson(loop));
    grid["more_loops"] = loops;
  }
  if (md.maxCtas)
    grid["max_ctas"] = *md.maxCtas;
  return grid;
}

json argToJson(const ArgSpec &a) {
  json j = {{"name", a.name}};
  if (!a.isOutput)
    j["role"] = roleName(a.role);
  if (a.kind == ArgSpec::Kind::Constexpr) {
    if (a.value)
      j["value"] = literal(*a.value);
    return j;
  }
  j["dtype"] = dtypeName(a.dtype);
  if (a.kind == ArgSpec::Kind::Scalar) {
    if (a.value) // its default in the source
      j["value"] = literal(*a.value);
    return j;
  }
  j["rank"] = a.rank;
  if (a.symmetric)
    j["symmetric"] = true;
  if (!a.dimOrder.empty())
    j["dim_order"] = a.dimOrder;
  if (a.implicit)
    j["implicit"] = true;
  j["access"] = accessName(a.access);
  if (a.role == Role::PeerTable)
    j["peer_table_for"] = a.peerTableFor;
  if (a.role == Role::Scratch)
    j["packets"] = {{"puts", a.packets.puts},
                    {"tile_bytes", a.packets.tileBytes}};
  if (a.isOutput)
    j["like"] = a.like;
  if (a.zeroed)
    j["zeroed"] = true;
  return j;
}

json abiToJson(const std::vector<AbiSlot> &abi) {
  json slots = json::array();
  for (const AbiSlot &s : abi) {
    json j = {{"name", s.name},
              {"type", slotTypeName(s.type)},
              {"kind", slotKindName(s.kind)}};
    if (!isHidden(s.kind))
      j["param"] = s.param;
    if (s.kind == SlotKind::Size)
      j["dim"] = s.dim;
    slots.push_back(j);
  }
  return slots;
}

} // namespace

std::string writeMetadata(const KernelMetadata &md) {
  json j = json::object();
  j["format"] = "dslc-kernel";
  j["version"] = kMetadataVersion;
  j["kernel"] = md.kernel;
  j["entry"] = md.entryName();
  j["source"] = {{"file", md.sourceFile},
                 {"line", md.sourceLine},
                 {"sha256", md.sourceSha256}};
  j["arch"] = md.arch;
  j["num_warps"] = md.numWarps;
  j["threads_per_cta"] = md.threadsPerCta();
  j["shared_bytes"] = md.sharedBytes;
  j["spins"] = md.spins;
  j["state_bytes"] = md.stateBytes;
  j["multicast"] = md.multicast;
  if (md.defaultTimeoutMs)
    j["default_timeout_ms"] = *md.defaultTimeoutMs;
  if (md.worldSize)
    j["world_size"] = *md.worldSize;
  if (md.rank)
    j["rank"] = *md.rank;
  if (md.maxTensorElements > 0)
    j["max_tensor_elements"] = md.maxTensorElements;
  json constants = json::object();
  for (const auto &[name, text] : md.constants)
    constants[name] = literal(text);
  j["constants"] = constants;
  json tunables = json::array();
  for (const Tunable &t : md.tunables)
    tunables.push_back(detail::tunableToJson(t));
  j["tunables"] = tunables;
  j["grid"] = gridToJson(md);
  json params = json::array(), outputs = json::array();
  for (const ArgSpec &a : md.args)
    (a.isOutput ? outputs : params).push_back(argToJson(a));
  for (const ArgSpec &c : md.constexprs)
    params.push_back(argToJson(c));
  j["params"] = params;
  j["outputs"] = outputs;
  json constraints = json::array();
  for (const Constraint &c : md.constraints) {
    json v =
        c.isNumTiles() ? json("num_tiles") : json(std::get<int64_t>(c.value));
    constraints.push_back(
        {{"param", c.param}, {"dim", c.dim}, {"op", c.op}, {"value", v}});
  }
  j["constraints"] = constraints;
  if (!md.sameSizes.empty()) {
    json same = json::array();
    for (const SameSize &s : md.sameSizes) {
      json e = {{"param", s.param},
                {"dim", s.dim},
                {"as", s.as},
                {"as_dim", s.asDim},
                {"where", s.where}};
      if (s.asserted)
        e["asserted"] = true;
      if (s.relation != SameSize::Relation::Eq)
        e["relation"] = SameSize::relationName(s.relation);
      same.push_back(e);
    }
    j["same_sizes"] = same;
  }
  j["abi"] = abiToJson(md.abi);
  if (md.returns) {
    json values = json::array();
    for (const std::optional<std::string> &v : md.returns->values)
      values.push_back(v ? json(*v) : json(nullptr));
    j["returns"] = {{"values", values}, {"tuple", md.returns->tuple}};
    if (!md.returns->views.empty()) {
      json views = json::array();
      for (const std::vector<ViewDim> &view : md.returns->views) {
        json dims = view.empty() ? json(nullptr) : json::array();
        for (const ViewDim &d : view)
          dims.push_back(d.size ? extentToJson(*d.size)
                                : json{{"infer", true}});
        views.push_back(dims);
      }
      j["returns"]["views"] = views;
    }
  }
  return j.dump(2) + "\n";
}

} // namespace dslc::contract
