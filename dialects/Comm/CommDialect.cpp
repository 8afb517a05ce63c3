//===- CommDialect.cpp - Comm dialect, types and op verifiers ------------===//

#include "dialects/Comm/CommDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

using namespace mlir;
using namespace dslc;
using namespace dslc::comm;

#include "dialects/Comm/CommDialect.cpp.inc"
#include "dialects/Comm/CommEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/Comm/CommTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Comm/CommAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "dialects/Comm/CommOps.cpp.inc"

void CommDialect::initialize() {
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "dialects/Comm/CommOps.cpp.inc"
      >();
}

void CommDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/Comm/CommTypes.cpp.inc"
      >();
}

void CommDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Comm/CommAttrs.cpp.inc"
      >();
}

LogicalResult StackType::verify(function_ref<InFlightDiagnostic()> emitError,
                                Type elementType, unsigned rank) {
  return tile::verifyMemoryTensorType(emitError, "!comm.stack", elementType,
                                      rank);
}

/// Pads hold 32-bit integer flags.
static LogicalResult verifyPadElement(Operation *op, Type element) {
  if (!element.isInteger(32))
    return op->emitOpError() << "pad must hold 32-bit integers "
                                "(int32/uint32), got "
                             << element;
  return success();
}

/// A flag value must fit a 32-bit slot, read as int32 or uint32.
static LogicalResult verifyFlagValue(Operation *op, StringRef name,
                                     int64_t value) {
  if (value < std::numeric_limits<int32_t>::min() ||
      value > std::numeric_limits<uint32_t>::max())
    return op->emitOpError() << "'" << name << "' value " << value
                             << " does not fit a 32-bit pad slot (expected "
                                "a value in ["
                             << std::numeric_limits<int32_t>::min() << ", "
                             << std::numeric_limits<uint32_t>::max() << "])";
  return success();
}

/// Indices and extents address a box of slots: one of each per dimension.
static LogicalResult verifySlotBox(Operation *op, unsigned rank,
                                   size_t numIndices,
                                   ArrayRef<int64_t> extents) {
  if (numIndices != rank)
    return op->emitOpError()
           << "needs " << rank
           << " indices (one per dimension of the pad), got " << numIndices;
  if (extents.size() != rank)
    return op->emitOpError()
           << "needs " << rank
           << " extents (one per dimension of the pad), got " << extents.size();
  for (auto [i, e] : llvm::enumerate(extents))
    if (e <= 0)
      return op->emitOpError()
             << "extent of dimension " << i << " must be positive, got " << e;
  return success();
}

LogicalResult StackViewOp::verify() {
  tile::RefType table = getTable().getType();
  if (table.getRank() != 1 || !table.getElementType().isInteger(64))
    return emitOpError() << "address table must be a 1-d tensor of 64-bit "
                            "integers (!tile.ref<i64, 1>), got "
                         << table;
  tile::RefType like = getLike().getType();
  StackType result = getResult().getType();
  if (like.getElementType() != result.getElementType())
    return emitOpError() << "result element type " << result.getElementType()
                         << " does not match the element type "
                         << like.getElementType() << " of 'like' " << like;
  if (like.getRank() != result.getRank())
    return emitOpError() << "result rank " << result.getRank()
                         << " does not match the rank " << like.getRank()
                         << " of 'like' " << like;
  return success();
}

LogicalResult PeerOp::verify() {
  StackType stack = getStack().getType();
  tile::RefType ref = getResult().getType();
  if (stack.getElementType() != ref.getElementType())
    return emitOpError() << "result element type " << ref.getElementType()
                         << " does not match the stack's element type "
                         << stack.getElementType();
  if (stack.getRank() != ref.getRank())
    return emitOpError() << "result rank " << ref.getRank()
                         << " does not match the stack's rank "
                         << stack.getRank();
  return success();
}

