//===- SimulationDump.cpp - The schema of a simulation dump ---------------===//
#include "contract/SimulationDump.h"

#include <nlohmann/json.hpp>

#include <set>

namespace dslc::contract {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

constexpr Role kDumpRoles[] = {Role::Input,     Role::Output,  Role::SignalPad,
                               Role::PeerTable, Role::Scratch, Role::InOut};

std::string str(const char *s) { return s; }

} // namespace

const char *dumpRoleName(Role role) {
  switch (role) {
  case Role::Input:
    return "input";
  case Role::Output:
    return "output";
  case Role::SignalPad:
    return "signal pad";
  case Role::PeerTable:
    return "peer table";
  case Role::Scratch:
    return "LL scratch";
  case Role::InOut:
    return "workspace";
  case Role::Scalar:
    return "scalar";
  default:
    return roleName(role);
  }
}

std::optional<Role> parseDumpRole(const std::string &name) {
  for (Role r : kDumpRoles)
    if (name == dumpRoleName(r))
      return r;
  return std::nullopt;
}

std::string dumpInputFile(int rank, int64_t launch, const std::string &name) {
  return "r" + std::to_string(rank) + ".c" + std::to_string(launch) + "." +
         name + ".npy";
}

std::string dumpOutputFile(int rank, int64_t launch, const std::string &name) {
  return "r" + std::to_string(rank) + ".c" + std::to_string(launch) + "." +
         name + ".out.npy";
}

int64_t DumpParam::numel() const {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  return n;
}

uint64_t DumpParam::bytes() const {
  return static_cast<uint64_t>(numel()) * dtypeSize(dtype);
}

const DumpParam *DumpManifest::find(const std::string &name) const {
  for (const DumpParam &p : params)
    if (p.name == name)
      return &p;
  return nullptr;
}

std::string manifestJson(const DumpManifest &m) {
  ordered_json j;
  j["format"] = kDumpFormat;
  j["version"] = kDumpVersion;
  j["kernel"] = m.kernel;
  j["seed"] = static_cast<int64_t>(m.seed);
  j["world_size"] = m.worldSize;
  j["launches"] = m.launches;
  j["reference"] = m.reference;
  j["files"] = "r<RANK>.c<LAUNCH>.<NAME>.npy (inputs), "
               "r<RANK>.c<LAUNCH>.<NAME>.out.npy (outputs): numpy .npy "
               "files; bfloat16 and float8 elements are raw bits ('<u2', "
               "'|u1': torch.from_numpy(a).view(torch.bfloat16))";
  ordered_json params = ordered_json::array();
  for (const DumpParam &p : m.params) {
    ordered_json q;
    q["name"] = p.name;
    if (!p.isTensor()) {
      q["kind"] = "scalar";
      if (p.isFloatScalar)
        q["value"] = p.floatValue;
      else
        q["value"] = p.intValue;
    } else {
      q["kind"] = "tensor";
      q["role"] = dumpRoleName(p.role);
      q["dtype"] = p.dtypeName;
      q["sizes"] = p.sizes;
      if (!p.tableOf.empty())
        q["table_of"] = p.tableOf;
    }
    params.push_back(std::move(q));
  }
  j["params"] = std::move(params);
  return j.dump(2) + "\n";
}

namespace {

/// A manifest's problem (thrown inside this file only).
struct ManifestError {
  std::string message;
};

class ManifestParser {
public:
  explicit ManifestParser(std::string origin) : origin(std::move(origin)) {}

  [[noreturn]] void fail(const std::string &what) const {
    throw ManifestError{"simulation manifest " + origin + ": " + what};
  }

  const json &need(const json &obj, const char *key,
                   const std::string &where) const {
    auto it = obj.find(key);
    if (it == obj.end())
      fail(where + "missing '" + key + "'");
    return *it;
  }

  std::string needString(const json &obj, const char *key,
                         const std::string &where) const {
    const json &v = need(obj, key, where);
    if (!v.is_string())
      fail(where + "'" + key + "' must be a string, not " + v.dump());
    return v.get<std::string>();
  }

  int64_t needInt(const json &obj, const char *key, const std::string &where,
                  int64_t min) const {
    const json &v = need(obj, key, where);
    if (!v.is_number_integer() || v.get<int64_t>() < min)
      fail(where + "'" + key + "' must be an integer >= " +
           std::to_string(min) + ", not " + v.dump());
    return v.get<int64_t>();
  }

