//===- LayoutConversion.cpp - tile values between layouts ----------------===//
//
// Two tiles of the same elements may be spread differently over a CTA's
// threads (TileLayout.h): a reshape that changes the last dimension, or the
// rank across 2 (rank <= 1 tiles use one group of threads, rank >= 2 ones
// the kernel's groups), or that changes the rows dealt over the groups.
// From a tile every thread holds whole, a thread of one group keeps the
// elements it owns: a local selection. Any other change goes through the
// module's shared workspace, one array of addrspace(3) bytes sized to the
// largest need of any op (reserveSharedWorkspace, called by the distribution
// before it lowers a kernel): the owners store the tile row-major, and after a
// bar.sync each thread loads the elements of its new layout. Every use of the
// workspace ends with a bar.sync, so the next use cannot overwrite what a
// slower thread still reads.
//
//===----------------------------------------------------------------------===//

#include "compiler/Conversion/LoweringUtils.h"

#include "compiler/Conversion/Passes.h"
#include <numeric>

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace dslc;

/// Bytes of one element of `element` in shared memory (i1 takes a byte).
static int64_t elementBytes(Type element) {
  return std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
}

namespace dslc::lower {

int64_t gatherSharedBytes(ArrayRef<int64_t> shape, Type element) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return llvm::alignTo(n * elementBytes(storageType(element)), 16);
}

LayoutChange layoutChange(const TileLayout &from, const TileLayout &to) {
  if (from.sameDistribution(to))
    return LayoutChange::None;
  if (from.allReplicated() && to.groups() == 1)
    return LayoutChange::Select;
  return LayoutChange::Shared;
}

int64_t sharedBytesNeeded(Operation *op, const KernelInfo &info) {
  if (isa<tile::ReduceOp>(op))
    return reduceSharedBytes(op, info);
  if (auto dot = dyn_cast<tile::DotOp>(op))
    return mmaElementsPerThread(dot.getType()) ? mmaDotSharedBytes(dot)
                                               : dotSharedBytes(dot);
  if (isa<tile::ConvertLayoutOp>(op))
    return mmaConvertSharedBytes(op);
  // A ring of stages is live across its loop, at its own offset.
  if (auto copy = dyn_cast<tile::AsyncCopyOp>(op))
    return copy.getBuffer().endBytes();
  if (auto dot = dyn_cast<tile::StagedDotOp>(op))
    return std::max(dot.getLhs().endBytes(), dot.getRhs().endBytes());
  if (auto broadcast = dyn_cast<tile::BroadcastOp>(op)) {
    RankedTensorType in = broadcast.getInput().getType();
    if (in.getShape() != broadcast.getResult().getType().getShape() &&
        !broadcastShuffle(
            info.layout(in.getShape()),
            info.layout(broadcast.getResult().getType().getShape()),
            in.getShape(), broadcast.getResult().getType().getShape()))
      return gatherSharedBytes(in.getShape(), in.getElementType());
    return 0;
  }
  if (auto transpose = dyn_cast<tile::TransposeOp>(op)) {
    RankedTensorType in = transpose.getInput().getType();
    return gatherSharedBytes(in.getShape(), in.getElementType());
  }
  if (auto shift = dyn_cast<tile::ShiftOp>(op)) {
    RankedTensorType in = shift.getInput().getType();
    return gatherSharedBytes(in.getShape(), in.getElementType());
  }
  if (auto reshape = dyn_cast<tile::ReshapeOp>(op)) {
    RankedTensorType in = reshape.getInput().getType();
    if (layoutChange(info.layout(in.getShape()),
                     info.layout(reshape.getResult().getType().getShape())) ==
        LayoutChange::Shared)
      return gatherSharedBytes(in.getShape(), in.getElementType());
  }
  return 0;
}

