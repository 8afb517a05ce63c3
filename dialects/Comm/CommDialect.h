//===- CommDialect.h - The Comm dialect -------------------------*- C++ -*-===//

#ifndef DSLC_DIALECTS_COMM_COMMDIALECT_H
#define DSLC_DIALECTS_COMM_COMMDIALECT_H

#include "dialects/Tile/TileDialect.h"

#include "dialects/Comm/CommDialect.h.inc"

#include "dialects/Comm/CommEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/Comm/CommTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Comm/CommAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/Comm/CommOps.h.inc"

#include <optional>
#include <string>

namespace dslc::comm {
/// Data bytes an LL packet of `packet` bytes carries: half of it, each
/// 4-byte data word followed by a 4-byte flag (docs/dialects.md, "LL
/// packets").
constexpr int64_t packetPayloadBytes(int64_t packet) { return packet / 2; }

/// Why a tile cannot travel in `packet`-byte LL packets (comm.ll_put /
/// comm.ll_get), or nothing: the verifier's rule, which MLIRGen checks
/// first to report it at the program's line.
std::optional<std::string> packetTileProblem(mlir::RankedTensorType tile,
                                             int64_t packet);
} // namespace dslc::comm

#endif // DSLC_DIALECTS_COMM_COMMDIALECT_H
