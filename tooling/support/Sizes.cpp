//===- Sizes.cpp - Sizes, shapes and values on the command line -----------===//
#include "tooling/support/Sizes.h"

#include "contract/BindingPlan.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace dslc::tooling {

using contract::Failure;

Expected<int64_t> parseSize(const std::string &text) {
  auto bad = [&](const char *why) {
    return Failure{fmt::format("bad size '{}': {}", text, why)};
  };
  if (text.empty())
    return bad("empty");
  int shift = 0;
  std::string digits = text;
  switch (text.back()) {
  case 'K':
  case 'k':
    shift = 10;
    break;
  case 'M':
  case 'm':
    shift = 20;
    break;
  case 'G':
  case 'g':
    shift = 30;
    break;
  default:
    break;
  }
  if (shift)
    digits.pop_back();
  if (digits.empty() ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return bad("a size is digits with an optional K, M or G (1024, 8K, 4M)");
  errno = 0;
  unsigned long long v = std::strtoull(digits.c_str(), nullptr, 10);
  if (errno == ERANGE || v > (1ull << 62) >> shift)
    return bad("too large (at most 2^62)");
  return static_cast<int64_t>(v << shift);
}

Expected<std::vector<int64_t>> parseSizeList(const std::string &text,
                                             int64_t minimum) {
  std::vector<int64_t> out;
  std::stringstream ss(text);
  std::string item;
  auto atLeast = [&](int64_t v) -> Expected<int64_t> {
    if (v < minimum)
      return Failure{
          fmt::format("size {} in '{}' is below {}", v, text, minimum)};
    return v;
  };
  while (std::getline(ss, item, ',')) {
    if (item.empty())
      continue;
    size_t dots = item.find("..");
    if (dots == std::string::npos) {
      Expected<int64_t> v = parseSize(item);
      if (v)
        v = atLeast(*v);
      if (!v)
        return Failure{v.error()};
      out.push_back(*v);
      continue;
    }
    Expected<int64_t> a = parseSize(item.substr(0, dots));
    Expected<int64_t> b = parseSize(item.substr(dots + 2));
    if (a)
      a = atLeast(std::max<int64_t>(*a, 1));
    if (!a || !b)
      return Failure{!a ? a.error() : b.error()};
    if (*b < *a)
      return Failure{fmt::format("range '{}' ends below its start", item)};
    for (int64_t v = *a; v <= *b; v *= 2)
      out.push_back(v);
  }
  if (out.empty())
    return Failure{fmt::format("no sizes in '{}'", text)};
  return out;
}

std::string formatSize(int64_t n) {
  const char *units[] = {"", "K", "M", "G"};
  int u = 0;
  while (u < 3 && n >= 1024 && n % 1024 == 0) {
    n /= 1024;
    ++u;
  }
  return std::to_string(n) + units[u];
}

Expected<std::vector<int64_t>> parseShape(const std::string &text) {
  std::vector<int64_t> shape;
  size_t pos = 0;
  while (true) {
    size_t x = text.find('x', pos);
    std::string part =
        text.substr(pos, x == std::string::npos ? std::string::npos : x - pos);
    Expected<int64_t> v = parseSize(part);
    if (!v)
      return Failure{fmt::format(
          "bad shape '{}': each extent is a size (e.g. 4x8192, 1Kx4K)", text)};
    shape.push_back(*v);
    if (x == std::string::npos)
      return shape;
    pos = x + 1;
  }
}

int64_t numel(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

std::string formatShape(const std::vector<int64_t> &shape) {
  return contract::formatShape(shape);
}

Expected<NamedText> splitNamed(const std::string &text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    return Failure{fmt::format("'{}' is not NAME=VALUE", text)};
  return NamedText{text.substr(0, eq), text.substr(eq + 1)};
}

Expected<double> parseNumber(const std::string &text) {
  char *end = nullptr;
  errno = 0;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end || errno == ERANGE)
    return Failure{fmt::format("'{}' is not a number", text)};
  return v;
}

} // namespace dslc::tooling
