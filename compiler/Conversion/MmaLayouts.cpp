//===- MmaLayouts.cpp - Tensor-core dots and their accumulators ----------===//
//
// -dslc-mma-layouts (Passes.td): a kernel that asks for tensor cores gets
// its eligible dots' results in #tile.mma fragments, converted back to the
// blocked layout right after each dot; then a loop-carried accumulator
// whose conversions meet at the loop's back edge is carried in the
// fragments instead, and the conversions back and forth fold away.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/LoweringUtils.h"
#include "compiler/Conversion/MmaLayout.h"
#include "compiler/Conversion/Passes.h"
#include "contract/KernelConfig.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dslc {
#define GEN_PASS_DEF_MMALAYOUTS
#include "compiler/Conversion/Passes.h.inc"
} // namespace dslc

using namespace mlir;
using namespace dslc;

/// Whether `transpose` swaps its last two dimensions and keeps the others.
static bool swapsLastTwo(tile::TransposeOp transpose) {
  ArrayRef<int64_t> perm = transpose.getPermutation();
  int64_t rank = perm.size();
  if (rank < 2)
    return false;
  for (int64_t d = 0; d < rank - 2; ++d)
    if (perm[d] != d)
      return false;
  return perm[rank - 2] == rank - 1 && perm[rank - 1] == rank - 2;
}

/// Rewrites `op` onto tensor cores when its shape and types allow (f32
/// inputs in tf32 when `tf32`, the kernel's dot_precision); else warns, at
/// the op, why it stays on CUDA cores.
static void rewriteDot(tile::DotOp op, int64_t warps, bool wgmma, bool tf32) {
  RankedTensorType lhsType = op.getLhs().getType();
  RankedTensorType resultType = op.getResult().getType();
  if (resultType.getEncoding())
    return;
  auto stays = [&](const Twine &why) {
    op.emitWarning() << "this matrix product stays on CUDA cores (FMAs), not "
                        "on the tensor cores of its kernel's dot_engine: "
                     << why;
  };
  bool f32Inputs = lhsType.getElementType().isF32();
  if (!tile::takesTensorCores(lhsType.getElementType(), tf32))
    return stays("its inputs are f32 (tensor cores take bf16, f16 and fp8; "
                 "f32 in tf32 with @helion.kernel(dot_precision=\"tf32\"))");
  int64_t operandBytes = f32Inputs ? 4 : MmaLayout::kOperandBytes;
  int64_t rank = resultType.getRank();
  int64_t batch = rank == 3 ? resultType.getDimSize(0) : 1;
  int64_t m = resultType.getDimSize(rank - 2);
  int64_t n = resultType.getDimSize(rank - 1);
  int64_t k = lhsType.getDimSize(rank - 1);
  // A batch's matrices are staged one after another: K's padding to whole
  // k-steps would need a gap between them.
  if (batch > 1 && k % MmaLayout::kStepK)
    return stays("a batched product needs K a multiple of 16 on tensor "
                 "cores, got K = " +
                 llvm::Twine(k));
  // An rhs transposed from [N, K] (Helion's `q @ k.transpose(-2, -1)`) is
  // staged as it is and read with ldmatrix untransposed: no transpose
  // through shared memory first.
  Value rhsOperand = op.getRhs();
  auto transpose = rhsOperand.getDefiningOp<tile::TransposeOp>();
  bool rhsTransposed = transpose && swapsLastTwo(transpose);
  if (rhsTransposed)
    rhsOperand = transpose.getInput();
  int64_t staged =
      MmaLayout::stagedBytes(batch, m, n, k, rhsTransposed, operandBytes);
  if (staged > contract::kMaxSharedBytesPerCta)
    return stays("its operands take " + llvm::Twine(staged) +
                 " bytes of shared memory staged for the tensor cores, more "
                 "than a CTA's " +
                 llvm::Twine(contract::kMaxSharedBytesPerCta) +
                 " (use smaller block sizes)");
  // wgmma's layout where its shape is one; -dslc-pipeline-dots then puts
  // the dot on wgmma if its loop qualifies (else mma.sync reads it).
  std::optional<MmaLayout> layout =
      wgmma && rank == 2 ? MmaLayout::wgmma(m, n, warps) : std::nullopt;
  if (!layout)
    layout = MmaLayout::chooseBatched(batch, m, n, warps);
  if (!layout) {
    if (std::optional<MmaLayout> few =
            MmaLayout::chooseBatched(batch, m, n, warps, /*capRepeated=*/false))
      return stays("only " + llvm::Twine(few->gridWarps()) + " of its " +
                   llvm::Twine(warps) + " warps split the " + llvm::Twine(m) +
                   "x" + llvm::Twine(n) +
                   " result into blocks of whole 16x16 fragments, " +
                   llvm::Twine(few->perThread()) +
                   " accumulator elements a thread (more than " +
                   llvm::Twine(MmaLayout::kMaxRepeatedPerThread) +
                   "; use block sizes that are multiples of 16 per warp)");
    return stays("no grid of its " + llvm::Twine(warps) + " warps splits the " +
                 llvm::Twine(m) + "x" + llvm::Twine(n) +
                 " result into blocks of whole 16x16 fragments (use block "
                 "sizes that are multiples of 16 per warp)");
  }
  MLIRContext *ctx = op.getContext();
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type f32 = b.getF32Type();
  ArrayRef<int64_t> shape = resultType.getShape();
  auto mmaType = RankedTensorType::get(
      shape, f32,
      tile::MmaEncodingAttr::get(ctx, layout->warpsM, layout->warpsN,
                                 layout->warpsB));
  auto asMmaInput = [&](Value v) -> Value {
    auto t = cast<RankedTensorType>(v.getType());
    if (!tile::isFp8Type(t.getElementType()))
      return v;
    return arith::ExtFOp::create(b, loc, t.clone(b.getF16Type()), v);
  };
  Value lhs = asMmaInput(op.getLhs());
  Value rhs = asMmaInput(rhsOperand);
  Value acc = op.getAcc();
  if (acc)
    acc = tile::ConvertLayoutOp::create(b, loc, mmaType, acc);
  auto dot = tile::DotOp::create(b, loc, mmaType, lhs, rhs, acc, op.getValidK(),
                                 rhsTransposed);
  Value out = tile::ConvertLayoutOp::create(
      b, loc, RankedTensorType::get(shape, f32), dot);
  if (!resultType.getElementType().isF32())
    out = arith::TruncFOp::create(b, loc, resultType, out);
  op.replaceAllUsesWith(out);
  op.erase();
}

