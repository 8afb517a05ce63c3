//===- GatherLowering.cpp - tile.gather, tile.scatter and tile.atomic -----===//
//
// A gather or scatter addresses every element on its own: its index tiles
// have the data tile's shape, so in each thread they hold, at each position
// of the per-thread vector, the indices of the element at that position
// (TileLayout.h). Per position: the row-major element index over the
// tensor's sizes, a bounds check (every index in [0, size)) and the mask,
// then one scalar load (a zero where not read) or store under that
// condition; a piece whose positions access one contiguous aligned run
// (tested at run time, folded by LLVM where the indices are a broadcast
// and an iota) is one vector load or store instead. Padding positions (rows
// past the first dimension's extent, columns past the last) are neither read
// nor written, and a scatter of a tile several threads hold is written by one
// of them (lane 0 of a replicated tile, group 0 of a tile every group holds). A
// tile.atomic is a scatter whose stores are atomicrmw at device scope.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/LoweringUtils.h"

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace dslc;

namespace {

/// The per-position conditions and addresses of one gather or scatter.
struct IndexedAccess {
  SmallVector<Value> ok;      ///< i1 per position: read / write it
  SmallVector<Value> address; ///< per position (clamped to element 0)
  /// Per position, its index along each dimension (i64).
  SmallVector<SmallVector<Value, 2>> coords;
  int64_t vec = 1; ///< positions of a piece (TileLayout::vec)
};

/// Whether position (o, c, v) of this thread holds an element of the tile
/// (not padding), and, for a store, whether this thread writes it.
Value holdsElement(OpBuilder &b, Location loc, const TileLayout &layout,
                   int64_t o, int64_t c, int64_t v, Value lane, Value group,
                   bool writes) {
  auto i64 = [&](int64_t x) { return lower::i64(b, loc, x); };
  Value ok = arith::ConstantIntOp::create(b, loc, 1, 1);
  auto require = [&](Value x) { ok = arith::AndIOp::create(b, loc, ok, x); };
  if (auto [row, rowValid] = lower::rowOf(b, loc, layout, o, group); rowValid)
    require(rowValid);
  if (!layout.replicated) {
    Value column = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(
            b, loc,
            arith::AddIOp::create(b, loc, lane, i64(c * layout.rowThreads)),
            i64(layout.vec)),
        i64(v));
    require(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, column,
                                  i64(layout.inner)));
  } else if (writes) {
    require(
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, i64(0)));
  }
  if (writes && layout.groupReplicated())
    require(
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, group, i64(0)));
  return ok;
}

IndexedAccess indexedAccess(OpBuilder &b, Location loc, const KernelInfo &info,
                            RankedTensorType tile, Value ref,
                            ValueRange indices, Value mask, Type memElement,
                            bool writes) {
  TileLayout layout = info.layout(tile.getShape());
  auto [lane, group] = lower::laneAndGroup(b, loc, layout);
  int64_t rank = indices.size();
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < rank; ++d)
    sizes.push_back(lower::field(b, loc, ref, 1 + d));
  Value base = lower::field(b, loc, ref, 0);
  Value zero = lower::i64(b, loc, 0);
  IndexedAccess a;
  a.vec = layout.vec;
  for (int64_t o = 0; o < layout.outer; ++o)
    for (int64_t c = 0; c < layout.chunks; ++c)
      for (int64_t v = 0; v < layout.vec; ++v) {
        int64_t p = layout.position(o, c, v);
        Value ok = holdsElement(b, loc, layout, o, c, v, lane, group, writes);
        if (mask)
          ok = arith::AndIOp::create(
              b, loc, ok,
              vector::ExtractOp::create(b, loc, mask, ArrayRef<int64_t>{p}));
        SmallVector<Value, 2> coords;
        for (int64_t d = 0; d < rank; ++d) {
          Value i = vector::ExtractOp::create(b, loc, indices[d],
                                              ArrayRef<int64_t>{p});
          if (i.getType().isIndex())
            i = arith::IndexCastOp::create(b, loc, b.getI64Type(), i);
          else if (i.getType().getIntOrFloatBitWidth() < 64)
            i = arith::ExtSIOp::create(b, loc, b.getI64Type(), i);
          // Unsigned: a negative index is past the size too.
          ok = arith::AndIOp::create(
              b, loc, ok,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i,
                                    sizes[d]));
          coords.push_back(i);
        }
        Value linear = lower::linearIndex(b, loc, coords, sizes);
        linear = arith::SelectOp::create(b, loc, ok, linear, zero);
        a.ok.push_back(ok);
        a.address.push_back(
            lower::elementPtr(b, loc, base, memElement, linear));
        a.coords.push_back(std::move(coords));
      }
  return a;
}