void reserveSharedWorkspace(ModuleOp module, int64_t bytes) {
  MLIRContext *ctx = module.getContext();
  bytes = llvm::alignTo(bytes, 16);
  if (auto old = module->getAttrOfType<IntegerAttr>(kSharedWorkspaceBytesAttr))
    bytes = std::max(bytes, old.getInt());
  module->setAttr(kSharedWorkspaceBytesAttr,
                  IntegerAttr::get(IntegerType::get(ctx, 64), bytes));
  // Up to the default limit the workspace is static (any launcher runs the
  // cubin); past it, dynamic: the runtime opts the kernel in and passes the
  // bytes at launch (docs/kernel-abi.md).
  bool dynamic = bytes > kMaxStaticSharedBytes;
  auto type =
      LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), dynamic ? 0 : bytes);
  LLVM::Linkage linkage =
      dynamic ? LLVM::Linkage::External : LLVM::Linkage::Internal;
  if (auto global = module.lookupSymbol<LLVM::GlobalOp>(kSharedWorkspace))
    global.erase();
  OpBuilder b(ctx);
  b.setInsertionPointToStart(module.getBody());
  // wgmma's swizzled stages repeat their pattern every 1024 bytes from a
  // 1024-byte boundary.
  int64_t alignment = module->hasAttr(kNeedsSm90aAttr) ? 1024 : 16;
  LLVM::GlobalOp::create(b, module.getLoc(), type, /*isConstant=*/false,
                         linkage, kSharedWorkspace, Attribute(), alignment,
                         /*addrSpace=*/3);
}

Value sharedWorkspace(OpBuilder &b, Location loc, Operation *inModule) {
  auto module = dyn_cast<ModuleOp>(inModule);
  if (!module)
    module = inModule->getParentOfType<ModuleOp>();
  auto global = module.lookupSymbol<LLVM::GlobalOp>(kSharedWorkspace);
  assert(global && "the distribution reserves the workspace first");
  return LLVM::AddressOfOp::create(b, loc, global);
}

Value distributeReplicated(OpBuilder &b, Location loc, const KernelInfo &info,
                           ArrayRef<int64_t> shape, Value all) {
  TileLayout layout = info.layout(shape);
  assert(!layout.allReplicated() && "the result must be distributed");
  Type element = cast<VectorType>(all.getType()).getElementType();
  auto type = VectorType::get({layout.perThread()}, element);
  Value tid = threadId(b, loc);
  // tid == t, built once per t.
  DenseMap<int64_t, Value> isThread;
  auto threadIs = [&](int64_t t) {
    Value &v = isThread[t];
    if (!v)
      v = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                i64(b, loc, t));
    return v;
  };
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  SmallVector<Value> elements;
  for (int64_t o = 0; o < layout.outer; ++o)
    for (int64_t c = 0; c < layout.chunks; ++c)
      for (int64_t v = 0; v < layout.vec; ++v) {
        // Element v of piece c of row o is `all`'s element (row, column) in
        // thread t: one candidate per thread that owns one (a select only
        // where two owners hold different elements).
        Value x;
        int64_t last = -1;
        for (int64_t t = 0; t < layout.threads; ++t) {
          int64_t lane = t % layout.rowThreads, g = t / layout.rowThreads;
          std::optional<int64_t> row = layout.row(o, g);
          int64_t column = layout.innerIndex(c, lane, v);
          if (!row || column >= layout.inner)
            continue;
          int64_t index = *row * layout.inner + column;
          if (index == last)
            continue;
          Value candidate =
              vector::ExtractOp::create(b, loc, all, ArrayRef<int64_t>{index});
          x = x ? arith::SelectOp::create(b, loc, threadIs(t), candidate, x)
                      .getResult()
                : candidate;
          last = index;
        }
        elements.push_back(x ? x : zero);
      }
  return vector::FromElementsOp::create(b, loc, type, elements);
}

std::pair<Value, Value> rowOf(OpBuilder &b, Location loc,
                              const TileLayout &layout, int64_t o,
                              Value group) {
  int64_t k = o % layout.rest;
  if (!layout.split)
    return {i64(b, loc, o), Value()};
  // (r0 * G + group) * rest + k
  Value i0 = arith::AddIOp::create(
      b, loc, group, i64(b, loc, o / layout.rest * layout.groups()));
  Value row = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, i0, i64(b, loc, layout.rest)),
      i64(b, loc, k));
  Value valid;
  if (layout.raggedRows())
    valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i0,
                                  i64(b, loc, layout.dim0));
  return {row, valid};
}

Value rowInBounds(OpBuilder &b, Location loc, const TileLayout &layout,
                  int64_t o, Value group) {
  auto [row, valid] = rowOf(b, loc, layout, o, group);
  if (!valid)
    return row;
  return arith::MinUIOp::create(b, loc, row,
                                i64(b, loc, layout.dim0 * layout.rest - 1));
}

