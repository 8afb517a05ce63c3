//===- MathLowering.cpp - math ops to libdevice calls or exact PTX -------===//
//
// Before the LLVM conversion, math ops whose PTX instruction is not
// correctly rounded become calls of CUDA's libdevice (`__nv_expf`, ...,
// docs/compiler.md lists them), declared in the module and linked from
// libdevice.10.bc by compiler/Target. The others stay for MathToLLVM:
// math.sqrt (sqrt.rn), math.absf (abs), math.absi, math.fma (fma.rn).
//
// On bf16 and f16 values every math op but absf computes in f32 and rounds
// once, as torch's kernels do. `math.exp`/`math.exp2` on f32 with `afn`
// (-dslc-narrowed-fast-math: rounded to 16 bits after, or the config's
// fast_math) become ex2.approx.f32, as Triton's exp, and `math.log` /
// `math.log2` with `afn` (fast_math) lg2.approx.f32, as Triton's log.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace dslc;

namespace {

/// A math op and the libdevice functions for f32 and f64 operands.
struct LibDeviceFunction {
  llvm::StringLiteral op, f32, f64;
};

constexpr LibDeviceFunction kLibDevice[] = {
    {"math.rsqrt", "__nv_rsqrtf", "__nv_rsqrt"},
    {"math.exp", "__nv_expf", "__nv_exp"},
    {"math.exp2", "__nv_exp2f", "__nv_exp2"},
    {"math.expm1", "__nv_expm1f", "__nv_expm1"},
    {"math.log", "__nv_logf", "__nv_log"},
    {"math.log2", "__nv_log2f", "__nv_log2"},
    {"math.log10", "__nv_log10f", "__nv_log10"},
    {"math.log1p", "__nv_log1pf", "__nv_log1p"},
    {"math.tanh", "__nv_tanhf", "__nv_tanh"},
    {"math.sin", "__nv_sinf", "__nv_sin"},
    {"math.cos", "__nv_cosf", "__nv_cos"},
    {"math.tan", "__nv_tanf", "__nv_tan"},
    {"math.erf", "__nv_erff", "__nv_erf"},
    {"math.atan", "__nv_atanf", "__nv_atan"},
    {"math.atan2", "__nv_atan2f", "__nv_atan2"},
    {"math.powf", "__nv_powf", "__nv_pow"},
};

const LibDeviceFunction *lookupLibDevice(StringRef op) {
  for (const LibDeviceFunction &f : kLibDevice)
    if (f.op == op)
      return &f;
  return nullptr;
}

bool isHalf(Type t) {
  return isa<BFloat16Type, Float16Type>(getElementTypeOrSelf(t));
}

/// `v` (a float or vector of floats) with element type `to`.
Value withElement(OpBuilder &b, Location loc, Value v, Type to) {
  Type type = v.getType();
  Type from = getElementTypeOrSelf(type);
  if (from == to)
    return v;
  Type result = to;
  if (auto vector = dyn_cast<VectorType>(type))
    result = VectorType::get(vector.getShape(), to);
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return arith::ExtFOp::create(b, loc, result, v);
  return arith::TruncFOp::create(b, loc, result, v);
}

/// A math op on bf16/f16 values (not absf) computed in f32.
struct HalfMathInF32 : RewritePattern {
  explicit HalfMathInF32(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/2, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<math::MathDialect>(op->getDialect()) || isa<math::AbsFOp>(op) ||
        op->getNumResults() != 1 || !isHalf(op->getResult(0).getType()) ||
        !llvm::all_of(op->getOperandTypes(), isHalf))
      return failure();
    Location loc = op->getLoc();
    Type half = getElementTypeOrSelf(op->getResult(0).getType());
    SmallVector<Value> wide;
    for (Value v : op->getOperands())
      wide.push_back(withElement(rewriter, loc, v, rewriter.getF32Type()));
    OperationState state(loc, op->getName().getStringRef(), wide,
                         {wide.front().getType()}, op->getAttrs());
    Operation *computed = rewriter.create(state);
    rewriter.replaceOp(
        op, withElement(rewriter, loc, computed->getResult(0), half));
    return success();
  }
};

