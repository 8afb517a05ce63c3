//===- ReduceLowering.cpp - tile.reduce across a CTA's threads ------------===//
//
// Along a leading dimension a thread holds whole columns (TileLayout.h): it
// combines its own rows. A first dimension dealt over the groups is the
// exception: the tile goes through the shared workspace and each thread
// combines, in order of the first index, the column elements of its result.
// Along the last dimension (P lanes of a group share each row):
//  1. each thread combines its pieces; positions at or past `valid` or the
//     static extent contribute the identity;
//  2. the lanes of a group within a warp combine with butterfly shuffles
//     (shfl.sync.bfly, offsets below P), after which every lane holds the
//     value (the combinations are commutative, so all lanes compute the
//     same bits);
//  3. when a group spans several warps, lane 0 of each warp writes its value
//     into the shared workspace; after a bar.sync lane l of every warp
//     reads the value of its group's warp l mod the group's warps and the
//     warp combines them with the same butterfly over that many lanes (so
//     every thread ends with the same bits), and a second bar.sync frees
//     the workspace.
// The result is first computed in the layout of the input with the reduced
// dimension kept as 1 (replicated within each group after a last-dimension
// reduction), then converted to the result's layout (LayoutConversion.cpp)
// when that differs.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/LoweringUtils.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace dslc;

namespace {

/// How a reduction combines two values, and its identity.
struct Combiner {
  tile::ReduceKind kind;
  Type element; ///< The storage element type.

  /// Booleans travel as bytes through shared memory.
  bool isBool() const { return element.isInteger(1); }

  TypedAttr identityAttr() const {
    return lower::reduceIdentity(kind, element);
  }

  /// The identity as a scalar, or splat over `type` when it is a vector.
  Value identity(OpBuilder &b, Location loc, Type type) const {
    if (auto vector = dyn_cast<VectorType>(type))
      return lower::splatConstant(b, loc, vector, identityAttr());
    return arith::ConstantOp::create(b, loc, identityAttr());
  }

  Value combine(OpBuilder &b, Location loc, Value x, Value y) const {
    return lower::reduceCombine(b, loc, kind, x, y);
  }

  /// The same tree as `tree`, built as the values come (`push` each in
  /// order, then `finish`): at most log2(n) partial values are live, so a
  /// long reduction whose values are loaded one by one keeps few in
  /// registers. Level k of `pending` holds the combination of 2^k values.
  struct Stream {
    const Combiner &comb;
    SmallVector<Value> pending; ///< null where a level is empty
    void push(OpBuilder &b, Location loc, Value x) {
      for (size_t k = 0;; ++k) {
        if (k == pending.size()) {
          pending.push_back(x);
          return;
        }
        if (!pending[k]) {
          pending[k] = x;
          return;
        }
        x = comb.combine(b, loc, pending[k], x);
        pending[k] = Value();
      }
    }
    Value finish(OpBuilder &b, Location loc) {
      // The odd values left at the end combine from the lowest level up,
      // each as the right operand of the level above: `tree`'s carries.
      Value acc;
      for (Value v : pending)
        if (v)
          acc = acc ? comb.combine(b, loc, v, acc) : v;
      return acc;
    }
  };

  /// Combines `values` pairwise (a balanced tree: short dependency chains).
  Value tree(OpBuilder &b, Location loc, SmallVector<Value> values) const {
    assert(!values.empty());
    while (values.size() > 1) {
      SmallVector<Value> next;
      for (size_t i = 0; i + 1 < values.size(); i += 2)
        next.push_back(combine(b, loc, values[i], values[i + 1]));
      if (values.size() % 2)
        next.push_back(values.back());
      values = std::move(next);
    }
    return values.front();
  }
};

/// Threads per warp, and butterfly steps across one.
constexpr int64_t kWarpSize = 32;

/// `x` from the lane whose id is this lane's xor `offset`
/// (shfl.sync.bfly.b32; narrower values travel widened, 64-bit ones in two
/// halves).
Value shuffleXor(OpBuilder &b, Location loc, Value x, int32_t offset) {
  Type type = x.getType();
  Type i32 = b.getI32Type();
  Value all = lower::i32(b, loc, -1);
  Value lane = lower::i32(b, loc, offset);
  Value clamp = lower::i32(b, loc, kWarpSize - 1);
  auto shfl = [&](Value v) -> Value {
    return NVVM::ShflOp::create(b, loc, v.getType(), all, v, lane, clamp,
                                NVVM::ShflKind::bfly, UnitAttr());
  };
  if (type.isF32() || type.isInteger(32))
    return shfl(x);
  unsigned bits = type.getIntOrFloatBitWidth();
  Type intType = b.getIntegerType(bits);
  Value asInt = isa<FloatType>(type)
                    ? Value(arith::BitcastOp::create(b, loc, intType, x))
                    : x;
  Value result;
  if (bits < 32) {
    Value wide = arith::ExtUIOp::create(b, loc, i32, asInt);
    result = arith::TruncIOp::create(b, loc, intType, shfl(wide));
  } else {
    Value low = shfl(arith::TruncIOp::create(b, loc, i32, asInt));
    Value high = shfl(arith::TruncIOp::create(
        b, loc, i32,
        arith::ShRUIOp::create(b, loc, asInt, lower::i64(b, loc, 32))));
    Value high64 = arith::ShLIOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, intType, high),
        lower::i64(b, loc, 32));
    result = arith::OrIOp::create(b, loc, high64,
                                  arith::ExtUIOp::create(b, loc, intType, low));
  }
  return isa<FloatType>(type)
             ? Value(arith::BitcastOp::create(b, loc, type, result))
             : result;
}

