//===- MemoryLowering.cpp - tile loads, stores and tile constants --------===//
//
// A thread's share of a tile is a list of pieces of V contiguous elements
// (TileLayout.h). In bounds and 16-byte aligned, a piece is one vector load
// or store (ld.global.v4.b32 for 8 bf16); the masked tail of the last tile
// goes element by element under a mask.
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

namespace dslc::lower {

/// Per tensor dimension other than the inner one: how many indices from
/// the access offset are in bounds (`left`, 0 when the offset is past the
/// limit); and per dimension the row-major stride. Row o of a tile is in
/// bounds when each of its tile indices t is below its dimension's count,
/// and starts `sum t * stride` elements after row 0: one value per
/// dimension instead of one per row (that a kernel would keep live from a
/// load to the store of the same rows).
static void rowBoundsAndStrides(OpBuilder &b, Location loc, const TileAccess &a,
                                ArrayRef<Value> limits, int64_t innerDim,
                                SmallVectorImpl<Value> &left,
                                SmallVectorImpl<Value> &strides) {
  int64_t rank = a.sizes.size();
  left.assign(rank, Value());
  strides.assign(rank, Value());
  for (int64_t d = rank - 1; d >= 0; --d) {
    strides[d] = d + 1 == rank ? i64(b, loc, 1)
                               : arith::MulIOp::create(b, loc, strides[d + 1],
                                                       a.sizes[d + 1])
                                     .getResult();
    if (d == innerDim)
      continue;
    Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                     a.offsets[d], limits[d]);
    left[d] = arith::SelectOp::create(
        b, loc, in, arith::SubIOp::create(b, loc, limits[d], a.offsets[d]),
        i64(b, loc, 0));
  }
}

/// This thread's lane and group in a layout (TileLayout.h), as i64.
std::pair<Value, Value> laneAndGroup(OpBuilder &b, Location loc,
                                     const TileLayout &layout) {
  Value tid = threadId(b, loc);
  if (layout.groups() == 1)
    return {tid, i64(b, loc, 0)};
  Value p = i64(b, loc, layout.rowThreads);
  return {arith::RemUIOp::create(b, loc, tid, p),
          arith::DivUIOp::create(b, loc, tid, p)};
}

/// Row `o` of a tile that deals its first S > 1 leading dimensions over
/// the groups (TileLayout.h): the indices of the others are constants, those
/// of the dealt ones come from the run-time index r0 * G + group. Each must
/// be below its dimension's count (and a padding row is never valid):
/// `rowValid`; the row's element offset from row 0: `rowOffset`.
static void dealtRow(OpBuilder &b, Location loc, const TileLayout &layout,
                     const TileAccess &a, ArrayRef<int64_t> leading,
                     ArrayRef<Value> left, ArrayRef<Value> strides, int64_t o,
                     Value group, Value &rowValid, Value &rowOffset) {
  auto add = [&](int64_t d, Value t, arith::CmpIPredicate inBounds) {
    rowValid = arith::AndIOp::create(
        b, loc, rowValid, arith::CmpIOp::create(b, loc, inBounds, left[d], t));
    Value step = arith::MulIOp::create(b, loc, strides[d], t);
    rowOffset =
        rowOffset ? arith::AddIOp::create(b, loc, rowOffset, step) : step;
  };
  int64_t s = layout.dealtDims;
  int64_t k = o % layout.rest;
  for (int64_t d = leading.size() - 1; d >= s; --d) {
    int64_t t = k % leading[d];
    k /= leading[d];
    if (t)
      add(a.dims[d], i64(b, loc, t), arith::CmpIPredicate::ugt);
  }
  Value i0 = arith::AddIOp::create(
      b, loc, group, i64(b, loc, o / layout.rest * layout.groups()));
  if (layout.raggedRows())
    rowValid = arith::AndIOp::create(
        b, loc, rowValid,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i0,
                              i64(b, loc, layout.dim0)));
  for (int64_t d = s - 1; d >= 0; --d) {
    Value t = d ? arith::RemUIOp::create(b, loc, i0, i64(b, loc, leading[d]))
                      .getResult()
                : i0;
    if (d)
      i0 = arith::DivUIOp::create(b, loc, i0, i64(b, loc, leading[d]));
    add(a.dims[d], t, arith::CmpIPredicate::ugt);
  }
}

