//===- FloatErrors.cpp - Where an f32 value's rounding errors go ----------===//
#include "compiler/Analysis/FloatErrors.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace dslc {

bool isElementwiseArith(Operation *op) {
  return isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) &&
         op->hasTrait<OpTrait::Elementwise>();
}

bool isF32Valued(Value v) { return getElementTypeOrSelf(v.getType()).isF32(); }

namespace {

/// How many values the search from one exp or division may visit; past it
/// the value counts as not narrowed (bounded work on any kernel).
constexpr size_t kMaxReachedValues = 4096;

bool isNarrowFloat(Type t) {
  auto f = dyn_cast<FloatType>(getElementTypeOrSelf(t));
  return f && f.getWidth() <= 16;
}

/// Ops through which an f32 value's rounding errors only reach the op's
/// own f32 results: element-wise float math, broadcasts, reshapes, splats
/// and reductions (an argmax's index is an integer: not f32).
bool passesErrorsThrough(Operation *op) {
  if (op->getNumResults() == 0 || !llvm::all_of(op->getResults(), isF32Valued))
    return false;
  return isElementwiseArith(op) ||
         isa<tile::BroadcastOp, tile::ReshapeOp, tile::SplatOp, tile::ReduceOp>(
             op);
}

/// The values an f32 value's rounding errors reach through `use`, its own
/// f32 results for ops that pass errors through, a loop's region argument
/// and result for a value it carries (as an initial value or a yield), an
/// `scf.if`'s result for a value it yields. False when errors escape there
/// (a comparison, an integer, a store, a product's operand, a call, ...).
bool reachedThrough(OpOperand &use, SmallVectorImpl<Value> &reached) {
  Operation *user = use.getOwner();
  unsigned index = use.getOperandNumber();
  if (passesErrorsThrough(user)) {
    llvm::append_range(reached, user->getResults());
    return true;
  }
  if (auto loop = dyn_cast<scf::ForOp>(user)) {
    if (index < loop.getNumControlOperands())
      return false;
    unsigned carried = index - loop.getNumControlOperands();
    reached.push_back(loop.getRegionIterArgs()[carried]);
    reached.push_back(loop.getResult(carried));
    return true;
  }
  if (!isa<scf::YieldOp>(user))
    return false;
  Operation *parent = user->getParentOp();
  if (auto loop = dyn_cast<scf::ForOp>(parent)) {
    reached.push_back(loop.getRegionIterArgs()[index]);
    reached.push_back(loop.getResult(index));
    return true;
  }
  if (auto branch = dyn_cast<scf::IfOp>(parent)) {
    reached.push_back(branch.getResult(index));
    return true;
  }
  return false;
}

} // namespace

/// Whether every path of an f32 value's rounding errors ends in a rounding
/// to a float of at most 16 bits (the file's comment): a search over the
/// values its errors reach, which may go round a loop's carried values
/// (a row sum accumulated over column chunks); one that reaches more than
/// kMaxReachedValues values counts as not narrowed (bounded work on any
/// kernel).
bool isNarrowed(Value start) {
  if (start.use_empty())
    return false;
  SmallVector<Value> work{start};
  DenseSet<Value> seen{start};
  SmallVector<Value> reached;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      if (auto trunc = dyn_cast<arith::TruncFOp>(use.getOwner())) {
        if (!isNarrowFloat(trunc.getType()))
          return false;
        continue;
      }
      reached.clear();
      if (!reachedThrough(use, reached))
        return false;
      for (Value r : reached) {
        if (!isF32Valued(r))
          return false;
        if (seen.insert(r).second)
          work.push_back(r);
      }
      if (seen.size() > kMaxReachedValues)
        return false;
    }
  }
  return true;
}

/// Whether every use of `r` is a sum along a dimension of at least
/// kMinSummedTerms elements.
bool isOnlySummedWide(Value r) {
  if (r.use_empty())
    return false;
  return llvm::all_of(r.getUsers(), [](Operation *user) {
    auto reduce = dyn_cast<tile::ReduceOp>(user);
    if (!reduce || reduce.getKind() != tile::ReduceKind::sum)
      return false;
    auto input = cast<RankedTensorType>(reduce.getInput().getType());
    int64_t n = input.getDimSize(reduce.getDim());
    return !ShapedType::isDynamic(n) && n >= kMinSummedTerms;
  });
}

bool isExpApproximatedByDefault(Operation *op) {
  Value r = op->getResult(0);
  if (isNarrowFloat(r.getType()))
    return true;
  return isF32Valued(r) &&
         (isNarrowed(r) || (isa<math::ExpOp>(op) && isOnlySummedWide(r)));
}

bool fastMathChangesMath(func::FuncOp func) {
  return func
      .walk([](Operation *op) {
        bool f32 = op->getNumResults() == 1 && isF32Valued(op->getResult(0));
        if (f32 && (isa<math::LogOp, math::Log2Op>(op) ||
                    (isa<math::ExpOp, math::Exp2Op>(op) &&
                     !isExpApproximatedByDefault(op))))
          return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

} // namespace dslc
