//===- ReduceLowering.cpp - tile.reduce across a CTA's threads ------------===//
//
// Along a leading dimension every thread holds whole columns (TileLayout.h):
// it combines its own rows. Along the last dimension of a distributed tile:
//  1. each thread combines its pieces; positions at or past `valid` or the
//     static extent contribute the identity;
//  2. each warp combines its lanes with 5 butterfly shuffles
//     (shfl.sync.bfly), after which every lane holds the warp's value (the
//     combinations are commutative, so all lanes compute the same bits);
//  3. lane 0 of each warp writes its value into the shared workspace;
//     after a bar.sync lane l of every warp reads warp l's value and the
//     warp combines them with the same butterfly (so every thread ends with
//     the same bits), and a second bar.sync frees the workspace.
// The result is replicated: every thread holds the same value. A result
// whose layout is distributed (the reduced dimension removed from a tile of
// rank >= 2, leaving a last dimension > 1) is then selected locally.
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

  bool isFloat() const { return isa<FloatType>(element); }
  /// Booleans compare unsigned (max is "any", min is "all").
  bool isBool() const { return element.isInteger(1); }

  TypedAttr identityAttr() const {
    Builder b(element.getContext());
    if (auto f = dyn_cast<FloatType>(element)) {
      const llvm::fltSemantics &sem = f.getFloatSemantics();
      switch (kind) {
      case tile::ReduceKind::sum:
        return b.getFloatAttr(f, llvm::APFloat::getZero(sem));
      case tile::ReduceKind::prod:
        return b.getFloatAttr(f, llvm::APFloat::getOne(sem));
      case tile::ReduceKind::max:
        return b.getFloatAttr(f, llvm::APFloat::getInf(sem, /*Negative=*/true));
      case tile::ReduceKind::min:
        return b.getFloatAttr(f, llvm::APFloat::getInf(sem));
      }
    }
    unsigned width = element.getIntOrFloatBitWidth();
    llvm::APInt value;
    switch (kind) {
    case tile::ReduceKind::sum:
      value = llvm::APInt::getZero(width);
      break;
    case tile::ReduceKind::prod:
      value = llvm::APInt(width, 1);
      break;
    case tile::ReduceKind::max:
      value = isBool() ? llvm::APInt::getZero(width)
                       : llvm::APInt::getSignedMinValue(width);
      break;
    case tile::ReduceKind::min:
      value = isBool() ? llvm::APInt::getAllOnes(width)
                       : llvm::APInt::getSignedMaxValue(width);
      break;
    }
    return b.getIntegerAttr(element, value);
  }

  /// The identity as a scalar, or splat over `type` when it is a vector.
  Value identity(OpBuilder &b, Location loc, Type type) const {
    if (auto vector = dyn_cast<VectorType>(type))
      return lower::splatConstant(b, loc, vector, identityAttr());
    return arith::ConstantOp::create(b, loc, identityAttr());
  }

  Value combine(OpBuilder &b, Location loc, Value x, Value y) const {
    switch (kind) {
    case tile::ReduceKind::sum:
      return isFloat() ? Value(arith::AddFOp::create(b, loc, x, y))
                       : Value(arith::AddIOp::create(b, loc, x, y));
    case tile::ReduceKind::prod:
      return isFloat() ? Value(arith::MulFOp::create(b, loc, x, y))
                       : Value(arith::MulIOp::create(b, loc, x, y));
    case tile::ReduceKind::max:
      if (isFloat())
        return arith::MaximumFOp::create(b, loc, x, y);
      return isBool() ? Value(arith::MaxUIOp::create(b, loc, x, y))
                      : Value(arith::MaxSIOp::create(b, loc, x, y));
    case tile::ReduceKind::min:
      if (isFloat())
        return arith::MinimumFOp::create(b, loc, x, y);
      return isBool() ? Value(arith::MinUIOp::create(b, loc, x, y))
                      : Value(arith::MinSIOp::create(b, loc, x, y));
    }
    llvm_unreachable("unknown reduction kind");
  }

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
    result = arith::OrIOp::create(
        b, loc, high64, arith::ExtUIOp::create(b, loc, intType, low));
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
  bool ragged = layout.inner % (layout.threads * layout.vec) != 0;
  // remaining[c] = limit - first index of piece c: lane v is in when
  // v < remaining[c] (signed: a negative count masks all).
  SmallVector<Value> remaining;
  if (limit || ragged) {
    // In i32: the counts are at most the tile's extent; a valid count
    // outside [0, extent] is clamped first.
    Value end = lower::i64(b, loc, layout.inner);
    if (limit)
      end = arith::MaxSIOp::create(
          b, loc, arith::MinSIOp::create(b, loc, limit, end),
          lower::i64(b, loc, 0));
    end = arith::TruncIOp::create(b, loc, b.getI32Type(), end);
    Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
    for (int64_t c = 0; c < layout.chunks; ++c) {
      Value first = arith::MulIOp::create(
          b, loc,
          arith::AddIOp::create(b, loc, tid,
                                lower::i32(b, loc, c * layout.threads)),
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

/// Combines each row's value over the lanes of each warp (every lane gets
/// the warp's value).
void combineWarp(OpBuilder &b, Location loc, const Combiner &comb,
                 SmallVector<Value> &rows) {
  for (int32_t offset = kWarpSize / 2; offset >= 1; offset /= 2)
    for (Value &row : rows)
      row = comb.combine(b, loc, row, shuffleXor(b, loc, row, offset));
}

/// Combines each row's per-warp value over the CTA's `warps` warps through
/// the shared workspace (every thread gets the CTA's value).
void combineWarps(OpBuilder &b, Location loc, const Combiner &comb,
                  int64_t warps, SmallVector<Value> &rows,
                  Operation *inModule) {
  if (warps == 1)
    return;
  Type element = comb.element;
  bool isBool = comb.isBool();
  Type memElement = lower::memoryType(element);
  Value base = lower::sharedWorkspace(b, loc, inModule);
  Value tid = lower::threadId(b, loc);
  Value lane = arith::AndIOp::create(b, loc, tid,
                                     lower::i64(b, loc, kWarpSize - 1));
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
      Value v = isBool ? Value(arith::ExtUIOp::create(b, loc, memElement, row))
                       : row;
      LLVM::StoreOp::create(b, loc, v, p);
    }
    scf::YieldOp::create(b, loc);
  });
  lower::ctaBarrier(b, loc);
  // Lane l of every warp reads warp l's value (the identity past the last
  // warp), and the warp combines them with the same butterfly: one load and
  // five shuffles per row, and every thread of every warp ends with the
  // same bits. (Every thread reading all warps' values would hold rows x
  // warps values at once: 128 registers for 4 rows at 32 warps.)
  Value inWarps = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        lane, lower::i64(b, loc, warps));
  Value source = arith::MinUIOp::create(b, loc, lane,
                                        lower::i64(b, loc, warps - 1));
  Value id = comb.identity(b, loc, element);
  for (auto [o, row] : llvm::enumerate(rows)) {
    Value index = arith::AddIOp::create(
        b, loc, source, lower::i64(b, loc, int64_t(o) * warps));
    Value p = lower::elementPtr(b, loc, base, memElement, index);
    Value v = LLVM::LoadOp::create(b, loc, memElement, p);
    if (isBool)
      v = arith::TruncIOp::create(b, loc, element, v);
    row = arith::SelectOp::create(b, loc, inWarps, v, id);
  }
  combineWarp(b, loc, comb, rows);
  lower::ctaBarrier(b, loc);
}