void forEachPiece(OpBuilder &b, Location loc, const KernelInfo &info,
                  const TileAccess &a,
                  const std::function<void(const AccessPiece &)> &fn) {
  TileLayout layout = info.layout(a.tileShape);
  unsigned rank = a.sizes.size();
  // A rank-0 tile is the element at the offsets: its (unit) inner
  // dimension is the tensor's last.
  int64_t innerDim = a.dims.empty() ? rank - 1 : a.dims.back();
  int64_t innerExtent = a.tileShape.empty() ? 1 : a.tileShape.back();
  bool contiguous = innerDim == static_cast<int64_t>(rank) - 1;
  auto [lane, group] = laneAndGroup(b, loc, layout);
  // A replicated tile is accessed whole by every lane (stores: lane 0); a
  // tile every group holds is stored by group 0.
  Value laneOffset =
      layout.replicated
          ? i64(b, loc, 0)
          : arith::MulIOp::create(b, loc, lane, i64(b, loc, layout.vec));

  // Clamp each limit to the tensor's size, and the last tile dimension to
  // the tile's own extent (so a thread never touches a neighbour's tile).
  SmallVector<Value> limits;
  for (unsigned d = 0; d < rank; ++d)
    limits.push_back(arith::MinUIOp::create(b, loc, a.limits[d], a.sizes[d]));
  Value tileEnd = arith::AddIOp::create(b, loc, a.offsets[innerDim],
                                        i64(b, loc, innerExtent));
  limits[innerDim] = arith::MinUIOp::create(b, loc, limits[innerDim], tileEnd);

  unsigned elementBytes = a.elementType.getIntOrFloatBitWidth() / 8;
  int64_t align = std::min<int64_t>(16, layout.vec * elementBytes);
  SmallVector<int64_t> leading(
      a.tileShape.begin(), a.tileShape.end() - (a.tileShape.empty() ? 0 : 1));
  Value writer = arith::ConstantIntOp::create(b, loc, 1, 1);
  if (a.writes) {
    if (layout.replicated)
      writer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                     i64(b, loc, 0));
    if (layout.groupReplicated())
      writer = arith::AndIOp::create(
          b, loc, writer,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, group,
                                i64(b, loc, 0)));
  }

  SmallVector<Value> left, strides;
  rowBoundsAndStrides(b, loc, a, limits, innerDim, left, strides);
  // Elements between neighbours along the inner dimension.
  Value stride = strides[innerDim];
  Value rowsValid = writer;
  for (unsigned d = 0; d < rank; ++d)
    if (static_cast<int64_t>(d) != innerDim)
      rowsValid = arith::AndIOp::create(
          b, loc, rowsValid,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, left[d],
                                i64(b, loc, 0)));
  // A first dimension dealt over the groups: this group's first index is
  // `group`; index r0 * G + group is in bounds when it is below both the
  // tensor's count and the tile's extent (signed: the count minus the
  // group may be negative). Several dealt dimensions: dealtRow.
  Value groupLeft;
  SmallVector<Value> offsets(a.offsets.begin(), a.offsets.end());
  bool dealtRows = layout.split && layout.dealtDims > 1;
  if (layout.split && !dealtRows) {
    int64_t d = a.dims[0];
    offsets[d] = arith::AddIOp::create(b, loc, offsets[d], group);
    groupLeft = arith::SubIOp::create(
        b, loc,
        arith::MinUIOp::create(b, loc, left[d], i64(b, loc, layout.dim0)),
        group);
  }
  // Element index of piece c of row 0.
  SmallVector<Value> pieceStart, pieceLinear;
  for (int64_t c = 0; c < layout.chunks; ++c) {
    Value start =
        arith::AddIOp::create(b, loc, offsets[innerDim],
                              i64(b, loc, c * layout.rowThreads * layout.vec));
    start = arith::AddIOp::create(b, loc, start, laneOffset);
    SmallVector<Value> coords(offsets.begin(), offsets.end());
    coords[innerDim] = start;
    pieceStart.push_back(start);
    pieceLinear.push_back(linearIndex(b, loc, coords, a.sizes));
  }

  for (int64_t o = 0; o < layout.outer; ++o) {
    // Tile indices of row `o` along the leading tile dimensions (the first
    // one relative to this group's first index when dealt).
    Value rowValid = rowsValid;
    Value rowOffset;
    if (dealtRows)
      dealtRow(b, loc, layout, a, leading, left, strides, o, group, rowValid,
               rowOffset);
    else {
      int64_t rest = o;
      for (int64_t k = leading.size() - 1; k >= 0; --k) {
        bool dealt = k == 0 && layout.split;
        int64_t extent = dealt ? layout.rows0 : leading[k];
        int64_t t = rest % extent;
        rest /= extent;
        if (dealt)
          t *= layout.groups();
        int64_t d = a.dims[k];
        if (dealt)
          rowValid = arith::AndIOp::create(
              b, loc, rowValid,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                    groupLeft, i64(b, loc, t)));
        if (!t)
          continue;
        if (!dealt)
          rowValid = arith::AndIOp::create(
              b, loc, rowValid,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, left[d],
                                    i64(b, loc, t)));
        Value step = arith::MulIOp::create(b, loc, strides[d], i64(b, loc, t));
        rowOffset =
            rowOffset ? arith::AddIOp::create(b, loc, rowOffset, step) : step;
      }
    }
    for (int64_t c = 0; c < layout.chunks; ++c) {
      Value start = pieceStart[c];
      Value linear = pieceLinear[c];
      if (rowOffset)
        linear = arith::AddIOp::create(b, loc, linear, rowOffset);
      Value base = elementPtr(b, loc, a.ptr, a.elementType, linear);

      // mask[v] = rowValid && start + v < limit (unsigned: negative is out),
      // as v < remaining with remaining = limit - start (0 past the limit):
      // one value per piece instead of V element indices. A kernel that
      // loads and stores the same tile coordinates (a[s * shard + tile] and
      // out[s * shard + tile]) would otherwise share those indices across
      // everything in between, 2 registers per element.
      Value limit = limits[innerDim];
      Value before = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           start, limit);
      Value remaining = arith::SelectOp::create(
          b, loc, before, arith::SubIOp::create(b, loc, limit, start),
          i64(b, loc, 0));
      SmallVector<Value> lanes;
      for (int64_t v = 0; v < layout.vec; ++v) {
        Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                         remaining, i64(b, loc, v));
        lanes.push_back(arith::AndIOp::create(b, loc, rowValid, ok));
      }
      auto maskType = VectorType::get({layout.vec}, b.getI1Type());
      Value mask = vector::FromElementsOp::create(b, loc, maskType, lanes);

      Value full = arith::ConstantIntOp::create(b, loc, 0, 1);
      if (contiguous) {
        Value inBounds =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, remaining,
                                  i64(b, loc, layout.vec - 1));
        Value addr = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), base);
        Value low = arith::AndIOp::create(b, loc, addr, i64(b, loc, align - 1));
        Value aligned = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                              low, i64(b, loc, 0));
        full = arith::AndIOp::create(b, loc, rowValid, inBounds);
        full = arith::AndIOp::create(b, loc, full, aligned);
      }
      fn(AccessPiece{layout.position(o, c, 0), layout.vec, base, stride,
                     contiguous, mask, full});
    }
  }
}

