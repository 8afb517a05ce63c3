//===- RollReductions.cpp - whole rows computed a chunk at a time --------===//
//
// Helion's `reduction_loops`: a kernel that holds whole rows of a wide
// dimension D (x[tile_n, :], a reduction along it, the row scaled by the
// result) keeps D / threads elements per thread of every such tile live,
// which spills for wide rows. Rolled with a chunk size R, each *sink* of a
// dimension-D tile -- a store of one, or a reduction along D -- becomes a
// loop over the ceil(D / R) chunks that recomputes, at the chunk's offset,
// the dimension-D ops the sink needs (its backward slice: loads,
// elementwise ops, broadcasts, unit reshapes, constants), with tiles of R
// columns; a reduction combines its chunks' partial results with its own
// kind. Everything else (scalars, the [.., 1] results of reductions,
// communication) stays where it was, so a chunk loop sees the values it
// saw before. A load is recomputed only when nothing between it and the
// loop may write memory (a store that is not a sink, a signal or wait,
// a packet, a call): otherwise the kernel is left whole with a warning.
//
//===----------------------------------------------------------------------===//

#include "compiler/Analysis/FloatErrors.h"
#include "compiler/Conversion/LoweringUtils.h"
#include "compiler/Conversion/Passes.h"

#include "dialects/Comm/CommDialect.h"
#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/SetVector.h"

namespace dslc {
#define GEN_PASS_DEF_ROLLREDUCTIONS
#include "compiler/Conversion/Passes.h.inc"
} // namespace dslc

using namespace mlir;
using namespace dslc;

namespace {

/// The rolling of one dimension extent `d` in chunks of `r` in one block.
struct Roller {
  int64_t d, r;
  Block *block;

  bool isWide(Type t) const {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return tensor && tensor.getRank() >= 1 && tensor.getShape().back() == d;
  }
  bool touchesWide(Operation *op) const {
    return llvm::any_of(op->getResultTypes(),
                        [&](Type t) { return isWide(t); }) ||
           llvm::any_of(op->getOperandTypes(),
                        [&](Type t) { return isWide(t); });
  }
  Type chunkType(Type t) const {
    if (!isWide(t))
      return t;
    auto tensor = cast<RankedTensorType>(t);
    SmallVector<int64_t> shape(tensor.getShape());
    shape.back() = r;
    return tensor.clone(shape);
  }

  /// A sink: a store of a wide tile, or a reduction along D.
  bool isSink(Operation *op) const {
    if (auto store = dyn_cast<tile::StoreOp>(op))
      return isWide(store.getValue().getType());
    if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
      RankedTensorType in = reduce.getInput().getType();
      return isWide(in) &&
             static_cast<int64_t>(reduce.getDim()) + 1 == in.getRank();
    }
    return false;
  }