/// The declaration of libdevice function `name` of `arity` operands of
/// `type`, made once per module.
LLVM::LLVMFuncOp libDeviceDecl(Operation *inModule, StringRef name, Type type,
                               unsigned arity) {
  auto module = inModule->getParentOfType<ModuleOp>();
  if (auto f = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return f;
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  SmallVector<Type> params(arity, type);
  return LLVM::LLVMFuncOp::create(b, module.getLoc(), name,
                                  LLVM::LLVMFunctionType::get(type, params));
}

/// `scalar` of `operands`: once for a scalar `type`, once per element of a
/// rank-1 vector.
Value perElement(PatternRewriter &rewriter, Location loc, Type type,
                 ValueRange operands, function_ref<Value(ValueRange)> scalar) {
  auto vector = dyn_cast<VectorType>(type);
  if (!vector)
    return scalar(operands);
  SmallVector<Value> results;
  for (int64_t i = 0; i < vector.getNumElements(); ++i) {
    SmallVector<Value> args;
    for (Value v : operands)
      args.push_back(
          vector::ExtractOp::create(rewriter, loc, v, ArrayRef<int64_t>{i}));
    results.push_back(scalar(args));
  }
  return vector::FromElementsOp::create(rewriter, loc, vector, results);
}

/// Replaces `op` (one result, a scalar or a rank-1 vector) by `scalar` of
/// its operands, per element.
void replacePerElement(PatternRewriter &rewriter, Operation *op,
                       ValueRange operands,
                       function_ref<Value(ValueRange)> scalar) {
  rewriter.replaceOp(op,
                     perElement(rewriter, op->getLoc(),
                                op->getResult(0).getType(), operands, scalar));
}

/// A math op of the table on f32/f64 scalars or vectors: one libdevice
/// call per element.
struct LibDeviceCall : RewritePattern {
  explicit LibDeviceCall(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    const LibDeviceFunction *f = lookupLibDevice(op->getName().getStringRef());
    if (!f || op->getNumResults() != 1)
      return failure();
    Type type = op->getResult(0).getType();
    Type element = getElementTypeOrSelf(type);
    if (!element.isF32() && !element.isF64())
      return failure();
    LLVM::LLVMFuncOp callee = libDeviceDecl(
        op, element.isF32() ? f->f32 : f->f64, element, op->getNumOperands());
    Location loc = op->getLoc();
    replacePerElement(rewriter, op, op->getOperands(), [&](ValueRange args) {
      return LLVM::CallOp::create(rewriter, loc, callee, args).getResult();
    });
    return success();
  }
};

/// `math.exp` / `math.exp2` on f32 values with `afn`
/// (-dslc-narrowed-fast-math): ex2.approx.f32 of x * log2(e) (of x), one
/// per element, as Triton computes exp; `math.log` / `math.log2` with
/// `afn` (a kernel's fast_math): lg2.approx.f32 (times ln 2), as Triton
/// computes log.
struct ApproximateExpLog : RewritePattern {
  explicit ApproximateExpLog(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/3, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    bool exp = isa<math::ExpOp, math::Exp2Op>(op);
    if (!exp && !isa<math::LogOp, math::Log2Op>(op))
      return failure();
    auto fm = cast<arith::ArithFastMathInterface>(op);
    Type type = op->getResult(0).getType();
    auto vector = dyn_cast<VectorType>(type);
    if (!getElementTypeOrSelf(type).isF32() ||
        (vector && vector.getRank() != 1) ||
        !arith::bitEnumContainsAll(fm.getFastMathFlagsAttr().getValue(),
                                   arith::FastMathFlags::afn))
      return failure();
    Location loc = op->getLoc();
    auto scaled = [&](Value x, float by) -> Value {
      return arith::MulFOp::create(
          rewriter, loc, x,
          createScalarOrSplatConstant(rewriter, loc, type, APFloat(by)));
    };
    Value x = op->getOperand(0);
    if (isa<math::ExpOp>(op))
      x = scaled(x, 1.4426950408889634f);
    StringRef intrinsic =
        exp ? "llvm.nvvm.ex2.approx.f32" : "llvm.nvvm.lg2.approx.f";
    Value r = perElement(rewriter, loc, type, x, [&](ValueRange v) {
      return LLVM::CallIntrinsicOp::create(rewriter, loc, rewriter.getF32Type(),
                                           rewriter.getStringAttr(intrinsic), v)
          .getResult(0);
    });
    if (isa<math::LogOp>(op))
      r = scaled(r, 0.6931471805599453f);
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void dslc::populateMathLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<HalfMathInF32, LibDeviceCall, ApproximateExpLog>(
      patterns.getContext());
}