/// Element `v` of a piece: its address.
static Value elementAddress(OpBuilder &b, Location loc,
                            const AccessPiece &piece, Type elementType,
                            int64_t v) {
  if (v == 0)
    return piece.base;
  Value offset = arith::MulIOp::create(b, loc, piece.stride, i64(b, loc, v));
  return elementPtr(b, loc, piece.base, elementType, offset);
}

Value loadPiece(OpBuilder &b, Location loc, const AccessPiece &piece,
                Value other, tile::Eviction evict) {
  auto type = cast<VectorType>(other.getType());
  Type elementType = type.getElementType();
  unsigned elementBytes = elementType.getIntOrFloatBitWidth() / 8;
  int64_t align = std::min<int64_t>(16, piece.vec * elementBytes);
  auto ifOp = scf::IfOp::create(
      b, loc, piece.full,
      [&](OpBuilder &b, Location loc) {
        Value v = globalLoad(b, loc, type, piece.base, align, evict);
        scf::YieldOp::create(b, loc, v);
      },
      [&](OpBuilder &b, Location loc) {
        Value result = other;
        for (int64_t v = 0; v < piece.vec; ++v) {
          Value ok = vector::ExtractOp::create(b, loc, piece.mask,
                                               ArrayRef<int64_t>{v});
          auto elementIf = scf::IfOp::create(
              b, loc, ok,
              [&](OpBuilder &b, Location loc) {
                Value p = elementAddress(b, loc, piece, elementType, v);
                Value x =
                    globalLoad(b, loc, elementType, p, elementBytes, evict);
                scf::YieldOp::create(b, loc, x);
              },
              [&](OpBuilder &b, Location loc) {
                Value x = vector::ExtractOp::create(b, loc, other,
                                                    ArrayRef<int64_t>{v});
                scf::YieldOp::create(b, loc, x);
              });
          result = vector::InsertOp::create(b, loc, elementIf.getResult(0),
                                            result, ArrayRef<int64_t>{v});
        }
        scf::YieldOp::create(b, loc, result);
      });
  return ifOp.getResult(0);
}