  /// Whether `op` (with a wide result) can be recomputed per chunk.
  bool isRollable(Operation *op) const {
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return isRollableLoop(loop);
    if (op->getNumRegions() || op->getNumResults() != 1)
      return false;
    if (auto load = dyn_cast<tile::LoadOp>(op))
      return !load.getDims().empty();
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
      return dense && dense.isSplat();
    }
    if (isa<tile::BroadcastOp, tile::SplatOp>(op))
      return true;
    if (auto reshape = dyn_cast<tile::ReshapeOp>(op)) // unit dims only
      return isWide(reshape.getInput().getType()) &&
             isWide(reshape.getResult().getType());
    return isElementwiseArith(op);
  }

  /// A loop that only computes (a sum over the peers' rows: loads and
  /// arithmetic carried in its iteration values), recomputed per chunk with
  /// chunk-wide iteration values.
  bool isRollableLoop(scf::ForOp loop) const {
    bool ok = true;
    loop.getBody()->walk([&](Operation *op) {
      if (lower::mayWrite(op) || (touchesWide(op) && !isa<scf::YieldOp>(op) &&
                                  (isa<scf::ForOp>(op) || !isRollable(op))))
        ok = false;
    });
    return ok;
  }

  /// Checks the block; the sinks in order, or failure (with why).
  FailureOr<SmallVector<Operation *>> plan(std::string &why) const {
    SmallVector<Operation *> sinks;
    for (Operation &op : *block) {
      if (!touchesWide(&op))
        continue;
      if (isSink(&op)) {
        sinks.push_back(&op);
        continue;
      }
      if (!isRollable(&op)) {
        auto [line, column] = lower::lineAndColumn(op.getLoc());
        why = "'" + op.getName().getStringRef().str() +
              "' on a tile of the rolled dimension at line " +
              std::to_string(line);
        return failure();
      }
    }
    // Nested regions must not use the block's wide values (but a rollable
    // loop computes with them).
    for (Operation &op : *block)
      for (Region &region : op.getRegions()) {
        if (auto loop = dyn_cast<scf::ForOp>(op);
            loop && touchesWide(&op) && isRollableLoop(loop))
          continue;
        bool uses = false;
        region.walk([&](Operation *inner) { uses |= touchesWide(inner); });
        if (uses) {
          why = "a tile of the rolled dimension inside '" +
                op.getName().getStringRef().str() + "'";
          return failure();
        }
      }
    return sinks;
  }

  /// The wide ops `sink` needs, in block order.
  SmallVector<Operation *> sliceOf(Operation *sink) const {
    llvm::SetVector<Operation *> found;
    SmallVector<Value> work;
    for (Value v : sink->getOperands())
      if (isWide(v.getType()))
        work.push_back(v);
    while (!work.empty()) {
      Value v = work.pop_back_val();
      Operation *def = v.getDefiningOp();
      if (!def || def->getBlock() != block || !found.insert(def))
        continue;
      // A loop's body may use the block's wide values too.
      def->walk([&](Operation *inner) {
        for (Value o : inner->getOperands())
          if (isWide(o.getType()))
            work.push_back(o);
      });
    }
    SmallVector<Operation *> ops(found.begin(), found.end());
    llvm::sort(
        ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    return ops;
  }

  /// Whether memory may change between a load of `slice` and `sink`.
  bool loadsStale(ArrayRef<Operation *> slice, Operation *sink) const {
    for (Operation *op : slice) {
      // The loads of a rollable loop (which writes nothing) count from it.
      SmallVector<tile::LoadOp> loads;
      op->walk([&](tile::LoadOp load) { loads.push_back(load); });
      for (tile::LoadOp load : loads)
        for (Operation *o = op->getNextNode(); o && o != sink;
             o = o->getNextNode())
          if (lower::mayClobber(o, load))
            return true;
    }
    return false;
  }

  Value identity(OpBuilder &b, Location loc, tile::ReduceKind kind,
                 Type type) const {
    TypedAttr value = lower::reduceIdentity(kind, getElementTypeOrSelf(type));
    if (auto shaped = dyn_cast<ShapedType>(type))
      return arith::ConstantOp::create(b, loc,
                                       DenseElementsAttr::get(shaped, value));
    return arith::ConstantOp::create(b, loc, value);
  }

  /// Clones `op` for the chunk at column `first` (index) into `b`.
  void cloneChunk(OpBuilder &b, Operation *op, IRMapping &map,
                  Value first) const {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      SmallVector<Value> inits;
      for (Value init : loop.getInitArgs())
        inits.push_back(map.lookupOrDefault(init));
      auto chunk = scf::ForOp::create(
          b, loop.getLoc(), map.lookupOrDefault(loop.getLowerBound()),
          map.lookupOrDefault(loop.getUpperBound()),
          map.lookupOrDefault(loop.getStep()), inits,
          [&](OpBuilder &b, Location, Value iv, ValueRange args) {
            map.map(loop.getInductionVar(), iv);
            for (auto [old, now] : llvm::zip(loop.getRegionIterArgs(), args))
              map.map(old, now);
            // Its scalar and index ops are cloned as they are.
            for (Operation &inner : loop.getBody()->without_terminator())
              if (touchesWide(&inner))
                cloneChunk(b, &inner, map, first);
              else
                b.clone(inner, map);
            SmallVector<Value> yields;
            for (Value y : loop.getBody()->getTerminator()->getOperands())
              yields.push_back(map.lookupOrDefault(y));
            scf::YieldOp::create(b, loop.getLoc(), yields);
          });
      for (auto [old, now] : llvm::zip(loop.getResults(), chunk.getResults()))
        map.map(old, now);
      return;
    }
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      auto dense = cast<DenseElementsAttr>(c.getValue());
      auto type = cast<ShapedType>(chunkType(c.getType()));
      map.map(c.getResult(), arith::ConstantOp::create(
                                 b, c.getLoc(),
                                 DenseElementsAttr::get(
                                     type, dense.getSplatValue<Attribute>())));
      return;
    }
    // A load or store moves along the rolled dimension by `first`: the new
    // offset is made before the clone that uses it.
    Value offset;
    unsigned k = 0;
    if (auto load = dyn_cast<tile::LoadOp>(op)) {
      k = load.getDims().back();
      offset = load.getOffsets()[k];
    } else if (auto store = dyn_cast<tile::StoreOp>(op)) {
      k = store.getDims().back();
      offset = store.getOffsets()[k];
    }
    if (offset)
      offset = arith::AddIOp::create(b, op->getLoc(),
                                     map.lookupOrDefault(offset), first);
    Operation *clone = b.clone(*op, map);
    for (OpResult res : clone->getResults())
      res.setType(chunkType(res.getType()));
    if (auto load = dyn_cast<tile::LoadOp>(clone))
      load.getOffsetsMutable()[k].assign(offset);
    if (auto store = dyn_cast<tile::StoreOp>(clone))
      store.getOffsetsMutable()[k].assign(offset);
  }

  /// Replaces `sink` by its chunk loop.
  void roll(Operation *sink) const {
    SmallVector<Operation *> slice = sliceOf(sink);
    OpBuilder b(sink);
    Location loc = sink->getLoc();
    int64_t chunks = llvm::divideCeil(d, r);
    Value lb = arith::ConstantIndexOp::create(b, loc, 0);
    Value ub = arith::ConstantIndexOp::create(b, loc, chunks);
    Value step = arith::ConstantIndexOp::create(b, loc, 1);
    auto reduce = dyn_cast<tile::ReduceOp>(sink);
    SmallVector<Value> inits;
    if (reduce)
      inits.push_back(
          identity(b, loc, reduce.getKind(), reduce.getResult().getType()));
    auto loop = scf::ForOp::create(
        b, loc, lb, ub, step, inits,
        [&](OpBuilder &b, Location loc, Value j, ValueRange acc) {
          Value first = arith::MulIOp::create(
              b, loc, j, arith::ConstantIndexOp::create(b, loc, r));
          IRMapping map;
          for (Operation *op : slice)
            cloneChunk(b, op, map, first);
          if (!reduce) {
            cloneChunk(b, sink, map, first);
            scf::YieldOp::create(b, loc);
            return;
          }
          // Positions past D (the last chunk's tail) or past `valid`
          // contribute the identity: valid_j = clamp(valid - first, 0, R).
          Value valid = reduce.getValid();
          if (!valid && d % r != 0)
            valid = arith::ConstantIndexOp::create(b, loc, d);
          Value chunkValid;
          if (valid) {
            Value left = arith::SubIOp::create(b, loc, valid, first);
            left = arith::MaxSIOp::create(
                b, loc, left, arith::ConstantIndexOp::create(b, loc, 0));
            chunkValid = arith::MinSIOp::create(
                b, loc, left, arith::ConstantIndexOp::create(b, loc, r));
          }
          Value part = tile::ReduceOp::create(
              b, loc, reduce.getResult().getType(),
              map.lookup(reduce.getInput()), reduce.getDimAttr(),
              reduce.getKindAttr(), chunkValid);
          scf::YieldOp::create(
              b, loc,
              lower::reduceCombine(b, loc, reduce.getKind(), acc[0], part));
        });
    if (reduce)
      reduce.getResult().replaceAllUsesWith(loop.getResult(0));
    sink->erase();
  }

  LogicalResult run(std::string &why) {
    FailureOr<SmallVector<Operation *>> sinks = plan(why);
    if (failed(sinks))
      return failure();
    for (Operation *sink : *sinks)
      if (loadsStale(sliceOf(sink), sink)) {
        auto [line, column] = lower::lineAndColumn(sink->getLoc());
        why = std::string("memory may be written between a load of the "
                          "rolled dimension and the ") +
              (isa<tile::StoreOp>(sink) ? "store" : "reduction") + " at line " +
              std::to_string(line) + " that needs it";
        return failure();
      }
    for (Operation *sink : *sinks)
      roll(sink);
    // The wide ops are dead now: erase them, last first.
    SmallVector<Operation *> dead;
    for (Operation &op : *block)
      if (touchesWide(&op))
        dead.push_back(&op);
    for (Operation *op : llvm::reverse(dead)) {
      assert(op->use_empty() && "every wide value is used by wide ops");
      op->erase();
    }
    return success();
  }
};

