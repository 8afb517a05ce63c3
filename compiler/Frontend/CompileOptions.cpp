//===- CompileOptions.cpp - How a kernel is specialized -------------------===//

#include "compiler/Frontend/CompileOptions.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace dslc {

bool isDecimal(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return c >= '0' && c <= '9';
  });
}

std::optional<uint64_t> parseDecimal(std::string_view text) {
  if (!isDecimal(text))
    return std::nullopt;
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  uint64_t value = 0;
  for (char c : text) {
    unsigned digit = static_cast<unsigned>(c - '0');
    if (value > (kMax - digit) / 10)
      return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

namespace {

/// A -D NAME=VALUE that names what a flag also sets (world_size and
/// --world-size, my_rank/rank and --rank) must say the same number.
std::optional<std::string> checkAgreement(const CompileOptions &options,
                                          const char *name,
                                          std::optional<int64_t> flagValue,
                                          const char *flag) {
  auto it = options.defines.find(name);
  if (it == options.defines.end() || !flagValue)
    return std::nullopt;
  std::optional<uint64_t> value = parseDecimal(it->second);
  if (value && *value == static_cast<uint64_t>(*flagValue))
    return std::nullopt;
  return fmt::format("-D {}={} contradicts {} {}; give one of them", name,
                     it->second, flag, *flagValue);
}

} // namespace

std::optional<std::string> checkCompileOptions(const CompileOptions &options) {
  auto ws = options.defines.find("world_size");
  if (ws != options.defines.end()) {
    std::optional<uint64_t> value = parseDecimal(ws->second);
    if (isDecimal(ws->second) &&
        (!value || *value < 1 || *value > uint64_t(kMaxWorldSize)))
      return fmt::format("-D world_size={}: the world size must be between "
                         "1 and {}",
                         ws->second, kMaxWorldSize);
  }
  if (auto error = checkAgreement(options, "world_size", options.worldSize,
                                  "--world-size"))
    return error;
  for (const char *name : {"my_rank", "rank"})
    if (auto error = checkAgreement(options, name, options.rank, "--rank"))
      return error;
  if (options.rank && options.worldSize && *options.rank >= *options.worldSize)
    return fmt::format("--rank={} is not below --world-size={}", *options.rank,
                       *options.worldSize);
  return std::nullopt;
}

std::optional<std::string> canonicalDTypeName(std::string_view name) {
  static const std::pair<const char *, const char *> aliases[] = {
      {"bfloat16", "bfloat16"},
      {"bf16", "bfloat16"},
      {"float16", "float16"},
      {"half", "float16"},
      {"f16", "float16"},
      {"float32", "float32"},
      {"float", "float32"},
      {"f32", "float32"},
      {"float64", "float64"},
      {"double", "float64"},
      {"f64", "float64"},
      {"int8", "int8"},
      {"i8", "int8"},
      {"uint8", "uint8"},
      {"u8", "uint8"},
      {"int16", "int16"},
      {"i16", "int16"},
      {"int32", "int32"},
      {"i32", "int32"},
      {"int", "int64"},
      {"uint32", "uint32"},
      {"u32", "uint32"},
      {"int64", "int64"},
      {"i64", "int64"},
      {"long", "int64"},
      {"uint64", "uint64"},
      {"u64", "uint64"},
      {"bool", "bool"},
      {"float8_e4m3fn", "float8_e4m3fn"},
      {"f8e4m3", "float8_e4m3fn"},
      {"float8_e5m2", "float8_e5m2"},
      {"f8e5m2", "float8_e5m2"}};
  for (auto [alias, canon] : aliases)
    if (name == alias)
      return std::string(canon);
  return std::nullopt;
}

const char *canonicalDTypeNames() {
  return "bfloat16 float16 float32 float64 int8 uint8 int16 int32 uint32 "
         "int64 uint64 bool float8_e4m3fn float8_e5m2";
}

} // namespace dslc
