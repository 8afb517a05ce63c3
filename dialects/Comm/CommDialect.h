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

#endif // DSLC_DIALECTS_COMM_COMMDIALECT_H
