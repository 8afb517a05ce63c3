//===- JsonSupport.h - JSON pieces shared by the contract's files -*- C++
//-*-===//
//
// Private to contract/*.cpp (the public headers carry no JSON library): the
// JSON form of configs and tunables, which the metadata, the tuning cache
// and the candidates manifest all embed, and a field reader whose messages
// name the file and the field.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_CONTRACT_JSONSUPPORT_H
#define DSLC_CONTRACT_JSONSUPPORT_H

#include "contract/KernelConfig.h"

#include <nlohmann/json.hpp>

#include <string>

namespace dslc::contract::detail {

/// Key order as written (metadata files are read by people too).
using json = nlohmann::ordered_json;

json configToJson(const KernelConfig &config, bool forCompiler);
json tunableToJson(const Tunable &t);

/// Thrown inside the contract's readers only (never across the library's
/// interface): the message is complete.
struct ReadError {
  std::string message;
};

/// Reads the fields of one JSON object; every message starts with
/// "<prefix><where>" (e.g. "metadata k.json: params[2] 'x': ").
class FieldReader {
public:
  explicit FieldReader(std::string prefix) : prefix_(std::move(prefix)) {}

  [[noreturn]] void fail(const std::string &where,
                         const std::string &what) const;
  const json &need(const json &obj, const char *key,
                   const std::string &where) const;
  const json &object(const json &obj, const char *key,
                     const std::string &where) const;
  const json &array(const json &obj, const char *key,
                    const std::string &where) const;
  /// obj[key], an array of integers.
  std::vector<int64_t> integers(const json &obj, const char *key,
                                const std::string &where) const;
  std::string str(const json &obj, const char *key,
                  const std::string &where) const;
  std::string strOr(const json &obj, const char *key, const std::string &dflt,
                    const std::string &where) const;
  int64_t integer(const json &obj, const char *key,
                  const std::string &where) const;
  int64_t integerOr(const json &obj, const char *key, int64_t dflt,
                    const std::string &where) const;
  double number(const json &obj, const char *key,
                const std::string &where) const;
  double numberOr(const json &obj, const char *key, double dflt,
                  const std::string &where) const;
  bool boolean(const json &obj, const char *key, bool dflt,
               const std::string &where) const;
  /// A tunable record ({"kind", "index"|"name", "value", "min", "max",
  /// "choices"}), its value checked against its range.
  Tunable tunable(const json &t, const std::string &where) const;
  /// A config object, validated: the one reader of configs (the key
  /// policy of classifyConfigKey).
  KernelConfig config(const json &c, const std::string &where) const;

private:
  std::string prefix_;
};

/// Parses `text` as a JSON object; fails with "<prefix>not valid JSON: ..."
/// or "<prefix>top level is not an object".
json parseObject(const std::string &text, const FieldReader &reader);

} // namespace dslc::contract::detail

#endif // DSLC_CONTRACT_JSONSUPPORT_H
