//===- JsonSupport.cpp - JSON pieces shared by the contract's files -------===//
#include "contract/JsonSupport.h"

#include <algorithm>

namespace dslc::contract::detail {

json configToJson(const KernelConfig &c, bool forCompiler) {
  json j = json::object();
  if (!c.blockSizes.empty())
    j["block_sizes"] = c.blockSizes;
  if (c.numWarps > 0)
    j["num_warps"] = c.numWarps;
  if (c.maxCtas > 0 && !forCompiler)
    j["max_ctas"] = c.maxCtas;
  if (!c.named.empty())
    j["tunables"] = c.named;
  if (!c.reductionLoops.empty()) {
    json loops = json::array();
    for (int64_t r : c.reductionLoops)
      loops.push_back(r ? json(r) : json(nullptr));
    j["reduction_loops"] = loops;
  }
  if (c.dotEngine != DotEngine::Default)
    j["dot_engine"] = dotEngineName(c.dotEngine);
  if (c.numStages > 0)
    j["num_stages"] = c.numStages;
  if (c.l2Grouping > 0)
    j["l2_groupings"] = json::array({c.l2Grouping});
  if (c.fastMath)
    j["fast_math"] = true;
  if (c.maxNReg > 0)
    j["maxnreg"] = c.maxNReg;
  if (!c.loadEvictionPolicies.empty()) {
    json policies = json::array();
    for (EvictionPolicy p : c.loadEvictionPolicies)
      policies.push_back(evictionPolicyName(p));
    j["load_eviction_policies"] = policies;
  }
  return j;
}

json tunableToJson(const Tunable &t) {
  json j = {{"kind", tunableKindName(t.kind)}};
  if (t.kind == Tunable::Kind::BlockSize ||
      t.kind == Tunable::Kind::ReductionLoop)
    j["index"] = t.index;
  if (t.kind == Tunable::Kind::LoadEviction) {
    j["loads"] = t.index;
    if (t.load >= 0)
      j["load"] = t.load;
  }
  if (t.kind == Tunable::Kind::Named)
    j["name"] = t.name;
  j["value"] = t.value;
  if (!t.choices.empty()) {
    j["choices"] = t.choices;
  } else {
    j["min"] = t.min;
    j["max"] = t.max;
  }
  if (t.kind == Tunable::Kind::BlockSize && t.unitElements > 0)
    j["unit_elements"] = t.unitElements;
  if (t.kind == Tunable::Kind::BlockSize && t.extent > 0)
    j["extent"] = t.extent;
  if (t.kind == Tunable::Kind::BlockSize && t.tilesGrid)
    j["grid"] = true;
  return j;
}

void FieldReader::fail(const std::string &where,
                       const std::string &what) const {
  throw ReadError{prefix_ + where + what};
}

const json &FieldReader::need(const json &obj, const char *key,
                              const std::string &where) const {
  auto it = obj.find(key);
  if (it == obj.end())
    fail(where, std::string("missing field '") + key + "'");
  return *it;
}

const json &FieldReader::object(const json &obj, const char *key,
                                const std::string &where) const {
  const json &v = need(obj, key, where);
  if (!v.is_object())
    fail(where, std::string("field '") + key + "' must be an object");
  return v;
}

const json &FieldReader::array(const json &obj, const char *key,
                               const std::string &where) const {
  const json &v = need(obj, key, where);
  if (!v.is_array())
    fail(where, std::string("field '") + key + "' must be an array");
  return v;
}

std::string FieldReader::str(const json &obj, const char *key,
                             const std::string &where) const {
  const json &v = need(obj, key, where);
  if (!v.is_string())
    fail(where, std::string("field '") + key + "' must be a string");
  return v.get<std::string>();
}

std::string FieldReader::strOr(const json &obj, const char *key,
                               const std::string &dflt,
                               const std::string &where) const {
  return obj.contains(key) ? str(obj, key, where) : dflt;
}

int64_t FieldReader::integer(const json &obj, const char *key,
                             const std::string &where) const {
  const json &v = need(obj, key, where);
  if (!v.is_number_integer())
    fail(where, std::string("field '") + key + "' must be an integer");
  return v.get<int64_t>();
}

int64_t FieldReader::integerOr(const json &obj, const char *key, int64_t dflt,
                               const std::string &where) const {
  return obj.contains(key) ? integer(obj, key, where) : dflt;
}

double FieldReader::number(const json &obj, const char *key,
                           const std::string &where) const {
  const json &v = need(obj, key, where);
  if (!v.is_number())
    fail(where, std::string("field '") + key + "' must be a number");
  return v.get<double>();
}

double FieldReader::numberOr(const json &obj, const char *key, double dflt,
                             const std::string &where) const {
  return obj.contains(key) ? number(obj, key, where) : dflt;
}

bool FieldReader::boolean(const json &obj, const char *key, bool dflt,
                          const std::string &where) const {
  if (!obj.contains(key))
    return dflt;
  const json &v = obj.at(key);
  if (!v.is_boolean())
    fail(where, std::string("field '") + key + "' must be a boolean");
  return v.get<bool>();
}

std::vector<int64_t> FieldReader::integers(const json &obj, const char *key,
                                           const std::string &where) const {
  std::vector<int64_t> values;
  for (const json &v : array(obj, key, where)) {
    if (!v.is_number_integer())
      fail(where, std::string("field '") + key + "' must hold integers");
    values.push_back(v.get<int64_t>());
  }
  return values;
}

Tunable FieldReader::tunable(const json &t, const std::string &where) const {
  if (!t.is_object())
    fail(where, "not an object");
  std::string kindName = str(t, "kind", where);
  std::optional<Tunable::Kind> kind = parseTunableKind(kindName);
  if (!kind)
    fail(where, "unknown tunable kind '" + kindName +
                    "' (block_size, num_warps, max_ctas, named, num_stages, "
                    "dot_engine, l2_grouping, reduction_loop, fast_math or "
                    "load_eviction)");
  int64_t value = integer(t, "value", where);
  Tunable r;
  switch (*kind) {
  case Tunable::Kind::BlockSize: {
    int64_t index = integer(t, "index", where);
    if (index < 0 || index > 64)
      fail(where,
           "block size index " + std::to_string(index) + " is outside 0..64");
    r = Tunable::blockSize(static_cast<unsigned>(index), value);
    if (t.contains("unit_elements")) {
      r.unitElements = integer(t, "unit_elements", where);
      if (r.unitElements < 1)
        fail(where, "field 'unit_elements' must be at least 1");
    }
    if (t.contains("extent")) {
      r.extent = integer(t, "extent", where);
      if (r.extent < 1)
        fail(where, "field 'extent' must be at least 1");
    }
    r.tilesGrid = boolean(t, "grid", false, where);
    break;
  }
  case Tunable::Kind::NumWarps:
    r = Tunable::numWarps(value);
    break;
  case Tunable::Kind::MaxCtas:
    r = Tunable::maxCtas(value);
    break;
  case Tunable::Kind::NumStages:
    r = Tunable::numStages(value);
    break;
  case Tunable::Kind::DotEngine:
    r = Tunable::dotEngine(value);
    break;
  case Tunable::Kind::L2Grouping:
    r = Tunable::l2Grouping(value);
    break;
  case Tunable::Kind::FastMath:
    r = Tunable::fastMath(value);
    break;
  case Tunable::Kind::LoadEviction: {
    int64_t loads = integer(t, "loads", where);
    if (loads < 1 || loads > kMaxLoads)
      fail(where, "field 'loads' " + std::to_string(loads) + " is outside 1.." +
                      std::to_string(kMaxLoads));
    r = Tunable::loadEviction(static_cast<unsigned>(loads), value);
    if (t.contains("load")) {
      int64_t load = integer(t, "load", where);
      if (load < 0 || load >= loads)
        fail(where, "field 'load' " + std::to_string(load) + " is outside 0.." +
                        std::to_string(loads - 1));
      r.load = static_cast<int>(load);
    }
    break;
  }
  case Tunable::Kind::ReductionLoop: {
    // Its chunks depend on the row's extent: as written.
    int64_t index = integer(t, "index", where);
    if (index < 0 || index > 64)
      fail(where, "reduction loop index " + std::to_string(index) +
                      " is outside 0..64");
    r = Tunable::reductionLoop(static_cast<unsigned>(index), value, 0);
    r.choices = integers(t, "choices", where);
    if (std::find(r.choices.begin(), r.choices.end(), value) == r.choices.end())
      r.choices.push_back(value);
    break;
  }
  case Tunable::Kind::Named: {
    std::vector<int64_t> choices;
    if (t.contains("choices"))
      choices = integers(t, "choices", where);
    r = Tunable::named(str(t, "name", where), value, std::move(choices));
    if (r.choices.empty()) {
      r.min = integer(t, "min", where);
      r.max = integer(t, "max", where);
      if (r.min > r.max)
        fail(where, "min " + std::to_string(r.min) + " is above max " +
                        std::to_string(r.max));
    }
    break;
  }
  }
  Expected<bool> ok = r.check(value);
  if (!ok)
    fail(where, ok.error());
  return r;
}

KernelConfig FieldReader::config(const json &c,
                                 const std::string &where) const {
  if (!c.is_object())
    fail(where, "a config must be a JSON object");
  KernelConfig k;
  for (auto it = c.begin(); it != c.end(); ++it) {
    const std::string &key = it.key();
    const json &v = it.value();
    switch (classifyConfigKey(key)) {
    case ConfigKey::BlockSizes:
      for (const json &b : array(c, "block_sizes", where)) {
        if (!b.is_number_integer())
          fail(where, "block_sizes must hold integers");
        k.blockSizes.push_back(b.get<int64_t>());
      }
      break;
    case ConfigKey::NumWarps:
      // 0 stands for "not given" in KernelConfig: a config that spells it
      // out asks for no warps at all.
      k.numWarps = integer(c, "num_warps", where);
      if (!isValidNumWarps(k.numWarps))
        fail(where, "num_warps " + std::to_string(k.numWarps) +
                        " is outside 1.." + std::to_string(kMaxNumWarps));
      break;
    case ConfigKey::MaxCtas:
      k.maxCtas = integer(c, "max_ctas", where);
      break;
    case ConfigKey::ReductionLoops:
      for (const json &r : array(c, "reduction_loops", where)) {
        if (r.is_null()) {
          k.reductionLoops.push_back(0);
          continue;
        }
        if (!r.is_number_integer() || r.get<int64_t>() < 1)
          fail(where, "reduction_loops entries are null or chunk sizes from "
                      "1 to " +
                          std::to_string(kMaxBlockSize));
        k.reductionLoops.push_back(r.get<int64_t>());
      }
      break;
    case ConfigKey::DotEngine: {
      std::optional<DotEngine> e;
      if (v.is_string())
        e = parseDotEngine(v.get<std::string>());
      if (!e)
        fail(where,
             "dot_engine must be \"fma\", \"mma_sync\" or \"wgmma\", got " +
                 v.dump());
      k.dotEngine = *e;
      break;
    }
    case ConfigKey::NumStages:
      k.numStages = integer(c, "num_stages", where);
      break;
    case ConfigKey::L2Groupings: {
      // Helion's list (one grouping per grid; dslc kernels have one) or a
      // number.
      const json &g = v.is_array() && v.size() == 1 ? v[0] : v;
      if (!g.is_number_integer() || g.get<int64_t>() < 1)
        fail(where, "l2_groupings must be [G] (or G) with G a positive "
                    "integer, got " +
                        v.dump());
      k.l2Grouping = g.get<int64_t>();
      break;
    }
    case ConfigKey::FastMath:
      // true / false (or 1 / 0: the tuner's records)
      if (v.is_boolean())
        k.fastMath = v.get<bool>();
      else if (v.is_number_integer() &&
               (v.get<int64_t>() == 0 || v.get<int64_t>() == 1))
        k.fastMath = v.get<int64_t>();
      else
        fail(where, "fast_math must be true or false, got " + v.dump());
      break;
    case ConfigKey::MaxNReg:
      // Helion's None (no cap) or a count.
      if (!v.is_null())
        k.maxNReg = integer(c, "maxnreg", where);
      break;
    case ConfigKey::LoadEvictionPolicies:
      for (const json &p : array(c, "load_eviction_policies", where)) {
        std::optional<EvictionPolicy> policy;
        if (p.is_string())
          policy = parseEvictionPolicy(p.get<std::string>());
        if (!policy)
          fail(where, "load_eviction_policies entries are \"\", \"first\" "
                      "or \"last\", got " +
                          p.dump());
        k.loadEvictionPolicies.push_back(*policy);
      }
      break;
    case ConfigKey::Tunables:
      object(c, "tunables", where);
      for (auto t = v.begin(); t != v.end(); ++t) {
        if (!t.value().is_number_integer())
          fail(where, "tunable '" + t.key() + "' must be an integer");
        k.named[t.key()] = t.value().get<int64_t>();
      }
      break;
    case ConfigKey::HelionOnly:
      break; // accepted; readConfig() lists them
    case ConfigKey::Unknown:
      fail(where, "unknown config key '" + key + "' (dslc reads " +
                      honouredConfigKeys() +
                      "; Helion's Triton-only keys are accepted and ignored)");
    }
  }
  Expected<bool> ok = validate(k);
  if (!ok)
    fail(where, ok.error());
  return k;
}

json parseObject(const std::string &text, const FieldReader &reader) {
  json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    // Parse again for the position of the error.
    try {
      json again = json::parse(text);
    } catch (const json::parse_error &e) {
      reader.fail("", std::string("not valid JSON: ") + e.what());
    }
    reader.fail("", "not valid JSON");
  }
  if (!root.is_object())
    reader.fail("", "top level is not an object");
  return root;
}

} // namespace dslc::contract::detail
