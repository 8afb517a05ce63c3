//===- StagedOps.cpp - staged buffers, async copies, staged dots ---------===//
//
// The rules of the ops -dslc-pipeline-dots makes (TileOps.td says what
// they do): #tile.staged buffers in the shared workspace, tile.async_copy
// into one of their stages, tile.async_wait and tile.staged_dot.
//
//===----------------------------------------------------------------------===//

#include "dialects/Tile/TileDialect.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace dslc::tile;

/// The most stages a buffer may hold, and the workspace bytes it may end at
/// (sm_90's opt-in limit per CTA; the lowering checks the kernel's total).
static constexpr int64_t kMaxStages = dslc::contract::kMaxNumStages;
static constexpr int64_t kMaxWorkspaceBytes =
    dslc::contract::kMaxSharedBytesPerCta;

int64_t StagedBufferAttr::elementBytes() const {
  return std::max<int64_t>(1, getElement().getIntOrFloatBitWidth() / 8);
}

int64_t StagedBufferAttr::stageBytes() const {
  return llvm::alignTo(getShape()[0] * getPitch() * elementBytes(),
                       getSwizzle() ? 1024 : 128);
}

LogicalResult
StagedBufferAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         Type element, ArrayRef<int64_t> shape, int64_t offset,
                         int64_t pitch, int64_t stages, int64_t swizzle) {
  if (!(element.isBF16() || element.isF16() || isFp8Type(element)))
    return emitError() << "#tile.staged holds bf16, f16 or fp8 tiles, got "
                       << element;
  if (isFp8Type(element) && !swizzle)
    return emitError() << "#tile.staged holds fp8 tiles for wgmma only "
                          "(swizzled; ldmatrix reads 16-bit elements)";
  if (shape.size() != 2 || shape[0] < 1 || shape[1] < 1)
    return emitError() << "#tile.staged holds a 2-d tile of positive sizes";
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  if (shape[1] * bytes % 16 || pitch < shape[1] || pitch * bytes % 16)
    return emitError() << "#tile.staged rows are whole 16-byte units: "
                       << shape[1] << " columns, pitch " << pitch;
  if (offset < 0 || offset % 128)
    return emitError() << "#tile.staged offset " << offset
                       << " is not a non-negative multiple of 128";
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << "#tile.staged swizzle is 32, 64 or 128 bytes (or "
                          "none), got "
                       << swizzle;
  if (swizzle && (pitch != shape[1] || shape[1] * bytes % swizzle ||
                  shape[0] % 8 || offset % 1024))
    return emitError() << "a #tile.staged swizzle of " << swizzle
                       << " bytes needs unpadded rows (pitch = " << shape[1]
                       << ") of whole " << swizzle
                       << "-byte atoms, rows a multiple of 8 and an offset "
                          "that is a multiple of 1024";
  if (stages < 1 || stages > kMaxStages)
    return emitError() << "#tile.staged holds 1.." << kMaxStages
                       << " stages, got " << stages;
  // Each factor is bounded above (shape by the tile sizes a kernel may
  // have), but check the product against the workspace before it can wrap.
  if (shape[0] > kMaxWorkspaceBytes || pitch > kMaxWorkspaceBytes ||
      offset + stages * llvm::alignTo(shape[0] * pitch * bytes,
                                      swizzle ? 1024 : 128) >
          kMaxWorkspaceBytes)
    return emitError() << "#tile.staged ends past the " << kMaxWorkspaceBytes
                       << " bytes of shared memory a CTA may have";
  return success();
}

LogicalResult AsyncCopyOp::verify() {
  RefType ref = getRef().getType();
  StagedBufferAttr buffer = getBuffer();
  if (ref.getElementType() != buffer.getElement())
    return emitOpError() << "copies " << ref.getElementType()
                         << " elements into a buffer of "
                         << buffer.getElement();
  if (getOffsets().size() != ref.getRank() ||
      getLimits().size() != ref.getRank())
    return emitOpError() << "needs one offset and one limit per dimension of "
                         << ref << ", got " << getOffsets().size() << " and "
                         << getLimits().size();
  ArrayRef<int64_t> dims = getDims();
  if (dims.size() != 2 || dims[1] != int64_t(ref.getRank()) - 1 ||
      dims[0] < 0 || dims[0] >= dims[1])
    return emitOpError() << "copies rows along a leading dimension and "
                            "columns along the last of "
                         << ref;
  return success();
}