/// Where this thread's pieces of a tile of `layout` lie in a staged copy
/// (rows `pitch` elements apart) at `base`: with rows not ragged, piece c
/// of row o is at one per-thread address plus a constant (so that the
/// backend folds it into the access, and one register holds every piece's
/// address: per-piece addresses hoisted out of a loop would each hold
/// registers across it); else nullopt.
struct StagedPieces {
  Value threadBase;
  Type element;
  int64_t pitch;
  const TileLayout &layout;

  /// The constant element offset of piece c of row o from threadBase:
  /// group 0's row and lane 0's column (threadBase adds this thread's).
  int64_t offset(int64_t o, int64_t c) const {
    return *layout.row(o, /*group=*/0) * pitch +
           layout.innerIndex(c, /*lane=*/0, /*v=*/0);
  }
  Value address(OpBuilder &b, Location loc, int64_t o, int64_t c) const {
    return elementPtr(b, loc, threadBase, element, i64(b, loc, offset(o, c)));
  }
};

/// The alignment (bytes) of every piece of V elements of `bytes` each in a
/// copy staged with rows `pitch` elements apart from a 16-byte aligned base.
static int64_t pieceAlignment(const TileLayout &layout, int64_t pitch,
                              int64_t bytes) {
  return std::gcd(std::gcd<int64_t>(16, pitch * bytes), layout.vec * bytes);
}

static std::optional<StagedPieces>
stagedPieces(OpBuilder &b, Location loc, const TileLayout &layout, Value base,
             Type element, int64_t pitch, Value lane, Value group) {
  if (layout.raggedRows())
    return std::nullopt;
  Value offset = i64(b, loc, 0);
  if (layout.split)
    offset =
        arith::MulIOp::create(b, loc, group, i64(b, loc, layout.rest * pitch));
  if (!layout.replicated)
    offset = arith::AddIOp::create(
        b, loc, offset,
        arith::MulIOp::create(b, loc, lane, i64(b, loc, layout.vec)));
  return StagedPieces{elementPtr(b, loc, base, element, offset), element, pitch,
                      layout};
}

