//===- TuningCache.cpp - The tuning cache's format and location -----------===//
#include "contract/TuningCache.h"

#include "contract/JsonSupport.h"

#include <cstdlib>
#include <ctime>

namespace dslc::contract {

using detail::FieldReader;
using detail::json;

namespace {
constexpr const char *kFormat = "dslc-tuning-cache";
constexpr int kVersion = 1;

json choiceToJson(const KernelChoice &c) {
  return json{{"kernel", c.kernel},
              {"file", c.file},
              {"sha256", c.sha256},
              {"cubin", c.cubin},
              {"config", detail::configToJson(c.config, false)},
              {"us", c.us},
              {"eager_us", c.eagerUs}};
}

KernelChoice choiceFromJson(const FieldReader &r, const json &j,
                            const std::string &where) {
  if (!j.is_object())
    r.fail(where, "not an object");
  KernelChoice c;
  c.kernel = r.str(j, "kernel", where);
  c.file = r.strOr(j, "file", "", where);
  c.sha256 = r.strOr(j, "sha256", "", where);
  c.cubin = r.strOr(j, "cubin", "", where);
  c.config = r.config(r.need(j, "config", where), where + "config: ");
  c.us = r.number(j, "us", where);
  c.eagerUs = r.numberOr(j, "eager_us", 0.0, where);
  return c;
}

json recordToJson(const TuningRecord &r) {
  const TuningKey &k = r.key;
  const TuningValue &v = r.value;
  json per = json::array();
  for (const KernelChoice &c : v.perKernel)
    per.push_back(choiceToJson(c));
  json out{{"key",
            {{"collective", k.collective},
             {"kernel", k.kernel},
             {"device", k.device},
             {"driver", k.driver},
             {"world_size", k.worldSize},
             {"dtype", k.dtype},
             {"bucket", k.bucket}}},
           {"value",
            {{"pick", choiceToJson(v.pick)},
             {"per_kernel", per},
             {"nccl_us", v.ncclUs},
             {"nccl_eager_us", v.ncclEagerUs},
             {"size", v.size},
             {"date", v.date},
             {"candidates", v.candidates}}}};
  if (!k.shape.empty())
    out["key"]["shape"] = k.shape;
  return out;
}

TuningRecord recordFromJson(const FieldReader &r, const json &j) {
  if (!j.is_object())
    r.fail("", "not an object");
  TuningRecord rec;
  const json &k = r.object(j, "key", "");
  rec.key.collective = r.str(k, "collective", "key: ");
  rec.key.kernel = r.str(k, "kernel", "key: ");
  rec.key.device = r.str(k, "device", "key: ");
  rec.key.driver = r.str(k, "driver", "key: ");
  rec.key.worldSize = static_cast<int>(r.integer(k, "world_size", "key: "));
  rec.key.dtype = r.str(k, "dtype", "key: ");
  rec.key.bucket = static_cast<int>(r.integer(k, "bucket", "key: "));
  rec.key.shape = r.strOr(k, "shape", "", "key: ");
  const json &v = r.object(j, "value", "");
  rec.value.pick =
      choiceFromJson(r, r.need(v, "pick", "value: "), "value.pick: ");
  if (v.contains("per_kernel")) {
    const json &per = r.array(v, "per_kernel", "value: ");
    for (size_t i = 0; i < per.size(); ++i)
      rec.value.perKernel.push_back(choiceFromJson(
          r, per[i], "value.per_kernel[" + std::to_string(i) + "]: "));
  }
  rec.value.ncclUs = r.numberOr(v, "nccl_us", 0.0, "value: ");
  rec.value.ncclEagerUs = r.numberOr(v, "nccl_eager_us", 0.0, "value: ");
  rec.value.size = r.integerOr(v, "size", 0, "value: ");
  rec.value.date = r.strOr(v, "date", "", "value: ");
  rec.value.candidates = r.strOr(v, "candidates", "", "value: ");
  return rec;
}
} // namespace

bool TuningKey::operator==(const TuningKey &o) const {
  return collective == o.collective && kernel == o.kernel &&
         device == o.device && driver == o.driver && worldSize == o.worldSize &&
         dtype == o.dtype && bucket == o.bucket && shape == o.shape;
}

std::string tunedDtype(const std::vector<ArgSpec> &args) {
  for (Role role : {Role::Input, Role::Output})
    for (const ArgSpec &a : args)
      if (a.isTensor() && isFloating(a.dtype) && a.role == role)
        return dtypeName(a.dtype);
  return "";
}

std::string tuningDeviceName(const std::string &gpu, bool virtualWorld) {
  return virtualWorld ? gpu + " (virtual world)" : gpu;
}

std::string TuningKey::str() const {
  return (collective.empty() ? std::string("kernel") : collective) + " " +
         kernel + " on " + std::to_string(worldSize) + "x " + device + " (" +
         driver + "), " + dtype + ", bucket 2^" + std::to_string(bucket) +
         (shape.empty() ? "" : ", shape " + shape);
}

void putRecord(std::vector<TuningRecord> &records, TuningRecord record) {
  bool replaced = false;
  for (TuningRecord &o : records)
    if (o.key == record.key) {
      o = record;
      replaced = true;
    }
  if (!replaced)
    records.push_back(std::move(record));
}

int sizeBucket(int64_t count) {
  int b = 0;
  while (count > 1) {
    count >>= 1;
    ++b;
  }
  return b;
}

Expected<std::string> cacheDir(const std::string &dir) {
  if (!dir.empty())
    return dir;
  if (const char *d = std::getenv("DSLC_CACHE_DIR"); d && *d)
    return std::string(d);
  if (const char *x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return std::string(x) + "/dslc";
  if (const char *h = std::getenv("HOME"); h && *h)
    return std::string(h) + "/.cache/dslc";
  return Failure{"no cache directory: none of DSLC_CACHE_DIR, XDG_CACHE_HOME "
                 "and HOME is set (set DSLC_CACHE_DIR, or pass --cache-dir)"};
}

const KernelConfig *tunedConfigOf(const TuningValue &value,
                                  const std::string &kernel,
                                  const std::string &sha256) {
  for (const KernelChoice &k : value.perKernel)
    if (k.kernel == kernel && k.sha256 == sha256)
      return &k.config;
  return nullptr;
}

std::string tuningCacheFile(const std::string &dir) {
  return dir + "/tuning.json";
}

std::string isoDateNow() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::vector<TuningRecord> parseTuningCache(const std::string &text,
                                           const std::string &origin,
                                           const WarningHandler &warn) {
  std::vector<TuningRecord> out;
  const std::string prefix = "tuning cache " + origin + ": ";
  json j;
  try {
    j = detail::parseObject(text, FieldReader(prefix));
  } catch (const detail::ReadError &) {
    warn("tuning cache " + origin +
         " is not a JSON object (damaged?); "
         "ignored");
    return out;
  }
  if (j.value("format", "") != kFormat) {
    warn(prefix + "format is not '" + kFormat + "'; ignored");
    return out;
  }
  json version = j.value("version", json());
  if (!version.is_number_integer() || version.get<int64_t>() < 1 ||
      version.get<int64_t>() > kVersion) {
    warn(prefix + "version " + version.dump() + " (this build reads " +
         std::to_string(kVersion) + "); ignored");
    return out;
  }
  if (!j.contains("entries") || !j["entries"].is_array()) {
    warn(prefix + "no 'entries' array; ignored");
    return out;
  }
  const json &entries = j["entries"];
  for (size_t idx = 0; idx < entries.size(); ++idx) {
    std::string where = prefix + "entries[" + std::to_string(idx) + "]";
    TuningRecord r;
    try {
      r = recordFromJson(FieldReader(""), entries[idx]);
    } catch (const detail::ReadError &e) {
      warn(where + " ignored: " + e.message);
      continue;
    }
    putRecord(out, std::move(r));
  }
  return out;
}

std::string serializeTuningCache(const std::vector<TuningRecord> &records) {
  json entries = json::array();
  for (const TuningRecord &r : records)
    entries.push_back(recordToJson(r));
  json j{{"format", kFormat}, {"version", kVersion}, {"entries", entries}};
  return j.dump(1) + "\n";
}

std::string
shapeKey(const std::map<std::string, std::vector<int64_t>> &shapes) {
  std::string s;
  for (const auto &[name, dims] : shapes) {
    s += (s.empty() ? "" : ",") + name + "=";
    for (size_t d = 0; d < dims.size(); ++d)
      s += (d ? "x" : "") + std::string("b") +
           std::to_string(sizeBucket(dims[d]));
  }
  return s;
}

Expected<std::string> shapeKeyOfJson(const std::string &shapesJson) {
  json j = json::parse(shapesJson, nullptr, /*allow_exceptions=*/false);
  auto bad = [&](const std::string &why) {
    return Expected<std::string>(Failure{"tuning cache query: shapes " + why +
                                         ": " + shapesJson.substr(0, 200)});
  };
  if (!j.is_object())
    return bad("must be a JSON object of name: [sizes]");
  std::map<std::string, std::vector<int64_t>> shapes;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it.value().is_array())
      return bad("of '" + it.key() + "' are not a list");
    for (const json &d : it.value()) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0)
        return bad("of '" + it.key() + "' are not sizes");
      shapes[it.key()].push_back(d.get<int64_t>());
    }
  }
  return shapeKey(shapes);
}

} // namespace dslc::contract
