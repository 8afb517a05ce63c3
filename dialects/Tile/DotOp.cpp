//===- DotOp.cpp - tile.dot, its tensor-core layout and conversions -------===//
//
// The rules of `result = acc + lhs @ rhs` on 2-d tiles (or 3-d: a batch)
// (TileOps.td says what the op computes), of the #tile.mma encoding its
// tensor-core results carry, and of tile.convert_layout.
//
//===----------------------------------------------------------------------===//

#include "dialects/Tile/TileDialect.h"

using namespace mlir;
using namespace dslc::tile;

/// Element types a matmul input may have: f32, the 16-bit floats, fp8.
static bool isDotInputType(Type t) {
  return t.isF32() || t.isBF16() || t.isF16() || isFp8Type(t);
}

LogicalResult
MmaEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        int64_t warpsM, int64_t warpsN, int64_t warpsB) {
  if (warpsM < 1 || warpsN < 1 || warpsB < 1 ||
      warpsB * warpsM * warpsN > contract::kMaxNumWarps)
    return emitError() << "#tile.mma needs 1 <= warpsB * warpsM * warpsN <= "
                       << contract::kMaxNumWarps << ", got warpsM = " << warpsM
                       << ", warpsN = " << warpsN << ", warpsB = " << warpsB;
  return success();
}

/// A tensor-core dot: 2-d (or batched 3-d) bf16 or f16 inputs (f32 ones,
/// read as tf32, in a kernel marked tile.allow_tf32), blocked; an f32
/// result (and accumulator, of the same type) whose warp blocks are whole
/// 16 x 16 multiples and whose matrices the warp groups share evenly.
static LogicalResult verifyMmaDot(DotOp op, MmaEncodingAttr mma) {
  RankedTensorType lhs = op.getLhs().getType();
  RankedTensorType result = op.getResult().getType();
  Type a = lhs.getElementType();
  if (!(a.isBF16() || a.isF16() || a.isF32()) ||
      !result.getElementType().isF32() || lhs.getEncoding() ||
      op.getRhs().getType().getEncoding())
    return op.emitOpError() << "a #tile.mma result needs blocked bf16, f16 "
                               "or f32 inputs and an f32 result, got lhs "
                            << lhs << ", result " << result;
  auto allowsTf32 = [&] {
    for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
      if (p->hasAttr(kAllowTf32Attr))
        return true;
    return false;
  };
  if (a.isF32() && !allowsTf32())
    return op.emitOpError() << "f32 inputs on tensor cores are read as tf32: "
                               "the kernel needs "
                            << kAllowTf32Attr << " (dot_precision=\"tf32\")";
  int64_t rank = result.getRank();
  int64_t batch = rank == 3 ? result.getDimSize(0) : 1;
  if (batch % mma.getWarpsB())
    return op.emitOpError()
           << "a batch of " << batch
           << " matrices does not split over warpsB = " << mma.getWarpsB()
           << " warp groups";
  int64_t m = result.getDimSize(rank - 2), n = result.getDimSize(rank - 1);
  if (m % (16 * mma.getWarpsM()) || n % (16 * mma.getWarpsN()))
    return op.emitOpError()
           << "a " << m << "x" << n << " result does not split into "
           << mma.getWarpsM() << "x" << mma.getWarpsN()
           << " warp blocks of whole 16x16 fragments";
  if (Value acc = op.getAcc(); acc && acc.getType() != result)
    return op.emitOpError() << "the accumulator of a #tile.mma result must "
                               "have its type "
                            << result << ", got " << acc.getType();
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  Value input = getInput();
  if (input.getType() == getResult().getType())
    return input;
  // Back and forth: the original value.
  if (auto inner = input.getDefiningOp<ConvertLayoutOp>();
      inner && inner.getInput().getType() == getResult().getType())
    return inner.getInput();
  return {};
}

LogicalResult DotOp::verify() {
  RankedTensorType lhs = getLhs().getType();
  RankedTensorType rhs = getRhs().getType();
  RankedTensorType result = getResult().getType();
  int64_t rank = lhs.getRank();
  for (auto [what, t] : {std::pair<StringRef, RankedTensorType>{"lhs", lhs},
                         {"rhs", rhs},
                         {"result", result}}) {
    if (t.getRank() != 2 && t.getRank() != 3)
      return emitOpError() << what << " must be a 2-d tile (or 3-d, batched), "
                           << "got " << t << " (rank " << t.getRank() << ")";
    if (t.getRank() != rank)
      return emitOpError() << "lhs " << lhs << ", rhs " << rhs << " and result "
                           << result << " must have one rank";
    if (!t.hasStaticShape())
      return emitOpError() << what << " shape must be static, got " << t;
  }
  // [B,] M x K times [B,] K x N (N x K transposed): b is the batch's
  // offset.
  int64_t b = rank - 2;
  bool transposed = getRhsTransposed();
  int64_t rhsK = rhs.getDimSize(transposed ? b + 1 : b);
  int64_t rhsN = rhs.getDimSize(transposed ? b : b + 1);
  if (transposed && !isa_and_present<MmaEncodingAttr>(result.getEncoding()))
    return emitOpError() << "reads its rhs transposed only on tensor cores "
                            "(a #tile.mma result), got "
                         << result;
  if (b && (rhs.getDimSize(0) != lhs.getDimSize(0) ||
            result.getDimSize(0) != lhs.getDimSize(0)))
    return emitOpError() << "batch dimensions differ: lhs " << lhs << ", rhs "
                         << rhs << ", result " << result;
  if (lhs.getDimSize(b + 1) != rhsK)
    return emitOpError() << "contracted dimensions differ: lhs " << lhs
                         << " has K = " << lhs.getDimSize(b + 1) << ", rhs "
                         << rhs << " has K = " << rhsK;
  if (result.getDimSize(b) != lhs.getDimSize(b) ||
      result.getDimSize(b + 1) != rhsN)
    return emitOpError() << "result must be " << lhs.getDimSize(b) << "x"
                         << rhsN << " (lhs rows x rhs columns), "
                         << "got " << result;
  Type a = lhs.getElementType();
  if (!isDotInputType(a))
    return emitOpError() << "inputs must be f32, bf16, f16, f8E4M3FN or "
                            "f8E5M2 tiles, got "
                         << a;
  if (rhs.getElementType() != a)
    return emitOpError() << "inputs have different element types: " << a
                         << " and " << rhs.getElementType();
  Type r = result.getElementType();
  if (!r.isF32() && !r.isBF16() && !r.isF16())
    return emitOpError() << "result element type must be f32, bf16 or f16, "
                            "got "
                         << r;
  if (auto mma = dyn_cast_if_present<MmaEncodingAttr>(result.getEncoding())) {
    if (failed(verifyMmaDot(*this, mma)))
      return failure();
  } else if (lhs.getEncoding() || rhs.getEncoding() || result.getEncoding()) {
    return emitOpError() << "only a #tile.mma result may carry an encoding, "
                            "and no input; got lhs "
                         << lhs << ", rhs " << rhs << ", result " << result;
  }
  if (Value acc = getAcc()) {
    auto accType = cast<RankedTensorType>(acc.getType());
    if (accType.getShape() != result.getShape() ||
        !accType.getElementType().isF32())
      return emitOpError() << "accumulator must be "
                           << RankedTensorType::get(
                                  result.getShape(),
                                  Float32Type::get(getContext()))
                           << " (f32, the result's shape), got " << accType;
  }
  return success();
}