/// Each row's combination of this thread's elements of a distributed tile
/// (`input`, per-thread vector of `layout`). Positions at or past `limit`
/// (i64; the static extent when null) contribute the identity.
SmallVector<Value> combineOwn(OpBuilder &b, Location loc, const Combiner &comb,
                              const TileLayout &layout, Value input,
                              Value limit) {
  Value id = comb.identity(b, loc, comb.element);
  bool ragged = layout.inner % (layout.rowThreads * layout.vec) != 0;
  // remaining[c] = limit - first index of piece c: lane v is in when
  // v < remaining[c] (signed: a negative count masks all).
  SmallVector<Value> remaining;
  if (limit || ragged) {
    // In i32: the counts are at most the tile's extent; a valid count
    // outside [0, extent] is clamped first.
    Value end = lower::i64(b, loc, layout.inner);
    if (limit)
      end = arith::MaxSIOp::create(b, loc,
                                   arith::MinSIOp::create(b, loc, limit, end),
                                   lower::i64(b, loc, 0));
    end = arith::TruncIOp::create(b, loc, b.getI32Type(), end);
    Value lane = arith::TruncIOp::create(
        b, loc, b.getI32Type(), lower::laneAndGroup(b, loc, layout).first);
    for (int64_t c = 0; c < layout.chunks; ++c) {
      Value first = arith::MulIOp::create(
          b, loc,
          arith::AddIOp::create(b, loc, lane,
                                lower::i32(b, loc, c * layout.rowThreads)),
          lower::i32(b, loc, layout.vec));
      remaining.push_back(arith::SubIOp::create(b, loc, end, first));
    }
  }
  SmallVector<Value> rows;
  for (int64_t o = 0; o < layout.outer; ++o) {
    SmallVector<Value> values;
    for (int64_t c = 0; c < layout.chunks; ++c)
      for (int64_t v = 0; v < layout.vec; ++v) {
        Value x = vector::ExtractOp::create(
            b, loc, input, ArrayRef<int64_t>{layout.position(o, c, v)});
        if (!remaining.empty()) {
          Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                           remaining[c], lower::i32(b, loc, v));
          x = arith::SelectOp::create(b, loc, in, x, id);
        }
        values.push_back(x);
      }
    rows.push_back(comb.tree(b, loc, values));
  }
  return rows;
}

/// Combines each row's value over the first `lanes` (a power of two, at
/// most 32) lanes of each aligned run of that many in a warp (every lane
/// gets the run's value).
void combineWarp(OpBuilder &b, Location loc, const Combiner &comb,
                 SmallVector<Value> &rows, int64_t lanes = kWarpSize) {
  for (int32_t offset = lanes / 2; offset >= 1; offset /= 2)
    for (Value &row : rows)
      row = comb.combine(b, loc, row, shuffleXor(b, loc, row, offset));
}

