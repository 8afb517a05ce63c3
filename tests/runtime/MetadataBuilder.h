//===- MetadataBuilder.h - Kernel metadata for unit tests -------*- C++ -*-===//
//
// Compact hand-written metadata (as dslc lays out the ABI) for the plans'
// unit tests: the examples' kernels, fused-kernel-like ones, references.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TESTS_RUNTIME_METADATABUILDER_H
#define DSLC_TESTS_RUNTIME_METADATABUILDER_H

#include "runtime/Metadata.h"

#include <nlohmann/json.hpp>

#include <string>

namespace dslc::test {

using nlohmann::json;
using rt::KernelMetadata;

/// Metadata from a compact description: params (name, role, dtype, rank,
/// extra keys), outputs, the grid's first extent and block. The ABI is
/// derived as dslc lays it out.
inline KernelMetadata makeMd(const std::string &name, json params, json outputs,
                             json extent, int64_t block) {
  json abi = json::array();
  auto addTensor = [&](const json &p) {
    std::string n = p["name"];
    abi.push_back(
        {{"name", n}, {"type", "ptr"}, {"kind", "data"}, {"param", n}});
    for (int d = 0; d < p["rank"].get<int>(); ++d)
      abi.push_back({{"name", n + ".size" + std::to_string(d)},
                     {"type", "i64"},
                     {"kind", "size"},
                     {"param", n},
                     {"dim", d}});
    if (p.value("symmetric", false))
      abi.push_back({{"name", n + ".peers"},
                     {"type", "ptr"},
                     {"kind", "peers"},
                     {"param", n}});
  };
  for (json &p : params) {
    if (p["role"] == "scalar")
      abi.push_back(
          {{"name", p["name"]},
           {"type", p.value("dtype", "") == "float32" ? "f32" : "i64"},
           {"kind", "scalar"},
           {"param", p["name"]}});
    else
      addTensor(p);
  }
  for (const json &o : outputs)
    addTensor(o);
  abi.push_back(
      {{"name", "__dslc_timeout_ns"}, {"type", "i64"}, {"kind", "timeout"}});
  abi.push_back({{"name", "__dslc_error"}, {"type", "ptr"}, {"kind", "error"}});
  abi.push_back({{"name", "__dslc_state"}, {"type", "ptr"}, {"kind", "state"}});
  json j = {{"format", "dslc-kernel"},
            {"version", 2},
            {"kernel", name},
            {"num_warps", 4},
            {"params", params},
            {"outputs", outputs},
            {"abi", abi},
            {"grid", {{"tiles", {{{"extent", extent}, {"block", block}}}}}}};
  return rt::parseMetadata(j.dump(), name + ".json");
}

inline json tensor(const char *name, const char *role, const char *dtype,
                   int rank, const char *access) {
  return {{"name", name},
          {"role", role},
          {"dtype", dtype},
          {"rank", rank},
          {"access", access}};
}
inline json pad(const char *name = "pad") {
  return tensor(name, "signal_pad", "int32", 2, "readwrite");
}
inline json table(const char *name, const char *of) {
  json t = tensor(name, "peer_table", "uint64", 1, "read");
  t["peer_table_for"] = of;
  return t;
}
inline json symmetric(json t) {
  t["symmetric"] = true;
  return t;
}
/// An LL scratch with `puts` ll_put calls of `tileBytes` packet tiles.
inline json scratch(int64_t puts, int64_t tileBytes) {
  json t = symmetric(tensor("scratch", "scratch", "int64", 1, "readwrite"));
  t["packets"] = {{"puts", puts}, {"tile_bytes", tileBytes}};
  return t;
}

/// A scalar parameter of `dtype` (int64 or float32).
inline json scalarParam(const char *name, const char *dtype) {
  return {{"name", name}, {"role", "scalar"}, {"dtype", dtype}};
}

} // namespace dslc::test

#endif // DSLC_TESTS_RUNTIME_METADATABUILDER_H