LogicalResult SignalOp::verify() {
  Type element;
  unsigned rank;
  if (auto ref = dyn_cast<tile::RefType>(getPad().getType())) {
    element = ref.getElementType();
    rank = ref.getRank();
  } else {
    auto stack = cast<StackType>(getPad().getType());
    element = stack.getElementType();
    rank = stack.getRank();
  }
  if (failed(verifyPadElement(*this, element)) ||
      failed(verifySlotBox(*this, rank, getIndices().size(), getExtents())) ||
      failed(verifyFlagValue(*this, "signal", getSignal())))
    return failure();
  if (std::optional<int64_t> waitFor = getWaitFor())
    if (failed(verifyFlagValue(*this, "wait_for", *waitFor)))
      return failure();
  if (getSem() == MemSem::acquire)
    return emitOpError("a signal cannot have acquire semantics; use "
                       "'release', 'acq_rel' or 'relaxed'");
  return success();
}

LogicalResult WaitOp::verify() {
  tile::RefType pad = getPad().getType();
  if (failed(verifyPadElement(*this, pad.getElementType())) ||
      failed(verifySlotBox(*this, pad.getRank(), getIndices().size(),
                           getExtents())) ||
      failed(verifyFlagValue(*this, "signal", getSignal())))
    return failure();
  if (std::optional<int64_t> update = getUpdate())
    if (failed(verifyFlagValue(*this, "update", *update)))
      return failure();
  if (getSem() == MemSem::release)
    return emitOpError("a wait cannot have release semantics; use "
                       "'acquire', 'acq_rel' or 'relaxed'");
  return success();
}

std::optional<std::string> dslc::comm::packetTileProblem(RankedTensorType tile,
                                                         int64_t packet) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (packet != 8 && packet != 16) {
    os << "packet size must be 8 or 16 bytes, got " << packet;
    return text;
  }
  if (!tile.hasStaticShape() || tile.getRank() != 1) {
    os << "packets carry a static 1-d tile, got '" << tile << "'";
    return text;
  }
  Type element = tile.getElementType();
  if (!element.isIntOrFloat() || (element.getIntOrFloatBitWidth() != 16 &&
                                  element.getIntOrFloatBitWidth() != 32)) {
    os << "packets carry 16- or 32-bit integer or float elements, got '"
       << element << "'";
    return text;
  }
  if (tile.getNumElements() == 0) {
    os << "packets carry a non-empty tile, got '" << tile << "'";
    return text;
  }
  unsigned bits = element.getIntOrFloatBitWidth();
  int64_t payload = packetPayloadBytes(packet);
  int64_t bytes = tile.getNumElements() * bits / 8;
  if (bytes % payload != 0) {
    os << "a tile of " << tile.getNumElements() << " elements (" << bytes
       << " bytes) does not fill whole " << packet << "-byte packets ("
       << payload << " data bytes each)";
    return text;
  }
  return std::nullopt;
}

static LogicalResult verifyPacket(Operation *op, int64_t packet,
                                  RankedTensorType tile) {
  if (std::optional<std::string> problem =
          dslc::comm::packetTileProblem(tile, packet))
    return op->emitOpError() << *problem;
  return success();
}

LogicalResult LLPutOp::verify() {
  return verifyPacket(*this, getPacket(), getValue().getType());
}

LogicalResult LLGetOp::verify() {
  return verifyPacket(*this, getPacket(), getResult().getType());
}

LogicalResult MulticastStoreOp::verify() {
  StackType stack = getStack().getType();
  return tile::verifyTileAccess(
      *this, "stack", stack.getElementType(), stack.getRank(),
      getValue().getType(), getOffsets().size(), getLimits().size(), getDims());
}

LogicalResult MulticastLoadReduceOp::verify() {
  // The element type equals the stack's, an integer or float type: every
  // such type can be summed.
  StackType stack = getStack().getType();
  return tile::verifyTileAccess(*this, "stack", stack.getElementType(),
                                stack.getRank(), getResult().getType(),
                                getOffsets().size(), getLimits().size(),
                                getDims());
}
