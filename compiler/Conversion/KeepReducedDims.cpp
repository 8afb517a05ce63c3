//===- KeepReducedDims.cpp - row statistics in their rows' layout ---------===//
//
// -dslc-keep-reduced-dims (Passes.td). Helion's online softmax keeps its row
// statistics as tiles without the reduced dimension (`m_i`, `l_i`:
// `[tile_b, tile_m]` beside `[tile_b, tile_m, tile_n]` scores) and puts it
// back with `[:, :, None]` wherever they meet the rows. A tile's layout is
// a function of its shape (docs/compiler.md), so such a statistic is dealt
// as a tile of its own: at attention's row threads (one lane a row) a
// `[16, 16]` statistic is 16 rows of 16, every thread holding 16 elements
// where its row has one, and each reduction and each `[:, :, None]` is a
// round trip through shared memory.
//
// The pass finds each web of such values: tiles connected by element-wise
// arithmetic and by loops' and branches' carried values (scf.for, scf.if).
// Where the web is made by reductions along one dimension and read back
// through reshapes that insert it again, every value of the web takes the
// keepdim shape (the reductions keep their dimension, the reshapes
// vanish). Where a value of the web comes from or goes to anything else (a
// load, a store, a product), a reshape is put at that edge; the web is
// rewritten only when it removes more reshapes and reductions without
// their dimension than it puts in. Splat constants in the web are copied
// in the keepdim shape.
//
//===----------------------------------------------------------------------===//

#include "compiler/Analysis/FloatErrors.h"
#include "compiler/Conversion/LoweringUtils.h"
#include "compiler/Conversion/Passes.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/MapVector.h"

namespace dslc {
#define GEN_PASS_DEF_KEEPREDUCEDDIMS
#include "compiler/Conversion/Passes.h.inc"
} // namespace dslc

using namespace mlir;
using namespace dslc;

namespace {

/// A plain tile (no layout encoding yet) of rank >= 1.
bool isPlainTile(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && !tensor.getEncoding() && tensor.getRank() >= 1;
}

/// Element-wise tile arithmetic (isElementwiseArith) with one plain
/// tile result.
bool isElementwise(Operation *op) {
  return isElementwiseArith(op) && op->getNumResults() == 1 &&
         isPlainTile(op->getResult(0).getType());
}

/// A value the web copies in the keepdim shape instead of joining it.
bool isLeaf(Value v) {
  Operation *def = v.getDefiningOp();
  if (auto constant = dyn_cast_or_null<arith::ConstantOp>(def))
    return isa<DenseElementsAttr>(constant.getValue());
  return isa_and_nonnull<tile::SplatOp>(def);
}

/// `shape` with a unit dimension inserted: whether `to` is that.
bool insertsUnitDim(ArrayRef<int64_t> shape, ArrayRef<int64_t> to) {
  if (to.size() != shape.size() + 1)
    return false;
  for (size_t d = 0; d < to.size(); ++d)
    if (to[d] == 1 && to.take_front(d) == shape.take_front(d) &&
        to.drop_front(d + 1) == shape.drop_front(d))
      return true;
  return false;
}

/// The keepdim shape of a reduction that removed its dimension, if it did.
std::optional<SmallVector<int64_t>> keepDimShape(tile::ReduceOp reduce) {
  if (reduce.isKeepDim() || !isPlainTile(reduce.getResult().getType()))
    return std::nullopt;
  SmallVector<int64_t> keep(reduce.getInput().getType().getShape());
  keep[reduce.getDim()] = 1;
  return keep;
}

class WebRewriter {
public:
  explicit WebRewriter(Operation *root) : root(root) {}

  /// Rewrites one profitable web at a time, finding the webs again after
  /// each (a rewrite erases reshapes other webs may hold). Each rewrite
  /// removes more reshapes and reductions without their dimension than it
  /// adds, so this ends.
  void run() {
    while (rewriteOne()) {
    }
  }

private:
  Operation *root;
  llvm::EquivalenceClasses<Value> classes;

  bool rewriteOne() {
    classes = {};
    root->walk([&](Operation *op) { join(op); });
    for (auto it = classes.begin(); it != classes.end(); ++it) {
      if (!(*it)->isLeader())
        continue;
      SmallVector<Value> web(classes.member_begin(**it), classes.member_end());
      if (rewriteIfProfitable(web))
        return true;
    }
    return false;
  }