void storeDistributed(OpBuilder &b, Location loc, const KernelInfo &info,
                      ArrayRef<int64_t> shape, Value value, Value base,
                      int64_t pitch) {
  TileLayout layout = info.layout(shape);
  if (pitch == 0)
    pitch = layout.inner;
  Type memElement = cast<VectorType>(value.getType()).getElementType();
  Value tid = threadId(b, loc);
  if (layout.allReplicated() && pitch == layout.inner) {
    // Every thread holds the whole tile: thread 0 stores it.
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                        i64(b, loc, 0));
    scf::IfOp::create(b, loc, first, [&](OpBuilder &b, Location loc) {
      LLVM::StoreOp::create(b, loc, value, base, /*alignment=*/16);
      scf::YieldOp::create(b, loc);
    });
    return;
  }
  auto [lane, group] = laneAndGroup(b, loc, layout);
  // One writer per element: lane 0 of a replicated tile, group 0 of a tile
  // every group holds.
  Value writer;
  auto require = [&](Value c) {
    writer = writer ? arith::AndIOp::create(b, loc, writer, c).getResult() : c;
  };
  if (layout.replicated)
    require(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                  i64(b, loc, 0)));
  if (layout.groupReplicated())
    require(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, group,
                                  i64(b, loc, 0)));
  std::optional<StagedPieces> staged =
      stagedPieces(b, loc, layout, base, memElement, pitch, lane, group);
  int64_t align = pieceAlignment(layout, pitch, elementBytes(memElement));

  for (int64_t o = 0; o < layout.outer; ++o) {
    auto [row, rowValid] = rowOf(b, loc, layout, o, group);
    Value rowStart = arith::MulIOp::create(b, loc, row, i64(b, loc, pitch));
    Value valid = writer;
    if (rowValid)
      valid = valid ? arith::AndIOp::create(b, loc, valid, rowValid).getResult()
                    : rowValid;
    for (int64_t c = 0; c < layout.chunks; ++c) {
      // Piece c of the row starts at column (c * P + lane) * V.
      Value first =
          layout.replicated
              ? i64(b, loc, 0)
              : arith::MulIOp::create(
                    b, loc,
                    arith::AddIOp::create(b, loc, lane,
                                          i64(b, loc, c * layout.rowThreads)),
                    i64(b, loc, layout.vec))
                    .getResult();
      Value address =
          staged ? staged->address(b, loc, o, c)
                 : elementPtr(b, loc, base, memElement,
                              arith::AddIOp::create(b, loc, first, rowStart));
      Value slice = vector::ExtractStridedSliceOp::create(
          b, loc, value, ArrayRef<int64_t>{layout.position(o, c, 0)},
          ArrayRef<int64_t>{layout.vec}, ArrayRef<int64_t>{1});
      // Pieces of a row of whole pieces are all in or all out: one vector
      // store under the piece's and the row's validity, no element-wise
      // fallback whose addresses would stay live in registers.
      if (layout.replicated || layout.inner % layout.vec == 0) {
        Value store = valid;
        // Lanes past the row hold padding pieces (no lane does when the
        // row's pieces cover every lane's).
        if (!layout.replicated &&
            (c + 1) * layout.rowThreads * layout.vec > layout.inner) {
          Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                           first, i64(b, loc, layout.inner));
          store =
              store ? arith::AndIOp::create(b, loc, store, in).getResult() : in;
        }
        if (!store) {
          LLVM::StoreOp::create(b, loc, slice, address, align);
          continue;
        }
        scf::IfOp::create(b, loc, store, [&](OpBuilder &b, Location loc) {
          LLVM::StoreOp::create(b, loc, slice, address, align);
          scf::YieldOp::create(b, loc);
        });
        continue;
      }
      Value remaining =
          arith::SubIOp::create(b, loc, i64(b, loc, layout.inner), first);
      SmallVector<Value> lanes;
      for (int64_t v = 0; v < layout.vec; ++v) {
        Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                         remaining, i64(b, loc, v));
        lanes.push_back(valid ? arith::AndIOp::create(b, loc, in, valid) : in);
      }
      Value mask = vector::FromElementsOp::create(
          b, loc, VectorType::get({layout.vec}, b.getI1Type()), lanes);
      // A whole piece is one vector store when its start is aligned: the
      // row starts of a pitch that is not a multiple of V are not.
      Value full = arith::ConstantIntOp::create(b, loc, 0, 1);
      if (pitch % layout.vec == 0 ||
          (!layout.split && o * pitch % layout.vec == 0)) {
        full = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                     remaining, i64(b, loc, layout.vec));
        if (valid)
          full = arith::AndIOp::create(b, loc, full, valid);
      }
      AccessPiece piece{layout.position(o, c, 0), layout.vec, address,
                        i64(b, loc, 1),
                        /*contiguous=*/true,      mask,       full};
      storePiece(b, loc, piece, slice);
    }
  }
}

