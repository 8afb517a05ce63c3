//===- Sizing.cpp - Grid and buffer sizes that follow from metadata -------===//
#include "contract/Sizing.h"

#include <algorithm>
#include <limits>

namespace dslc::contract {

namespace {
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

/// a * b, or nullopt on overflow (a, b >= 0).
std::optional<int64_t> mul(int64_t a, int64_t b) {
  if (a != 0 && b > kMax / a)
    return std::nullopt;
  return a * b;
}
} // namespace

Expected<int64_t> numTiles(const KernelMetadata &md, const ExtentValue &value) {
  // Each loop's tiles; the launch takes the most of any loop (every CTA
  // strides over each loop in turn).
  auto loopTiles =
      [&](const std::vector<GridExtent> &loop) -> Expected<int64_t> {
    int64_t tiles = 1;
    for (const GridExtent &g : loop) {
      int64_t extent = 0;
      if (g.constant) {
        extent = *g.constant;
      } else {
        Expected<int64_t> raw = value(g);
        if (!raw)
          return Failure{raw.error()};
        extent = g.apply(*raw);
      }
      int64_t n = extent / g.block + (extent % g.block != 0 ? 1 : 0);
      std::optional<int64_t> product = mul(tiles, n);
      if (!product)
        return Failure{"kernel " + md.kernel + ": grid tile count overflows"};
      tiles = *product;
    }
    if (tiles > kMaxGridTiles)
      return Failure{"kernel " + md.kernel + ": its grid has " +
                     std::to_string(tiles) + " tiles, more than the " +
                     std::to_string(kMaxGridTiles) +
                     " a kernel's loop may have (use larger block sizes)"};
    return tiles;
  };
  Expected<int64_t> first = loopTiles(md.grid);
  if (!first)
    return first;
  int64_t most = *first;
  for (const std::vector<GridExtent> &loop : md.moreGrids) {
    Expected<int64_t> tiles = loopTiles(loop);
    if (!tiles)
      return tiles;
    most = std::max(most, *tiles);
  }
  return most;
}

std::optional<int64_t> constrainedSize(const KernelMetadata &md, int arg,
                                       unsigned dim, int64_t tiles) {
  const std::string &name = md.args.at(arg).name;
  std::optional<int64_t> lower;
  for (const Constraint &c : md.constraints) {
    if (c.param != name || c.dim != dim)
      continue;
    int64_t v = c.valueWith(tiles);
    if (c.op == "==")
      return v;
    if (c.op == ">=")
      lower = std::max(lower.value_or(v), v);
    else if (c.op == ">" && v < kMax)
      lower = std::max(lower.value_or(v + 1), v + 1);
  }
  return lower;
}

std::vector<int64_t> constrainedShape(const KernelMetadata &md, int arg,
                                      int world, int64_t tiles) {
  std::vector<int64_t> shape;
  for (int d = 0; d < md.args.at(arg).rank; ++d) {
    int64_t fallback = d == 0 ? tiles : world;
    int64_t v = constrainedSize(md, arg, static_cast<unsigned>(d), tiles)
                    .value_or(fallback);
    shape.push_back(std::max<int64_t>(v, 1));
  }
  return shape;
}

Expected<int64_t> llScratchBytes(const KernelMetadata &md, int arg, int world,
                                 int64_t tiles) {
  const ArgSpec &a = md.args.at(arg);
  if (a.role != Role::Scratch || a.packets.puts < 1 || a.packets.tileBytes < 1)
    return Failure{"kernel " + md.kernel + ": '" + a.name +
                   "' is not an LL scratch with packets"};
  // Two flag parities: a rank's next call writes the other half, so a slow
  // peer still polling this call's packets is not overwritten.
  std::optional<int64_t> bytes = mul(2, a.packets.puts);
  for (int64_t f :
       {int64_t(world), std::max<int64_t>(tiles, 1), a.packets.tileBytes})
    if (bytes)
      bytes = mul(*bytes, f);
  if (!bytes || *bytes > kMax - 15)
    return Failure{"kernel " + md.kernel + ": the LL scratch '" + a.name +
                   "' for " + std::to_string(tiles) + " tiles and " +
                   std::to_string(world) + " ranks overflows 64 bits"};
  return (*bytes + 15) / 16 * 16;
}

std::vector<SpecializedSize> specializedSizes(const KernelMetadata &md) {
  std::vector<SpecializedSize> out;
  for (const Constraint &c : md.constraints) {
    if (c.op != "==" || c.isNumTiles())
      continue;
    bool seen = std::any_of(out.begin(), out.end(), [&](const auto &s) {
      return s.param == c.param && s.dim == c.dim;
    });
    if (!seen)
      out.push_back({c.param, c.dim, std::get<int64_t>(c.value)});
  }
  return out;
}

std::string specializedSizesJson(const std::vector<SpecializedSize> &sizes) {
  // Parameter names are Python identifiers: nothing to escape.
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i)
    s += (i ? ", [\"" : "[\"") + sizes[i].param + "\", " +
         std::to_string(sizes[i].dim) + ", " + std::to_string(sizes[i].size) +
         "]";
  return s + "]";
}

} // namespace dslc::contract