void storePiece(OpBuilder &b, Location loc, const AccessPiece &piece,
                Value value) {
  auto type = cast<VectorType>(value.getType());
  Type elementType = type.getElementType();
  unsigned elementBytes = elementType.getIntOrFloatBitWidth() / 8;
  int64_t align = std::min<int64_t>(16, piece.vec * elementBytes);
  scf::IfOp::create(
      b, loc, piece.full,
      [&](OpBuilder &b, Location loc) {
        LLVM::StoreOp::create(b, loc, value, piece.base, align);
        scf::YieldOp::create(b, loc);
      },
      [&](OpBuilder &b, Location loc) {
        for (int64_t v = 0; v < piece.vec; ++v) {
          Value ok = vector::ExtractOp::create(b, loc, piece.mask,
                                               ArrayRef<int64_t>{v});
          scf::IfOp::create(b, loc, ok, [&](OpBuilder &b, Location loc) {
            Value p = elementAddress(b, loc, piece, elementType, v);
            Value x =
                vector::ExtractOp::create(b, loc, value, ArrayRef<int64_t>{v});
            LLVM::StoreOp::create(b, loc, x, p, elementBytes);
            scf::YieldOp::create(b, loc);
          });
        }
        scf::YieldOp::create(b, loc);
      });
}

/// Whether `write` may run before `read` in one CTA: it comes first in
/// program order, or a loop holds both (an earlier iteration's write).
static bool mayPrecede(Operation *write, Operation *read) {
  for (Operation *at = read; at; at = at->getParentOp()) {
    Operation *w = at->getBlock()
                       ? at->getBlock()->findAncestorOpInBlock(*write)
                       : nullptr;
    if (w && w != at && w->isBeforeInBlock(at))
      return true;
    if (isa<scf::ForOp, scf::WhileOp>(at) && at->isAncestor(write))
      return true;
  }
  return false;
}

void markReadsAfterWrites(Operation *func) {
  auto root = [](Value v) {
    while (auto view = v.getDefiningOp<tile::ViewOp>())
      v = view.getRef();
    return v;
  };
  llvm::DenseMap<Value, SmallVector<Operation *>> writes;
  func->walk([&](Operation *op) {
    if (auto s = dyn_cast<tile::StoreOp>(op))
      writes[root(s.getRef())].push_back(op);
    else if (auto s = dyn_cast<tile::ScatterOp>(op))
      writes[root(s.getRef())].push_back(op);
    else if (auto a = dyn_cast<tile::AtomicOp>(op))
      writes[root(a.getRef())].push_back(op);
  });
  if (writes.empty())
    return;
  func->walk([&](Operation *op) {
    Value ref;
    if (auto l = dyn_cast<tile::LoadOp>(op))
      ref = l.getRef();
    else if (auto g = dyn_cast<tile::GatherOp>(op))
      ref = g.getRef();
    auto it = ref ? writes.find(root(ref)) : writes.end();
    if (it != writes.end() && llvm::any_of(it->second, [&](Operation *w) {
          return mayPrecede(w, op);
        }))
      op->setAttr(kCtaOrderedAttr, UnitAttr::get(op->getContext()));
  });
}