Value loadDistributed(OpBuilder &b, Location loc, const KernelInfo &info,
                      ArrayRef<int64_t> shape, Type memElement, Value base,
                      const std::function<Value(int64_t, Value)> &onPiece,
                      int64_t pitch) {
  TileLayout layout = info.layout(shape);
  if (pitch == 0)
    pitch = layout.inner;
  auto type = VectorType::get({layout.perThread()}, memElement);
  int64_t bytes = elementBytes(memElement);
  if (layout.allReplicated() && pitch == layout.inner) {
    Value all = LLVM::LoadOp::create(b, loc, type, base, /*alignment=*/16);
    return onPiece ? onPiece(0, all) : all;
  }
  auto [lane, group] = laneAndGroup(b, loc, layout);
  auto at = [&](Value index) {
    return elementPtr(b, loc, base, memElement, index);
  };
  auto pieceType = VectorType::get({layout.vec}, memElement);
  Value result = arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
  // Padding (columns past the row, rows past d0) reads the last element in
  // bounds: every load stays inside the tile.
  bool whole = layout.inner % layout.vec == 0;
  int64_t align = pieceAlignment(layout, pitch, bytes);
  std::optional<StagedPieces> staged =
      stagedPieces(b, loc, layout, base, memElement, pitch, lane, group);
  for (int64_t o = 0; o < layout.outer; ++o) {
    Value row = rowInBounds(b, loc, layout, o, group);
    Value rowStart = arith::MulIOp::create(b, loc, row, i64(b, loc, pitch));
    for (int64_t c = 0; c < layout.chunks; ++c) {
      Value piece;
      if (layout.replicated) {
        piece = LLVM::LoadOp::create(
            b, loc, pieceType,
            staged ? staged->address(b, loc, o, c) : at(rowStart), bytes);
      } else {
        Value first = arith::MulIOp::create(
            b, loc,
            arith::AddIOp::create(b, loc, lane,
                                  i64(b, loc, c * layout.rowThreads)),
            i64(b, loc, layout.vec));
        if (whole && staged &&
            (c + 1) * layout.rowThreads * layout.vec <= layout.inner) {
          // Every lane's piece inside the row: one aligned vector load at
          // the thread's base plus a constant.
          piece = LLVM::LoadOp::create(b, loc, pieceType,
                                       staged->address(b, loc, o, c), align);
        } else if (whole) {
          // Pieces start at multiples of V: one aligned vector load.
          Value column = arith::MinUIOp::create(
              b, loc, first, i64(b, loc, layout.inner - layout.vec));
          piece = LLVM::LoadOp::create(
              b, loc, pieceType,
              at(arith::AddIOp::create(b, loc, rowStart, column)), align);
        } else {
          piece = arith::ConstantOp::create(b, loc, b.getZeroAttr(pieceType));
          for (int64_t v = 0; v < layout.vec; ++v) {
            Value column = arith::MinUIOp::create(
                b, loc, arith::AddIOp::create(b, loc, first, i64(b, loc, v)),
                i64(b, loc, layout.inner - 1));
            Value x = LLVM::LoadOp::create(
                b, loc, memElement,
                at(arith::AddIOp::create(b, loc, rowStart, column)), bytes);
            piece = vector::InsertOp::create(b, loc, x, piece,
                                             ArrayRef<int64_t>{v});
          }
        }
      }
      int64_t position = layout.position(o, c, 0);
      if (onPiece)
        piece = onPiece(position, piece);
      result = vector::InsertStridedSliceOp::create(b, loc, piece, result,
                                                    ArrayRef<int64_t>{position},
                                                    ArrayRef<int64_t>{1});
    }
  }
  return result;
}

SmallVector<Value> rowIndices(OpBuilder &b, Location loc,
                              const TileLayout &layout, ArrayRef<int64_t> shape,
                              int64_t o, Value group) {
  int64_t leading = shape.empty() ? 0 : shape.size() - 1;
  SmallVector<Value> indices(leading);
  // The dimensions after the dealt ones: from o % rest, at compile time
  // (every leading one from o when none is dealt: each thread holds every
  // row, row o being row-major row o).
  int64_t s = layout.split ? layout.dealtDims : 0;
  int64_t k = layout.split ? o % layout.rest : o;
  for (int64_t d = leading - 1; d >= s; --d) {
    indices[d] = i64(b, loc, k % shape[d]);
    k /= shape[d];
  }
  if (!layout.split)
    return indices;
  // The dealt ones: from r0 * G + group, clamped to the tile's last.
  Value i0 = arith::AddIOp::create(
      b, loc, group, i64(b, loc, o / layout.rest * layout.groups()));
  if (layout.raggedRows())
    i0 = arith::MinUIOp::create(b, loc, i0, i64(b, loc, layout.dim0 - 1));
  for (int64_t d = s - 1; d >= 0; --d) {
    indices[d] = d ? arith::RemUIOp::create(b, loc, i0, i64(b, loc, shape[d]))
                         .getResult()
                   : i0;
    if (d)
      i0 = arith::DivUIOp::create(b, loc, i0, i64(b, loc, shape[d]));
  }
  return indices;
}

/// Coordinate `c` (i64) along a dimension of `extent` moved by `shift`'s
/// offset back (c - offset) where that stays inside, else `c` itself.
static Value shifted(OpBuilder &b, Location loc, Value c, int64_t extent,
                     int64_t offset) {
  Value inside = offset > 0
                     ? arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                             c, i64(b, loc, offset))
                     : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                             c, i64(b, loc, extent + offset));
  return arith::SelectOp::create(
      b, loc, inside, arith::SubIOp::create(b, loc, c, i64(b, loc, offset)), c);
}

