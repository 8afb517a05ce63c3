//===- Candidates.cpp - The tuner's candidates manifest -------------------===//
#include "contract/Candidates.h"

#include "contract/JsonSupport.h"

namespace dslc::contract {

using detail::FieldReader;
using detail::json;

namespace {
constexpr const char *kFormat = "dslc-tuner-candidates";
constexpr int kVersion = 2;

json kernelToJson(const CandidateKernel &k) {
  json tunables = json::array(), space = json::array(), floats = json::array();
  for (const Tunable &t : k.tunables)
    tunables.push_back(detail::tunableToJson(t));
  for (const SpaceDimension &d : k.space) {
    json dim = {{"tunable", detail::tunableToJson(d.tunable)},
                {"values", d.values},
                {"default", d.defaultIndex}};
    if (d.searchOnly)
      dim["search_only"] = true;
    space.push_back(std::move(dim));
  }
  for (const auto &[name, rank] : k.floatParams)
    floats.push_back({{"name", name}, {"rank", rank}});
  return {{"name", k.name},       {"file", k.file},   {"sha256", k.sha256},
          {"tunables", tunables}, {"spins", k.spins}, {"float_params", floats},
          {"space", space}};
}

CandidateKernel kernelFromJson(const FieldReader &r, const json &k,
                               const std::string &where) {
  if (!k.is_object())
    r.fail(where, "not an object");
  CandidateKernel c;
  c.name = r.str(k, "name", where);
  c.file = r.strOr(k, "file", "", where);
  c.sha256 = r.strOr(k, "sha256", "", where);
  const json &tunables = r.array(k, "tunables", where);
  for (size_t i = 0; i < tunables.size(); ++i)
    c.tunables.push_back(r.tunable(tunables[i], where + "tunables[" +
                                                    std::to_string(i) + "]: "));
  c.spins = r.boolean(k, "spins", false, where);
  const json &floats = r.array(k, "float_params", where);
  for (const json &f : floats)
    c.floatParams.push_back(
        {r.str(f, "name", where + "float_params: "),
         static_cast<int>(r.integer(f, "rank", where + "float_params: "))});
  const json &space = r.array(k, "space", where);
  for (size_t i = 0; i < space.size(); ++i) {
    std::string w = where + "space[" + std::to_string(i) + "]: ";
    SpaceDimension d;
    d.tunable = r.tunable(r.need(space[i], "tunable", w), w + "tunable: ");
    for (const json &v : r.array(space[i], "values", w)) {
      if (!v.is_number_integer())
        r.fail(w, "values must be integers");
      d.values.push_back(v.get<int64_t>());
    }
    d.defaultIndex = static_cast<int>(r.integer(space[i], "default", w));
    if (d.defaultIndex < 0 ||
        static_cast<size_t>(d.defaultIndex) >= d.values.size())
      r.fail(w, "default index " + std::to_string(d.defaultIndex) +
                    " is outside its " + std::to_string(d.values.size()) +
                    " values");
    d.searchOnly = r.boolean(space[i], "search_only", false, w);
    c.space.push_back(std::move(d));
  }
  return c;
}

CandidatesManifest manifestFromJson(const FieldReader &r, const json &j) {
  if (j.value("format", "") != kFormat)
    r.fail("", std::string("format is not '") + kFormat +
                   "' (not made by tuner compile?)");
  int64_t version = r.integer(j, "version", "");
  if (version != kVersion)
    r.fail("", "version " + std::to_string(version) +
                   " is not supported: this build reads version " +
                   std::to_string(kVersion) + " (run tuner compile again)");
  CandidatesManifest m;
  m.collective = r.str(j, "collective", "");
  m.worldSize = static_cast<int>(r.integer(j, "world_size", ""));
  m.dtype = r.str(j, "dtype", "");
  m.set = r.str(j, "set", "");
  if (j.contains("reference")) {
    const json &ref = r.object(j, "reference", "");
    m.reference = r.str(ref, "name", "reference: ");
    m.referenceCubin = r.str(ref, "cubin", "reference: ");
    if (m.checkedByCaller() != m.referenceCubin.empty())
      r.fail("reference: ", m.checkedByCaller()
                                ? "the caller's reference has no cubin"
                                : "a DSL reference needs its cubin");
  }
  if (m.collective.empty() && m.reference.empty())
    r.fail("", "names neither a collective nor a reference");
  const json &kernels = r.array(j, "kernels", "");
  for (size_t i = 0; i < kernels.size(); ++i)
    m.kernels.push_back(
        kernelFromJson(r, kernels[i], "kernels[" + std::to_string(i) + "]: "));
  const json &compiled = r.array(j, "compiled", "");
  for (size_t i = 0; i < compiled.size(); ++i) {
    std::string where = "compiled[" + std::to_string(i) + "]: ";
    const json &c = compiled[i];
    CompiledCandidate cc;
    std::string name = r.str(c, "kernel", where);
    cc.kernel = -1;
    for (size_t k = 0; k < m.kernels.size(); ++k)
      if (m.kernels[k].name == name)
        cc.kernel = static_cast<int>(k);
    if (cc.kernel < 0)
      r.fail(where, "compiled entry for unknown kernel '" + name + "'");
    cc.config = r.config(r.need(c, "config", where), where + "config: ");
    cc.cubin = r.str(c, "cubin", where);
    cc.ok = r.str(c, "status", where) == "ok";
    cc.reason = r.strOr(c, "reason", "", where);
    m.compiled.push_back(std::move(cc));
  }
  if (j.contains("hierarchy")) {
    const json &h = r.array(j, "hierarchy", "");
    for (size_t i = 0; i < h.size(); ++i) {
      std::string where = "hierarchy[" + std::to_string(i) + "]: ";
      HierarchyRecord rec;
      rec.worldSize = static_cast<int>(r.integer(h[i], "world_size", where));
      rec.bucket = static_cast<int>(r.integer(h[i], "bucket", where));
      std::string path = r.str(h[i], "path", where);
      if (path != "hierarchical" && path != "nccl")
        r.fail(where,
               "path '" + path + "' is neither 'hierarchical' nor 'nccl'");
      rec.hierarchical = path == "hierarchical";
      rec.hierarchicalUs = r.numberOr(h[i], "hierarchical_us", 0, where);
      rec.ncclUs = r.numberOr(h[i], "nccl_us", 0, where);
      if (rec.worldSize <= m.worldSize || rec.worldSize % m.worldSize != 0)
        r.fail(where, "world_size " + std::to_string(rec.worldSize) +
                          " is not a multiple (> 1) of the manifest's "
                          "world size " +
                          std::to_string(m.worldSize) +
                          " (the size of a node)");
      if (rec.bucket < 0)
        r.fail(where, "bucket " + std::to_string(rec.bucket) + " is negative");
      m.hierarchy.push_back(rec);
    }
  }
  return m;
}
} // namespace

std::string CandidateKernel::signature(const std::string &dtype) const {
  std::string s;
  for (const auto &[name, rank] : floatParams)
    s += (s.empty() ? "" : ",") + name + "=" + dtype + "[" +
         std::to_string(rank) + "]";
  return s;
}

const CompiledCandidate *CandidatesManifest::find(int kernel,
                                                  KernelConfig config) const {
  config.maxCtas = 0;
  for (const CompiledCandidate &c : compiled)
    if (c.kernel == kernel && c.config == config)
      return &c;
  return nullptr;
}

const HierarchyRecord *CandidatesManifest::findHierarchy(int worldSize,
                                                         int bucket) const {
  for (const HierarchyRecord &h : hierarchy)
    if (h.worldSize == worldSize && h.bucket == bucket)
      return &h;
  return nullptr;
}

std::string
CandidatesManifest::setKey(const std::vector<CandidateKernel> &kernels,
                           const std::string &setName) {
  if (!setName.empty())
    return "set:" + setName;
  if (kernels.size() == 1)
    return kernels[0].sha256 + ":" + kernels[0].name;
  std::string s = "set:";
  for (size_t i = 0; i < kernels.size(); ++i)
    s += (i ? "+" : "") + kernels[i].name + "@" +
         kernels[i].sha256.substr(0, 12);
  return s;
}

std::string manifestFile(const std::string &dir) {
  return dir + "/manifest.json";
}

std::string writeCandidatesManifest(const CandidatesManifest &m) {
  json kernels = json::array(), compiled = json::array();
  for (const CandidateKernel &k : m.kernels)
    kernels.push_back(kernelToJson(k));
  for (const CompiledCandidate &c : m.compiled)
    compiled.push_back({{"kernel", m.kernels.at(c.kernel).name},
                        {"config", detail::configToJson(c.config, true)},
                        {"cubin", c.cubin},
                        {"status", c.ok ? "ok" : "failed"},
                        {"reason", c.reason}});
  json j{{"format", kFormat},          {"version", kVersion},
         {"collective", m.collective}, {"world_size", m.worldSize},
         {"dtype", m.dtype},           {"set", m.set},
         {"kernels", kernels},         {"compiled", compiled}};
  if (!m.reference.empty())
    j["reference"] = {{"name", m.reference}, {"cubin", m.referenceCubin}};
  if (!m.hierarchy.empty()) {
    json h = json::array();
    for (const HierarchyRecord &r : m.hierarchy)
      h.push_back({{"world_size", r.worldSize},
                   {"bucket", r.bucket},
                   {"path", r.hierarchical ? "hierarchical" : "nccl"},
                   {"hierarchical_us", r.hierarchicalUs},
                   {"nccl_us", r.ncclUs}});
    j["hierarchy"] = h;
  }
  return j.dump(1) + "\n";
}

Expected<CandidatesManifest> readCandidatesManifest(const std::string &text,
                                                    const std::string &origin) {
  FieldReader reader(origin + ": ");
  try {
    return manifestFromJson(reader, detail::parseObject(text, reader));
  } catch (const detail::ReadError &e) {
    return Failure{e.message};
  }
}

} // namespace dslc::contract