/// A reduction along leading dimension `dim` of a tile of `shape` (per
/// thread `input`): every thread combines its own rows. Rows at or past
/// `valid` (i64, or null) contribute the identity.
Value reduceLeading(OpBuilder &b, Location loc, const Combiner &comb,
                    const KernelInfo &info, ArrayRef<int64_t> shape,
                    int64_t dim, Value input, Value valid) {
  TileLayout layout = info.layout(shape);
  int64_t width = layout.chunks * layout.vec;
  int64_t before = 1, after = 1, extent = shape[dim];
  for (int64_t d = 0; d < dim; ++d)
    before *= shape[d];
  for (int64_t d = dim + 1; d + 1 < static_cast<int64_t>(shape.size()); ++d)
    after *= shape[d];
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

    if (dim + 1 < inputType.getRank()) {
      // The last dimension stays: the result has the input's layout per
      // row, whether keepdim or not.
      rewriter.replaceOp(op, reduceLeading(rewriter, loc, comb, info, shape,
                                           dim, input, valid));
      return success();
    }

    TileLayout layout = info.layout(shape);
    SmallVector<Value> rows;
    if (layout.replicated) {
      // A last dimension of 1: the element itself, unless valid is 0.
      Value id = comb.identity(rewriter, loc, comb.element);
      for (int64_t o = 0; o < layout.outer; ++o) {
        Value x = vector::ExtractOp::create(rewriter, loc, input,
                                            ArrayRef<int64_t>{o});
        if (valid)
          x = arith::SelectOp::create(
              rewriter, loc,
              arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sgt,
                                    valid, lower::i64(rewriter, loc, 0)),
              x, id);
        rows.push_back(x);
      }
    } else {
      rows = combineOwn(rewriter, loc, comb, layout, input, valid);
      combineWarp(rewriter, loc, comb, rows);
      combineWarps(rewriter, loc, comb, info.threads / kWarpSize, rows, op);
    }

    auto resultTensor = dyn_cast<RankedTensorType>(op.getResult().getType());
    if (!resultTensor) {
      rewriter.replaceOp(op, rows.front());
      return success();
    }
    Value all = vector::FromElementsOp::create(
        rewriter, loc,
        VectorType::get({static_cast<int64_t>(rows.size())}, comb.element),
        rows);
    if (!info.layout(resultTensor.getShape()).replicated)
      all = lower::distributeReplicated(rewriter, loc, info,
                                        resultTensor.getShape(), all);
    rewriter.replaceOp(op, all);
    return success();
  }
};

} // namespace

int64_t dslc::lower::reduceSharedBytes(Operation *op, const KernelInfo &info) {
  auto reduce = cast<tile::ReduceOp>(op);
  RankedTensorType input = reduce.getInput().getType();
  TileLayout layout = info.layout(input.getShape());
  int64_t warps = info.threads / kWarpSize;
  if (static_cast<int64_t>(reduce.getDim()) + 1 != input.getRank() ||
      layout.replicated ||
      warps == 1)
    return 0;
  int64_t bytes = std::max<unsigned>(
      1, storageType(input.getElementType()).getIntOrFloatBitWidth() / 8);
  return layout.outer * warps * bytes;
}

void dslc::populateReduceLoweringPatterns(TileTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<ReduceOpLowering>(converter, patterns.getContext());
}
