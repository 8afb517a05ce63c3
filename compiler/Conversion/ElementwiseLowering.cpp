//===- ElementwiseLowering.cpp - arith/math on tiles, per thread ---------===//
//
// Tile arithmetic is arith/math on ranked tensors. Every thread holds the
// same positions of every tile of one shape (TileLayout.h), so an
// elementwise op on tiles is the same op on the per-thread vectors.
//
// Two kinds of op are rewritten on the way:
//  - fp8 conversions (fp8 tiles are i8 vectors per thread): arith.truncf to
//    f8E4M3FN / f8E5M2 converts pairs with cvt.rn.satfinite.{e4m3x2,e5m2x2}
//    .f32 (nvvm.convert.f32x2.to.f8x2), from f32 (other floats go through
//    f32); arith.extf from fp8 converts pairs with cvt.rn.f16x2.{e4m3x2,
//    e5m2x2} (exact) and then widens the f16s;
//  - splat constants become splat vectors.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/LoweringUtils.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace dslc;

namespace {

bool isElementwiseDialect(Operation *op) {
  return isa<arith::ArithDialect, math::MathDialect>(op->getDialect());
}

/// `v` (a per-thread vector of floats) converted to element type `to`.
Value convertFloats(OpBuilder &b, Location loc, Value v, Type to) {
  auto type = cast<VectorType>(v.getType());
  Type from = type.getElementType();
  if (from == to)
    return v;
  auto result = VectorType::get(type.getShape(), to);
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return arith::ExtFOp::create(b, loc, result, v);
  return arith::TruncFOp::create(b, loc, result, v);
}

/// Whether `v` is a splat constant of at least `bound` (at most, when
/// `below`).
bool splatBeyond(Value v, double bound, bool below) {
  DenseElementsAttr dense;
  if (!matchPattern(v, m_Constant(&dense)) || !dense.isSplat())
    return false;
  auto f = dyn_cast<FloatAttr>(dense.getSplatValue<Attribute>());
  if (!f)
    return false;
  double x = f.getValueAsDouble();
  return below ? x <= -bound : x >= bound;
}

/// The value a clamp to [lo, hi] (maximumf then minimumf, or the reverse:
/// torch.clamp, NaN-propagating) holds before it, when the clamp is one
/// cvt.rn.satfinite to fp8 type `fp8` does anyway: lo <= -max and hi >= max
/// of the format (satfinite takes finite values past max and infinities to
/// +-max, and NaN to NaN, as minimumf/maximumf keep NaN). Else null.
Value clampSatfiniteDoes(Value in, Type fp8) {
  double max = APFloat::getLargest(cast<FloatType>(fp8).getFloatSemantics())
                   .convertToDouble();
  auto outer = in.getDefiningOp();
  if (!outer)
    return Value();
  auto bounds = [&](Operation *op, bool upper) -> Value {
    if (upper ? !isa<arith::MinimumFOp>(op) : !isa<arith::MaximumFOp>(op))
      return Value();
    for (int i = 0; i < 2; ++i)
      if (splatBeyond(op->getOperand(1 - i), max, /*below=*/!upper))
        return op->getOperand(i);
    return Value();
  };
  for (bool upperOutside : {true, false}) {
    Value middle = bounds(outer, upperOutside);
    Operation *inner = middle ? middle.getDefiningOp() : nullptr;
    if (inner && middle.hasOneUse())
      if (Value x = bounds(inner, !upperOutside))
        return x;
  }
  return Value();
}

/// arith.truncf to an fp8 type: pairs of f32 through cvt.rn.satfinite.
/// A torch.clamp to the format's range or wider just before it is left to
/// the conversion (quantize_fp8's clamp to +-448: two instructions an
/// element).
struct Fp8TruncLowering : OpConversionPattern<arith::TruncFOp> {
  Fp8TruncLowering(TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(arith::TruncFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto tensor = dyn_cast<RankedTensorType>(op.getType());
    if (!tensor || !tile::isFp8Type(tensor.getElementType()))
      return failure();
    Location loc = op.getLoc();
    Value in = adaptor.getIn();
    if (op.getIn().hasOneUse())
      if (Value unclamped =
              clampSatfiniteDoes(op.getIn(), tensor.getElementType()))
        if (Value mapped = rewriter.getRemappedValue(unclamped))
          in = mapped;
    Value x = convertFloats(rewriter, loc, in, rewriter.getF32Type());
    int64_t n = cast<VectorType>(x.getType()).getNumElements();
    Type i8 = rewriter.getI8Type();
    auto pairType = VectorType::get({2}, i8);
    Value zero = arith::ConstantOp::create(rewriter, loc,
                                           rewriter.getF32FloatAttr(0.0f));
    SmallVector<Value> bytes;
    for (int64_t i = 0; i < n; i += 2) {
      Value lo =
          vector::ExtractOp::create(rewriter, loc, x, ArrayRef<int64_t>{i});
      Value hi = i + 1 < n ? Value(vector::ExtractOp::create(
                                 rewriter, loc, x, ArrayRef<int64_t>{i + 1}))
                           : zero;
      // `a` lands in the upper byte: element 1 of the pair.
      Value pair = NVVM::ConvertF32x2ToF8x2Op::create(
          rewriter, loc, pairType, hi, lo, NVVM::FPRoundingMode::RN,
          NVVM::SaturationMode::SATFINITE, /*relu=*/false,
          tensor.getElementType());
      for (int64_t k = 0; k < 2 && i + k < n; ++k)
        bytes.push_back(vector::ExtractOp::create(rewriter, loc, pair,
                                                  ArrayRef<int64_t>{k}));
    }
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(
        op, VectorType::get({n}, i8), bytes);
    return success();
  }
};

/// arith.extf from an fp8 type: pairs through cvt.rn.f16x2 (every fp8 value
/// is an f16), then f16 to the result type.
struct Fp8ExtLowering : OpConversionPattern<arith::ExtFOp> {
  Fp8ExtLowering(TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(arith::ExtFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto tensor = dyn_cast<RankedTensorType>(op.getIn().getType());
    if (!tensor || !tile::isFp8Type(tensor.getElementType()))
      return failure();
    Location loc = op.getLoc();
    Value x = adaptor.getIn();
    int64_t n = cast<VectorType>(x.getType()).getNumElements();
    Type f16 = rewriter.getF16Type();
    Value zero =
        arith::ConstantOp::create(rewriter, loc, rewriter.getI8IntegerAttr(0));
    SmallVector<Value> halves;
    for (int64_t i = 0; i < n; i += 2) {
      Value lo =
          vector::ExtractOp::create(rewriter, loc, x, ArrayRef<int64_t>{i});
      Value hi = i + 1 < n ? Value(vector::ExtractOp::create(
                                 rewriter, loc, x, ArrayRef<int64_t>{i + 1}))
                           : zero;
      Value pair = vector::FromElementsOp::create(
          rewriter, loc, VectorType::get({2}, rewriter.getI8Type()),
          ValueRange{lo, hi});
      Value h = NVVM::ConvertF8x2ToF16x2Op::create(
          rewriter, loc, VectorType::get({2}, f16), pair, /*relu=*/false,
          tensor.getElementType());
      for (int64_t k = 0; k < 2 && i + k < n; ++k)
        halves.push_back(
            vector::ExtractOp::create(rewriter, loc, h, ArrayRef<int64_t>{k}));
    }
    Value result = vector::FromElementsOp::create(
        rewriter, loc, VectorType::get({n}, f16), halves);
    Type to = cast<RankedTensorType>(op.getType()).getElementType();
    // f16 -> bf16 narrows the mantissa: through f32, exactly (fp8 values
    // fit bf16).
    if (to.isBF16())
      result = convertFloats(rewriter, loc, result, rewriter.getF32Type());
    rewriter.replaceOp(op, convertFloats(rewriter, loc, result, to));
    return success();
  }
};

struct ElementwiseOpLowering : ConversionPattern {
  ElementwiseOpLowering(TileTypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isElementwiseDialect(op) || op->getNumRegions() != 0)
      return failure();
    // Splat constants become splat vectors.
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
      if (!dense)
        return failure();
      if (!dense.isSplat())
        return rewriter.notifyMatchFailure(
            op, "only splat tile constants can be distributed");
      auto type =
          cast<VectorType>(getTypeConverter()->convertType(constant.getType()));
      rewriter.replaceOp(
          op, lower::splatConstant(rewriter, op->getLoc(), type,
                                   dense.getSplatValue<TypedAttr>()));
      return success();
    }
    SmallVector<Type> resultTypes;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(),
                                                resultTypes)))
      return failure();
    OperationState state(op->getLoc(), op->getName().getStringRef(), operands,
                         resultTypes, op->getAttrs());
    Operation *converted = rewriter.create(state);
    rewriter.replaceOp(op, converted->getResults());
    return success();
  }
};

} // namespace

void dslc::populateElementwiseLoweringPatterns(TileTypeConverter &converter,
                                               RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ElementwiseOpLowering>(converter, ctx);
  patterns.add<Fp8TruncLowering, Fp8ExtLowering>(converter, ctx);
}