TileAccess makeAccess(OpBuilder &b, Location loc, Value refOrStack,
                      unsigned firstSize, Value ptr, ValueRange offsets,
                      ValueRange limits, ArrayRef<int64_t> dims,
                      RankedTensorType tile) {
  TileAccess a;
  a.ptr = ptr;
  for (unsigned d = 0; d < offsets.size(); ++d) {
    a.sizes.push_back(field(b, loc, refOrStack, firstSize + d));
    a.offsets.push_back(toI64(b, loc, offsets[d]));
    a.limits.push_back(toI64(b, loc, limits[d]));
  }
  a.dims = dims;
  a.tileShape = tile.getShape();
  a.elementType = memoryType(storageType(tile.getElementType()));
  return a;
}

} // namespace dslc::lower

namespace {

struct LoadOpLowering : TilePattern<tile::LoadOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (op->hasAttr(lower::kCtaOrderedAttr))
      lower::ctaBarrier(rewriter, loc);
    RankedTensorType tile = op.getResult().getType();
    auto resultType = cast<VectorType>(getTypeConverter()->convertType(tile));
    // Booleans are bytes in memory (i1 vectors are bit-packed in LLVM's).
    bool isBool = resultType.getElementType().isInteger(1);
    Type elementType = lower::memoryType(resultType.getElementType());
    auto memType = VectorType::get(resultType.getShape(), elementType);
    TypedAttr otherAttr = op.getOtherAttr();
    if (!otherAttr)
      otherAttr = rewriter.getZeroAttr(elementType);
    else if (isBool)
      otherAttr = rewriter.getI8IntegerAttr(
          cast<IntegerAttr>(otherAttr).getValue().getBoolValue());
    auto pieceType =
        VectorType::get({info.layout(tile.getShape()).vec}, elementType);
    Value other = lower::splatConstant(rewriter, loc, pieceType, otherAttr);
    Value result = lower::splatConstant(rewriter, loc, memType, otherAttr);
    lower::TileAccess access = lower::makeAccess(
        rewriter, loc, adaptor.getRef(), /*firstSize=*/1,
        lower::field(rewriter, loc, adaptor.getRef(), 0), adaptor.getOffsets(),
        adaptor.getLimits(), op.getDims(), tile);
    lower::forEachPiece(
        rewriter, loc, info, access, [&](const lower::AccessPiece &piece) {
          Value v =
              lower::loadPiece(rewriter, loc, piece, other,
                               op.getEvict().value_or(tile::Eviction::normal));
          result = vector::InsertStridedSliceOp::create(
              rewriter, loc, v, result, ArrayRef<int64_t>{piece.position},
              ArrayRef<int64_t>{1});
        });
    if (isBool)
      result = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ne, result,
          lower::splatConstant(rewriter, loc, memType,
                               rewriter.getI8IntegerAttr(0)));
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct StoreOpLowering : TilePattern<tile::StoreOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType tile = op.getValue().getType();
    Value value = adaptor.getValue();
    auto valueType = cast<VectorType>(value.getType());
    if (valueType.getElementType().isInteger(1))
      value = arith::ExtUIOp::create(
          rewriter, loc,
          VectorType::get(valueType.getShape(), rewriter.getI8Type()), value);
    lower::TileAccess access = lower::makeAccess(
        rewriter, loc, adaptor.getRef(), /*firstSize=*/1,
        lower::field(rewriter, loc, adaptor.getRef(), 0), adaptor.getOffsets(),
        adaptor.getLimits(), op.getDims(), tile);
    access.writes = true;
    lower::forEachPiece(
        rewriter, loc, info, access, [&](const lower::AccessPiece &piece) {
          Value v = vector::ExtractStridedSliceOp::create(
              rewriter, loc, value, ArrayRef<int64_t>{piece.position},
              ArrayRef<int64_t>{piece.vec}, ArrayRef<int64_t>{1});
          lower::storePiece(rewriter, loc, piece, v);
        });
    rewriter.eraseOp(op);
    return success();
  }
};