LogicalResult AsyncWaitOp::verify() {
  int64_t pending = getPendingAttr().getInt();
  if (pending < 0 || pending >= kMaxStages)
    return emitOpError() << "pending must be in 0.." << kMaxStages - 1
                         << ", got " << pending;
  return success();
}

LogicalResult StagedDotOp::verify() {
  auto result = cast<RankedTensorType>(getResult().getType());
  auto mma = dyn_cast_if_present<MmaEncodingAttr>(result.getEncoding());
  if (!mma || result.getRank() != 2 || !result.getElementType().isF32())
    return emitOpError() << "computes a 2-d f32 tile encoded #tile.mma, got "
                         << result;
  StagedBufferAttr lhs = getLhs(), rhs = getRhs();
  int64_t m = result.getDimSize(0), n = result.getDimSize(1);
  int64_t k = lhs.getShape()[1];
  bool kMajor = getRhsKMajor();
  ArrayRef<int64_t> rhsShape = rhs.getShape();
  if (lhs.getElement() != rhs.getElement() || lhs.getShape()[0] != m ||
      rhsShape[kMajor ? 1 : 0] != k || rhsShape[kMajor ? 0 : 1] != n)
    return emitOpError() << "multiplies [" << m << ", K] by "
                         << (kMajor ? "[N, K] (rhs_k_major)" : "[K, N]")
                         << " tiles of one element type, N = " << n
                         << ", got lhs " << lhs << " and rhs " << rhs;
  int64_t kStep = kStagedStepBytes / lhs.elementBytes();
  if (k % kStep)
    return emitOpError() << "needs K a multiple of " << kStep
                         << " (the tensor cores' k-step), got " << k;
  if (kMajor && !lhs.getSwizzle())
    return emitOpError() << "reads a K-major rhs (rhs_k_major) with wgmma "
                            "only (swizzled buffers)";
  if (m % (16 * mma.getWarpsM()) || n % (16 * mma.getWarpsN()))
    return emitOpError() << "a " << m << "x" << n
                         << " result does not split into " << mma.getWarpsM()
                         << "x" << mma.getWarpsN()
                         << " warp blocks of whole 16x16 fragments";
  if (lhs.getStages() != rhs.getStages())
    return emitOpError() << "reads buffers of " << lhs.getStages() << " and "
                         << rhs.getStages() << " stages";
  if (bool(lhs.getSwizzle()) != bool(rhs.getSwizzle()))
    return emitOpError() << "reads one swizzled (wgmma) and one padded "
                            "(ldmatrix) buffer";
  if (lhs.getSwizzle() && (mma.getWarpsN() != 1 || mma.getWarpsM() % 4 ||
                           m != 16 * mma.getWarpsM() || n % 16 || n > 256))
    return emitOpError() << "reads swizzled buffers with wgmma, which needs "
                            "one m64 row block per warpgroup and N a "
                            "multiple of 16 up to 256, got "
                         << result;
  if (getPending() > 1)
    return emitOpError() << "leaves 0 or 1 products in flight, got pending = "
                         << getPending();
  if (getPending() && !lhs.getSwizzle())
    return emitOpError() << "leaves a product in flight (pending = 1), which "
                            "only wgmma (swizzled buffers) does";
  return success();
}

LogicalResult DotWaitOp::verify() {
  auto type = cast<RankedTensorType>(getResult().getType());
  if (!isa_and_present<MmaEncodingAttr>(type.getEncoding()) ||
      !type.getElementType().isF32())
    return emitOpError() << "waits for a tensor-core accumulator (f32 encoded "
                            "#tile.mma), got "
                         << type;
  return success();
}