struct RollReductionsPass : dslc::impl::RollReductionsBase<RollReductionsPass> {
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      auto chunks =
          func->getAttrOfType<DenseI64ArrayAttr>(tile::kReductionLoopsAttr);
      auto automatic =
          func->getAttrOfType<DenseI64ArrayAttr>(tile::kAutoReductionLoopsAttr);
      if (!chunks && !automatic)
        return;
      // The chunk of extent d: the config's for the k-th reduced
      // dimension, else the automatic one for rows too wide to hold.
      // (chunk, automatic, required).
      auto chunkOf = [&](size_t k,
                         int64_t d) -> std::tuple<int64_t, bool, bool> {
        if (chunks && k < size_t(chunks.size()) && chunks[k] > 0)
          return {chunks[k], false, false};
        for (size_t i = 0; automatic && i + 2 < size_t(automatic.size());
             i += 3)
          if (automatic[i] == d)
            return {automatic[i + 1], true, automatic[i + 2] != 0};
        return {0, false, false};
      };
      func.walk([&](tile::GridOp grid) {
        Block &body = grid.getBody().front();
        SmallVector<int64_t> extents = tile::reducedRowExtents(body);
        for (auto [k, d] : llvm::enumerate(extents)) {
          auto [r, isAutomatic, required] = chunkOf(k, d);
          if (r <= 0 || r >= d)
            continue;
          Roller roller{d, r, &body};
          std::string why;
          if (failed(roller.run(why)) && (!isAutomatic || required)) {
            if (isAutomatic)
              grid.emitWarning()
                  << "rows of " << d
                  << " columns do not fit the registers and cannot be "
                     "computed in chunks of "
                  << r << ": " << why;
            else
              grid.emitWarning()
                  << "reduction_loops[" << k << "] = " << r
                  << " is not applied to the dimension of " << d << ": " << why
                  << "; the rows are computed whole";
          }
        }
      });
      func->removeAttr(tile::kReductionLoopsAttr);
      func->removeAttr(tile::kAutoReductionLoopsAttr);
    });
  }
};

} // namespace