/// The #tile.mma type `v` is converted from, when `v` is such a conversion.
static RankedTensorType convertedFromMma(Value v) {
  auto convert = v.getDefiningOp<tile::ConvertLayoutOp>();
  if (!convert)
    return {};
  RankedTensorType from = convert.getInput().getType();
  return isa_and_present<tile::MmaEncodingAttr>(from.getEncoding())
             ? from
             : RankedTensorType();
}

/// `init` (the value entering a loop) as `type`: a splat constant is made
/// again in that type, anything else converted.
static Value initialValue(OpBuilder &b, Location loc, Value init,
                          RankedTensorType type) {
  DenseElementsAttr splat;
  if (matchPattern(init, m_Constant(&splat)) && splat.isSplat())
    return arith::ConstantOp::create(
        b, loc, type,
        DenseElementsAttr::get(type, splat.getSplatValue<Attribute>()));
  return tile::ConvertLayoutOp::create(b, loc, type, init);
}

/// Carries one loop-carried accumulator of some scf.for in fragments, when
/// its body converts it to fragments at each use and from fragments at its
/// yield; returns whether it changed a loop (the loop is then replaced).
static bool carryOneAccumulator(func::FuncOp func) {
  bool changed = false;
  func.walk([&](scf::ForOp loop) {
    for (OpOperand &init : loop.getInitArgsMutable()) {
      unsigned i = init.getOperandNumber() - loop.getNumControlOperands();
      RankedTensorType mmaType = convertedFromMma(loop.getYieldedValues()[i]);
      if (!mmaType)
        continue;
      BlockArgument arg = loop.getRegionIterArgs()[i];
      bool onlyToMma = !arg.use_empty() &&
                       llvm::all_of(arg.getUsers(), [&](Operation *user) {
                         auto c = dyn_cast<tile::ConvertLayoutOp>(user);
                         return c && c.getType() == mmaType;
                       });
      if (!onlyToMma)
        continue;
      IRRewriter rewriter(loop.getContext());
      rewriter.setInsertionPoint(loop);
      Value carried =
          initialValue(rewriter, loop.getLoc(), init.get(), mmaType);
      SmallVector<Value> results = scf::replaceAndCastForOpIterArg(
          rewriter, loop, init, carried,
          [](OpBuilder &b, Location loc, Type type, Value v) -> Value {
            return tile::ConvertLayoutOp::create(b, loc, type, v);
          });
      rewriter.replaceOp(loop, results);
      changed = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return changed;
}

namespace {
struct MmaLayoutsPass : dslc::impl::MmaLayoutsBase<MmaLayoutsPass> {
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      auto engine =
          func->getAttrOfType<tile::DotEngineAttr>(tile::kDotEngineAttr);
      if (!func->hasAttr(tile::kKernelAttr) || !engine ||
          engine.getValue() == tile::DotEngine::fma)
        return;
      bool wgmma = engine.getValue() == tile::DotEngine::wgmma;
      int64_t warps = lower::kernelThreads(func) / contract::kWarpSize;
      SmallVector<tile::DotOp> dots;
      func.walk([&](tile::DotOp op) { dots.push_back(op); });
      bool tf32 = func->hasAttr(tile::kAllowTf32Attr);
      for (tile::DotOp op : dots)
        rewriteDot(op, warps, wgmma, tf32);
      while (carryOneAccumulator(func)) {
        // Fold the conversions that now meet back to back, so that the
        // next loop out sees its body's uses as conversions.
        (void)applyPatternsGreedily(func, RewritePatternSet(&getContext()));
      }
      (void)applyPatternsGreedily(func, RewritePatternSet(&getContext()));
    });
  }
};
} // namespace