  void unite(Value a, Value b) {
    if (!isPlainTile(a.getType()) || isLeaf(a) || isLeaf(b))
      return;
    classes.unionSets(a, b);
  }

  void join(Operation *op) {
    for (Value r : op->getResults())
      if (isPlainTile(r.getType()) && !isLeaf(r))
        classes.insert(r);
    if (isElementwise(op)) {
      for (Value operand : op->getOperands())
        if (isa<RankedTensorType>(operand.getType()))
          unite(op->getResult(0), operand);
    } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
      auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
      for (auto [i, result] : llvm::enumerate(loop.getResults())) {
        unite(result, loop.getRegionIterArgs()[i]);
        unite(result, loop.getInitArgs()[i]);
        unite(result, yield.getOperand(i));
      }
    } else if (auto branch = dyn_cast<scf::IfOp>(op)) {
      for (Region *region : {&branch.getThenRegion(), &branch.getElseRegion()})
        if (!region->empty())
          for (auto [result, yielded] :
               llvm::zip(branch.getResults(),
                         region->front().getTerminator()->getOperands()))
            unite(result, yielded);
    }
  }

  /// Whether `use` reads a web value as one of the web's own ops.
  bool isWebUse(OpOperand &use) const {
    Operation *user = use.getOwner();
    if (isElementwise(user))
      return true;
    if (isa<scf::ForOp>(user))
      return true; // an init value (the loop's results joined it)
    if (isa<scf::YieldOp>(user))
      return isa<scf::ForOp, scf::IfOp>(user->getParentOp());
    return false;
  }

  /// Whether `v` is made by one of the web's own ops (or a region's
  /// carried value the web reshapes along with its loop).
  bool isWebDef(Value v, ArrayRef<int64_t> keep) const {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return isa<scf::ForOp>(arg.getOwner()->getParentOp()) &&
             arg.getArgNumber() > 0;
    Operation *def = v.getDefiningOp();
    if (auto reduce = dyn_cast<tile::ReduceOp>(def))
      return keepDimShape(reduce) == SmallVector<int64_t>(keep);
    return isElementwise(def) || isa<scf::ForOp, scf::IfOp>(def);
  }

  /// The keepdim shape most of the web's reductions and reshapes ask for.
  static std::optional<SmallVector<int64_t>> chooseShape(ArrayRef<Value> web) {
    llvm::MapVector<SmallVector<int64_t>, int> votes;
    for (Value v : web) {
      if (auto reduce = v.getDefiningOp<tile::ReduceOp>())
        if (auto keep = keepDimShape(reduce))
          ++votes[*keep];
      ArrayRef<int64_t> shape = cast<RankedTensorType>(v.getType()).getShape();
      for (Operation *user : v.getUsers())
        if (auto reshape = dyn_cast<tile::ReshapeOp>(user)) {
          ArrayRef<int64_t> to = reshape.getResult().getType().getShape();
          if (insertsUnitDim(shape, to))
            ++votes[SmallVector<int64_t>(to)];
        }
    }
    std::optional<SmallVector<int64_t>> best;
    int most = 0;
    for (auto &[shape, count] : votes)
      if (count > most) {
        most = count;
        best = shape;
      }
    return best;
  }

  bool rewriteIfProfitable(ArrayRef<Value> web) {
    std::optional<SmallVector<int64_t>> keep = chooseShape(web);
    if (!keep)
      return false;
    int saved = 0, added = 0;
    for (Value v : web) {
      if (isWebDef(v, *keep))
        saved += v.getDefiningOp<tile::ReduceOp>() != nullptr;
      else
        ++added;
      for (OpOperand &use : v.getUses()) {
        if (auto reshape = dyn_cast<tile::ReshapeOp>(use.getOwner()))
          saved += reshape.getResult().getType().getShape() ==
                   ArrayRef<int64_t>(*keep);
        else if (!isWebUse(use))
          ++added;
      }
    }
    if (saved <= added)
      return false;
    rewrite(web, *keep);
    return true;
  }

