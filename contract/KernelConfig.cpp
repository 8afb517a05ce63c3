//===- KernelConfig.cpp - Configs, tunables and their limits --------------===//
#include "contract/KernelConfig.h"

#include "contract/JsonSupport.h"

#include <algorithm>
#include <functional>

namespace dslc::contract {

bool isValidBlockSize(int64_t b) { return b >= 1 && b <= kMaxBlockSize; }
bool isValidNumWarps(int64_t w) { return w >= 1 && w <= kMaxNumWarps; }

Tunable Tunable::blockSize(unsigned index, int64_t value) {
  Tunable t;
  t.kind = Kind::BlockSize;
  t.index = index;
  t.value = value;
  t.min = 1;
  t.max = kMaxBlockSize;
  return t;
}

Tunable Tunable::numWarps(int64_t value) {
  Tunable t;
  t.kind = Kind::NumWarps;
  t.value = value;
  t.min = 1;
  t.max = kMaxNumWarps;
  return t;
}

/// A tunable of `kind` searched over `choices` and the kernel's own value.
static Tunable withChoices(Tunable::Kind kind, int64_t value,
                           std::vector<int64_t> choices) {
  Tunable t;
  t.kind = kind;
  t.value = value;
  t.choices = std::move(choices);
  if (std::find(t.choices.begin(), t.choices.end(), value) == t.choices.end())
    t.choices.push_back(value);
  return t;
}

Tunable Tunable::numStages(int64_t value) {
  // 6 and 8: skinny products (M = 16 / 128) stream the weight through few
  // CTAs and need the deeper rings (H100, 2026-12-06: M = 16, N = K = 4096
  // 0.71x of cuBLAS at 4 stages, 0.99x at 8); stages that do not fit the
  // shared memory are cut by PipelineDots (a duplicate point, not an error).
  return withChoices(Kind::NumStages, value, {2, 3, 4, 5, 6, 8});
}

Tunable Tunable::loopStages(int64_t value) {
  return withChoices(Kind::NumStages, value, {1, 2, 3});
}

Tunable Tunable::dotEngine(int64_t value) {
  Tunable t;
  t.kind = Kind::DotEngine;
  t.value = value;
  t.choices = {static_cast<int64_t>(DotEngine::MmaSync),
               static_cast<int64_t>(DotEngine::Wgmma)};
  if (std::find(t.choices.begin(), t.choices.end(), value) == t.choices.end())
    t.choices.insert(t.choices.begin(), value);
  return t;
}

Tunable Tunable::l2Grouping(int64_t value) {
  return withChoices(Kind::L2Grouping, value, {1, 4, 8, 16});
}

Tunable Tunable::fastMath(int64_t value) {
  return withChoices(Kind::FastMath, value, {0, 1});
}

Tunable Tunable::loadEviction(unsigned loads, int64_t value) {
  Tunable t = withChoices(Kind::LoadEviction, value,
                          {int64_t(EvictionPolicy::Normal),
                           int64_t(EvictionPolicy::First),
                           int64_t(EvictionPolicy::Last)});
  t.index = loads;
  return t;
}

Tunable Tunable::loadEvictionOf(unsigned loads, int load, int64_t value) {
  Tunable t = loadEviction(loads, value);
  t.load = load;
  return t;
}

Tunable Tunable::reductionLoop(unsigned index, int64_t value, int64_t extent) {
  std::vector<int64_t> chunks = {0};
  for (int64_t part : {2, 4, 8})
    if (extent % part == 0 && extent / part >= kMinReductionChunk)
      chunks.push_back(extent / part);
  // The row as one chunk: held whole where 0 lets dslc roll a row of more
  // than 64 elements a thread (Helion's tuned cross_entropy holds 128).
  if (chunks.size() > 1)
    chunks.insert(chunks.begin() + 1, extent);
  Tunable t = withChoices(Kind::ReductionLoop, value, std::move(chunks));
  t.index = index;
  return t;
}

Tunable Tunable::maxCtas(int64_t value) {
  Tunable t;
  t.kind = Kind::MaxCtas;
  t.value = value;
  t.min = 0; // no cap
  t.max = INT32_MAX;
  return t;
}

Tunable Tunable::named(std::string name, int64_t value,
                       std::vector<int64_t> choices) {
  Tunable t;
  t.kind = Kind::Named;
  t.name = std::move(name);
  t.value = value;
  t.choices = std::move(choices);
  t.min = INT64_MIN;
  t.max = INT64_MAX;
  return t;
}

std::string Tunable::label() const {
  switch (kind) {
  case Kind::BlockSize:
    return "block_sizes[" + std::to_string(index) + "]";
  case Kind::NumWarps:
    return "num_warps";
  case Kind::MaxCtas:
    return "max_ctas";
  case Kind::Named:
    return name;
  case Kind::NumStages:
    return "num_stages";
  case Kind::DotEngine:
    return "dot_engine";
  case Kind::L2Grouping:
    return "l2_groupings";
  case Kind::ReductionLoop:
    return "reduction_loops[" + std::to_string(index) + "]";
  case Kind::FastMath:
    return "fast_math";
  case Kind::LoadEviction:
    return load >= 0 ? "load_eviction_policies[" + std::to_string(load) + "]"
                     : "load_eviction_policies";
  }
  return "?";
}

Expected<bool> Tunable::check(int64_t v) const {
  if (!choices.empty()) {
    if (std::find(choices.begin(), choices.end(), v) != choices.end())
      return true;
    std::string list;
    for (int64_t c : choices)
      list += (list.empty() ? "" : ", ") + std::to_string(c);
    return Failure{label() + " " + std::to_string(v) + " is not one of " +
                   list};
  }
  if (v < min || v > max)
    return Failure{label() + " " + std::to_string(v) + " is outside " +
                   std::to_string(min) + ".." + std::to_string(max)};
  return true;
}

const char *tunableKindName(Tunable::Kind kind) {
  switch (kind) {
  case Tunable::Kind::BlockSize:
    return "block_size";
  case Tunable::Kind::NumWarps:
    return "num_warps";
  case Tunable::Kind::MaxCtas:
    return "max_ctas";
  case Tunable::Kind::Named:
    return "named";
  case Tunable::Kind::NumStages:
    return "num_stages";
  case Tunable::Kind::DotEngine:
    return "dot_engine";
  case Tunable::Kind::L2Grouping:
    return "l2_grouping";
  case Tunable::Kind::ReductionLoop:
    return "reduction_loop";
  case Tunable::Kind::FastMath:
    return "fast_math";
  case Tunable::Kind::LoadEviction:
    return "load_eviction";
  }
  return "?";
}

std::optional<Tunable::Kind> parseTunableKind(const std::string &name) {
  for (Tunable::Kind k :
       {Tunable::Kind::BlockSize, Tunable::Kind::NumWarps,
        Tunable::Kind::MaxCtas, Tunable::Kind::Named, Tunable::Kind::NumStages,
        Tunable::Kind::DotEngine, Tunable::Kind::L2Grouping,
        Tunable::Kind::ReductionLoop, Tunable::Kind::FastMath,
        Tunable::Kind::LoadEviction})
    if (name == tunableKindName(k))
      return k;
  return std::nullopt;
}

int64_t KernelConfig::get(const Tunable &t) const {
  switch (t.kind) {
  case Tunable::Kind::BlockSize:
    return t.index < blockSizes.size() ? blockSizes[t.index] : 0;
  case Tunable::Kind::NumWarps:
    return numWarps;
  case Tunable::Kind::MaxCtas:
    return maxCtas;
  case Tunable::Kind::Named: {
    auto it = named.find(t.name);
    return it == named.end() ? 0 : it->second;
  }
  case Tunable::Kind::NumStages:
    return numStages;
  case Tunable::Kind::DotEngine:
    return static_cast<int64_t>(dotEngine);
  case Tunable::Kind::L2Grouping:
    return l2Grouping;
  case Tunable::Kind::ReductionLoop:
    return t.index < reductionLoops.size() ? reductionLoops[t.index] : 0;
  case Tunable::Kind::FastMath:
    return fastMath;
  case Tunable::Kind::LoadEviction:
    if (t.load >= 0)
      return size_t(t.load) < loadEvictionPolicies.size()
                 ? static_cast<int64_t>(loadEvictionPolicies[t.load])
                 : 0;
    // The policy every load has; 0 where they differ.
    if (loadEvictionPolicies.size() != t.index ||
        std::adjacent_find(loadEvictionPolicies.begin(),
                           loadEvictionPolicies.end(),
                           std::not_equal_to<>()) != loadEvictionPolicies.end())
      return 0;
    return loadEvictionPolicies.empty()
               ? 0
               : static_cast<int64_t>(loadEvictionPolicies.front());
  }
  return 0;
}

void KernelConfig::set(const Tunable &t, int64_t value) {
  switch (t.kind) {
  case Tunable::Kind::BlockSize:
    if (blockSizes.size() <= t.index)
      blockSizes.resize(t.index + 1, 0);
    blockSizes[t.index] = value;
    return;
  case Tunable::Kind::NumWarps:
    numWarps = value;
    return;
  case Tunable::Kind::MaxCtas:
    maxCtas = value;
    return;
  case Tunable::Kind::Named:
    named[t.name] = value;
    return;
  case Tunable::Kind::NumStages:
    numStages = value;
    return;
  case Tunable::Kind::DotEngine:
    dotEngine = value >= 0 && value <= static_cast<int64_t>(DotEngine::Wgmma)
                    ? static_cast<DotEngine>(value)
                    : DotEngine::Default;
    return;
  case Tunable::Kind::L2Grouping:
    l2Grouping = value;
    return;
  case Tunable::Kind::ReductionLoop:
    if (reductionLoops.size() <= t.index)
      reductionLoops.resize(t.index + 1, 0);
    reductionLoops[t.index] = value;
    return;
  case Tunable::Kind::FastMath:
    fastMath = value;
    return;
  case Tunable::Kind::LoadEviction:
    if (value < 0 || value > static_cast<int64_t>(EvictionPolicy::Last))
      value = 0;
    if (t.load >= 0) {
      // One load's entry; a list of none is the empty list (the default
      // config unchanged).
      if (size_t(t.load) >= t.index)
        return;
      if (loadEvictionPolicies.size() != t.index)
        loadEvictionPolicies.assign(t.index, EvictionPolicy::Normal);
      loadEvictionPolicies[t.load] = static_cast<EvictionPolicy>(value);
      if (std::all_of(
              loadEvictionPolicies.begin(), loadEvictionPolicies.end(),
              [](EvictionPolicy p) { return p == EvictionPolicy::Normal; }))
        loadEvictionPolicies.clear();
      return;
    }
    // No policy is the empty list (the default config unchanged).
    if (value <= 0)
      loadEvictionPolicies.clear();
    else
      loadEvictionPolicies.assign(t.index, static_cast<EvictionPolicy>(value));
    return;
  }
}

std::string KernelConfig::toJson(bool forCompiler) const {
  return detail::configToJson(*this, forCompiler).dump();
}

static Expected<ConfigReading> readConfig(const std::string &text,
                                          const std::string &prefix);

Expected<KernelConfig> KernelConfig::fromJson(const std::string &text) {
  Expected<ConfigReading> r = readConfig(text, "config: ");
  if (!r)
    return Failure{r.error()};
  return std::move(r->config);
}

/// Helion's config keys that tune Triton's code generation (pipelining,
/// indexing, loop shapes, eviction...): no effect in dslc.
static const char *const kHelionOnlyKeys[] = {
    "indexing",         "pid_type",
    "loop_orders",      "range_unroll_factors",
    "flatten_loops",    "range_warp_specializes",
    "range_num_stages", "range_multi_buffers",
    "range_flattens",   "static_ranges",
    "num_sm_multiplier"};

struct KeyName {
  ConfigKey key;
  const char *name;
};
static const KeyName kHonouredKeys[] = {
    {ConfigKey::BlockSizes, "block_sizes"},
    {ConfigKey::NumWarps, "num_warps"},
    {ConfigKey::ReductionLoops, "reduction_loops"},
    {ConfigKey::DotEngine, "dot_engine"},
    {ConfigKey::NumStages, "num_stages"},
    {ConfigKey::L2Groupings, "l2_groupings"},
    {ConfigKey::FastMath, "fast_math"},
    {ConfigKey::LoadEvictionPolicies, "load_eviction_policies"},
    {ConfigKey::MaxNReg, "maxnreg"},
    {ConfigKey::MaxCtas, "max_ctas"},
    {ConfigKey::Tunables, "tunables"},
};

ConfigKey classifyConfigKey(const std::string &key) {
  for (const KeyName &k : kHonouredKeys)
    if (key == k.name)
      return k.key;
  for (const char *k : kHelionOnlyKeys)
    if (key == k)
      return ConfigKey::HelionOnly;
  return ConfigKey::Unknown;
}

std::string honouredConfigKeys() {
  std::string list;
  for (const KeyName &k : kHonouredKeys)
    list += (list.empty() ? "" : ", ") + std::string(k.name);
  return list;
}

/// The one reader; `prefix` starts the messages about fields (fromJson's
/// "config: "), not the one about the text.
static Expected<ConfigReading> readConfig(const std::string &text,
                                          const std::string &prefix) {
  detail::json j =
      detail::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    return Failure{"config '" + text + "' is not valid JSON"};
  ConfigReading reading;
  try {
    reading.config = detail::FieldReader(prefix).config(j, "");
  } catch (const detail::ReadError &e) {
    return Failure{e.message};
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    reading.keys.push_back(it.key());
    if (classifyConfigKey(it.key()) == ConfigKey::HelionOnly)
      reading.ignoredKeys.push_back(it.key());
  }
  return reading;
}

Expected<ConfigReading> readConfig(const std::string &text) {
  return readConfig(text, "");
}

std::string KernelConfig::brief() const {
  std::string s;
  auto add = [&](const std::string &part) {
    s += (s.empty() ? "" : " ") + part;
  };
  if (!blockSizes.empty()) {
    std::string b = "bs=";
    for (size_t i = 0; i < blockSizes.size(); ++i)
      b += (i ? "x" : "") + std::to_string(blockSizes[i]);
    add(b);
  }
  if (numWarps > 0)
    add("w=" + std::to_string(numWarps));
  if (maxCtas > 0)
    add("ctas=" + std::to_string(maxCtas));
  for (const auto &[name, value] : named)
    add(name + "=" + std::to_string(value));
  // (Rows whole everywhere, the default, is not said.)
  if (std::any_of(reductionLoops.begin(), reductionLoops.end(),
                  [](int64_t r) { return r > 0; })) {
    std::string r = "rl=";
    for (size_t i = 0; i < reductionLoops.size(); ++i)
      r += (i ? "x" : "") + (reductionLoops[i]
                                 ? std::to_string(reductionLoops[i])
                                 : std::string("none"));
    add(r);
  }
  if (dotEngine != DotEngine::Default)
    add(std::string("dot=") + dotEngineName(dotEngine));
  if (numStages > 0)
    add("st=" + std::to_string(numStages));
  if (l2Grouping > 1)
    add("l2g=" + std::to_string(l2Grouping));
  if (fastMath)
    add("fm");
  if (maxNReg > 0)
    add("regs=" + std::to_string(maxNReg));
  // One letter a load: - (none), f (first), l (last).
  if (std::any_of(
          loadEvictionPolicies.begin(), loadEvictionPolicies.end(),
          [](EvictionPolicy p) { return p != EvictionPolicy::Normal; })) {
    std::string e = "ev=";
    for (EvictionPolicy p : loadEvictionPolicies)
      e += p == EvictionPolicy::First  ? 'f'
           : p == EvictionPolicy::Last ? 'l'
                                       : '-';
    add(e);
  }
  return s.empty() ? "default" : s;
}

const char *evictionPolicyName(EvictionPolicy policy) {
  switch (policy) {
  case EvictionPolicy::Normal:
    return "";
  case EvictionPolicy::First:
    return "first";
  case EvictionPolicy::Last:
    return "last";
  }
  return "";
}

std::optional<EvictionPolicy> parseEvictionPolicy(const std::string &name) {
  for (EvictionPolicy p :
       {EvictionPolicy::Normal, EvictionPolicy::First, EvictionPolicy::Last})
    if (name == evictionPolicyName(p))
      return p;
  return std::nullopt;
}

const char *dotEngineName(DotEngine engine) {
  switch (engine) {
  case DotEngine::Default:
    return "default";
  case DotEngine::Fma:
    return "fma";
  case DotEngine::MmaSync:
    return "mma_sync";
  case DotEngine::Wgmma:
    return "wgmma";
  }
  return "default";
}

std::optional<DotEngine> parseDotEngine(const std::string &name) {
  for (DotEngine e : {DotEngine::Fma, DotEngine::MmaSync, DotEngine::Wgmma})
    if (name == dotEngineName(e))
      return e;
  return std::nullopt;
}

Expected<bool> validate(const KernelConfig &c) {
  for (size_t i = 0; i < c.blockSizes.size(); ++i)
    if (!isValidBlockSize(c.blockSizes[i]))
      return Failure{"block_sizes[" + std::to_string(i) + "] " +
                     std::to_string(c.blockSizes[i]) + " is outside 1.." +
                     std::to_string(kMaxBlockSize)};
  if (c.numWarps != 0 && !isValidNumWarps(c.numWarps))
    return Failure{"num_warps " + std::to_string(c.numWarps) +
                   " is outside 1.." + std::to_string(kMaxNumWarps)};
  if (c.maxCtas < 0)
    return Failure{"max_ctas " + std::to_string(c.maxCtas) +
                   " is negative (0: no cap)"};
  for (int64_t r : c.reductionLoops)
    if (r != 0 && !isValidBlockSize(r))
      return Failure{"reduction_loops entries are null or chunk sizes from 1 "
                     "to " +
                     std::to_string(kMaxBlockSize)};
  if (c.numStages < 0 || c.numStages > kMaxNumStages)
    return Failure{"num_stages " + std::to_string(c.numStages) +
                   " is outside 1.." + std::to_string(kMaxNumStages) +
                   " (0: the compiler's default)"};
  if (c.l2Grouping < 0 || c.l2Grouping > kMaxL2Grouping)
    return Failure{"l2_groupings " + std::to_string(c.l2Grouping) +
                   " is outside 1.." + std::to_string(kMaxL2Grouping) +
                   " (1: row-major)"};
  if (c.fastMath != 0 && c.fastMath != 1)
    return Failure{"fast_math " + std::to_string(c.fastMath) +
                   " is neither 0 nor 1"};
  if (c.maxNReg != 0 && (c.maxNReg < kMinMaxNReg || c.maxNReg > kMaxMaxNReg))
    return Failure{"maxnreg " + std::to_string(c.maxNReg) + " is outside " +
                   std::to_string(kMinMaxNReg) + ".." +
                   std::to_string(kMaxMaxNReg) +
                   " (0 or None: ptxas's choice)"};
  if (c.loadEvictionPolicies.size() > size_t(kMaxLoads))
    return Failure{"load_eviction_policies has " +
                   std::to_string(c.loadEvictionPolicies.size()) +
                   " entries, more than " + std::to_string(kMaxLoads)};
  return true;
}

} // namespace dslc::contract
