//===- FoldBoundsByRange.cpp - bounds that integer ranges decide ----------===//
//
// -dslc-fold-bounds-by-range (Passes.td). A tile of a loop nested in the
// grid ends at `min(begin + B, extent)` and its loads and reductions count
// `max(min(end, size) - begin, 0)` valid elements: run-time values that
// make every element compare its position and every 16-byte piece test
// its bounds. Where the extent is compiled in (a hidden size under
// static_shapes) and the block divides it, the loop runs over
// [0, extent / B) tiles and `begin + B <= extent` holds on every
// iteration: MLIR's integer range analysis (the loop variable's range from
// the loop's bounds) proves it, and this pass replaces such a `min`/`max`
// by the operand that is always the smaller/larger, a comparison whose
// truth is known by the constant, and any value with one possible value by
// that constant (MLIR's own int-range patterns). The canonicalizer then
// folds `(begin + B) - begin` to B, and a reduction's constant valid count
// at least its extent is dropped (dialects/Tile/ReduceFolds.cpp).
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/Passes.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dslc {
#define GEN_PASS_DEF_FOLDBOUNDSBYRANGE
#include "compiler/Conversion/Passes.h.inc"
} // namespace dslc

using namespace mlir;

namespace {

/// The range the solver holds for `v`, if it has one.
std::optional<ConstantIntRanges> rangeOf(DataFlowSolver &solver, Value v) {
  auto *lattice = solver.lookupState<dataflow::IntegerValueRangeLattice>(v);
  if (!lattice || lattice->getValue().isUninitialized())
    return std::nullopt;
  return lattice->getValue().getValue();
}

/// `min`/`max` (signed or unsigned) whose operands' ranges do not overlap
/// the wrong way: the operand that is always the result.
template <typename Op, bool IsMin, bool IsSigned>
struct FoldOrderedMinMax : OpRewritePattern<Op> {
  FoldOrderedMinMax(MLIRContext *context, DataFlowSolver &solver)
      : OpRewritePattern<Op>(context), solver(solver) {}

  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    std::optional<ConstantIntRanges> a = rangeOf(solver, op.getLhs());
    std::optional<ConstantIntRanges> b = rangeOf(solver, op.getRhs());
    if (!a || !b)
      return failure();
    // below(x, y): every value of x is <= every value of y.
    auto below = [](const ConstantIntRanges &x, const ConstantIntRanges &y) {
      return IsSigned ? x.smax().sle(y.smin()) : x.umax().ule(y.umin());
    };
    Value keep;
    if (below(*a, *b))
      keep = IsMin ? op.getLhs() : op.getRhs();
    else if (below(*b, *a))
      keep = IsMin ? op.getRhs() : op.getLhs();
    else
      return failure();
    rewriter.replaceOp(op, keep);
    return success();
  }

  DataFlowSolver &solver;
};

/// Keeps the solver's states in step with the rewrites: a replaced op's
/// results keep their (still true) ranges through the replacement values;
/// an erased op's states are dropped.
class SolverListener : public RewriterBase::Listener {
public:
  explicit SolverListener(DataFlowSolver &solver) : solver(solver) {}
  void notifyOperationErased(Operation *op) override {
    solver.eraseState(solver.getProgramPointAfter(op));
    for (Value v : op->getResults())
      solver.eraseState(v);
  }

private:
  DataFlowSolver &solver;
};

struct FoldBoundsByRangePass
    : dslc::impl::FoldBoundsByRangeBase<FoldBoundsByRangePass> {
  void runOnOperation() override {
    Operation *root = getOperation();
    DataFlowSolver solver;
    solver.load<dataflow::DeadCodeAnalysis>();
    solver.load<dataflow::SparseConstantPropagation>();
    solver.load<dataflow::IntegerRangeAnalysis>();
    if (failed(solver.initializeAndRun(root)))
      return signalPassFailure();
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    arith::populateIntRangeOptimizationsPatterns(patterns, solver);
    patterns.add<FoldOrderedMinMax<arith::MinSIOp, true, true>,
                 FoldOrderedMinMax<arith::MinUIOp, true, false>,
                 FoldOrderedMinMax<arith::MaxSIOp, false, true>,
                 FoldOrderedMinMax<arith::MaxUIOp, false, false>>(ctx, solver);
    SolverListener listener(solver);
    GreedyRewriteConfig config;
    config.setListener(&listener);
    // The ranges were computed once, before any rewrite: folding stops at
    // what they prove (the canonicalizer after this pass does the rest).
    config.setMaxIterations(1);
    if (failed(applyPatternsGreedily(root, std::move(patterns), config)))
      return; // not converged in one sweep: what was rewritten is sound
  }
};

} // namespace