  /// The operands of the op that makes web value `v` which the web's
  /// rewrite retypes with it (where a leaf is copied in the new shape).
  static SmallVector<OpOperand *> leafOperands(Value v) {
    SmallVector<OpOperand *> operands;
    auto result = dyn_cast<OpResult>(v);
    if (!result)
      return operands;
    Operation *def = result.getOwner();
    auto yielded = [&](Region &region) {
      if (!region.empty())
        operands.push_back(&region.front().getTerminator()->getOpOperand(
            result.getResultNumber()));
    };
    if (isElementwise(def)) {
      for (OpOperand &operand : def->getOpOperands())
        if (isPlainTile(operand.get().getType()))
          operands.push_back(&operand);
    } else if (auto loop = dyn_cast<scf::ForOp>(def)) {
      operands.push_back(&loop.getInitArgsMutable()[result.getResultNumber()]);
      yielded(loop.getRegion());
    } else if (auto branch = dyn_cast<scf::IfOp>(def)) {
      yielded(branch.getThenRegion());
      yielded(branch.getElseRegion());
    }
    return operands;
  }

  static RankedTensorType withShape(Type type, ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape,
                                 cast<RankedTensorType>(type).getElementType());
  }

  /// A copy of leaf `v` (a splat or dense constant) in shape `keep`.
  static Value copyLeaf(OpBuilder &b, Value v, ArrayRef<int64_t> keep) {
    RankedTensorType type = withShape(v.getType(), keep);
    Operation *def = v.getDefiningOp();
    b.setInsertionPointAfter(def);
    if (auto splat = dyn_cast<tile::SplatOp>(def))
      return tile::SplatOp::create(b, def->getLoc(), type, splat.getValue());
    auto dense =
        cast<DenseElementsAttr>(cast<arith::ConstantOp>(def).getValue());
    return arith::ConstantOp::create(b, def->getLoc(), dense.reshape(type));
  }

  void rewrite(ArrayRef<Value> web, ArrayRef<int64_t> keep) {
    OpBuilder b(root->getContext());
    DenseMap<Value, Value> leafCopies;
    SmallVector<Value> values(web);
    // Edges in: a value the web does not make is reshaped where it is made.
    for (Value &v : values) {
      if (isWebDef(v, keep))
        continue;
      if (auto arg = dyn_cast<BlockArgument>(v))
        b.setInsertionPointToStart(arg.getOwner());
      else
        b.setInsertionPointAfter(v.getDefiningOp());
      auto in = tile::ReshapeOp::create(b, v.getLoc(),
                                        withShape(v.getType(), keep), v);
      v.replaceAllUsesExcept(in.getResult(), in);
      v = in.getResult();
    }
    // Edges out.
    for (Value v : values) {
      for (OpOperand &use : llvm::make_early_inc_range(v.getUses())) {
        Operation *user = use.getOwner();
        if (isa<tile::ReshapeOp>(user) || isWebUse(use))
          continue;
        b.setInsertionPoint(user);
        auto out = tile::ReshapeOp::create(b, v.getLoc(), v.getType(), v);
        use.set(out.getResult());
      }
    }
    for (Value v : web)
      for (OpOperand *operand : leafOperands(v))
        if (isLeaf(operand->get())) {
          Value &copy = leafCopies[operand->get()];
          if (!copy)
            copy = copyLeaf(b, operand->get(), keep);
          operand->set(copy);
        }
    for (auto [leaf, copy] : leafCopies)
      if (leaf.use_empty())
        leaf.getDefiningOp()->erase();
    for (Value v : values)
      v.setType(withShape(v.getType(), keep));
    // Reshapes to the keepdim shape now reshape to their input's own type.
    for (Value v : values)
      for (Operation *user : llvm::make_early_inc_range(v.getUsers()))
        if (auto reshape = dyn_cast<tile::ReshapeOp>(user))
          if (reshape.getType() == v.getType()) {
            reshape.getResult().replaceAllUsesWith(v);
            reshape.erase();
          }
  }
};

struct KeepReducedDimsPass
    : dslc::impl::KeepReducedDimsBase<KeepReducedDimsPass> {
  void runOnOperation() override { WebRewriter(getOperation()).run(); }
};

} // namespace