  void parseScalar(const json &j, const std::string &where,
                   DumpParam &p) const {
    p.role = Role::Scalar;
    const json &v = need(j, "value", where);
    if (!v.is_number())
      fail(where + "scalar 'value' must be a number, not " + v.dump());
    p.isFloatScalar = v.is_number_float();
    if (p.isFloatScalar)
      p.floatValue = v.get<double>();
    else
      p.intValue = v.get<int64_t>();
  }

  DumpParam parseParam(const json &j, size_t index) const {
    std::string where = "params[" + std::to_string(index) + "]: ";
    if (!j.is_object())
      fail(where + "must be an object, not " + j.dump());
    DumpParam p;
    p.name = needString(j, "name", where);
    if (p.name.empty())
      fail(where + "empty 'name'");
    where = "params[" + std::to_string(index) + "] '" + p.name + "': ";
    std::string kind = needString(j, "kind", where);
    if (kind == "scalar") {
      parseScalar(j, where, p);
      return p;
    }
    if (kind != "tensor")
      fail(where + "'kind' must be \"tensor\" or \"scalar\", not \"" + kind +
           "\"");
    std::string role = needString(j, "role", where);
    std::optional<Role> r = parseDumpRole(role);
    if (!r)
      fail(where + "unknown role \"" + role +
           "\" (expected input, output, signal pad, peer table, LL scratch "
           "or workspace)");
    p.role = *r;
    p.dtypeName = needString(j, "dtype", where);
    std::optional<DType> dt = parseDType(p.dtypeName);
    if (!dt)
      fail(where + "dtype \"" + p.dtypeName + "\" has no runtime equivalent");
    p.dtype = *dt;
    const json &sizes = need(j, "sizes", where);
    if (!sizes.is_array())
      fail(where + "'sizes' must be an array, not " + sizes.dump());
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (!sizes[d].is_number_integer() || sizes[d].get<int64_t>() < 0)
        fail(where + "sizes[" + std::to_string(d) +
             "] must be a non-negative integer, not " + sizes[d].dump());
      p.sizes.push_back(sizes[d].get<int64_t>());
    }
    if (p.role == Role::PeerTable)
      p.tableOf = needString(j, "table_of", where);
    return p;
  }

  void parseParams(const json &j, DumpManifest &d) const {
    const json &params = need(j, "params", "");
    if (!params.is_array() || params.empty())
      fail("'params' must be a non-empty array");
    std::set<std::string> seen;
    for (size_t i = 0; i < params.size(); ++i) {
      DumpParam p = parseParam(params[i], i);
      if (!seen.insert(p.name).second)
        fail("params[" + std::to_string(i) + "]: parameter '" + p.name +
             "' appears twice");
      d.params.push_back(std::move(p));
    }
    for (const DumpParam &p : d.params) {
      if (p.role != Role::PeerTable)
        continue;
      const DumpParam *of = d.find(p.tableOf);
      if (!of || !of->isTensor() || of->role == Role::PeerTable)
        fail("peer table '" + p.name + "': table_of '" + p.tableOf +
             "' is not a tensor parameter of the manifest");
    }
  }

  DumpManifest parse(const std::string &text) const {
    json j;
    try {
      j = json::parse(text);
    } catch (const json::exception &e) {
      fail(str("not valid JSON: ") + e.what());
    }
    if (!j.is_object())
      fail("the top level must be an object");
    DumpManifest d;
    std::string format = needString(j, "format", "");
    if (format != kDumpFormat)
      fail("'format' is \"" + format + "\", expected \"" + kDumpFormat +
           "\" (a dump of dslc --simulate --dump-dir)");
    if (!j.contains("version") || !j["version"].is_number_integer() ||
        j["version"].get<int64_t>() != kDumpVersion)
      fail("the dump is not of format version 2 (its files are not .npy): "
           "make it again with dslc FILE --simulate --dump-dir DIR");
    d.kernel = needString(j, "kernel", "");
    d.worldSize = static_cast<int>(needInt(j, "world_size", "", 1));
    d.launches = needInt(j, "launches", "", 1);
    d.seed = static_cast<uint64_t>(needInt(j, "seed", "", 0));
    if (j.contains("reference") && j["reference"].is_string())
      d.reference = j["reference"].get<std::string>();
    parseParams(j, d);
    return d;
  }

private:
  std::string origin;
};

} // namespace

Expected<DumpManifest> parseManifest(const std::string &text,
                                     const std::string &origin) {
  try {
    return ManifestParser(origin).parse(text);
  } catch (const ManifestError &e) {
    return Failure{e.message};
  } catch (const json::exception &e) {
    return Failure{"simulation manifest " + origin + ": " + e.what()};
  }
}

} // namespace dslc::contract