struct DimOpLowering : OpConversionPattern<tile::DimOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::DimOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value size =
        lower::field(rewriter, op.getLoc(), adaptor.getRef(), 1 + op.getDim());
    rewriter.replaceOp(op, lower::toIndex(rewriter, op.getLoc(), size));
    return success();
  }
};

/// A view: the tensor's address with the new sizes; every size 0 when the
/// view would hold more elements than the tensor (all its accesses masked).
struct ViewOpLowering : OpConversionPattern<tile::ViewOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::ViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = getTypeConverter()->convertType(op.getResult().getType());
    Value from = adaptor.getRef();
    int64_t fromRank = op.getRef().getType().getRank();
    Value have = lower::i64(rewriter, loc, 1);
    for (int64_t d = 0; d < fromRank; ++d)
      have = arith::MulIOp::create(rewriter, loc, have,
                                   lower::field(rewriter, loc, from, 1 + d));
    SmallVector<Value> sizes;
    Value want = lower::i64(rewriter, loc, 1);
    for (Value s : op.getSizes()) {
      sizes.push_back(lower::toI64(rewriter, loc, s));
      want = arith::MulIOp::create(rewriter, loc, want, sizes.back());
    }
    Value fits = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sle,
                                       want, have);
    Value zero = lower::i64(rewriter, loc, 0);
    Value s = LLVM::UndefOp::create(rewriter, loc, type);
    s = LLVM::InsertValueOp::create(rewriter, loc, s,
                                    lower::field(rewriter, loc, from, 0),
                                    ArrayRef<int64_t>{0});
    for (auto [d, size] : llvm::enumerate(sizes))
      s = LLVM::InsertValueOp::create(
          rewriter, loc, s,
          arith::SelectOp::create(rewriter, loc, fits, size, zero),
          ArrayRef<int64_t>{int64_t(d) + 1});
    rewriter.replaceOp(op, s);
    return success();
  }
};

struct SplatOpLowering : TilePattern<tile::SplatOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getResult().getType());
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, type,
                                                     adaptor.getValue());
    return success();
  }
};

struct IotaOpLowering : TilePattern<tile::IotaOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::IotaOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType tile = op.getResult().getType();
    auto type = cast<VectorType>(getTypeConverter()->convertType(tile));
    Type elementType = tile.getElementType();
    TileLayout layout = info.layout(tile.getShape());
    // A replicated iota (tensor<1x..>) is element 0 in every lane: lanes
    // past the first hold copies of it, not padding (a broadcast of it
    // reads each lane's own copy).
    if (layout.replicated) {
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(
          op, DenseElementsAttr::get(type, rewriter.getZeroAttr(elementType)));
      return success();
    }
    // Element v of piece c is c * T * V + tid * V + v.
    SmallVector<Attribute> base;
    for (int64_t c = 0; c < layout.chunks; ++c)
      for (int64_t v = 0; v < layout.vec; ++v)
        base.push_back(rewriter.getIntegerAttr(
            elementType, c * layout.threads * layout.vec + v));
    Value constant = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(type, base));
    Value tid = lower::threadId(rewriter, loc);
    Value first = arith::MulIOp::create(rewriter, loc, tid,
                                        lower::i64(rewriter, loc, layout.vec));
    if (elementType.isIndex())
      first = lower::toIndex(rewriter, loc, first);
    else if (elementType.getIntOrFloatBitWidth() < 64)
      first = arith::TruncIOp::create(rewriter, loc, elementType, first);
    Value splat = vector::BroadcastOp::create(rewriter, loc, type, first);
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, constant, splat);
    return success();
  }
};

} // namespace

void dslc::populateMemoryLoweringPatterns(TileTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns
      .add<LoadOpLowering, StoreOpLowering, SplatOpLowering, IotaOpLowering>(
          converter, ctx);
  patterns.add<DimOpLowering, ViewOpLowering>(converter, ctx);
}