/// Combines each row's per-warp value over the `perGroup` consecutive warps
/// of each group, of the CTA's `warps`, through the shared workspace (every
/// thread gets its group's value).
void combineWarps(OpBuilder &b, Location loc, const Combiner &comb,
                  int64_t warps, int64_t perGroup, SmallVector<Value> &rows,
                  Operation *inModule) {
  if (perGroup == 1)
    return;
  Type element = comb.element;
  bool isBool = comb.isBool();
  Type memElement = lower::memoryType(element);
  Value base = lower::sharedWorkspace(b, loc, inModule);
  Value tid = lower::threadId(b, loc);
  Value lane =
      arith::AndIOp::create(b, loc, tid, lower::i64(b, loc, kWarpSize - 1));
  Value warp =
      arith::ShRUIOp::create(b, loc, tid, lower::i64(b, loc, 5 /*log2 32*/));
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                      lower::i64(b, loc, 0));
  // Row o's partials are workspace elements [o * warps, (o + 1) * warps).
  scf::IfOp::create(b, loc, first, [&](OpBuilder &b, Location loc) {
    for (auto [o, row] : llvm::enumerate(rows)) {
      Value index = arith::AddIOp::create(
          b, loc, warp, lower::i64(b, loc, int64_t(o) * warps));
      Value p = lower::elementPtr(b, loc, base, memElement, index);
      Value v =
          isBool ? Value(arith::ExtUIOp::create(b, loc, memElement, row)) : row;
      LLVM::StoreOp::create(b, loc, v, p);
    }
    scf::YieldOp::create(b, loc);
  });
  lower::ctaBarrier(b, loc);
  // Lane l of every warp reads the value of its group's warp l mod
  // perGroup, and the warp combines them with the same butterfly over
  // aligned blocks of perGroup lanes: one load and log2(perGroup) shuffles
  // per row (2 at 4 warps, where a butterfly over the whole warp takes 5,
  // three of them adding identities), and every thread of the group ends
  // with the same bits, each block having combined the same values in the
  // same order. A group of warps that is not a power of two reads the
  // identity past its last warp and combines over the whole warp. (Every
  // thread reading all warps' values would hold rows x warps values at
  // once: 128 registers for 4 rows at 32 warps.)
  bool byBlocks = llvm::isPowerOf2_64(perGroup);
  Value source =
      byBlocks ? Value(arith::AndIOp::create(b, loc, lane,
                                             lower::i64(b, loc, perGroup - 1)))
               : Value(arith::MinUIOp::create(
                     b, loc, lane, lower::i64(b, loc, perGroup - 1)));
  if (perGroup != warps)
    source = arith::AddIOp::create(
        b, loc, source,
        arith::MulIOp::create(
            b, loc,
            arith::DivUIOp::create(b, loc, warp, lower::i64(b, loc, perGroup)),
            lower::i64(b, loc, perGroup)));
  Value inWarps, id;
  if (!byBlocks) {
    inWarps = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lane,
                                    lower::i64(b, loc, perGroup));
    id = comb.identity(b, loc, element);
  }
  for (auto [o, row] : llvm::enumerate(rows)) {
    Value index = arith::AddIOp::create(b, loc, source,
                                        lower::i64(b, loc, int64_t(o) * warps));
    Value p = lower::elementPtr(b, loc, base, memElement, index);
    Value v = LLVM::LoadOp::create(b, loc, memElement, p);
    if (isBool)
      v = arith::TruncIOp::create(b, loc, element, v);
    row = byBlocks ? v : arith::SelectOp::create(b, loc, inWarps, v, id);
  }
  combineWarp(b, loc, comb, rows, byBlocks ? perGroup : kWarpSize);
  lower::ctaBarrier(b, loc);
}

