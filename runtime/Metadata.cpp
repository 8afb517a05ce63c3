//===- Metadata.cpp - dslc kernel metadata (*.cubin.json) -----------------===//
#include "runtime/Metadata.h"

#include "contract/MetadataJson.h"
#include "contract/Sizing.h"
#include "runtime/Error.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

namespace dslc::rt {

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    raise(ErrorCode::Io, fmt::format("cannot open {}", path));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad())
    raise(ErrorCode::Io, fmt::format("cannot read {}", path));
  return ss.str();
}

KernelMetadata parseMetadata(const std::string &text,
                             const std::string &origin) {
  contract::Expected<KernelMetadata> md = contract::readMetadata(text, origin);
  if (!md)
    raise(ErrorCode::Metadata, md.error());
  return std::move(*md);
}

KernelMetadata loadMetadataFile(const std::string &path) {
  return parseMetadata(readFile(path), path);
}

int64_t
numTilesWith(const KernelMetadata &md,
             const std::function<int64_t(const GridExtent &)> &rawSize) {
  contract::Expected<int64_t> tiles = contract::numTiles(
      md, [&](const GridExtent &g) -> contract::Expected<int64_t> {
        return rawSize(g);
      });
  if (!tiles)
    raise(ErrorCode::InvalidArgument, tiles.error());
  return *tiles;
}

} // namespace dslc::rt