/// Whether the `a.vec` positions from `first` access one contiguous,
/// aligned run of the tensor: every one accessed, each one element past
/// the one before along the last dimension and at the same index along
/// the others (an embedding's `weight[idx, tile_e]`: LLVM folds these
/// tests where the indices are a broadcast row and an iota), the first
/// address aligned to the run's bytes.
Value isOneRun(OpBuilder &b, Location loc, const IndexedAccess &a, size_t first,
               unsigned runBytes) {
  Value all = a.ok[first];
  const SmallVector<Value, 2> &at = a.coords[first];
  for (int64_t v = 1; v < a.vec; ++v) {
    const SmallVector<Value, 2> &c = a.coords[first + v];
    all = arith::AndIOp::create(b, loc, all, a.ok[first + v]);
    for (size_t d = 0; d < c.size(); ++d) {
      Value want = at[d];
      if (d + 1 == c.size())
        want = arith::AddIOp::create(b, loc, want, lower::i64(b, loc, v));
      all = arith::AndIOp::create(
          b, loc, all,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, c[d], want));
    }
  }
  Value addr =
      LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), a.address[first]);
  Value low = arith::AndIOp::create(b, loc, addr,
                                    lower::i64(b, loc, int64_t(runBytes) - 1));
  return arith::AndIOp::create(
      b, loc, all,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, low,
                            lower::i64(b, loc, 0)));
}

/// Whether a piece of `a` may be one access of `runBytes` (a power of two,
/// at most 16: one ld/st.global.v4.b32).
bool mayBeRuns(const IndexedAccess &a, unsigned runBytes) {
  return a.vec > 1 && llvm::isPowerOf2_32(runBytes) && runBytes <= 16 &&
         !a.coords.empty() && !a.coords.front().empty();
}

/// Positions [first, first + n) of a gather, one scalar load each where
/// read (zero elsewhere).
SmallVector<Value> loadEach(OpBuilder &b, Location loc, const IndexedAccess &a,
                            size_t first, int64_t n, Type memElement,
                            Value zero, tile::Eviction evict) {
  unsigned bytes = memElement.getIntOrFloatBitWidth() / 8;
  SmallVector<Value> elements;
  for (size_t p = first; p < first + n; ++p) {
    Value address = a.address[p];
    auto ifOp = scf::IfOp::create(
        b, loc, a.ok[p],
        [&](OpBuilder &b, Location loc) {
          scf::YieldOp::create(
              b, loc,
              lower::globalLoad(b, loc, memElement, address, bytes, evict));
        },
        [&](OpBuilder &b, Location loc) {
          scf::YieldOp::create(b, loc, zero);
        });
    elements.push_back(ifOp.getResult(0));
  }
  return elements;
}