/// A reduction along leading dimension `dim` of a tile of `layout` (per
/// thread `input`) that a thread holds whole: every thread combines its own
/// rows. Rows at or past `valid` (i64, or null) contribute the identity.
/// The result is the per-thread vector of the tile with `dim` kept as 1.
Value reduceLeading(OpBuilder &b, Location loc, const Combiner &comb,
                    const TileLayout &layout, ArrayRef<int64_t> shape,
                    int64_t dim, Value input, Value valid) {
  // The thread's own extents of the leading dimensions: the dealt ones
  // (TileLayout.h) as one of R0 indices, which `dim` is not.
  SmallVector<int64_t> rows(shape.drop_back());
  if (layout.split) {
    assert(dim >= layout.dealtDims && "dealt dimensions use the workspace");
    rows.erase(rows.begin(), rows.begin() + layout.dealtDims);
    rows.insert(rows.begin(), layout.rows0);
    dim -= layout.dealtDims - 1;
  }
  int64_t width = layout.chunks * layout.vec;
  int64_t before = 1, after = 1, extent = rows[dim];
  for (int64_t d = 0; d < dim; ++d)
    before *= rows[d];
  for (int64_t d = dim + 1; d < static_cast<int64_t>(rows.size()); ++d)
    after *= rows[d];
  auto inputType = cast<VectorType>(input.getType());
  auto rowType = VectorType::get({width}, inputType.getElementType());
  auto resultType =
      VectorType::get({before * after * width}, inputType.getElementType());
  Value id = comb.identity(b, loc, rowType);
  Value result = comb.identity(b, loc, resultType);
  for (int64_t i = 0; i < before; ++i)
    for (int64_t j = 0; j < after; ++j) {
      SmallVector<Value> slices;
      for (int64_t e = 0; e < extent; ++e) {
        int64_t o = (i * extent + e) * after + j;
        Value slice = vector::ExtractStridedSliceOp::create(
            b, loc, input, ArrayRef<int64_t>{o * width},
            ArrayRef<int64_t>{width}, ArrayRef<int64_t>{1});
        if (valid) {
          Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                           lower::i64(b, loc, e), valid);
          slice = arith::SelectOp::create(b, loc, in, slice, id);
        }
        slices.push_back(slice);
      }
      result = vector::InsertStridedSliceOp::create(
          b, loc, comb.tree(b, loc, slices), result,
          ArrayRef<int64_t>{(i * after + j) * width}, ArrayRef<int64_t>{1});
    }
  return result;
}

/// A reduction along leading dimension `dim` of a tile whose rows are
/// dealt over the groups: the tile goes row-major into the workspace, and
/// every thread combines, for each element of its layout of `kept` (the
/// input with dimension `dim` 1), the input's elements along `dim`, in
/// order. Indices at or past `valid` (i64, or null) contribute the
/// identity.
Value reduceDealt(OpBuilder &b, Location loc, const Combiner &comb,
                  const KernelInfo &info, ArrayRef<int64_t> shape, int64_t dim,
                  ArrayRef<int64_t> kept, Value input, Value valid,
                  Operation *inModule) {
  Type element = comb.element;
  Type memElement = lower::memoryType(element);
  auto inputType = cast<VectorType>(input.getType());
  if (comb.isBool())
    input = arith::ExtUIOp::create(
        b, loc, VectorType::get(inputType.getShape(), memElement), input);
  Value base = lower::sharedWorkspace(b, loc, inModule);
  lower::storeDistributed(b, loc, info, shape, input, base);
  lower::ctaBarrier(b, loc);
  // Row-major strides of the input; index e along `dim` is the slice of
  // `kept` at e * strides[dim], contiguous when `dim` has only unit
  // dimensions before it.
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d > 0; --d)
    strides[d - 1] = strides[d] * shape[d];
  bool contiguous =
      llvm::all_of(shape.take_front(dim), [](int64_t n) { return n == 1; });
  Combiner::Stream stream{comb, {}};
  Value id;
  for (int64_t e = 0; e < shape[dim]; ++e) {
    Value slice;
    if (contiguous) {
      Value sliceBase = lower::elementPtr(b, loc, base, memElement,
                                          lower::i64(b, loc, e * strides[dim]));
      slice = lower::loadDistributed(b, loc, info, kept, memElement, sliceBase);
    } else {
      slice = lower::loadStrided(b, loc, info, kept, memElement, base, strides,
                                 e * strides[dim]);
    }
    if (comb.isBool())
      slice = arith::TruncIOp::create(
          b, loc,
          VectorType::get(cast<VectorType>(slice.getType()).getShape(),
                          element),
          slice);
    if (valid) {
      if (!id)
        id = comb.identity(b, loc, slice.getType());
      Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                       lower::i64(b, loc, e), valid);
      slice = arith::SelectOp::create(b, loc, in, slice, id);
    }
    stream.push(b, loc, slice);
  }
  Value result = stream.finish(b, loc);
  lower::ctaBarrier(b, loc);
  return result;
}

/// The input's shape with dimension `dim` kept as 1.
SmallVector<int64_t> keptShape(ArrayRef<int64_t> shape, int64_t dim) {
  SmallVector<int64_t> kept(shape);
  kept[dim] = 1;
  return kept;
}

/// The layouts in which a reduction of an input of layout `layout` leaves
/// its `keptShape`: the input's row threads, unless the reduction went
/// through the workspace (`dealt`), which reads the kept shape's own layout.
KernelInfo keptInfo(const KernelInfo &info, const TileLayout &layout,
                    bool dealt) {
  return dealt ? info : info.withRowThreads(layout.rowThreads);
}

