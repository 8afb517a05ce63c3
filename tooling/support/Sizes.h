//===- Sizes.h - Sizes, shapes and values on the command line ---*- C++ -*-===//
//
// One spelling of sizes for every tool: "8191", "1K" (1024), "4M", "2G"
// (binary multiples, either case), lists "1K,64K,1M", ranges "1K..64M"
// (powers of two from the first to the last), shapes "4x8192", a named
// shape "x=4x8192" and a named value "eps=1e-6". Each parser returns the
// value or a message naming the text.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLING_SUPPORT_SIZES_H
#define DSLC_TOOLING_SUPPORT_SIZES_H

#include "contract/Expected.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dslc::tooling {

using contract::Expected;

/// A non-negative count: digits with an optional K, M or G (x 2^10, 2^20,
/// 2^30). Fails on anything else and on values above 2^62.
Expected<int64_t> parseSize(const std::string &text);
/// "1K,64K" or "1K..64M" (powers of two, both ends) or a mix; every size
/// at least `minimum`.
Expected<std::vector<int64_t>> parseSizeList(const std::string &text,
                                             int64_t minimum = 1);
/// 1024 -> "1K", 65536 -> "64K", 1048576 -> "1M", 1000 -> "1000".
std::string formatSize(int64_t n);

/// "4x8192" -> {4, 8192}; "8192" -> {8192}; every extent a size >= 0.
Expected<std::vector<int64_t>> parseShape(const std::string &text);
/// The product of the extents (1 for a scalar's empty shape).
int64_t numel(const std::vector<int64_t> &shape);
/// {4, 8192} -> "4x8192" ({} -> "scalar").
std::string formatShape(const std::vector<int64_t> &shape);

/// "NAME=VALUE", split at the first '='; fails when either side is empty.
struct NamedText {
  std::string name, value;
};
Expected<NamedText> splitNamed(const std::string &text);

/// A decimal or scientific number ("1e-6", "-3", "0.5"), all of the text.
Expected<double> parseNumber(const std::string &text);

} // namespace dslc::tooling

#endif // DSLC_TOOLING_SUPPORT_SIZES_H