Value loadStrided(OpBuilder &b, Location loc, const KernelInfo &info,
                  ArrayRef<int64_t> shape, Type memElement, Value base,
                  ArrayRef<int64_t> strides, int64_t offset,
                  std::optional<ElementShift> shift) {
  TileLayout layout = info.layout(shape);
  auto [lane, group] = laneAndGroup(b, loc, layout);
  int64_t rank = shape.size();
  SmallVector<Value> elements;
  for (int64_t o = 0; o < layout.outer; ++o) {
    // The row's indices along the leading dimensions, as an offset.
    SmallVector<Value> indices = rowIndices(b, loc, layout, shape, o, group);
    Value rowOffset = i64(b, loc, offset);
    for (auto [k, j] : llvm::enumerate(indices)) {
      Value index = j;
      if (shift && shift->dim == static_cast<int64_t>(k))
        index = shifted(b, loc, j, shape[k], shift->offset);
      rowOffset = arith::AddIOp::create(
          b, loc, rowOffset,
          arith::MulIOp::create(b, loc, index, i64(b, loc, strides[k])));
    }
    for (int64_t c = 0; c < layout.chunks; ++c)
      for (int64_t v = 0; v < layout.vec; ++v) {
        Value linear = rowOffset;
        if (rank && !layout.replicated) {
          Value column = arith::AddIOp::create(
              b, loc,
              arith::MulIOp::create(
                  b, loc,
                  arith::AddIOp::create(b, loc, lane,
                                        i64(b, loc, c * layout.rowThreads)),
                  i64(b, loc, layout.vec)),
              i64(b, loc, v));
          column = arith::MinUIOp::create(b, loc, column,
                                          i64(b, loc, layout.inner - 1));
          if (shift && shift->dim == rank - 1)
            column = shifted(b, loc, column, shape[rank - 1], shift->offset);
          linear = arith::AddIOp::create(
              b, loc, linear,
              arith::MulIOp::create(b, loc, column,
                                    i64(b, loc, strides[rank - 1])));
        }
        elements.push_back(LLVM::LoadOp::create(
            b, loc, memElement, elementPtr(b, loc, base, memElement, linear),
            elementBytes(memElement)));
      }
  }
  return vector::FromElementsOp::create(
      b, loc, VectorType::get({layout.perThread()}, memElement), elements);
}

Value convertLayout(OpBuilder &b, Location loc, const KernelInfo &info,
                    ArrayRef<int64_t> from, ArrayRef<int64_t> to, Value value,
                    Operation *inModule) {
  return convertLayout(b, loc, info, from, info, to, value, inModule);
}

Value convertLayout(OpBuilder &b, Location loc, const KernelInfo &fromInfo,
                    ArrayRef<int64_t> from, const KernelInfo &toInfo,
                    ArrayRef<int64_t> to, Value value, Operation *inModule) {
  switch (layoutChange(fromInfo.layout(from), toInfo.layout(to))) {
  case LayoutChange::None:
    return value;
  case LayoutChange::Select:
    return distributeReplicated(b, loc, toInfo, to, value);
  case LayoutChange::Shared:
    break;
  }
  auto valueType = cast<VectorType>(value.getType());
  Type element = valueType.getElementType();
  // i1 vectors are packed bits in LLVM's memory model: go through bytes.
  bool isBool = element.isInteger(1);
  Type memElement = memoryType(element);
  if (isBool)
    value = arith::ExtUIOp::create(
        b, loc, VectorType::get(valueType.getShape(), memElement), value);
  Value base = sharedWorkspace(b, loc, inModule);
  storeDistributed(b, loc, fromInfo, from, value, base);
  ctaBarrier(b, loc);
  Value result = loadDistributed(b, loc, toInfo, to, memElement, base);
  ctaBarrier(b, loc);
  if (isBool)
    result = arith::TruncIOp::create(
        b, loc,
        VectorType::get(cast<VectorType>(result.getType()).getShape(), element),
        result);
  return result;
}

} // namespace dslc::lower

int64_t dslc::sharedWorkspaceBytes(ModuleOp module) {
  auto bytes = module->getAttrOfType<IntegerAttr>(kSharedWorkspaceBytesAttr);
  return bytes ? bytes.getInt() : 0;
}
