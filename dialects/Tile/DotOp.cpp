//===- DotOp.cpp - tile.dot verifier --------------------------------------===//
//
// The rules of `result = acc + lhs @ rhs` on 2-d tiles (or 3-d: a batch)
// (TileOps.td says what the op computes).
//
//===----------------------------------------------------------------------===//

#include "dialects/Tile/TileDialect.h"

using namespace mlir;
using namespace dslc::tile;

/// Element types a matmul input may have: f32, the 16-bit floats, fp8.
static bool isDotInputType(Type t) {
  return t.isF32() || t.isBF16() || t.isF16() || isFp8Type(t);
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
  // [B,] M x K times [B,] K x N: b is the batch's offset.
  int64_t b = rank - 2;
  if (b && (rhs.getDimSize(0) != lhs.getDimSize(0) ||
            result.getDimSize(0) != lhs.getDimSize(0)))
    return emitOpError() << "batch dimensions differ: lhs " << lhs << ", rhs "
                         << rhs << ", result " << result;
  if (lhs.getDimSize(b + 1) != rhs.getDimSize(b))
    return emitOpError() << "contracted dimensions differ: lhs " << lhs
                         << " has K = " << lhs.getDimSize(b + 1) << ", rhs "
                         << rhs << " has K = " << rhs.getDimSize(b);
  if (result.getDimSize(b) != lhs.getDimSize(b) ||
      result.getDimSize(b + 1) != rhs.getDimSize(b + 1))
    return emitOpError() << "result must be " << lhs.getDimSize(b) << "x"
                         << rhs.getDimSize(b + 1)
                         << " (lhs rows x rhs columns), "
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
