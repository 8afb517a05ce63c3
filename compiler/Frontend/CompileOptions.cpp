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

std::string TensorShape::spelling(const std::string &name) const {
  std::string text = (fromSimulation ? "--size " : "--shape ") + name + "=";
  for (size_t d = 0; d < sizes.size(); ++d)
    text += (d ? "x" : "") + std::to_string(sizes[d]);
  return text;
}

namespace {

/// A -D 'P.size(D)=N' and a --shape of P must agree on size D (-D would win
/// silently otherwise).
std::optional<std::string> checkShapeAgreement(const CompileOptions &options) {
  for (const auto &[key, text] : options.defines) {
    size_t dot = key.find(".size(");
    if (dot == std::string::npos || key.back() != ')')
      continue;
    auto shape = options.shapes.find(key.substr(0, dot));
    std::optional<uint64_t> dim = parseDecimal(
        std::string_view(key).substr(dot + 6).substr(0, key.size() - dot - 7));
    std::optional<uint64_t> value = parseDecimal(text);
    if (shape == options.shapes.end() || !dim || !value ||
        *dim >= shape->second.sizes.size())
      continue;
    int64_t given = shape->second.sizes[*dim];
    if (*value != static_cast<uint64_t>(given))
      return fmt::format("-D '{}={}' contradicts {} (whose size {} is {}); "
                         "give one of them",
                         key, text, shape->second.spelling(shape->first), *dim,
                         given);
  }
  return std::nullopt;
}

/// A -D NAME=VALUE that names what a flag also sets (world_size and
/// --world-size, my_rank/rank and --rank) must say the same number.
std::optional<std::string> checkAgreement(const CompileOptions &options,
                                          const std::string &name,
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

bool isRankName(std::string_view name) {
  for (std::string_view n : kRankNames)
    if (n == name)
      return true;
  return false;
}

bool isWorldSizeName(std::string_view name) {
  for (std::string_view n : kWorldSizeNames)
    if (n == name)
      return true;
  return false;
}

std::optional<std::string> checkCompileOptions(const CompileOptions &options) {
  for (std::string_view name : kWorldSizeNames) {
    auto ws = options.defines.find(std::string(name));
    if (ws == options.defines.end())
      continue;
    std::optional<uint64_t> value = parseDecimal(ws->second);
    if (isDecimal(ws->second) &&
        (!value || *value < 1 || *value > uint64_t(kMaxWorldSize)))
      return fmt::format("-D {}={}: the world size must be between "
                         "1 and {}",
                         name, ws->second, kMaxWorldSize);
    if (auto error = checkAgreement(options, std::string(name),
                                    options.worldSize, "--world-size"))
      return error;
  }
  for (std::string_view name : kRankNames)
    if (auto error =
            checkAgreement(options, std::string(name), options.rank, "--rank"))
      return error;
  if (auto error = checkShapeAgreement(options))
    return error;
  if (options.rank && options.worldSize && *options.rank >= *options.worldSize)
    return fmt::format("--rank={} is not below --world-size={}", *options.rank,
                       *options.worldSize);
  return std::nullopt;
}

} // namespace dslc