struct GatherOpLowering : TilePattern<tile::GatherOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (op->hasAttr(lower::kCtaOrderedAttr))
      lower::ctaBarrier(rewriter, loc);
    RankedTensorType tile = op.getResult().getType();
    auto resultType = cast<VectorType>(getTypeConverter()->convertType(tile));
    Type element = resultType.getElementType();
    bool isBool = element.isInteger(1);
    Type memElement = lower::memoryType(element);
    IndexedAccess a =
        indexedAccess(rewriter, loc, info, tile, adaptor.getRef(),
                      adaptor.getIndices(), adaptor.getMask(), memElement,
                      /*writes=*/false);
    unsigned bytes = memElement.getIntOrFloatBitWidth() / 8;
    Value zero = arith::ConstantOp::create(rewriter, loc,
                                           rewriter.getZeroAttr(memElement));
    SmallVector<Value> elements;
    // A piece whose positions read one contiguous run is one vector load
    // (16 bytes: ld.global.v4.b32 for f32) where it is, at run time;
    // element by element otherwise.
    unsigned runBytes = bytes * a.vec;
    bool vectorize = mayBeRuns(a, runBytes);
    tile::Eviction evict = op.getEvict().value_or(tile::Eviction::normal);
    for (size_t first = 0; first < a.ok.size(); first += a.vec) {
      if (!vectorize) {
        llvm::append_range(elements, loadEach(rewriter, loc, a, first, a.vec,
                                              memElement, zero, evict));
        continue;
      }
      auto runType = VectorType::get({a.vec}, memElement);
      auto ifOp = scf::IfOp::create(
          rewriter, loc, isOneRun(rewriter, loc, a, first, runBytes),
          [&](OpBuilder &b, Location loc) {
            scf::YieldOp::create(b, loc,
                                 lower::globalLoad(b, loc, runType,
                                                   a.address[first], runBytes,
                                                   evict));
          },
          [&](OpBuilder &b, Location loc) {
            Value each = vector::FromElementsOp::create(
                b, loc, runType,
                loadEach(b, loc, a, first, a.vec, memElement, zero, evict));
            scf::YieldOp::create(b, loc, each);
          });
      for (int64_t v = 0; v < a.vec; ++v)
        elements.push_back(vector::ExtractOp::create(
            rewriter, loc, ifOp.getResult(0), ArrayRef<int64_t>{v}));
    }
    Value result = vector::FromElementsOp::create(
        rewriter, loc, VectorType::get(resultType.getShape(), memElement),
        elements);
    if (isBool)
      result = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ne, result,
          lower::splatConstant(rewriter, loc,
                               cast<VectorType>(result.getType()),
                               rewriter.getIntegerAttr(memElement, 0)));
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ScatterOpLowering : TilePattern<tile::ScatterOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::ScatterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType tile = op.getValue().getType();
    Value value = adaptor.getValue();
    auto valueType = cast<VectorType>(value.getType());
    Type memElement = lower::memoryType(valueType.getElementType());
    if (valueType.getElementType().isInteger(1))
      value = arith::ExtUIOp::create(
          rewriter, loc, VectorType::get(valueType.getShape(), memElement),
          value);
    IndexedAccess a =
        indexedAccess(rewriter, loc, info, tile, adaptor.getRef(),
                      adaptor.getIndices(), adaptor.getMask(), memElement,
                      /*writes=*/true);
    unsigned bytes = memElement.getIntOrFloatBitWidth() / 8;
    auto storeEach = [&](OpBuilder &b, Location loc, size_t first) {
      for (size_t p = first; p < first + a.vec; ++p) {
        Value x = vector::ExtractOp::create(b, loc, value,
                                            ArrayRef<int64_t>{int64_t(p)});
        Value address = a.address[p];
        scf::IfOp::create(b, loc, a.ok[p], [&](OpBuilder &b, Location loc) {
          LLVM::StoreOp::create(b, loc, x, address, bytes);
          scf::YieldOp::create(b, loc);
        });
      }
    };
    // A piece whose positions write one contiguous aligned run is one
    // vector store, as a gather's is one vector load.
    unsigned runBytes = bytes * a.vec;
    bool vectorize = mayBeRuns(a, runBytes);
    for (size_t first = 0; first < a.ok.size(); first += a.vec) {
      if (!vectorize) {
        storeEach(rewriter, loc, first);
        continue;
      }
      Value run = vector::ExtractStridedSliceOp::create(
          rewriter, loc, value, ArrayRef<int64_t>{int64_t(first)},
          ArrayRef<int64_t>{a.vec}, ArrayRef<int64_t>{1});
      scf::IfOp::create(
          rewriter, loc, isOneRun(rewriter, loc, a, first, runBytes),
          [&](OpBuilder &b, Location loc) {
            LLVM::StoreOp::create(b, loc, run, a.address[first], runBytes);
            scf::YieldOp::create(b, loc);
          },
          [&](OpBuilder &b, Location loc) {
            storeEach(b, loc, first);
            scf::YieldOp::create(b, loc);
          });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// LLVM's atomicrmw operation of a tile.atomic kind on `element`s.
LLVM::AtomicBinOp atomicBinOp(tile::AtomicKind kind, Type element) {
  bool isFloat = isa<FloatType>(element);
  switch (kind) {
  case tile::AtomicKind::add:
    return isFloat ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add;
  case tile::AtomicKind::max:
    return isFloat ? LLVM::AtomicBinOp::fmax : LLVM::AtomicBinOp::max;
  case tile::AtomicKind::min:
    return isFloat ? LLVM::AtomicBinOp::fmin : LLVM::AtomicBinOp::min;
  case tile::AtomicKind::andi:
    return LLVM::AtomicBinOp::_and;
  case tile::AtomicKind::ori:
    return LLVM::AtomicBinOp::_or;
  case tile::AtomicKind::xori:
    return LLVM::AtomicBinOp::_xor;
  case tile::AtomicKind::xchg:
    return LLVM::AtomicBinOp::xchg;
  }
  llvm_unreachable("unknown atomic kind");
}

/// Whether a tile.atomic of `sem` orders this thread's earlier accesses
/// before it (release) / its later accesses after it (acquire).
bool releases(tile::AtomicSem sem) {
  return sem == tile::AtomicSem::release || sem == tile::AtomicSem::acq_rel;
}
bool acquires(tile::AtomicSem sem) {
  return sem == tile::AtomicSem::acquire || sem == tile::AtomicSem::acq_rel;
}

/// tile.atomic: per element this thread holds, one relaxed atomicrmw (at
/// GPU scope) where the element is in bounds and unmasked; a release is a
/// GPU-scope fence before them, an acquire one after them (the PTX memory
/// model's release and acquire patterns). An ordered atomicrmw would not
/// do: llc 22 drops the ordering of atomicrmw add/max/... and emits a
/// plain relaxed `atom.global.add` (docs/compiler.md, "Memory semantics").
struct AtomicOpLowering : TilePattern<tile::AtomicOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::AtomicOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType tile = op.getValue().getType();
    Value value = adaptor.getValue();
    Type element = cast<VectorType>(value.getType()).getElementType();
    IndexedAccess a = indexedAccess(
        rewriter, loc, info, tile, adaptor.getRef(), adaptor.getIndices(),
        adaptor.getMask(), lower::memoryType(element), /*writes=*/true);
    LLVM::AtomicBinOp bin = atomicBinOp(op.getKind(), element);
    auto fence = [&](LLVM::AtomicOrdering ordering) {
      LLVM::FenceOp::create(rewriter, loc, ordering, StringRef("device"));
    };
    if (releases(op.getSem()))
      fence(LLVM::AtomicOrdering::release);
    for (auto [p, ok] : llvm::enumerate(a.ok)) {
      Value x = vector::ExtractOp::create(rewriter, loc, value,
                                          ArrayRef<int64_t>{int64_t(p)});
      Value address = a.address[p];
      scf::IfOp::create(rewriter, loc, ok, [&](OpBuilder &b, Location loc) {
        LLVM::AtomicRMWOp::create(b, loc, bin, address, x,
                                  LLVM::AtomicOrdering::monotonic,
                                  /*syncscope=*/StringRef("device"));
        scf::YieldOp::create(b, loc);
      });
    }
    if (acquires(op.getSem()))
      fence(LLVM::AtomicOrdering::acquire);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void dslc::populateGatherLoweringPatterns(TileTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<GatherOpLowering, ScatterOpLowering, AtomicOpLowering>(
      converter, patterns.getContext());
}