struct ReduceOpLowering : TilePattern<tile::ReduceOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType inputType = op.getInput().getType();
    ArrayRef<int64_t> shape = inputType.getShape();
    int64_t dim = op.getDim();
    Value input = adaptor.getInput();
    Combiner comb{op.getKind(),
                  cast<VectorType>(input.getType()).getElementType()};
    Value valid;
    if (op.getValid())
      valid = lower::toI64(rewriter, loc, adaptor.getValid());
    TileLayout layout = info.layout(shape);
    SmallVector<int64_t> kept = keptShape(shape, dim);

    Value result;
    bool dealt =
        dim + 1 < inputType.getRank() && layout.split && dim < layout.dealtDims;
    if (dealt) {
      result = reduceDealt(rewriter, loc, comb, info, shape, dim, kept, input,
                           valid, op);
    } else if (dim + 1 < inputType.getRank()) {
      result =
          reduceLeading(rewriter, loc, comb, layout, shape, dim, input, valid);
    } else {
      result = reduceLast(rewriter, loc, comb, layout, input, valid, op);
    }

    auto resultTensor = dyn_cast<RankedTensorType>(op.getResult().getType());
    if (!resultTensor) {
      rewriter.replaceOp(op, vector::ExtractOp::create(rewriter, loc, result,
                                                       ArrayRef<int64_t>{0}));
      return success();
    }
    rewriter.replaceOp(
        op,
        lower::convertLayout(rewriter, loc, keptInfo(info, layout, dealt), kept,
                             info, resultTensor.getShape(), result, op));
    return success();
  }

  /// Along the last dimension: each row's value in every lane of its group
  /// (the per-thread vector of the input with the last dimension 1).
  Value reduceLast(OpBuilder &b, Location loc, const Combiner &comb,
                   const TileLayout &layout, Value input, Value valid,
                   Operation *op) const {
    SmallVector<Value> rows;
    if (layout.replicated) {
      // A last dimension of 1: the element itself, unless valid is 0.
      Value id = comb.identity(b, loc, comb.element);
      for (int64_t o = 0; o < layout.outer; ++o) {
        Value x =
            vector::ExtractOp::create(b, loc, input, ArrayRef<int64_t>{o});
        if (valid)
          x = arith::SelectOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, valid,
                                    lower::i64(b, loc, 0)),
              x, id);
        rows.push_back(x);
      }
    } else {
      rows = combineOwn(b, loc, comb, layout, input, valid);
      combineWarp(b, loc, comb, rows,
                  std::min<int64_t>(layout.rowThreads, kWarpSize));
      combineWarps(b, loc, comb, info.threads / kWarpSize,
                   std::max<int64_t>(1, layout.rowThreads / kWarpSize), rows,
                   op);
    }
    return vector::FromElementsOp::create(
        b, loc,
        VectorType::get({static_cast<int64_t>(rows.size())}, comb.element),
        rows);
  }
};

} // namespace

int64_t dslc::lower::reduceSharedBytes(Operation *op, const KernelInfo &info) {
  auto reduce = cast<tile::ReduceOp>(op);
  RankedTensorType input = reduce.getInput().getType();
  TileLayout layout = info.layout(input.getShape());
  int64_t dim = reduce.getDim();
  SmallVector<int64_t> kept = keptShape(input.getShape(), dim);
  int64_t bytes = 0;
  // The result's layout, when it differs from that of `kept`.
  bool dealt =
      dim + 1 != input.getRank() && layout.split && dim < layout.dealtDims;
  if (auto result = dyn_cast<RankedTensorType>(reduce.getResult().getType()))
    if (layoutChange(keptInfo(info, layout, dealt).layout(kept),
                     info.layout(result.getShape())) == LayoutChange::Shared)
      bytes = gatherSharedBytes(kept, input.getElementType());
  if (dim + 1 != input.getRank()) {
    if (dealt)
      bytes = std::max(
          bytes, gatherSharedBytes(input.getShape(), input.getElementType()));
    return bytes;
  }
  int64_t warps = info.threads / kWarpSize;
  if (layout.replicated || layout.rowThreads <= kWarpSize)
    return bytes;
  int64_t elementBytes = std::max<unsigned>(
      1, storageType(input.getElementType()).getIntOrFloatBitWidth() / 8);
  return std::max(bytes, layout.outer * warps * elementBytes);
}

void dslc::populateReduceLoweringPatterns(TileTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<ReduceOpLowering>(converter, patterns.getContext());
}
