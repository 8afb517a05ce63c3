//===- NarrowedFastMath.cpp - fast math where the result is rounded after -===//
//
// -dslc-narrowed-fast-math (Passes.td). dslc's math is correctly rounded
// where PTX has the instruction and libdevice's otherwise: `math.exp` is
// __nv_expf (about 8 instructions) and `arith.divf` div.rn.f32 (about 10,
// with a slow path). Triton, and so Helion, compile `exp` to
// ex2.approx.f32 of x * log2(e) and `/` to div.full.f32 everywhere.
// Here only where no one can see the difference: an f32 value is
// *narrowed* when every use of it ends, through f32 element-wise
// arithmetic, broadcasts, reshapes, reductions and the values loops carry
// (softmax's row sum accumulated over column chunks, then divided into
// bf16 outputs), in a rounding to a float of at most 16 bits (bf16, f16,
// fp8), whose unit roundoff (2^-8 at most) dwarfs the approximations' few
// f32 ulps. A value that reaches a comparison, an integer, an f32 or f64
// store, a matrix product or anything else is not narrowed. For such
// values:
//  - `a / broadcast(s)` (softmax's `exp / sum`) becomes
//    `a * broadcast(1 / s)`: one correctly rounded division per row, a
//    multiplication per element (within 1.5 ulp of the quotient), and one
//    more by a power of two that is 1 unless `s` is subnormal (then `s`
//    is scaled by 2^32 before its reciprocal, which would be infinite);
//  - other f32 divisions get `afn` (div.full.f32, within 2 ulp; the
//    -dslc-divide-without-calls pass);
//  - `math.exp` and `math.exp2` get `afn` (ex2.approx.f32 of x * log2(e),
//    MathLowering.cpp).
// `math.exp`/`math.exp2` of bf16/f16 values (computed in f32 and rounded
// once) get `afn` too, and so does an f32 exp whose every use is a sum
// along a dimension of at least kMinSummedTerms elements (cross entropy's
// and log-sum-exp's sum of exps): its terms are positive, so each term's
// relative error bounds the sum's, and ex2.approx of x * log2(e) is within
// 2 + 1.173 |x| ulp of exp(x) (the CUDA programming guide's bound for
// __expf), at most 107 ulp (2^-16.3) for a finite normal result, below
// the (n - 1) 2^-24 that rounding a sum of n >= 256 terms may already
// lose. A kernel whose config sets fast_math (tile.fast_math) gets `afn`
// on every f32 exp, exp2, log, log2 and division, as Triton compiles them
// (log: lg2.approx.f32 times ln 2, MathLowering.cpp): the tuner tries it
// where it would change the code (compiler/Analysis/FloatErrors.h) and
// keeps it where its check against the reference passes. The simulator keeps
// exact math (the pass runs in the GPU pipeline only).
//
//===----------------------------------------------------------------------===//

#include "compiler/Analysis/FloatErrors.h"
#include "compiler/Conversion/LoweringUtils.h"
#include "compiler/Conversion/Passes.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace dslc {
#define GEN_PASS_DEF_NARROWEDFASTMATH
#include "compiler/Conversion/Passes.h.inc"
} // namespace dslc

using namespace mlir;
using namespace dslc;

namespace {

void addApproximateFunctions(Operation *op) {
  auto fm = cast<arith::ArithFastMathInterface>(op);
  auto flags = fm.getFastMathFlagsAttr().getValue() | arith::FastMathFlags::afn;
  op->setAttr(fm.getFastMathAttrName(),
              arith::FastMathFlagsAttr::get(op->getContext(), flags));
}

/// `lhs / broadcast(s)` (or `splat(s)`) as
/// `lhs * broadcast(1 / (s * f)) * broadcast(f)`, f = 2^32 for a subnormal
/// `s` (whose reciprocal would be infinite) and 1 otherwise: two exact
/// scalings by powers of two around one reciprocal a row. False when the
/// divisor is neither.
bool multiplyByReciprocal(arith::DivFOp div) {
  Operation *spread = div.getRhs().getDefiningOp();
  if (!isa_and_nonnull<tile::BroadcastOp, tile::SplatOp>(spread))
    return false;
  Value s = spread->getOperand(0);
  auto shaped = dyn_cast<ShapedType>(s.getType());
  if (!isF32Valued(s) || (shaped && !shaped.hasStaticShape()))
    return false;
  OpBuilder b(div);
  Location loc = div.getLoc();
  auto constant = [&](float v) {
    return createScalarOrSplatConstant(b, loc, s.getType(), APFloat(v));
  };
  auto spreadOf = [&](Value v) {
    OperationState state(spread->getLoc(), spread->getName().getStringRef(),
                         ValueRange{v}, {div.getRhs().getType()},
                         spread->getAttrs());
    return b.create(state)->getResult(0);
  };
  Value subnormal = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                          math::AbsFOp::create(b, loc, s),
                                          constant(0x1p-126f));
  Value one = constant(1.0f);
  Value scale =
      arith::SelectOp::create(b, loc, subnormal, constant(0x1p32f), one);
  Value reciprocal = arith::DivFOp::create(
      b, loc, one, arith::MulFOp::create(b, loc, s, scale));
  Value product =
      arith::MulFOp::create(b, loc, div.getLhs(), spreadOf(reciprocal));
  div.replaceAllUsesWith(
      arith::MulFOp::create(b, loc, product, spreadOf(scale)).getResult());
  div.erase();
  if (spread->use_empty())
    spread->erase();
  return true;
}

struct NarrowedFastMathPass
    : dslc::impl::NarrowedFastMathBase<NarrowedFastMathPass> {
  void runOnOperation() override {
    SmallVector<arith::DivFOp> divisions;
    SmallVector<Operation *> approximate;
    getOperation()->walk([&](func::FuncOp func) {
      // The config's fast_math: every f32 exp, log and division, as Triton.
      bool everywhere = func->hasAttr(tile::kFastMathAttr);
      func.walk([&](Operation *op) {
        if (isa<math::ExpOp, math::Exp2Op>(op)) {
          if ((everywhere && isF32Valued(op->getResult(0))) ||
              isExpApproximatedByDefault(op))
            approximate.push_back(op);
        } else if (isa<math::LogOp, math::Log2Op>(op)) {
          if (everywhere && isF32Valued(op->getResult(0)))
            approximate.push_back(op);
        } else if (auto div = dyn_cast<arith::DivFOp>(op)) {
          if (!isF32Valued(div))
            return;
          if (isNarrowed(div))
            divisions.push_back(div);
          else if (everywhere)
            approximate.push_back(div);
        }
      });
    });
    for (Operation *op : approximate)
      addApproximateFunctions(op);
    for (arith::DivFOp div : divisions)
      if (!multiplyByReciprocal(div))
        addApproximateFunctions(div);
  }
};

} // namespace
